//! Weighing a move that was made against the search's own (a game's review, docs/BOTS.md
//! "Review"): one search from the position, with the move made among its candidates, gives
//! both the search's best move with its estimate and the estimate of the move made.

use super::{BotError, Decision, Pick, run};
use crate::engine::determinize::{Determinize, Table};
use crate::engine::{Seat, Seed};
use serde_json::Value;

/// A move weighed: the search's decision and the mean reward of the move made.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighing {
    /// What the search would play, with its estimate (the seat's chance before the move, with
    /// the search's best play).
    pub decision: Decision,
    /// The move made's mean reward over its playouts (the seat's chance after it); `None`
    /// when no playout ran (the move was the only one).
    pub played: Option<f64>,
}

/// Weighs `played`, `seat`'s move from its `view`, with `budget` playouts on samples of what
/// the seat could not see, every random draw from `seed`: exactly the seat's information.
pub fn weigh<R: Determinize>(
    view: &R::View,
    seat: Seat,
    table: &Table<R::Options>,
    budget: u32,
    played: &Value,
    seed: &Seed,
) -> Result<Weighing, BotError> {
    let draw = |rng: &mut crate::engine::GameRng| R::sample(view, seat, table, rng);
    let (decision, played) = run::<R>(
        draw,
        seat,
        table.seats,
        budget,
        Pick::Best,
        seed,
        Some(played),
    )?;
    Ok(Weighing { decision, played })
}

/// Weighs `played` with everything known: every playout starts from `state` itself (every
/// card where it was); only the chance still to come is drawn from `seed`.
pub fn weigh_open<R: Determinize>(
    state: &R::State,
    seat: Seat,
    seats: usize,
    budget: u32,
    played: &Value,
    seed: &Seed,
) -> Result<Weighing, BotError> {
    let draw = |_: &mut crate::engine::GameRng| Ok(state.clone());
    let (decision, played) = run::<R>(draw, seat, seats, budget, Pick::Best, seed, Some(played))?;
    Ok(Weighing { decision, played })
}
