//! `postplay replay`: replays a record through the rules and prints what happened.

use super::out::Out;
use crate::engine::log::render;
use crate::engine::{Record, ReplayError, Viewer};
use crate::games::find_game;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `postplay replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record file (JSON, docs/record-format.md).
    file: PathBuf,
    /// Print one JSON line per step instead: seq, seat, command, the log lines, and the full
    /// auditor view after it (the whole state: every hand, the stock in order, sealed choices).
    #[arg(long)]
    trace: bool,
}

/// Exit code for a record that does not replay (an illegal or malformed command, a hash that
/// does not match).
const INVALID: u8 = 1;
/// Exit code for a file that cannot be read as a record.
const UNREADABLE: u8 = 2;

/// Prints the public log, the outcome and the final state hash; exits 1 naming the first
/// command that fails, 2 if the file is not a record.
pub fn run(args: Args) -> ExitCode {
    let record = match read_record(&args.file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: {e}", args.file.display());
            return ExitCode::from(UNREADABLE);
        }
    };
    let names = seat_names(&record);
    let mut out = Out::new();
    if !args.trace
        && let Ok(game) = record.start(crate::games::ALL)
    {
        for line in game.opening() {
            out.line(format_args!("{:>5}  {}", 0, render(&line, &names)));
        }
    }
    let result = record.replay_with(crate::games::ALL, true, |step, game| {
        if args.trace {
            let line = json!({
                "seq": step.number,
                "seat": step.seat,
                "command": record.commands[step.number - 1].command,
                "log": step.lines.iter().map(|l| render(l, &names)).collect::<Vec<_>>(),
                "view": game.view(Viewer::Auditor),
            });
            out.line(format_args!("{line}"));
        } else {
            for line in &step.lines {
                out.line(format_args!("{:>5}  {}", step.number, render(line, &names)));
            }
        }
    });
    if args.trace {
        return match result {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}: {e}", args.file.display());
                ExitCode::from(INVALID)
            }
        };
    }
    match result {
        Ok(game) => {
            match game.outcome() {
                Some(o) => {
                    let winners: Vec<&str> = o.winners.iter().map(|&s| names[s].as_str()).collect();
                    out.line(format_args!(
                        "outcome: {} (winners: {}; scores: {:?})",
                        render(&o.reason, &names),
                        if winners.is_empty() {
                            "none".to_string()
                        } else {
                            winners.join(", ")
                        },
                        o.scores
                    ));
                }
                None => {
                    out.line(format_args!(
                        "outcome: game in progress after {} commands",
                        record.commands.len()
                    ));
                }
            }
            out.line(format_args!("final state hash: {}", game.state_hash()));
            ExitCode::SUCCESS
        }
        Err(e @ (ReplayError::UnknownGame(_) | ReplayError::RulesVersion { .. })) => {
            eprintln!("{}: {e}", args.file.display());
            ExitCode::from(UNREADABLE)
        }
        Err(e) => {
            eprintln!("{}: {e}", args.file.display());
            ExitCode::from(INVALID)
        }
    }
}

/// Reads and parses a record file.
pub fn read_record(path: &PathBuf) -> Result<Record, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("not a game record: {e}"))
}

/// The record's display names, or the game's seat names where it has none.
pub fn seat_names(record: &Record) -> Vec<String> {
    (0..record.seats)
        .map(|s| {
            record.seat_names.get(s).cloned().unwrap_or_else(|| {
                find_game(&record.game)
                    .map(|g| g.seat_name(s, record.seats))
                    .unwrap_or_else(|| format!("Seat {s}"))
            })
        })
        .collect()
}
