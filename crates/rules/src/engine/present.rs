//! A seat's position in words: what each game's own presentation code (`games::*::present`)
//! writes from its typed view for a mail, as short plain text and as simple HTML that mail
//! clients show without scripts, styles sheets or external images.

use serde::{Deserialize, Serialize};

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

/// How a game ended, in the game's own words: said at the top of its page and in its
/// game-over mail, never written twice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ending {
    /// Who won and why: "Ann (Suffragist) wins. 36 states ratify the Nineteenth Amendment."
    pub verdict: String,
    /// The final tally as labelled rows: ("Ratified", "36 states"), ("Ann", "7 points").
    pub tally: Vec<(String, String)>,
}

/// The verdict for `outcome`, its winners named by `label` (a name, with a side where the
/// game has sides): "Ann wins. She reaches 7 points.", "Ann and Cy win. …", or, with no
/// winner, the reason then "Nobody wins." (a cancelled game, a drawn match).
pub fn verdict(
    outcome: &super::Outcome,
    names: &Names,
    label: &dyn Fn(super::Seat) -> String,
) -> String {
    let reason = super::log::render(&outcome.reason, names.names);
    let reason = sentence(&reason);
    match outcome.winners.as_slice() {
        [] => format!("{reason} Nobody wins."),
        [one] => format!("{} wins. {reason}", label(*one)),
        many => {
            let all: Vec<String> = many.iter().map(|&s| label(s)).collect();
            let (last, rest) = all.split_last().expect("several winners");
            format!("{} and {last} win. {reason}", rest.join(", "))
        }
    }
}

/// `words` as a sentence: its first letter a capital, a full stop at its end unless it ends
/// with a question or an exclamation mark already.
pub fn sentence(words: &str) -> String {
    let words = words.trim().trim_end_matches('.');
    let stop = if words.ends_with(['?', '!']) { "" } else { "." };
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => format!("{}{}{stop}", first.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

#[cfg(test)]
mod sentence_tests {
    use super::sentence;

    #[test]
    fn a_sentence_ends_with_one_stop() {
        assert_eq!(sentence("play a card"), "Play a card.");
        assert_eq!(sentence("play a card."), "Play a card.");
        assert_eq!(
            sentence("which card do you play?"),
            "Which card do you play?"
        );
        assert_eq!(sentence(""), "");
    }
}

/// Each seat's final score as a tally row, the seat named by `label`: ("Ann", "7 points").
pub fn score_rows(
    scores: &[i64],
    label: &dyn Fn(super::Seat) -> String,
    noun: &str,
) -> Vec<(String, String)> {
    scores
        .iter()
        .enumerate()
        .map(|(seat, &n)| (label(seat), super::log::count(n, noun)))
        .collect()
}

#[cfg(any(test, feature = "testing"))]
pub mod check;
