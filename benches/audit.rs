//! `postplay verify` speed: a sealed 1,070-command Whitehouse record checked end to end
//! (chain, commitment, replay from JSON, final state). `cargo bench --bench audit`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use postplay::engine::audit::{seal, verify};
use postplay::engine::bot::play_random;
use postplay::engine::{Record, Seed, find_game};
use serde_json::json;
use std::hint::black_box;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Seed 732 of individual play without jokers to 13 points: a long game of 1,070 commands.
pub fn long_record() -> Record {
    let game = find_game("whitehouse").unwrap();
    let options = json!({"partnership": false, "jokers": false, "target": 13});
    let mut record = play_random(game, &options, 4, Seed::from_number(732))
        .unwrap()
        .record;
    for (i, entry) in record.commands.iter_mut().enumerate() {
        entry.at = Some(format!(
            "2026-11-{:02}T{:02}:{:02}:00.000000Z",
            1 + i / 1440,
            i / 60 % 24,
            i % 60
        ));
    }
    record.chain_head = seal(&mut record);
    record
}

fn verify_long_record(c: &mut Criterion) {
    let record = long_record();
    let head = record.chain_head.clone();
    let mut group = c.benchmark_group("verify");
    group.throughput(Throughput::Elements(record.commands.len() as u64));
    group.bench_function(
        format!("whitehouse ({} commands)", record.commands.len()),
        |b| b.iter(|| black_box(verify(&record, head.as_deref()).unwrap())),
    );
    group.finish();
}

criterion_group!(benches, verify_long_record);
criterion_main!(benches);
