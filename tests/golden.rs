//! Golden records: committed games of every hosted game must replay to the state they ended
//! in when they were recorded. A change of rules code that would alter a past game fails here
//! (bump the game's RULES_VERSION and keep the old behaviour instead; docs/record-format.md).

use postplay::engine::{Record, registry};
use std::path::Path;

fn golden() -> Vec<(String, Record)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden");
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
        let game = record.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
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
