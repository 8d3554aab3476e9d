//! Checks of the games' direct reading of commands ([`crate::engine::dynamic::tagged`])
//! against their commands' derived `Deserialize`.

use crate::engine::Seed;
use crate::engine::bot::play_random;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Commands near `value`, for tests that compare a game's direct reading with the derived
/// `Deserialize`: the value itself, each field dropped, nulled or of another type, an unknown
/// field added, and the array form.
pub(crate) fn near(value: &Value) -> Vec<Value> {
    let mut out = vec![value.clone()];
    let Value::Object(map) = value else {
        return out;
    };
    let odd = [
        json!(null),
        json!("x"),
        json!("CA"),
        json!("BJ"),
        json!("spades"),
        json!("higher"),
        json!(3),
        json!(-1),
        json!(1.5),
        json!(300),
        json!(4_294_967_296_u64),
        json!([1, 2]),
        json!(["CA", "NY"]),
        json!([]),
        json!({"a": 1}),
    ];
    for key in map.keys() {
        let mut dropped = map.clone();
        dropped.remove(key);
        out.push(Value::Object(dropped));
        for v in &odd {
            let mut changed = map.clone();
            changed.insert(key.clone(), v.clone());
            out.push(Value::Object(changed));
        }
    }
    for key in [
        "junk", "card", "cards", "amount", "suit", "slot", "jokers", "give",
    ] {
        for v in &odd {
            let mut added = map.clone();
            added.insert(key.into(), v.clone());
            out.push(Value::Object(added));
        }
    }
    let mut seq = vec![map["type"].clone()];
    seq.extend(
        map.iter()
            .filter(|(k, _)| *k != "type")
            .map(|(_, v)| v.clone()),
    );
    out.push(Value::Array(seq));
    out
}

/// Checks a game's `decode` against its command's derived `Deserialize` on the commands of
/// `games` random games and every shape near them ([`near`]): the same command, or the same
/// error in words. Returns how many of the random games' commands `direct` read itself.
pub(crate) fn check_against_derived<C>(
    game_id: &str,
    games: u64,
    decode: impl Fn(&Value) -> Result<C, serde_json::Error>,
    direct: impl Fn(&Value) -> Option<C>,
) -> usize
where
    C: DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let game = crate::games::find_game(game_id).expect("a hosted game");
    let options = game.default_options();
    let seats = game.seat_counts().1;
    let mut direct_reads = 0;
    for n in 1..=games {
        let record = play_random(game, &options, seats, Seed::from_number(n))
            .expect("plays")
            .record;
        for entry in &record.commands {
            if direct(&entry.command).is_some() {
                direct_reads += 1;
            }
            for value in near(&entry.command) {
                let ours = decode(&value).map_err(|e| e.to_string());
                let derived = C::deserialize(&value).map_err(|e| e.to_string());
                assert_eq!(ours, derived, "{value}");
            }
        }
    }
    direct_reads
}
