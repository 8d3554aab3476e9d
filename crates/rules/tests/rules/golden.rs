//! Golden records: committed games of every hosted game must replay to the state they ended
//! in when they were recorded. A change of rules code that would alter a past game fails here
//! (bump the game's RULES_VERSION and keep the old behaviour instead; docs/record-format.md).

use postplay_rules::engine::Record;
use postplay_rules::games::registry;
use std::path::Path;

fn golden() -> Vec<(String, Record)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/golden");
    let mut records: Vec<(String, Record)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect();
    records.sort_by(|a, b| a.0.cmp(&b.0));
    records
}

#[test]
fn every_golden_record_replays_to_its_recorded_state() {
    for (name, record) in golden() {
        let hash = record
            .final_state_hash
            .clone()
            .expect("golden records carry their final hash");
        let game = record
            .replay(postplay_rules::games::ALL)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(game.state_hash(), hash, "{name}");
        assert!(
            game.outcome().is_some(),
            "{name}: golden records are finished games"
        );
    }
}

#[test]
fn every_hosted_game_has_a_golden_record() {
    let records = golden();
    for game in registry() {
        assert!(
            records.iter().any(|(_, r)| r.game == game.id()),
            "no golden record for {}: add one with `postplay selfplay {} --out tests/fixtures/golden`",
            game.id(),
            game.id()
        );
    }
}

#[test]
fn every_golden_record_still_verifies_and_its_commands_pass_the_canonical_check() {
    // Since the hardening, a submitted command is parsed and stored in the game's own
    // serialization. Records written before hold the bytes the clients sent: they must still
    // verify unchanged, every one of their commands must pass the canonical check (no unknown
    // field), and the canonical forms must replay to the very same game.
    for (name, record) in golden() {
        let mut sealed = record.clone();
        sealed.commitment = sealed.seed.map(|s| s.commitment());
        for (i, entry) in sealed.commands.iter_mut().enumerate() {
            entry.at = Some(format!(
                "2026-01-01T00:00:{:02}.{:06}Z",
                i / 1_000_000 % 60,
                i % 1_000_000
            ));
        }
        sealed.chain_head = postplay_rules::engine::audit::seal(&mut sealed);
        let verified = postplay_rules::engine::audit::verify(
            postplay_rules::games::ALL,
            &sealed,
            sealed.chain_head.as_deref(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(Some(verified.final_state_hash), record.final_state_hash);

        let mut game = record.start(postplay_rules::games::ALL).unwrap();
        let mut canonical = record.clone();
        let mut log = postplay_rules::engine::Log::silent();
        for (i, entry) in record.commands.iter().enumerate() {
            let once = game
                .canonical(&entry.command)
                .unwrap_or_else(|e| panic!("{name}: command {}: {e}", i + 1));
            assert_eq!(game.canonical(&once).unwrap(), once, "{name}: idempotent");
            canonical.commands[i].command = once;
            game.apply_json(entry.seat, &entry.command, &mut log)
                .unwrap();
        }
        let replayed = canonical
            .replay(postplay_rules::games::ALL)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            Some(replayed.state_hash()),
            record.final_state_hash,
            "{name}"
        );
    }
}

/// The Opposition chooses which Suffragist colour its red cubes remove only under Votes for
/// Women's rules version 3: a record of version 1 or 2 whose command carries `takes` is refused
/// (RULES.md, "Events"), where version 3 accepts the same command.
#[test]
fn a_votes_for_women_record_before_version_3_refuses_a_colour_taken() {
    let (_, golden) = golden()
        .into_iter()
        .find(|(name, _)| name == "votes-for-women-final-voting.json")
        .expect("the golden record");
    let at = golden
        .commands
        .iter()
        .position(|e| {
            e.seat == 1 && ["place", "assign"].contains(&e.command["type"].as_str().unwrap_or(""))
        })
        .expect("the Opposition places red cubes");
    for version in [1, 2, 3] {
        let mut record = golden.clone();
        record.rules_version = version;
        record.final_state_hash = None;
        record.commands.truncate(at + 1);
        record
            .replay(postplay_rules::games::ALL)
            .unwrap_or_else(|e| panic!("version {version}, without a colour: {e}"));
        record.commands[at].command["takes"] = "yellow".into();
        let replayed = record.replay(postplay_rules::games::ALL);
        if version < 3 {
            let refusal = replayed
                .err()
                .expect("a colour taken is refused")
                .to_string();
            assert!(
                refusal.contains(&format!(
                    "version {version}), the Opposition does not choose which colour"
                )),
                "{refusal}"
            );
        } else {
            replayed.unwrap_or_else(|e| panic!("version 3 takes the colour: {e}"));
        }
    }
}
