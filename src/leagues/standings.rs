//! The results table: points, Sonneborn-Berger, the final tie-breaks, forfeits of entrants who
//! left, and losses on time.
//!
//! Every game counts as the results between its opponents, two by two: beating an opponent is
//! 1 point, a draw ½, a loss 0. Sonneborn-Berger adds, over those results, the final points of
//! each opponent beaten and half those of each opponent drawn with.

use super::finish::{Pairing, forfeits, pairings};
use super::{Finish, Format, LeagueError, LeagueGame, Points};
use std::cmp::Reverse;
use std::collections::HashMap;
use std::hash::Hash;

/// What separated a row from the row above it on equal points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// A higher Sonneborn-Berger score.
    SonnebornBerger,
    /// Equal Sonneborn-Berger, more opponents beaten.
    Wins,
    /// Equal on all of those: the earlier sign-up.
    SignUp,
}

/// One entrant's line in the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<E> {
    /// Who.
    pub entrant: E,
    /// The place in the table, from 1; every row has its own.
    pub place: usize,
    /// Points: 1 for each opponent beaten, ½ for each draw.
    pub points: Points,
    /// The Sonneborn-Berger score.
    pub sonneborn_berger: Points,
    /// Games with a result, forfeits included.
    pub played: u32,
    /// Games still to play.
    pub pending: u32,
    /// Opponents beaten (in a game of two, games won).
    pub wins: u32,
    /// Opponents drawn with.
    pub draws: u32,
    /// Opponents lost to.
    pub losses: u32,
    /// Games forfeited by leaving the league.
    pub forfeited: u32,
    /// Games lost because the entrant's own time ran out.
    pub lost_on_time: u32,
    /// The entrant left the league; their remaining games are forfeited.
    pub left: bool,
    /// On points equal to the row above, what put this row below it.
    pub tie_break: Option<TieBreak>,
}

/// The table of a league, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standings<E> {
    /// One row per entrant, in table order.
    pub rows: Vec<Row<E>>,
}

impl<E> Standings<E> {
    /// The entrants who lost on time at least `limit` times: those a club refuses entry to its
    /// next league when its limit is `limit`.
    pub fn lost_on_time_at_least(&self, limit: u32) -> Vec<&E> {
        self.rows
            .iter()
            .filter(|r| r.lost_on_time >= limit)
            .map(|r| &r.entrant)
            .collect()
    }
}

/// The table of a league of `entrants` (in sign-up order) in `format`, of whom `left` have
/// left, from its `games`. A game without a result in which an entrant who left sits is
/// forfeited by them; a played result stands.
pub fn standings<E: Clone + Eq + Hash>(
    entrants: &[E],
    left: &[E],
    format: Format,
    games: &[LeagueGame<E>],
) -> Result<Standings<E>, LeagueError> {
    let index: HashMap<&E, usize> = entrants.iter().enumerate().map(|(i, e)| (e, i)).collect();
    if index.len() != entrants.len() {
        let dup = (0..entrants.len()).find(|&i| entrants[..i].contains(&entrants[i]));
        return Err(LeagueError::DuplicateEntrant(dup.unwrap_or(0)));
    }
    if left.iter().any(|e| !index.contains_key(e)) {
        return Err(LeagueError::UnknownLeaver);
    }
    let gone: Vec<bool> = entrants.iter().map(|e| left.contains(e)).collect();
    let mut rows: Vec<Tally> = vec![Tally::default(); entrants.len()];
    let mut results: Vec<(usize, usize, Option<bool>)> = Vec::new();
    for (g, game) in games.iter().enumerate() {
        let seats = seat_indices(&index, format, game, g)?;
        let pairs: Vec<Pairing> = match &game.finish {
            Some(finish) => {
                let pairs = pairings(format, finish, g)?;
                if let Finish::TimedOut(s) = finish {
                    rows[seats[*s]].lost_on_time += 1;
                }
                pairs
            }
            None => {
                let leavers: Vec<usize> = (0..seats.len()).filter(|&s| gone[seats[s]]).collect();
                if leavers.is_empty() {
                    seats.iter().for_each(|&e| rows[e].pending += 1);
                    continue;
                }
                leavers.iter().for_each(|&s| rows[seats[s]].forfeited += 1);
                forfeits(format, &leavers)
            }
        };
        if !pairs.is_empty() {
            seats.iter().for_each(|&e| rows[e].played += 1);
        }
        results.extend(pairs.iter().map(|p| (seats[p.a], seats[p.b], p.a_won)));
    }
    for &(a, b, a_won) in &results {
        let (winner, loser) = match a_won {
            Some(true) => (a, b),
            Some(false) => (b, a),
            None => {
                rows[a].draws += 1;
                rows[b].draws += 1;
                continue;
            }
        };
        rows[winner].wins += 1;
        rows[loser].losses += 1;
    }
    let points: Vec<Points> = rows
        .iter()
        .map(|t| Points::from_halves(2 * t.wins as u64 + t.draws as u64))
        .collect();
    let mut sb = vec![Points::ZERO; entrants.len()];
    for &(a, b, a_won) in &results {
        match a_won {
            Some(true) => sb[a] += points[b],
            Some(false) => sb[b] += points[a],
            None => {
                sb[a] += points[b].half();
                sb[b] += points[a].half();
            }
        }
    }
    let key = |e: usize| (Reverse(points[e]), Reverse(sb[e]), Reverse(rows[e].wins), e);
    let mut order: Vec<usize> = (0..entrants.len()).collect();
    order.sort_by_key(|&e| key(e));
    let rows = order
        .iter()
        .enumerate()
        .map(|(place, &e)| {
            let above = place.checked_sub(1).map(|p| order[p]);
            let tie_break = above.filter(|&a| points[a] == points[e]).map(|a| {
                if sb[a] != sb[e] {
                    TieBreak::SonnebornBerger
                } else if rows[a].wins != rows[e].wins {
                    TieBreak::Wins
                } else {
                    TieBreak::SignUp
                }
            });
            let t = &rows[e];
            Row {
                entrant: entrants[e].clone(),
                place: place + 1,
                points: points[e],
                sonneborn_berger: sb[e],
                played: t.played,
                pending: t.pending,
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                forfeited: t.forfeited,
                lost_on_time: t.lost_on_time,
                left: gone[e],
                tie_break,
            }
        })
        .collect();
    Ok(Standings { rows })
}

/// Counts kept per entrant while the table is built.
#[derive(Debug, Clone, Default)]
struct Tally {
    played: u32,
    pending: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    forfeited: u32,
    lost_on_time: u32,
}

/// The game's entrants as indices, refused unless they are the format's count of distinct
/// entrants of the league.
fn seat_indices<E: Eq + Hash>(
    index: &HashMap<&E, usize>,
    format: Format,
    game: &LeagueGame<E>,
    g: usize,
) -> Result<Vec<usize>, LeagueError> {
    let bad = |reason: &str| LeagueError::BadGame {
        game: g,
        reason: reason.into(),
    };
    if game.seats.len() != format.seats() {
        return Err(bad("its seat count is not the league's"));
    }
    let seats: Vec<usize> = game
        .seats
        .iter()
        .map(|e| {
            index
                .get(e)
                .copied()
                .ok_or_else(|| bad("a seat's entrant is not in the league"))
        })
        .collect::<Result<_, _>>()?;
    if (0..seats.len()).any(|i| seats[..i].contains(&seats[i])) {
        return Err(bad("an entrant sits twice at it"));
    }
    Ok(seats)
}
