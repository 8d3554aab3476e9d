//! The review's pure parts: which decisions are weighed, and the words.

use super::compute::spread;
use super::*;
use serde_json::json;

#[test]
fn decisions_are_weighed_spread_evenly_within_the_bound() {
    assert_eq!(spread(3, 24), vec![0, 1, 2], "every one when few");
    let picked = spread(100, 24);
    assert_eq!(picked.len(), 24);
    assert_eq!(picked[0], 0);
    assert!(picked.windows(2).all(|w| w[1] - w[0] >= 4), "{picked:?}");
    assert!(*picked.last().unwrap() >= 90, "to the end of the game");
    assert!(spread(5, 0).is_empty(), "a bound of 0 weighs nothing");
}

fn point(open: bool) -> TurningPoint {
    TurningPoint {
        seq: 12,
        played: "Pass".into(),
        played_command: json!({"type": "pass"}),
        best: "Bid — How much? 4".into(),
        best_command: json!({"type": "bid", "amount": 4}),
        before: 0.624,
        after: 0.41,
        drop: 0.214,
        open: open.then(|| OpenLook {
            best: "Bid — How much? 9".into(),
            best_command: json!({"type": "bid", "amount": 9}),
            before: 0.9,
            after: 0.2,
        }),
        words: String::new(),
    }
}

#[test]
fn a_turning_point_reads_with_both_estimates() {
    let words = point_words("Ann", &point(false));
    assert!(
        words.starts_with("Move 12: Ann played Pass;")
            && words.contains("would have played Bid — How much? 4")
            && words.contains("62% before, 41% after")
            && !words.contains("everything known"),
        "{words}"
    );
    let open = point_words("Ann", &point(true));
    assert!(
        open.contains(
            "With everything known it would have played Bid — How much? 9 (90% before, 20% after)"
        ),
        "{open}"
    );
}

#[test]
fn the_mail_sums_a_seat_up_in_a_line_a_point() {
    let mut seat = SeatReview {
        seat: 0,
        name: "Ann".into(),
        decisions: 30,
        weighed: 24,
        turning_points: vec![point(false)],
    };
    assert_eq!(
        mail_lines(&seat),
        vec![
            "Move 12: you played Pass; the search would have played Bid — How much? 4 (62% → 41%)."
                .to_string()
        ]
    );
    seat.turning_points.clear();
    assert!(mail_lines(&seat)[0].contains("of the 24 weighed"));
}
