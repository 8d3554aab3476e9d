//! The Statehood board: the players with their scores and sets won, the stock and discard pile,
//! the pending declaration or Puerto Rico (answers sealed until all are in), the last hand with
//! its revealed challenges, and the viewer's own hand.

use crate::engine::Seat;
use crate::engine::log::count;
use crate::engine::present::Names;
use crate::games::statehood::{Statehood, View, present};
use crate::web::seat::boards::{
    Board, Seating, cards_html, from_seat, open_hands, own_cards_by_suit, words,
};
use crate::web::seat::render::{card_html, esc};
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

impl Board for Statehood {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let people = Names::new(seating.names);
        let name = |s: Seat| people.of(s);
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
            phase: seating.waits_for(words(v.phase)),
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
                .map(|d| present::declaration(d, v.high.as_ref(), &people).html(&card_html))
                .unwrap_or_default(),
            puerto_rico: v
                .puerto_rico
                .as_ref()
                .map(|p| present::puerto_rico(p, v.you, &people).html(&card_html))
                .unwrap_or_default(),
            last_hand: v
                .last_hand
                .as_ref()
                .map(|h| {
                    let mut text = esc(&present::last_hand_summary(v, &people));
                    if let Some(p) = &h.puerto_rico {
                        text.push_str("<br>");
                        text.push_str(&present::reveal(p, &people).html(&card_html));
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
        own_cards_by_suit(v.you, &v.hands)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Log, Match, Rules, Seed, Viewer, bot};
    use crate::games::statehood::{Command, Options, Phase, Statehood};
    use crate::web::seat::boards::game_board;

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
