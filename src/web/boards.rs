//! Game boards: a template per game where one exists (templates/boards/), else the generic
//! rendering of the view.

use super::render::{card_html, value_html};
use crate::cards::Card;
use crate::engine::Seat;
use askama::Template;
use serde::Deserialize;
use serde_json::Value;

/// The board of any game for a view, as HTML.
pub fn board_html(kind: &str, view: &Value, names: &[String]) -> String {
    let special = match kind {
        "whitehouse" => whitehouse(view, names),
        "statehood" => statehood(view, names),
        _ => None,
    };
    special.unwrap_or_else(|| value_html(view))
}

#[derive(Deserialize)]
struct WhitehouseView {
    phase: String,
    hand_number: u32,
    dealer: Seat,
    turn: Option<Seat>,
    hands: Vec<Option<Vec<Card>>>,
    hand_sizes: Vec<usize>,
    kitty: Option<Vec<Card>>,
    bids: Vec<WhitehouseBid>,
    bidder: Option<Seat>,
    high_bid: Option<u32>,
    trump: Option<String>,
    trick: Vec<(Seat, Card)>,
    last_trick: Option<(Vec<(Seat, Card)>, Seat)>,
    tricks_won: Vec<u32>,
    captured: Vec<u32>,
    partnership: bool,
    target: i64,
    scores: Vec<i64>,
    eliminated: Vec<bool>,
    challengers: Vec<Seat>,
    you: Option<Seat>,
    last_hand: Option<WhitehouseHand>,
}

#[derive(Deserialize)]
struct WhitehouseBid {
    seat: Seat,
    amount: Option<u32>,
}

#[derive(Deserialize)]
struct WhitehouseHand {
    bidder: Seat,
    bid: u32,
    captured: u32,
    made: bool,
}

struct BoardSeat {
    index: usize,
    name: String,
    turn: bool,
    dealer: bool,
    out: bool,
    cards: usize,
    tricks: u32,
    captured: u32,
    bid: String,
}

#[derive(Template)]
#[template(path = "boards/whitehouse.html")]
struct WhitehouseBoard {
    seats: Vec<BoardSeat>,
    trick: Vec<(String, String)>,
    table_note: String,
    hand_number: u32,
    phase: String,
    contract: String,
    scores: String,
    target: i64,
    last_hand: String,
    kitty: String,
    last_trick: String,
    hand: String,
    open_hands: Vec<(String, String)>,
}

fn cards_html(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| card_html(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

fn whitehouse(view: &Value, names: &[String]) -> Option<String> {
    let v: WhitehouseView = serde_json::from_value(view.clone()).ok()?;
    let name = |s: Seat| {
        names
            .get(s)
            .cloned()
            .unwrap_or_else(|| format!("Seat {}", s + 1))
    };
    let seats = (0..4)
        .map(|s| BoardSeat {
            index: s,
            name: name(s),
            turn: v.turn == Some(s),
            dealer: v.dealer == s,
            out: v.eliminated.get(s).copied().unwrap_or(false),
            cards: v.hand_sizes.get(s).copied().unwrap_or(0),
            tricks: v.tricks_won.get(s).copied().unwrap_or(0),
            captured: v.captured.get(s).copied().unwrap_or(0),
            bid: v
                .bids
                .iter()
                .find(|b| b.seat == s)
                .map(|b| {
                    b.amount
                        .map_or("passed".to_string(), |a| format!("bid {a}"))
                })
                .unwrap_or_default()
                + if v.challengers.contains(&s) {
                    " · challenges"
                } else {
                    ""
                },
        })
        .collect();
    let contract = match (v.bidder, v.high_bid) {
        (Some(b), Some(bid)) => format!(
            "{} bids {bid}{}",
            name(b),
            v.trump
                .as_ref()
                .map(|t| format!(", {t} trump"))
                .unwrap_or_default()
        ),
        _ => "bidding".to_string(),
    };
    let scores = if v.partnership {
        format!("North–South {}, East–West {}", v.scores[0], v.scores[1])
    } else {
        (0..4)
            .map(|s| format!("{} {}", name(s), v.scores[s]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let own_hand = v
        .you
        .and_then(|s| v.hands.get(s).cloned().flatten())
        .unwrap_or_default();
    let board = WhitehouseBoard {
        seats,
        trick: v
            .trick
            .iter()
            .map(|(s, c)| (name(*s), card_html(*c)))
            .collect(),
        table_note: match v.phase.as_str() {
            "play" => "the trick is empty".into(),
            other => other.replace('_', " "),
        },
        hand_number: v.hand_number,
        phase: v.phase.replace('_', " "),
        contract,
        scores,
        target: v.target,
        last_hand: v
            .last_hand
            .map(|h| {
                format!(
                    "{} bid {}, took {}: {}",
                    name(h.bidder),
                    h.bid,
                    h.captured,
                    if h.made { "made" } else { "failed" }
                )
            })
            .unwrap_or_default(),
        kitty: v.kitty.map(|k| cards_html(&k)).unwrap_or_default(),
        last_trick: v
            .last_trick
            .map(|(cards, winner)| {
                let played: Vec<Card> = cards.iter().map(|(_, c)| *c).collect();
                format!(
                    "{} — taken by {}",
                    cards_html(&played),
                    super::render::esc(&name(winner))
                )
            })
            .unwrap_or_default(),
        hand: cards_html(&own_hand),
        open_hands: if v.you.is_none() {
            v.hands
                .iter()
                .enumerate()
                .filter_map(|(s, h)| h.as_ref().map(|h| (name(s), cards_html(h))))
                .collect()
        } else {
            Vec::new()
        },
    };
    board.render().ok()
}

#[derive(Deserialize)]
struct StatehoodView {
    phase: String,
    hand_number: u32,
    dealer: Seat,
    turn: Vec<Seat>,
    you: Option<Seat>,
    hands: Vec<Option<Vec<Card>>>,
    hand_sizes: Vec<usize>,
    stock_count: usize,
    discard_top: Option<Card>,
    discard_count: usize,
    drawn: Option<Card>,
    declaration: Option<StatehoodDeclaration>,
    puerto_rico: Option<StatehoodPr>,
    won: Vec<Vec<StatehoodWon>>,
    scores: Vec<i64>,
    target: i64,
    last_hand: Option<StatehoodHandEnd>,
}

#[derive(Deserialize)]
struct StatehoodDeclaration {
    declarer: Seat,
    card: Card,
    defence: Vec<Card>,
    challenges: Vec<(Seat, Vec<Card>)>,
}

#[derive(Deserialize)]
struct StatehoodPr {
    declarer: Seat,
    shown: Vec<Card>,
    defence: u32,
    answered: Vec<bool>,
}

#[derive(Deserialize)]
struct StatehoodWon {
    card: Card,
    beneath: Vec<Card>,
}

#[derive(Deserialize)]
struct StatehoodHandEnd {
    summary: String,
}

struct StatehoodPlayer {
    name: String,
    dealer: bool,
    turn: bool,
    score: i64,
    cards: usize,
    won: String,
}

#[derive(Template)]
#[template(path = "boards/statehood.html")]
struct StatehoodBoard {
    players: Vec<StatehoodPlayer>,
    hand_number: u32,
    phase: String,
    target: i64,
    stock: usize,
    discard: String,
    declaration: String,
    puerto_rico: String,
    last_hand: String,
    drawn: String,
    hand: String,
    open_hands: Vec<(String, String)>,
}

fn statehood(view: &Value, names: &[String]) -> Option<String> {
    use super::render::esc;
    let v: StatehoodView = serde_json::from_value(view.clone()).ok()?;
    let name = |s: Seat| {
        names
            .get(s)
            .cloned()
            .unwrap_or_else(|| format!("Player {}", s + 1))
    };
    let total = |cards: &[Card]| cards.iter().map(|c| c.ev()).sum::<u32>();
    let players = (0..v.scores.len())
        .map(|s| StatehoodPlayer {
            name: name(s),
            dealer: v.dealer == s,
            turn: v.turn.contains(&s),
            score: v.scores[s],
            cards: v.hand_sizes.get(s).copied().unwrap_or(0),
            won: v.won.get(s).map_or(String::new(), |won| {
                won.iter()
                    .map(|w| {
                        format!(
                            "{} <span class=\"small\">over {}</span>",
                            card_html(w.card),
                            cards_html(&w.beneath)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
        })
        .collect();
    let declaration = v
        .declaration
        .map(|d| {
            let mut text = format!(
                "{} declares {} defended by {} ({})",
                esc(&name(d.declarer)),
                card_html(d.card),
                cards_html(&d.defence),
                total(&d.defence)
            );
            for (s, cards) in &d.challenges {
                text.push_str(&format!(
                    "; {} challenges with {} ({})",
                    esc(&name(*s)),
                    cards_html(cards),
                    total(cards)
                ));
            }
            text
        })
        .unwrap_or_default();
    let puerto_rico = v
        .puerto_rico
        .map(|p| {
            let waiting: Vec<String> = (0..p.answered.len())
                .filter(|&s| !p.answered[s])
                .map(|s| esc(&name(s)))
                .collect();
            format!(
                "{} declares Puerto Rico, showing {} ({} electoral votes); still to answer: {}",
                esc(&name(p.declarer)),
                cards_html(&p.shown),
                p.defence,
                if waiting.is_empty() {
                    "nobody".to_string()
                } else {
                    waiting.join(", ")
                }
            )
        })
        .unwrap_or_default();
    let board = StatehoodBoard {
        players,
        hand_number: v.hand_number,
        phase: v.phase.replace('_', " "),
        target: v.target,
        stock: v.stock_count,
        discard: match v.discard_top {
            Some(top) => format!(
                "{} <span class=\"small\">({} cards)</span>",
                card_html(top),
                v.discard_count
            ),
            None => "empty".to_string(),
        },
        declaration,
        puerto_rico,
        last_hand: v
            .last_hand
            .map(|h| crate::engine::log::render(&h.summary, names))
            .unwrap_or_default(),
        drawn: v.drawn.map(card_html).unwrap_or_default(),
        hand: v
            .you
            .and_then(|s| v.hands.get(s).cloned().flatten())
            .map(|h| cards_html(&h))
            .unwrap_or_default(),
        open_hands: if v.you.is_none() {
            v.hands
                .iter()
                .enumerate()
                .filter_map(|(s, h)| h.as_ref().map(|h| (name(s), cards_html(h))))
                .collect()
        } else {
            Vec::new()
        },
    };
    board.render().ok()
}
