//! Mail: the outbox's throughput (messages per second through lettre's SMTP transport to a
//! local SMTP server over TCP, rows claimed with SKIP LOCKED and marked sent one by one), and
//! what a move pays for its outbox rows (the same moves through the store, seats with and
//! without addresses, durable commits).
//!
//! `cargo bench --bench mail` (uses the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_MAIL_MESSAGES` (default 4000), `POSTPLAY_MOVE_SECONDS` (default 10),
//! `POSTPLAY_MOVE_CLIENTS` (default 16).

#[path = "../tests/common/mod.rs"]
mod common;

use common::TestDb;
use common::mailrig::{quick, sender, smtp_to};
use postplay::engine::Seed;
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::notices::mail::sink::SmtpSink;
use postplay::notices::outbox::worker::Worker;
use postplay::notices::{EmailAddress, MailContext};
use postplay::store::{NewSeat, Store};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn seats(game: u64, with_mail: bool) -> Vec<NewSeat> {
    ["Ann", "Bo", "Cy", "Di"]
        .iter()
        .map(|n| NewSeat {
            name: postplay::store::PlayerName::parse(n).unwrap(),
            email: with_mail.then(|| {
                EmailAddress::parse(&format!("{}.{game}@example.org", n.to_lowercase())).unwrap()
            }),
            bot: None,
        })
        .collect()
}

async fn outbox_rows(store: &Store) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbox")
        .fetch_one(store.pool())
        .await
        .unwrap()
}

/// Clients each play their own games through `Store::submit` for `seconds`.
async fn moves(db: &TestDb, with_mail: bool, clients: u64, seconds: u64) -> (usize, Vec<Duration>) {
    let store = Arc::new(db.store.clone_handle());
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for client in 0..clients {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut rng = bot_rng(&Seed::from_number(client + 1));
            let mut game = 0;
            let mut id = None;
            while Instant::now() < deadline {
                let current = match id {
                    Some(id) => id,
                    None => {
                        game += 1;
                        let created = store
                            .create_game(
                                "whitehouse",
                                &json!({}),
                                &seats(client * 10_000 + game, with_mail),
                                Seed::from_number(client * 10_000 + game),
                            )
                            .await
                            .unwrap();
                        id = Some(created.id);
                        created.id
                    }
                };
                let loaded = store.load(current).await.unwrap();
                if loaded.game.outcome().is_some() {
                    id = None;
                    continue;
                }
                let seat = loaded.game.active()[0];
                let choices = loaded.game.choices(seat);
                let index = rng.index(choices.len());
                let command = fill_at_random(&choices[index], &mut rng);
                let started = Instant::now();
                store.submit(current, seat, &command, None).await.unwrap();
                latencies.push(started.elapsed());
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    (all.len(), all)
}

/// Queues `messages` invitations (with their games) on a fresh database, then sends them all
/// with `workers` workers in this process.
async fn throughput(messages: u64, workers: usize) {
    let db = TestDb::new().await;
    let games = messages.div_ceil(4);
    let started = Instant::now();
    for g in 0..games {
        db.store
            .create_game(
                "whitehouse",
                &json!({}),
                &seats(g, true),
                Seed::from_number(g),
            )
            .await
            .unwrap();
    }
    let queued = outbox_rows(&db.store).await;
    println!(
        "queued {queued} invitations with their games in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let sink = SmtpSink::start().await.unwrap();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let worker = Worker::new(
            db.store.pool().clone(),
            smtp_to(sink.port()),
            sender(),
            MailContext {
                base_url: "http://127.0.0.1:8080".into(),
                reply_domain: None,
            },
            quick(),
        );
        tasks.push(tokio::spawn(async move {
            while worker.pass().await.unwrap().handled() > 0 {}
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let sent = sink.received().len();
    assert_eq!(sent as i64, queued, "every message once");
    println!(
        "outbox → SMTP, {workers} worker(s) in one process, batch 16: {sent} messages in {elapsed:.2} s = {:.0} messages/s",
        sent as f64 / elapsed
    );
    db.drop().await;
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let messages = env_number("POSTPLAY_MAIL_MESSAGES", 4000);
        for workers in [1, 2] {
            throughput(messages, workers).await;
        }
        let seconds = env_number("POSTPLAY_MOVE_SECONDS", 10);
        let clients = env_number("POSTPLAY_MOVE_CLIENTS", 16);
        for with_mail in [false, true] {
            let db = TestDb::new().await;
            let (count, sorted) = moves(&db, with_mail, clients, seconds).await;
            let rows = outbox_rows(&db.store).await;
            println!(
                "moves through the store, {clients} clients, seats {}: {:.0} moves/s; p50 {:.2} ms, p99 {:.2} ms; {rows} outbox rows ({:.2} per move, invitations included)",
                if with_mail { "with addresses" } else { "without addresses" },
                count as f64 / seconds as f64,
                percentile(&sorted, 0.5).as_secs_f64() * 1000.0,
                percentile(&sorted, 0.99).as_secs_f64() * 1000.0,
                rows as f64 / count.max(1) as f64,
            );
            db.drop().await;
        }
    });
}
