//! The Whitehouse board: the four seats around the trick, the contract and scores, the kitty
//! and last trick where the viewer may see them, and the viewer's own hand.

use crate::cards::Card;
use crate::engine::Seat;
use crate::engine::log::count;
use crate::engine::present::Names;
use crate::games::whitehouse::{Phase, View, Whitehouse, present};
use crate::web::seat::boards::{Board, Seating, cards_html, open_hands, own_cards, words};
use crate::web::seat::render::{card_html, esc, tagged_card_html};
use askama::Template;

struct BoardSeat {
    area: &'static str,
    name: String,
    partner: bool,
    waiting: String,
    turn: bool,
    dealer: bool,
    out: bool,
    cards: String,
    tricks: String,
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
    last_hand: String,
    kitty: String,
    last_trick: String,
    open_hands: Vec<(String, String)>,
}

/// The place at the table where `seat` is drawn for a viewer at `you`: the viewer at the
/// bottom, the partner opposite, the next seat (to the viewer's left in play order) on the
/// left; a spectator sees North at the top.
fn area(seat: Seat, you: Option<Seat>) -> &'static str {
    const AREAS: [&str; 4] = ["at-north", "at-east", "at-south", "at-west"];
    AREAS[(seat + 6 - you.unwrap_or(2)) % 4]
}

impl Board for Whitehouse {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let names = seating.names;
        let people = Names::new(names);
        let name = |s: Seat| people.of(s);
        let seats = (0..4)
            .map(|s| BoardSeat {
                area: area(s, v.you),
                name: name(s),
                partner: v.partnership && v.you.is_some_and(|you| you != s && (you + 2) % 4 == s),
                waiting: seating.waiting_since(s),
                turn: seating.marks_to_move(v.turn == Some(s)),
                dealer: v.dealer == s,
                out: v.eliminated.get(s).copied().unwrap_or(false),
                cards: count(v.hand_sizes.get(s).copied().unwrap_or(0) as i64, "card"),
                tricks: count(v.tricks_won.get(s).copied().unwrap_or(0), "trick"),
                captured: v.captured.get(s).copied().unwrap_or(0),
                bid: present::bid_words(v, s),
            })
            .collect();
        WhitehouseBoard {
            seats,
            trick: v
                .trick
                .iter()
                .map(|(s, c)| (name(*s), card_html(*c)))
                .collect(),
            table_note: match v.phase {
                Phase::Play => "the trick is empty".into(),
                other => words(other),
            },
            hand_number: v.hand_number,
            phase: seating.waits_for(words(v.phase)),
            contract: if v.phase == Phase::Bidding && v.high_bid.is_none() {
                "bidding".to_string()
            } else {
                present::contract(v, &people)
            },
            scores: present::scores(v, &people),
            last_hand: present::last_hand(v, &people),
            kitty: v.kitty.as_deref().map(cards_html).unwrap_or_default(),
            last_trick: v
                .last_trick
                .as_ref()
                .map(|(cards, winner)| {
                    let played: Vec<Card> = cards.iter().map(|(_, c)| *c).collect();
                    format!("{} — taken by {}", cards_html(&played), esc(&name(*winner)))
                })
                .unwrap_or_default(),
            open_hands: open_hands(v.you, &v.hands, &name, cards_html),
        }
        .render()
    }

    fn own_hand(v: &View) -> Option<Vec<String>> {
        own_cards(v.you, &v.hands)
    }

    /// The bidder's cards taken up from the kitty are marked "kitty" until it lays one back.
    fn card(v: &View, code: &str) -> Option<String> {
        let card = Card::from_code(code)?;
        let tag = v.from_kitty.contains(&card).then_some("kitty");
        Some(tagged_card_html(card, tag))
    }
}
