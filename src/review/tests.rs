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

#[test]
fn the_same_choice_with_other_answers_says_only_the_answers_that_differ() {
    let choice = "Take the higher card, New Jersey (14), and any one other card — Which other \
                  card do you take? ";
    let played = format!("{choice}Face-down card 5");
    let best = format!("{choice}Face-down card 2");
    assert_eq!(instead(&played, &best), "the same with Face-down card 2");
    // From the first answer that differs on, the rest of the move.
    assert_eq!(
        instead(
            "Bid — How much? 4 — Which suit? Hearts",
            "Bid — How much? 5 — Which suit? Hearts"
        ),
        "the same with 5 — Which suit? Hearts"
    );
    // Another choice, or answers that share a beginning ("1" and "12"), read whole.
    assert_eq!(instead("Pass", "Bid — How much? 4"), "Bid — How much? 4");
    assert_eq!(
        instead("Bid — How much? 1", "Bid — How much? 12"),
        "the same with 12"
    );
    assert_eq!(
        instead("Discard — Which card? Ohio", "Play — Which card? Ohio"),
        "Play — Which card? Ohio"
    );
    let point = TurningPoint {
        played: played.clone(),
        best,
        ..point(false)
    };
    let words = point_words("Ann", &point);
    assert_eq!(words.matches("Which other card").count(), 1, "{words}");
    assert!(
        words.contains("would have played the same with Face-down card 2"),
        "{words}"
    );
}

#[test]
fn a_review_the_store_failed_for_waits_longer_each_try_then_gives_up_within_a_day() {
    use super::stored::{ATTEMPTS, LONGEST_WAIT, wait_after};
    let waits: Vec<i64> = (1..ATTEMPTS).map(|a| wait_after(a).num_seconds()).collect();
    assert_eq!(&waits[..4], &[30, 60, 120, 240]);
    assert!(waits.windows(2).all(|w| w[0] <= w[1]), "{waits:?}");
    assert_eq!(*waits.last().unwrap(), LONGEST_WAIT.num_seconds());
    let hours = waits.iter().sum::<i64>() as f64 / 3600.0;
    assert!((10.0..24.0).contains(&hours), "given up after {hours:.1} h");
}
