//! Turning views, cards and choices into HTML pieces. Everything from users or games is
//! escaped here or by askama.

use crate::cards::{Card, Color};
use crate::engine::{Choice, ParamKind, PickOption};
use serde_json::Value;
use std::fmt::Write;

pub use crate::engine::present::esc;

/// A card drawn as a card: rank and suit in its colour, the state and its electoral votes.
pub fn card_html(card: Card) -> String {
    tagged_card_html(card, None)
}

/// A card drawn as [`card_html`] draws it, with a small word on its face (`tag`, "kitty") that
/// a screen reader reads with it and that marks where the card came from.
pub fn tagged_card_html(card: Card, tag: Option<&str>) -> String {
    let colour = match card.color() {
        Some(Color::Red) => "red",
        Some(Color::Blue) => "blue",
        None => "wild",
    };
    let face = match (card.rank(), card.suit()) {
        (Some(rank), Some(suit)) => format!("{}{}", crate::cards::rank_label(rank), suit.symbol()),
        _ if card.is_joker() => "★".to_string(),
        _ => "✦".to_string(),
    };
    let (class, tag) = match tag {
        Some(tag) => (
            " tagged",
            format!(r#"<span class="tag">{}</span>"#, esc(tag)),
        ),
        None => ("", String::new()),
    };
    format!(
        r#"<span class="card {colour}{class}" data-card="{}"><b>{face}</b><span class="state">{}</span><i>{}</i>{tag}</span>"#,
        card.code(),
        esc(card.name()),
        card.ev()
    )
}

/// A card of a game that plays the pack as an ordinary deck (Nationhood): rank and suit only,
/// since the states play no part.
pub fn plain_card_html(card: Card) -> String {
    let (colour, face) = match (card.rank(), card.suit()) {
        (Some(rank), Some(suit)) => (
            if suit.color() == Color::Red {
                "red"
            } else {
                "blue"
            },
            format!("{}{}", crate::cards::rank_label(rank), suit.symbol()),
        ),
        _ => ("wild", "★".to_string()),
    };
    let name = if card.is_joker() { "Joker" } else { "" };
    format!(
        r#"<span class="card {colour}" data-card="{}"><b>{face}</b><span class="state">{name}</span></span>"#,
        card.code()
    )
}

/// A string that is a card code, drawn as a card; anything else, escaped.
fn string_html(text: &str) -> String {
    match Card::from_code(text) {
        Some(card) => card_html(card),
        None => esc(text),
    }
}

fn words(key: &str) -> String {
    let mut out = key.replace('_', " ");
    if let Some(first) = out.get(..1) {
        let upper = first.to_uppercase();
        out.replace_range(..1, &upper);
    }
    out
}

/// Any view as HTML: objects as labelled lists, card codes as cards, lists of cards as rows.
pub fn value_html(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("<span class=\"none\">—</span>"),
        Value::Bool(b) => out.push_str(if *b { "yes" } else { "no" }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => out.push_str(&string_html(s)),
        Value::Array(items) if items.is_empty() => out.push_str("<span class=\"none\">none</span>"),
        Value::Array(items) => {
            out.push_str("<span class=\"row\">");
            for item in items {
                write_value(out, item);
                out.push(' ');
            }
            out.push_str("</span>");
        }
        Value::Object(map) => {
            out.push_str("<dl class=\"view\">");
            for (key, item) in map {
                let _ = write!(out, "<dt>{}</dt><dd>", esc(&words(key)));
                write_value(out, item);
                out.push_str("</dd>");
            }
            out.push_str("</dl>");
        }
    }
}

/// One option of a choice, ready for a form.
pub struct FormOption {
    /// Its index (what the form sends).
    pub index: usize,
    /// Its label as HTML (a card, or escaped text).
    pub html: String,
    /// Its value where that is a string, such as a card's code.
    pub value: Option<String>,
    /// Ticked when the page shows a refused form again with what the player chose.
    pub checked: bool,
    /// The count entered on it (distribute and allot), shown again after a refusal.
    pub amount: i64,
}

/// One parameter of a choice, ready for a form.
pub struct FormParam {
    /// Field name in the form: `p0`, `p1`, ...
    pub name: String,
    /// The question.
    pub prompt: String,
    /// `one`, `pick`, `number` or `distribute`.
    pub kind: &'static str,
    /// Options (one, pick, distribute).
    pub options: Vec<FormOption>,
    /// Limits: pick count, number range, or cubes in all.
    pub min: i64,
    /// Upper limit.
    pub max: i64,
    /// Number step, or the most cubes on one option.
    pub step: i64,
    /// The rule in words, if any.
    pub rule: String,
    /// The number entered (number), shown again after a refusal.
    pub value: i64,
}

/// A choice, ready for a form.
pub struct FormChoice {
    /// Its index among the seat's choices.
    pub index: usize,
    /// The button's words.
    pub label: String,
    /// A caution.
    pub warning: Option<String>,
    /// Sealed: hidden from others until all have chosen.
    pub sealed: bool,
    /// The fields to fill in.
    pub params: Vec<FormParam>,
    /// The choice the player sent and was refused: shown with their entries, first.
    pub refused: bool,
}

/// Draws the card with this code as the game draws it on its board; `None` when the code is
/// no card of the game.
pub type CardDrawer<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The seat's choices as forms; an option whose value is a card code is drawn by `card`, any
/// other by its label.
pub fn form_choices(choices: &[Choice], card: CardDrawer) -> Vec<FormChoice> {
    let form_options = |options: &[PickOption]| -> Vec<FormOption> {
        options
            .iter()
            .enumerate()
            .map(|(index, o)| FormOption {
                index,
                html: o
                    .value
                    .as_str()
                    .and_then(card)
                    .unwrap_or_else(|| esc(&o.label)),
                value: o.value.as_str().map(str::to_string),
                checked: false,
                amount: 0,
            })
            .collect()
    };
    choices
        .iter()
        .enumerate()
        .map(|(index, choice)| FormChoice {
            index,
            label: choice.label.to_string(),
            warning: choice.warning.clone(),
            sealed: choice.sealed,
            refused: false,
            params: choice
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let name = format!("p{i}");
                    let prompt = p.prompt.to_string();
                    match &p.kind {
                        ParamKind::One { options } => FormParam {
                            name,
                            prompt,
                            kind: "one",
                            options: form_options(options),
                            min: 1,
                            max: 1,
                            step: 1,
                            rule: String::new(),
                            value: 0,
                        },
                        ParamKind::Pick {
                            options,
                            min,
                            max,
                            rule,
                        } => FormParam {
                            name,
                            prompt,
                            kind: "pick",
                            options: form_options(options),
                            min: *min as i64,
                            max: *max as i64,
                            step: 1,
                            rule: rule.explain().unwrap_or_default(),
                            value: 0,
                        },
                        ParamKind::Number { min, max, step } => FormParam {
                            name,
                            prompt,
                            kind: "number",
                            options: Vec::new(),
                            min: *min,
                            max: *max,
                            step: *step,
                            rule: String::new(),
                            value: *min,
                        },
                        ParamKind::Distribute {
                            options,
                            total,
                            max_each,
                        } => FormParam {
                            name,
                            prompt,
                            kind: "distribute",
                            options: form_options(options),
                            min: 0,
                            max: i64::from(*total),
                            step: i64::from(*max_each),
                            rule: String::new(),
                            value: 0,
                        },
                        ParamKind::Allot {
                            options,
                            total,
                            caps,
                            ..
                        } => FormParam {
                            name,
                            prompt,
                            kind: "distribute",
                            options: form_options(options),
                            min: 0,
                            max: i64::from(*total),
                            step: i64::from(caps.iter().copied().max().unwrap_or(0)),
                            rule: p.kind.allot_rule().unwrap_or_default(),
                            value: 0,
                        },
                    }
                })
                .collect(),
        })
        .collect()
}

/// Shows a refused form again as the player filled it in: the choice they sent is marked and
/// its ticks, numbers and counts are put back (entries that are no option are dropped).
pub fn keep_entries(forms: &mut [FormChoice], fields: &[(String, String)]) {
    let sent = fields
        .iter()
        .find(|(k, _)| k == "choice")
        .and_then(|(_, v)| v.parse::<usize>().ok());
    let Some(form) = sent.and_then(|i| forms.iter_mut().find(|f| f.index == i)) else {
        return;
    };
    form.refused = true;
    let entered = |name: &str| -> Vec<&str> {
        fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .collect()
    };
    for param in &mut form.params {
        match param.kind {
            "one" | "pick" => {
                let picked: Vec<usize> = entered(&param.name)
                    .iter()
                    .filter_map(|v| v.parse().ok())
                    .collect();
                for option in &mut param.options {
                    option.checked = picked.contains(&option.index);
                }
            }
            "number" => {
                if let Some(n) = entered(&param.name)
                    .iter()
                    .find_map(|v| v.parse::<i64>().ok())
                {
                    param.value = n;
                }
            }
            _ => {
                for option in &mut param.options {
                    let name = format!("{}_{}", param.name, option.index);
                    if let Some(n) = entered(&name).iter().find_map(|v| v.parse::<i64>().ok()) {
                        option.amount = n;
                    }
                }
            }
        }
    }
}

/// Reads a submitted form back into parameter values for `choice`, or says what is missing.
pub fn values_from_form(
    choice: &Choice,
    fields: &[(String, String)],
) -> Result<Vec<Value>, String> {
    let all = |name: &str| -> Vec<&str> {
        fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    let index_of = |text: &str, options: &[PickOption]| -> Result<Value, String> {
        text.parse::<usize>()
            .ok()
            .and_then(|i| options.get(i))
            .map(|o| o.value.clone().into_owned())
            .ok_or_else(|| "that option is not on offer".to_string())
    };
    choice
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = format!("p{i}");
            match &p.kind {
                ParamKind::One { options } => {
                    let picked = all(&name);
                    let first = picked
                        .first()
                        .ok_or_else(|| format!("{}: choose one", p.prompt))?;
                    index_of(first, options)
                }
                ParamKind::Pick { options, .. } => all(&name)
                    .iter()
                    .map(|t| index_of(t, options))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array),
                ParamKind::Number { .. } => all(&name)
                    .first()
                    .and_then(|t| t.trim().parse::<i64>().ok())
                    .map(Value::from)
                    .ok_or_else(|| format!("{}: enter a whole number", p.prompt)),
                ParamKind::Distribute { options, .. } | ParamKind::Allot { options, .. } => (0
                    ..options.len())
                    .map(|j| {
                        let text = all(&format!("{name}_{j}")).first().copied().unwrap_or("0");
                        text.trim()
                            .parse::<u64>()
                            .map(Value::from)
                            .map_err(|_| format!("{}: counts are whole numbers", p.prompt))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array),
            }
        })
        .collect()
}
