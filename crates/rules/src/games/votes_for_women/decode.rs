//! Reading a command from JSON without serde's buffering of an internally tagged enum: the
//! `type` is looked up first, then each field is read straight from its value. Whatever this
//! path does not take goes to `Command`'s derived `Deserialize`, which defines what is
//! accepted and words the refusal.

use super::state::Command;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The command in `value`, as `Command::deserialize` reads it.
pub fn command(value: &Value) -> Result<Command, serde_json::Error> {
    match direct(value) {
        Some(command) => Ok(command),
        None => Command::deserialize(value),
    }
}

/// The command of an object whose fields all read as the derived `Deserialize` reads them;
/// `None` for anything else (an array, an unknown field, a missing or unreadable one).
fn direct(value: &Value) -> Option<Command> {
    let fields = Fields(value.as_object()?);
    Some(match fields.0.get("type")?.as_str()? {
        // A unit variant of an internally tagged enum ignores every other field.
        "end_turn" => Command::EndTurn,
        "defer" => Command::Defer,
        "match" => Command::Match,
        "bottom" => Command::Bottom,
        "reroll" => Command::Reroll,
        "accept" => Command::Accept,
        "play" => {
            fields.only(&["card", "action"])?;
            Command::Play {
                card: fields.required("card")?,
                action: fields.required("action")?,
            }
        }
        "claimed" => {
            fields.only(&["card"])?;
            Command::Claimed {
                card: fields.required("card")?,
            }
        }
        "commit" => {
            fields.only(&["buttons", "card"])?;
            Command::Commit {
                buttons: fields.required("buttons")?,
                card: fields.optional("card")?,
            }
        }
        "supersede" => {
            fields.only(&["card"])?;
            Command::Supersede {
                card: fields.required("card")?,
            }
        }
        "card" => {
            fields.only(&["card"])?;
            Command::Card {
                card: fields.required("card")?,
            }
        }
        "place" => {
            fields.only(&["cubes", "takes"])?;
            Command::Place {
                cubes: fields.required("cubes")?,
                takes: fields.optional("takes")?,
            }
        }
        "remove" => {
            fields.only(&["cubes"])?;
            Command::Remove {
                cubes: fields.required("cubes")?,
            }
        }
        "states" => {
            fields.only(&["states"])?;
            Command::States {
                states: fields.required("states")?,
            }
        }
        "state" => {
            fields.only(&["state", "yellow"])?;
            Command::State {
                state: fields.required("state")?,
                yellow: fields.optional("yellow")?,
            }
        }
        "region" => {
            fields.only(&["region"])?;
            Command::Region {
                region: fields.required("region")?,
            }
        }
        "move" => {
            fields.only(&["campaigner", "region"])?;
            Command::Move {
                campaigner: fields.required("campaigner")?,
                region: fields.required("region")?,
            }
        }
        "moves" => {
            fields.only(&["c1", "c2", "c3", "c4"])?;
            Command::Moves {
                c1: fields.optional("c1")?,
                c2: fields.optional("c2")?,
                c3: fields.optional("c3")?,
                c4: fields.optional("c4")?,
            }
        }
        "assign" => {
            fields.only(&["dice", "c1", "c2", "c3", "c4", "takes"])?;
            Command::Assign {
                dice: fields.required("dice")?,
                c1: fields.optional("c1")?,
                c2: fields.optional("c2")?,
                c3: fields.optional("c3")?,
                c4: fields.optional("c4")?,
                takes: fields.optional("takes")?,
            }
        }
        _ => return None,
    })
}

/// The fields of a command object.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    /// `Some` when the object has no field but `type` and `names`.
    fn only(&self, names: &[&str]) -> Option<()> {
        self.0
            .keys()
            .all(|key| key == "type" || names.contains(&key.as_str()))
            .then_some(())
    }

    /// A field that must be there.
    fn required<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        T::deserialize(self.0.get(name)?).ok()
    }

    /// A field that may be absent or null.
    fn optional<T: DeserializeOwned>(&self, name: &str) -> Option<Option<T>> {
        match self.0.get(name) {
            None => Some(None),
            Some(value) => Option::<T>::deserialize(value).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seed;
    use crate::engine::bot::play_random;
    use crate::games::find_game;
    use serde_json::json;

    /// Both readings of `value`: this module's and the derived one, errors as text.
    fn both(value: &Value) -> (Result<Command, String>, Result<Command, String>) {
        (
            command(value).map_err(|e| e.to_string()),
            Command::deserialize(value).map_err(|e| e.to_string()),
        )
    }

    /// Commands of random games, and every shape near them: a field dropped, nulled, of
    /// another type; an unknown field; the array form.
    fn near(value: &Value) -> Vec<Value> {
        let mut out = vec![value.clone()];
        let Value::Object(map) = value else {
            return out;
        };
        let odd = [
            json!(null),
            json!("x"),
            json!("ny"),
            json!("west"),
            json!(3),
            json!(-1),
            json!(1.5),
            json!(300),
            json!([1, 2]),
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
        for key in ["junk", "card", "c1", "yellow", "region", "dice"] {
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

    #[test]
    fn reads_every_command_as_the_derived_deserialize_does() {
        let game = find_game("votes-for-women").unwrap();
        let options = game.default_options();
        let mut direct_reads = 0;
        for n in 1..=6 {
            let record = play_random(game, &options, 2, Seed::from_number(n))
                .unwrap()
                .record;
            for entry in &record.commands {
                assert!(direct(&entry.command).is_some(), "{}", entry.command);
                direct_reads += 1;
                for value in near(&entry.command) {
                    let (ours, derived) = both(&value);
                    assert_eq!(ours, derived, "{value}");
                }
            }
        }
        assert!(direct_reads > 500);
    }

    #[test]
    fn unit_commands_ignore_other_fields_as_before() {
        let value = json!({"type": "end_turn", "card": "x", "junk": [1]});
        assert_eq!(command(&value).unwrap(), Command::EndTurn);
        let value = json!({"type": "commit", "buttons": 2, "card": null});
        assert_eq!(
            command(&value).unwrap(),
            Command::Commit {
                buttons: 2,
                card: None
            }
        );
        for value in [
            json!({"type": "play", "card": 3, "action": "event", "junk": 1}),
            json!({"type": "nothing"}),
            json!({"card": 3}),
            json!("end_turn"),
        ] {
            let (ours, derived) = both(&value);
            assert!(ours.is_err(), "{value}");
            assert_eq!(ours, derived);
        }
    }
}
