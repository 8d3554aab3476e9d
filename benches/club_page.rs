//! Clubs at scale (issue 33): a private club of 1,000 members and 10,000 finished games, with
//! 1,000 rated members in two games, all written in bulk; then, over real HTTP with keep-alive
//! and as a member: the club's page, a game's standings (the first and the last page) and the
//! archive (the first page, a page filtered by a player, the last page).
//!
//! `cargo bench --bench club_page` (uses the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_CLUB_REQUESTS` (default 2000 a page); `POSTPLAY_CLUB_KEEP=1` keeps the
//! database (its name is printed) to read the queries' plans with psql.

#[path = "../tests/common/mod.rs"]
mod common;

use common::{TestDb, spawn_app};
use std::time::{Duration, Instant};

const MEMBERS: i64 = 1_000;
const GAMES: i64 = 10_000;

fn env_number(key: &str, default: i64) -> i64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

async fn run(db: &TestDb, sql: &'static str) {
    sqlx::query(sql).execute(db.store.pool()).await.unwrap();
}

/// The club (id 1): members 1..=1000 (the first its admin), five leagues, 10,000 finished
/// games of two seats (every tenth a league's, every fiftieth cancelled) ending a minute
/// apart, and ratings: every member in Statehood and Electoral Combat (1,000 rows each) with a
/// history row per rated game.
async fn bulk(db: &TestDb) {
    run(
        db,
        "INSERT INTO accounts (email, name) SELECT 'm' || n || '@example.org', 'Member ' || n \
         FROM generate_series(1, 1000) n",
    )
    .await;
    run(
        db,
        "INSERT INTO clubs (name, description, private, created_by, created_at) \
         VALUES ('Big club', 'a thousand members', true, 1, now() - interval '1 year')",
    )
    .await;
    run(
        db,
        "INSERT INTO club_members (club_id, account_id, role, joined_at) \
         SELECT 1, n, CASE WHEN n = 1 THEN 'admin' ELSE 'member' END, now() - interval '1 year' \
         FROM generate_series(1, 1000) n",
    )
    .await;
    run(
        db,
        "INSERT INTO leagues (club_id, name, kind, options, settings, meetings, mode, \
         signup_closes_at, created_by, created_at, status) \
         SELECT 1, 'Season ' || n, 'statehood', '{}'::jsonb, '{}'::jsonb, 'once', 'all_at_once', \
         now() - interval '300 days', 1, now() - interval '300 days', 'finished' \
         FROM generate_series(1, 5) n",
    )
    .await;
    // Kinds in turn: statehood, electoral-combat, nationhood, whitehouse (every fourth).
    run(
        db,
        "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
         organiser_token_hash, head_hash, status, head_seq, result, club_id, league_id, \
         created_at, updated_at) \
         SELECT (ARRAY['statehood', 'electoral-combat', 'nationhood', 'whitehouse'])[1 + n % 4], \
         1, '{}'::jsonb, 2, decode(repeat('00', 32), 'hex'), repeat('0', 64), \
         sha256(n::text::bytea), repeat('0', 64), 'over', 40, \
         CASE WHEN n % 50 = 0 THEN 'Cancelled by the organiser: the hall closed' \
              ELSE '{s' || n % 2 || '} wins by 3 points' END, \
         1, CASE WHEN n % 10 = 0 THEN 1 + n / 10 % 5 END, \
         now() - make_interval(mins => 20000 - n), now() - make_interval(mins => 10000 - n) \
         FROM generate_series(1, 10000) n",
    )
    .await;
    run(
        db,
        "INSERT INTO seats (game_id, seat, name, token_hash, account_id) \
         SELECT g.id, s, 'Member ' || a.account, sha256((g.id * 2 + s)::text::bytea), a.account \
         FROM games g, generate_series(0, 1) s, \
         LATERAL (SELECT 1 + (g.id + s * (1 + g.id / 1000)) % 1000 AS account) a",
    )
    .await;
    run(
        db,
        "INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) \
         SELECT g.id, 40, 0, '{}'::jsonb, g.updated_at, repeat('0', 64), \
         CASE WHEN g.id % 50 = 0 THEN 'organiser' END FROM games g",
    )
    .await;
    run(
        db,
        "INSERT INTO club_ratings (club_id, kind, account_id, mu, sigma, rating, games, wins, \
         losses, draws, moves_on_time, moves, updated_at) \
         SELECT 1, k, n, 20 + (n * 37 % 1000) / 100.0, 2 + (n % 7) / 2.0, \
         round(1000 + 40 * ((20 + (n * 37 % 1000) / 100.0) - 3 * (2 + (n % 7) / 2.0))), \
         5 + n % 20, n % 10, 5 + n % 20 - n % 10, 0, 100 - n % 9, 100, now() \
         FROM generate_series(1, 1000) n, unnest(ARRAY['statehood', 'electoral-combat']) k",
    )
    .await;
    run(
        db,
        "INSERT INTO rating_changes (game_id, account_id, club_id, kind, seat, place, result, \
         mu_before, sigma_before, rating_before, mu_after, sigma_after, rating_after, \
         moves_on_time, moves, rated_at) \
         SELECT s.game_id, s.account_id, 1, g.kind, s.seat, 1 + s.seat, \
         CASE WHEN s.seat = 0 THEN 'win' ELSE 'loss' END, 25, 8, 1000, 25, 8, 1000, 20, 20, \
         g.updated_at FROM seats s JOIN games g ON g.id = s.game_id \
         WHERE g.kind IN ('statehood', 'electoral-combat') AND g.id % 50 <> 0",
    )
    .await;
    sqlx::query("VACUUM ANALYZE")
        .execute(db.store.pool())
        .await
        .unwrap();
}

async fn measure(client: &awc::Client, url: &str, cookie: &str, requests: i64) -> (f64, f64) {
    let mut samples: Vec<Duration> = Vec::with_capacity(requests as usize);
    for _ in 0..requests {
        let began = Instant::now();
        let mut res = client
            .get(url)
            .insert_header(("Cookie", cookie))
            .send()
            .await
            .unwrap();
        let body = res.body().limit(4 << 20).await.unwrap();
        samples.push(began.elapsed());
        assert!(res.status().is_success(), "{url}: {}", res.status());
        assert!(
            body.len() > 1000,
            "{url}: {}",
            String::from_utf8_lossy(&body)
        );
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
    let requests = env_number("POSTPLAY_CLUB_REQUESTS", 2_000);
    let db = TestDb::new().await;
    let began = Instant::now();
    bulk(&db).await;
    println!(
        "bulk: {MEMBERS} members, {GAMES} finished games, ratings in {:.1} s",
        began.elapsed().as_secs_f64()
    );
    let base = spawn_app(&db);
    let session = db.store.start_session(500).await.unwrap();
    let cookie = format!("pp_session={session}");
    let client = awc::Client::builder()
        .timeout(Duration::from_secs(30))
        .finish();
    let standings_last = (MEMBERS - 1) / postplay::store::clubs::ratings::STANDINGS_PAGE;
    let archive_last = (GAMES - 1) / postplay::store::ARCHIVE_PAGE;
    let pages = [
        ("club page, as a member", "/clubs/1".to_string()),
        (
            "standings (Statehood), first page",
            "/clubs/1/standings/statehood".to_string(),
        ),
        (
            "standings (Statehood), last page",
            format!("/clubs/1/standings/statehood?page={standings_last}"),
        ),
        ("archive, first page", "/clubs/1/archive".to_string()),
        (
            "archive, filtered by a player",
            "/clubs/1/archive?player=500".to_string(),
        ),
        (
            "archive, last page",
            format!("/clubs/1/archive?page={archive_last}"),
        ),
    ];
    // Warm the connections and the plan cache (sqlx prepares each statement once a
    // connection; PostgreSQL picks a generic plan after five runs).
    for (_, path) in &pages {
        measure(&client, &format!("{base}{path}"), &cookie, 50).await;
    }
    for (what, path) in &pages {
        let (p50, p99) = measure(&client, &format!("{base}{path}"), &cookie, requests).await;
        println!(
            "{what} ({path}): {MEMBERS} members, {GAMES} finished games, {requests} requests: \
             p50 {p50:.2} ms, p99 {p99:.2} ms"
        );
    }
    if std::env::var("POSTPLAY_CLUB_KEEP").is_ok_and(|v| v == "1") {
        println!("database kept: {}", db.name);
    } else {
        db.drop().await;
    }
}
