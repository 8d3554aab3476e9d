//! Two-player leagues worked by hand: a round robin of six with its table and tie-breaks, a
//! league with forfeits after a member left, and a tie settled by wins.

use crate::leagues::{
    Finish, Format, LeagueGame, Meetings, Plan, Points, Row, Schedule, TieBreak, schedule,
    standings,
};

const DUEL: Format = Format::Duel { sides: false };
const ONCE: Plan = Plan {
    format: DUEL,
    meetings: Meetings::Once,
};

/// `x` beat `y` ('W'), drew ('D'), or `y` ran out of time against `x` ('T').
fn play(
    s: &Schedule<&'static str>,
    results: &[(&'static str, &'static str, char)],
) -> Vec<LeagueGame<&'static str>> {
    s.games()
        .map(|(_, g)| {
            let found = results
                .iter()
                .find(|(x, y, _)| g.seats.contains(x) && g.seats.contains(y));
            let finish = found.map(|&(x, _, how)| {
                let x_seat = if g.seats[0] == x { 0 } else { 1 };
                match how {
                    'W' if x_seat == 0 => Finish::Places(vec![1, 2]),
                    'W' => Finish::Places(vec![2, 1]),
                    'D' => Finish::Places(vec![1, 1]),
                    _ => Finish::TimedOut(1 - x_seat),
                }
            });
            LeagueGame {
                seats: g.seats.clone(),
                finish,
            }
        })
        .collect()
}

fn line(r: &Row<&'static str>) -> (&'static str, String, String, Option<TieBreak>) {
    (
        r.entrant,
        r.points.to_string(),
        r.sonneborn_berger.to_string(),
        r.tie_break,
    )
}

#[test]
fn six_entrants_round_robin() {
    let six = ["ann", "ben", "cat", "dan", "eve", "fay"];
    let s = schedule(&six, &ONCE).unwrap();
    // The circle method with fay (index 5) fixed and the rest on a circle of 5:
    // round r: fay against r, then r+1 v r-1 (r+1 in seat 0) and r-2 v r+2 (r-2 in seat 0).
    let seats: Vec<Vec<[&str; 2]>> = s
        .rounds
        .iter()
        .map(|r| r.games.iter().map(|g| [g.seats[0], g.seats[1]]).collect())
        .collect();
    assert_eq!(
        seats,
        vec![
            vec![["fay", "ann"], ["ben", "eve"], ["dan", "cat"]],
            vec![["ben", "fay"], ["cat", "ann"], ["eve", "dan"]],
            vec![["fay", "cat"], ["dan", "ben"], ["ann", "eve"]],
            vec![["dan", "fay"], ["eve", "cat"], ["ben", "ann"]],
            vec![["fay", "eve"], ["ann", "dan"], ["cat", "ben"]],
        ]
    );
    // Seat 0: ben, dan and fay three times, ann, cat and eve twice.
    let results = [
        ("ann", "ben", 'W'),
        ("ann", "cat", 'W'),
        ("ann", "dan", 'W'),
        ("ann", "eve", 'W'),
        ("ann", "fay", 'D'),
        ("ben", "cat", 'W'),
        ("ben", "dan", 'D'),
        ("ben", "eve", 'D'),
        ("ben", "fay", 'W'),
        ("cat", "dan", 'W'),
        ("cat", "eve", 'W'),
        ("cat", "fay", 'W'),
        ("dan", "eve", 'D'),
        ("dan", "fay", 'T'),
        ("eve", "fay", 'T'),
    ];
    let table = standings(&six, &[], DUEL, &play(&s, &results)).unwrap();
    // Points: ann 4 wins + a draw = 4½; ben wins cat, fay + draws dan, eve = 3;
    // cat wins dan, eve, fay = 3; dan draws ben, eve + wins fay = 2; eve likewise = 2;
    // fay draws ann = ½.
    // Sonneborn-Berger (points of those beaten, half of those drawn with):
    //   ann: ben 3 + cat 3 + dan 2 + eve 2 + ½ of fay's ½ = 10¼
    //   ben: cat 3 + fay ½ + ½ of dan's 2 + ½ of eve's 2 = 5½
    //   cat: dan 2 + eve 2 + fay ½ = 4½      -> ben above cat on SB (cat has more wins)
    //   dan: fay ½ + ½ of ben's 3 + ½ of eve's 2 = 3
    //   eve: fay ½ + ½ of ben's 3 + ½ of dan's 2 = 3
    //                                          -> dan and eve equal on SB and on wins (1):
    //                                             dan signed up first
    //   fay: ½ of ann's 4½ = 2¼
    let lines: Vec<_> = table.rows.iter().map(line).collect();
    let sb = Some(TieBreak::SonnebornBerger);
    let signup = Some(TieBreak::SignUp);
    assert_eq!(
        lines,
        vec![
            ("ann", "4½".into(), "10¼".into(), None),
            ("ben", "3".into(), "5½".into(), None),
            ("cat", "3".into(), "4½".into(), sb),
            ("dan", "2".into(), "3".into(), None),
            ("eve", "2".into(), "3".into(), signup),
            ("fay", "½".into(), "2¼".into(), None),
        ]
    );
    let fay = &table.rows[5];
    assert_eq!(
        (fay.wins, fay.draws, fay.losses, fay.lost_on_time),
        (0, 1, 4, 2)
    );
    assert_eq!(table.rows[2].wins, 3);
    assert!(
        table
            .rows
            .iter()
            .all(|r| r.played == 5 && r.pending == 0 && !r.left)
    );
    assert_eq!(table.lost_on_time_at_least(2), vec![&"fay"]);
    assert!(table.lost_on_time_at_least(3).is_empty());
}

#[test]
fn a_member_who_leaves_forfeits_the_rest() {
    let four = ["ann", "ben", "cat", "dan"];
    let s = schedule(&four, &ONCE).unwrap();
    // Round 1: dan v ann, ben v cat; round 2: ben v dan, cat v ann; round 3: dan v cat,
    // ann v ben.
    let pairs: Vec<Vec<[&str; 2]>> = s
        .rounds
        .iter()
        .map(|r| r.games.iter().map(|g| [g.seats[0], g.seats[1]]).collect())
        .collect();
    assert_eq!(
        pairs,
        vec![
            vec![["dan", "ann"], ["ben", "cat"]],
            vec![["ben", "dan"], ["cat", "ann"]],
            vec![["dan", "cat"], ["ann", "ben"]],
        ]
    );
    // Round 1 is played (dan beats ann, ben beats cat), then dan leaves; ann beats ben in
    // round 3; cat v ann is still being played.
    let games = play(
        &s,
        &[
            ("dan", "ann", 'W'),
            ("ben", "cat", 'W'),
            ("ann", "ben", 'W'),
        ],
    );
    let table = standings(&four, &["dan"], DUEL, &games).unwrap();
    // dan's two unplayed games are forfeits: ben and cat each beat dan.
    // Points: ben (cat, dan) 2; ann (ben) 1; cat (dan) 1; dan (ann, played before he left) 1.
    // SB: ben: cat 1 + dan 1 = 2; ann: ben 2 = 2; cat: dan 1 = 1; dan: ann 1 = 1.
    // ann above cat and dan on SB; cat and dan equal on SB and wins: cat signed up first.
    let lines: Vec<_> = table.rows.iter().map(line).collect();
    assert_eq!(
        lines,
        vec![
            ("ben", "2".into(), "2".into(), None),
            ("ann", "1".into(), "2".into(), None),
            (
                "cat",
                "1".into(),
                "1".into(),
                Some(TieBreak::SonnebornBerger)
            ),
            ("dan", "1".into(), "1".into(), Some(TieBreak::SignUp)),
        ]
    );
    let dan = &table.rows[3];
    assert!(dan.left);
    assert_eq!(
        (dan.played, dan.pending, dan.forfeited, dan.wins, dan.losses),
        (3, 0, 2, 1, 2)
    );
    assert_eq!(dan.lost_on_time, 0);
    let ann = &table.rows[1];
    assert_eq!((ann.played, ann.pending, ann.left), (2, 1, false));
    assert!(
        table
            .rows
            .iter()
            .filter(|r| r.entrant != "dan")
            .all(|r| r.forfeited == 0)
    );
}

#[test]
fn equal_sonneborn_berger_goes_to_more_wins() {
    let four = ["pat", "quin", "rae", "sam"];
    let game = |a, b, places: [u32; 2]| LeagueGame {
        seats: vec![a, b],
        finish: Some(Finish::Places(places.to_vec())),
    };
    // pat beats rae; quin and rae draw twice; sam has played nobody.
    // pat 1 (SB: rae's 1), quin 1 (SB: ½ + ½ of rae's 1 = 1), rae 1 (SB: ½ + ½ of quin's 1).
    // pat has a win, quin and rae none: pat first on wins; quin before rae by sign-up.
    let games = [
        game("pat", "rae", [1, 2]),
        game("quin", "rae", [1, 1]),
        game("rae", "quin", [1, 1]),
    ];
    let table = standings(&four, &[], DUEL, &games).unwrap();
    let lines: Vec<_> = table.rows.iter().map(line).collect();
    assert_eq!(
        lines,
        vec![
            ("pat", "1".into(), "1".into(), None),
            ("quin", "1".into(), "1".into(), Some(TieBreak::Wins)),
            ("rae", "1".into(), "1".into(), Some(TieBreak::SignUp)),
            ("sam", "0".into(), "0".into(), None),
        ]
    );
    assert_eq!(table.rows[3].played, 0);
    assert_eq!(Points::from_halves(5).to_string(), "2½");
}

#[test]
fn bad_input_is_refused() {
    let two = ["ann", "ben"];
    let game = |seats: Vec<&'static str>, finish| LeagueGame { seats, finish };
    let refused = [
        game(vec!["ann"], None),
        game(vec!["ann", "zed"], None),
        game(vec!["ann", "ann"], None),
        game(vec!["ann", "ben"], Some(Finish::Places(vec![1, 3]))),
        game(vec!["ann", "ben"], Some(Finish::Places(vec![1]))),
        game(vec!["ann", "ben"], Some(Finish::TimedOut(2))),
    ];
    for bad in refused {
        let err = standings(&two, &[], DUEL, std::slice::from_ref(&bad));
        assert!(err.is_err(), "{bad:?} accepted");
    }
    assert!(standings(&two, &["zed"], DUEL, &[]).is_err());
    assert!(standings(&["ann", "ann"], &[], DUEL, &[]).is_err());
    assert!(schedule(&["ann", "ann", "ben"], &ONCE).is_err());
    assert!(schedule(&["ann"], &ONCE).is_err());
    let many: Vec<usize> = (0..65).collect();
    assert!(schedule(&many, &ONCE).is_err());
    let twice_at_tables = Plan {
        format: Format::Multi { seats: 3 },
        meetings: Meetings::Twice,
    };
    assert!(schedule(&["a", "b", "c"], &twice_at_tables).is_err());
}
