//! Statehood in words: the position a seat reads in its mail (text and HTML), and the words the
//! web board shares with it (a pending declaration, a Puerto Rico declaration with its sealed
//! answers, the last hand and its revealed challenges). Everything is drawn from the viewer's
//! [`View`], with the players' names.

use super::{Declaration, High, Phase, PrAnswer, PrDeclaration, PrView, View};
use crate::cards::Card;
use crate::engine::Seat;
use crate::engine::log::{count, render};
use crate::engine::present::{Ending, Names, Position, score_rows, verdict};
use crate::games::pack::{Words, and_list, label, sheet};

fn total(cards: &[Card]) -> u32 {
    cards.iter().map(|c| c.ev()).sum()
}

/// Cards followed by their electoral votes: "K♦ Texas (40), 9♥ Maryland (10) (50)".
fn cards_with_total(cards: &[Card]) -> Words {
    let mut out = Words::new();
    out.cards(cards, ", ").say(format!(" ({})", total(cards)));
    out
}

/// A wildcard or DC declaration with its challenges and the total a challenge must beat:
/// "Bo declares Guam defended by … (9); Di challenges with … (15); high: Di with 15
/// electoral votes (a challenge must beat it)".
pub fn declaration(d: &Declaration, high: Option<&High>, names: &Names) -> Words {
    let mut out = Words::of(format!("{} declares ", names.of(d.declarer)));
    out.card(d.card).say(" defended by ");
    out.then(cards_with_total(&d.defence));
    for (seat, cards) in &d.challenges {
        out.say(format!("; {} challenges with ", names.of(*seat)));
        out.then(cards_with_total(cards));
    }
    for seat in &d.passes {
        out.say(format!("; {} passes", names.of(*seat)));
    }
    if let Some(high) = high {
        out.say(format!(
            "; high: {} with {} electoral votes (a challenge must beat it)",
            names.of(high.seat),
            high.total
        ));
    }
    out
}

/// A Puerto Rico declaration in progress: the declarer's hand, who is still to answer, and the
/// viewer's own sealed answer (nobody else's: they stay sealed until all are in).
pub fn puerto_rico(p: &PrView, you: Option<Seat>, names: &Names) -> Words {
    let waiting: Vec<String> = (0..p.answered.len())
        .filter(|&s| !p.answered[s] && s != p.declarer)
        .map(|s| names.of(s))
        .collect();
    let mut out = Words::of(format!(
        "{} declares Puerto Rico, showing ",
        names.of(p.declarer)
    ));
    out.cards(&p.shown, ", ").say(format!(
        " ({} electoral votes); still to answer: {}",
        p.defence,
        if waiting.is_empty() {
            "nobody".to_string()
        } else {
            and_list(&waiting)
        }
    ));
    match you.and_then(|s| p.answers.get(s)).and_then(Option::as_ref) {
        Some(PrAnswer::Pass) => {
            out.say("; you do not challenge (sealed)");
        }
        Some(PrAnswer::Cards(cards)) => {
            out.say("; you challenge with ")
                .cards(cards, ", ")
                .say(format!(" ({}, sealed)", total(cards)));
        }
        None => {}
    }
    out
}

/// A finished Puerto Rico declaration with every answer, revealed: "Puerto Rico: Bo showed …
/// (40); Di challenged with … (52); Ann did not challenge".
pub fn reveal(p: &PrDeclaration, names: &Names) -> Words {
    let mut out = Words::of(format!("Puerto Rico: {} showed ", names.of(p.declarer)));
    out.then(cards_with_total(&p.shown));
    for step in 1..p.answers.len() {
        let seat = (p.declarer + step) % p.answers.len();
        match &p.answers[seat] {
            Some(PrAnswer::Cards(cards)) => {
                out.say(format!("; {} challenged with ", names.of(seat)));
                out.then(cards_with_total(cards));
            }
            _ => {
                out.say(format!("; {} did not challenge", names.of(seat)));
            }
        }
    }
    out
}

/// A finished Puerto Rico declaration by totals only, for a short mail: "Puerto Rico: Bo
/// showed 40 electoral votes; Di challenged with 52; Ann did not challenge".
pub fn reveal_totals(p: &PrDeclaration, names: &Names) -> String {
    let mut out = format!(
        "Puerto Rico: {} showed {} electoral votes",
        names.of(p.declarer),
        total(&p.shown)
    );
    for step in 1..p.answers.len() {
        let seat = (p.declarer + step) % p.answers.len();
        out.push_str(&match &p.answers[seat] {
            Some(PrAnswer::Cards(cards)) => {
                format!("; {} challenged with {}", names.of(seat), total(cards))
            }
            _ => format!("; {} did not challenge", names.of(seat)),
        });
    }
    out
}

/// How the last hand ended, in words, without its Puerto Rico reveal (see [`reveal`]).
pub fn last_hand_summary(v: &View, names: &Names) -> String {
    v.last_hand
        .as_ref()
        .map(|h| render(&h.summary, names.names))
        .unwrap_or_default()
}

/// The players from the viewer's left round to the viewer: "Di 3 points, 6 cards (dealer);
/// Ann 12 points, 7 cards; Cy (you) 20 points, 7 cards".
fn players(v: &View, names: &Names) -> String {
    let seats = v.scores.len();
    let start = v.you.map_or(0, |y| y + 1);
    (0..seats)
        .map(|i| (start + i) % seats)
        .map(|s| {
            let marks = crate::games::pack::seat_marks(v.you == Some(s), v.dealer == s);
            format!(
                "{}{marks} {}, {}",
                names.of(s),
                count(v.scores[s], "point"),
                count(v.hand_sizes.get(s).copied().unwrap_or(0) as i64, "card")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Who is to move and what for, or how the game ended.
fn to_move(v: &View, names: &Names) -> String {
    if let Some(outcome) = &v.outcome {
        return format!("Game over: {}.", render(&outcome.reason, names.names));
    }
    if v.phase == Phase::PuertoRicoChallenges {
        let mine = v.you.is_some_and(|y| v.turn.contains(&y));
        return if mine {
            "Your turn: challenge Puerto Rico with six cards, or pass.".to_string()
        } else {
            String::new()
        };
    }
    let Some(&turn) = v.turn.first() else {
        return String::new();
    };
    let task = match v.phase {
        Phase::Turn => "to take the discard or draw from the stock, or to declare statehood",
        Phase::Drawn => "to discard",
        Phase::Challenges => "to challenge the declaration or pass",
        Phase::ForcedPuertoRico => "to declare Puerto Rico: the stock is gone",
        Phase::PuertoRicoChallenges | Phase::Over => return String::new(),
    };
    crate::games::pack::turn_sentence(v.you == Some(turn), &names.of(turn), task)
}

/// The position as `view` shows it, with the players' names.
pub fn position(v: &View, names: &Names) -> Position {
    let mut rows: Vec<(String, Words)> = vec![
        (
            format!("Hand {}", v.hand_number),
            Words::of(format!("playing to {} points", v.target)),
        ),
        ("Players".into(), Words::of(players(v, names))),
    ];
    let mut table = Words::new();
    match v.discard_top {
        Some(top) => {
            table
                .say("discard pile topped by ")
                .card(top)
                .say(format!(" ({})", count(v.discard_count as i64, "card")));
        }
        None => {
            table.say("the discard pile is empty");
        }
    }
    table.say(format!(
        "; {} in the stock",
        count(v.stock_count as i64, "card")
    ));
    rows.push(("On the table".into(), table));
    for (seat, won) in v.won.iter().enumerate().filter(|(_, w)| !w.is_empty()) {
        let mut words = Words::new();
        for (i, w) in won.iter().enumerate() {
            if i > 0 {
                words.say("; ");
            }
            words
                .card(w.card)
                .say(format!(" over {}", count(w.beneath.len() as i64, "card")));
        }
        let title = if v.you == Some(seat) {
            "You won".to_string()
        } else {
            format!("{} won", names.of(seat))
        };
        rows.push((title, words));
    }
    if let Some(d) = &v.declaration {
        rows.push(("Declared".into(), declaration(d, v.high.as_ref(), names)));
    }
    if let Some(p) = &v.puerto_rico {
        rows.push(("Puerto Rico".into(), puerto_rico(p, v.you, names)));
    }
    if let Some(card) = v.drawn {
        let mut words = Words::new();
        words.card(card);
        let title = match v.turn.first() {
            Some(&s) if v.you != Some(s) => format!("{} drew", names.of(s)),
            _ => "You drew".to_string(),
        };
        rows.push((title, words));
    }
    for (seat, hand) in v.hands.iter().enumerate() {
        let Some(hand) = hand.as_ref().filter(|h| !h.is_empty()) else {
            continue;
        };
        let title = if v.you == Some(seat) {
            "You hold".to_string()
        } else {
            format!("{} holds", names.of(seat))
        };
        let mut words = Words::new();
        words.cards(&crate::games::pack::by_suit(hand), ", ");
        rows.push((title, words));
    }
    if let Some(h) = &v.last_hand {
        let mut words = format!("{}.", last_hand_summary(v, names));
        if let Some(p) = &h.puerto_rico {
            words.push_str(&format!(" {}.", reveal_totals(p, names)));
        }
        rows.push((format!("Hand {}", h.hand), Words::of(words)));
    }
    let now = to_move(v, names);
    if !now.is_empty() {
        rows.push((String::new(), Words::of(now)));
    }
    sheet(&rows, label)
}

#[cfg(test)]
mod tests;

/// How the game ended: the winner named, then each seat's final score.
pub fn ending(v: &View, outcome: &crate::engine::Outcome, names: &Names) -> Ending {
    let label = |s: Seat| names.of(s);
    Ending {
        verdict: verdict(outcome, names, &label),
        tally: score_rows(&v.scores, &label, "point"),
    }
}
