//! Leagues with sides swapped, tables of three and partnerships: schedules and tables worked
//! by hand, and each hosted game's league format.

use super::check::{Figures, checked};
use crate::engine::Outcome;
use crate::games::find_game;
use crate::leagues::{
    Finish, Format, LeagueGame, Meetings, Mode, Plan, TieBreak, schedule, standings,
};
use serde_json::json;

#[test]
fn four_entrants_meet_twice_with_sides_swapped() {
    let plan = Plan {
        format: Format::Duel { sides: true },
        meetings: Meetings::Twice,
    };
    let s = schedule(&["ann", "ben", "cat", "dan"], &plan).unwrap();
    let seats: Vec<Vec<[&str; 2]>> = s
        .rounds
        .iter()
        .map(|r| r.games.iter().map(|g| [g.seats[0], g.seats[1]]).collect())
        .collect();
    // The single round robin, then the same rounds with the Suffragist (seat 0) and the
    // Opposition swapped.
    assert_eq!(
        seats,
        vec![
            vec![["dan", "ann"], ["ben", "cat"]],
            vec![["ben", "dan"], ["cat", "ann"]],
            vec![["dan", "cat"], ["ann", "ben"]],
            vec![["ann", "dan"], ["cat", "ben"]],
            vec![["dan", "ben"], ["ann", "cat"]],
            vec![["cat", "dan"], ["ben", "ann"]],
        ]
    );
    let (_, f) = checked(4, plan);
    assert_eq!((f.games, f.together, f.first), ((6, 6), (2, 2), (3, 3)));
}

#[test]
fn statehood_league_of_seven() {
    let three = Plan {
        format: Format::Multi { seats: 3 },
        meetings: Meetings::Once,
    };
    let (s, f) = checked(7, three);
    // Seven entrants at tables of three: 7 * g must be a multiple of 3, and each entrant needs
    // 3 games to meet 6 others; 3 games leave a pair apart, so 6 games each, two tables a
    // round and one entrant sitting out, in 7 rounds; each pair meets one to three times.
    assert_eq!(
        f,
        Figures {
            games: (6, 6),
            rounds: 7,
            together: (1, 3),
            opposed: (0, 0),
            first: (1, 3),
        }
    );
    assert!(
        s.rounds
            .iter()
            .all(|r| r.games.len() == 2 && r.byes.len() == 1)
    );
    let four = Plan {
        format: Format::Multi { seats: 4 },
        ..three
    };
    let (s, f) = checked(7, four);
    // At tables of four: 4 games each (7 * 4 is a multiple of 4), one table a round.
    assert_eq!((f.games, f.rounds, f.together), ((4, 4), 7, (1, 3)));
    assert!(
        s.rounds
            .iter()
            .all(|r| r.games.len() == 1 && r.byes.len() == 3)
    );

    let seven = [0, 1, 2, 3, 4, 5, 6];
    let ended = |winners: Vec<usize>, scores: Vec<i64>| Outcome {
        winners,
        scores,
        reason: String::new(),
    };
    let format = three.format;
    let games = [
        // 1 wins; 0 and 2 end equal on 10: places [2, 1, 2].
        LeagueGame {
            seats: vec![0, 1, 2],
            finish: Some(Finish::from_outcome(
                &ended(vec![1], vec![10, 30, 10]),
                format,
            )),
        },
        // 0 (seat 2) wins, 4 second on 20, 3 last: places [3, 2, 1].
        LeagueGame {
            seats: vec![3, 4, 0],
            finish: Some(Finish::from_outcome(
                &ended(vec![2], vec![5, 20, 25]),
                format,
            )),
        },
        // 6 runs out of time: 6 loses to 5 and to 1; 5 and 1 have no result.
        LeagueGame {
            seats: vec![5, 6, 1],
            finish: Some(Finish::TimedOut(1)),
        },
    ];
    assert_eq!(games[0].finish, Some(Finish::Places(vec![2, 1, 2])));
    assert_eq!(games[1].finish, Some(Finish::Places(vec![3, 2, 1])));
    let table = standings(&seven, &[], format, &games).unwrap();
    // A point per opponent beaten, ½ per opponent with the same place:
    //   1: beats 0, 2, 6 = 3        SB: 0's 2½ + 2's ½ + 6's 0 = 3
    //   0: draws 2, beats 4, 3 = 2½ SB: ½ of 2's ½ + 4's 1 + 3's 0 = 1¼
    //   4: beats 3 = 1              SB: 0
    //   5: beats 6 = 1              SB: 0 -> equal with 4 on SB and wins: 4 signed up first
    //   2: draws 0 = ½              SB: ½ of 0's 2½ = 1¼
    //   3: 0, 6: 0                  SB: 0 -> 3 signed up first
    let lines: Vec<_> = table
        .rows
        .iter()
        .map(|r| {
            (
                r.entrant,
                r.points.to_string(),
                r.sonneborn_berger.to_string(),
                r.tie_break,
            )
        })
        .collect();
    let signup = Some(TieBreak::SignUp);
    assert_eq!(
        lines,
        vec![
            (1, "3".into(), "3".into(), None),
            (0, "2½".into(), "1¼".into(), None),
            (4, "1".into(), "0".into(), None),
            (5, "1".into(), "0".into(), signup),
            (2, "½".into(), "1¼".into(), None),
            (3, "0".into(), "0".into(), None),
            (6, "0".into(), "0".into(), signup),
        ]
    );
    assert_eq!(table.lost_on_time_at_least(1), vec![&6]);
}

#[test]
fn whitehouse_league_of_eight() {
    let plan = Plan {
        format: Format::Partnership,
        meetings: Meetings::Once,
    };
    let (s, f) = checked(8, plan);
    // Every entrant partners each of the other seven exactly once: 7 rounds of two tables,
    // nobody sitting out; a pair are opponents one to three times.
    assert_eq!(
        (f.games, f.rounds, f.together, f.opposed),
        ((7, 7), 7, (1, 1), (1, 3))
    );
    assert!(
        s.rounds
            .iter()
            .all(|r| r.games.len() == 2 && r.byes.is_empty())
    );

    let eight = [0, 1, 2, 3, 4, 5, 6, 7];
    let format = plan.format;
    let won = |winners: Vec<usize>| {
        let outcome = Outcome {
            winners,
            scores: vec![7, 3, 7, 3],
            reason: String::new(),
        };
        Some(Finish::from_outcome(&outcome, format))
    };
    let games = [
        // North-South (0 and 2) beat East-West (1 and 3).
        LeagueGame {
            seats: vec![0, 1, 2, 3],
            finish: won(vec![0, 2]),
        },
        // 5 (East) runs out of time: 5 and partner 7 lose to 4 and 6.
        LeagueGame {
            seats: vec![4, 5, 6, 7],
            finish: Some(Finish::TimedOut(1)),
        },
        // 0 and 1 (North-South) beat 4 and 5.
        LeagueGame {
            seats: vec![0, 4, 1, 5],
            finish: won(vec![0, 2]),
        },
    ];
    // Places as in sport: equal places share, the next skips.
    assert_eq!(games[0].finish, Some(Finish::Places(vec![1, 3, 1, 3])));
    let table = standings(&eight, &[], format, &games).unwrap();
    // A partnership win beats both opponents: 2 points to each partner.
    //   0: beats 1, 3, 4, 5 = 4     SB: 1's 2 + 3's 0 + 4's 2 + 5's 0 = 4
    //   1: beats 4, 5 = 2           SB: 4's 2 + 5's 0 = 2
    //   2: beats 1, 3 = 2           SB: 1's 2 = 2    -> equal with 1: 1 signed up first
    //   4: beats 5, 7 = 2           SB: 0            -> below 2 on SB
    //   6: beats 5, 7 = 2           SB: 0            -> equal with 4: sign-up
    //   3, 5, 7: 0                                   -> sign-up
    let lines: Vec<_> = table
        .rows
        .iter()
        .map(|r| {
            (
                r.entrant,
                r.points.to_string(),
                r.sonneborn_berger.to_string(),
                r.tie_break,
            )
        })
        .collect();
    let signup = Some(TieBreak::SignUp);
    assert_eq!(
        lines,
        vec![
            (0, "4".into(), "4".into(), None),
            (1, "2".into(), "2".into(), None),
            (2, "2".into(), "2".into(), signup),
            (4, "2".into(), "0".into(), Some(TieBreak::SonnebornBerger)),
            (6, "2".into(), "0".into(), signup),
            (3, "0".into(), "0".into(), None),
            (5, "0".into(), "0".into(), signup),
            (7, "0".into(), "0".into(), signup),
        ]
    );
    // Only the seat whose time ran out counts a loss on time, not its partner.
    let on_time: Vec<(usize, u32)> = table
        .rows
        .iter()
        .map(|r| (r.entrant, r.lost_on_time))
        .collect();
    assert!(on_time.iter().all(|&(e, n)| n == u32::from(e == 5)));
    let draw = Outcome {
        winners: vec![],
        scores: vec![0; 4],
        reason: String::new(),
    };
    assert_eq!(
        Finish::from_outcome(&draw, format),
        Finish::Places(vec![1; 4])
    );
}

#[test]
fn each_hosted_game_has_its_league_format() {
    let of = |id: &str, seats: usize, options: serde_json::Value| {
        let game = find_game(id).unwrap();
        Format::of_game(game, seats, &options)
    };
    assert_eq!(
        of("votes-for-women", 2, json!({})),
        Ok(Format::Duel { sides: true })
    );
    assert_eq!(
        of("electoral-combat", 2, json!({})),
        Ok(Format::Duel { sides: false })
    );
    assert_eq!(
        of("nationhood", 2, json!({})),
        Ok(Format::Duel { sides: false })
    );
    assert_eq!(
        of("statehood", 3, json!({})),
        Ok(Format::Multi { seats: 3 })
    );
    assert_eq!(
        of("statehood", 4, json!({})),
        Ok(Format::Multi { seats: 4 })
    );
    assert_eq!(of("whitehouse", 4, json!({})), Ok(Format::Partnership));
    let solo = find_game("whitehouse").unwrap().default_options();
    let mut solo = solo.clone();
    solo["partnership"] = json!(false);
    assert_eq!(of("whitehouse", 4, solo), Ok(Format::Multi { seats: 4 }));
    assert!(of("statehood", 5, json!({})).is_err());
    assert!(of("whitehouse", 3, json!({})).is_err());
}

#[test]
fn rounds_open_one_by_one_or_all_at_once() {
    assert_eq!(Mode::Sequential.open_rounds(&[false, false, false]), 1);
    assert_eq!(Mode::Sequential.open_rounds(&[true, false, false]), 2);
    assert_eq!(Mode::Sequential.open_rounds(&[true, true, true]), 3);
    assert_eq!(Mode::AllAtOnce.open_rounds(&[false, false, false]), 3);
}
