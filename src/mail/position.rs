//! A seat's position for a mail: the game's view for that seat (the same one-definition view
//! the board draws, so it never holds another seat's hidden cards) written as labelled lines,
//! card codes shown with their faces and names.

use crate::cards::Card;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// At most this many lines of position in one mail.
const MAX_ROWS: usize = 60;

/// At most this many characters in one line's value.
const MAX_VALUE_CHARS: usize = 600;

/// One line of a position: "Your hand: Q♥ Tennessee (11), A♠ California (54)".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// What it is ("Trick", "Scores", "Last hand, bid").
    pub label: String,
    /// Its value in words.
    pub value: String,
}

fn words(key: &str) -> String {
    let mut out = key.replace('_', " ");
    if let Some(first) = out.get(..1) {
        let upper = first.to_uppercase();
        out.replace_range(..1, &upper);
    }
    out
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(match Card::from_code(s) {
            Some(card) => card.label().to_string(),
            None => s.clone(),
        }),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.to_string()),
        _ => None,
    }
}

/// A value inline: lists joined with commas, pairs and nested lists in brackets, objects as
/// `key value` pairs.
fn inline(value: &Value) -> String {
    if let Some(s) = scalar(value) {
        return s;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| match v {
                Value::Array(_) | Value::Object(_) => format!("[{}]", inline(v)),
                other => inline(other),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !empty(v))
            .map(|(k, v)| format!("{} {}", words(k).to_lowercase(), inline(v)))
            .collect::<Vec<_>>()
            .join("; "),
        _ => "—".to_string(),
    }
}

fn empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().all(Value::is_null),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

fn cut(text: String) -> String {
    if text.chars().count() <= MAX_VALUE_CHARS {
        return text;
    }
    let mut out: String = text.chars().take(MAX_VALUE_CHARS).collect();
    out.push('…');
    out
}

/// The rows of a view: one per field that holds something, nested objects as "outer, inner".
pub fn rows(view: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    push_rows(&mut out, "", view);
    out.truncate(MAX_ROWS);
    out
}

fn push_rows(out: &mut Vec<Row>, prefix: &str, value: &Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if empty(item) {
                    continue;
                }
                let label = if prefix.is_empty() {
                    words(key)
                } else {
                    format!("{prefix}, {}", words(key).to_lowercase())
                };
                match item {
                    Value::Object(_) => push_rows(out, &label, item),
                    other => out.push(Row {
                        label,
                        value: cut(inline(other)),
                    }),
                }
            }
        }
        other if !empty(other) => out.push(Row {
            label: if prefix.is_empty() {
                "Position".into()
            } else {
                prefix.into()
            },
            value: cut(inline(other)),
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_view_becomes_labelled_lines_with_card_names() {
        let view = json!({
            "phase": "play",
            "hands": [null, ["TN", "CA"], null],
            "trick": [[0, "NC"]],
            "kitty": null,
            "bids": [],
            "last_hand": {"bidder": 2, "made": true},
            "scores": [10, -5],
        });
        let rows = rows(&view);
        let find = |label: &str| {
            rows.iter()
                .find(|r| r.label == label)
                .map(|r| r.value.clone())
        };
        assert_eq!(find("Phase").as_deref(), Some("play"));
        assert_eq!(
            find("Hands").as_deref(),
            Some("[Q♥ Tennessee (11), A♠ California (54)]")
        );
        assert_eq!(
            find("Trick"),
            Some(format!("[0, {}]", Card::from_code("NC").unwrap().label()))
        );
        assert_eq!(find("Last hand, bidder").as_deref(), Some("2"));
        assert_eq!(find("Scores").as_deref(), Some("10, -5"));
        assert_eq!(find("Kitty"), None);
        assert_eq!(find("Bids"), None);
    }
}
