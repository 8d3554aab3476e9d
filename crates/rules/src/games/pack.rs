//! Words about cards of the Statehood pack, shared by the games that play it (Whitehouse,
//! Statehood, Nationhood): a sentence is a list of pieces, text and cards, written once by the
//! game's `present` module and drawn by each reader in its own way — plain text for a mail, HTML
//! with inline styles for a mail, the page's card drawing for the web board.

use crate::cards::{Card, Color};
use crate::engine::present::{Position, esc};

/// One piece of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Words.
    Text(String),
    /// A card, drawn as the reader draws cards.
    Card(Card),
}

/// A sentence about cards: text and cards in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words(Vec<Piece>);

impl Words {
    /// Nothing yet.
    pub fn new() -> Words {
        Words(Vec::new())
    }

    /// Words with no cards.
    pub fn of(text: impl Into<String>) -> Words {
        let mut out = Words::new();
        out.say(text);
        out
    }

    /// Appends words.
    pub fn say(&mut self, text: impl Into<String>) -> &mut Words {
        let text = text.into();
        if !text.is_empty() {
            self.0.push(Piece::Text(text));
        }
        self
    }

    /// Appends a card.
    pub fn card(&mut self, card: Card) -> &mut Words {
        self.0.push(Piece::Card(card));
        self
    }

    /// Appends cards separated by `sep`.
    pub fn cards(&mut self, cards: &[Card], sep: &str) -> &mut Words {
        for (i, card) in cards.iter().enumerate() {
            if i > 0 {
                self.say(sep);
            }
            self.card(*card);
        }
        self
    }

    /// Appends another sentence.
    pub fn then(&mut self, more: Words) -> &mut Words {
        self.0.extend(more.0);
        self
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pieces.
    pub fn pieces(&self) -> &[Piece] {
        &self.0
    }

    /// Plain text, each card written by `name`.
    pub fn text(&self, name: fn(Card) -> String) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Card(c) => name(*c),
            })
            .collect()
    }

    /// HTML: the text escaped, each card drawn by `draw` (which escapes what it writes).
    pub fn html(&self, draw: &dyn Fn(Card) -> String) -> String {
        self.0
            .iter()
            .map(|p| match p {
                Piece::Text(t) => esc(t),
                Piece::Card(c) => draw(*c),
            })
            .collect()
    }
}

/// A card by its printed label: "Q♥ Tennessee (11)", "Guam", "Blue Joker".
pub fn label(card: Card) -> String {
    card.label().to_string()
}

/// The colour a mail draws a card in: red for hearts, diamonds and the red joker, blue for
/// spades, clubs and the blue joker, grey for territories.
fn ink(card: Card) -> &'static str {
    match card.color() {
        Some(Color::Red) => "#b3261e",
        Some(Color::Blue) => "#1f4e9e",
        None => "#555555",
    }
}

/// A card for a mail's HTML: its words (by `name`) in its colour, kept on one line.
pub fn mail_card(card: Card, name: fn(Card) -> String) -> String {
    format!(
        r#"<span style="color: {}; white-space: nowrap;">{}</span>"#,
        ink(card),
        esc(&name(card))
    )
}

/// A position as labelled lines: each `(label, words)` on its own line in the text ("Label:
/// words", or the words alone for an empty label), and a two-column table in the HTML, the
/// cards named by `name` and coloured.
pub fn sheet(rows: &[(String, Words)], name: fn(Card) -> String) -> Position {
    let text = rows
        .iter()
        .map(|(label, words)| {
            let value = words.text(name);
            if label.is_empty() {
                value
            } else {
                format!("{label}: {value}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut html = String::from(r#"<table style="border-collapse: collapse;">"#);
    for (label, words) in rows {
        let value = words.html(&|c| mail_card(c, name));
        if label.is_empty() {
            html.push_str(&format!(
                r#"<tr><td colspan="2" style="padding: 0.15em 0;">{value}</td></tr>"#
            ));
        } else {
            html.push_str(&format!(
                r#"<tr><th style="text-align: left; vertical-align: top; padding: 0.15em 0.8em 0.15em 0;">{}</th><td style="padding: 0.15em 0;">{value}</td></tr>"#,
                esc(label)
            ));
        }
    }
    html.push_str("</table>");
    Position { text, html }
}

/// `items` joined as a list in words: "a", "a and b", "a, b and c".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A hand as a player holds it for reading: by suit (♠ ♥ ♦ ♣ in the pack's order), high to
/// low within a suit, then the cards of no suit (jokers, territories) as they came.
pub fn by_suit(hand: &[Card]) -> Vec<Card> {
    let mut sorted = hand.to_vec();
    sorted.sort_by_key(|c| match (c.suit(), c.rank()) {
        (Some(suit), Some(rank)) => (0, Some(suit), std::cmp::Reverse(rank)),
        _ => (1, None, std::cmp::Reverse(0)),
    });
    sorted
}

/// What a list of players says after a name: " (you, dealer)", " (you)", or nothing.
pub fn seat_marks(you: bool, dealer: bool) -> String {
    let marks: Vec<&str> = [(you, "you"), (dealer, "dealer")]
        .into_iter()
        .filter_map(|(on, mark)| on.then_some(mark))
        .collect();
    if marks.is_empty() {
        String::new()
    } else {
        format!(" ({})", marks.join(", "))
    }
}

/// Whose turn it is to do `task` ("to play"), as the reader reads it: "Your turn to play." or
/// "Cy to play.".
pub fn turn_sentence(you: bool, name: &str, task: &str) -> String {
    if you {
        format!("Your turn {task}.")
    } else {
        format!("{name} {task}.")
    }
}
