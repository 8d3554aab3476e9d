//! A seat's position in words: what each game's own presentation code (`games::*::present`)
//! writes from its typed view for a mail, as short plain text and as simple HTML that mail
//! clients show without scripts, styles sheets or external images.

use crate::cards::Card;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A position as a game presents it to one viewer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Plain text, lines of at most a phone's width where the game can, no trailing newline.
    pub text: String,
    /// An HTML fragment (paragraphs, lists, tables with inline styles), escaped by the game.
    pub html: String,
}

impl Position {
    /// Whether there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// What a game's presentation needs besides the view: the players' names by seat.
#[derive(Debug, Clone, Copy)]
pub struct Names<'a> {
    /// Display names, by seat.
    pub names: &'a [String],
}

impl<'a> Names<'a> {
    /// The names at a table, by seat.
    pub fn new(names: &'a [String]) -> Names<'a> {
        Names { names }
    }

    /// A seat's name; "Player N" when the table has none for it.
    pub fn of(&self, seat: super::Seat) -> String {
        self.names
            .get(seat)
            .cloned()
            .unwrap_or_else(|| super::numbered_seat(seat))
    }
}

/// Text made safe for HTML.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A position written as labelled lines, each `(label, value)` in words: "Your hand: …". The
/// text puts each on its own line; the HTML is a two-column table. Games whose position is
/// a list of facts use it; the words are theirs.
pub fn labelled(rows: &[(String, String)]) -> Position {
    let text = rows
        .iter()
        .map(|(label, value)| {
            if label.is_empty() {
                value.clone()
            } else {
                format!("{label}: {value}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut html = String::from(r#"<table style="border-collapse: collapse;">"#);
    for (label, value) in rows {
        html.push_str(
            r#"<tr><th style="text-align: left; padding: 0.1rem 0.6rem 0.1rem 0; vertical-align: top;">"#,
        );
        html.push_str(&esc(label));
        html.push_str("</th><td>");
        html.push_str(&esc(value));
        html.push_str("</td></tr>");
    }
    html.push_str("</table>");
    Position { text, html }
}

// ---- transitional: the generic field writer ----

/// At most this many lines of position in one mail.
const MAX_ROWS: usize = 60;

/// At most this many characters in one line's value.
const MAX_VALUE_CHARS: usize = 600;

/// One line of a position: "Your hand: Q♥ Tennessee (11), A♠ California (54)".
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    /// What it is ("Trick", "Scores", "Last hand, bid").
    label: String,
    /// Its value in words.
    value: String,
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
fn rows(view: &Value) -> Vec<Row> {
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

/// The view's fields as labelled lines: the old generic writer, kept only until every game
/// presents its own position (it is removed with the last game's `present` module).
pub fn from_fields(view: &Value, names: &Names) -> Position {
    let rows: Vec<(String, String)> = rows(view)
        .into_iter()
        .map(|r| (r.label, super::log::render(&r.value, names.names)))
        .collect();
    labelled(&rows)
}

#[cfg(any(test, feature = "testing"))]
pub mod check;
