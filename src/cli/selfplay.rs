//! `postplay selfplay`.

use std::process::ExitCode;

/// Arguments of `postplay selfplay`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the verb.
pub fn run(_args: Args) -> ExitCode {
    ExitCode::SUCCESS
}
