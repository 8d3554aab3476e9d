//! How one league game ended, and the results between its players that it gives.

use super::{Format, LeagueError};
use crate::engine::Outcome;

/// How a league game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    /// Played to its end: each seat's final place, 1 the best; equal places tie. Partners
    /// share their place.
    Places(Vec<u32>),
    /// The seat's time ran out: it (with its partner) loses to every opponent, and the game
    /// gives no other result.
    TimedOut(usize),
}

impl Finish {
    /// The places of a game the rules ended: the winners first; a two-player or partnership
    /// game without winners is a draw; the other seats of a game of three or four by final
    /// score, equal scores tying.
    pub fn from_outcome(outcome: &Outcome, format: Format) -> Finish {
        let won = |s: usize| outcome.winners.contains(&s);
        let better = |t: usize, s: usize| match format {
            Format::Multi { .. } => {
                (won(t) && !won(s))
                    || (!won(t) && !won(s) && outcome.scores.get(t) > outcome.scores.get(s))
            }
            _ => won(t) && !won(s),
        };
        let seats = format.seats();
        Finish::Places(
            (0..seats)
                .map(|s| 1 + (0..seats).filter(|&t| better(t, s)).count() as u32)
                .collect(),
        )
    }
}

/// One game of a league as the table reads it: its entrants in seat order and, once it
/// ended, how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeagueGame<E> {
    /// The entrant in each seat.
    pub seats: Vec<E>,
    /// How it ended; `None` while it is to be played (or was never finished).
    pub finish: Option<Finish>,
}

/// One result between two seats of a game: one beat the other, or they drew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pairing {
    pub a: usize,
    pub b: usize,
    /// `Some(true)`: `a` won; `Some(false)`: `b` won; `None`: a draw.
    pub a_won: Option<bool>,
}

/// The results a game gives between its seats: every opponent pair by places, or every
/// forfeiting seat (with its partner) losing to each opponent. Seats are returned, not
/// entrants.
pub(super) fn pairings(
    format: Format,
    finish: &Finish,
    game: usize,
) -> Result<Vec<Pairing>, LeagueError> {
    let k = format.seats();
    let bad = |reason: String| LeagueError::BadGame { game, reason };
    let opposed = |a: usize, b: usize| format.partner(a) != Some(b);
    match finish {
        Finish::Places(places) => {
            if places.len() != k || places.iter().any(|&p| p == 0 || p as usize > k) {
                return Err(bad(format!(
                    "places {places:?} are not {k} places from 1 to {k}"
                )));
            }
            if (0..k).any(|s| format.partner(s).is_some_and(|p| places[p] != places[s])) {
                return Err(bad("partners must share their place".into()));
            }
            let mut all = Vec::new();
            for a in 0..k {
                for b in (a + 1..k).filter(|&b| opposed(a, b)) {
                    let a_won = (places[a] != places[b]).then(|| places[a] < places[b]);
                    all.push(Pairing { a, b, a_won });
                }
            }
            Ok(all)
        }
        Finish::TimedOut(seat) if *seat >= k => {
            Err(bad(format!("seat {seat} is not one of the {k} seats")))
        }
        Finish::TimedOut(seat) => Ok(forfeits(format, &[*seat])),
    }
}

/// The results of a game the `losers` (seats) forfeit: each of them, with their partners, loses
/// to every other opponent. None if both partnerships forfeit.
pub(super) fn forfeits(format: Format, losers: &[usize]) -> Vec<Pairing> {
    let k = format.seats();
    let lost =
        |s: usize| losers.contains(&s) || format.partner(s).is_some_and(|p| losers.contains(&p));
    let mut all = Vec::new();
    for a in (0..k).filter(|&a| lost(a)) {
        for b in (0..k).filter(|&b| !lost(b) && format.partner(a) != Some(b)) {
            all.push(Pairing {
                a,
                b,
                a_won: Some(false),
            });
        }
    }
    all
}
