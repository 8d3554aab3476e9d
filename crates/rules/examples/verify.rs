//! Verifies the audit bench's sealed 1,070-command Whitehouse record over and over, exactly as
//! `cargo bench --bench audit` does, for a profiler or for timing two builds side by side:
//! `target/release/examples/verify 2000` prints the time of one verification and the commands
//! checked a second.

#[path = "../benches/support/long_game.rs"]
mod long_game;

use postplay_rules::engine::audit::verify;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let rounds: u32 = std::env::args()
        .nth(1)
        .map_or(2000, |n| n.parse().expect("a number of verifications"));
    let record = long_game::long_record();
    let head = record.chain_head.clone();
    let started = std::time::Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(verify(postplay_rules::games::ALL, &record, head.as_deref()).unwrap());
    }
    let each = started.elapsed().as_secs_f64() / f64::from(rounds);
    println!(
        "{rounds} verifications of {} commands, {:.1} µs each, {:.2} million commands/s",
        record.commands.len(),
        each * 1e6,
        record.commands.len() as f64 / each / 1e6
    );
}
