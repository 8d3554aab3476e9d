//! Choices as lines a player can type back in a reply ([`reply_lines`]), and a typed line read
//! back into a command ([`read`]). Both work from the game-agnostic [`Choice`] description
//! alone, so every game gets them without code of its own.

pub mod address;
pub mod ask;
#[cfg(any(test, feature = "testing"))]
pub mod check;
mod placing;
mod read;
#[cfg(test)]
mod tables;
mod words;

pub use read::{Read, ReadError, first_line, read};

use crate::engine::{Choice, ParamKind, PickOption};
use serde::{Deserialize, Serialize};

/// One choice as a reply line: "2  Bid — How many electoral votes will your side take? A
/// number from 280 to 530, in steps of 10. — reply: 2 280".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyLine {
    /// The number to reply with (from 1).
    pub number: usize,
    /// The label, the question of each parameter to add after it, and an example reply.
    pub text: String,
    /// The values a parameter takes, one per line: "TN  Q♥ Tennessee (11)".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// The longest value printed as an option's code.
const LONGEST_CODE: usize = 24;

/// The code printed for each option of a parameter, to copy into a reply: the game's
/// [`PickOption::code`], else the option's value when it is one short word (no underscore)
/// no other option of the parameter has; none when the option is to be named by its words.
pub fn option_codes(options: &[PickOption]) -> Vec<Option<&str>> {
    options
        .iter()
        .map(|option| {
            if let Some(code) = &option.code {
                return Some(code.as_ref());
            }
            let value = option.value.as_str()?;
            // A value joined by underscores ("FAKE_NEWS") is the program's name, not a code
            // for a person: such an option is named by its words.
            let short = value.len() <= LONGEST_CODE
                && !value.contains(char::is_whitespace)
                && !value.contains('_');
            let shared = options
                .iter()
                .filter(|o| o.value.as_str() == Some(value))
                .count()
                > 1;
            (short && !shared && value != option.label).then_some(value)
        })
        .collect()
}

/// An option's line: its code and its label, or its label alone.
fn option_line(option: &PickOption, code: Option<&str>) -> String {
    match code {
        Some(code) => format!("{code}  {}", option.label),
        None => option.label.to_string(),
    }
}

/// What starts the line naming a parameter, above its options, when a choice lists the
/// options of several.
pub const PARAM_MARK: &str = "— ";

fn has_options(param: &crate::engine::Param) -> bool {
    !matches!(param.kind, ParamKind::Number { .. })
}

fn is_placement(param: &crate::engine::Param) -> bool {
    matches!(
        param.kind,
        ParamKind::Distribute { .. } | ParamKind::Allot { .. }
    )
}

/// The question after a choice's placements whose answer may stand anywhere on the line (which
/// colour the Opposition's red cubes remove first), if the choice has one: its answers are in
/// its words, not listed.
pub(crate) fn question_after(choice: &Choice) -> Option<&crate::engine::Param> {
    match choice.params.split_last() {
        Some((last, rest))
            if !rest.is_empty()
                && rest.iter().all(is_placement)
                && matches!(last.kind, ParamKind::One { .. }) =>
        {
            Some(last)
        }
        _ => None,
    }
}

/// The seat's choices as numbered reply lines.
pub fn reply_lines(choices: &[Choice]) -> Vec<ReplyLine> {
    let mut lines: Vec<ReplyLine> = choices
        .iter()
        .enumerate()
        .map(|(i, choice)| {
            let text = ask::text(choices, i);
            let mut options = Vec::new();
            let after = question_after(choice);
            let listed = |p: &&crate::engine::Param| {
                has_options(p) && !after.is_some_and(|a| std::ptr::eq(a, *p))
            };
            let listing = choice.params.iter().filter(listed).count();
            for param in choice.params.iter().filter(listed) {
                if listing > 1 {
                    options.push(format!("{PARAM_MARK}{}", param.prompt));
                }
                match &param.kind {
                    ParamKind::One { options: o } | ParamKind::Pick { options: o, .. } => {
                        let codes = option_codes(o);
                        options.extend(o.iter().zip(codes).map(|(o, c)| option_line(o, c)));
                    }
                    kind => options.extend(placing::option_lines(kind)),
                }
            }
            ReplyLine {
                number: i + 1,
                text,
                options,
            }
        })
        .collect();
    // Options listed whole once: a later choice offering the very same ones (a hand of cards
    // to play as an event, for campaigning, ...) refers back to the first.
    for i in 1..lines.len() {
        if lines[i].options.is_empty() {
            continue;
        }
        if let Some(first) = lines[..i].iter().find(|l| l.options == lines[i].options) {
            let same = format!("{SAME_AS}{})", first.number);
            lines[i].options = vec![same];
        }
    }
    lines
}

/// How a choice's option list says it offers the same options as an earlier choice (the
/// number and a closing bracket follow): "(the same as 1)".
pub const SAME_AS: &str = "(the same as ";

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
            lines[1].text,
            "Bid — How many? A number from 280 to 530, in steps of 10. — reply: 2 280",
            "{lines:?}"
        );
        assert_eq!(lines[2].number, 3);
        assert_eq!(lines[2].text, "Play a card — Which? — reply: 3 TN");
        assert_eq!(lines[2].options, vec!["TN  Q♥ Tennessee (11)"]);
    }

    #[test]
    fn the_same_options_are_listed_once() {
        let hand = || ParamKind::One {
            options: vec![
                PickOption::new("a", "Frances Willard"),
                PickOption::new("b", "Carrie Chapman Catt"),
            ],
        };
        let choices = vec![
            Choice::action("As an event", json!({"type": "event"})).with_param("card", "?", hand()),
            Choice::action("For organizing", json!({"type": "organize"})).with_param(
                "card",
                "?",
                hand(),
            ),
        ];
        let lines = reply_lines(&choices);
        assert_eq!(lines[0].options.len(), 2);
        assert_eq!(lines[1].options, vec!["(the same as 1)".to_string()]);
    }
}
