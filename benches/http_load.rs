//! HTTP load: move submission throughput and latency over loopback with durable commits,
//! against the limit of the same SQL run by pgbench; and the play page's render time in a
//! database of 10,000 games and over a million commands.
//!
//! `cargo bench --bench http_load` (uses the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_LOAD_SECONDS` (default 10), `POSTPLAY_LOAD_CLIENTS` (default 32),
//! `POSTPLAY_LOAD_ROUNDS` (default 3: HTTP and pgbench alternate, medians reported),
//! `POSTPLAY_RENDER_GAMES` (default 10000).

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../crates/rules/benches/support/long_game.rs"]
mod long_game;
#[path = "support/move_load.rs"]
mod move_load;

use awc::Client;
use common::{TestDb, spawn_app};
use move_load::{Cpu, drive, env_number, new_games, percentile, pgbench};
use postplay::engine::Seed;
use postplay::engine::audit::{genesis, link};
use postplay::engine::bot::{bot_rng, play_random};
use postplay::games::find_game;
use postplay::store::{NewSeat, chain_time};
use serde_json::json;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Columns of command rows waiting for one bulk insert.
type Batch = (
    Vec<i64>,
    Vec<i64>,
    Vec<i32>,
    Vec<serde_json::Value>,
    Vec<chrono::DateTime<chrono::Utc>>,
    Vec<String>,
);

async fn render_bench(db: &TestDb, base: &str, games: usize) {
    let kind = find_game("whitehouse").unwrap();
    let started = Instant::now();
    let mut tokens = Vec::new();
    let mut total_commands = 0usize;
    let mut batch = Batch::default();
    for n in 0..games {
        let seed = Seed::from_number(1_000_000 + n as u64);
        let playout = play_random(kind, &json!({}), 4, seed).unwrap();
        let seats: Vec<NewSeat> = (0..4)
            .map(|i| NewSeat {
                name: postplay::store::PlayerName::parse(&format!("P{i}")).unwrap(),
                email: None,
                bot: None,
            })
            .collect();
        let created = db
            .store
            .create_game("whitehouse", &json!({}), &seats, seed)
            .await
            .unwrap();
        let mut previous = genesis(&seed.commitment()).unwrap();
        let at = chrono::Utc::now();
        for (i, entry) in playout.record.commands.iter().enumerate() {
            previous = link(
                &previous,
                postplay::engine::audit::Entry {
                    seq: i as u64 + 1,
                    seat: entry.seat,
                    command: &entry.command,
                    at: &chain_time(&at),
                    by: None,
                },
            );
            batch.0.push(created.id);
            batch.1.push(i as i64 + 1);
            batch.2.push(entry.seat as i32);
            batch.3.push(entry.command.clone());
            batch.4.push(at);
            batch.5.push(hex::encode(previous));
        }
        total_commands += playout.record.commands.len();
        sqlx::query(
            "UPDATE games SET head_seq = $2, head_hash = $3, status = 'over' WHERE id = $1",
        )
        .bind(created.id)
        .bind(playout.record.commands.len() as i64)
        .bind(hex::encode(previous))
        .execute(db.store.pool())
        .await
        .unwrap();
        tokens.push(created.seat_tokens[0].clone());
        if batch.0.len() > 20_000 || n + 1 == games {
            sqlx::query(
                "INSERT INTO commands (game_id, seq, seat, command, created_at, hash) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::int[], $4::jsonb[], $5::timestamptz[], $6::text[])",
            )
            .bind(&batch.0)
            .bind(&batch.1)
            .bind(&batch.2)
            .bind(&batch.3)
            .bind(&batch.4)
            .bind(&batch.5)
            .execute(db.store.pool())
            .await
            .unwrap();
            batch = Batch::default();
        }
    }
    sqlx::query("VACUUM ANALYZE")
        .execute(db.store.pool())
        .await
        .unwrap();
    println!(
        "render: {games} games, {total_commands} commands loaded in {:.1?}",
        started.elapsed()
    );
    let client = Client::builder().timeout(Duration::from_secs(30)).finish();
    let mut rng = bot_rng(&Seed::from_number(9));
    let mut latencies = Vec::new();
    for _ in 0..2000 {
        let token = &tokens[rng.index(tokens.len())];
        let sent = Instant::now();
        let mut res = client
            .get(format!("{base}/play/{token}"))
            .send()
            .await
            .unwrap();
        let _ = res.body().limit(1 << 22).await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        latencies.push(sent.elapsed());
    }
    latencies.sort();
    println!(
        "render: GET /play/{{token}} of a random game (mostly first views: replay from the database), 2000 requests: p50 {:.2?}, p99 {:.2?}, max {:.2?}",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().unwrap()
    );
}

/// The replay viewer at random steps of a finished 1,070-command game (each request replays
/// the log up to its step).
async fn replay_viewer_bench(db: &TestDb, base: &str) {
    let record = long_game::long_record();
    let imported = db.store.import(&record).await.unwrap();
    let client = Client::builder().timeout(Duration::from_secs(30)).finish();
    let mut rng = bot_rng(&Seed::from_number(10));
    let mut latencies = Vec::new();
    for _ in 0..500 {
        let at = rng.index(record.commands.len() + 1);
        let open = if rng.below(2) == 0 { "" } else { "&open=1" };
        let sent = Instant::now();
        let mut res = client
            .get(format!("{base}/games/{}/replay?at={at}{open}", imported.id))
            .send()
            .await
            .unwrap();
        let _ = res.body().limit(1 << 22).await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        latencies.push(sent.elapsed());
    }
    latencies.sort();
    println!(
        "replay viewer: step N of a {}-command game, 500 random steps: p50 {:.2?}, p99 {:.2?}, max {:.2?}",
        record.commands.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().unwrap()
    );
}

/// One round's four measurements, side by side.
struct Round {
    http: f64,
    pgbench: f64,
    http_p99: Duration,
    pgbench_p99: Duration,
}

fn main() {
    actix_web::rt::System::new().block_on(async {
        let seconds = env_number("POSTPLAY_LOAD_SECONDS", 10);
        let clients = env_number("POSTPLAY_LOAD_CLIENTS", 32) as usize;
        let rounds = env_number("POSTPLAY_LOAD_ROUNDS", 3);
        let db = TestDb::new().await;
        let base = spawn_app(&db);
        // pgbench's own 200 games, in the same tables as the server's (their commands are not
        // legal moves: nothing reads them as a game).
        let theirs = new_games(&db.store, 200, 900_001).await;
        let pgbench_first = theirs[0].id;
        assert!(theirs.iter().enumerate().all(|(i, g)| g.id == pgbench_first + i as i64));
        let first = new_games(&db.store, 200, 1).await;
        // Rounds alternate HTTP and pgbench, so a slow spell of the machine falls on both.
        let mut results = Vec::new();
        let mut fresh = Some(first);
        for round in 0..rounds {
            let games = match fresh.take() {
                Some(games) => games,
                None => new_games(&db.store, 200, 1 + 20_000 * round).await,
            };
            let before = Cpu::now();
            let (latencies, elapsed) = drive(&base, games, clients, seconds, None).await;
            let http = latencies.len() as f64 / elapsed.as_secs_f64();
            let (http_pg, http_own) = Cpu::now().per(before, latencies.len() as f64, true);
            let before = Cpu::now();
            let pgbench_full = pgbench(&db.url(), pgbench_first, clients as u64, seconds, None).tps;
            let (bench_pg, bench_own) = Cpu::now().per(before, pgbench_full * seconds as f64, false);
            println!(
                "round {round}: CPU per move: HTTP PostgreSQL {http_pg:.2} ms, server and clients {http_own:.2} ms; pgbench PostgreSQL {bench_pg:.2} ms, pgbench {bench_own:.2} ms"
            );
            println!(
                "round {round}: moves over HTTP, {clients} clients, 200 games: {http:.0} moves/s (p50 {:.2?}, p99 {:.2?}); pgbench, the same SQL per move: {pgbench_full:.0} tps; HTTP {:.0} % of it",
                percentile(&latencies, 0.5),
                percentile(&latencies, 0.99),
                100.0 * http / pgbench_full
            );
            let half = http / 2.0;
            let pace = Duration::from_secs_f64(clients as f64 / half);
            let games = new_games(&db.store, 200, 10_001 + 20_000 * round).await;
            let (paced, elapsed) = drive(&base, games, clients, seconds, Some(pace)).await;
            let paced_pgbench = pgbench(&db.url(), pgbench_first, clients as u64, seconds, Some(half));
            let (http_p99, pgbench_p99) = (percentile(&paced, 0.99), paced_pgbench.p99.unwrap());
            println!(
                "round {round}: at half that rate ({half:.0}/s offered, Poisson, latency from the scheduled start): HTTP {:.0} moves/s, p50 {:.2?}, p99 {http_p99:.2?}; pgbench {:.0} tps, p99 {pgbench_p99:.2?}; HTTP's p99 {:.2}x",
                paced.len() as f64 / elapsed.as_secs_f64(),
                percentile(&paced, 0.5),
                paced_pgbench.tps,
                http_p99.as_secs_f64() / pgbench_p99.as_secs_f64().max(1e-9)
            );
            results.push(Round { http, pgbench: pgbench_full, http_p99, pgbench_p99 });
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "median of {rounds} rounds: HTTP {:.0} moves/s, pgbench {:.0} tps, HTTP/pgbench {:.0} %; at half rate HTTP p99 {:.1} ms, pgbench p99 {:.1} ms, ratio {:.2}x",
            median(results.iter().map(|r| r.http).collect()),
            median(results.iter().map(|r| r.pgbench).collect()),
            100.0 * median(results.iter().map(|r| r.http / r.pgbench).collect()),
            median(results.iter().map(|r| r.http_p99.as_secs_f64() * 1e3).collect()),
            median(results.iter().map(|r| r.pgbench_p99.as_secs_f64() * 1e3).collect()),
            median(results.iter().map(|r| r.http_p99.as_secs_f64() / r.pgbench_p99.as_secs_f64().max(1e-9)).collect()),
        );
        replay_viewer_bench(&db, &base).await;
        let render_games = env_number("POSTPLAY_RENDER_GAMES", 10_000) as usize;
        if render_games > 0 {
            render_bench(&db, &base, render_games).await;
        }
        db.drop().await;
    });
}
