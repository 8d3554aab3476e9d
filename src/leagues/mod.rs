//! Leagues: the pure heart of a club's round robin, with no database, mail or clock.
//!
//! [`schedule`] lays out who plays whom, in which round and in which seat; [`standings`] turns
//! the results into the table (points, Sonneborn-Berger, the final tie-breaks, forfeits and
//! losses on time). Entrants are opaque ids in sign-up order. docs/LEAGUES.md says what each
//! construction guarantees.

mod finish;
mod format;
mod points;
mod round_robin;
mod seating;
mod standings;
mod tables;
#[cfg(test)]
mod tests;

pub use finish::{Finish, LeagueGame};
pub use format::{Format, Meetings, Mode, Plan};
pub use points::Points;
pub use standings::{Row, Standings, TieBreak, standings};

/// The most entrants a league takes: a two-player league of 64 is 2,016 games, and the table
/// construction's work grows with the square of the count.
pub const MAX_ENTRANTS: usize = 64;

/// Why a league could not be laid out or scored. Nothing is changed by a refusal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LeagueError {
    /// Too few or too many entrants for this format.
    #[error("this league needs {min} to {max} entrants, not {given}")]
    EntrantCount {
        min: usize,
        max: usize,
        given: usize,
    },
    /// An entrant is listed twice.
    #[error("entrant {0} is listed twice")]
    DuplicateEntrant(usize),
    /// An entrant said to have left is not in the league.
    #[error("an entrant who left is not in the league")]
    UnknownLeaver,
    /// The game is not played with this many seats, or not in this format.
    #[error("{0}")]
    Format(String),
    /// A game or result does not fit the league (unknown entrant, wrong seat count, bad places).
    #[error("game {game}: {reason}")]
    BadGame { game: usize, reason: String },
}

/// One game of the schedule: the entrants in seat order (seat 0 first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game<E> {
    /// The entrant in each seat, seat 0 first.
    pub seats: Vec<E>,
}

/// One round: games in which nobody plays twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round<E> {
    /// The round's games.
    pub games: Vec<Game<E>>,
    /// The entrants who play no game this round, in sign-up order.
    pub byes: Vec<E>,
}

/// A whole league's games, round by round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule<E> {
    /// The rounds, first to last.
    pub rounds: Vec<Round<E>>,
}

impl<E> Schedule<E> {
    /// Every game with its round number (from 0), in order.
    pub fn games(&self) -> impl Iterator<Item = (usize, &Game<E>)> {
        self.rounds
            .iter()
            .enumerate()
            .flat_map(|(r, round)| round.games.iter().map(move |g| (r, g)))
    }
}

/// Lays out a league: every game of `entrants` (ids in sign-up order) under `plan`.
///
/// Two-player formats get a round robin by the circle method; tables of three or four and
/// partnerships get the balanced table construction of docs/LEAGUES.md. Deterministic: the same
/// entrants and plan always give the same schedule.
pub fn schedule<E: Clone + PartialEq>(
    entrants: &[E],
    plan: &Plan,
) -> Result<Schedule<E>, LeagueError> {
    let n = entrants.len();
    let (min, max) = (plan.format.seats(), MAX_ENTRANTS);
    if n < min || n > max {
        return Err(LeagueError::EntrantCount { min, max, given: n });
    }
    if let Some(i) = (0..n).find(|&i| entrants[..i].contains(&entrants[i])) {
        return Err(LeagueError::DuplicateEntrant(i));
    }
    let rounds = match plan.format {
        Format::Duel { .. } => round_robin::rounds(n, plan.meetings),
        _ if plan.meetings == Meetings::Twice => {
            return Err(LeagueError::Format(
                "meeting twice with sides swapped is for two-player games".into(),
            ));
        }
        Format::Multi { seats } => seating::seat(tables::rounds(n, seats, false), n, false),
        Format::Partnership => seating::seat(tables::rounds(n, 4, true), n, true),
    };
    let id = |i: &usize| entrants[*i].clone();
    Ok(Schedule {
        rounds: rounds
            .into_iter()
            .map(|games| {
                let byes = (0..n)
                    .filter(|e| !games.iter().any(|g| g.contains(e)))
                    .map(|e| id(&e))
                    .collect();
                Round {
                    games: games
                        .iter()
                        .map(|g| Game {
                            seats: g.iter().map(id).collect(),
                        })
                        .collect(),
                    byes,
                }
            })
            .collect(),
    })
}
