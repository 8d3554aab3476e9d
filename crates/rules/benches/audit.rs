//! `postplay verify` speed: a sealed 1,070-command Whitehouse record checked end to end
//! (chain, commitment, replay from JSON, final state). `cargo bench --bench audit`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
#[path = "support/long_game.rs"]
mod long_game;

use long_game::long_record;
use postplay_rules::engine::audit::verify;
use std::hint::black_box;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn verify_long_record(c: &mut Criterion) {
    let record = long_record();
    let head = record.chain_head.clone();
    let mut group = c.benchmark_group("verify");
    group.throughput(Throughput::Elements(record.commands.len() as u64));
    group.bench_function(
        format!("whitehouse ({} commands)", record.commands.len()),
        |b| {
            b.iter(|| {
                black_box(verify(postplay_rules::games::ALL, &record, head.as_deref()).unwrap())
            })
        },
    );
    group.finish();
}

criterion_group!(benches, verify_long_record);
criterion_main!(benches);
