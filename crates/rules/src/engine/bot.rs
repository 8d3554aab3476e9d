//! A uniformly random player over the generic choices, for tests, benches and `selfplay`; a
//! game may play it faster, typed ([`Rules::random_command`]), drawing the same moves.

use super::choice::group_indices;
use super::{
    Choice, DynGame, DynMatch, GameRng, Log, Outcome, ParamKind, PickOption, PickRule, Record,
    RecordedCommand, Rules, Seat, Seed,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Commands after which a random playout counts as endless (a bug in the rules).
pub const MAX_COMMANDS: usize = 200_000;

/// Picks one of the seat's choices uniformly and fills its parameters at random, obeying
/// their rules. `None` when the seat has no choice.
pub fn random_command(game: &dyn DynMatch, seat: Seat, rng: &mut GameRng) -> Option<Value> {
    fill_one_at_random(&game.choices(seat), rng)
}

/// The generic random move of a game known at compile time: [`random_command`] over
/// [`Rules::choices`], as JSON. [`Rules::random_command`]'s default reads it; a game's own
/// typed random move must draw and return what it does.
pub fn random_fill<R: Rules + ?Sized>(
    state: &R::State,
    seat: Seat,
    rng: &mut GameRng,
) -> Option<Value> {
    fill_one_at_random(&R::choices(state, seat), rng)
}

fn fill_one_at_random(choices: &[Choice], rng: &mut GameRng) -> Option<Value> {
    if choices.is_empty() {
        return None;
    }
    Some(fill_at_random(&choices[rng.index(choices.len())], rng))
}

/// Fills every parameter of a choice with random values that pass [`Choice::build`]. Debug
/// builds (the tests) check the fill against the parameters' rules; release builds (the
/// benches, `selfplay`) leave that to the game, which refuses an illegal command.
pub fn fill_at_random(choice: &Choice, rng: &mut GameRng) -> Value {
    let values = choice.params.iter().map(|p| random_value(&p.kind, rng));
    if cfg!(debug_assertions) {
        let values: Vec<Value> = values.collect();
        return choice.build(&values).unwrap_or_else(|e| {
            panic!(
                "a random fill of {:?} broke its own rule: {e}",
                choice.label
            )
        });
    }
    choice.assemble(values)
}

fn random_value(kind: &ParamKind, rng: &mut GameRng) -> Value {
    match kind {
        ParamKind::One { options } => options[rng.index(options.len())].value.clone().into_owned(),
        ParamKind::Number { min, max, step } => {
            let steps = (max - min) / step.max(&1);
            Value::from(min + step * i64::from(rng.below(steps as u32 + 1)))
        }
        ParamKind::Pick {
            options,
            min,
            max,
            rule,
        } => Value::Array(random_pick(options, *min, *max, rule, rng)),
        ParamKind::Distribute {
            options,
            total,
            max_each,
        } => {
            // The open options in order; one leaves the list when it is full.
            let mut counts = vec![0u32; options.len()];
            let mut open: Vec<usize> = (0..counts.len()).filter(|_| *max_each > 0).collect();
            for _ in 0..*total {
                let at = rng.index(open.len());
                let i = open[at];
                counts[i] += 1;
                if counts[i] >= *max_each {
                    open.remove(at);
                }
            }
            Value::from(counts)
        }
        ParamKind::Allot {
            options,
            total,
            caps,
            groups,
        } => {
            let group_of = group_indices(options, groups);
            Value::from(random_allot(
                *total,
                caps,
                &group_of,
                |g| groups[g].cap,
                rng,
            ))
        }
    }
}

/// The random fill of a [`ParamKind::Allot`]: `total` units among options of at most `caps`
/// each, option `i` in group `group_of[i]` (if any; none past its end) of at most
/// `group_cap(g)` together. For a game's typed random move ([`Rules::random_command`]) to draw
/// exactly as the fill does.
pub fn random_allot(
    total: u32,
    caps: &[u32],
    group_of: &[Option<usize>],
    group_cap: impl Fn(usize) -> u32,
    rng: &mut GameRng,
) -> Vec<u32> {
    // Greedy over the open options: each unit uses one unit of its option's and its group's
    // room, so a total within the capacity is always reached. The open options in order; an
    // option leaves the list when it or its group is full.
    let group = |i: usize| group_of.get(i).copied().flatten();
    let mut counts = vec![0u32; caps.len()];
    let mut used = vec![0u32; group_of.iter().flatten().max().map_or(0, |g| g + 1)];
    let mut open: Vec<usize> = (0..counts.len())
        .filter(|&i| caps[i] > 0 && group(i).is_none_or(|g| group_cap(g) > 0))
        .collect();
    for _ in 0..total {
        if open.is_empty() {
            break;
        }
        let at = rng.index(open.len());
        let i = open[at];
        counts[i] += 1;
        if counts[i] >= caps[i] {
            open.remove(at);
        }
        if let Some(g) = group(i) {
            used[g] += 1;
            if used[g] >= group_cap(g) {
                open.retain(|&j| group(j) != Some(g));
            }
        }
    }
    counts
}

/// The random fill of a [`ParamKind::Pick`] of `n` options without a rule: a size drawn
/// uniformly from `min..=max` (at most `n`), then that many distinct indices below `n`,
/// ascending. For a game's typed random move ([`Rules::random_command`]) to draw exactly as
/// the fill does.
pub fn random_indices(n: usize, min: usize, max: usize, rng: &mut GameRng) -> Vec<usize> {
    let max = max.min(n);
    let size = min + rng.index(max - min + 1);
    let mut order: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut order);
    order.truncate(size);
    order.sort_unstable();
    order
}

/// A random set of options of a random allowed size that satisfies the rule. Tries random
/// sets first; if the rule is hard to hit, falls back to the best set for the rule.
fn random_pick(
    options: &[PickOption],
    min: usize,
    max: usize,
    rule: &PickRule,
    rng: &mut GameRng,
) -> Vec<Value> {
    let max = max.min(options.len());
    let pool: Vec<usize> = match rule {
        PickRule::SameGroup => {
            let groups: Vec<&Option<super::Text>> = options
                .iter()
                .map(|o| &o.group)
                .filter(|g| g.is_some() && options.iter().filter(|o| &&o.group == g).count() >= min)
                .collect();
            let group = groups[rng.index(groups.len())];
            (0..options.len())
                .filter(|&i| &options[i].group == group)
                .collect()
        }
        _ => (0..options.len()).collect(),
    };
    let max = max.min(pool.len());
    for _ in 0..64 {
        // The pool is ascending, so its picked indices are too.
        let chosen: Vec<&PickOption> = random_indices(pool.len(), min, max, rng)
            .into_iter()
            .map(|i| &options[pool[i]])
            .collect();
        let ok = match rule {
            PickRule::SumAbove { threshold } => {
                chosen.iter().map(|o| o.weight).sum::<i64>() > *threshold
            }
            _ => true,
        };
        if ok {
            return chosen
                .iter()
                .map(|o| o.value.clone().into_owned())
                .collect();
        }
    }
    let mut by_weight = pool;
    by_weight.sort_by_key(|&i| std::cmp::Reverse(options[i].weight));
    by_weight.truncate(max);
    by_weight.sort_unstable();
    by_weight
        .iter()
        .map(|&i| options[i].value.clone().into_owned())
        .collect()
}

/// The bot's own random stream for a game: independent of the game's, reproducible from it.
pub fn bot_rng(seed: &Seed) -> GameRng {
    let mut hasher = Sha256::new();
    hasher.update(b"postplay bot");
    hasher.update(seed.0);
    GameRng::new(&Seed(hasher.finalize().into()), 0)
}

/// Why a random playout failed: a rules bug.
#[derive(Debug, thiserror::Error)]
pub enum PlayoutError {
    /// Setup failed.
    #[error("setup: {0}")]
    Setup(#[from] super::SetupError),
    /// A command the bot built from the offered choices was refused.
    #[error("command {number}: offered choice refused: {command} by seat {seat}: {error}")]
    Refused {
        number: usize,
        seat: Seat,
        command: Value,
        error: super::ApplyError,
    },
    /// The game is not over but nobody is awaited, or an awaited seat has no choice (or, with
    /// [`Rules::random_command`]'s default, its random fill did not read).
    #[error("command {0}: game stuck (no awaited seat with a choice) and no outcome")]
    Stuck(usize),
    /// The game went past [`MAX_COMMANDS`].
    #[error("no end after {MAX_COMMANDS} commands")]
    Endless,
    /// A seat's bot could not decide (see [`crate::engine::search::BotError`]).
    #[error("command {number}: seat {seat}'s bot: {error}")]
    Bot {
        number: usize,
        seat: Seat,
        error: super::search::BotError,
    },
}

/// A finished random game: its record (with the final state hash) and how it ended.
#[derive(Debug, Clone)]
pub struct Playout {
    /// The record, replayable with `postplay replay`.
    pub record: Record,
    /// The outcome.
    pub outcome: Outcome,
}

/// Plays a whole game with the random bot.
pub fn play_random(
    game: &dyn DynGame,
    options: &Value,
    seats: usize,
    seed: Seed,
) -> Result<Playout, PlayoutError> {
    let mut live = game.new_match(options, seats, seed)?;
    // The random bot never takes a move back.
    live.track_takebacks(false);
    let mut rng = bot_rng(&seed);
    let mut log = Log::silent();
    let mut commands = Vec::with_capacity(256);
    let outcome = loop {
        if let Some(outcome) = live.outcome() {
            break outcome;
        }
        if commands.len() >= MAX_COMMANDS {
            return Err(PlayoutError::Endless);
        }
        let active = live.active();
        if active.is_empty() {
            return Err(PlayoutError::Stuck(commands.len() + 1));
        }
        let seat = active[rng.index(active.len())];
        let (command, applied) = live
            .apply_random(seat, &mut rng, &mut log)
            .ok_or(PlayoutError::Stuck(commands.len() + 1))?;
        applied.map_err(|error| PlayoutError::Refused {
            number: commands.len() + 1,
            seat,
            command: command.clone(),
            error,
        })?;
        commands.push(RecordedCommand::new(seat, command));
    };
    let record = Record::of_play(live.as_ref(), seed, commands);
    Ok(Playout { record, outcome })
}

/// The questions one random game put to its seats, by what would settle them without asking:
/// each command is one question a seat had to answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Questions {
    /// Commands in the game: the questions asked when nothing is settled ahead.
    pub moves: u64,
    /// Of them, moves forced where everyone can see it: always played at once.
    pub forced_public: u64,
    /// Moves forced by the seat's hidden cards: played at once for seats that ask.
    pub forced_private: u64,
    /// Moves a standing order of the seat made (with every order given).
    pub standing: u64,
}

impl Questions {
    /// Adds another game's counts.
    pub fn add(&mut self, other: Questions) {
        self.moves += other.moves;
        self.forced_public += other.forced_public;
        self.forced_private += other.forced_private;
        self.standing += other.standing;
    }
}

/// Plays a whole game with the random bot, counting its questions ([`Questions`]); with
/// `orders`, every seat has given every standing order the game offers it, and a seat an order
/// settles plays the order's move rather than a random one.
pub fn count_questions(
    game: &dyn DynGame,
    options: &Value,
    seats: usize,
    seed: Seed,
    orders: bool,
) -> Result<Questions, PlayoutError> {
    let mut live = game.new_match(options, seats, seed)?;
    let mut rng = bot_rng(&seed);
    let mut log = Log::silent();
    let mut counts = Questions::default();
    while live.outcome().is_none() {
        if counts.moves as usize >= MAX_COMMANDS {
            return Err(PlayoutError::Endless);
        }
        let active = live.active();
        let Some(&seat) = active.get(rng.index(active.len().max(1))) else {
            return Err(PlayoutError::Stuck(counts.moves as usize + 1));
        };
        let standing = || {
            live.standing_orders()
                .iter()
                .filter(|o| o.seat.is_none_or(|s| s == seat))
                .find_map(|o| live.standing_command(seat, o.id))
        };
        let settled = if let Some(command) = live.forced(seat) {
            if live.forced_in_public(seat) {
                counts.forced_public += 1;
            } else {
                counts.forced_private += 1;
            }
            Some(command)
        } else if let Some(command) = orders.then(standing).flatten() {
            counts.standing += 1;
            Some(command)
        } else {
            None
        };
        counts.moves += 1;
        let (command, applied) = match settled {
            Some(command) => {
                let applied = live.apply_json(seat, &command, &mut log);
                (command, applied)
            }
            None => live
                .apply_random(seat, &mut rng, &mut log)
                .ok_or(PlayoutError::Stuck(counts.moves as usize))?,
        };
        applied.map_err(|error| PlayoutError::Refused {
            number: counts.moves as usize,
            seat,
            command,
            error,
        })?;
    }
    Ok(counts)
}
