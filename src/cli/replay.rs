//! `postplay replay`.

use std::process::ExitCode;

/// Arguments of `postplay replay`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the verb.
pub fn run(_args: Args) -> ExitCode {
    ExitCode::SUCCESS
}
