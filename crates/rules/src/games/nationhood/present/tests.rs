use super::super::melds::face;
use super::super::{City, Nationhood, Offer, Options, Phase, State, pack};
use crate::cards::Card;
use crate::engine::present::Names;
use crate::engine::present::check::{check_random_positions, position_problems};
use crate::engine::{Match, Rules, Seed, Viewer};

fn names() -> Vec<String> {
    ["Ann", "Bo"].map(String::from).into()
}

fn cards(faces: &str) -> Vec<Card> {
    faces
        .split_whitespace()
        .map(|f| match f {
            "BJ" => Card::BLUE_JOKER,
            _ => pack().into_iter().find(|&c| face(c) == f).unwrap(),
        })
        .collect()
}

fn text(state: &State, viewer: Viewer) -> String {
    let names = names();
    let view = Nationhood::view(state, viewer);
    let position = Nationhood::position(&view, &Names::new(&names));
    let json = serde_json::to_value(&view).unwrap();
    let found = position_problems(&position, &json, &names, Some(1500));
    assert!(found.is_empty(), "{found:?}\n{}", position.text);
    position.text
}

/// Hand 2: Ann holds a run of hearts and a joker, Bo has a city of 9s and has offered it for
/// Ann's city of 7s.
fn table() -> State {
    let mut s = Match::<Nationhood>::new(Options::default(), 2, Seed::from_number(1))
        .unwrap()
        .state;
    s.hands = vec![
        cards("3♥ 4♥ 5♥ K♠ 2♣ BJ J♦"),
        cards("A♠ A♦ 10♣ 6♦ 8♠ Q♥ 2♦"),
    ];
    s.stock = cards("4♠ 4♦ 5♠");
    s.piles = vec![cards("K♦ 6♣"), cards("3♠")];
    s.cities = vec![
        City {
            id: 0,
            owner: 0,
            rank: 7,
            cards: cards("7♠ 7♥ 7♦"),
        },
        City {
            id: 1,
            owner: 1,
            rank: 9,
            cards: cards("9♣ 9♦ 9♥ 9♠"),
        },
    ];
    s.next_city = 2;
    s.dealer = 0;
    s.turn = 1;
    s.hand_number = 2;
    s.scores = vec![3, 0];
    s.offer = Some(Offer {
        from: 1,
        give: vec![1],
        take: vec![0],
    });
    s.phase = Phase::Answer;
    s
}

#[test]
fn an_offer_reads_from_the_seat_that_answers_it() {
    assert_eq!(
        text(&table(), Viewer::Seat(0)),
        "Hand 2: one rubber, 7 points win it\n\
         Players: Bo 0 points, 7 cards in hand, 1 city; Ann (you, dealer) 3 points, 7 cards in hand, 1 city\n\
         Now: Ann answers Bo's offer\n\
         Diplomacy: Bo offers Bo's city of 9s for Ann's city of 7s\n\
         The stock: 3 cards, face down; when it runs out the discard piles but their top cards are shuffled into a new stock, once\n\
         Bo's cities: 9♣ 9♦ 9♥ 9♠\n\
         Bo's discard pile: 3♠\n\
         Your cities: 7♠ 7♥ 7♦\n\
         Your discard pile: 6♣ on top of (newest first) K♦\n\
         You hold: K♠ 5♥ 4♥ 3♥ J♦ 2♣ Joker; in runs (kept if war comes): 3♥ 4♥ 5♥"
    );
    let bo = text(&table(), Viewer::Seat(1));
    assert!(bo.contains("You hold: A♠ 8♠ Q♥ A♦ 6♦ 2♦ 10♣"), "{bo}");
    assert!(
        !bo.contains("Joker") && !bo.contains("5♥"),
        "Ann's hand is hidden: {bo}"
    );
    let spectator = text(&table(), Viewer::Spectator);
    assert!(!spectator.contains("hold"), "{spectator}");
}

#[test]
fn a_refused_offer_warns_of_war_and_the_end_shows_the_nation() {
    let mut state = table();
    state.offer = None;
    state.phase = Phase::Turn;
    state.war_threats = vec![1];
    let read = text(&state, Viewer::Seat(0));
    assert!(
        read.contains("War: Bo's diplomacy was refused: Bo may declare war on their next turn, if they hold a joker.\n"),
        "{read}"
    );
    state.last_hand = Some(super::super::HandEnd {
        hand: 1,
        winner: Some(0),
        kind: super::super::HandEndKind::Nation,
        nation: Some(cards("9♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥")),
        cities: 0,
        points: 3,
        summary: "{s0} wins hand 1 with a nation: 3 points and 0 for cities, 3 in all".into(),
    });
    let read = text(&state, Viewer::Seat(1));
    assert!(
        read.ends_with(
            "Previous hand: Ann wins hand 1 with a nation: 3 points and 0 for cities, 3 in all. \
             The nation: 3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥"
        ),
        "{read}"
    );
}

#[test]
fn positions_of_random_games_read_as_words() {
    let one = check_random_positions::<Nationhood>(
        &Options {
            rubbers: 1,
            target: 3,
            ..Options::default()
        },
        2,
        0..3,
        1500,
    );
    let three = check_random_positions::<Nationhood>(
        &Options {
            rubbers: 3,
            target: 2,
            ..Options::default()
        },
        2,
        5..6,
        1500,
    );
    assert!(one + three > 1000, "{one} {three}");
}
