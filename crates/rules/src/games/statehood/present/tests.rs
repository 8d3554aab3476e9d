use super::super::{Command, Declaration, DeclarationKind, Options, Phase, State, Statehood};
use crate::cards::Card;
use crate::engine::present::Names;
use crate::engine::present::check::{check_random_positions, position_problems};
use crate::engine::{GameRng, Log, Match, Rules, Seed, Viewer};

fn names() -> Vec<String> {
    ["Ann", "Bo", "Cy"].map(String::from).into()
}

fn cards(codes: &[&str]) -> Vec<Card> {
    codes.iter().map(|c| Card::from_code(c).unwrap()).collect()
}

fn text(state: &State, viewer: Viewer) -> String {
    let names = names();
    let view = Statehood::view(state, viewer);
    let position = Statehood::position(&view, &Names::new(&names));
    let json = serde_json::to_value(&view).unwrap();
    let found = position_problems(&position, &json, &names, Some(1500));
    assert!(found.is_empty(), "{found:?}\n{}", position.text);
    position.text
}

/// Hand 2 of three players, Cy deals; Ann is to move.
fn table() -> State {
    let mut s = Match::<Statehood>::new(Options::default(), 3, Seed::from_number(1))
        .unwrap()
        .state;
    s.hands = vec![
        cards(&["VI", "GA", "AK", "WY", "VT", "DE", "RI"]),
        cards(&["TX", "FL", "OH", "NC", "TN", "IN", "MO"]),
        cards(&["CA", "NY", "PR", "IL", "PA", "MI", "GU"]),
    ];
    s.stock = cards(&["ND", "SD", "MT", "WV", "ID", "NE", "KS", "MS", "AR", "IA"]);
    s.discard = cards(&["NJ", "UT"]);
    s.dealer = 2;
    s.turn = 0;
    s.phase = Phase::Turn;
    s.hand_number = 2;
    s.scores = vec![4, 0, 6];
    s
}

#[test]
fn a_turn_reads_from_the_seat() {
    assert_eq!(
        text(&table(), Viewer::Seat(0)),
        "Hand 2: playing to 56 points\n\
         Players: Bo 0 points, 7 cards; Cy (dealer) 6 points, 7 cards; Ann (you) 4 points, 7 cards\n\
         On the table: discard pile topped by 8♦ Utah (6) (2 cards); 10 cards in the stock\n\
         You hold: Q♠ Georgia (16), 3♠ Rhode Island (4), 2♥ Alaska (3), 2♦ Wyoming (3), 3♣ Delaware (3), 2♣ Vermont (3), U.S. Virgin Islands\n\
         Your turn to take the discard or draw from the stock, or to declare statehood."
    );
}

#[test]
fn a_declaration_shows_its_challenges_and_the_high_total() {
    let mut state = table();
    state.hands[0].retain(|c| !cards(&["VI", "GA"]).contains(c));
    state.hands[1].retain(|c| *c != cards(&["TX"])[0]);
    state.declaration = Some(Declaration {
        declarer: 0,
        card: cards(&["VI"])[0],
        kind: DeclarationKind::Wildcard,
        defence: cards(&["GA"]),
        challenges: vec![(1, cards(&["TX"]))],
        passes: Vec::new(),
    });
    state.phase = Phase::Challenges;
    state.turn = 2;
    let read = text(&state, Viewer::Seat(2));
    assert!(
        read.contains(
            "Declared: Ann declares U.S. Virgin Islands defended by Q♠ Georgia (16) (16); \
             Bo challenges with A♥ Texas (40) (40); high: Bo with 40 electoral votes (a challenge must beat it)\n"
        ),
        "{read}"
    );
    assert!(
        read.ends_with("Your turn to challenge the declaration or pass."),
        "{read}"
    );
}

#[test]
fn puerto_rico_answers_stay_sealed_and_the_reveal_follows() {
    let mut state = table();
    state.turn = 2;
    let mut rng = GameRng::new(&Seed::from_number(7), 3);
    Statehood::apply(
        &mut state,
        2,
        &Command::DeclarePuertoRico,
        &mut rng,
        &mut Log::silent(),
    )
    .unwrap();
    let six = state.hands[1][..6].to_vec();
    Statehood::apply(
        &mut state,
        1,
        &Command::ChallengePuertoRico { cards: six },
        &mut rng,
        &mut Log::silent(),
    )
    .unwrap();
    let bo = text(&state, Viewer::Seat(1));
    assert!(
        bo.contains("still to answer: Ann; you challenge with "),
        "{bo}"
    );
    let ann = text(&state, Viewer::Seat(0));
    assert!(ann.contains("still to answer: Ann\n"), "{ann}");
    assert!(
        ann.ends_with("Your turn: challenge Puerto Rico with six cards, or pass."),
        "{ann}"
    );
    assert!(
        !ann.contains("A♥ Texas"),
        "Bo's sealed cards stay hidden: {ann}"
    );
    let six = state.hands[0][..6].to_vec();
    Statehood::apply(
        &mut state,
        0,
        &Command::ChallengePuertoRico { cards: six },
        &mut rng,
        &mut Log::silent(),
    )
    .unwrap();
    let after = text(&state, Viewer::Spectator);
    assert!(
        after.contains(
            "Hand 2: Cy keeps Puerto Rico with 135 electoral votes: 6 points plus 1 for \
             wildcards and DC in the unsuccessful challengers' hands. Puerto Rico: Cy showed \
             135 electoral votes; Ann challenged with 28; Bo challenged with 125.\n"
        ),
        "{after}"
    );
}

#[test]
fn positions_of_random_games_read_as_words() {
    let mut checked = 0;
    for seats in 2..=4 {
        checked += check_random_positions::<Statehood>(&Options { target: 12 }, seats, 0..2, 1500);
    }
    assert!(checked > 1000, "{checked}");
}
