//! The long game the audit benchmarks use.

use postplay_rules::engine::audit::seal;
use postplay_rules::engine::bot::play_random;
use postplay_rules::engine::{Record, Seed};
use postplay_rules::games::find_game;
use serde_json::json;

/// Seed 732 of individual Whitehouse without jokers to 13 points: 1,070 commands, sealed
/// with a hash chain over made-up times.
pub fn long_record() -> Record {
    let game = find_game("whitehouse").unwrap();
    let options = json!({"partnership": false, "jokers": false, "target": 13});
    let mut record = play_random(game, &options, 4, Seed::from_number(732))
        .unwrap()
        .record;
    for (i, entry) in record.commands.iter_mut().enumerate() {
        entry.at = Some(format!(
            "2026-11-{:02}T{:02}:{:02}:00.000000Z",
            1 + i / 1440,
            i / 60 % 24,
            i % 60
        ));
    }
    record.chain_head = seal(&mut record);
    record
}
