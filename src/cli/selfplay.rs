//! `postplay selfplay`: complete games played by the random bot, to exercise a game's rules,
//! or by practice bots of chosen levels (`--bots`), to watch them play.

use super::out::Out;
use crate::engine::bot::{Questions, count_questions, play_random};
use crate::engine::log::render;
use crate::engine::seat_bot::play_bots;
use crate::engine::{BotLevel, Seed};
use crate::games::{find_game, registry};
use serde_json::Value;
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
    /// A practice bot in each seat, in seat order, by level: `random`, `easy`, `medium` or
    /// `hard` (`--bots medium,random`). Their number is the number of seats.
    #[arg(long, value_delimiter = ',', value_parser = parse_level, conflicts_with = "questions")]
    bots: Option<Vec<BotLevel>>,
    /// With `--bots`: the bots' own seed (64 hex digits or a number), never the game's.
    /// Default: random. Printed on each game's line, so a run can be played again.
    #[arg(long, requires = "bots")]
    bot_seed: Option<Seed>,
}

fn parse_level(word: &str) -> Result<BotLevel, String> {
    BotLevel::parse(word)
        .ok_or_else(|| format!("{word:?} is no bot level: random, easy, medium or hard"))
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
        None => crate::engine::options::combinations(game),
    };
    let seats = match &args.bots {
        Some(bots) if args.seats.is_some_and(|n| n != bots.len()) => {
            eprintln!(
                "--seats says {} but --bots names {}",
                args.seats.unwrap_or(0),
                bots.len()
            );
            return ExitCode::from(2);
        }
        Some(bots) => bots.len(),
        None => args.seats.unwrap_or(game.seat_counts().1),
    };
    if args.bots.as_ref().is_some_and(|bots| {
        bots.iter().any(|b| *b != BotLevel::Random) && crate::games::find_bot(game.id()).is_none()
    }) {
        eprintln!(
            "{} has no practice bot yet: only `random` can play it",
            game.name()
        );
        return ExitCode::from(2);
    }
    let bots_seed = args.bot_seed.unwrap_or_else(random_seed);
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
            let played_by = match &args.bots {
                Some(levels) => play_bots(
                    game,
                    crate::games::find_bot(game.id()),
                    options,
                    levels,
                    seed,
                    &nth_seed(&bots_seed, played + i),
                ),
                None => play_random(game, options, seats, seed),
            };
            let (record, outcome) = match played_by {
                Ok(p) => (p.record, p.outcome),
                Err(e) => {
                    eprintln!("seed {seed}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let bots = match &args.bots {
                Some(levels) => {
                    let names: Vec<&str> = levels.iter().map(|l| l.name()).collect();
                    format!(
                        " | bots {} bot-seed {}",
                        names.join(","),
                        nth_seed(&bots_seed, played + i)
                    )
                }
                None => String::new(),
            };
            out.line(format_args!(
                "seed {seed} commands {} hash {} | winners {:?} scores {:?}: {}{bots}",
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
