//! `postplay selfplay`: complete games played by the random bot, to exercise a game's rules.

use super::out::Out;
use crate::engine::bot::{Questions, count_questions, play_random};
use crate::engine::log::render;
use crate::engine::{DynGame, OptionKind, Seed, find_game, registry};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `postplay selfplay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game id (see `postplay games`).
    game: String,
    /// The seed of the first game: 64 hex digits or a number. Later games use the next numbers
    /// (or, for a hex seed, SHA-256 of the seed and the game's index). Default: random.
    #[arg(long)]
    seed: Option<Seed>,
    /// The options as JSON. Without it, every combination of the game's listed option values
    /// is played in turn, `--games` games each.
    #[arg(long)]
    options: Option<String>,
    /// Number of seats (default: the most the game allows).
    #[arg(long)]
    seats: Option<usize>,
    /// Games to play per option set.
    #[arg(long, default_value_t = 1)]
    games: u64,
    /// Write each game's record as JSON into this folder.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Count the questions put to the seats instead of printing each game: how many moves
    /// were forced (in public, or by hidden cards) and so never mailed (docs/PERFORMANCE.md).
    #[arg(long)]
    questions: bool,
    /// With `--questions`: every seat has given every standing order of the game.
    #[arg(long, requires = "questions")]
    orders: bool,
}

/// Plays the games and prints one line each; exits non-zero on the first rules failure.
pub fn run(args: Args) -> ExitCode {
    let Some(game) = find_game(&args.game) else {
        let ids: Vec<&str> = registry().iter().map(|g| g.id()).collect();
        eprintln!(
            "unknown game {:?}; hosted games: {}",
            args.game,
            ids.join(", ")
        );
        return ExitCode::from(2);
    };
    let option_sets = match &args.options {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => vec![v],
            Err(e) => {
                eprintln!("--options is not JSON: {e}");
                return ExitCode::from(2);
            }
        },
        None => option_combinations(game),
    };
    let seats = args.seats.unwrap_or(game.seat_counts().1);
    if let Some(dir) = &args.out
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let base = args.seed.unwrap_or_else(random_seed);
    let names: Vec<String> = (0..seats).map(|s| game.seat_name(s, seats)).collect();
    let mut out = Out::new();
    let mut played = 0u64;
    for options in &option_sets {
        if let Err(e) = game.new_match(options, seats, base) {
            if args.options.is_some() {
                eprintln!("cannot set up {} with {options}: {e}", game.id());
                return ExitCode::from(2);
            }
            out.line(format_args!("# options {options}: skipped ({e})"));
            continue;
        }
        if !out.line(format_args!("# options {options}, {seats} seats")) {
            break;
        }
        if args.questions {
            let mut total = Questions::default();
            for i in 0..args.games {
                let seed = nth_seed(&base, played + i);
                match count_questions(game, options, seats, seed, args.orders) {
                    Ok(counts) => total.add(counts),
                    Err(e) => {
                        eprintln!("seed {seed}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            played += args.games;
            let after = total.moves - total.forced_public;
            out.line(format_args!(
                "questions in {} games: {} moves; {} forced in public, {} forced by hidden \
                 cards, {} by standing orders; mailed: {} before, {after} after (public \
                 forced moves played), {} when every seat plays its forced moves{}",
                args.games,
                total.moves,
                total.forced_public,
                total.forced_private,
                total.standing,
                total.moves,
                after - total.forced_private,
                if args.orders {
                    format!(
                        " and {} with every standing order given too",
                        after - total.forced_private - total.standing
                    )
                } else {
                    String::new()
                }
            ));
            continue;
        }
        for i in 0..args.games {
            if out.closed() {
                break;
            }
            let seed = nth_seed(&base, played + i);
            let (record, outcome) = match play_random(game, options, seats, seed) {
                Ok(p) => (p.record, p.outcome),
                Err(e) => {
                    eprintln!("seed {seed}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            out.line(format_args!(
                "seed {seed} commands {} hash {} | winners {:?} scores {:?}: {}",
                record.commands.len(),
                record.final_state_hash.as_deref().unwrap_or(""),
                outcome.winners,
                outcome.scores,
                render(&outcome.reason, &names)
            ));
            if let Some(dir) = &args.out {
                let path = dir.join(format!("{}-{}.json", game.id(), &seed.to_hex()[..16]));
                let text = serde_json::to_string_pretty(&record).expect("records serialize");
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
        }
        played += args.games;
        if out.closed() {
            break;
        }
    }
    ExitCode::SUCCESS
}

/// Every combination of the listed values of the game's choice-like options (booleans and
/// selections); number options keep their default.
pub fn option_combinations(game: &dyn DynGame) -> Vec<Value> {
    let mut sets = vec![Map::new()];
    for spec in game.option_specs() {
        let values: Vec<Value> = match spec.kind {
            OptionKind::Bool => vec![Value::Bool(false), Value::Bool(true)],
            OptionKind::Select { values } => values.into_iter().map(|(v, _)| v).collect(),
            OptionKind::Integer { .. } => vec![spec.default.clone()],
        };
        sets = sets
            .into_iter()
            .flat_map(|set| {
                values.iter().map(move |v| {
                    let mut set = set.clone();
                    set.insert(spec.key.to_string(), v.clone());
                    set
                })
            })
            .collect();
    }
    sets.into_iter().map(Value::Object).collect()
}

fn nth_seed(base: &Seed, n: u64) -> Seed {
    if n == 0 {
        return *base;
    }
    let small = base.0[8..].iter().all(|b| *b == 0);
    if small {
        let first = u64::from_le_bytes(base.0[..8].try_into().expect("8 bytes"));
        return Seed::from_number(first.wrapping_add(n));
    }
    let mut hasher = Sha256::new();
    hasher.update(base.0);
    hasher.update(n.to_le_bytes());
    Seed(hasher.finalize().into())
}

/// A fresh seed from the operating system's CSPRNG.
pub fn random_seed() -> Seed {
    Seed::random()
}
