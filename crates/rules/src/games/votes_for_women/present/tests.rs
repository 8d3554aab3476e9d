//! The position in words: checked over many random games, and exactly at hand-made positions.

use super::super::data::{Colour, Region, St};
use super::super::state::{Campaigner, Mark, Phase, State};
use super::super::{Options, VotesForWomen};
use super::position;
use crate::engine::present::Names;
use crate::engine::{GameRng, Outcome, Rules, Seed, Viewer};
use crate::games::present_checks::check_random_positions;

/// The view's field names that are plain words of the position, the printed game's own
/// ("Turn 2 of 6, round 3", "4 of 12 buttons", "2 purple", "Claimed by you", "State cards",
/// "Congress", "the states", "campaigners", "Strategy phase", "In effect this turn",
/// "Resolving: …").
const WORDS: &[&str] = &[
    "turn",
    "round",
    "purple",
    "yellow",
    "red",
    "buttons",
    "claimed",
    "card",
    "you",
    "vote",
    "dice",
    "deck",
    "state",
    "region",
    "name",
    "congress",
    "states",
    "resolving",
    "campaigners",
    "phase",
    "effect",
];

#[test]
fn random_games_give_whole_named_positions_under_3000_characters() {
    let sizes = check_random_positions::<VotesForWomen>(
        Options::default(),
        20,
        WORDS,
        |v, viewer, text| {
            if let Viewer::Seat(s) = viewer {
                assert!(text.contains("You ("), "{s}: {text}");
                assert!(text.contains("Your hand: "), "{text}");
            }
            // No effect text, only names.
            for s in &v.states {
                if let Some(card) = &s.card {
                    assert!(!text.contains(&card.effect), "{text}");
                }
            }
            for hand in v.hands.iter().flatten() {
                for card in hand {
                    assert!(text.contains(&card.name), "{} missing in {text}", card.name);
                }
            }
        },
    );
    println!(
        "Votes for Women positions: {} measured, max {} characters, p50 {}\nlargest:\n{}",
        sizes.positions, sizes.max, sizes.p50, sizes.largest
    );
    assert!(
        sizes.max < 3000,
        "{} characters:\n{}",
        sizes.max,
        sizes.largest
    );
}

fn st(code: &str) -> usize {
    St::from_code(code).unwrap().0 as usize
}

fn names() -> Vec<String> {
    vec!["Ann".to_string(), "Bo".to_string()]
}

/// Turn 2, round 3: the Suffragist to play a hand card, cubes in the West and the South.
fn mid_game() -> State {
    let mut state = VotesForWomen::setup(
        &Options::default(),
        2,
        &mut GameRng::new(&Seed::from_number(7), 0),
    )
    .unwrap();
    state.turn = 2;
    state.round = 3;
    state.phase = Phase::Operations;
    state.to_play = 0;
    state.congress = 2;
    state.buttons = [3, 1];
    state.hands = [vec![1, 26, 28], vec![55, 56, 57, 77]];
    state.decks[0].truncate(20);
    state.decks[1].truncate(19);
    state.states[st("CA")].purple = 2;
    state.states[st("CA")].yellow = 1;
    state.states[st("TX")].red = 3;
    state.campaigners = vec![
        Campaigner {
            colour: Colour::Purple,
            region: Region::West,
        },
        Campaigner {
            colour: Colour::Red,
            region: Region::South,
        },
    ];
    state.state_cards = vec![117, 124];
    state.strategy_face_up = vec![105, 106];
    state.strategy_deck.truncate(6);
    state.claimed = [vec![121], vec![]];
    state.rest_of_turn = vec![54];
    state
}

#[test]
fn a_player_sees_her_side_her_hand_and_the_map_by_region() {
    let state = mid_game();
    let names = names();
    let ann = position(
        &VotesForWomen::view(&state, Viewer::Seat(0)),
        &Names::new(&names),
    );
    assert_eq!(
        ann.text,
        "Turn 2 of 6, round 3 of 6. Your move: play a card from your hand.\n\
         You (Ann, Suffragist): 3 of 12 buttons, 3 cards in hand, 20 in the draw deck.\n\
         Bo (Opposition): 1 of 6 buttons, 4 cards in hand, 19 in the draw deck.\n\
         Congress: 2 of 6 markers (the sixth sends the Amendment to the states).\n\
         The map, cubes by region:\n  \
         West (campaigners purple): California 2 purple, 1 yellow\n  \
         South (campaigners red): Texas 3 red\n\
         State cards to claim: California, Ohio\n\
         In effect this turn: The Civil War\n\
         Strategy cards face up: Efficient Organizing; Reconsideration (6 in the deck)\n\
         Claimed by you: Texas\n\
         Your hand: Seneca Falls Convention; Carrie Chapman Catt; Inez Milholland"
    );
    let bo = position(
        &VotesForWomen::view(&state, Viewer::Seat(1)),
        &Names::new(&names),
    );
    assert!(bo.text.starts_with(
        "Turn 2 of 6, round 3 of 6. Waiting for Ann (Suffragist).\n\
         You (Bo, Opposition): 1 of 6 buttons, 4 cards in hand, 19 in the draw deck.\n\
         Ann (Suffragist): 3 of 12 buttons, 3 cards in hand, 20 in the draw deck.\n"
    ));
    assert!(bo.text.contains("\nClaimed by Ann: Texas\n"), "{}", bo.text);
    assert!(bo.text.ends_with(
        "\nYour hand: 15th Divides Suffragists; Senator Joseph Brown; Minor v. Happersett; Emma Goldman"
    ));
    assert!(
        !bo.text.contains("Seneca Falls"),
        "the other hand never shows"
    );
    let spectator = position(
        &VotesForWomen::view(&state, Viewer::Spectator),
        &Names::new(&names),
    );
    assert!(spectator.text.starts_with(
        "Turn 2 of 6, round 3 of 6. Waiting for Ann (Suffragist).\n\
         Ann (Suffragist): 3 of 12 buttons"
    ));
    assert!(!spectator.text.contains("hand:"), "{}", spectator.text);
    let auditor = position(
        &VotesForWomen::view(&state, Viewer::Auditor),
        &Names::new(&names),
    );
    assert!(
        auditor
            .text
            .contains("\nAnn's hand: Seneca Falls Convention; ")
    );
    assert!(
        auditor
            .text
            .contains("\nBo's hand: 15th Divides Suffragists; ")
    );
    assert!(ann.html.contains(
        r#"<td style="padding: 0.1rem 0;">California <span style="color: #7b3fa0;">■■</span>2 <span style="color: #c99a06;">■</span>1</td>"#
    ), "{}", ann.html);
}

#[test]
fn after_the_amendment_the_states_decided_are_listed_by_side() {
    let mut state = mid_game();
    state.amendment_sent = true;
    state.congress = 0;
    for code in ["WY", "UT", "CO"] {
        state.states[st(code)].mark = Some(Mark::Check);
    }
    state.states[st("GA")].mark = Some(Mark::X);
    state.campaigners.clear();
    state.states[st("CA")] = Default::default();
    state.states[st("TX")] = Default::default();
    state.outcome = Some(Outcome {
        winners: vec![1],
        scores: vec![3, 1],
        reason: "13 states reject the Nineteenth Amendment".to_string(),
    });
    state.phase = Phase::Over;
    let names = names();
    let ann = position(
        &VotesForWomen::view(&state, Viewer::Seat(0)),
        &Names::new(&names),
    );
    let lines: Vec<&str> = ann.text.lines().collect();
    assert_eq!(
        &lines[..7],
        &[
            "The game is over: 13 states reject the Nineteenth Amendment.",
            "You (Ann, Suffragist): 3 of 12 buttons, 3 cards in hand, 20 in the draw deck.",
            "Bo (Opposition): 1 of 6 buttons, 4 cards in hand, 19 in the draw deck.",
            "The Amendment is before the states: 3 of 36 ratify, 1 of 13 reject.",
            "Ratified (3): Utah, Colorado, Wyoming",
            "Rejected (1): Georgia",
            "The map: no campaigner and no cube yet.",
        ]
    );
}

#[test]
fn the_end_names_the_winner_and_tallies_the_states() {
    let mut state = mid_game();
    for code in ["CA", "NY", "WY"] {
        state.states[st(code)].mark = Some(Mark::Check);
    }
    state.states[st("GA")].mark = Some(Mark::X);
    state.finish(
        1,
        "the Nineteenth Amendment was not sent to the states by the end of turn 6",
    );
    let names = names();
    let view = VotesForWomen::view(&state, Viewer::Spectator);
    let outcome = VotesForWomen::outcome(&state).expect("over");
    let ending = super::ending(&view, &outcome, &Names::new(&names));
    assert_eq!(
        ending.verdict,
        "Bo (Opposition) wins. The Nineteenth Amendment was not sent to the states by the end of turn 6."
    );
    let tally: Vec<(&str, &str)> = ending
        .tally
        .iter()
        .map(|(l, v)| (l.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        tally,
        [
            ("Ratified", "3 states"),
            ("Rejected", "1 state"),
            ("Undecided", "44 states")
        ]
    );
}

/// Change In Plans reads "See opponent's hand": while its player chooses the card to discard,
/// their position lists the whole hand (campaigner cards too, which may not be chosen), and
/// nobody else's does.
#[test]
fn change_in_plans_shows_the_whole_opposing_hand_to_its_player_only() {
    use crate::engine::{Log, bot};
    use crate::games::find_game;
    let game = find_game("votes-for-women").unwrap();
    let seat_names = names();
    let names = Names::new(&seat_names);
    let mut seen = 0;
    for n in 0..400 {
        let seed = Seed::from_number(n);
        let mut live = game.new_match(&serde_json::json!({}), 2, seed).unwrap();
        let mut rng = bot::bot_rng(&seed);
        while live.outcome().is_none() && seen < 3 {
            let state: State = serde_json::from_value(live.state_json()).unwrap();
            if let Some(frame) = state
                .stack
                .iter()
                .find(|f| super::super::shows_opponents_hand(f))
            {
                seen += 1;
                let looker = frame.seat;
                let other = 1 - looker;
                let label = super::seen_hand_label(&names.of(other));
                let text = position(
                    &super::super::view::view(&state, Viewer::Seat(looker)),
                    &names,
                )
                .text;
                assert!(text.contains(&label), "{text}");
                let line = text.lines().find(|l| l.starts_with(&label)).unwrap();
                for &c in &state.hands[other] {
                    let name = &super::super::data::card(c).name;
                    assert!(line.contains(name.as_str()), "{name} missing: {line}");
                }
                for viewer in [Viewer::Seat(other), Viewer::Spectator] {
                    let text = position(&super::super::view::view(&state, viewer), &names).text;
                    assert!(
                        !text.contains("Change In Plans lets you"),
                        "{viewer:?}: {text}"
                    );
                }
            }
            let seat = live.active()[0];
            let command = bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
            live.apply_json(seat, &command, &mut Log::silent()).unwrap();
        }
        if seen >= 3 {
            break;
        }
    }
    assert_eq!(seen, 3, "random games reach Change In Plans");
}
