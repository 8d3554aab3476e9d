//! Nationhood in words: the position a seat reads in its mail (text and HTML), and the words
//! the web board shares with it (what the game waits for, the stock, a diplomacy offer, war
//! threats, a discard pile, the last hand). Cards are named by rank and suit only ("7♥"): the
//! states play no part in this game. Everything is drawn from the viewer's [`View`], with the
//! players' names.

use super::melds::face;
use super::{Phase, View};
use crate::cards::Card;
use crate::engine::Seat;
use crate::engine::log::{count, render};
use crate::engine::present::{Ending, Names, Position, verdict};
use crate::games::pack::{Words, sheet};

/// What the game waits for, in words: "Bo's turn: draw, or offer diplomacy instead".
pub fn phase_words(v: &View, names: &Names) -> String {
    let mover = names.of(v.turn_of);
    let diplomacy = !v.cities.is_empty();
    match v.phase {
        Phase::Turn if v.war_threats.contains(&v.turn_of) => format!(
            "{mover}'s turn: draw{}, or declare war (their diplomacy was refused; war takes a joker)",
            if diplomacy {
                ", offer diplomacy instead"
            } else {
                ""
            }
        ),
        Phase::Turn if diplomacy => format!("{mover}'s turn: draw, or offer diplomacy instead"),
        Phase::Turn => format!("{mover}'s turn: draw"),
        Phase::Answer => format!(
            "{} answers {mover}'s offer",
            names.of(v.turn.first().copied().unwrap_or(v.turn_of))
        ),
        Phase::Melding => format!("{mover} has drawn: cities, lay-offs, then a discard"),
        Phase::Whittle => format!("{mover} has declared war and whittles down to seven cards"),
        Phase::Response => {
            format!("{mover} answers the war: retaliate with the joker, or rebuild")
        }
        Phase::Rebuild => format!("{mover} rebuilds, drawing one card at a time up to eight"),
        Phase::Over => "the game is over".to_string(),
    }
}

/// The stock, and what happens when it runs out under the game's rules version.
pub fn stock_words(v: &View) -> String {
    let cards = count(v.stock_count as i64, "card");
    match (v.rules_version >= 2, v.restocked) {
        (true, false) => format!(
            "{cards}, face down; when it runs out the discard piles but their top cards are shuffled into a new stock, once"
        ),
        (true, true) => format!(
            "{cards}, face down, rebuilt once; when it runs out the hand ends without a winner"
        ),
        _ => format!("{cards}, face down"),
    }
}

/// The pending diplomacy offer: "Bo offers Bo's city of 7s for Ann's nothing".
pub fn offer_words(v: &View, names: &Names) -> Option<String> {
    v.offer_words
        .as_ref()
        .map(|w| format!("{} offers {}", names.of(v.turn_of), render(w, names.names)))
}

/// Who may declare war after refused diplomacy.
pub fn threat_words(v: &View, names: &Names) -> String {
    v.war_threats
        .iter()
        .map(|&s| {
            let name = names.of(s);
            format!(
                "{name}'s diplomacy was refused: {name} may declare war on their next turn, if they hold a joker."
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A discard pile, its top first: "5♥ on top of (newest first) 3♠ K♦", or "empty".
pub fn pile_words(pile: &[Card]) -> Words {
    let mut out = Words::new();
    match pile.split_last() {
        None => {
            out.say("empty");
        }
        Some((top, [])) => {
            out.card(*top);
        }
        Some((top, beneath)) => {
            let newest_first: Vec<Card> = beneath.iter().rev().copied().collect();
            out.card(*top)
                .say(" on top of (newest first) ")
                .cards(&newest_first, " ");
        }
    }
    out
}

/// The cities `seat` controls: "7♠ 7♥ 7♦ · 9♣ 9♦ 9♥", or "none".
pub fn cities_words(v: &View, seat: Seat) -> Words {
    let mut out = Words::new();
    for (i, city) in v.cities.iter().filter(|c| c.owner == seat).enumerate() {
        if i > 0 {
            out.say(" · ");
        }
        out.cards(&city.cards, " ");
    }
    if out.is_empty() {
        out.say("none");
    }
    out
}

/// How the last hand ended, with the nation that won it (ranks in order): empty before the
/// first hand is over.
pub fn last_hand_words(v: &View, names: &Names) -> Words {
    let Some(h) = &v.last_hand else {
        return Words::new();
    };
    let mut out = Words::of(render(&h.summary, names.names));
    if let Some(nation) = &h.nation {
        let mut shown = nation.clone();
        shown.sort_by_key(|c| c.rank());
        out.say(". The nation: ").cards(&shown, " ");
    }
    out
}

/// The two players, the viewer's opponent first: points, rubbers, cards, cities.
fn players(v: &View, names: &Names) -> String {
    let order = match v.you {
        Some(you) => [1 - you, you],
        None => [0, 1],
    };
    order
        .iter()
        .map(|&s| {
            let marks = crate::games::pack::seat_marks(v.you == Some(s), v.dealer == s);
            let rubbers = if v.rubbers > 1 {
                format!(", {} won", count(v.rubbers_won[s], "rubber"))
            } else {
                String::new()
            };
            format!(
                "{}{marks} {}{rubbers}, {} in hand, {}",
                names.of(s),
                count(v.scores[s], "point"),
                count(v.hand_sizes[s] as i64, "card"),
                match v.cities.iter().filter(|c| c.owner == s).count() {
                    1 => "1 city".to_string(),
                    n => format!("{n} cities"),
                }
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The position as `view` shows it, with the players' names.
pub fn position(v: &View, names: &Names) -> Position {
    let rubber = if v.rubbers > 1 {
        format!("rubber {} of best of three", v.rubber)
    } else {
        "one rubber".to_string()
    };
    let mut rows: Vec<(String, Words)> = vec![
        (
            format!("Hand {}", v.hand_number),
            Words::of(format!("{rubber}, {} points win it", v.target)),
        ),
        ("Players".into(), Words::of(players(v, names))),
    ];
    let now = match &v.outcome {
        Some(outcome) => format!("Game over: {}", render(&outcome.reason, names.names)),
        None => phase_words(v, names),
    };
    rows.push(("Now".into(), Words::of(now)));
    if let Some(offer) = offer_words(v, names) {
        rows.push(("Diplomacy".into(), Words::of(offer)));
    }
    let threat = threat_words(v, names);
    if !threat.is_empty() {
        rows.push(("War".into(), Words::of(threat)));
    }
    rows.push(("The stock".into(), Words::of(stock_words(v))));
    let order = match v.you {
        Some(you) => [1 - you, you],
        None => [0, 1],
    };
    for s in order {
        let whose = if v.you == Some(s) {
            "Your".to_string()
        } else {
            format!("{}'s", names.of(s))
        };
        rows.push((format!("{whose} cities"), cities_words(v, s)));
        rows.push((format!("{whose} discard pile"), pile_words(&v.piles[s])));
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
        words.cards(&crate::games::pack::by_suit(hand), " ");
        let runs = v.runs.get(seat).cloned().flatten().unwrap_or_default();
        if !runs.is_empty() {
            words
                .say("; in runs (kept if war comes): ")
                .cards(&runs, " ");
        }
        rows.push((title, words));
    }
    let last = last_hand_words(v, names);
    if !last.is_empty() {
        rows.push(("Previous hand".into(), last));
    }
    sheet(&rows, |card| face(card).to_string())
}

#[cfg(test)]
mod tests;

/// How the match ended: the winner named, then each seat's rubbers won (in a match of
/// several) and points in the last rubber.
pub fn ending(v: &View, outcome: &crate::engine::Outcome, names: &Names) -> Ending {
    let label = |s: Seat| names.of(s);
    let tally = (0..v.scores.len())
        .map(|s| {
            let points = count(v.scores[s], "point");
            let words = if v.rubbers > 1 {
                let won = v.rubbers_won.get(s).copied().unwrap_or(0);
                format!("{} won, {points} in the last", count(won, "rubber"))
            } else {
                points
            };
            (label(s), words)
        })
        .collect();
    Ending {
        verdict: verdict(outcome, names, &label),
        tally,
    }
}
