//! Checks across the hosted games: the type-erased records and replays of the registry.

use super::{ALL, find_game};
use crate::engine::record::{
    BY_CLOCK, BY_ORGANISER, Record, RecordedCommand, ReplayError, cancel_command, forfeit_command,
};
use crate::engine::{Log, Seed};
use serde_json::Value;

fn record(commands: Vec<RecordedCommand>) -> Record {
    let game = find_game("nationhood").unwrap();
    let started = game
        .new_match(&Value::Null, 2, Seed::from_number(9))
        .unwrap();
    let mut record = Record::of_play(started.as_ref(), Seed::from_number(9), commands);
    record.final_state_hash = None;
    record
}

fn by(by: &str, command: Value) -> RecordedCommand {
    RecordedCommand {
        by: Some(by.into()),
        ..RecordedCommand::new(0, command)
    }
}

#[test]
fn the_organisers_cancellation_ends_the_game_and_nothing_follows_it() {
    let cancel = by(BY_ORGANISER, cancel_command("the club closes"));
    let game = record(vec![cancel.clone()]).replay(ALL).unwrap();
    let outcome = game.outcome().unwrap();
    assert_eq!(
        outcome.reason,
        "Cancelled by the organiser: the club closes"
    );
    assert!(outcome.winners.is_empty() && game.active().is_empty());

    let twice = record(vec![cancel.clone(), cancel.clone()]).replay(ALL);
    assert!(
        matches!(&twice, Err(ReplayError::Command { number: 2, reason, .. }) if reason.contains("already over")),
        "{:?}",
        twice.err()
    );
    let start = record(Vec::new()).start(ALL).unwrap();
    let seat = start.active()[0];
    let mut rng = crate::engine::bot::bot_rng(&Seed::from_number(9));
    let opening = crate::engine::bot::random_command(start.as_ref(), seat, &mut rng).unwrap();
    let first = RecordedCommand::new(seat, opening);
    assert!(record(vec![first.clone()]).replay(ALL).is_ok());
    assert!(
        record(vec![first.clone(), cancel.clone()])
            .replay(ALL)
            .is_ok()
    );
    assert!(
        record(vec![cancel, first]).replay(ALL).is_err(),
        "no move after it"
    );
}

#[test]
fn only_the_organiser_cancels_and_the_organiser_only_cancels() {
    let unmarked = RecordedCommand::new(0, cancel_command("x"));
    assert!(
        record(vec![unmarked]).replay(ALL).is_err(),
        "a seat cannot cancel"
    );
    for command in [json_pass(), serde_json::json!({"type": "cancel"})] {
        let entry = by(BY_ORGANISER, command);
        assert!(record(vec![entry]).replay(ALL).is_err());
    }
    let by_clock = by(BY_CLOCK, cancel_command("x"));
    assert!(
        record(vec![by_clock]).replay(ALL).is_err(),
        "the clock cannot cancel"
    );
    let cancel = by(BY_ORGANISER, cancel_command("x"));
    let forfeit = by(BY_CLOCK, forfeit_command());
    assert!(
        record(vec![cancel, forfeit]).replay(ALL).is_err(),
        "nothing changes the end of a cancelled game"
    );
}

fn json_pass() -> Value {
    serde_json::json!({"type": "pass"})
}

/// Which moves of the hosted games may be taken back, over a few random games each: Votes for
/// Women's cube decisions may (and, found so: Nationhood's answer to an offer, a Whitehouse
/// bid its bidder follows by naming trump, an Electoral College Combat guess before the card
/// is turned — public decisions the seat follows itself); in every game, the state after an undo is the state before the
/// move, and the other seats can never take anything back.
#[test]
fn hosted_games_take_back_only_what_reveals_nothing() {
    let mut undoable = std::collections::BTreeMap::new();
    for game in ALL {
        let seats = game.seat_counts().1;
        for n in 0..6 {
            let seed = Seed::from_number(n);
            let mut live = game
                .new_match(&game.default_options(), seats, seed)
                .unwrap();
            let mut rng = crate::engine::bot::bot_rng(&seed);
            while live.outcome().is_none() {
                let seat = live.active()[0];
                let command =
                    crate::engine::bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                let before = live.state_hash();
                live.apply_json(seat, &command, &mut Log::silent()).unwrap();
                assert!((0..seats).all(|s| s == seat || !live.can_undo(s)));
                if live.can_undo(seat) {
                    *undoable.entry(game.id()).or_insert(0) += 1;
                    let mut taken = live.clone_box();
                    taken.undo(seat, &mut Log::silent()).unwrap();
                    assert_eq!(taken.state_hash(), before, "{}", game.id());
                }
            }
        }
    }
    eprintln!("moves that could be taken back: {undoable:?}");
    assert!(undoable.get("votes-for-women").is_some_and(|&n| n > 10));
}
