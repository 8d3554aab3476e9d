//! A hint in words: the move as the seat's page offers it (its choice's label and the answers
//! to its questions), and the search's estimate as a chance.

use crate::engine::log::render;
use crate::engine::{Choice, ParamKind, PickOption};
use serde_json::Value;

/// The move `command` as the seat's page words it among `choices` ("Take the higher card —
/// Which card? California (54)"), seat placeholders filled with `names`; the command's JSON
/// when no choice offers it (never for a command the search took from those choices).
pub fn move_words(choices: &[Choice], command: &Value, names: &[String]) -> String {
    choices
        .iter()
        .find_map(|choice| choice_words(choice, command, names))
        .unwrap_or_else(|| command.to_string())
}

/// The words of `command` when it is a filling of `choice`.
fn choice_words(choice: &Choice, command: &Value, names: &[String]) -> Option<String> {
    let label = render(&choice.label, names);
    if choice.params.is_empty() {
        return (*choice.command == *command).then_some(label);
    }
    let values: Vec<Value> = choice
        .params
        .iter()
        .map(|p| command.get(&*p.field).cloned())
        .collect::<Option<_>>()?;
    if choice.build(&values).ok()? != *command {
        return None;
    }
    let answers: Vec<String> = choice
        .params
        .iter()
        .zip(&values)
        .map(|(param, value)| {
            let answer = answer_words(&param.kind, value, names);
            format!("{} {answer}", render(&param.prompt, names))
        })
        .collect();
    Some(format!("{label} — {}", answers.join("; ")))
}

/// One parameter's value in words: the options' labels, a number, or counts on options.
fn answer_words(kind: &ParamKind, value: &Value, names: &[String]) -> String {
    let label_of = |options: &[PickOption], v: &Value| {
        options
            .iter()
            .find(|o| *o.value == *v)
            .map_or_else(|| v.to_string(), |o| render(&o.label, names))
    };
    let counts = |options: &[PickOption]| {
        let placed: Vec<String> = options
            .iter()
            .zip(value.as_array().into_iter().flatten())
            .filter_map(|(o, n)| {
                let n = n.as_u64().filter(|n| *n > 0)?;
                Some(format!("{n} on {}", render(&o.label, names)))
            })
            .collect();
        placed.join(", ")
    };
    match kind {
        ParamKind::One { options } => label_of(options, value),
        ParamKind::Number { .. } => value.to_string(),
        ParamKind::Pick { options, .. } => {
            let picked: Vec<String> = value
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| label_of(options, v))
                .collect();
            if picked.is_empty() {
                "none".to_string()
            } else {
                picked.join(", ")
            }
        }
        ParamKind::Distribute { options, .. } | ParamKind::Allot { options, .. } => counts(options),
    }
}

/// The search's estimate of the seat's chance to win after the move, in words ("about 62%
/// (a draw counts half)"), or that the move is the only one.
pub fn estimate_words(estimate: Option<f64>, playouts: u32) -> String {
    match estimate {
        Some(chance) => format!(
            "From {playouts} games played out from here on guesses at what you cannot see, it \
             puts your chance of winning after this move at about {}% (a draw counts half).",
            (chance * 100.0).round() as i64
        ),
        None => "It is the only move open to you, so the bot did not weigh it.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_move_reads_as_its_choice_and_answers() {
        let pass = Choice::action("Pass", json!({"type": "pass"}));
        let bid = Choice::action("Bid", json!({"type": "bid"})).with_param(
            "amount",
            "How much?",
            ParamKind::Number {
                min: 1,
                max: 9,
                step: 1,
            },
        );
        let names = vec!["Ann".to_string()];
        let choices = [pass, bid];
        assert_eq!(
            move_words(&choices, &json!({"type": "pass"}), &names),
            "Pass"
        );
        assert_eq!(
            move_words(&choices, &json!({"type": "bid", "amount": 4}), &names),
            "Bid — How much? 4"
        );
        assert_eq!(
            move_words(&choices, &json!({"type": "fold"}), &names),
            "{\"type\":\"fold\"}"
        );
    }

    #[test]
    fn the_estimate_reads_as_a_chance() {
        assert!(estimate_words(Some(0.624), 300).contains("about 62%"));
        assert!(estimate_words(None, 0).contains("only move"));
    }
}
