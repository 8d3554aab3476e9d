//! `postplay verify` on sealed records: a valid game passes, and each kind of tampering is
//! caught with the right message.

use crate::common::scratch;
use scratch::Scratch;

use postplay::engine::audit::seal;
use postplay::engine::bot::play_random;
use postplay::engine::{Record, Seed};
use postplay::games::registry;
use std::process::{Command, Output};

fn verify_file(record: &Record, name: &str) -> Output {
    let dir = Scratch::new(&format!("audit-{name}"));
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(record).unwrap()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(["verify", path.to_str().unwrap()])
        .output()
        .unwrap()
}

fn sealed_game(game: usize, seed: u64) -> Record {
    let game = registry()[game];
    let mut record = play_random(
        game,
        &game.default_options(),
        game.seat_counts().1,
        Seed::from_number(seed),
    )
    .unwrap()
    .record;
    for (i, entry) in record.commands.iter_mut().enumerate() {
        entry.at = Some(format!(
            "2026-11-{:02}T{:02}:{:02}:00.000000Z",
            1 + i / 1440 % 28,
            i / 60 % 24,
            i % 60
        ));
    }
    record.chain_head = seal(&mut record);
    record
}

fn expect_invalid(record: &Record, name: &str, message: &str) {
    let out = verify_file(record, name);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{name}: {err}");
    assert!(
        err.contains(message),
        "{name}: expected {message:?} in {err:?}"
    );
}

#[test]
fn every_game_verifies_when_untouched() {
    for (i, game) in registry().iter().enumerate() {
        let record = sealed_game(i, 21);
        let out = verify_file(&record, game.id());
        assert!(
            out.status.success(),
            "{}: {}",
            game.id(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("valid: "));
    }
}

#[test]
fn tampering_is_caught_with_the_right_message() {
    let record = sealed_game(0, 22);
    assert!(record.commands.len() > 6);

    let mut changed = record.clone();
    changed.commands[3].seat = (changed.commands[3].seat + 1) % changed.seats;
    expect_invalid(&changed, "changed", "entry 4: hash mismatch");

    let mut reordered = record.clone();
    reordered.commands.swap(2, 3);
    expect_invalid(&reordered, "reordered", "entry 3: hash mismatch");

    let mut dropped = record.clone();
    dropped.commands.pop();
    expect_invalid(&dropped, "dropped", "chain head");

    let mut reseeded = record.clone();
    reseeded.seed = Some(Seed::from_number(23));
    expect_invalid(&reseeded, "reseeded", "seed does not match commitment");

    // A forger who edits a move and rebuilds the whole chain is caught by the replay.
    let mut forged = record.clone();
    forged.commands[4].seat = (forged.commands[4].seat + 1) % forged.seats;
    forged.chain_head = seal(&mut forged);
    expect_invalid(&forged, "forged", "entry 5: illegal");

    let mut hidden = record.clone();
    hidden.seed = None;
    expect_invalid(&hidden, "hidden", "seed is not revealed");
}

#[test]
fn unreadable_files_are_told_apart() {
    let dir = Scratch::new("audit-junk");
    let path = dir.join("junk.json");
    std::fs::write(&path, "not json").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(["verify", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
