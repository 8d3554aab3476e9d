//! The practice bot's search, the same for every game: information-set Monte Carlo tree
//! search, each playout on a fresh sample of the hidden cards ([`Determinize`]), down a tree
//! of every seat's moves, played to the end by the random player, and scored by [`Outcome`].
//!
//! It sees the seat's view and the public [`Table`], never the state, and draws every random
//! number from the seed it is handed, so a decision is a pure function of (view, table, seed,
//! budget). Budgets are counted in playouts, never in time.

mod tree;
mod weigh;

pub use weigh::{Weighing, weigh, weigh_open};

use super::bot::fill_at_random;
use super::determinize::{Determinize, SampleError, Table};
use super::{Choice, GameRng, Log, Outcome, ParamKind, Rules, Seat, Seed};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tree::Tree;

/// How strongly a bot plays: its budget of playouts per decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A handful of playouts, then a move at random among those that won at least one of
    /// them ("random among sensible moves"): avoids what loses at once, otherwise close to
    /// random, so a beginner can beat it.
    Easy,
    /// A few hundred playouts.
    Medium,
    /// A few thousand playouts.
    Hard,
}

impl Level {
    /// All levels, weakest first.
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// The playouts one decision may spend.
    pub fn playouts(self) -> u32 {
        match self {
            Level::Easy => 24,
            Level::Medium => 300,
            Level::Hard => 3000,
        }
    }

    /// How the move is taken from the search: at random among the sensible ones (easy), or
    /// the best (medium, hard).
    pub fn pick(self) -> Pick {
        match self {
            Level::Easy => Pick::Sensible,
            Level::Medium | Level::Hard => Pick::Best,
        }
    }

    /// Its name in forms and on the command line: "easy", "medium", "hard".
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

/// How a decision takes its move from the search's results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The move with the most playouts (then the better mean, then the earlier).
    Best,
    /// A move drawn among those whose playouts won at least once, each as likely as its share
    /// of the playouts; the best when none won.
    Sensible,
}

/// At most this many fillings of one choice whose parameters allow many are tried as
/// candidate moves (drawn at random, duplicates dropped).
pub const FILLINGS_PER_CHOICE: usize = 12;

/// A choice whose `One` parameters combine into at most this many commands is enumerated
/// whole; one with more, or with other kinds of parameter, is sampled.
pub const ENUMERATE_UP_TO: usize = 48;

/// Commands after which a playout is cut short and scored as a draw: a guard, far above any
/// game's length.
pub const PLAYOUT_LIMIT: usize = 50_000;

/// Why the bot could not decide.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The view could not be sampled.
    #[error(transparent)]
    Sample(#[from] SampleError),
    /// The seat has no decision to make.
    #[error("seat {0} has no choice to make")]
    NoChoice(Seat),
    /// An offered command was not a command of the game (a game bug).
    #[error("an offered command does not parse: {0}")]
    Decode(String),
}

/// What the bot decided, and what it spent.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The command to play, as the game's JSON.
    pub command: Value,
    /// The candidate moves it compared.
    pub candidates: usize,
    /// The playouts it ran (0 when only one move was possible).
    pub playouts: u32,
    /// Of them, playouts that ended without an outcome (cut at [`PLAYOUT_LIMIT`], stuck, or
    /// a command refused): scored as draws; always 0 unless a game has a bug.
    pub cut_short: u32,
    /// The chosen move's mean reward over its playouts ([`reward`]: the seat's chance of
    /// winning from here, a draw or a shared win counting half, as the search estimates it);
    /// `None` when no playout ran.
    pub estimate: Option<f64>,
}

/// The seed of one decision: a game's bot seed (drawn fresh when the bot takes its seat and
/// recorded beside the game, never derived from the game's seed) and the number of the command
/// it decides, so each decision has its own stream.
pub fn decision_seed(bot_seed: &Seed, command_number: u64) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(b"postplay bot decision");
    hasher.update(bot_seed.0);
    hasher.update(command_number.to_le_bytes());
    Seed(hasher.finalize().into())
}

/// The seat's share of an outcome: 1 for a win (a partnership's win is each partner's), 0 for
/// a loss, ½ for a draw or a shared win between more than the seat's side.
pub fn reward(outcome: &Outcome, seat: Seat, partners: &[Seat]) -> f64 {
    if outcome.winners.is_empty() {
        return 0.5;
    }
    if !outcome.winners.contains(&seat) {
        return 0.0;
    }
    let side = 1 + partners.len();
    if outcome.winners.len() > side {
        0.5
    } else {
        1.0
    }
}

/// Decides `seat`'s move from its view as a bot of `level` plays, every random draw from
/// `seed`: [`decide_with`] with the level's budget and pick.
pub fn decide_at<R: Determinize>(
    view: &R::View,
    seat: Seat,
    table: &Table<R::Options>,
    level: Level,
    seed: &Seed,
) -> Result<Decision, BotError> {
    decide_with::<R>(view, seat, table, level.playouts(), level.pick(), seed)
}

/// Decides `seat`'s best move from its view with `budget` playouts, every random draw from
/// `seed`. The same arguments always give the same decision.
pub fn decide<R: Determinize>(
    view: &R::View,
    seat: Seat,
    table: &Table<R::Options>,
    budget: u32,
    seed: &Seed,
) -> Result<Decision, BotError> {
    decide_with::<R>(view, seat, table, budget, Pick::Best, seed)
}

/// Decides `seat`'s move from its view with `budget` playouts, taken from the search by
/// `pick`, every random draw from `seed`. The same arguments always give the same decision.
///
/// Single-observer information-set Monte Carlo tree search: each playout deals a fresh sample
/// of what the seat cannot see, descends a tree of the moves made in earlier samples (the
/// bot's own and every other seat's, chosen by UCB among those legal in this sample), adds one
/// move to the tree, and plays the rest at random. Every seat in the tree picks the moves that
/// have paid it best, so the bot plans against opponents who answer well rather than against
/// random ones; more playouts grow the tree deeper.
pub fn decide_with<R: Determinize>(
    view: &R::View,
    seat: Seat,
    table: &Table<R::Options>,
    budget: u32,
    pick: Pick,
    seed: &Seed,
) -> Result<Decision, BotError> {
    let draw = |rng: &mut GameRng| R::sample(view, seat, table, rng);
    Ok(run::<R>(draw, seat, table.seats, budget, pick, seed, None)?.0)
}

/// The search behind [`decide_with`] and [`weigh`]: each playout on a state from `draw`
/// (a sample of the seat's view, or the one state known). With `also`, that command is a
/// candidate too, tried first, and its mean reward is returned beside the decision (`None`
/// when no playout ran).
pub(super) fn run<R: Determinize>(
    mut draw: impl FnMut(&mut GameRng) -> Result<R::State, SampleError>,
    seat: Seat,
    seats: usize,
    budget: u32,
    pick: Pick,
    seed: &Seed,
    also: Option<&Value>,
) -> Result<(Decision, Option<f64>), BotError> {
    let mut sampling = GameRng::new(seed, 0);
    let first = draw(&mut sampling)?;
    let choices = R::choices(&first, seat);
    if choices.is_empty() {
        return Err(BotError::NoChoice(seat));
    }
    let mut filling = GameRng::new(seed, 1);
    let mut candidates = candidates::<R>(&choices, &mut filling)?;
    // In a random order: a budget smaller than the candidates tries a random few of them, not
    // always the first the game lists (which could be the same kind of move every time).
    filling.shuffle(&mut candidates);
    if let Some(json) = also {
        let command = match candidates.iter().position(|(j, _)| j == json) {
            Some(at) => candidates.remove(at).1,
            None => R::decode(json).map_err(|e| BotError::Decode(format!("{json}: {e}")))?,
        };
        candidates.insert(0, (json.clone(), command));
    }
    if candidates.len() == 1 || budget == 0 {
        let pick = if candidates.len() == 1 {
            0
        } else {
            filling.index(candidates.len())
        };
        let decision = Decision {
            command: candidates[pick].0.clone(),
            candidates: candidates.len(),
            playouts: 0,
            cut_short: 0,
            estimate: None,
        };
        return Ok((decision, None));
    }
    let mut tree = Tree::new(seat, &candidates, tree::exploration_for(budget));
    let mut state = Some(first);
    let mut cut_short = 0;
    for i in 0..budget {
        let sample = match state.take() {
            Some(s) => s,
            None => draw(&mut sampling)?,
        };
        let mut chance = GameRng::new(seed, 2 + u64::from(i));
        let arm = tree.root_arm(i);
        if !tree.iterate::<R>(sample, arm, &candidates[arm].1, seats, &mut chance)? {
            cut_short += 1;
        }
    }
    let best = match pick {
        Pick::Best => tree.most_visited_root_child(),
        Pick::Sensible => tree.sensible_root_child(&mut filling),
    };
    let decision = Decision {
        command: candidates[best].0.clone(),
        candidates: candidates.len(),
        playouts: budget,
        cut_short,
        estimate: Some(tree.root_mean(best)),
    };
    Ok((decision, also.map(|_| tree.root_mean(0))))
}

/// Play from `state` to the end, each move the game's playout move
/// ([`Determinize::playout_command`]) or else one at random ([`Rules::random_command`]);
/// `None` if it is cut short or gets stuck (a rules bug, which the property tests rule out).
pub fn random_to_end<R: Determinize>(state: &mut R::State, rng: &mut GameRng) -> Option<Outcome> {
    let mut log = Log::silent();
    for _ in 0..PLAYOUT_LIMIT {
        if let Some(outcome) = R::outcome(state) {
            return Some(outcome);
        }
        let active = R::active(state);
        if active.is_empty() {
            return None;
        }
        let mover = active[rng.index(active.len())];
        if let Some(command) = R::playout_command(state, mover, rng)
            && R::apply(state, mover, &command, rng, &mut log).is_ok()
        {
            continue;
        }
        let command = R::random_command(state, mover, rng)?;
        R::apply(state, mover, &command, rng, &mut log).ok()?;
    }
    None
}

/// The candidate moves: every choice without parameters; every combination of a choice's
/// `One` and `Number` parameters when there are few; otherwise up to [`FILLINGS_PER_CHOICE`] random
/// fillings. Duplicates are dropped, order is the choices' order.
fn candidates<R: Rules>(
    choices: &[Choice],
    rng: &mut GameRng,
) -> Result<Vec<(Value, R::Command)>, BotError> {
    let mut out: Vec<(Value, R::Command)> = Vec::new();
    let push = |json: Value, out: &mut Vec<(Value, R::Command)>| -> Result<(), BotError> {
        if out.iter().any(|(j, _)| *j == json) {
            return Ok(());
        }
        let command = R::decode(&json).map_err(|e| BotError::Decode(format!("{json}: {e}")))?;
        out.push((json, command));
        Ok(())
    };
    for choice in choices {
        if let Some(all) = enumerate(choice) {
            for json in all {
                push(json, &mut out)?;
            }
        } else {
            for _ in 0..FILLINGS_PER_CHOICE {
                push(fill_at_random(choice, rng), &mut out)?;
            }
        }
    }
    Ok(out)
}

/// Every command of a choice whose parameters are all `One` or `Number` (or none), when they combine into
/// at most [`ENUMERATE_UP_TO`].
fn enumerate(choice: &Choice) -> Option<Vec<Value>> {
    let mut combos: Vec<Vec<Value>> = vec![Vec::new()];
    for param in &choice.params {
        let values: Vec<Value> = match &param.kind {
            ParamKind::One { options } => options
                .iter()
                .map(|o| o.value.clone().into_owned())
                .collect(),
            ParamKind::Number { min, max, step } if max >= min => {
                let step = (*step).max(1);
                if (max - min) / step >= ENUMERATE_UP_TO as i64 {
                    return None;
                }
                (0..=(max - min) / step)
                    .map(|k| Value::from(min + k * step))
                    .collect()
            }
            _ => return None,
        };
        if combos.len() * values.len() > ENUMERATE_UP_TO {
            return None;
        }
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push(v.clone());
                    c
                })
            })
            .collect();
    }
    Some(combos.into_iter().map(|c| choice.assemble(c)).collect())
}
