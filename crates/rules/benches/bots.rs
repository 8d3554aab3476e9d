//! Practice bot speed per game and level: one decision from a fixed mid-game position, with
//! throughput in playouts (so criterion prints playouts per second; a decision's time is the
//! per-iteration figure). `cargo bench --bench bots`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use postplay_rules::engine::search::{Level, decide_at};
use postplay_rules::engine::testing::random_midgame;
use postplay_rules::engine::{Determinize, Seed, Table, Viewer, forced};
use postplay_rules::games::electoral_combat::ElectoralCombat;
use postplay_rules::games::nationhood::Nationhood;
use postplay_rules::games::statehood::Statehood;
use postplay_rules::games::votes_for_women::VotesForWomen;
use postplay_rules::games::whitehouse::Whitehouse;
use std::hint::black_box;
use std::time::Duration;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The first random mid-game position (from seed 1 on) where the awaited seat has a real
/// decision: its view, seat and table.
fn position<R: Determinize>(
    options: R::Options,
    seats: usize,
    steps: usize,
) -> (R::View, usize, Table<R::Options>)
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    for n in 1.. {
        let live = random_midgame::<R>(options.clone(), seats, Seed::from_number(n), steps);
        let Some(&seat) = R::active(&live.state).first() else {
            continue;
        };
        if forced(&R::choices(&live.state, seat)).is_some() {
            continue;
        }
        let table = Table {
            options: live.options.clone(),
            seats,
            rules_version: R::RULES_VERSION,
        };
        return (R::view(&live.state, Viewer::Seat(seat)), seat, table);
    }
    unreachable!()
}

fn bench_game<R: Determinize>(c: &mut Criterion, options: R::Options, seats: usize, steps: usize)
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let (view, seat, table) = position::<R>(options, seats, steps);
    let mut group = c.benchmark_group(format!("bot/{}", R::ID));
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    for level in Level::ALL {
        group.throughput(Throughput::Elements(u64::from(level.playouts())));
        let mut n = 0u64;
        group.bench_function(level.name(), |b| {
            b.iter(|| {
                n += 1;
                let seed = Seed::from_number(n);
                black_box(decide_at::<R>(&view, seat, &table, level, &seed).unwrap())
            })
        });
    }
    group.finish();
}

fn bots(c: &mut Criterion) {
    bench_game::<ElectoralCombat>(c, Default::default(), 2, 10);
    bench_game::<Whitehouse>(c, Default::default(), 4, 20);
    bench_game::<Statehood>(c, Default::default(), 3, 20);
    bench_game::<Nationhood>(c, Default::default(), 2, 20);
    bench_game::<VotesForWomen>(c, Default::default(), 2, 20);
}

criterion_group!(benches, bots);
criterion_main!(benches);
