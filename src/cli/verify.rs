//! `postplay verify`: proves an exported game was played by the rules from its committed seed,
//! or names the first place it was not; with `--database`, every game of the configured
//! database.

use crate::engine::audit::verify;
use crate::engine::log::render;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `postplay verify`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The exported record (JSON, docs/record-format.md).
    #[arg(required_unless_present = "database")]
    file: Option<PathBuf>,
    /// The chain head published on the game's page, if you hold it from there rather than
    /// trusting the one in the file.
    #[arg(long, conflicts_with = "database")]
    head: Option<String>,
    /// Verify every game in the database (DATABASE_URL, or the private cluster) instead of a
    /// file: what `postplay restore` runs after a restore, and what to run after a
    /// point-in-time recovery (deploy/backups.md).
    #[arg(long, conflicts_with = "file")]
    database: bool,
    /// A copy of `/fairness.json` you archived: checks that the deal's batch was published
    /// as the record says and that no seed before the game's was skipped.
    #[arg(long, conflicts_with = "database")]
    fairness: Option<PathBuf>,
}

/// Exit code of a valid record.
const VALID: u8 = 0;
/// Exit code of a record that fails a check.
const INVALID: u8 = 1;
/// Exit code of a file that is not a record.
const UNREADABLE: u8 = 2;

/// Checks, in order, the format, the chain, the commitment, a full replay and the final
/// state hash; prints what was proven or the first failure.
pub fn run(args: Args) -> ExitCode {
    let Some(file) = args.file else {
        return database();
    };
    let record = match super::replay::read_record(&file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: unreadable: {e}", file.display());
            return ExitCode::from(UNREADABLE);
        }
    };
    let head = args.head.as_deref().or(record.chain_head.as_deref());
    let names = super::replay::seat_names(&record);
    match verify(crate::games::ALL, &record, head) {
        Ok(v) => {
            println!(
                "valid: {} entries; chain head {}; seed matches commitment {}; replay reaches state {}{}",
                v.entries,
                v.chain_head,
                record.commitment.as_deref().unwrap_or(""),
                v.final_state_hash,
                v.outcome
                    .map(|o| format!("; {}", render(&o, &names)))
                    .unwrap_or_default()
            );
            println!("deal: {}", deal_line(&record));
            match args.fairness {
                Some(archive) => fairness(&archive, &record),
                None => ExitCode::from(VALID),
            }
        }
        Err(e) => {
            eprintln!("invalid: {e}");
            ExitCode::from(INVALID)
        }
    }
}

/// What the deal was derived from (docs/FAIRNESS.md), checked by [`verify`].
fn deal_line(record: &crate::engine::Record) -> String {
    match &record.deal {
        Some(deal) => deal.describe(),
        None => "not recorded (made before fair deals, or with a seed chosen by hand)".into(),
    }
}

/// Checks the record's deal against an archived `/fairness.json` and prints `fairness: …`.
fn fairness(file: &std::path::Path, record: &crate::engine::Record) -> ExitCode {
    let archive: crate::engine::deal::Archive = match std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
    {
        Ok(archive) => archive,
        Err(e) => {
            eprintln!("{}: not an archived fairness.json: {e}", file.display());
            return ExitCode::from(UNREADABLE);
        }
    };
    let Some(deal) = &record.deal else {
        eprintln!("invalid: the record has no deal to check against the archive");
        return ExitCode::from(INVALID);
    };
    match archive.confirm(deal) {
        Ok(confirmed) => {
            println!("fairness: {}", confirmed.describe(deal));
            ExitCode::from(VALID)
        }
        Err(e) => {
            eprintln!("invalid: {e}");
            ExitCode::from(INVALID)
        }
    }
}

/// Verifies every game of the configured database; exit 1 if any fails.
fn database() -> ExitCode {
    super::backup::run_verb("verify", async |config| {
        let opened = super::backup::Opened::open(&config)
            .await
            .map_err(super::backup::refused)?;
        let checked = super::check::every_game(&opened.store).await;
        opened.close().await.map_err(super::backup::refused)?;
        let checked = checked.map_err(super::backup::refused)?;
        checked.report();
        if checked.failed > 0 {
            return Err(super::backup::Failure {
                code: INVALID,
                message: format!("{} games do not verify", checked.failed),
            });
        }
        Ok(())
    })
}
