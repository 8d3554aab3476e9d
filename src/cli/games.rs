//! `postplay games`: the hosted games, their seat counts and options.

use super::out::Out;
use crate::engine::OptionKind;
use crate::games::registry;
use serde_json::json;
use std::process::ExitCode;

/// Arguments of `postplay games`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Prints every game with its seats and options.
pub fn run(args: Args) -> ExitCode {
    if args.json {
        let games: Vec<_> = registry()
            .iter()
            .map(|g| {
                let (min, max) = g.seat_counts();
                json!({
                    "id": g.id(),
                    "name": g.name(),
                    "rules_version": g.rules_version(),
                    "seats": {"min": min, "max": max},
                    "options": g.option_specs(),
                    "default_options": g.default_options(),
                })
            })
            .collect();
        let json = serde_json::to_string_pretty(&games).expect("JSON");
        Out::new().line(format_args!("{json}"));
        return ExitCode::SUCCESS;
    }
    let mut out = Out::new();
    for game in registry() {
        let (min, max) = game.seat_counts();
        let seats = if min == max {
            format!("{min} players")
        } else {
            format!("{min}-{max} players")
        };
        out.line(format_args!("{:<18} {} ({seats})", game.id(), game.name()));
        for spec in game.option_specs() {
            let allowed = match &spec.kind {
                OptionKind::Bool => "true | false".to_string(),
                OptionKind::Select { values } => values
                    .iter()
                    .map(|(v, label)| format!("{v} ({label})"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                OptionKind::Integer { min, max } => format!("{min}..={max}"),
            };
            out.line(format_args!(
                "    {:<16} {}: {allowed}; default {}",
                spec.key, spec.label, spec.default
            ));
        }
    }
    ExitCode::SUCCESS
}
