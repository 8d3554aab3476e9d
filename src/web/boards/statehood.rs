//! The Statehood board: the players with their scores and sets won, the stock and discard pile,
//! the pending declaration or Puerto Rico (answers sealed until all are in), the last hand with
//! its revealed challenges, and the viewer's own hand.

use super::super::render::{card_html, esc};
use super::{Board, Seating, cards_html, from_seat, open_hands, own_cards, seat_name, words};
use crate::cards::Card;
use crate::engine::Seat;
use crate::engine::log::count;
use crate::games::statehood::{
    Declaration, High, PrAnswer, PrDeclaration, PrView, Statehood, View,
};
use askama::Template;

struct StatehoodPlayer {
    name: String,
    you: bool,
    dealer: bool,
    turn: bool,
    waiting: String,
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
    stock: String,
    discard: String,
    declaration: String,
    puerto_rico: String,
    last_hand: String,
    drawn: String,
    open_hands: Vec<(String, String)>,
}

fn total(cards: &[Card]) -> u32 {
    cards.iter().map(|c| c.ev()).sum()
}

impl Board for Statehood {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let names = seating.names;
        let name = |s: Seat| seat_name(names, s);
        let players = from_seat(v.you, v.scores.len())
            .map(|s| StatehoodPlayer {
                name: name(s),
                you: v.you == Some(s),
                dealer: v.dealer == s,
                turn: seating.marks_to_move(v.turn.contains(&s)),
                waiting: seating.waiting_since(s),
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
        StatehoodBoard {
            players,
            hand_number: v.hand_number,
            phase: words(v.phase),
            target: v.target,
            stock: count(v.stock_count as i64, "card"),
            discard: match v.discard_top {
                Some(top) => format!(
                    "{} <span class=\"small\">({})</span>",
                    card_html(top),
                    count(v.discard_count as i64, "card")
                ),
                None => "empty".to_string(),
            },
            declaration: v
                .declaration
                .as_ref()
                .map(|d| declaration_html(d, v.high.as_ref(), &name))
                .unwrap_or_default(),
            puerto_rico: v
                .puerto_rico
                .as_ref()
                .map(|p| puerto_rico_html(p, v.you, &name))
                .unwrap_or_default(),
            last_hand: v
                .last_hand
                .as_ref()
                .map(|h| {
                    let mut text = esc(&crate::engine::log::render(&h.summary, names));
                    if let Some(p) = &h.puerto_rico {
                        text.push_str(&reveal_html(p, &name));
                    }
                    text
                })
                .unwrap_or_default(),
            drawn: v.drawn.map(card_html).unwrap_or_default(),
            open_hands: open_hands(v.you, &v.hands, &name, cards_html),
        }
        .render()
    }

    fn own_hand(v: &View) -> Option<Vec<String>> {
        own_cards(v.you, &v.hands)
    }
}

/// A wildcard or DC declaration with its challenges and the total a challenge must beat.
fn declaration_html(d: &Declaration, high: Option<&High>, name: &dyn Fn(Seat) -> String) -> String {
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
    if let Some(high) = high {
        text.push_str(&format!(
            "; high: {} with {} electoral votes (a challenge must beat it)",
            esc(&name(high.seat)),
            high.total
        ));
    }
    text
}

/// A Puerto Rico declaration in progress: who is still to answer, and the viewer's own sealed
/// answer.
fn puerto_rico_html(p: &PrView, you: Option<Seat>, name: &dyn Fn(Seat) -> String) -> String {
    let waiting: Vec<String> = (0..p.answered.len())
        .filter(|&s| !p.answered[s])
        .map(|s| esc(&name(s)))
        .collect();
    let mine = you
        .and_then(|s| p.answers.get(s))
        .and_then(Option::as_ref)
        .map(|a| match a {
            PrAnswer::Pass => "; you do not challenge (sealed)".to_string(),
            PrAnswer::Cards(cards) => format!(
                "; you challenge with {} ({}, sealed)",
                cards_html(cards),
                total(cards)
            ),
        })
        .unwrap_or_default();
    format!(
        "{} declares Puerto Rico, showing {} ({} electoral votes); still to answer: {}{mine}",
        esc(&name(p.declarer)),
        cards_html(&p.shown),
        p.defence,
        if waiting.is_empty() {
            "nobody".to_string()
        } else {
            waiting.join(", ")
        }
    )
}

/// The last hand's Puerto Rico declaration with every answer, revealed.
fn reveal_html(p: &PrDeclaration, name: &dyn Fn(Seat) -> String) -> String {
    let mut text = format!(
        "<br>Puerto Rico: {} showed {} ({})",
        esc(&name(p.declarer)),
        cards_html(&p.shown),
        total(&p.shown)
    );
    for step in 1..p.answers.len() {
        let seat = (p.declarer + step) % p.answers.len();
        text.push_str(&match &p.answers[seat] {
            Some(PrAnswer::Cards(cards)) => format!(
                "; {} challenged with {} ({})",
                esc(&name(seat)),
                cards_html(cards),
                total(cards)
            ),
            _ => format!("; {} did not challenge", esc(&name(seat))),
        });
    }
    text
}

#[cfg(test)]
mod tests {
    use super::super::game_board;
    use crate::engine::{Log, Match, Rules, Seed, Viewer, bot};
    use crate::games::statehood::{Command, Options, Phase, Statehood};

    #[test]
    fn the_board_shows_the_high_total_sealed_answers_and_the_reveal() {
        let names: Vec<String> = ["Ann", "Bo", "Cy", "Di"].map(String::from).into();
        let (mut highs, mut sealed, mut reveals) = (0, 0, 0);
        for seats in 2..=4 {
            for n in 0..10 {
                let seed = Seed::from_number(n);
                let mut live =
                    Match::<Statehood>::new(Options { target: 15 }, seats, seed).unwrap();
                let mut rng = bot::bot_rng(&seed);
                loop {
                    let viewers = (0..seats).map(Viewer::Seat).chain([Viewer::Spectator]);
                    for viewer in viewers {
                        let view =
                            serde_json::to_value(Statehood::view(&live.state, viewer)).unwrap();
                        let html = game_board("statehood", &view, &names[..seats])
                            .unwrap_or_else(|| panic!("no board for {view}"));
                        assert!(html.contains("Ann") && html.contains("Bo"));
                        if live.state.phase == Phase::Challenges {
                            assert!(html.contains("a challenge must beat it"), "{html}");
                            highs += 1;
                        }
                        if let (Viewer::Seat(s), Some(p)) = (viewer, &live.state.puerto_rico)
                            && p.answers[s].is_some()
                            && p.declarer != s
                        {
                            assert!(html.contains("sealed)"), "{html}");
                            sealed += 1;
                        }
                        if let Some(reveal) = live
                            .state
                            .last_hand
                            .as_ref()
                            .and_then(|h| h.puerto_rico.as_ref())
                        {
                            assert!(html.contains("Puerto Rico: "), "{html}");
                            for (seat, _) in reveal.challenges() {
                                let line = format!("{} challenged with", names[seat]);
                                assert!(html.contains(&line), "{html}");
                            }
                            reveals += 1;
                        }
                    }
                    if live.outcome().is_some() {
                        break;
                    }
                    let active = Statehood::active(&live.state);
                    let seat = active[rng.index(active.len())];
                    let choices = Statehood::choices(&live.state, seat);
                    let choice = &choices[rng.index(choices.len())];
                    let command: Command =
                        serde_json::from_value(bot::fill_at_random(choice, &mut rng)).unwrap();
                    live.apply(seat, &command, &mut Log::silent()).unwrap();
                }
            }
        }
        assert!(
            highs > 0 && sealed > 0 && reveals > 0,
            "{highs} {sealed} {reveals}"
        );
    }
}
