//! The command-line interface: one module per verb.

mod backup;
mod check;
mod games;
mod out;
mod receive;
mod replay;
mod restore;
mod selfplay;
mod serve;
mod transfer;
mod verify;
mod worker;

pub use selfplay::random_seed;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// postplay: slow, asynchronous play of card games by email link.
#[derive(Parser, Debug)]
#[command(name = "postplay", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the hosted games, their seat counts and options.
    Games(games::Args),
    /// Play complete games with the random bot and print a summary line per game.
    Selfplay(selfplay::Args),
    /// Replay a game record: print its public log, outcome and final state hash.
    Replay(replay::Args),
    /// Run the web server (with its private PostgreSQL when DATABASE_URL is unset).
    Serve(serve::Args),
    /// Run the outbox worker alone: send queued mail (as `serve` does too).
    Worker(worker::Args),
    /// Take replies to the mail as moves: one message on standard input (an MTA's pipe), or
    /// an LMTP/SMTP listener with --listen.
    Receive(receive::Args),
    /// Apply the database migrations and exit.
    Migrate,
    /// Write a game's record (docs/record-format.md) from the database.
    Export(transfer::ExportArgs),
    /// Verify a record and store it as a new game.
    Import(transfer::ImportArgs),
    /// Verify an exported game (or, with --database, every game in the database): hash chain,
    /// seed commitment, full replay, final state.
    Verify(verify::Args),
    /// Write the whole database, as it stood at one instant, to a file (deploy/backups.md).
    Backup(backup::Args),
    /// Restore a backup into an empty database, then verify every game in it.
    Restore(restore::Args),
}

/// Parses the command line and runs the verb; the exit code says how it went.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Games(args) => games::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Migrate => serve::migrate(),
        Command::Worker(args) => worker::run(args),
        Command::Receive(args) => receive::run(args),
        Command::Export(args) => transfer::export(args),
        Command::Import(args) => transfer::import(args),
        Command::Backup(args) => backup::run(args),
        Command::Restore(args) => restore::run(args),
    }
}
