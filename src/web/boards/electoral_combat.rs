//! The Electoral College Combat board: the two players with their votes and stacks, the hand
//! on the table (face-down cards as backs), the wild card ruling it, the signs of Russian
//! Collusion, the last hand and the cards each player has won, counted under the game's
//! apportionment.

use super::super::render::esc;
use super::{Board, Seating, seat_name};
use crate::cards::Color;
use crate::engine::Seat;
use crate::engine::log::count;
use crate::games::electoral_combat::{ECard, ElectoralCombat, Phase, SlotView, View};
use askama::Template;

struct EcPlayer {
    area: &'static str,
    waiting: String,
    name: String,
    turn: bool,
    layer: bool,
    votes: u32,
    stack: String,
    signed: bool,
}

#[derive(Template)]
#[template(path = "boards/electoral_combat.html")]
struct EcBoard {
    players: Vec<EcPlayer>,
    table: Vec<String>,
    hand: u8,
    phase: String,
    goal: String,
    wild: String,
    added: String,
    signs: String,
    last_hand: String,
    removed: String,
    piles: Vec<(String, String)>,
}

/// An Electoral College Combat card, with its votes under the game's apportionment.
fn card_html(card: ECard, ev_2012: bool) -> String {
    match card {
        ECard::State(state) => {
            let colour = match state.color() {
                Some(Color::Red) => "red",
                _ => "blue",
            };
            format!(
                r#"<span class="card {colour}" data-card="{}"><b>{}</b><span class="state">{}</span><i>{}</i></span>"#,
                state.code(),
                state.code(),
                esc(state.name()),
                card.ev(ev_2012)
            )
        }
        ECard::Wild(wild) => format!(
            r#"<span class="card wild" data-card="{}"><b>✦</b><span class="state">{}</span><i>wild</i></span>"#,
            wild.code(),
            esc(wild.name())
        ),
    }
}

/// What the game waits for, in words.
fn phase_words(phase: Phase, name: &dyn Fn(Seat) -> String) -> String {
    match phase {
        Phase::Rebuild { seat } => format!("{} adds a won card to the last hand", name(seat)),
        Phase::Turn { seat, .. } => format!("{} turns over a card", name(seat)),
        Phase::Choose { seat, .. } => format!("{} chooses what to take", name(seat)),
        Phase::TieHigh { seat, .. } => format!("{} takes the third card and one other", name(seat)),
        Phase::Guess { seat, .. } => {
            format!("{} guesses higher, lower or equal (Fake News)", name(seat))
        }
        Phase::Rps => "rock, paper, scissors: both choose, sealed (Russian Collusion)".to_string(),
        Phase::RpsTake { seat } => format!("{} wins the round and takes a card", name(seat)),
        Phase::Over => "the game is over".to_string(),
    }
}

/// One card of the hand on the table, face up or as a back, and what became of it.
fn slot_html(t: &SlotView, ev_2012: bool, name: &dyn Fn(Seat) -> String) -> String {
    let card = match t.card {
        Some(card) => card_html(card, ev_2012),
        None => format!(
            r#"<span class="card down"><b>?</b><span class="state">card {}</span></span>"#,
            t.slot + 1
        ),
    };
    let note = if t.removed {
        "out of the game".to_string()
    } else if let Some(w) = t.won_by {
        format!("won by {}", name(w))
    } else if let Some(b) = t.turned_by {
        format!("turned by {}", name(b))
    } else {
        String::new()
    };
    format!(
        r#"<span class="slot">{card}<span class="small">{}</span></span>"#,
        esc(&note)
    )
}

impl Board for ElectoralCombat {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let names = seating.names;
        let ev_2012 = v.apportionment == 2012;
        let name = |s: Seat| seat_name(names, s);
        let cards = |cards: &[ECard]| {
            cards
                .iter()
                .map(|&c| card_html(c, ev_2012))
                .collect::<Vec<_>>()
                .join(" ")
        };
        EcBoard {
            players: (0..2)
                .map(|s| EcPlayer {
                    area: if Some(s) == v.you || (v.you.is_none() && s == 1) {
                        "at-south"
                    } else {
                        "at-north"
                    },
                    waiting: seating.waiting_since(s),
                    name: name(s),
                    turn: seating.marks_to_move(v.awaiting.contains(&s)),
                    layer: v.layer == s,
                    votes: v.votes[s],
                    stack: count(v.stack_sizes[s] as i64, "card"),
                    signed: v.signed[s],
                })
                .collect(),
            table: v
                .table
                .iter()
                .map(|t| slot_html(t, ev_2012, &name))
                .collect(),
            hand: v.hand,
            phase: phase_words(v.phase, &name),
            goal: if v.book_deal {
                format!("Book Deal: fewer than {} electoral votes wins", v.to_win)
            } else {
                format!("{} electoral votes or more wins", v.to_win)
            },
            wild: v
                .wild
                .map(|w| format!("{}, turned over by {}", w.kind.name(), name(w.by)))
                .unwrap_or_default(),
            added: cards(&v.added),
            signs: v
                .last_signs
                .map(|[a, b]| {
                    format!(
                        "{} showed {}, {} showed {}{}",
                        name(0),
                        a.word(),
                        name(1),
                        b.word(),
                        if v.draws > 0 {
                            format!(" ({} drawn rounds replayed)", v.draws)
                        } else {
                            String::new()
                        }
                    )
                })
                .unwrap_or_default(),
            last_hand: v
                .last_hand
                .as_ref()
                .map(|h| {
                    let went: Vec<String> = h
                        .cards
                        .iter()
                        .map(|c| {
                            format!(
                                "{} {}",
                                card_html(c.card, ev_2012),
                                esc(&c.to.map_or("out".to_string(), name))
                            )
                        })
                        .collect();
                    format!("hand {}: {}", h.hand, went.join(" · "))
                })
                .unwrap_or_default(),
            removed: cards(&v.removed),
            piles: (0..2)
                .filter(|&s| !v.won[s].is_empty())
                .map(|s| (name(s), cards(&v.won[s])))
                .collect(),
        }
        .render()
    }

    fn card(v: &View, code: &str) -> Option<String> {
        ECard::from_code(code).map(|card| card_html(card, v.apportionment == 2012))
    }
}
