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
