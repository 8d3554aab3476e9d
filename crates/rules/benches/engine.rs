//! Engine speed for every hosted game: complete random playouts (choice generation included)
//! and replay of a recorded game (JSON decoding included). `cargo bench --bench engine`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use postplay_rules::engine::Seed;
use postplay_rules::engine::bot::play_random;
use postplay_rules::games::registry;
use std::hint::black_box;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("playout");
    group.throughput(Throughput::Elements(1));
    for game in registry() {
        let options = game.default_options();
        let seats = game.seat_counts().1;
        let mut n = 0u64;
        group.bench_function(game.id(), |b| {
            b.iter(|| {
                n += 1;
                black_box(play_random(*game, &options, seats, Seed::from_number(n)).unwrap())
            })
        });
    }
    group.finish();
}

fn replays(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    for game in registry() {
        let options = game.default_options();
        let seats = game.seat_counts().1;
        let record = play_random(*game, &options, seats, Seed::from_number(1))
            .unwrap()
            .record;
        group.throughput(Throughput::Elements(record.commands.len() as u64));
        group.bench_function(
            format!("{} ({} commands)", game.id(), record.commands.len()),
            |b| b.iter(|| black_box(record.replay(postplay_rules::games::ALL).unwrap())),
        );
    }
    group.finish();
}

criterion_group!(benches, playouts, replays);
criterion_main!(benches);
