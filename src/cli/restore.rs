//! `postplay restore`: a file `postplay backup` wrote, put back into an empty database, brought
//! up to this version's schema, then every game in it verified (deploy/backups.md).
//!
//! Everything that can be checked before the database is touched is: the file exists and is a
//! dump, its schema is one this postplay knows (not newer), the target holds nothing. The
//! restore itself is one transaction: on any error nothing of it stays.

use super::backup::{FAILED, Failure, Opened, refused, run_verb};
use crate::pg::tools;
use crate::store::MIGRATOR;
use crate::store::game::census::relations;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `postplay restore`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A file `postplay backup` wrote.
    file: PathBuf,
}

/// What the schema check found in a dump.
struct Schema {
    /// Migrations the dumped database had applied.
    applied: usize,
    /// Migrations this postplay has that it had not (applied after the restore).
    behind: usize,
}

/// Restores, migrates, verifies; prints what it did and the verification's counts. Exit 2:
/// refused, nothing changed; exit 1: restored, but some game does not verify.
pub fn run(args: Args) -> ExitCode {
    run_verb("restore", async |config| {
        let file = &args.file;
        std::fs::File::open(file).map_err(|e| refused(format!("{}: {e}", file.display())))?;
        tools::contents(file).map_err(|e| {
            refused(format!(
                "{} is not a backup postplay can read: {e}",
                file.display()
            ))
        })?;
        let schema = check_schema(file)?;
        let opened = Opened::open(&config).await.map_err(refused)?;
        let result = restore(&opened, file, &schema).await;
        opened.close().await.map_err(refused)?;
        result
    })
}

/// Refuses a dump that is not postplay's, or whose schema this postplay does not know.
fn check_schema(file: &Path) -> Result<Schema, Failure> {
    let shown = file.display();
    let tools::TableRows { columns, rows } = tools::table_rows(file, "_sqlx_migrations")
        .map_err(refused)?
        .ok_or_else(|| {
            refused(format!(
                "{shown} holds no postplay database (it has no _sqlx_migrations table)"
            ))
        })?;
    let column = |name: &str| {
        columns
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| refused(format!("{shown}: _sqlx_migrations has no {name} column")))
    };
    let (version_at, description_at, success_at, checksum_at) = (
        column("version")?,
        column("description")?,
        column("success")?,
        column("checksum")?,
    );
    let known: Vec<_> = MIGRATOR
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .collect();
    for row in &rows {
        let fields: Vec<&str> = row.split('\t').collect();
        let field = |at: usize| fields.get(at).copied().unwrap_or_default();
        let version: i64 = field(version_at)
            .parse()
            .map_err(|_| refused(format!("{shown}: a migration row does not parse: {row:?}")))?;
        let description = field(description_at);
        let Some(ours) = known.iter().find(|m| m.version == version) else {
            return Err(refused(format!(
                "{shown} was made by a newer postplay: its database has migration {version} \
                 ({description}), which this postplay ({}) does not know. Restore it with the \
                 postplay that made it, or a newer one",
                env!("CARGO_PKG_VERSION")
            )));
        };
        if field(success_at) != "t" {
            return Err(refused(format!(
                "{shown}: migration {version} ({description}) had not finished when the backup \
                 was made"
            )));
        }
        let checksum = field(checksum_at)
            .trim_start_matches('\\')
            .trim_start_matches('x');
        if !checksum.eq_ignore_ascii_case(&hex::encode(&ours.checksum)) {
            return Err(refused(format!(
                "{shown}: migration {version} ({description}) differs from this postplay's: the \
                 backup was made by a different build of postplay"
            )));
        }
    }
    Ok(Schema {
        applied: rows.len(),
        behind: known.len().saturating_sub(rows.len()),
    })
}

/// Into an empty database: the dump in one transaction, statistics, this version's migrations,
/// then every game verified.
async fn restore(opened: &Opened, file: &Path, schema: &Schema) -> Result<(), Failure> {
    let where_to = opened.describe();
    let mut conn = opened
        .store
        .pool()
        .acquire()
        .await
        .map_err(|e| refused(format!("database: {e}")))?;
    let found = relations(&mut conn)
        .await
        .map_err(|e| refused(format!("database: {e}")))?;
    drop(conn);
    if !found.is_empty() {
        return Err(refused(format!(
            "{where_to} is not empty (it holds {}): restore into a new, empty database \
             (createdb), or into a new private cluster (POSTPLAY_DATA_DIR naming an empty folder)",
            found.join(", ")
        )));
    }
    let began = Instant::now();
    tools::restore(&opened.target, file).map_err(refused)?;
    let failed = |message: String| Failure {
        code: FAILED,
        message,
    };
    sqlx::query("ANALYZE")
        .execute(opened.store.pool())
        .await
        .map_err(|e| failed(format!("restored, but ANALYZE failed: {e}")))?;
    opened
        .store
        .migrate()
        .await
        .map_err(|e| failed(format!("restored, but the migrations failed: {e}")))?;
    let counts = opened
        .store
        .census()
        .await
        .map_err(|e| failed(e.to_string()))?;
    println!(
        "restored {counts} from {} into {where_to} in {:.1} s{}",
        file.display(),
        began.elapsed().as_secs_f64(),
        match schema.behind {
            0 => String::new(),
            n => format!(
                " (the backup's schema had {} migrations; the {n} since were applied)",
                schema.applied
            ),
        }
    );
    let verifying = Instant::now();
    let checked = super::check::every_game(&opened.store)
        .await
        .map_err(failed)?;
    checked.report();
    println!(
        "verification took {:.1} s",
        verifying.elapsed().as_secs_f64()
    );
    if checked.failed > 0 {
        return Err(failed(format!(
            "{} games in the restored database do not verify (listed above); the restore is \
             kept for you to inspect",
            checked.failed
        )));
    }
    Ok(())
}
