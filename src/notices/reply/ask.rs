//! What a choice asks for, in the words of its questions, and one reply that would be
//! accepted ("Bid — How many electoral votes will your side take? A number from 280 to 530,
//! in steps of 10. — reply: 2 280"), built from the legal values and read back before it is
//! shown.

use crate::engine::{Choice, Param, ParamKind, PickOption, PickRule};
use crate::notices::reply::read::read;
use crate::notices::reply::{option_codes, placing, question_after};

/// What separates a choice's label, each of its questions and its example reply.
pub const PART: &str = " — ";

/// What starts the example reply after the last [`PART`].
pub const EXAMPLE: &str = "reply: ";

/// A rule on how many options to pick, as a person says it ("Pick 1 to 3.").
fn how_many(min: usize, max: usize, len: usize) -> String {
    let max = max.min(len);
    match (min, max) {
        (0, m) if m == len => "Pick any of them, or none".to_string(),
        (0, m) => format!("Pick up to {m}, or none"),
        (n, m) if n == m => format!("Pick {n}"),
        (n, m) if m == len => format!("Pick {n} or more"),
        (n, m) => format!("Pick {n} to {m}"),
    }
}

/// The rule of a parameter summed up, when its question and its listed options do not say it
/// all: how many to pick, which numbers.
pub fn rule(kind: &ParamKind) -> Option<String> {
    match kind {
        ParamKind::Distribute { .. } | ParamKind::Allot { .. } => placing::rule(kind),
        ParamKind::One { .. } => None,
        ParamKind::Pick {
            options,
            min,
            max,
            rule,
        } => {
            let count = how_many(*min, *max, options.len());
            Some(match rule.explain() {
                Some(why) => format!("{count}; {why}"),
                None => count,
            })
        }
        ParamKind::Number { min, max, .. } if min >= max => Some(format!("The number {min}")),
        ParamKind::Number { min, max, step } if *step > 1 => {
            Some(format!("A number from {min} to {max}, in steps of {step}"))
        }
        ParamKind::Number { min, max, .. } => Some(format!("A number from {min} to {max}")),
    }
}

/// A parameter's question and its rule, as sentences.
pub fn question(param: &Param) -> String {
    let prompt = param.prompt.trim();
    let Some(rule) = rule(&param.kind) else {
        return prompt.to_string();
    };
    let stop = if prompt.ends_with(['?', '.', '!', ')']) {
        ""
    } else {
        "."
    };
    format!("{prompt}{stop} {rule}.")
}

/// How an option is written in an example: its printed code, else its label's words before
/// any part in brackets.
fn name(option: &PickOption, code: Option<&str>) -> String {
    match code {
        Some(code) => code.to_string(),
        None => {
            let bare = option.label.split('(').next().unwrap_or_default().trim();
            if bare.is_empty() {
                option.label.to_string()
            } else {
                bare.to_string()
            }
        }
    }
}

/// The options of a pick an example names: the fewest its rule allows (at least one), and for
/// a total to exceed, the heaviest first.
fn example_pick(options: &[PickOption], min: usize, max: usize, rule: &PickRule) -> Vec<usize> {
    let want = min.max(1).min(max).min(options.len());
    let mut chosen: Vec<usize> = match rule {
        PickRule::Any => (0..want).collect(),
        PickRule::SumAbove { threshold } => {
            let mut order: Vec<usize> = (0..options.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(options[i].weight));
            let mut k = want;
            while k < max.min(options.len())
                && order[..k].iter().map(|&i| options[i].weight).sum::<i64>() <= *threshold
            {
                k += 1;
            }
            order.truncate(k);
            order
        }
        PickRule::SameGroup => {
            let fits = options.iter().find_map(|o| {
                let same: Vec<usize> = (0..options.len())
                    .filter(|&i| o.group.is_some() && options[i].group == o.group)
                    .collect();
                (same.len() >= want).then(|| same[..want].to_vec())
            });
            fits.unwrap_or_default()
        }
    };
    chosen.sort_unstable();
    chosen
}

/// The words an example gives for one parameter; `None` for a placement (its words are its
/// own) or a rule no example meets.
fn example_value(param: &Param) -> Option<String> {
    match &param.kind {
        ParamKind::One { options } => {
            let codes = option_codes(options);
            Some(name(options.first()?, codes[0]))
        }
        ParamKind::Pick {
            options,
            min,
            max,
            rule,
        } => {
            let codes = option_codes(options);
            let chosen = example_pick(options, *min, *max, rule);
            if chosen.is_empty() && *min > 0 {
                return None;
            }
            let names: Vec<String> = chosen
                .iter()
                .map(|&i| name(&options[i], codes[i]))
                .collect();
            Some(names.join(" "))
        }
        ParamKind::Number { min, .. } => Some(min.to_string()),
        ParamKind::Distribute { .. } | ParamKind::Allot { .. } => None,
    }
}

/// What is said after a question whose answer may stand anywhere on the line.
const ANYWHERE: &str = "Write the answer anywhere on the line.";

/// One reply line that plays choice `index` of `choices` (its number and a legal value for
/// each parameter: cubes placed in words, the answer after them), checked by reading it back;
/// `None` for a choice with nothing to add, or when no such line reads as that choice.
pub fn example(choices: &[Choice], index: usize) -> Option<String> {
    let choice = choices.get(index)?;
    if choice.params.is_empty() {
        return None;
    }
    let mut line = (index + 1).to_string();
    let placements: Vec<&Param> = choice
        .params
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                ParamKind::Distribute { .. } | ParamKind::Allot { .. }
            )
        })
        .collect();
    if placements.is_empty() {
        for param in &choice.params {
            let value = example_value(param)?;
            if !value.is_empty() {
                line.push(' ');
                line.push_str(&value);
            }
        }
    } else {
        line.push(' ');
        line.push_str(&placing::example(&placements)?);
        if let Some(after) = question_after(choice) {
            line.push_str(", ");
            line.push_str(&example_value(after)?);
            line.push_str(" first");
        }
    }
    let read_back = read(&line, choices).ok()?;
    (read_back.index == index).then_some(line)
}

/// A choice's line: its label and caution, the question of each parameter it needs and an
/// example reply.
pub fn text(choices: &[Choice], index: usize) -> String {
    let choice = &choices[index];
    let mut text = choice.label.to_string();
    if let Some(warning) = &choice.warning {
        text.push_str(&format!(" (caution: {warning})"));
    }
    let after = question_after(choice);
    for param in &choice.params {
        text.push_str(PART);
        text.push_str(&question(param));
        if after.is_some_and(|a| std::ptr::eq(a, param)) {
            text.push(' ');
            text.push_str(ANYWHERE);
        }
    }
    if let Some(example) = example(choices, index) {
        text.push_str(PART);
        text.push_str(EXAMPLE);
        text.push_str(&example);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_are_said_as_a_person_says_them() {
        assert_eq!(how_many(2, 2, 5), "Pick 2");
        assert_eq!(how_many(1, 3, 5), "Pick 1 to 3");
        assert_eq!(how_many(0, 5, 5), "Pick any of them, or none");
        assert_eq!(how_many(0, 2, 5), "Pick up to 2, or none");
        assert_eq!(how_many(2, 9, 5), "Pick 2 or more");
    }

    #[test]
    fn a_pick_whose_total_must_exceed_names_the_heaviest() {
        let options: Vec<PickOption> = [3, 20, 5, 11]
            .iter()
            .enumerate()
            .map(|(i, w)| PickOption::new(format!("C{i}"), format!("Card {i}")).weighted(*w))
            .collect();
        let choices = vec![
            Choice::action("Pass", json!({"type": "pass"})),
            Choice::action("Declare", json!({"type": "declare"})).with_param(
                "cards",
                "Which cards? (more than 28 votes to succeed)",
                ParamKind::Pick {
                    options,
                    min: 1,
                    max: 4,
                    rule: PickRule::SumAbove { threshold: 28 },
                },
            ),
        ];
        assert_eq!(example(&choices, 1).as_deref(), Some("2 C1 C3"));
        assert_eq!(example(&choices, 0), None);
        assert_eq!(
            text(&choices, 1),
            "Declare — Which cards? (more than 28 votes to succeed) Pick 1 or more; their \
             total must exceed 28. — reply: 2 C1 C3"
        );
    }
}
