//! Whitehouse replay with commands already decoded: the rules' own speed, setup included,
//! without and with the takebacks the server keeps for undo.
//! `cargo bench --bench whitehouse`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use postplay_rules::engine::bot::play_random;
use postplay_rules::engine::{Log, Match, Seat, Seed};
use postplay_rules::games::find_game;
use postplay_rules::games::whitehouse::{Command, Options, Whitehouse};
use std::hint::black_box;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn replay_decoded(c: &mut Criterion) {
    let game = find_game("whitehouse").unwrap();
    let options = serde_json::to_value(Options::default()).unwrap();
    // The longest of the first 200 seeded games: many hands, few landslides.
    let record = (1..=200)
        .map(|n| {
            play_random(game, &options, 4, Seed::from_number(n))
                .unwrap()
                .record
        })
        .max_by_key(|r| r.commands.len())
        .unwrap();
    let seed = record.seed.unwrap();
    let commands: Vec<(Seat, Command)> = record
        .commands
        .iter()
        .map(|e| (e.seat, serde_json::from_value(e.command.clone()).unwrap()))
        .collect();
    let mut group = c.benchmark_group("replay_decoded");
    group.throughput(Throughput::Elements(commands.len() as u64));
    // Without takebacks, as verification replays a record with no undo entry; with them, as
    // the server's store replays every game (each command keeps a copy of the state before it).
    for (name, takebacks) in [("", false), (", takebacks kept", true)] {
        let label = format!("whitehouse ({} commands{name})", commands.len());
        group.bench_function(label, |b| {
            b.iter(|| {
                let mut live = Match::<Whitehouse>::new(Options::default(), 4, seed).unwrap();
                live.track_takebacks(takebacks);
                let mut log = Log::silent();
                for (seat, command) in &commands {
                    live.apply(*seat, command, &mut log).unwrap();
                }
                black_box(live.applied)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, replay_decoded);
criterion_main!(benches);
