//! The Electoral College Combat board: the two players with their votes and stacks, the hand
//! on the table (face-down cards as backs), the wild card ruling it, the signs of Russian
//! Collusion, the last hand and the cards each player has won, counted under the game's
//! apportionment.

use crate::cards::Color;
use crate::engine::Seat;
use crate::games::electoral_combat::present::{
    goal_words, phase_words, signs_words, slot_note, stack_words, went_to, wild_words,
};
use crate::games::electoral_combat::{ECard, ElectoralCombat, SlotView, View};
use crate::web::seat::boards::{Board, Seating, seat_name};
use crate::web::seat::render::esc;
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

/// One card of the hand on the table, face up or as a back, and what became of it.
fn slot_html(t: &SlotView, ev_2012: bool, name: &dyn Fn(Seat) -> String) -> String {
    let card = match t.card {
        Some(card) => card_html(card, ev_2012),
        None => format!(
            r#"<span class="card down"><b>?</b><span class="state">card {}</span></span>"#,
            t.slot + 1
        ),
    };
    let note = slot_note(t, name);
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
                    stack: stack_words(v, s),
                    signed: v.signed[s],
                })
                .collect(),
            table: v
                .table
                .iter()
                .map(|t| slot_html(t, ev_2012, &name))
                .collect(),
            hand: v.hand,
            phase: seating.waits_for(phase_words(v, &name, None)),
            goal: goal_words(v),
            wild: wild_words(v, &name).unwrap_or_default(),
            added: cards(&v.added),
            signs: signs_words(v, &name).unwrap_or_default(),
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
                                esc(&went_to(c.to, &name))
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
