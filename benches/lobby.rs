//! The lobby at scale: `/lobby` (the first and the last page) and one table's page over real
//! HTTP, with 1,000 open tables among 6,000 (the others started, expired or cancelled) in a
//! database of 10,000 games, all written in bulk.
//!
//! `cargo bench --bench lobby` (uses the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_LOBBY_OPEN` (default 1000), `POSTPLAY_LOBBY_REQUESTS` (default 3000).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{TestDb, spawn_app};
use std::time::{Duration, Instant};

fn env_number(key: &str, default: i64) -> i64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn run(db: &TestDb, sql: &'static str, n: i64) {
    sqlx::query(sql)
        .bind(n)
        .execute(db.store.pool())
        .await
        .unwrap();
}

/// 10,000 games with two seats each, 3,000 accounts, `open` open tables of three places with
/// one or two taken, and 5,000 closed tables.
async fn bulk(db: &TestDb, open: i64) {
    run(
        db,
        "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
         organiser_token_hash, head_hash) \
         SELECT 'statehood', 1, '{\"target\": 56}'::jsonb, 2, decode(repeat('00', 32), 'hex'), \
         repeat('0', 64), sha256(n::text::bytea), repeat('0', 64) FROM generate_series(1, $1) n",
        10_000,
    )
    .await;
    run(
        db,
        "INSERT INTO accounts (email, name) SELECT 'p' || n || '@example.org', 'Player ' || n \
         FROM generate_series(1, $1) n",
        3_000,
    )
    .await;
    run(
        db,
        "INSERT INTO seats (game_id, seat, name, token_hash, account_id) \
         SELECT g.id, s, 'P' || s, sha256((g.id * 2 + s)::text::bytea), 1 + (g.id * 2 + s) % 3000 \
         FROM games g, generate_series(0, 1) s",
        0,
    )
    .await;
    run(
        db,
        "INSERT INTO open_tables (kind, options, settings, seat_count, seating, creator_id, \
         status, created_at, expires_at) \
         SELECT 'statehood', '{\"target\": 56}'::jsonb, '{}'::jsonb, 3, 'random', 1 + n % 3000, \
         CASE WHEN n <= $1 THEN 'open' ELSE (ARRAY['started', 'expired', 'cancelled'])[1 + n % 3] END, \
         now() - make_interval(mins => n), now() + interval '7 days' \
         FROM generate_series(1, 6000) n",
        open,
    )
    .await;
    run(
        db,
        "INSERT INTO table_seats (table_id, position, account_id, joined_at) \
         SELECT t.id, p, 1 + (t.creator_id + p * 7) % 3000, now() FROM open_tables t, \
         generate_series(0, 1) p WHERE p = 0 OR t.id % 2 = 0",
        0,
    )
    .await;
    sqlx::query("ANALYZE")
        .execute(db.store.pool())
        .await
        .unwrap();
}

async fn measure(client: &awc::Client, url: &str, requests: i64) -> (f64, f64) {
    let mut samples: Vec<Duration> = Vec::with_capacity(requests as usize);
    for _ in 0..requests {
        let began = Instant::now();
        let mut res = client.get(url).send().await.unwrap();
        let body = res.body().limit(1 << 20).await.unwrap();
        samples.push(began.elapsed());
        assert!(res.status().is_success(), "{url}: {}", res.status());
        assert!(!body.is_empty());
    }
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(samples[samples.len() / 2]),
        ms(samples[samples.len() * 99 / 100]),
    )
}

#[actix_web::main]
async fn main() {
    let open = env_number("POSTPLAY_LOBBY_OPEN", 1_000);
    let requests = env_number("POSTPLAY_LOBBY_REQUESTS", 3_000);
    let db = TestDb::new().await;
    bulk(&db, open).await;
    let base = spawn_app(&db);
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let last = (open - 1) / postplay::store::LOBBY_PAGE;
    let table: i64 = sqlx::query_scalar("SELECT max(id) FROM open_tables WHERE status = 'open'")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    // Warm the connections and the plan cache.
    measure(&client, &format!("{base}/lobby"), 50).await;
    for (what, path) in [
        ("/lobby, first page".to_string(), "/lobby".to_string()),
        (
            format!("/lobby, last page ({})", last + 1),
            format!("/lobby?page={last}"),
        ),
        (
            "/lobby/{id}, one table".to_string(),
            format!("/lobby/{table}"),
        ),
    ] {
        let (p50, p99) = measure(&client, &format!("{base}{path}"), requests).await;
        println!(
            "{what}: {open} open tables of 6,000, 10,000 games, {requests} requests: p50 {p50:.2} ms, p99 {p99:.2} ms"
        );
    }
    db.drop().await;
}
