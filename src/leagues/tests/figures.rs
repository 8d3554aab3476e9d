//! The figures docs/LEAGUES.md quotes for tables of three, four and partnerships, for every
//! entrant count from the table size to 16: checked here, so the document cannot drift.

use super::check::checked;
use crate::leagues::{Format, Meetings, Plan};

/// (entrants, games each, rounds, fewest and most times a pair sits together (partnership:
/// as partners), fewest and most times a pair are opponents (partnership only)).
type Line = (usize, usize, usize, (usize, usize), (usize, usize));

const THREE: &[Line] = &[
    (3, 1, 1, (1, 1), (0, 0)),
    (4, 3, 4, (2, 2), (0, 0)),
    (5, 3, 5, (1, 2), (0, 0)),
    (6, 4, 4, (1, 4), (0, 0)),
    (7, 6, 7, (1, 3), (0, 0)),
    (8, 6, 8, (1, 3), (0, 0)),
    (9, 4, 4, (1, 1), (0, 0)),
    (10, 6, 7, (1, 2), (0, 0)),
    (11, 9, 11, (1, 3), (0, 0)),
    (12, 7, 7, (1, 3), (0, 0)),
    (13, 9, 10, (1, 3), (0, 0)),
    (14, 9, 11, (1, 2), (0, 0)),
    (15, 9, 9, (1, 2), (0, 0)),
    (16, 12, 13, (1, 3), (0, 0)),
];

const FOUR: &[Line] = &[
    (4, 1, 1, (1, 1), (0, 0)),
    (5, 4, 5, (3, 3), (0, 0)),
    (6, 2, 3, (1, 2), (0, 0)),
    (7, 4, 7, (1, 3), (0, 0)),
    (8, 3, 3, (1, 3), (0, 0)),
    (9, 4, 5, (1, 4), (0, 0)),
    (10, 4, 5, (1, 4), (0, 0)),
    (11, 8, 11, (1, 4), (0, 0)),
    (12, 6, 6, (1, 5), (0, 0)),
    (13, 8, 9, (1, 3), (0, 0)),
    (14, 8, 10, (1, 4), (0, 0)),
    (15, 8, 10, (1, 3), (0, 0)),
    (16, 5, 5, (1, 1), (0, 0)),
];

const PARTNERS: &[Line] = &[
    (4, 3, 3, (1, 1), (2, 2)),
    (5, 4, 5, (1, 1), (2, 2)),
    (6, 6, 9, (1, 2), (2, 4)),
    (7, 12, 21, (1, 3), (1, 7)),
    (8, 7, 7, (1, 1), (1, 3)),
    (9, 8, 9, (1, 1), (0, 4)),
    (10, 12, 15, (1, 2), (2, 4)),
    (11, 16, 22, (1, 2), (2, 5)),
    (12, 12, 12, (1, 2), (1, 4)),
    (13, 16, 18, (1, 2), (1, 4)),
    (14, 16, 19, (1, 2), (1, 4)),
    (15, 16, 20, (1, 2), (1, 4)),
    (16, 15, 15, (1, 1), (1, 3)),
];

fn lines(format: Format, table: &[Line]) {
    assert_eq!(table.len(), 17 - format.seats(), "a line per entrant count");
    for &(n, games, rounds, together, opposed) in table {
        let (_, f) = checked(
            n,
            Plan {
                format,
                meetings: Meetings::Once,
            },
        );
        assert_eq!(
            (f.games, f.rounds, f.together, f.opposed),
            ((games, games), rounds, together, opposed),
            "{format:?} with {n} entrants: {f:?}"
        );
        let share = games / format.seats();
        assert!(
            f.first.0 + 1 >= share && f.first.1 <= share + 2,
            "{format:?} with {n}: seat 0 {:?} for {games} games",
            f.first
        );
    }
}

#[test]
fn tables_of_three_as_documented() {
    lines(Format::Multi { seats: 3 }, THREE);
}

#[test]
fn tables_of_four_as_documented() {
    lines(Format::Multi { seats: 4 }, FOUR);
}

#[test]
fn partnerships_as_documented() {
    lines(Format::Partnership, PARTNERS);
}
