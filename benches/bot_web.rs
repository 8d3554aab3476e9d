//! The web while practice bots think (issue 35): the real `postplay serve` (its bots' worker at
//! the default of one search at a time), games of Whitehouse with a player and three hard
//! bots, and public game pages read at a steady rate. Phases alternate: "quiet" (nobody moves,
//! so no bot thinks) and "thinking" (the players move at once whenever awaited, so the worker
//! searches without pause); each phase's page latencies are kept apart. Reports p50 and p99 of
//! each kind of phase, their ratio, and the bot moves made.
//!
//! `cargo bench --bench bot_web`. `POSTPLAY_BOTWEB_PHASE_SECS` (20), `POSTPLAY_BOTWEB_ROUNDS`
//! (3 of each phase), `POSTPLAY_BOTWEB_PAGES` (page views a second, 50),
//! `POSTPLAY_BOTWEB_GAMES` (8).

#[path = "../tests/common/mod.rs"]
mod common;
// Its memory readings are not used here.
#[allow(dead_code)]
#[path = "support/day_server.rs"]
mod day_server;

use common::TestDb;
use day_server::Server;
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{BotLevel, Seed};
use postplay::notices::mail::sink::SmtpSink;
use postplay::store::{NewSeat, PlayerName};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `p` quantile of sorted latencies (nearest rank).
fn quantile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn setting(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Reads `/games/{id}` for a random game at `rate` a second until `end`; each latency is
/// measured from the moment the request was due, so a stalled server shows as latency.
async fn pages(
    base: &str,
    games: &[i64],
    rate: f64,
    end: Instant,
    into: Rc<RefCell<Vec<Duration>>>,
    failed: Rc<Cell<u32>>,
) {
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let mut rng = bot_rng(&Seed::from_number(35));
    let start = Instant::now();
    for k in 0u64.. {
        let at = start + Duration::from_secs_f64(k as f64 / rate);
        if at >= end {
            break;
        }
        actix_web::rt::time::sleep_until(at.into()).await;
        let url = format!("{base}/games/{}", games[rng.index(games.len())]);
        let (client, into, failed) = (client.clone(), into.clone(), failed.clone());
        actix_web::rt::spawn(async move {
            match client.get(url).send().await {
                Ok(mut res) if res.status().is_success() => {
                    let _ = res.body().limit(8 << 20).await;
                    into.borrow_mut().push(at.elapsed());
                }
                _ => failed.set(failed.get() + 1),
            }
        });
    }
}

/// Moves every awaited player at once, through the store, until `end`: the bots then think
/// without pause. Games that end are left ended.
async fn players_move(db: &TestDb, games: &[i64], end: Instant) {
    let mut rng = bot_rng(&Seed::from_number(36));
    while Instant::now() < end {
        let mut moved = false;
        for &id in games {
            let loaded = db.store.load(id).await.unwrap();
            if loaded.game.outcome().is_some() || !loaded.game.active().contains(&0) {
                continue;
            }
            let command = random_command(loaded.game.as_ref(), 0, &mut rng).unwrap();
            // A conflict is a bot's move landing first: the next look sees it.
            let _ = db
                .store
                .submit(id, 0, &command, Some(loaded.row.head_seq))
                .await;
            moved = true;
        }
        if !moved {
            actix_web::rt::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn bot_moves(db: &TestDb) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM commands WHERE made_by = 'bot'")
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

fn main() {
    actix_web::rt::System::new().block_on(run());
}

async fn run() {
    let phase = Duration::from_secs(setting("POSTPLAY_BOTWEB_PHASE_SECS", 20));
    let rounds = setting("POSTPLAY_BOTWEB_ROUNDS", 3);
    let rate = setting("POSTPLAY_BOTWEB_PAGES", 50) as f64;
    let db = TestDb::new().await;
    let mut games = Vec::new();
    for n in 0..setting("POSTPLAY_BOTWEB_GAMES", 8) {
        let seats: Vec<NewSeat> = (0..4)
            .map(|seat| NewSeat {
                name: PlayerName::parse(if seat == 0 { "Ann" } else { "Bot" }).unwrap(),
                email: None,
                bot: (seat > 0).then_some(BotLevel::Hard),
            })
            .collect();
        let options = serde_json::json!({"target": 13});
        let created = db
            .store
            .create_game("whitehouse", &options, &seats, Seed::from_number(n))
            .await
            .unwrap();
        games.push(created.id);
    }
    let sink = SmtpSink::start().await.unwrap();
    let server = Server::start(&db, sink.port(), None).await;
    let quiet = Rc::new(RefCell::new(Vec::new()));
    let thinking = Rc::new(RefCell::new(Vec::new()));
    let failed = Rc::new(Cell::new(0u32));
    let mut bot_moves_thinking = 0;
    // Let the bots play the openings they are awaited in first, so "quiet" is quiet.
    common::wait::until("the bots to settle", Duration::from_secs(600), async || {
        let before = bot_moves(&db).await;
        actix_web::rt::time::sleep(Duration::from_secs(3)).await;
        let after = bot_moves(&db).await;
        if after == before {
            Ok(())
        } else {
            Err(format!("{after} bot moves"))
        }
    })
    .await;
    for _ in 0..rounds {
        let end = Instant::now() + phase;
        pages(
            &server.base,
            &games,
            rate,
            end,
            quiet.clone(),
            failed.clone(),
        )
        .await;
        let before = bot_moves(&db).await;
        let end = Instant::now() + phase;
        tokio::join!(
            pages(
                &server.base,
                &games,
                rate,
                end,
                thinking.clone(),
                failed.clone()
            ),
            players_move(&db, &games, end)
        );
        bot_moves_thinking += bot_moves(&db).await - before;
        // The bots finish the decisions they began before the next quiet phase.
        actix_web::rt::time::sleep(Duration::from_secs(5)).await;
    }
    let report = |name: &str, latencies: &Rc<RefCell<Vec<Duration>>>| {
        let mut all = latencies.borrow().clone();
        all.sort();
        let (p50, p99) = (quantile(&all, 0.5), quantile(&all, 0.99));
        println!(
            "{name}: {} pages, p50 {:.1} ms, p99 {:.1} ms",
            all.len(),
            ms(p50),
            ms(p99)
        );
        (p50, p99)
    };
    let (q50, q99) = report("quiet", &quiet);
    let (t50, t99) = report("bots thinking", &thinking);
    println!(
        "bots thinking / quiet: p50 {:.2}x, p99 {:.2}x; {bot_moves_thinking} bot moves while thinking ({:.1} a second)",
        ms(t50) / ms(q50),
        ms(t99) / ms(q99),
        bot_moves_thinking as f64 / (phase.as_secs_f64() * rounds as f64)
    );
    println!("pages that failed or got no answer: {}", failed.get());
    server.stop().await;
    db.drop().await;
}
