//! The clock's scheduler at scale: the cost of a tick that finds nothing due among 10,000
//! running games (an index on the next deadline, not a scan), and how long one and two
//! processes take to apply 1,000 timeouts falling due at once.
//!
//! `cargo bench --bench clock` (uses the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_CLOCK_GAMES` (default 10000), `POSTPLAY_CLOCK_TIMEOUTS` (default 1000).

#[path = "../tests/common/mod.rs"]
mod common;

use chrono::{DateTime, Duration, Utc};
use common::TestDb;
use postplay::clock::Scheduler;
use postplay::domain::{ClockSettings, PlayerName, TimeControl};
use postplay::engine::Seed;
use postplay::store::NewSeat;
use postplay::time::ManualClock;
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn start() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// `count` running games whose seat 0 is awaited, due in `days`, written in bulk.
async fn bulk_games(db: &TestDb, count: i64, days: i64) {
    let pool = db.store.pool();
    sqlx::query(
        "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
         organiser_token_hash, head_hash) \
         SELECT 'nationhood', 1, '{}'::jsonb, 2, decode(repeat('00', 32), 'hex'), repeat('0', 64), \
         sha256(n::text::bytea), repeat('0', 64) FROM generate_series(1, $1) n",
    )
    .bind(count)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO seats (game_id, seat, name, token_hash) \
         SELECT g.id, s, 'P' || s, sha256((g.id * 2 + s)::text::bytea) \
         FROM games g, generate_series(0, 1) s",
    )
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO seat_clocks (game_id, seat, bank_secs, awaited_seq, waiting_since, \
         allowance_secs, stretch_start, due_at, remind_at) \
         SELECT g.id, s, 86400 * $2, CASE WHEN s = 0 THEN 0 END, CASE WHEN s = 0 THEN $1::timestamptz END, \
         CASE WHEN s = 0 THEN 86400 * $2 END, CASE WHEN s = 0 THEN $1::timestamptz END, \
         CASE WHEN s = 0 THEN $1::timestamptz + make_interval(days => $2::int) END, \
         CASE WHEN s = 0 THEN $1::timestamptz + make_interval(days => $2::int) * 0.8 END \
         FROM games g, generate_series(0, 1) s",
    )
    .bind(start())
    .bind(days)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("ANALYZE").execute(pool).await.unwrap();
}

async fn real_games(store: &postplay::store::Store, count: u64) {
    let clock = ClockSettings {
        control: TimeControl::PerMove { days: 1 },
        ..ClockSettings::default()
    };
    for n in 0..count {
        let seats: Vec<NewSeat> = ["Ann", "Bo"]
            .iter()
            .map(|name| NewSeat {
                name: PlayerName::parse(name).unwrap(),
                email: None,
                bot: None,
            })
            .collect();
        store
            .create_game_with(
                "nationhood",
                &json!({}),
                &seats,
                Seed::from_number(n),
                None,
                &json!({ "clock": clock }),
            )
            .await
            .unwrap();
    }
}

async fn timeouts_with(processes: usize, count: u64) -> (f64, usize) {
    let db = TestDb::new().await;
    let clock = ManualClock::at(start());
    let store = Arc::new(postplay::startup::store_on(
        db.store.pool().clone(),
        Arc::new(clock.clone()),
    ));
    real_games(&store, count).await;
    clock.advance(Duration::days(1));
    let schedulers: Vec<Scheduler> = (0..processes)
        .map(|_| Scheduler::new(Arc::new(store.clone_handle())))
        .collect();
    let began = Instant::now();
    let ticks = futures_util::future::join_all(schedulers.iter().map(|s| s.tick())).await;
    let seconds = began.elapsed().as_secs_f64();
    let applied = ticks.into_iter().map(|t| t.unwrap().timeouts).sum();
    db.drop().await;
    (seconds, applied)
}

#[actix_web::main]
async fn main() {
    let games = env_number("POSTPLAY_CLOCK_GAMES", 10_000) as i64;
    let timeouts = env_number("POSTPLAY_CLOCK_TIMEOUTS", 1_000);

    let db = TestDb::new().await;
    bulk_games(&db, games, 3).await;
    let clock = ManualClock::at(start() + Duration::hours(1));
    let store = Arc::new(postplay::startup::store_on(
        db.store.pool().clone(),
        Arc::new(clock),
    ));
    let scheduler = Scheduler::new(store);
    let mut samples = Vec::new();
    for _ in 0..200 {
        let began = Instant::now();
        let tick = scheduler.tick().await.unwrap();
        samples.push(began.elapsed());
        assert!(tick.is_idle());
    }
    samples.sort();
    println!(
        "idle tick over {games} running games: median {:.2} ms, p99 {:.2} ms",
        samples[samples.len() / 2].as_secs_f64() * 1e3,
        samples[samples.len() * 99 / 100].as_secs_f64() * 1e3
    );
    db.drop().await;

    for processes in [1, 2] {
        let (seconds, applied) = timeouts_with(processes, timeouts).await;
        println!(
            "{applied} timeouts due at once, {processes} process(es): {seconds:.2} s ({:.0} timeouts/s)",
            applied as f64 / seconds
        );
    }
}
