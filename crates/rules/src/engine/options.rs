//! A description of a game's options, from which a create form or `postplay games` is made.

use serde::Serialize;
use serde_json::Value;

/// One option a game's creator may set.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct OptionSpec {
    /// The key in the options JSON.
    pub key: &'static str,
    /// What the form calls it.
    pub label: &'static str,
    /// Its kind and allowed values.
    pub kind: OptionKind,
    /// The value when none is given.
    pub default: Value,
}

/// The kinds of option values.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OptionKind {
    /// On or off.
    Bool,
    /// One of a list: (value, label).
    Select { values: Vec<(Value, String)> },
    /// A whole number in a range.
    Integer { min: i64, max: i64 },
}

impl OptionSpec {
    /// The value chosen in `options` (the default when absent), in words: "yes" or "no", the
    /// label of a listed value, or the number.
    pub fn chosen(&self, options: &Value) -> String {
        let value = options.get(self.key).unwrap_or(&self.default);
        match &self.kind {
            OptionKind::Bool => match value.as_bool() {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => value.to_string(),
            },
            OptionKind::Select { values } => values
                .iter()
                .find(|(v, _)| v == value)
                .map_or_else(|| value.to_string(), |(_, label)| label.clone()),
            OptionKind::Integer { .. } => value.to_string(),
        }
    }
}

/// Every option of a game with the value chosen, in words: (label, value).
pub fn describe(specs: &[OptionSpec], options: &Value) -> Vec<(String, String)> {
    specs
        .iter()
        .map(|spec| (spec.label.to_string(), spec.chosen(options)))
        .collect()
}

/// Every combination of the listed values of the game's choice-like options (booleans and
/// selections); number options keep their default.
pub fn combinations(game: &dyn crate::engine::DynGame) -> Vec<Value> {
    let mut sets = vec![serde_json::Map::new()];
    for spec in game.option_specs() {
        let values: Vec<Value> = match spec.kind {
            OptionKind::Bool => vec![Value::Bool(false), Value::Bool(true)],
            OptionKind::Select { values } => values.into_iter().map(|(v, _)| v).collect(),
            OptionKind::Integer { .. } => vec![spec.default.clone()],
        };
        sets = sets
            .into_iter()
            .flat_map(|set| {
                values.iter().map(move |v| {
                    let mut set = set.clone();
                    set.insert(spec.key.to_string(), v.clone());
                    set
                })
            })
            .collect();
    }
    sets.into_iter().map(Value::Object).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chosen_values_read_as_words() {
        let specs = vec![
            OptionSpec {
                key: "jokers",
                label: "Jokers",
                kind: OptionKind::Bool,
                default: json!(true),
            },
            OptionSpec {
                key: "target",
                label: "Points to win",
                kind: OptionKind::Select {
                    values: vec![(json!(5), "5 points".into()), (json!(7), "7 points".into())],
                },
                default: json!(7),
            },
            OptionSpec {
                key: "rounds",
                label: "Rounds",
                kind: OptionKind::Integer { min: 1, max: 9 },
                default: json!(3),
            },
        ];
        assert_eq!(
            describe(&specs, &json!({"jokers": false, "target": 5})),
            vec![
                ("Jokers".to_string(), "no".to_string()),
                ("Points to win".to_string(), "5 points".to_string()),
                ("Rounds".to_string(), "3".to_string()),
            ]
        );
    }
}
