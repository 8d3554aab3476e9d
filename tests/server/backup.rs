//! Backups a club can restore (issue 34, deploy/backups.md): the real `postplay backup` of a
//! database with finished and running games of every kind, restored by the real `postplay
//! restore` into a second PostgreSQL cluster started here, where every record verifies and every
//! table's rows equal the original's; a tampered game is named; bad input is refused and
//! changes nothing; no password reaches the output.

use crate::common;

use common::scratch::Scratch;
use common::{TestDb, create_game_for, play_until};
use postplay::pg::PrivateCluster;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::str::FromStr;

/// A password put into the URLs the binaries get: it must appear in none of their output.
const PASSWORD: &str = "Sekr1t-pw-7c1e";

/// Runs `postplay` with `env` (and no DATABASE_URL unless given there).
fn postplay(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_postplay"));
    command
        .args(args)
        .env_remove("DATABASE_URL")
        .env_remove("POSTPLAY_DATA_DIR")
        .env("RUST_LOG", "info");
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().expect("postplay runs");
    let said = said(&out);
    assert!(
        !said.contains(PASSWORD),
        "postplay {args:?} printed the password: {said}"
    );
    out
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `url` with [`PASSWORD`] in it, unless it carries a password of its own already.
fn with_password(url: &str) -> String {
    let mut parsed = url::Url::parse(url).unwrap();
    if parsed.password().is_none() {
        parsed.set_password(Some(PASSWORD)).unwrap();
    }
    parsed.to_string()
}

/// `url` naming database `name` instead.
fn database_in(url: &str, name: &str) -> String {
    let mut parsed = url::Url::parse(url).unwrap();
    parsed.set_path(name);
    parsed.to_string()
}

/// The second cluster, stopped when the test ends however it ends.
struct FreshCluster(PrivateCluster);

impl Drop for FreshCluster {
    fn drop(&mut self) {
        let _ = self.0.stop();
    }
}

/// Every table of the public schema: its row count and a digest of its rows in order; and
/// every sequence's last value.
async fn contents(pool: &PgPool) -> BTreeMap<String, (i64, String)> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut found = BTreeMap::new();
    for table in tables {
        let (rows, digest): (i64, String) = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT count(*), coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') \
             FROM public.\"{table}\" t"
        )))
        .fetch_one(pool)
        .await
        .unwrap();
        found.insert(table, (rows, digest));
    }
    let sequences: Vec<(String, Option<i64>)> = sqlx::query_as(
        "SELECT sequencename::text, last_value FROM pg_sequences WHERE schemaname = 'public'",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for (name, last) in sequences {
        found.insert(
            format!("sequence {name}"),
            (last.unwrap_or(0), String::new()),
        );
    }
    found
}

/// Names of the relations a database holds outside PostgreSQL's own schemas.
async fn relations(pool: &PgPool) -> Vec<String> {
    postplay::store::game::census::relations(&mut pool.acquire().await.unwrap())
        .await
        .unwrap()
}

async fn pool(options: PgConnectOptions) -> PgPool {
    PgPoolOptions::new()
        .max_connections(2)
        .connect_with(options)
        .await
        .unwrap()
}

/// The number before `word` in `text` (`"7 games"` → 7).
fn count_before(text: &str, word: &str) -> i64 {
    let at = text
        .find(&format!(" {word}"))
        .unwrap_or_else(|| panic!("no {word:?} in {text:?}"));
    text[..at]
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before {word:?} in {text:?}"))
}

/// A club's database: five kinds, finished and running, mailed players (the outbox holds
/// their mail), one game not yet moved. Returns the finished game's id.
async fn club_games(db: &TestDb) -> i64 {
    let four = ["Ann", "Bo", "Cy", "Di"];
    let (finished, _) = create_game_for(db, "whitehouse", &four, true, 1).await;
    play_until(db, finished, 1, |_| false).await;
    let (id, _) = create_game_for(db, "electoral-combat", &four[..2], true, 2).await;
    play_until(db, id, 2, |_| false).await;
    let (id, _) = create_game_for(db, "nationhood", &four[..2], true, 3).await;
    play_until(db, id, 3, |_| false).await;
    let (id, _) = create_game_for(db, "whitehouse", &four, true, 4).await;
    play_until(db, id, 4, |l| l.row.head_seq >= 12).await;
    let (id, _) = create_game_for(db, "statehood", &four[..3], true, 5).await;
    play_until(db, id, 5, |l| l.row.head_seq >= 25).await;
    let (id, _) = create_game_for(db, "votes-for-women", &four[..2], true, 6).await;
    play_until(db, id, 6, |l| l.row.head_seq >= 20).await;
    create_game_for(db, "nationhood", &four[2..], false, 7).await;
    finished
}

#[actix_web::test]
async fn a_backup_restores_into_a_fresh_cluster_where_every_record_verifies() {
    let source = TestDb::new().await;
    let finished = club_games(&source).await;
    let census = source.store.census().await.unwrap();
    assert!(
        census.running >= 3 && census.over >= 3 && census.outbox_waiting > 0,
        "the data is not what the test means to back up: {census}"
    );
    let original = contents(source.store.pool()).await;

    let dir = Scratch::new("backup");
    let file = dir.join("club.dump");
    let file_str = file.to_str().unwrap();
    let source_url = with_password(&source.url());
    let out = postplay(&["backup", file_str], &[("DATABASE_URL", &source_url)]);
    assert!(out.status.success(), "backup failed: {}", said(&out));
    let backed_up = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        count_before(&backed_up, "games"),
        census.games(),
        "{backed_up}"
    );
    assert_eq!(
        count_before(&backed_up, "commands"),
        census.commands,
        "{backed_up}"
    );
    eprintln!("{backed_up}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600,
        "a backup holds addresses and seeds: its owner's alone"
    );

    // A second PostgreSQL, its own data directory, nothing in it: as on a new machine.
    let data_dir = dir.join("fresh-cluster");
    let fresh = FreshCluster(PrivateCluster::ensure(&data_dir).expect("a second cluster starts"));
    let into_private = [("POSTPLAY_DATA_DIR", data_dir.to_str().unwrap())];
    let out = postplay(&["restore", file_str], &into_private);
    assert!(out.status.success(), "restore failed: {}", said(&out));
    let restored_said = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("{restored_said}");
    let verified = restored_said
        .lines()
        .find(|l| l.starts_with("verified "))
        .unwrap_or_else(|| panic!("no verification reported: {restored_said}"));
    assert_eq!(
        count_before(verified, "games"),
        census.games(),
        "{verified}"
    );
    assert_eq!(
        count_before(verified, "running"),
        census.running,
        "{verified}"
    );
    assert_eq!(count_before(verified, "over"), census.over, "{verified}");
    assert_eq!(count_before(verified, "log"), census.commands, "{verified}");
    assert!(!verified.contains("FAILED"), "{verified}");

    let restored = pool(fresh.0.connect_options("postplay")).await;
    let copy = contents(&restored).await;
    assert_eq!(
        copy.keys().collect::<Vec<_>>(),
        original.keys().collect::<Vec<_>>()
    );
    for (table, rows) in &original {
        assert_eq!(&copy[table], rows, "{table} differs after the restore");
    }
    for table in ["games", "commands", "seats", "outbox"] {
        assert!(original[table].0 > 0, "{table} is empty in the original");
    }

    // Restoring over it is refused, and leaves it as it was.
    let out = postplay(&["restore", file_str], &into_private);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("is not empty"), "{}", said(&out));
    assert_eq!(contents(&restored).await, copy);

    // A game whose log was altered behind the server's back: the restore goes through and
    // names it, exit 1.
    let mut tx = source.store.pool().begin().await.unwrap();
    sqlx::query("ALTER TABLE commands DISABLE TRIGGER commands_append_only")
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query("UPDATE commands SET hash = repeat('0', 64) WHERE game_id = $1 AND seq = 2")
        .bind(finished)
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query("ALTER TABLE commands ENABLE TRIGGER commands_append_only")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let tampered = dir.join("tampered.dump");
    let out = postplay(
        &["backup", tampered.to_str().unwrap()],
        &[("DATABASE_URL", &source_url)],
    );
    assert!(out.status.success(), "{}", said(&out));
    sqlx::query("CREATE DATABASE second")
        .execute(&restored)
        .await
        .unwrap();
    let second_url = with_password(&fresh.0.url("second"));
    let out = postplay(
        &["restore", tampered.to_str().unwrap()],
        &[("DATABASE_URL", &second_url)],
    );
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("game {finished}: entry 2: hash mismatch")),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 games in the restored database do not verify"),
        "{stderr}"
    );

    restored.close().await;
    drop(fresh);
    source.drop().await;
}

#[actix_web::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let source = TestDb::new().await;
    create_game_for(&source, "nationhood", &["Ann", "Bo"], true, 9).await;
    let dir = Scratch::new("backup-refusals");
    let url = with_password(&source.url());
    let env = [("DATABASE_URL", url.as_str())];

    // An empty database to restore into, which every refusal must leave empty.
    let empty = format!("{}_empty", source.name);
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {empty}")))
        .execute(source.store.pool())
        .await
        .unwrap();
    let empty_options = PgConnectOptions::from_str(&database_in(&source.url(), &empty)).unwrap();
    let empty_pool = pool(empty_options).await;
    let empty_url = with_password(&database_in(&source.url(), &empty));
    let into_empty = [("DATABASE_URL", empty_url.as_str())];
    let refused = async |args: &[&str], env: &[(&str, &str)], says: &str| {
        let out = postplay(args, env);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", said(&out));
        assert!(
            said(&out).contains(says),
            "{args:?} should say {says:?}: {}",
            said(&out)
        );
        assert_eq!(
            relations(&empty_pool).await,
            Vec::<String>::new(),
            "{args:?} changed the target"
        );
    };

    let missing = dir.join("no-such.dump");
    refused(
        &["restore", missing.to_str().unwrap()],
        &into_empty,
        "No such file",
    )
    .await;

    let garbage = dir.join("notes.txt");
    std::fs::write(&garbage, "not a backup\n").unwrap();
    refused(
        &["restore", garbage.to_str().unwrap()],
        &into_empty,
        "is not a backup postplay can read",
    )
    .await;

    // Not postplay's: a dump of a database without its schema.
    let foreign = dir.join("foreign.dump");
    let out = postplay(&["backup", foreign.to_str().unwrap()], &into_empty);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(
        said(&out).contains("does not look like postplay's database"),
        "{}",
        said(&out)
    );
    assert!(!foreign.exists(), "a failed backup leaves no file");
    assert_eq!(
        std::fs::read_dir(&*dir).unwrap().count(),
        1,
        "a failed backup leaves no partial file"
    );

    // A backup refuses to replace a file unless told to.
    let file = dir.join("club.dump");
    let out = postplay(&["backup", file.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", said(&out));
    let first = std::fs::read(&file).unwrap();
    let out = postplay(&["backup", file.to_str().unwrap()], &env);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("--overwrite"), "{}", said(&out));
    assert_eq!(
        std::fs::read(&file).unwrap(),
        first,
        "the old backup is untouched"
    );
    let out = postplay(&["backup", "--overwrite", file.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", said(&out));

    // A dump from a newer postplay: a migration this one does not know.
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (99990101000000, 'from the future', true, '\\x00', 0)",
    )
    .execute(source.store.pool())
    .await
    .unwrap();
    let newer = dir.join("newer.dump");
    let out = postplay(&["backup", newer.to_str().unwrap()], &env);
    assert!(out.status.success(), "{}", said(&out));
    refused(
        &["restore", newer.to_str().unwrap()],
        &into_empty,
        "was made by a newer postplay: its database has migration 99990101000000 (from the future)",
    )
    .await;

    // A server that cannot be reached: the error names it without its password.
    let nowhere = with_password(&database_in(&source.url(), "no_such_database"));
    let out = postplay(
        &["backup", dir.join("x.dump").to_str().unwrap()],
        &[("DATABASE_URL", &nowhere)],
    );
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains("no_such_database"), "{}", said(&out));

    empty_pool.close().await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE {empty} WITH (FORCE)"
    )))
    .execute(source.store.pool())
    .await
    .unwrap();
    source.drop().await;
}

/// Copies of the games `db` holds until it holds `total`: each copy's log, times and hashes the
/// original's (the chain does not name the game), with new link hashes. How a bigger set is made
/// cheaply for the figures in docs/PERFORMANCE.md.
async fn copies_up_to(db: &TestDb, total: i64) {
    let pool = db.store.pool();
    let columns = async |table: &str, skip: &[&str]| -> Vec<String> {
        let all: Vec<String> = sqlx::query_scalar(
            "SELECT column_name::text FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
        )
        .bind(table)
        .fetch_all(pool)
        .await
        .unwrap();
        all.into_iter()
            .filter(|c| !skip.contains(&c.as_str()))
            .collect()
    };
    let unique = |c: &String| match c.as_str() {
        "organiser_token_hash" | "token_hash" | "spectator_hash" | "handover_hash" => {
            format!("sha256({c} || int8send($2))")
        }
        _ => c.clone(),
    };
    let game_columns = columns("games", &["id"]).await;
    let insert_game = format!(
        "INSERT INTO games ({}) SELECT {} FROM games WHERE id = $1 RETURNING id",
        game_columns.join(", "),
        game_columns
            .iter()
            .map(unique)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let seat_columns = columns("seats", &["game_id"]).await;
    let insert_seats = format!(
        "INSERT INTO seats (game_id, {}) SELECT $3, {} FROM seats WHERE game_id = $1",
        seat_columns.join(", "),
        seat_columns
            .iter()
            .map(unique)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let command_columns = columns("commands", &["game_id"]).await;
    let insert_commands = format!(
        "INSERT INTO commands (game_id, {0}) SELECT $2, {0} FROM commands WHERE game_id = $1",
        command_columns.join(", ")
    );
    let originals: Vec<i64> = sqlx::query_scalar("SELECT id FROM games ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    let mut count = originals.len() as i64;
    let mut n = 0i64;
    while count < total {
        let original = originals[n as usize % originals.len()];
        n += 1;
        let mut tx = pool.begin().await.unwrap();
        let id: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(insert_game.clone()))
            .bind(original)
            .bind(n)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(insert_seats.clone()))
            .bind(original)
            .bind(n)
            .bind(id)
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query(sqlx::AssertSqlSafe(insert_commands.clone()))
            .bind(original)
            .bind(id)
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        count += 1;
    }
}

/// The figures for a bigger set (docs/PERFORMANCE.md "Backups"): `POSTPLAY_BACKUP_GAMES` games
/// (default 5,000), backed up and restored into a fresh cluster, every record verified.
/// `cargo test --test backup -- --ignored --nocapture`.
#[actix_web::test]
#[ignore = "a figure for docs/PERFORMANCE.md, not a check"]
async fn figures_for_a_bigger_set() {
    let total: i64 = std::env::var("POSTPLAY_BACKUP_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let source = TestDb::new().await;
    club_games(&source).await;
    copies_up_to(&source, total).await;
    let census = source.store.census().await.unwrap();
    let dir = Scratch::new("backup-figures");
    let file = dir.join("club.dump");
    let out = postplay(
        &["backup", file.to_str().unwrap()],
        &[("DATABASE_URL", &source.url())],
    );
    assert!(out.status.success(), "{}", said(&out));
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
    let data_dir = dir.join("fresh-cluster");
    let fresh = FreshCluster(PrivateCluster::ensure(&data_dir).expect("a second cluster starts"));
    let out = postplay(
        &["restore", file.to_str().unwrap()],
        &[("POSTPLAY_DATA_DIR", data_dir.to_str().unwrap())],
    );
    assert!(out.status.success(), "{}", said(&out));
    let said_out = String::from_utf8_lossy(&out.stdout).into_owned();
    eprint!("{said_out}");
    assert!(
        said_out.contains(&format!("verified {} games", census.games())),
        "{said_out}"
    );
    drop(fresh);
    source.drop().await;
}
