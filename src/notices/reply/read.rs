//! A reply line read against a seat's choices. A line may name its choice by number, by words
//! of its label, or not at all when the options it names belong to one choice only; then each
//! parameter by an option's code or words, a number, or cubes to place ("NY 2 purple"). Every
//! way the line can be read is tried: it is played only when all that work mean one command,
//! and refused with what it could mean otherwise.

use crate::engine::{Choice, FillError, Param, ParamKind, PickOption};
use crate::notices::reply::words::{Alias, aliases, normalize, tokens, words};
use crate::notices::reply::{option_codes, placing, question_after};
use serde_json::Value;

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
    /// The words name no choice and none of their options.
    #[error("\"{0}\" names none of the choices or their options")]
    Unknown(String),
    /// The line could mean several commands.
    #[error("\"{line}\" could be {readings}: reply with the number of the choice and its options")]
    Ambiguous { line: String, readings: String },
    /// The line's words fit the start of several choices' labels and none of them wholly.
    #[error(
        "\"{line}\" fits choice {choices}: write the words that tell them apart, or the \
         choice's number"
    )]
    Which { line: String, choices: String },
    /// The choice was found but what follows does not fill it.
    #[error("{label}: {reason}")]
    Fill { label: String, reason: String },
}

/// A command read from a line, and its words.
type Filled = (Value, String);

/// Words that never start the words of a choice's label on their own.
const FILLER: &[&str] = &[
    "a", "an", "the", "of", "for", "or", "and", "to", "with", "from", "your", "my", "in", "on",
    "as", "any", "one", "other", "by", "at", "it", "card", "cards",
];

/// Words that turn a label's meaning: the words of a label after one of them never name the
/// choice without it ("challenge" is not "Do not challenge").
const NEGATIONS: &[&str] = &["not", "no", "don't", "never", "without"];

fn is_number(token: &str) -> bool {
    token.parse::<i64>().is_ok()
}

fn cut(line: &str) -> String {
    line.trim().chars().take(60).collect()
}

/// Reads `line` against `choices`.
pub fn read(line: &str, choices: &[Choice]) -> Result<Read, ReadError> {
    let tokens = tokens(line);
    if tokens.iter().all(|t| t == ",") {
        return Err(ReadError::Empty);
    }
    if choices.is_empty() {
        return Err(ReadError::NothingOpen);
    }
    let start = tokens.iter().position(|t| t != ",").unwrap_or_default();
    let tokens = &tokens[start..];
    // By number: "3 TN", "2. 310".
    let mut by_number = None;
    if let Ok(given) = tokens[0].trim_end_matches(['.', ')']).parse::<usize>() {
        match given.checked_sub(1).and_then(|i| choices.get(i)) {
            Some(choice) => match fill(choice, &tokens[1..]) {
                Ok((command, said)) => {
                    return Ok(Read {
                        index: given - 1,
                        command,
                        said,
                    });
                }
                Err(e) => by_number = Some(e),
            },
            None => {
                by_number = Some(ReadError::NoSuchNumber {
                    given,
                    count: choices.len(),
                })
            }
        }
    }
    // By the label's words, or by options that imply the choice.
    let mut works: Vec<(usize, Filled)> = Vec::new();
    let mut by_label: Vec<(usize, ReadError)> = Vec::new();
    let mut by_option: Vec<(usize, ReadError)> = Vec::new();
    let labels: Vec<Vec<String>> = choices.iter().map(|c| words(&c.label)).collect();
    // How many words of each choice's label the line's start used (numbers left out: a
    // number after the label's words is an option as often as a word of the label), and
    // whether they hold a word of that label alone (or the whole label): a line that uses one
    // choice's distinguishing words does not mean a choice whose label it only shares the
    // start of ("take the" of "Take the higher card").
    let mut matched: Vec<(usize, bool)> = vec![(0, false); choices.len()];
    for (index, choice) in choices.iter().enumerate() {
        let label = &labels[index];
        let cuts = label_cuts(label, tokens);
        let longest = cuts.last().copied().unwrap_or(0);
        let own = distinguishing(&labels, index);
        let said: Vec<&String> = tokens[..longest]
            .iter()
            .filter(|t| label.contains(t))
            .collect();
        let whole = said.len() >= label.len();
        let strength = said.iter().filter(|t| !is_number(t)).count();
        matched[index] = (strength, whole || said.iter().any(|t| own.contains(t)));
        let mut outcome = None;
        for used in cuts.into_iter().rev() {
            match fill(choice, &tokens[used..]) {
                Ok(done) => {
                    outcome = Some(Ok(done));
                    break;
                }
                Err(e) if outcome.is_none() => outcome = Some(Err(e)),
                Err(_) => {}
            }
        }
        match outcome {
            Some(Ok(done)) => works.push((index, done)),
            Some(Err(e)) => by_label.push((index, e)),
            None => {}
        }
        if !matches!(works.last(), Some((i, _)) if *i == index) && names_an_option(choice, tokens) {
            match fill(choice, tokens) {
                Ok(done) => works.push((index, done)),
                Err(e) => by_option.push((index, e)),
            }
        }
    }
    if matched.iter().any(|m| m.1) {
        let by_other_words = |index: usize| matched[index].0 > 0 && !matched[index].1;
        works.retain(|(i, _)| !by_other_words(*i) || names_an_option(&choices[*i], tokens));
        by_label.retain(|(i, _)| !by_other_words(*i));
    }
    // Several choices whose labels the line fits equally, by none of their own words: the
    // line does not say which it means, even when its rest fills only one.
    let best = matched.iter().map(|m| m.0).max().unwrap_or(0);
    let tied: Vec<usize> = (0..choices.len())
        .filter(|&i| best > 0 && matched[i] == (best, false))
        .collect();
    let one_choice = works
        .iter()
        .all(|(i, _)| *i == works[0].0 && tied.contains(i));
    if by_number.is_none() && tied.len() >= 2 && one_choice {
        return Err(ReadError::Which {
            line: cut(line),
            choices: tied
                .iter()
                .map(|&i| {
                    let own = distinguishing(&labels, i);
                    match own.first() {
                        Some(word) => format!("{} ({}: \"{word}\")", i + 1, choices[i].label),
                        None => format!("{} ({})", i + 1, choices[i].label),
                    }
                })
                .collect::<Vec<_>>()
                .join(" or "),
        });
    }
    by_label.sort_by_key(|(i, _)| std::cmp::Reverse(matched[*i].0));
    let mut distinct: Vec<&(usize, Filled)> = Vec::new();
    for reading in &works {
        if !distinct.iter().any(|d| d.1.0 == reading.1.0) {
            distinct.push(reading);
        }
    }
    match distinct.as_slice() {
        [(index, (command, said))] => Ok(Read {
            index: *index,
            command: command.clone(),
            said: said.clone(),
        }),
        [] => Err(by_number
            .or_else(|| by_label.into_iter().next().map(|(_, e)| e))
            .or_else(|| {
                (by_option.len() == 1).then(|| by_option.into_iter().next().map(|(_, e)| e))?
            })
            .unwrap_or_else(|| ReadError::Unknown(cut(line)))),
        several => Err(ReadError::Ambiguous {
            line: cut(line),
            readings: several
                .iter()
                .map(|(i, (_, said))| format!("{} ({said})", i + 1))
                .collect::<Vec<_>>()
                .join(" or "),
        }),
    }
}

/// The words of choice `index`'s label that no other choice's label has (fillers and numbers
/// left out), in the label's order.
fn distinguishing(labels: &[Vec<String>], index: usize) -> Vec<String> {
    let mut own: Vec<String> = Vec::new();
    for word in &labels[index] {
        let shared = labels
            .iter()
            .enumerate()
            .any(|(j, other)| j != index && other.contains(word));
        if !shared && !FILLER.contains(&word.as_str()) && !is_number(word) && !own.contains(word) {
            own.push(word.clone());
        }
    }
    own
}

/// The numbers of leading reply tokens that are words of the label in its order, shortest
/// first ("take ohio" in "Take 7♥ Ohio (18) from the discard pile": 1 and 2). The first word must
/// be a word of the label that means something alone, after no negation; commas are skipped.
fn label_cuts(label: &[String], tokens: &[String]) -> Vec<usize> {
    let first = &tokens[0];
    let Some(from) = label.iter().position(|w| w == first) else {
        return Vec::new();
    };
    let plain = from == 0 || !(FILLER.contains(&first.as_str()) || is_number(first));
    if !plain
        || label[..from]
            .iter()
            .any(|w| NEGATIONS.contains(&w.as_str()))
    {
        return Vec::new();
    }
    let mut cuts = vec![1];
    let mut at = from + 1;
    for (i, token) in tokens.iter().enumerate().skip(1) {
        if token == "," {
            continue;
        }
        match label[at..].iter().position(|w| w == token) {
            Some(p) => {
                at += p + 1;
                cuts.push(i + 1);
            }
            // "let it stand": a filler the label lacks says nothing against it.
            None if FILLER.contains(&token.as_str()) => cuts.push(i + 1),
            None => break,
        }
    }
    cuts
}

/// Whether the line starts with the name of an option of the choice (after a count, for a
/// placement): only then may the choice be implied.
fn names_an_option(choice: &Choice, tokens: &[String]) -> bool {
    choice.params.iter().any(|param| {
        let Some(options) = options_of(param) else {
            return false;
        };
        let names = Names::of(&[options]);
        let skip = usize::from(is_placement(param) && is_number(&tokens[0]));
        tokens
            .get(skip..)
            .is_some_and(|rest| !rest.is_empty() && names.at(rest).is_some())
    })
}

fn options_of(param: &Param) -> Option<&[PickOption]> {
    match &param.kind {
        ParamKind::One { options }
        | ParamKind::Pick { options, .. }
        | ParamKind::Distribute { options, .. }
        | ParamKind::Allot { options, .. } => Some(options),
        ParamKind::Number { .. } => None,
    }
}

fn is_placement(param: &Param) -> bool {
    matches!(
        param.kind,
        ParamKind::Distribute { .. } | ParamKind::Allot { .. }
    )
}

/// The names of the options of one or more parameters, flattened in order.
struct Names<'a> {
    options: Vec<&'a PickOption>,
    aliases: Vec<Vec<Alias>>,
}

impl<'a> Names<'a> {
    fn of(lists: &[&'a [PickOption]]) -> Names<'a> {
        let mut options = Vec::new();
        let mut all = Vec::new();
        for list in lists {
            for (option, code) in list.iter().zip(option_codes(list)) {
                options.push(option);
                all.push(aliases(option, code));
            }
        }
        Names {
            options,
            aliases: all,
        }
    }

    /// The options named by the longest name at the start of `tokens` (of the best tier
    /// among the names that long), and how many tokens it took.
    fn at(&self, tokens: &[String]) -> Option<(Vec<usize>, usize)> {
        let mut best: Option<(usize, u8)> = None;
        let mut hits: Vec<usize> = Vec::new();
        for (i, list) in self.aliases.iter().enumerate() {
            for alias in list {
                if spans(&alias.words, tokens).is_none() {
                    continue;
                }
                let n = alias.words.len();
                let key = (n, alias.tier);
                let better = best.is_none_or(|(bn, bt)| n > bn || (n == bn && alias.tier < bt));
                if better {
                    best = Some(key);
                    hits.clear();
                }
                if best == Some(key) && !hits.contains(&i) {
                    hits.push(i);
                }
            }
        }
        let span = hits.first().and_then(|&h| {
            self.aliases[h]
                .iter()
                .filter(|a| Some((a.words.len(), a.tier)) == best)
                .find_map(|a| spans(&a.words, tokens))
        })?;
        Some((hits, span))
    }

    /// The distinct labels among `hits`, joined with "or".
    fn labels(&self, hits: &[usize]) -> String {
        let mut labels: Vec<&str> = Vec::new();
        for &h in hits {
            let label = self.options[h].label.as_ref();
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        labels.join(" or ")
    }
}

/// How many tokens `words` take at the start of `tokens`, commas inside them skipped (an
/// option's words as printed hold commas: "max 1 per state, 2 in Ohio").
fn spans(words: &[String], tokens: &[String]) -> Option<usize> {
    let mut at = 0;
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            at = skip_commas(tokens, at);
        }
        if tokens.get(at) != Some(word) {
            return None;
        }
        at += 1;
    }
    Some(at)
}

/// Words that join or introduce the options of a pick ("cards 1 and 4") and say nothing else.
fn is_joiner(token: &str) -> bool {
    matches!(token, "and" | "&" | "card" | "cards")
}

/// `reason` after the question it is about: "Which card do you play? \"xx\" is not one of
/// the options."
fn in_question(param: &Param, reason: &str) -> String {
    let prompt = param.prompt.trim();
    let joint = if prompt.ends_with(['?', '.', '!', ')']) {
        " "
    } else {
        ": "
    };
    let mut chars = reason.chars();
    let reason: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    format!("{prompt}{joint}{}.", reason.trim_end_matches('.'))
}

/// A parameter the line leaves out, in its question's words.
fn unsaid(param: &Param) -> String {
    in_question(param, "the line does not say")
}

/// A value the choice's rule refuses, in the words of the question it answers (never the
/// command's field).
fn fill_error(choice: &Choice, error: FillError) -> String {
    let param = |field: &str| choice.params.iter().find(|p| p.field == field);
    match error {
        FillError::Missing(field) => {
            param(&field).map_or_else(|| "the line leaves something out".to_string(), unsaid)
        }
        FillError::Invalid { field, reason } => match param(&field) {
            Some(param) => in_question(param, &reason),
            None => reason,
        },
    }
}

fn not_an_option(token: &str) -> String {
    format!("\"{token}\" is not one of the options")
}

fn skip_commas(tokens: &[String], mut at: usize) -> usize {
    while tokens.get(at).is_some_and(|t| t == ",") {
        at += 1;
    }
    at
}

/// The one option named at the start of `tokens`, and how many tokens it took; an error when
/// the name fits several options.
fn one_option(names: &Names, tokens: &[String]) -> Result<Option<(usize, usize)>, String> {
    match names.at(tokens) {
        None => Ok(None),
        Some((hits, n)) => {
            let first = hits[0];
            let label = &names.options[first].label;
            if hits.iter().all(|&h| names.options[h].label == *label) {
                Ok(Some((first, n)))
            } else {
                Err(format!(
                    "\"{}\" could be {}",
                    tokens[..n].join(" "),
                    names.labels(&hits)
                ))
            }
        }
    }
}

/// Fills the choice's parameters from `tokens`; every word must be used.
fn fill(choice: &Choice, tokens: &[String]) -> Result<Filled, ReadError> {
    let fail = |reason: String| ReadError::Fill {
        label: choice.label.to_string(),
        reason,
    };
    let mut at = 0;
    let mut values = Vec::new();
    let mut said = Vec::new();
    // Placements, and at most one question after them answered anywhere on the line (which
    // colour the Opposition's red cubes remove first).
    let after = question_after(choice);
    let placing: Vec<&Param> = choice.params.iter().filter(|p| is_placement(p)).collect();
    let placements =
        !placing.is_empty() && placing.len() + usize::from(after.is_some()) == choice.params.len();
    if placements {
        let (counts, words, answer) = match after {
            Some(param) => answered(param, &placing, tokens).map_err(&fail)?,
            None => {
                let (counts, words) = placing::place(&placing, tokens).map_err(&fail)?;
                (counts, words, None)
            }
        };
        values.extend(counts);
        said.push(words);
        if let (Some(param), Some(option)) = (after, answer) {
            let options = options_of(param).unwrap_or_default();
            values.push(options[option].value.clone().into_owned());
            said.push(format!("{} {}", param.prompt, options[option].label));
        }
        at = tokens.len();
    }
    for (i, param) in choice.params.iter().enumerate() {
        if placements {
            break;
        }
        let last = i + 1 == choice.params.len();
        at = skip_commas(tokens, at);
        let rest = &tokens[at..];
        match &param.kind {
            ParamKind::One { options } => {
                let names = Names::of(&[options]);
                // "card 3": a word that only says what the option is.
                let lead = usize::from(
                    rest.len() > 1
                        && matches!(rest[0].as_str(), "card" | "cards")
                        && names.at(rest).is_none(),
                );
                at += lead;
                let rest = &rest[lead..];
                let first = rest.first().ok_or_else(|| fail(unsaid(param)))?;
                let (option, span) = one_option(&names, rest)
                    .map_err(&fail)?
                    .ok_or_else(|| fail(in_question(param, &not_an_option(first))))?;
                values.push(options[option].value.clone().into_owned());
                said.push(options[option].label.to_string());
                at += span;
            }
            ParamKind::Number { .. } => {
                let first = rest.first().ok_or_else(|| fail(unsaid(param)))?;
                let n: i64 = first.parse().map_err(|_| {
                    fail(in_question(
                        param,
                        &format!("\"{first}\" is not a whole number"),
                    ))
                })?;
                values.push(Value::from(n));
                said.push(n.to_string());
                at += 1;
            }
            ParamKind::Pick { options, .. } => {
                let names = Names::of(&[options]);
                let mut picked: Vec<usize> = Vec::new();
                let mut used = 0;
                while used < rest.len() {
                    if rest[used] == "," {
                        used += 1;
                        continue;
                    }
                    match one_option(&names, &rest[used..]).map_err(&fail)? {
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
                        None if is_joiner(&rest[used]) && used + 1 < rest.len() => used += 1,
                        None if last => {
                            return Err(fail(in_question(param, &not_an_option(&rest[used]))));
                        }
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
            ParamKind::Distribute { .. } | ParamKind::Allot { .. } => {
                let (counts, words) = placing::place(&[param], &tokens[at..]).map_err(&fail)?;
                values.extend(counts);
                said.push(words);
                at = tokens.len();
            }
        }
    }
    at = skip_commas(tokens, at);
    if let Some(extra) = tokens.get(at) {
        return Err(fail(format!("\"{extra}\" is not understood here")));
    }
    let command = choice
        .build(&values)
        .map_err(|e| fail(fill_error(choice, e)))?;
    let said = if said.is_empty() {
        choice.label.to_string()
    } else {
        format!("{}: {}", choice.label, said.join("; "))
    };
    Ok((command, said))
}

/// Placements read with the answer to the question after them: each parameter's counts, the
/// placement in words, and the answer's option.
type Answered = (Vec<Value>, String, Option<usize>);

/// Placements with the answer to `param` anywhere on the line ("AZ CA red, yellow first"):
/// each place the answer's words could stand is tried, the word "first" after them allowed.
fn answered(param: &Param, placing: &[&Param], tokens: &[String]) -> Result<Answered, String> {
    let names = Names::of(&[options_of(param).unwrap_or_default()]);
    let mut found: Vec<Answered> = Vec::new();
    let mut failed = None;
    for k in 0..tokens.len() {
        let Ok(Some((option, span))) = one_option(&names, &tokens[k..]) else {
            continue;
        };
        let mut end = k + span;
        if tokens.get(end).is_some_and(|t| t == "first") {
            end += 1;
        }
        let rest: Vec<String> = tokens[..k].iter().chain(&tokens[end..]).cloned().collect();
        match placing::place(placing, &rest) {
            Ok((counts, words)) => {
                if !found.iter().any(|f| f.2 == Some(option)) {
                    found.push((counts, words, Some(option)));
                }
            }
            Err(e) => failed = failed.or(Some(e)),
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(failed.unwrap_or_else(|| unsaid(param))),
        _ => Err(in_question(
            param,
            &format!(
                "the line answers both {}",
                names.labels(&(0..names.options.len()).collect::<Vec<_>>())
            ),
        )),
    }
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

    /// Electoral College Combat's choice after a turn: the higher card and one other, or the
    /// lower card and two face-down cards.
    fn higher_or_lower() -> Vec<Choice> {
        let face_down =
            |n: u32| PickOption::new(n - 1, format!("face-down card {n}")).coded(n.to_string());
        vec![
            Choice::action(
                "Take the higher card, K♠ Texas (40), and any one other card",
                json!({"type": "take_higher"}),
            )
            .with_param(
                "with",
                "Which other card do you take?",
                ParamKind::One {
                    options: vec![
                        PickOption::new(2, "7♥ Ohio (18)").coded("OH"),
                        face_down(1),
                        face_down(4),
                    ],
                },
            ),
            Choice::action(
                "Take the lower card, 7♥ Ohio (18), and two face-down cards",
                json!({"type": "take_lower"}),
            )
            .with_param(
                "face_down",
                "Which two face-down cards do you take?",
                ParamKind::Pick {
                    options: vec![face_down(1), face_down(4)],
                    min: 2,
                    max: 2,
                    rule: PickRule::Any,
                },
            ),
        ]
    }

    #[test]
    fn a_line_picks_the_choice_whose_distinguishing_words_it_uses() {
        let c = higher_or_lower();
        let lower = read("take the lower card, cards 1 and 4", &c).unwrap();
        assert_eq!(
            lower.command,
            json!({"type": "take_lower", "face_down": [0, 3]})
        );
        assert_eq!(read("take lower 1 4", &c).unwrap().index, 1);
        let higher = read("take the higher card and card 4", &c).unwrap();
        assert_eq!(higher.command, json!({"type": "take_higher", "with": 3}));
        assert_eq!(read("take the higher card, Ohio", &c).unwrap().index, 0);
        // The reason is about the chosen choice and what the line said of it.
        let e = read("take the lower card, cards 1 and 9", &c)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("Take the lower card") && e.contains("\"9\""),
            "{e}"
        );
        assert!(!e.contains("\"lower\""), "{e}");
    }

    #[test]
    fn a_line_that_fits_two_choices_names_both() {
        let c = higher_or_lower();
        let e = read("take the card 1", &c).unwrap_err();
        assert!(matches!(e, ReadError::Which { .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("1 (Take the higher card") && e.contains("2 (Take the lower card"),
            "{e}"
        );
        assert!(e.contains("\"higher\"") && e.contains("\"lower\""), "{e}");
    }

    #[test]
    fn a_number_in_one_label_does_not_make_it_the_better_fit() {
        // "(4)" after "card" in the higher card's label: "take the card 4" still says neither
        // "higher" nor "lower", and the 4 is a face-down card, not a word of the label.
        let mut c = higher_or_lower();
        c[0].label = "Take the higher card, 4♦ Delaware (4), and any one other card".into();
        for line in ["take the card 4", "take the card, 4", "take card 4"] {
            let e = read(line, &c).unwrap_err();
            assert!(matches!(e, ReadError::Which { .. }), "{line}: {e:?}");
        }
        assert_eq!(
            read("take the higher card 4", &c).unwrap().command,
            json!({"type": "take_higher", "with": 3})
        );
        assert_eq!(read("take lower 1 4", &c).unwrap().index, 1);
    }

    /// Whitehouse's choice after a bid: challenge it or let it stand.
    fn challenge_or_not() -> Vec<Choice> {
        vec![
            Choice::action(
                "Challenge the bid (+1 if it fails, −1 if it is made)",
                json!({"type": "challenge"}),
            ),
            Choice::action("Let the bid stand", json!({"type": "no_challenge"})),
        ]
    }

    #[test]
    fn the_challenge_pair_is_told_apart_by_its_own_words() {
        let c = challenge_or_not();
        for line in ["challenge", "Challenge the bid", "1", "challenge it!"] {
            assert_eq!(read(line, &c).unwrap().index, 0, "{line}");
        }
        for line in [
            "let it stand",
            "Let the bid stand.",
            "stand",
            "let stand",
            "2",
        ] {
            assert_eq!(read(line, &c).unwrap().index, 1, "{line}");
        }
        // Words both labels share name both; a negation never reads as the challenge.
        let e = read("bid", &c).unwrap_err().to_string();
        assert!(
            e.contains("1 (Challenge the bid") && e.contains("2 (Let the bid stand)"),
            "{e}"
        );
        for line in ["don't challenge", "no challenge", "do not challenge"] {
            assert!(
                matches!(read(line, &c), Err(ReadError::Unknown(_))),
                "{line}: {:?}",
                read(line, &c)
            );
        }
        let e = read("let it stand, thanks", &c).unwrap_err().to_string();
        assert!(e.contains("\"thanks\""), "{e}");
    }

    #[test]
    fn refusals_speak_in_the_questions_words_never_the_fields() {
        let c = higher_or_lower();
        for (line, wanted) in [
            (
                "take the lower card, card 1",
                "Which two face-down cards do you take? Choose 2; you chose 1.",
            ),
            (
                "take the higher card",
                "Which other card do you take? The line does not say.",
            ),
            (
                "take the higher card, Utah",
                "Which other card do you take? \"utah\" is not one of the options.",
            ),
        ] {
            let e = read(line, &c).unwrap_err().to_string();
            assert!(e.ends_with(wanted), "{line}: {e}");
            for field in ["face_down", "with", "take_"] {
                assert!(!e.contains(&format!("{field}:")), "{line}: {e}");
            }
        }
        let e = read("bid", &whitehouse_like()).unwrap_err().to_string();
        assert_eq!(e, "Bid: How many? The line does not say.");
        let e = read("bid lots", &whitehouse_like())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "Bid: How many? \"lots\" is not a whole number.");
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
    fn a_question_after_a_placement_is_answered_anywhere_on_the_line() {
        let c = vec![
            Choice::action("Place cubes", json!({"type": "place"}))
                .with_param(
                    "cubes",
                    "?",
                    ParamKind::Distribute {
                        options: cards(&[("CA", "California"), ("TX", "Texas")]),
                        total: 2,
                        max_each: 2,
                    },
                )
                .with_param(
                    "takes",
                    "Your red cubes remove first",
                    ParamKind::One {
                        options: vec![
                            PickOption::new("purple", "purple"),
                            PickOption::new("yellow", "yellow"),
                        ],
                    },
                ),
        ];
        for line in [
            "place CA TX yellow",
            "1 yellow first, CA TX",
            "place CA, yellow first, TX",
        ] {
            let read_back = read(line, &c).unwrap().command;
            assert_eq!(read_back["cubes"], json!([1, 1]), "{line}");
            assert_eq!(read_back["takes"], json!("yellow"), "{line}");
        }
        let both = read("place CA TX yellow purple", &c)
            .unwrap_err()
            .to_string();
        assert!(
            both.contains("\"purple\"") || both.contains("\"yellow\""),
            "{both}"
        );
        let missing = read("place CA TX", &c).unwrap_err().to_string();
        assert!(missing.contains("remove first"), "{missing}");
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
