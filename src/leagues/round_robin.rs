//! The two-player round robin by the circle method, seats oriented as in Berger tables.
//!
//! With `N` the entrant count made even by a bye, entrant `N-1` stays put and the others turn
//! round a circle of `d = N-1`: in round `r` the fixed entrant meets `r`, and `r+i` meets `r-i`
//! (mod `d`) for `i` from 1 to `N/2-1`. Seat 0 goes to `r+i` when `i` is odd and to `r-i` when it
//! is even, and to the fixed entrant in even rounds, which gives every entrant seat 0 in half
//! its games, rounded up or down (docs/LEAGUES.md has the count).

use super::Meetings;

/// The rounds of a round robin of `n` entrants (indices), each game its seats in order.
pub(super) fn rounds(n: usize, meetings: Meetings) -> Vec<Vec<Vec<usize>>> {
    let even = n + n % 2;
    let d = even - 1;
    let fixed = even - 1;
    let mut rounds: Vec<Vec<Vec<usize>>> = (0..d)
        .map(|r| {
            let mut games = Vec::with_capacity(even / 2);
            games.push(if r % 2 == 0 {
                vec![fixed, r]
            } else {
                vec![r, fixed]
            });
            for i in 1..even / 2 {
                let (up, down) = ((r + i) % d, (r + d - i) % d);
                games.push(if i % 2 == 1 {
                    vec![up, down]
                } else {
                    vec![down, up]
                });
            }
            games.retain(|g| g.iter().all(|&e| e < n));
            games
        })
        .collect();
    if meetings == Meetings::Twice {
        let swapped: Vec<_> = rounds
            .iter()
            .map(|games| {
                games
                    .iter()
                    .map(|g| g.iter().rev().copied().collect())
                    .collect()
            })
            .collect();
        rounds.extend(swapped);
    }
    rounds
}
