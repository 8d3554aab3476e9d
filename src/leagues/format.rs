//! What kind of league: how many sit at a table, whether seats differ, how often pairs meet and
//! whether rounds follow one another.

use super::LeagueError;
use crate::engine::{DynGame, Seed};
use serde_json::Value;

/// How a game seats its players, as far as a league cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One against one. `sides`: the two seats are different sides (Votes for Women's
    /// Suffragist and Opposition); otherwise seat 0 only moves first.
    Duel { sides: bool },
    /// Three or four seats, each for themselves (Statehood), ranked by final place.
    Multi { seats: usize },
    /// Four seats in two partnerships, seats 0 and 2 against 1 and 3 (Whitehouse).
    Partnership,
}

impl Format {
    /// The seats at each table.
    pub fn seats(self) -> usize {
        match self {
            Format::Duel { .. } => 2,
            Format::Multi { seats } => seats,
            Format::Partnership => 4,
        }
    }

    /// The seat's partner, in a partnership game.
    pub fn partner(self, seat: usize) -> Option<usize> {
        (self == Format::Partnership).then_some((seat + 2) % 4)
    }

    /// The format of `game` played with `seats` seats and `options`, read from the game
    /// itself: a two-seat game whose seats have names has sides; a game whose seat 0 has a
    /// partner is a partnership game.
    pub fn of_game(
        game: &dyn DynGame,
        seats: usize,
        options: &Value,
    ) -> Result<Format, LeagueError> {
        let name = game.name();
        let (min, max) = game.seat_counts();
        if seats < min.max(2) || seats > max || seats > 4 {
            return Err(LeagueError::Format(format!(
                "{name} is not played by {seats} in a league"
            )));
        }
        let probe = game
            .new_match(options, seats, Seed::from_number(0))
            .map_err(|e| LeagueError::Format(e.to_string()))?;
        let partners = probe.partners(0);
        if seats == 2 {
            Ok(Format::Duel {
                sides: game.seat_role(0, 2).is_some(),
            })
        } else if partners.is_empty() {
            Ok(Format::Multi { seats })
        } else if seats == 4 && partners == [2] {
            Ok(Format::Partnership)
        } else {
            Err(LeagueError::Format(format!(
                "{name}'s partnerships are not two pairs across the table"
            )))
        }
    }
}

/// How often each pair of a two-player league meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meetings {
    /// Once; seat 0 (first player or first side) shared out as evenly as the count allows.
    Once,
    /// Twice, the second time with seats swapped. Two-player games only.
    Twice,
}

/// Whether rounds are played one after another or all at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A round's games start when every game of the rounds before has ended.
    Sequential,
    /// Every game starts when the league starts.
    AllAtOnce,
}

impl Mode {
    /// How many rounds, from the first, may have their games started, given whether each
    /// round (in order) has ended: all of them at once, or up to the first unfinished round.
    pub fn open_rounds(self, ended: &[bool]) -> usize {
        match self {
            Mode::AllAtOnce => ended.len(),
            Mode::Sequential => ended
                .iter()
                .position(|done| !done)
                .map_or(ended.len(), |first| first + 1),
        }
    }
}

/// The settings a league is laid out from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// How the game seats its players.
    pub format: Format,
    /// Once or twice (two-player games only).
    pub meetings: Meetings,
}
