//! Shared test harness: one private PostgreSQL per test run (or the server in DATABASE_URL),
//! a fresh database per test, and the real web app on a random port.
#![allow(dead_code)]

pub mod cubes;
pub mod hidden;
pub mod mailrig;
pub mod mime;
pub mod ports;
pub mod replyrig;
pub mod scratch;
pub mod trips;
pub mod unwind;
pub mod visitor;
pub mod wait;

use postplay::pg::PrivateCluster;
use postplay::store::Store;
use sha2::Digest;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{ConnectOptions, Executor};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::OnceLock;

/// Where the test cluster lives: in the system temp dir, readable by the postgres user.
fn cluster_dir() -> PathBuf {
    std::env::temp_dir().join("postplay-test-pg")
}

/// Connection options for the server the tests use, and a DATABASE_URL prefix.
fn server() -> &'static (PgConnectOptions, Option<PrivateCluster>) {
    static SERVER: OnceLock<(PgConnectOptions, Option<PrivateCluster>)> = OnceLock::new();
    SERVER.get_or_init(|| {
        if let Ok(url) = std::env::var("DATABASE_URL") {
            return (
                PgConnectOptions::from_str(&url).expect("DATABASE_URL parses"),
                None,
            );
        }
        // All test processes share one cluster; the lock keeps two from starting it at once.
        let lock =
            std::fs::File::create(std::env::temp_dir().join("postplay-test-pg.lock")).unwrap();
        lock.lock().unwrap();
        let cluster = PrivateCluster::ensure(&cluster_dir()).expect("private PostgreSQL starts");
        lock.unlock().unwrap();
        unsynced(&cluster);
        (cluster.connect_options("postgres"), Some(cluster))
    })
}

/// The tests' own cluster writes without waiting for the disk: a test never outlives the machine,
/// and a server killed in a test still recovers from what the operating system holds. (A
/// database from DATABASE_URL is someone's server and keeps its settings.)
fn unsynced(cluster: &PrivateCluster) {
    let options = cluster.connect_options("postgres");
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let mut conn = options.connect().await.expect("connect to the test server");
                for statement in [
                    "ALTER SYSTEM SET fsync = off",
                    "ALTER SYSTEM SET full_page_writes = off",
                    "SELECT pg_reload_conf()",
                ] {
                    conn.execute(statement).await.unwrap();
                }
            })
    })
    .join()
    .unwrap();
}

/// The name of a database migrated to this build's migrations, made once by whichever test
/// process comes first and copied for each test: migrating every test's database would cost
/// each test seconds. Named by the migrations' checksums, so a build with other migrations
/// (another branch on the same machine) gets its own.
async fn migrated_template() -> &'static str {
    static TEMPLATE: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    TEMPLATE
        .get_or_init(async || {
            let mut digest = sha2::Sha256::new();
            for migration in postplay::store::MIGRATOR.iter() {
                digest.update(migration.version.to_be_bytes());
                digest.update(&*migration.checksum);
            }
            let name = format!("template_{}", &hex::encode(digest.finalize())[..16]);
            let (admin, _) = server();
            let mut conn = admin
                .clone()
                .connect()
                .await
                .expect("connect to the test server");
            // One process migrates; the others wait for it on this lock.
            conn.execute("SELECT pg_advisory_lock(7356001)")
                .await
                .unwrap();
            let exists: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM pg_database WHERE datname = $1")
                    .bind(&name)
                    .fetch_optional(&mut conn)
                    .await
                    .unwrap();
            if exists.is_none() {
                let building = format!("{name}_building");
                conn.execute(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {building} WITH (FORCE)"
                )))
                .await
                .unwrap();
                conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {building}")))
                    .await
                    .unwrap();
                let pool = PgPoolOptions::new()
                    .max_connections(2)
                    .connect_with(admin.clone().database(&building))
                    .await
                    .unwrap();
                postplay::store::MIGRATOR
                    .run(&pool)
                    .await
                    .expect("migrations run");
                pool.close().await;
                conn.execute(sqlx::AssertSqlSafe(format!(
                    "ALTER DATABASE {building} RENAME TO {name}"
                )))
                .await
                .unwrap();
            }
            conn.execute("SELECT pg_advisory_unlock(7356001)")
                .await
                .unwrap();
            name
        })
        .await
}

/// A database of its own for one test, migrated; dropped by [`TestDb::drop`].
pub struct TestDb {
    /// The store on it.
    pub store: Store,
    /// Its name.
    pub name: String,
    /// Connection options for it.
    pub options: PgConnectOptions,
}

impl TestDb {
    /// Creates a fresh database, migrated (a copy of [`migrated_template`]).
    pub async fn new() -> TestDb {
        let (admin, _) = server();
        let mut random = [0u8; 8];
        getrandom::fill(&mut random).unwrap();
        let name = format!("test_{}", hex::encode(random));
        let mut conn = admin
            .clone()
            .connect()
            .await
            .expect("connect to the test server");
        let template = migrated_template().await;
        // The names are ours: "test_" or "template_" and hex digits.
        conn.execute(sqlx::AssertSqlSafe(format!(
            "CREATE DATABASE {name} TEMPLATE {template}"
        )))
        .await
        .unwrap();
        let options = admin.clone().database(&name);
        let pool = PgPoolOptions::new()
            .max_connections(40)
            .connect_with(options.clone())
            .await
            .unwrap();
        let store =
            postplay::startup::store_on(pool, std::sync::Arc::new(postplay::time::SystemClock));
        store.migrate().await.expect("migrations run");
        TestDb {
            store,
            name,
            options,
        }
    }

    /// A DATABASE_URL for this database (for child processes).
    pub fn url(&self) -> String {
        match &server().1 {
            Some(cluster) => cluster.url(&self.name),
            None => {
                let mut url = url::Url::parse(&std::env::var("DATABASE_URL").unwrap()).unwrap();
                url.set_path(&self.name);
                url.to_string()
            }
        }
    }

    /// Drops the database.
    pub async fn drop(self) {
        self.store.pool().close().await;
        let (admin, _) = server();
        let mut conn = admin.clone().connect().await.unwrap();
        conn.execute(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .await
        .unwrap();
    }
}

impl Drop for TestDb {
    /// Dropped while a panic leaves the test: its runtime's tasks will be dropped without a
    /// runtime next ([`unwind`]).
    fn drop(&mut self) {
        unwind::spare_runtime_while_unwinding();
    }
}

/// The real web app on a random loopback port, in this test's runtime; returns its base URL.
pub fn spawn_app(db: &TestDb) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let store = std::sync::Arc::new(db.store.clone_handle());
    let server = postplay::web::start(store, base.clone(), listener).unwrap();
    actix_web::rt::spawn(server);
    base
}

/// A game created straight in the store: (game id, seat tokens).
pub async fn create_game(db: &TestDb, kind: &str, names: &[&str], seed: u64) -> (i64, Vec<String>) {
    create_game_for(db, kind, names, false, seed).await
}

/// A game created straight in the store, each player with the address `name@example.org`
/// (lower case) when `mailed`: (game id, seat tokens).
pub async fn create_game_for(
    db: &TestDb,
    kind: &str,
    names: &[&str],
    mailed: bool,
    seed: u64,
) -> (i64, Vec<String>) {
    create_game_with(db, kind, &serde_json::json!({}), names, mailed, seed).await
}

/// A game with `options` created straight in the store, each player with the address
/// `name@example.org` (lower case) when `mailed`: (game id, seat tokens).
pub async fn create_game_with(
    db: &TestDb,
    kind: &str,
    options: &serde_json::Value,
    names: &[&str],
    mailed: bool,
    seed: u64,
) -> (i64, Vec<String>) {
    let seats: Vec<postplay::store::NewSeat> = names
        .iter()
        .map(|n| postplay::store::NewSeat {
            name: postplay::store::PlayerName::parse(n).unwrap(),
            email: mailed.then(|| {
                postplay::store::EmailAddress::parse(&format!("{}@example.org", n.to_lowercase()))
                    .unwrap()
            }),
            bot: None,
        })
        .collect();
    let created = db
        .store
        .create_game(
            kind,
            options,
            &seats,
            postplay::engine::Seed::from_number(seed),
        )
        .await
        .unwrap();
    (created.id, created.seat_tokens)
}

/// Sets the seed game `id`'s bots draw their decisions from (drawn fresh for each game), so
/// that a test's game against a bot is the same on every run. Before the bots' worker starts.
pub async fn set_bot_seed(store: &postplay::store::Store, id: i64, seed: postplay::engine::Seed) {
    sqlx::query("UPDATE seats SET bot_seed = $2 WHERE game_id = $1 AND bot IS NOT NULL")
        .bind(id)
        .bind(seed.0.to_vec())
        .execute(store.pool())
        .await
        .unwrap();
}

/// Plays random moves through the store until `stop` holds or the game ends.
pub async fn play_until(
    db: &TestDb,
    id: i64,
    seed: u64,
    mut stop: impl FnMut(&postplay::store::Loaded) -> bool,
) {
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    loop {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() || stop(&loaded) {
            return;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command =
            postplay::engine::bot::fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

/// An Electoral College Combat game between Ann and Bo played at random through the store
/// until both must choose their sealed sign at once (Russian Collusion): its id and seat
/// tokens, from the first seed whose game gets there.
pub async fn game_at_sealed_signs(db: &TestDb) -> (i64, Vec<String>) {
    for seed in 1..40 {
        let (id, tokens) = create_game(db, "electoral-combat", &["Ann", "Bo"], seed).await;
        play_until(db, id, seed, |loaded| loaded.game.active().len() == 2).await;
        if db.store.load(id).await.unwrap().game.active().len() == 2 {
            return (id, tokens);
        }
    }
    panic!("no seed reaches Russian Collusion");
}

/// A Statehood game between Ann, Bo, Cy and Di played at random through the store until the
/// three players other than the declarer must answer Puerto Rico at once, sealed: its id and
/// seat tokens, from the first seed whose game gets there.
pub async fn game_at_puerto_rico_answers(db: &TestDb) -> (i64, Vec<String>) {
    for seed in 1..40 {
        let (id, tokens) = create_game(db, "statehood", &["Ann", "Bo", "Cy", "Di"], seed).await;
        play_until(db, id, seed, |loaded| loaded.game.active().len() == 3).await;
        if db.store.load(id).await.unwrap().game.active().len() == 3 {
            return (id, tokens);
        }
    }
    panic!("no seed reaches Puerto Rico's answers");
}

/// The app's route table as source: every capability's `routes` (`src/web/*/mod.rs`), checked
/// against the capabilities `src/web/mod.rs` assembles, so a new one cannot be left out of the
/// tests that read every route.
pub fn route_table_source() -> String {
    const TABLES: [(&str, &str); 8] = [
        ("http", include_str!("../../src/web/http/mod.rs")),
        ("public", include_str!("../../src/web/public/mod.rs")),
        ("desk", include_str!("../../src/web/desk/mod.rs")),
        ("lobby", include_str!("../../src/web/lobby/mod.rs")),
        ("clubs", include_str!("../../src/web/clubs/mod.rs")),
        ("accounts", include_str!("../../src/web/accounts/mod.rs")),
        ("seat", include_str!("../../src/web/seat/mod.rs")),
        ("api", include_str!("../../src/web/api/mod.rs")),
    ];
    let assembled = include_str!("../../src/web/mod.rs");
    let configured: Vec<&str> = assembled
        .split(".configure(")
        .skip(1)
        .filter_map(|r| r.split("::routes").next())
        .collect();
    let tables: Vec<&str> = TABLES.iter().map(|t| t.0).collect();
    assert_eq!(
        configured, tables,
        "src/web/mod.rs assembles these capabilities' routes"
    );
    TABLES.iter().map(|t| t.1).collect()
}
