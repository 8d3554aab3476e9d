//! The players' pages under a realistic database: `/me` and `/api/me/games` for an account
//! with 200 games (100 running, 100 finished) among 10,000 games, over real HTTP.
//!
//! `cargo bench --bench players` (the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_PLAYERS_GAMES` (games in all, default 10000), `POSTPLAY_PLAYERS_REQUESTS`
//! (default 2000).

#[path = "../tests/common/mod.rs"]
mod common;

use common::visitor::Visitor;
use common::{TestDb, spawn_app};
use futures_util::future::join_all;
use postplay::engine::Seed;
use postplay::engine::bot::{bot_rng, random_command};
use postplay::store::{CancelReason, EmailAddress, NewSeat, PlayerName};
use serde_json::json;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_number(key: &str, default: usize) -> usize {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A Whitehouse game; Ann (with her address) in seat 0 when `ann`.
async fn new_game(db: &TestDb, n: usize, ann: bool) -> i64 {
    let seats: Vec<NewSeat> = (0..4)
        .map(|i| NewSeat {
            name: PlayerName::parse(if ann && i == 0 { "Ann" } else { "Player" }).unwrap(),
            email: (ann && i == 0).then(|| EmailAddress::parse("ann@example.org").unwrap()),
            bot: None,
        })
        .collect();
    db.store
        .create_game(
            "whitehouse",
            &json!({}),
            &seats,
            Seed::from_number(n as u64),
        )
        .await
        .expect("the game is made")
        .id
}

/// Plays `moves` random legal moves through the store.
async fn play(db: &TestDb, id: i64, moves: usize, seed: u64) {
    let mut rng = bot_rng(&Seed::from_number(seed));
    for _ in 0..moves {
        let loaded = db.store.load(id).await.unwrap();
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

async fn measure(visitor: &Visitor, path: &str, requests: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(requests);
    for _ in 0..requests {
        let start = Instant::now();
        let answer = visitor.get(path).await;
        times.push(start.elapsed());
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
    }
    times.sort();
    times
}

fn main() {
    let total = env_number("POSTPLAY_PLAYERS_GAMES", 10_000);
    let requests = env_number("POSTPLAY_PLAYERS_REQUESTS", 2_000);
    actix_web::rt::System::new().block_on(async move {
        let db = TestDb::new().await;
        let base = spawn_app(&db);
        let started = Instant::now();
        let anns: Vec<i64> = join_all((0..200).map(|n| new_game(&db, n, true))).await;
        for chunk in (200..total).collect::<Vec<_>>().chunks(64) {
            join_all(chunk.iter().map(|&n| new_game(&db, n, false))).await;
        }
        let reason = CancelReason::parse("the club closed the season").unwrap();
        for (i, &id) in anns.iter().enumerate() {
            if i < 100 {
                play(&db, id, i % 13, i as u64).await;
            } else {
                db.store.cancel(id, &reason).await.unwrap();
            }
        }
        eprintln!(
            "{total} games made, Ann's 200 set up, in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        let ann = db
            .store
            .account_for_email(
                &EmailAddress::parse("ann@example.org").unwrap(),
                &PlayerName::parse("Ann").unwrap(),
            )
            .await
            .unwrap();
        let visitor = Visitor::new(&base);
        visitor.set_cookie(
            postplay::web::accounts::session::COOKIE,
            &db.store.start_session(ann.id).await.unwrap(),
        );
        let page = visitor.get("/me").await;
        let listed = page.body.matches("/me/games/").count();
        assert!(listed >= 200, "all 200 games are listed ({listed} open buttons)");
        for path in ["/me", "/api/me/games"] {
            measure(&visitor, path, requests / 10).await;
            let times = measure(&visitor, path, requests).await;
            println!(
                "GET {path}: account with 200 games (100 running) among {total}, {requests} requests: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                percentile(&times, 0.5).as_secs_f64() * 1e3,
                percentile(&times, 0.99).as_secs_f64() * 1e3,
                times.last().unwrap().as_secs_f64() * 1e3,
            );
        }
        if std::env::var_os("POSTPLAY_PLAYERS_KEEP").is_some() {
            println!("kept: {}", db.url());
        } else {
            db.drop().await;
        }
    });
}
