//! A reply line read against a seat's choices: the choice by its number or by the leading
//! words of its label, then each parameter by an option's code, face or name, or a number.

use super::words::{aliases, normalize, words};
use crate::engine::{Choice, ParamKind, PickOption};
use serde_json::Value;

/// The longest option name, in words ("Northern Mariana Islands").
const MAX_SPAN: usize = 4;

/// A reply line understood.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The choice's index among the seat's choices.
    pub index: usize,
    /// The command built from it.
    pub command: Value,
    /// What the player chose, in words ("Play a card: Q♥ Tennessee (11)").
    pub said: String,
}

/// Why a reply line is not a choice, in words for the answer mail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// Nothing to read.
    #[error("the reply has no line to read")]
    Empty,
    /// Nothing is open to the seat.
    #[error("you have nothing to decide now")]
    NothingOpen,
    /// A number that is no choice.
    #[error("there is no choice {given}: reply with 1 to {count}")]
    NoSuchNumber { given: usize, count: usize },
    /// The words start no choice's label.
    #[error("\"{0}\" starts none of the choices")]
    Unknown(String),
    /// The words fit several choices.
    #[error("\"{line}\" fits several choices ({numbers}): reply with the number")]
    Ambiguous { line: String, numbers: String },
    /// The choice was found but what follows does not fill it.
    #[error("{label}: {reason}")]
    Fill { label: String, reason: String },
}

/// One choice's best reading: its index, the label words used, and the command or complaint.
type Reading = (usize, usize, Result<(Value, String), ReadError>);

/// Reads `line` against `choices`.
pub fn read(line: &str, choices: &[Choice]) -> Result<Read, ReadError> {
    let tokens = words(line);
    if tokens.is_empty() {
        return Err(ReadError::Empty);
    }
    if choices.is_empty() {
        return Err(ReadError::NothingOpen);
    }
    if let Ok(given) = tokens[0].trim_end_matches(['.', ')']).parse::<usize>() {
        let index = given.wrapping_sub(1);
        let choice = choices.get(index).ok_or(ReadError::NoSuchNumber {
            given,
            count: choices.len(),
        })?;
        return fill(choice, &tokens[1..]).map(|(command, said)| Read {
            index,
            command,
            said,
        });
    }
    let mut found: Vec<Reading> = Vec::new();
    for (index, choice) in choices.iter().enumerate() {
        let label = words(&choice.label);
        let most = label_words(&label, &tokens);
        if most == 0 {
            continue;
        }
        // The longest reading of label words that leaves a fill that works; else the first
        // reading's complaint.
        let mut outcome = None;
        for used in (1..=most).rev() {
            match fill(choice, &tokens[used..]) {
                Ok(done) => {
                    outcome = Some((used, Ok(done)));
                    break;
                }
                Err(e) if outcome.is_none() => outcome = Some((used, Err(e))),
                Err(_) => {}
            }
        }
        if let Some((used, result)) = outcome {
            found.push((index, used, result));
        }
    }
    let working: Vec<_> = found.iter().filter(|(_, _, r)| r.is_ok()).collect();
    let pool: Vec<_> = if working.is_empty() {
        found.iter().collect()
    } else {
        working
    };
    let best = pool.iter().map(|(_, used, _)| *used).max();
    let Some(best) = best else {
        return Err(ReadError::Unknown(line.trim().chars().take(60).collect()));
    };
    let top: Vec<_> = pool.into_iter().filter(|(_, u, _)| *u == best).collect();
    if top.len() > 1 {
        return Err(ReadError::Ambiguous {
            line: line.trim().chars().take(60).collect(),
            numbers: top
                .iter()
                .map(|(i, _, _)| (i + 1).to_string())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    let (index, _, result) = top[0];
    result.clone().map(|(command, said)| Read {
        index: *index,
        command,
        said,
    })
}

/// How many leading reply words are words of the label, the first one its first word, the
/// others in the label's order (words may be left out: "declare guam" for "Declare statehood
/// for Guam").
fn label_words(label: &[String], tokens: &[String]) -> usize {
    if label.first() != tokens.first() {
        return 0;
    }
    let mut at = 1;
    let mut used = 1;
    for token in &tokens[1..] {
        match label[at..].iter().position(|w| w == token) {
            Some(p) => {
                at += p + 1;
                used += 1;
            }
            None => break,
        }
    }
    used
}

/// The option named by the words at the start of `tokens`, and how many words it took.
fn option_at(options: &[PickOption], tokens: &[String]) -> Result<Option<(usize, usize)>, String> {
    let names: Vec<(Vec<String>, Vec<String>)> = options.iter().map(aliases).collect();
    for span in (1..=MAX_SPAN.min(tokens.len())).rev() {
        let said = tokens[..span].join(" ");
        for tier in [0, 1] {
            let hits: Vec<usize> = names
                .iter()
                .enumerate()
                .filter(|(_, (exact, other))| {
                    let list = if tier == 0 { exact } else { other };
                    list.contains(&said)
                })
                .map(|(i, _)| i)
                .collect();
            match hits.len() {
                0 => {}
                1 => return Ok(Some((hits[0], span))),
                _ => {
                    return Err(format!(
                        "\"{said}\" could be {}",
                        hits.iter()
                            .map(|&i| options[i].label.as_ref())
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ));
                }
            }
        }
    }
    Ok(None)
}

fn not_an_option(token: &str) -> String {
    format!("\"{token}\" is not one of the options")
}

/// Fills the choice's parameters from `tokens`; every word must be used.
fn fill(choice: &Choice, tokens: &[String]) -> Result<(Value, String), ReadError> {
    let fail = |reason: String| ReadError::Fill {
        label: choice.label.to_string(),
        reason,
    };
    let mut at = 0;
    let mut values = Vec::new();
    let mut said = Vec::new();
    for (i, param) in choice.params.iter().enumerate() {
        let last = i + 1 == choice.params.len();
        let rest = &tokens[at..];
        match &param.kind {
            ParamKind::One { options } => {
                let first = rest.first().ok_or_else(|| fail(param.prompt.to_string()))?;
                let (option, span) = option_at(options, rest)
                    .map_err(&fail)?
                    .ok_or_else(|| fail(not_an_option(first)))?;
                values.push(options[option].value.clone().into_owned());
                said.push(options[option].label.to_string());
                at += span;
            }
            ParamKind::Number { .. } => {
                let first = rest.first().ok_or_else(|| fail(param.prompt.to_string()))?;
                let n: i64 = first
                    .parse()
                    .map_err(|_| fail(format!("\"{first}\" is not a whole number")))?;
                values.push(Value::from(n));
                said.push(n.to_string());
                at += 1;
            }
            ParamKind::Pick { options, .. } => {
                let mut picked: Vec<usize> = Vec::new();
                let mut used = 0;
                while used < rest.len() {
                    match option_at(options, &rest[used..]).map_err(&fail)? {
                        Some((option, span)) => {
                            if picked.contains(&option) {
                                return Err(fail(format!(
                                    "{} is named twice",
                                    options[option].label
                                )));
                            }
                            picked.push(option);
                            used += span;
                        }
                        None if last => return Err(fail(not_an_option(&rest[used]))),
                        None => break,
                    }
                }
                picked.sort_unstable();
                values.push(Value::Array(
                    picked
                        .iter()
                        .map(|&o| options[o].value.clone().into_owned())
                        .collect(),
                ));
                said.push(
                    picked
                        .iter()
                        .map(|&o| options[o].label.as_ref())
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                at += used;
            }
            ParamKind::Distribute { options, .. } | ParamKind::Allot { options, .. } => {
                let mut counts = vec![0u64; options.len()];
                while at < tokens.len() {
                    let token = &tokens[at];
                    let (name, count) = match token.split_once(['=', ':']) {
                        Some((name, count)) => (
                            name.to_string(),
                            count
                                .parse::<u64>()
                                .map_err(|_| fail(format!("\"{count}\" is not a count")))?,
                        ),
                        None => (token.clone(), 1),
                    };
                    let (option, _) = option_at(options, std::slice::from_ref(&name))
                        .map_err(&fail)?
                        .ok_or_else(|| fail(not_an_option(&name)))?;
                    counts[option] += count;
                    at += 1;
                }
                said.push(
                    options
                        .iter()
                        .zip(&counts)
                        .filter(|(_, c)| **c > 0)
                        .map(|(o, c)| format!("{} ×{c}", o.label))
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                values.push(Value::Array(counts.into_iter().map(Value::from).collect()));
            }
        }
    }
    if let Some(extra) = tokens.get(at) {
        return Err(fail(format!("\"{extra}\" is not understood here")));
    }
    let command = choice.build(&values).map_err(|e| fail(e.to_string()))?;
    let said = if said.is_empty() {
        choice.label.to_string()
    } else {
        format!("{}: {}", choice.label, said.join("; "))
    };
    Ok((command, said))
}

/// The first line of a reply body worth reading: not empty, not quoted (`>`), not an
/// attribution ("On Monday, Ann wrote:"), and above any signature (`-- `).
pub fn first_line(body: &str) -> Option<&str> {
    for line in body.lines() {
        let trimmed = line.trim();
        if line.trim_end() == "--" || line.starts_with("-- ") || trimmed == "__" {
            return None;
        }
        if trimmed.is_empty() || trimmed.starts_with('>') {
            continue;
        }
        if trimmed.ends_with("wrote:") || trimmed.ends_with("schrieb:") {
            continue;
        }
        if normalize(trimmed).is_none() {
            continue;
        }
        return Some(trimmed);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::PickRule;
    use serde_json::json;

    fn cards(codes: &[(&str, &str)]) -> Vec<PickOption> {
        codes
            .iter()
            .map(|(c, l)| PickOption::new(*c, l.to_string()))
            .collect()
    }

    fn whitehouse_like() -> Vec<Choice> {
        vec![
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
                "Which card do you play?",
                ParamKind::One {
                    options: cards(&[
                        ("TN", "Q♥ Tennessee (11)"),
                        ("CA", "A♠ California (54)"),
                        ("NC", "10♠ North Carolina (16)"),
                        ("AS", "American Samoa"),
                    ]),
                },
            ),
        ]
    }

    #[test]
    fn by_number_and_by_words_in_any_case() {
        let c = whitehouse_like();
        assert_eq!(read("1", &c).unwrap().command, json!({"type": "pass"}));
        assert_eq!(read("PASS", &c).unwrap().index, 0);
        let bid = read("bid 300", &c).unwrap();
        assert_eq!(bid.command, json!({"type": "bid", "amount": 300}));
        assert_eq!(bid.said, "Bid: 300");
        assert_eq!(read("2. 310", &c).unwrap().command["amount"], 310);
        for said in [
            "play QH",
            "Play tn",
            "3 tennessee",
            "play q♥",
            "play a card Tennessee",
        ] {
            assert_eq!(read(said, &c).unwrap().command["card"], "TN", "{said}");
        }
        assert_eq!(
            read("play north carolina", &c).unwrap().command["card"],
            "NC"
        );
        assert_eq!(read("play 10s", &c).unwrap().command["card"], "NC");
        // The game's own code first: AS is American Samoa, not the ace of spades.
        assert_eq!(read("play AS", &c).unwrap().command["card"], "AS");
    }

    #[test]
    fn mistakes_say_why() {
        let c = whitehouse_like();
        assert_eq!(
            read("7", &c),
            Err(ReadError::NoSuchNumber { given: 7, count: 3 })
        );
        assert!(matches!(read("fold", &c), Err(ReadError::Unknown(_))));
        let e = read("bid 305", &c).unwrap_err().to_string();
        assert!(e.contains("steps of 10"), "{e}");
        let e = read("bid lots", &c).unwrap_err().to_string();
        assert!(e.contains("not a whole number"), "{e}");
        let e = read("play XX", &c).unwrap_err().to_string();
        assert!(e.contains("\"xx\" is not one of the options"), "{e}");
        let e = read("pass thanks", &c).unwrap_err().to_string();
        assert!(e.contains("\"thanks\" is not understood"), "{e}");
        assert_eq!(read("  ", &c), Err(ReadError::Empty));
        assert_eq!(read("pass", &[]), Err(ReadError::NothingOpen));
    }

    #[test]
    fn leading_words_pick_the_longest_fit_and_refuse_a_tie() {
        let option = |c: &str| PickOption::new(c, c.to_string());
        let c = vec![
            Choice::action(
                "Declare statehood for Guam",
                json!({"type": "w", "g": "GU"}),
            )
            .with_param(
                "defence",
                "?",
                ParamKind::One {
                    options: vec![option("TX")],
                },
            ),
            Choice::action("Declare statehood for DC", json!({"type": "dc"})).with_param(
                "defence",
                "?",
                ParamKind::Pick {
                    options: vec![option("TX"), option("NY")],
                    min: 1,
                    max: 2,
                    rule: PickRule::Any,
                },
            ),
            Choice::action("Do not challenge Puerto Rico", json!({"type": "pass"})),
        ];
        assert_eq!(read("declare guam tx", &c).unwrap().index, 0);
        assert_eq!(read("declare statehood for dc ny tx", &c).unwrap().index, 1);
        assert_eq!(
            read("declare dc ny, tx", &c).unwrap().command,
            json!({"type": "dc", "defence": ["TX", "NY"]})
        );
        assert!(matches!(
            read("declare tx", &c),
            Err(ReadError::Ambiguous { .. })
        ));
        // "challenge" is not the first word of "Do not challenge".
        assert!(matches!(read("challenge", &c), Err(ReadError::Unknown(_))));
    }

    #[test]
    fn distribute_by_code_and_count() {
        let c = vec![
            Choice::action("Place cubes", json!({"type": "place"})).with_param(
                "cubes",
                "?",
                ParamKind::Distribute {
                    options: cards(&[("CA", "California"), ("TX", "Texas")]),
                    total: 3,
                    max_each: 2,
                },
            ),
        ];
        assert_eq!(
            read("place CA=2 tx", &c).unwrap().command["cubes"],
            json!([2, 1])
        );
        assert!(read("place CA=3", &c).is_err());
    }

    #[test]
    fn the_first_line_skips_quotes_attributions_and_signatures() {
        assert_eq!(first_line("\n\n  play QH  \nthanks"), Some("play QH"));
        assert_eq!(
            first_line("On Mon, Ann <a@b> wrote:\n> 1 Pass\n\nbid 300\n"),
            Some("bid 300")
        );
        assert_eq!(first_line("> 1 Pass\n-- \nAnn\nbid 300"), None);
        assert_eq!(first_line("pass\n-- \nAnn"), Some("pass"));
        assert_eq!(first_line("..."), None);
    }
}
