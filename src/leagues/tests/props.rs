//! Property tests over entrant counts 2 to 16: every schedule keeps the league's invariants
//! (checked in `check`), and every table adds up whatever the results.

use super::check::checked;
use crate::leagues::{
    Finish, Format, LeagueError, LeagueGame, Meetings, Plan, TieBreak, schedule, standings,
};
use proptest::prelude::*;

fn plans() -> impl Strategy<Value = Plan> {
    prop_oneof![
        (any::<bool>(), any::<bool>()).prop_map(|(sides, twice)| Plan {
            format: Format::Duel { sides },
            meetings: if twice {
                Meetings::Twice
            } else {
                Meetings::Once
            },
        }),
        (3usize..=4).prop_map(|seats| Plan {
            format: Format::Multi { seats },
            meetings: Meetings::Once,
        }),
        Just(Plan {
            format: Format::Partnership,
            meetings: Meetings::Once,
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Counts equal or within one, nobody twice at a table or in a round, every pair met; too
    /// few entrants refused.
    #[test]
    fn schedules_keep_their_invariants(n in 2usize..=16, plan in plans()) {
        if n < plan.format.seats() {
            let entrants: Vec<usize> = (0..n).collect();
            prop_assert_eq!(
                schedule(&entrants, &plan),
                Err(LeagueError::EntrantCount { min: plan.format.seats(), max: 64, given: n })
            );
        } else {
            checked(n, plan);
        }
    }

    /// Whatever the results, leavers and timeouts: a point per result shared out, every
    /// entrant once, places 1 to n, the order by points, then Sonneborn-Berger, then wins.
    #[test]
    fn tables_add_up(
        n in 4usize..=16,
        plan in plans(),
        draws in proptest::collection::vec(0u32..8, 400),
        leavers in proptest::collection::vec(any::<bool>(), 16),
    ) {
        let entrants: Vec<usize> = (0..n).collect();
        let s = schedule(&entrants, &plan).unwrap();
        let k = plan.format.seats();
        let games: Vec<LeagueGame<usize>> = s
            .games()
            .enumerate()
            .map(|(i, (_, g))| {
                let d = draws[i % draws.len()] as usize;
                let finish = match d {
                    0 | 1 => None,
                    2 => Some(Finish::TimedOut(i % k)),
                    _ => Some(Finish::Places(
                        (0..k)
                            .map(|seat| {
                                let seat = plan.format.partner(seat).map_or(seat, |p| p.min(seat));
                                1 + ((seat + d + i) % k) as u32 % (d as u32 % 3 + 1)
                            })
                            .collect(),
                    )),
                };
                LeagueGame { seats: g.seats.clone(), finish }
            })
            .collect();
        let left: Vec<usize> = (0..n).filter(|&e| leavers[e] && e % 3 == 0).collect();
        let table = standings(&entrants, &left, plan.format, &games).unwrap();
        prop_assert_eq!(table.rows.len(), n);
        let quarters: u64 = table.rows.iter().map(|r| r.points.quarters()).sum();
        let results: u32 = table.rows.iter().map(|r| r.wins + r.draws + r.losses).sum();
        prop_assert_eq!(quarters, 2 * results as u64);
        let wins: u32 = table.rows.iter().map(|r| r.wins).sum();
        let losses: u32 = table.rows.iter().map(|r| r.losses).sum();
        prop_assert_eq!(wins, losses);
        for (i, pair) in table.rows.windows(2).enumerate() {
            let (a, b) = (&pair[0], &pair[1]);
            prop_assert_eq!(a.place, i + 1);
            let ka = (a.points, a.sonneborn_berger, a.wins);
            let kb = (b.points, b.sonneborn_berger, b.wins);
            prop_assert!(ka > kb || (ka == kb && a.entrant < b.entrant));
            prop_assert_eq!(b.tie_break == Some(TieBreak::SignUp), ka == kb);
        }
        for row in &table.rows {
            prop_assert_eq!(row.left, left.contains(&row.entrant));
            prop_assert!(row.forfeited == 0 || row.left);
        }
    }
}
