//! The Votes for Women seat page's render: the HTML of a seat's page (`GET /play/{token}`) at
//! several points of a random game, drawn by `web::seat_page_html`, the function the handler
//! draws it with, from the game alone (no HTTP, no database: no clock, messages or orders on
//! the page). Also prints the page's size at those points and the render time's p50/p99 over
//! every position of whole games. `cargo bench --bench vfw_page`.

use criterion::{Criterion, criterion_group, criterion_main};
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{DynMatch, Log, Seat, Seed};
use postplay::games::find_game;
use postplay::store::{GameRow, Loaded, LogEntry};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const KIND: &str = "votes-for-women";

fn names() -> Vec<String> {
    vec!["Ann".into(), "Bo".into()]
}

/// Every position of the random game of `seed`, as the store would load it: the match after
/// each command (the store's, keeping takebacks) and the log lines so far.
fn positions(seed: u64) -> Vec<Loaded> {
    let game = find_game(KIND).unwrap();
    let seed = Seed::from_number(seed);
    let mut live = game.new_match(&serde_json::json!({}), 2, seed).unwrap();
    live.track_takebacks(true);
    let mut rng = bot_rng(&seed);
    let mut log: Vec<LogEntry> = vec![(0, 0, live.opening().into())];
    let mut out = Vec::new();
    let loaded = |live: &dyn DynMatch, log: &[LogEntry]| Loaded {
        row: GameRow {
            id: 7,
            kind: KIND.into(),
            rules_version: game.rules_version() as i32,
            options: serde_json::json!({}),
            seat_count: 2,
            seed,
            commitment: seed.commitment(),
            status: "running".into(),
            head_seq: log.len() as i64 - 1,
            head_hash: "0".repeat(64),
            created_at: chrono::DateTime::UNIX_EPOCH,
            updated_at: chrono::DateTime::UNIX_EPOCH,
            club_id: None,
        },
        game: live.clone_box(),
        log: Arc::new(log.to_vec()),
        epoch: 0,
    };
    out.push(loaded(live.as_ref(), &log));
    while live.outcome().is_none() {
        let seat = live.active()[0];
        let command = random_command(live.as_ref(), seat, &mut rng).unwrap();
        let mut lines = Log::recording();
        live.apply_json(seat, &command, &mut lines).unwrap();
        log.push((log.len() as i64, seat, lines.take().into()));
        out.push(loaded(live.as_ref(), &log));
    }
    out
}

fn page(loaded: &Loaded, seat: Seat) -> String {
    postplay::web::seat_page_html(loaded, seat, &names(), &"t".repeat(40)).unwrap()
}

fn seat_page(c: &mut Criterion) {
    // Every position of a few games, both seats: the render time's distribution and the size.
    let mut times = Vec::new();
    let mut largest = (0, 0, 0);
    for seed in 1..=5 {
        for (at, loaded) in positions(seed).iter().enumerate() {
            for seat in 0..2 {
                let start = Instant::now();
                let html = page(loaded, seat);
                times.push(start.elapsed().as_secs_f64() * 1e3);
                largest = largest.max((html.len(), seed, at));
            }
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    println!(
        "vfw seat page over {} renders (5 games, every position, both seats): p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; largest HTML {} bytes (game {}, command {})",
        times.len(),
        pct(0.5),
        pct(0.99),
        times[times.len() - 1],
        largest.0,
        largest.1,
        largest.2
    );
    // Criterion's estimates at several points of one game, the seat to move.
    let game = positions(91);
    let last = game.len() - 1;
    let mut group = c.benchmark_group("vfw_seat_page");
    for at in [0, last / 4, last / 2, 3 * last / 4, last] {
        let loaded = &game[at];
        let seat = loaded.game.active().first().copied().unwrap_or(0);
        let bytes = page(loaded, seat).len();
        println!("command {at} of {last}, seat {seat}: {bytes} bytes of HTML");
        group.bench_function(format!("command {at} of {last}, {bytes} bytes"), |b| {
            b.iter(|| black_box(page(loaded, seat)))
        });
    }
    group.finish();
}

criterion_group!(benches, seat_page);
criterion_main!(benches);
