//! Determinization: from what one seat may see, a whole state in which every card hidden from
//! that seat is dealt at random among the places it could be. The bot searches such states.

use super::{GameRng, Rules, Seat};

/// What every player of a game knows besides its board: the options it was created with, how
/// many seats play and the rules version it began with. A game's page shows all three, so a
/// bot may be handed them along with its seat's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Table<O> {
    /// The options chosen at creation.
    pub options: O,
    /// The number of seats.
    pub seats: usize,
    /// The rules version the game began with.
    pub rules_version: u32,
}

/// Why a view could not be turned into a state: the view is not one the game's `view` gives
/// for a seat (a bug in the caller or the game, never a game situation).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot sample a state from this view: {0}")]
pub struct SampleError(pub String);

impl SampleError {
    /// An error with a reason.
    pub fn new(reason: impl Into<String>) -> SampleError {
        SampleError(reason.into())
    }
}

/// A game whose hidden information can be dealt afresh from one seat's view.
///
/// A trait of its own rather than a method of [`Rules`]: the search requires it in its bound,
/// so a game without a sampler cannot be given a bot (a compile error, not a stub), and the
/// rules contract every game already keeps is unchanged.
///
/// The input is the seat's view and the public [`Table`], never the state: a sampler cannot
/// read what the seat may not see, because it is never handed it. Where a game's view lacked
/// something public that a playable state needs, the view was extended with it (see
/// docs/BOTS.md).
pub trait Determinize: Rules {
    /// A full state whose view for `seat` equals `view` and in which `seat` has the same
    /// choices, with every card `seat` cannot see placed uniformly at random among the places
    /// it could be (respecting the hand sizes, deck sizes and cards already seen that the view
    /// shows), and every sealed choice of another seat drawn at random.
    fn sample(
        view: &Self::View,
        seat: Seat,
        table: &Table<Self::Options>,
        rng: &mut GameRng,
    ) -> Result<Self::State, SampleError>;

    /// The move `seat` makes in a search's playout, for a game whose random play misses what
    /// the game is about (docs/BOTS.md, "Where search alone plays badly"); `None`, the
    /// default, plays a move at random. A move the rules refuse is replaced by a random one.
    fn playout_command(
        _state: &Self::State,
        _seat: Seat,
        _rng: &mut GameRng,
    ) -> Option<Self::Command> {
        None
    }
}

/// Draws `count` cards from `pool` at random (removing them), for a sampler's deal.
pub fn deal<T>(pool: &mut Vec<T>, count: usize, rng: &mut GameRng) -> Result<Vec<T>, SampleError> {
    if count > pool.len() {
        return Err(SampleError::new(format!(
            "{count} hidden cards to place but only {} unseen",
            pool.len()
        )));
    }
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let i = rng.index(pool.len());
        out.push(pool.swap_remove(i));
    }
    Ok(out)
}

/// Removes each of `seen` from `pool` once; an error names a card seen twice or not in the
/// game.
pub fn remove_seen<T: PartialEq + std::fmt::Debug>(
    pool: &mut Vec<T>,
    seen: impl IntoIterator<Item = T>,
) -> Result<(), SampleError> {
    for card in seen {
        let at = pool
            .iter()
            .position(|c| *c == card)
            .ok_or_else(|| SampleError::new(format!("{card:?} seen twice or not in the pack")))?;
        pool.swap_remove(at);
    }
    Ok(())
}
