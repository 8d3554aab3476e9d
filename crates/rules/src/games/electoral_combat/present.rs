//! Electoral College Combat in words, from the game's own [`View`]: the position a mail shows
//! (plain text and simple HTML) and the words the web board shares with it (what the game
//! waits for, the goal, what became of a card of the hand, the wild card, the signs shown).

use super::{ECard, SlotView, View};
use crate::cards::Color;
use crate::engine::Seat;
use crate::engine::log::{count, render};
use crate::engine::present::{Ending, Names, Position, esc, score_rows, verdict};

#[cfg(test)]
mod tests;

/// A card's name with its electoral votes under the view's apportionment: "Texas (40)",
/// "Fake News (wild card)".
pub fn card_name(card: ECard, v: &View) -> String {
    card.label(v.apportionment == 2012).to_string()
}

/// A card as a list names it, shorter: "Texas 40", "Fake News".
pub fn short_name(card: ECard, v: &View) -> String {
    match card {
        ECard::State(c) => format!("{} {}", c.name(), card.ev(v.apportionment == 2012)),
        ECard::Wild(w) => w.name().to_string(),
    }
}

/// Cards as a position lists them: most electoral votes first (what the game counts; rank and
/// suit play no part in it), then by name.
pub fn by_votes(cards: &[ECard], v: &View) -> Vec<ECard> {
    let ev_2012 = v.apportionment == 2012;
    let mut sorted = cards.to_vec();
    sorted.sort_by(|a, b| {
        b.ev(ev_2012)
            .cmp(&a.ev(ev_2012))
            .then_with(|| card_sort_name(*a).cmp(card_sort_name(*b)))
    });
    sorted
}

fn card_sort_name(card: ECard) -> &'static str {
    match card {
        ECard::State(c) => c.name(),
        ECard::Wild(w) => w.name(),
    }
}

/// A sentence about the awaited player: the verb in the second person when it is `you`.
fn does(
    seat: Seat,
    name: &dyn Fn(Seat) -> String,
    you: Option<Seat>,
    yours: &str,
    theirs: &str,
) -> String {
    if you == Some(seat) {
        format!("You {yours}")
    } else {
        format!("{} {theirs}", name(seat))
    }
}

/// What the game waits for, as a sentence: "Bo turns over a card", or "You turn over a card"
/// when `you` is the awaited seat (the board, which names everyone, passes `None`).
pub fn phase_words(v: &View, name: &dyn Fn(Seat) -> String, you: Option<Seat>) -> String {
    use super::Phase::*;
    match v.phase {
        Rebuild { seat } => does(
            seat,
            name,
            you,
            "add a won card to your last hand",
            "adds a won card to the last hand",
        ),
        Turn { seat, .. } => does(seat, name, you, "turn over a card", "turns over a card"),
        Choose { seat, .. } => does(
            seat,
            name,
            you,
            "choose what to take",
            "chooses what to take",
        ),
        TieHigh { seat, .. } => does(
            seat,
            name,
            you,
            "take the third card and one other",
            "takes the third card and one other",
        ),
        Guess { seat, .. } => does(
            seat,
            name,
            you,
            "guess higher, lower or equal (Fake News)",
            "guesses higher, lower or equal (Fake News)",
        ),
        Rps => "rock, paper, scissors: both choose, sealed (Russian Collusion)".to_string(),
        RpsTake { seat } => does(
            seat,
            name,
            you,
            "win the round and take a card",
            "wins the round and takes a card",
        ),
        Over => "the game is over".to_string(),
    }
}

/// What wins: "270 electoral votes or more wins", or the Book Deal's reverse.
pub fn goal_words(v: &View) -> String {
    if v.book_deal {
        format!("Book Deal: fewer than {} electoral votes wins", v.to_win)
    } else {
        format!("{} electoral votes or more wins", v.to_win)
    }
}

/// What became of one card of the hand on the table: "won by Bo", "turned by Ann", "out of
/// the game", or nothing while it lies untouched.
pub fn slot_note(t: &SlotView, name: &dyn Fn(Seat) -> String) -> String {
    if t.removed {
        "out of the game".to_string()
    } else if let Some(w) = t.won_by {
        format!("won by {}", name(w))
    } else if let Some(b) = t.turned_by {
        format!("turned by {}", name(b))
    } else {
        String::new()
    }
}

/// The wild card ruling the hand: "Fake News, turned over by Bo".
pub fn wild_words(v: &View, name: &dyn Fn(Seat) -> String) -> Option<String> {
    v.wild
        .map(|w| format!("{}, turned over by {}", w.kind.name(), name(w.by)))
}

/// The Russian Collusion signs last shown: "Ann showed rock, Bo showed paper".
pub fn signs_words(v: &View, name: &dyn Fn(Seat) -> String) -> Option<String> {
    v.last_signs.map(|[a, b]| {
        let replayed = if v.draws > 0 {
            format!(" ({} replayed)", count(v.draws, "drawn round"))
        } else {
            String::new()
        };
        format!(
            "{} showed {}, {} showed {}{replayed}",
            name(0),
            a.word(),
            name(1),
            b.word()
        )
    })
}

/// Where a card of a finished hand went: the winner's name, or "out" for a played wild card.
pub fn went_to(to: Option<Seat>, name: &dyn Fn(Seat) -> String) -> String {
    to.map_or("out".to_string(), name)
}

/// A stack's size: "14 cards".
pub fn stack_words(v: &View, seat: Seat) -> String {
    count(v.stack_sizes[seat] as i64, "card")
}

/// One part of a position: a line of text and its HTML.
struct Part {
    text: String,
    html: String,
}

impl Part {
    /// A sentence as a paragraph.
    fn line(text: String) -> Part {
        let html = format!(r#"<p style="margin: 0.2rem 0;">{}</p>"#, esc(&text));
        Part { text, html }
    }

    /// "Label: value" with a bold label.
    fn labelled(label: &str, value: String) -> Part {
        Part {
            html: format!(
                r#"<p style="margin: 0.2rem 0;"><b>{}:</b> {}</p>"#,
                esc(label),
                esc(&value)
            ),
            text: format!("{label}: {value}"),
        }
    }
}

const RED: &str = "#b0202a";
const BLUE: &str = "#1f4e9c";
const WILD: &str = "#6b3fa0";

/// One card of the hand as the HTML draws it: a small box with its place, its name coloured
/// by its party (grey while face down) and what became of it.
fn card_box(t: &SlotView, face: &str, note: &str) -> String {
    let down = t.won_by.is_none() && !t.removed && !t.face_up;
    let colour = match t.card {
        _ if down => "#555",
        Some(ECard::State(c)) if c.color() == Some(Color::Red) => RED,
        Some(ECard::State(_)) => BLUE,
        _ => WILD,
    };
    format!(
        r#"<td style="border: 1px solid #999; padding: 0.2rem 0.4rem; vertical-align: top; background: {};"><small>{}</small><br><b style="color: {colour};">{}</b><br><small>{}</small></td>"#,
        if down { "#e4e4e4" } else { "#ffffff" },
        t.slot + 1,
        esc(face),
        esc(note)
    )
}

/// The position as `view` shows it, with the players' names: seat-relative for a player ("You
/// (Ann)"), every player by name for a spectator.
pub fn position(v: &View, names: &Names) -> Position {
    let you = v.you;
    let named = |s: Seat| {
        if you == Some(s) {
            "you".to_string()
        } else {
            names.of(s)
        }
    };
    let mut parts = Vec::new();
    match &v.outcome {
        Some(o) => parts.push(Part::line(format!(
            "The game is over: {}.",
            render(&o.reason, names.names).trim_end_matches('.')
        ))),
        None => parts.push(Part::line(format!(
            "Hand {} of {}, laid by {}. {}.",
            v.hand,
            v.hands,
            named(v.layer),
            goal_words(v)
        ))),
    }
    let order: Vec<Seat> = match you {
        Some(s) => vec![s, 1 - s],
        None => vec![0, 1],
    };
    for &s in &order {
        let mut line = if you == Some(s) {
            format!(
                "You ({}): {} electoral votes, {} in your stack",
                names.of(s),
                v.votes[s],
                stack_words(v, s)
            )
        } else {
            format!(
                "{}: {} electoral votes, {} in stack",
                names.of(s),
                v.votes[s],
                stack_words(v, s)
            )
        };
        if v.phase == super::Phase::Rps {
            line.push_str(&match v.signs[s] {
                Some(sign) => format!(", chose {} (sealed)", sign.word()),
                None if v.signed[s] => ", sign chosen".to_string(),
                None => ", no sign yet".to_string(),
            });
        }
        line.push('.');
        parts.push(Part::line(line));
    }
    if v.outcome.is_none() {
        let mut now = phase_words(v, &|s| names.of(s), you);
        if let Some(first) = now.get(..1) {
            let upper = first.to_uppercase();
            now.replace_range(..1, &upper);
        }
        parts.push(Part::line(format!("{now}.")));
    }
    if !v.table.is_empty() {
        parts.push(table_part(v, &named));
    }
    if let Some(w) = wild_words(v, &named) {
        parts.push(Part::labelled("Wild card", w));
    }
    if !v.added.is_empty() {
        parts.push(Part::labelled("Added to this hand", list(&v.added, v)));
    }
    if let Some(signs) = signs_words(v, &named) {
        parts.push(Part::labelled("Rock, paper, scissors", signs));
    }
    if !v.removed.is_empty() {
        parts.push(Part::labelled("Out of the game", list(&v.removed, v)));
    }
    for &s in &order {
        if v.won[s].is_empty() {
            continue;
        }
        let who = if you == Some(s) {
            "You have won".to_string()
        } else {
            format!("{} has won", names.of(s))
        };
        parts.push(Part::labelled(&who, list(&by_votes(&v.won[s], v), v)));
    }
    let untouched = v
        .table
        .iter()
        .all(|t| !t.face_up && t.won_by.is_none() && !t.removed);
    if let Some(h) = v.last_hand.as_ref().filter(|_| untouched) {
        let mut went = Vec::new();
        for s in order.iter().copied().map(Some).chain([None]) {
            let cards: Vec<ECard> = h
                .cards
                .iter()
                .filter(|c| c.to == s)
                .map(|c| c.card)
                .collect();
            if cards.is_empty() {
                continue;
            }
            went.push(match s {
                Some(s) if you == Some(s) => format!("you took {}", list(&cards, v)),
                Some(s) => format!("{} took {}", names.of(s), list(&cards, v)),
                None => format!("out: {}", list(&cards, v)),
            });
        }
        parts.push(Part::labelled(
            &format!("Last hand ({}, laid by {})", h.hand, named(h.layer)),
            went.join("; "),
        ));
    }
    Position {
        text: parts
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        html: parts.into_iter().map(|p| p.html).collect(),
    }
}

fn list(cards: &[ECard], v: &View) -> String {
    cards
        .iter()
        .map(|&c| short_name(c, v))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The hand on the table: a line a card in the text, a row of card boxes in the HTML.
fn table_part(v: &View, named: &dyn Fn(Seat) -> String) -> Part {
    let mut text = String::from("On the table:");
    let mut html = String::from(
        r#"<table style="border-collapse: separate; border-spacing: 0.3rem; margin: 0.2rem 0;"><tr>"#,
    );
    for t in &v.table {
        let note = slot_note(t, named);
        let face = match t.card {
            Some(card) if !t.face_up && t.won_by.is_none() && !t.removed => {
                format!("face down, {}", card_name(card, v))
            }
            Some(card) => card_name(card, v),
            None => "face down".to_string(),
        };
        text.push_str(&format!("\n  Card {}: {face}", t.slot + 1));
        if !note.is_empty() {
            text.push_str(&format!(", {note}"));
        }
        html.push_str(&card_box(t, &face, &note));
    }
    html.push_str("</tr></table>");
    Part { text, html }
}

/// How the game ended: the winner named, then each player's electoral votes won.
pub fn ending(v: &View, outcome: &crate::engine::Outcome, names: &Names) -> Ending {
    let label = |s: Seat| names.of(s);
    let votes: Vec<i64> = v.votes.iter().map(|&n| i64::from(n)).collect();
    Ending {
        verdict: verdict(outcome, names, &label),
        tally: score_rows(&votes, &label, "electoral vote"),
    }
}
