//! Choices as lines a player can type back in a reply ([`reply_lines`]), and a typed line read
//! back into a command ([`read`]). Both work from the game-agnostic [`Choice`] description
//! alone, so every game gets them without code of its own.

pub mod address;
mod read;
mod words;

pub use read::{Read, ReadError, first_line, read};

use crate::engine::{Choice, ParamKind, PickOption};
use serde::{Deserialize, Serialize};

/// One choice as a reply line: "2  Bid <amount: 280 to 530, steps of 10>".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyLine {
    /// The number to reply with (from 1).
    pub number: usize,
    /// The label and what to add after it.
    pub text: String,
    /// The values a parameter takes, one per line: "TN  Q♥ Tennessee (11)".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// What to type for an option: its value when that is a short code, else its label.
fn option_line(option: &PickOption) -> String {
    match option.value.as_str() {
        Some(code) if code != option.label => format!("{code}  {}", option.label),
        _ => option.label.to_string(),
    }
}

fn hint(field: &str, kind: &ParamKind) -> String {
    match kind {
        ParamKind::One { .. } => format!("<{field}>"),
        ParamKind::Pick { min, max, .. } if min == max => format!("<{min} {field}>"),
        ParamKind::Pick { min, max, .. } => format!("<{min} to {max} {field}>"),
        ParamKind::Number { min, max, step } if *step > 1 => {
            format!("<{field}: {min} to {max}, steps of {step}>")
        }
        ParamKind::Number { min, max, .. } => format!("<{field}: {min} to {max}>"),
        ParamKind::Distribute { total, .. } | ParamKind::Allot { total, .. } => {
            format!("<{field}: {total} in all, as CODE=COUNT>")
        }
    }
}

/// The seat's choices as numbered reply lines.
pub fn reply_lines(choices: &[Choice]) -> Vec<ReplyLine> {
    choices
        .iter()
        .enumerate()
        .map(|(i, choice)| {
            let mut text = choice.label.to_string();
            let mut options = Vec::new();
            for param in &choice.params {
                text.push(' ');
                text.push_str(&hint(&param.field, &param.kind));
                if let ParamKind::One { options: o }
                | ParamKind::Pick { options: o, .. }
                | ParamKind::Distribute { options: o, .. }
                | ParamKind::Allot { options: o, .. } = &param.kind
                {
                    options.extend(o.iter().map(option_line));
                }
            }
            if let Some(warning) = &choice.warning {
                text.push_str(&format!(" (caution: {warning})"));
            }
            ReplyLine {
                number: i + 1,
                text,
                options,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_number_the_choices_and_say_what_to_add() {
        let choices = vec![
            Choice::action("Pass", json!({"type": "pass"})),
            Choice::action("Bid", json!({"type": "bid"})).with_param(
                "amount",
                "How many?",
                ParamKind::Number {
                    min: 280,
                    max: 530,
                    step: 10,
                },
            ),
            Choice::action("Play a card", json!({"type": "play"})).with_param(
                "card",
                "Which?",
                ParamKind::One {
                    options: vec![PickOption::new("TN", "Q♥ Tennessee (11)")],
                },
            ),
        ];
        let lines = reply_lines(&choices);
        assert_eq!(lines[0].text, "Pass");
        assert_eq!(
            lines[1].text, "Bid <amount: 280 to 530, steps of 10>",
            "{lines:?}"
        );
        assert_eq!(lines[2].number, 3);
        assert_eq!(lines[2].text, "Play a card <card>");
        assert_eq!(lines[2].options, vec!["TN  Q♥ Tennessee (11)"]);
    }
}
