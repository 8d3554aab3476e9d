//! Checks every schedule must pass, and the figures docs/LEAGUES.md quotes.

use crate::leagues::{Format, Meetings, Plan, Schedule, schedule};

/// What a schedule of `n` entrants gives, once checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figures {
    /// Games per entrant (equal for all, or the fewest and most).
    pub games: (usize, usize),
    /// Rounds.
    pub rounds: usize,
    /// Fewest and most times two entrants sit at one table (partnership: as partners).
    pub together: (usize, usize),
    /// Fewest and most times two entrants are opponents in a partnership game.
    pub opposed: (usize, usize),
    /// Fewest and most games an entrant has in seat 0.
    pub first: (usize, usize),
}

/// Lays out `n` entrants (0..n) under `plan` and checks the invariants every league keeps.
pub fn checked(n: usize, plan: Plan) -> (Schedule<usize>, Figures) {
    let entrants: Vec<usize> = (0..n).collect();
    let s = schedule(&entrants, &plan).expect("a schedule");
    let k = plan.format.seats();
    let mut games = vec![0usize; n];
    let mut first = vec![0usize; n];
    let mut together = vec![vec![0usize; n]; n];
    let mut opposed = vec![vec![0usize; n]; n];
    for (r, round) in s.rounds.iter().enumerate() {
        let mut seen = vec![false; n];
        for g in &round.games {
            assert_eq!(g.seats.len(), k, "round {r}: a table of {k}: {g:?}");
            for &e in &g.seats {
                assert!(
                    !seen[e],
                    "round {r}: entrant {e} twice in the round: {round:?}"
                );
                seen[e] = true;
                games[e] += 1;
            }
            first[g.seats[0]] += 1;
            for (i, &a) in g.seats.iter().enumerate() {
                for (j, &b) in g.seats.iter().enumerate() {
                    if i == j {
                        continue;
                    }
                    if plan.format.partner(i) == Some(j) || plan.format != Format::Partnership {
                        together[a][b] += 1;
                    } else {
                        opposed[a][b] += 1;
                    }
                }
            }
        }
        let byes: Vec<usize> = (0..n).filter(|&e| !seen[e]).collect();
        assert_eq!(
            round.byes, byes,
            "round {r}: the byes are those without a game"
        );
    }
    let pairs = |m: &Vec<Vec<usize>>| {
        let all = (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)));
        let v: Vec<usize> = all.map(|(a, b)| m[a][b]).collect();
        (*v.iter().min().unwrap(), *v.iter().max().unwrap())
    };
    let span = |v: &Vec<usize>| (*v.iter().min().unwrap(), *v.iter().max().unwrap());
    let figures = Figures {
        games: span(&games),
        rounds: s.rounds.len(),
        together: pairs(&together),
        opposed: pairs(&opposed),
        first: span(&first),
    };
    assert!(
        figures.games.1 - figures.games.0 <= 1,
        "{n}: game counts {games:?}"
    );
    assert!(
        figures.together.0 >= 1,
        "{n}: some pair never meets: {together:?}"
    );
    if let Format::Duel { .. } = plan.format {
        let times = if plan.meetings == Meetings::Twice {
            2
        } else {
            1
        };
        assert_eq!(
            figures.together,
            (times, times),
            "{n}: each pair meets {times}"
        );
        assert_eq!(figures.games, (times * (n - 1), times * (n - 1)));
        for e in 0..n {
            let second = games[e] - first[e];
            assert!(
                first[e].abs_diff(second) <= 2 - times,
                "{n}: {e} first {first:?}"
            );
        }
    }
    (s, figures)
}
