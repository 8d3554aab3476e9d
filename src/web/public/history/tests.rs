use crate::engine::Standing;
use crate::store::Step;
use crate::web::public::history::{periods, score_rows};
use chrono::{TimeZone, Utc};

fn step(seq: i64, period: u32, scores: [i64; 2], line: &str) -> Step {
    Step {
        seq,
        seat: (seq % 2) as usize,
        at: Utc
            .with_ymd_and_hms(2026, 11, 24, 10, seq as u32, 0)
            .unwrap(),
        mark: (seq == 4).then_some(crate::engine::record::Mark::Clock),
        lines: vec![line.to_string()],
        standing: Some(Standing {
            period,
            scores: vec![("{s0}".into(), scores[0]), ("{s1}".into(), scores[1])],
        }),
    }
}

/// A game of two hands: the move that ends hand 1 scores it and deals hand 2.
fn two_hands() -> Vec<Step> {
    vec![
        step(0, 1, [0, 0], "{s0} deals hand 1"),
        step(1, 1, [0, 0], "{s0} bids"),
        step(2, 2, [3, 0], "{s1} takes the last trick; {s0} deals hand 2"),
        step(3, 2, [3, 0], "{s0} plays"),
        step(4, 2, [3, 2], "{s1} plays"),
    ]
}

#[test]
fn a_move_belongs_to_the_hand_it_was_made_in() {
    let names = vec!["Ann".to_string(), "Bo".to_string()];
    let periods = periods(&two_hands(), "Hand", &names);
    let titles: Vec<&str> = periods.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(titles, ["Hand 1", "Hand 2"]);
    assert_eq!(
        periods[0].lines.len(),
        3,
        "the last trick of hand 1 is in hand 1"
    );
    assert_eq!(
        periods[0].lines[2].text,
        "Bo takes the last trick; Ann deals hand 2"
    );
    assert_eq!(periods[1].lines[1].text, "Bo plays (played by the clock)");
    assert_eq!(periods[1].lines[0].at, "Tue 24 Nov, 10:03 UTC");
}

#[test]
fn a_hand_is_scored_by_the_move_that_ends_it() {
    let rows = score_rows(&two_hands(), "Hand", false);
    let table: Vec<(&str, &[i64])> = rows
        .iter()
        .map(|r| (r.title.as_str(), &r.scores[..]))
        .collect();
    assert_eq!(
        table,
        [("Hand 1", &[3, 0][..]), ("Hand 2 (so far)", &[3, 2][..])]
    );
    let over = score_rows(&two_hands(), "Hand", true);
    assert_eq!(over[1].title, "Hand 2");
}

#[test]
fn a_game_without_standing_is_one_list() {
    let mut steps = two_hands();
    for s in &mut steps {
        s.standing = None;
    }
    let periods = periods(&steps, "Hand", &[]);
    assert_eq!(periods.len(), 1);
    assert_eq!(periods[0].title, "Moves");
    assert!(score_rows(&steps, "Hand", true).is_empty());
}
