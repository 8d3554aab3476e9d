//! `postplay export` and `postplay import`: moving games between servers as records.

use super::out::Out;
use crate::config::Config;
use crate::engine::Viewer;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `postplay export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The game's id.
    game_id: i64,
    /// Write to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Include the seed of a game still running (to move it to another server; never give
    /// such a file to a player).
    #[arg(long)]
    reveal_seed: bool,
}

/// Arguments of `postplay import`.
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The record to import (it must carry its seed).
    file: PathBuf,
}

fn with_store<T>(
    work: impl AsyncFnOnce(&crate::store::Store) -> Result<T, String>,
) -> Result<T, String> {
    let config = Config::from_env()?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let (store, cluster) = crate::startup::connect(&config).await?;
        store.migrate().await.map_err(|e| e.to_string())?;
        let result = work(&store).await;
        store.pool().close().await;
        if let Some(cluster) = cluster.filter(|c| c.started_here) {
            cluster.stop().map_err(|e| e.to_string())?;
        }
        result
    })
}

/// Writes a game's record.
pub fn export(args: ExportArgs) -> ExitCode {
    let result = with_store(async |store| {
        let record = store
            .export(
                args.game_id,
                if args.reveal_seed {
                    Viewer::Auditor
                } else {
                    Viewer::Spectator
                },
            )
            .await
            .map_err(|e| e.to_string())?;
        Ok(serde_json::to_string_pretty(&record).expect("records serialize"))
    });
    match result {
        Ok(text) => match &args.out {
            Some(path) => match std::fs::write(path, text + "\n") {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("{}: {e}", path.display());
                    ExitCode::FAILURE
                }
            },
            None => {
                Out::new().line(format_args!("{text}"));
                ExitCode::SUCCESS
            }
        },
        Err(e) => {
            eprintln!("postplay export: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Verifies a record and stores it as a new game; prints its id and new links' tokens.
pub fn import(args: ImportArgs) -> ExitCode {
    let record = match super::replay::read_record(&args.file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: unreadable: {e}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let base = Config::from_env().map(|c| c.base_url).unwrap_or_default();
    match with_store(async |store| store.import(&record).await.map_err(|e| e.to_string())) {
        Ok(created) => {
            let mut out = Out::new();
            out.line(format_args!("imported as game {}", created.id));
            out.line(format_args!(
                "organiser: {base}/manage/{}",
                created.organiser_token
            ));
            for (seat, token) in created.seat_tokens.iter().enumerate() {
                out.line(format_args!("seat {seat}: {base}/play/{token}"));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("postplay import: {e}");
            ExitCode::FAILURE
        }
    }
}
