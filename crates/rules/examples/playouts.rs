//! Plays random games of one game with the random bot, exactly as `cargo bench --bench engine
//! -- playout/<game>` does, for a profiler: `valgrind --tool=callgrind target/release/examples/
//! playouts votes-for-women 200` counts the instructions, a figure that does not depend on the
//! machine's load (docs/PERFORMANCE.md).

use postplay_rules::engine::Seed;
use postplay_rules::engine::bot::play_random;
use postplay_rules::games::find_game;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args.next().unwrap_or_else(|| "votes-for-women".into());
    let games: u64 = args
        .next()
        .map_or(2000, |n| n.parse().expect("a number of games"));
    let game = find_game(&id).unwrap_or_else(|| panic!("no game {id:?}"));
    let options = game.default_options();
    let seats = game.seat_counts().1;
    let started = std::time::Instant::now();
    let mut commands = 0;
    for n in 1..=games {
        let playout = play_random(game, &options, seats, Seed::from_number(n)).expect("plays");
        commands += playout.record.commands.len();
    }
    let per_game = started.elapsed().as_secs_f64() / games as f64;
    println!(
        "{games} games of {id}, {commands} commands, {:.1} µs a game",
        per_game * 1e6
    );
}
