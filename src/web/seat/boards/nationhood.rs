//! The Nationhood board, laid out as the rules draw the table: the opponent's cities and
//! discard pile, the stock between, one's own cities, pile and hand.

use crate::cards::Card;
use crate::engine::Seat;
use crate::engine::present::Names;
use crate::games::nationhood::{Nationhood, View, present};
use crate::web::seat::boards::{Board, Seating, from_seat, open_hands, own_cards_by_suit};
use crate::web::seat::render::plain_card_html;
use askama::Template;

struct Player {
    name: String,
    you: bool,
    dealer: bool,
    turn: bool,
    waiting: String,
    score: i64,
    rubbers: u32,
    cards: usize,
    cities: usize,
}

struct Side {
    title: String,
    cities: String,
    pile: String,
}

#[derive(Template)]
#[template(path = "boards/nationhood.html")]
struct Table {
    players: Vec<Player>,
    best_of_three: bool,
    hand_number: u32,
    rubber: u32,
    match_kind: &'static str,
    target: i64,
    phase: String,
    stock: String,
    offer: String,
    threat: String,
    last_hand: String,
    sides: Vec<Side>,
    runs: String,
    open_hands: Vec<(String, String)>,
}

fn cards_html(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|&c| plain_card_html(c))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each side of the table, the opponent's first, the viewer's (or the first seat's) last.
fn sides(v: &View, name: &dyn Fn(Seat) -> String) -> Vec<Side> {
    let order = match v.you {
        Some(you) => [1 - you, you],
        None => [1, 0],
    };
    order
        .iter()
        .map(|&s| Side {
            title: if v.you == Some(s) {
                "Your side of the table".to_string()
            } else {
                format!("{}'s side of the table", name(s))
            },
            cities: present::cities_words(v, s).html(&plain_card_html),
            pile: present::pile_words(&v.piles[s]).html(&plain_card_html),
        })
        .collect()
}

impl Board for Nationhood {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let people = Names::new(seating.names);
        let name = |s: Seat| people.of(s);
        let players = from_seat(v.you, 2)
            .map(|s| Player {
                name: name(s),
                you: v.you == Some(s),
                dealer: v.dealer == s,
                turn: seating.marks_to_move(v.turn.contains(&s)),
                waiting: seating.waiting_since(s),
                score: v.scores[s],
                rubbers: v.rubbers_won[s],
                cards: v.hand_sizes[s],
                cities: v.cities.iter().filter(|c| c.owner == s).count(),
            })
            .collect();
        let own = |list: &[Option<Vec<Card>>]| {
            v.you
                .and_then(|s| list.get(s).cloned().flatten())
                .map(|cards| cards_html(&cards))
                .unwrap_or_default()
        };
        Table {
            players,
            best_of_three: v.rubbers > 1,
            hand_number: v.hand_number,
            rubber: v.rubber,
            match_kind: if v.rubbers > 1 {
                "best of three"
            } else {
                "one rubber"
            },
            target: v.target,
            phase: seating.waits_for(present::phase_words(v, &people)),
            stock: present::stock_words(v),
            offer: present::offer_words(v, &people).unwrap_or_default(),
            threat: present::threat_words(v, &people),
            last_hand: present::last_hand_words(v, &people).html(&plain_card_html),
            sides: sides(v, &name),
            runs: own(&v.runs),
            open_hands: open_hands(v.you, &v.hands, &name, cards_html),
        }
        .render()
    }

    fn own_hand(v: &View) -> Option<Vec<String>> {
        own_cards_by_suit(v.you, &v.hands)
    }

    fn card(_: &View, code: &str) -> Option<String> {
        Card::from_code(code).map(plain_card_html)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::bot::{bot_rng, fill_at_random};
    use crate::engine::{Log, Seed, Viewer};
    use crate::games::find_game;
    use crate::web::seat::boards::game_board;

    /// Every step of random games renders for each seat and a spectator, never shows the
    /// other hand's cards, and shows one's own.
    #[test]
    fn every_step_of_random_games_renders_without_the_other_hand() {
        let game = find_game("nationhood").unwrap();
        let names = vec!["Ann <b>".to_string(), "Bo".to_string()];
        for n in 0..10 {
            let seed = Seed::from_number(n);
            let mut live = game
                .new_match(&serde_json::json!({"rubbers": 1, "target": 3}), 2, seed)
                .unwrap();
            let mut rng = bot_rng(&seed);
            while live.outcome().is_none() {
                let state = live.state_json();
                for seat in 0..2 {
                    let view = live.view(Viewer::Seat(seat));
                    let html = game_board("nationhood", &view, &names).expect("the view renders");
                    let hand =
                        crate::web::seat::boards::own_hand("nationhood", &view).expect("a hand");
                    assert!(!html.contains("Ann <b>"), "names are escaped");
                    for card in state["hands"][1 - seat].as_array().unwrap() {
                        let code = card.as_str().unwrap();
                        let nation = &state["last_hand"]["nation"];
                        if !nation.as_array().is_some_and(|n| n.contains(card)) {
                            assert!(
                                !html.contains(&format!("data-card=\"{code}\"")),
                                "seat {seat} sees {code}"
                            );
                        }
                    }
                    let held: Vec<crate::cards::Card> = state["hands"][seat]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|c| crate::cards::Card::from_code(c.as_str().unwrap()).unwrap())
                        .collect();
                    let sorted: Vec<&str> = crate::games::pack::by_suit(&held)
                        .iter()
                        .map(|c| c.code())
                        .collect();
                    assert_eq!(hand, sorted, "the page is given one's own hand, by suit");
                }
                game_board("nationhood", &live.view(Viewer::Spectator), &names).expect("renders");
                let seat = live.active()[0];
                let choices = live.choices(seat);
                if state["phase"] == "turn" {
                    let html =
                        game_board("nationhood", &live.view(Viewer::Seat(seat)), &names).unwrap();
                    let offers = choices.iter().any(|c| c.command["type"] == "offer");
                    assert_eq!(
                        html.contains("offer diplomacy"),
                        offers,
                        "the status line offers diplomacy exactly when it is open"
                    );
                }
                let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
                live.apply_json(seat, &command, &mut Log::silent()).unwrap();
            }
            let html = game_board("nationhood", &live.view(Viewer::Auditor), &names).unwrap();
            assert!(html.contains("The last hand"));
        }
    }
}
