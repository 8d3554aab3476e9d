//! The cost of the second machine (issue 34): moves over HTTP, and the same SQL run by
//! pgbench, on one PostgreSQL (the tests' private cluster) and on a pg_auto_failover
//! formation's synchronous pair (the primary acknowledges a commit once the secondary has its
//! WAL: deploy/high-availability.md), alternated in one run on this machine.
//!
//! `cargo bench --bench ha_load` (release). It needs pg_auto_failover, as tests/failover.rs
//! does (`./scripts/test` installs it); without it the bench says so and stops.
//! `POSTPLAY_LOAD_SECONDS` (default 10), `POSTPLAY_LOAD_CLIENTS` (default 32),
//! `POSTPLAY_LOAD_ROUNDS` (default 3: each round runs HTTP then pgbench on one node, then on
//! the pair; medians reported).

#[path = "../tests/common/mod.rs"]
mod common;
// Shared with the failover test and the HTTP load bench; not every item is used here.
#[allow(dead_code)]
#[path = "../tests/failover/formation.rs"]
mod formation;
#[allow(dead_code)]
#[path = "support/move_load.rs"]
mod move_load;

use common::{TestDb, spawn_app};
use formation::Formation;
use move_load::{Cpu, drive, env_number, new_games, pgbench};
use postplay::store::Store;
use std::sync::Arc;
use std::time::Duration;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// One database set-up under test: the server on it, pgbench's address of its primary, and
/// pgbench's own 200 games.
struct Target {
    name: &'static str,
    store: Store,
    base: String,
    pgbench_url: String,
    pgbench_first: i64,
}

impl Target {
    async fn new(name: &'static str, store: Store, base: String, pgbench_url: String) -> Target {
        let theirs = new_games(&store, 200, 900_001).await;
        let pgbench_first = theirs[0].id;
        assert!(
            theirs
                .iter()
                .enumerate()
                .all(|(i, g)| g.id == pgbench_first + i as i64),
            "pgbench's games have consecutive ids"
        );
        Target {
            name,
            store,
            base,
            pgbench_url,
            pgbench_first,
        }
    }
}

/// What one round measured on one target.
struct Measured {
    http: f64,
    pgbench: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let autoctl = std::process::Command::new("pg_autoctl")
        .arg("--version")
        .output();
    if !autoctl.is_ok_and(|out| out.status.success()) {
        println!(
            "skipped: pg_autoctl is not installed (apt-get install pg-auto-failover-cli postgresql-15-auto-failover)"
        );
        return;
    }
    actix_web::rt::System::new().block_on(async {
        let seconds = env_number("POSTPLAY_LOAD_SECONDS", 10);
        let clients = env_number("POSTPLAY_LOAD_CLIENTS", 32) as usize;
        let rounds = env_number("POSTPLAY_LOAD_ROUNDS", 3);

        let db = TestDb::new().await;
        let single = Target::new("one node", db.store.clone_handle(), spawn_app(&db), db.url()).await;

        let formation = Formation::start().await;
        let node1 = formation.keeper("node1").port;
        let node2 = formation.keeper("node2").port;
        let url = format!("postgres://postgres@127.0.0.1:{node1},127.0.0.1:{node2}/postplay");
        let store = postplay::startup::connect_hosts(
        &url,
        Duration::from_secs(30),
        32,
        postplay::store::ACQUIRE_TIMEOUT,
    )
            .await
            .expect("the formation's primary");
        store.migrate().await.expect("migrations run on the pair");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let server = postplay::web::start(Arc::new(store.clone_handle()), base.clone(), listener)
            .expect("the server starts");
        actix_web::rt::spawn(server);
        let primary = format!("postgres://postgres@127.0.0.1:{node1}/postplay");
        let pair = Target::new("synchronous pair", store, base, primary).await;
        println!(
            "one node: the tests' PostgreSQL 15; the pair: pg_auto_failover, node1 :{node1} primary, node2 :{node2} synchronous secondary, monitor; all on this machine"
        );

        let targets = [single, pair];
        let mut measured: Vec<Vec<Measured>> = vec![Vec::new(), Vec::new()];
        for round in 0..rounds {
            for (t, target) in targets.iter().enumerate() {
                let games = new_games(&target.store, 200, 1 + 20_000 * round).await;
                let before = Cpu::now();
                let (latencies, elapsed) = drive(&target.base, games, clients, seconds, None).await;
                let http = latencies.len() as f64 / elapsed.as_secs_f64();
                let (http_pg, http_own) = Cpu::now().per(before, latencies.len() as f64, true);
                let before = Cpu::now();
                let bench = pgbench(
                    &target.pgbench_url,
                    target.pgbench_first,
                    clients as u64,
                    seconds,
                    None,
                )
                .tps;
                let (bench_pg, _) = Cpu::now().per(before, bench * seconds as f64, false);
                println!(
                    "round {round}, {}: HTTP {http:.0} moves/s (p99 {:.1?}), PostgreSQL CPU {http_pg:.2} ms a move, server and clients {http_own:.2} ms; pgbench {bench:.0} tps, PostgreSQL CPU {bench_pg:.2} ms; HTTP {:.0} % of pgbench",
                    target.name,
                    move_load::percentile(&latencies, 0.99),
                    100.0 * http / bench
                );
                measured[t].push(Measured { http, pgbench: bench });
            }
        }
        let [one, two] = [&measured[0], &measured[1]];
        let per = |m: &[Measured], f: fn(&Measured) -> f64| median(m.iter().map(f).collect());
        for (target, m) in targets.iter().zip([one, two]) {
            println!(
                "median, {}: HTTP {:.0} moves/s, pgbench {:.0} tps, HTTP/pgbench {:.0} %",
                target.name,
                per(m, |r| r.http),
                per(m, |r| r.pgbench),
                100.0 * per(m, |r| r.http / r.pgbench),
            );
        }
        let ratios = |f: fn(&Measured) -> f64| {
            median(one.iter().zip(two.iter()).map(|(a, b)| f(b) / f(a)).collect())
        };
        println!(
            "the cost of the second machine (pair / one node, median of the rounds' ratios): HTTP {:.0} %, pgbench {:.0} %",
            100.0 * ratios(|r| r.http),
            100.0 * ratios(|r| r.pgbench),
        );
        drop(formation);
        db.drop().await;
    });
}
