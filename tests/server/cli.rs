//! The CLI verbs as a person uses them: selfplay writes records, replay reproduces their
//! hashes, and a tampered record fails naming the command.

use crate::common::scratch;
use scratch::Scratch;

use postplay::engine::Record;
use postplay::games::registry;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn postplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(args)
        .output()
        .expect("postplay runs")
}

fn scratch_dir(name: &str) -> Scratch {
    Scratch::new(&format!("cli-{name}"))
}

fn records_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn games_lists_every_hosted_game() {
    let out = postplay(&["games", "--json"]);
    assert!(out.status.success());
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    let known: Vec<&str> = registry().iter().map(|g| g.id()).collect();
    assert_eq!(ids, known);
    assert!(!known.is_empty(), "no game is registered");
    let text = stdout(&postplay(&["games"]));
    for id in known {
        assert!(text.contains(id), "{id} missing from `postplay games`");
    }
}

/// The rows of the table in `doc` whose header line starts with `header`: each row's cells.
fn table_rows(doc: &str, header: &str) -> Vec<Vec<String>> {
    doc.lines()
        .skip_while(|l| !l.starts_with(header))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().trim_matches('`').to_string())
                .collect()
        })
        .collect()
}

/// docs/record-format.md names every game's current rules version, as `postplay games --json`
/// reports it, and every mark an entry can carry.
#[test]
fn the_record_format_names_every_current_rules_version_and_every_mark() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/record-format.md"),
    )
    .unwrap();
    let out = postplay(&["games", "--json"]);
    assert!(out.status.success());
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut versions: Vec<(String, String)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["id"].as_str().unwrap().to_string(),
                g["rules_version"].to_string(),
            )
        })
        .collect();
    let mut documented: Vec<(String, String)> = table_rows(&doc, "| game | current rules version")
        .into_iter()
        .map(|row| (row[0].clone(), row[1].clone()))
        .collect();
    versions.sort();
    documented.sort();
    assert_eq!(
        documented, versions,
        "docs/record-format.md, \"Rules versions\""
    );

    let mut marks: Vec<&str> = postplay::engine::record::Mark::ALL
        .iter()
        .map(|m| m.as_str())
        .collect();
    let mut documented: Vec<String> = table_rows(&doc, "| mark |")
        .into_iter()
        .map(|row| row[0].clone())
        .filter(|mark| mark != "absent")
        .collect();
    marks.sort();
    documented.sort();
    assert_eq!(documented, marks, "docs/record-format.md, \"Marks\"");
}

#[test]
fn selfplay_records_replay_to_the_same_hash() {
    for game in registry() {
        let dir = scratch_dir(&format!("selfplay-{}", game.id()));
        let options = game.default_options().to_string();
        let out = postplay(&[
            "selfplay",
            game.id(),
            "--seed",
            "11",
            "--games",
            "3",
            "--options",
            &options,
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}: {}", game.id(), stderr(&out));
        assert_eq!(
            stdout(&out)
                .lines()
                .filter(|l| l.starts_with("seed "))
                .count(),
            3
        );
        let files = records_in(&dir);
        assert_eq!(files.len(), 3);
        for file in files {
            let record: Record =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let hash = record.final_state_hash.clone().unwrap();
            let out = postplay(&["replay", file.to_str().unwrap()]);
            assert!(out.status.success(), "{}: {}", file.display(), stderr(&out));
            let text = stdout(&out);
            assert!(
                text.contains(&format!("final state hash: {hash}")),
                "{text}"
            );
            assert!(text.contains("outcome: "), "{text}");
            let trace = postplay(&["replay", "--trace", file.to_str().unwrap()]);
            assert!(trace.status.success(), "{}", stderr(&trace));
            let steps: Vec<serde_json::Value> = stdout(&trace)
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(steps.len(), record.commands.len());
            for (i, step) in steps.iter().enumerate() {
                assert_eq!(step["seq"], i + 1);
                assert_eq!(step["command"], record.commands[i].command);
                assert!(step["view"].is_object());
            }
        }
    }
}

#[test]
fn same_seed_plays_the_same_game() {
    let game = registry()[0];
    let first = stdout(&postplay(&[
        "selfplay",
        game.id(),
        "--seed",
        "5",
        "--games",
        "2",
    ]));
    let again = stdout(&postplay(&[
        "selfplay",
        game.id(),
        "--seed",
        "5",
        "--games",
        "2",
    ]));
    assert_eq!(first, again);
    assert!(first.lines().any(|l| l.starts_with("seed ")));
}

#[test]
fn tampered_record_fails_naming_the_command() {
    let game = registry()[0];
    let dir = scratch_dir("tamper");
    let options = game.default_options().to_string();
    let out = postplay(&[
        "selfplay",
        game.id(),
        "--seed",
        "3",
        "--options",
        &options,
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let file = records_in(&dir).remove(0);
    let record: Record = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();

    // Command 5 sent by a seat that is not awaited.
    let mut wrong_seat = record.clone();
    wrong_seat.commands[4].seat = (wrong_seat.commands[4].seat + 1) % record.seats;
    wrong_seat.final_state_hash = None;
    let path = dir.join("wrong-seat.json");
    std::fs::write(&path, serde_json::to_string(&wrong_seat).unwrap()).unwrap();
    let out = postplay(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("command 5"), "{}", stderr(&out));

    // Command 3 replaced by something that is no command of the game.
    let mut garbage = record.clone();
    garbage.commands[2].command = serde_json::json!({"type": "teleport"});
    let path = dir.join("garbage.json");
    std::fs::write(&path, serde_json::to_string(&garbage).unwrap()).unwrap();
    let out = postplay(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("command 3"), "{}", stderr(&out));

    // A changed seed replays differently and no longer matches the recorded hash.
    let mut reseeded = record.clone();
    reseeded.seed = Some(postplay::engine::Seed::from_number(4));
    let path = dir.join("reseeded.json");
    std::fs::write(&path, serde_json::to_string(&reseeded).unwrap()).unwrap();
    let out = postplay(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));

    // Not a record at all.
    let path = dir.join("junk.json");
    std::fs::write(&path, "{\"hello\": 1}").unwrap();
    assert_eq!(
        postplay(&["replay", path.to_str().unwrap()]).status.code(),
        Some(2)
    );
}

#[test]
fn unknown_game_and_bad_options_are_refused_clearly() {
    let out = postplay(&["selfplay", "chess"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown game"));
    let game = registry()[0];
    let out = postplay(&[
        "selfplay",
        game.id(),
        "--options",
        "{\"no_such_option\": 1}",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let out = postplay(&["selfplay", game.id(), "--options", "not json"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Reads one line of the verb's output, then goes away as `| head -1` does: the verb must end
/// quietly, without a panic on the broken pipe.
fn first_line_then_close(args: &[&str]) -> (String, Output) {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("postplay runs");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    drop(reader);
    (line, child.wait_with_output().unwrap())
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    let (line, out) =
        first_line_then_close(&["selfplay", "nationhood", "--games", "300", "--seed", "1"]);
    assert!(line.starts_with("# options"), "{line}");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    let (line, out) = first_line_then_close(&[
        "replay",
        "--trace",
        "tests/fixtures/golden/nationhood-best-of-three.json",
    ]);
    assert!(line.starts_with("{\"command\""), "{line}");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    // A reader gone before the first line (`postplay games | true`).
    for args in [&["games"][..], &["games", "--json"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_postplay"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("postplay runs");
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}

#[test]
fn results_and_setup_lines_name_the_players() {
    let out = postplay(&["selfplay", "statehood", "--games", "1", "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stdout(&out).contains("{s"), "{}", stdout(&out));
    assert!(stdout(&out).contains("Player "), "{}", stdout(&out));
    let out = postplay(&["replay", "tests/fixtures/golden/nationhood-one-rubber.json"]);
    let text = stdout(&out);
    let outcome = text.lines().find(|l| l.starts_with("outcome:")).unwrap();
    assert!(!outcome.contains("{s"), "{outcome}");
    let out = postplay(&["replay", "tests/fixtures/golden/whitehouse-individual.json"]);
    let first = stdout(&out).lines().next().unwrap().to_string();
    assert!(
        first.starts_with("    0  The draw for first dealer: North "),
        "{first}"
    );
    assert!(!first.contains("{s"), "{first}");
}

/// `selfplay --bots` seats a bot of each level in seat order; the same seeds play the same
/// game (the bots' seed is printed), and every record replays to its printed hash.
#[test]
fn selfplay_with_bots_plays_again_from_the_printed_seeds() {
    let dir = scratch_dir("selfplay-bots");
    let args = [
        "selfplay",
        "electoral-combat",
        "--options",
        "{\"apportionment\": 2024, \"book_deal\": false}",
        "--bots",
        "easy,random",
        "--seed",
        "5",
        "--bot-seed",
        "6",
        "--games",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ];
    let first = postplay(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let lines: Vec<String> = stdout(&first)
        .lines()
        .filter(|l| l.starts_with("seed "))
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert!(line.contains("| bots easy,random bot-seed "), "{line}");
    }
    let again = postplay(&args);
    assert_eq!(
        stdout(&first),
        stdout(&again),
        "the same seeds, the same games"
    );
    for (record, line) in records_in(&dir).iter().zip(&lines) {
        let played: Record =
            serde_json::from_str(&std::fs::read_to_string(record).unwrap()).unwrap();
        assert!(
            played
                .commands
                .iter()
                .all(|entry| entry.by.as_deref() == Some("bot")),
            "every entry of a bots' game is marked bot"
        );
        let out = postplay(&["replay", record.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        let hash = line
            .split(" hash ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        assert!(stdout(&out).contains(hash), "{}", stdout(&out));
    }

    let out = postplay(&["selfplay", "electoral-combat", "--bots", "easy,genius"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no bot level"), "{}", stderr(&out));
    let out = postplay(&[
        "selfplay",
        "electoral-combat",
        "--bots",
        "easy,random",
        "--seats",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--bots names 2"), "{}", stderr(&out));
}
