//! The position in words: checked over many random games, and exactly at hand-made positions.

use super::super::hand::deal;
use super::super::*;
use super::position;
use crate::engine::present::Names;
use crate::engine::{Outcome, Seed, Viewer};
use crate::games::present_checks::check_random_positions;

/// The view's field names that are plain words of the position ("Hand 3 of 12", "won by you",
/// "Wild card", "turn over a card", "the third card", "laid by").
const WORDS: &[&str] = &[
    "hand", "hands", "card", "cards", "you", "table", "wild", "added", "won", "votes", "turn",
    "third", "by", "to", "guess",
];

#[test]
fn random_games_give_whole_named_positions_under_1500_characters() {
    for options in [
        Options::default(),
        Options {
            apportionment: 2012,
            book_deal: true,
        },
    ] {
        let sizes =
            check_random_positions::<ElectoralCombat>(options, 75, WORDS, |v, viewer, text| {
                if let Viewer::Seat(s) = viewer {
                    assert!(text.starts_with("The game is over") || text.contains("laid by"));
                    assert!(text.contains("You ("), "{s}: {text}");
                }
                // No card hidden from a player shows.
                if viewer != Viewer::Auditor {
                    assert!(!text.contains("face down,"), "{text}");
                    for t in &v.table {
                        assert_eq!(
                            t.card.is_some(),
                            t.face_up || t.won_by.is_some() || t.removed
                        );
                    }
                }
            });
        println!(
            "Electoral College Combat positions: {} measured, max {} characters, p50 {}\nlargest:\n{}",
            sizes.positions, sizes.max, sizes.p50, sizes.largest
        );
        assert!(
            sizes.max < 1500,
            "{} characters:\n{}",
            sizes.max,
            sizes.largest
        );
    }
}

fn c(code: &str) -> ECard {
    ECard::from_code(code).unwrap()
}

fn names() -> Vec<String> {
    vec!["Ann".to_string(), "Bo".to_string()]
}

/// Hand 3, laid by Bo, who has turned Texas over; Ann is to turn a card.
fn mid_hand() -> State {
    let mut state = deal(
        Options::default(),
        &mut GameRng::new(&Seed::from_number(3), 0),
        2,
    );
    let codes = ["CA", "TX", "VT", "OH", "WY"];
    let cards: Vec<ECard> = codes.iter().map(|&code| c(code)).collect();
    for stack in &mut state.stacks {
        stack.retain(|card| !cards.contains(card));
        stack.truncate(20);
    }
    state.hand = 3;
    state.layer = 1;
    state.table = cards
        .iter()
        .map(|&card| Slot {
            card,
            up: false,
            turned_by: None,
            won_by: None,
            removed: false,
        })
        .collect();
    state.table[1].up = true;
    state.table[1].turned_by = Some(1);
    state.won = [vec![c("NY"), c("DE"), c("FL")], vec![c("NV")]];
    state.phase = Phase::Turn {
        seat: 0,
        purpose: Purpose::Second { first: 1 },
    };
    state
}

#[test]
fn a_player_sees_the_hand_from_her_side() {
    let state = mid_hand();
    let names = names();
    let ann = position(
        &ElectoralCombat::view(&state, Viewer::Seat(0)),
        &Names::new(&names),
    );
    assert_eq!(
        ann.text,
        "Hand 3 of 12, laid by Bo. 270 electoral votes or more wins.\n\
         You (Ann): 61 electoral votes, 20 cards in your stack.\n\
         Bo: 6 electoral votes, 20 cards in stack.\n\
         You turn over a card.\n\
         On the table:\n  \
         Card 1: face down\n  \
         Card 2: Texas (40), turned by Bo\n  \
         Card 3: face down\n  \
         Card 4: face down\n  \
         Card 5: face down\n\
         You have won: Florida 30, New York 28, Delaware 3\n\
         Bo has won: Nevada 6"
    );
    let bo = position(
        &ElectoralCombat::view(&state, Viewer::Seat(1)),
        &Names::new(&names),
    );
    assert!(bo.text.starts_with(
        "Hand 3 of 12, laid by you. 270 electoral votes or more wins.\n\
         You (Bo): 6 electoral votes, 20 cards in your stack.\n\
         Ann: 61 electoral votes, 20 cards in stack.\n\
         Ann turns over a card.\n"
    ));
    assert!(bo.text.contains("Card 2: Texas (40), turned by you\n"));
    let spectator = position(
        &ElectoralCombat::view(&state, Viewer::Spectator),
        &Names::new(&names),
    );
    assert!(spectator.text.starts_with(
        "Hand 3 of 12, laid by Bo. 270 electoral votes or more wins.\n\
         Ann: 61 electoral votes, 20 cards in stack.\n\
         Bo: 6 electoral votes, 20 cards in stack.\n\
         Ann turns over a card.\n"
    ));
    let auditor = position(
        &ElectoralCombat::view(&state, Viewer::Auditor),
        &Names::new(&names),
    );
    assert!(
        auditor
            .text
            .contains("Card 1: face down, California (54)\n")
    );
}

#[test]
fn russian_collusion_shows_only_ones_own_sealed_sign() {
    let mut state = mid_hand();
    state.table[1].won_by = Some(1);
    state.table[2].up = true;
    state.table[2].card = ECard::Wild(Wild::RussianCollusion);
    state.table[2].removed = true;
    state.table[2].turned_by = Some(0);
    state.wild = Some(WildPlay {
        kind: Wild::RussianCollusion,
        by: 0,
    });
    state.removed = vec![ECard::Wild(Wild::RussianCollusion)];
    state.phase = Phase::Rps;
    state.signs = [Some(Sign::Paper), None];
    state.last_signs = Some([Sign::Rock, Sign::Paper]);
    state.draws = 1;
    let names = names();
    let bo = position(
        &ElectoralCombat::view(&state, Viewer::Seat(1)),
        &Names::new(&names),
    );
    assert_eq!(
        bo.text,
        "Hand 3 of 12, laid by you. 270 electoral votes or more wins.\n\
         You (Bo): 6 electoral votes, 20 cards in your stack, no sign yet.\n\
         Ann: 61 electoral votes, 20 cards in stack, sign chosen.\n\
         Rock, paper, scissors: both choose, sealed (Russian Collusion).\n\
         On the table:\n  \
         Card 1: face down\n  \
         Card 2: Texas (40), won by you\n  \
         Card 3: Russian Collusion (wild card), out of the game\n  \
         Card 4: face down\n  \
         Card 5: face down\n\
         Wild card: Russian Collusion, turned over by Ann\n\
         Rock, paper, scissors: Ann showed rock, you showed paper (1 drawn round replayed)\n\
         Out of the game: Russian Collusion\n\
         You have won: Nevada 6\n\
         Ann has won: Florida 30, New York 28, Delaware 3"
    );
    let ann = position(
        &ElectoralCombat::view(&state, Viewer::Seat(0)),
        &Names::new(&names),
    );
    assert!(ann.text.contains(
        "You (Ann): 61 electoral votes, 20 cards in your stack, chose paper (sealed).\n"
    ));
    assert!(!bo.text.contains("paper (sealed)") && !bo.html.contains("sealed)"));
}

#[test]
fn the_end_names_the_winner_and_the_last_hand() {
    let mut state = mid_hand();
    state.table.clear();
    state.hand = 12;
    state.phase = Phase::Over;
    state.last_hand = Some(HandRecord {
        hand: 12,
        layer: 1,
        wild: None,
        cards: vec![
            HandCard {
                card: c("CA"),
                to: Some(0),
            },
            HandCard {
                card: c("TX"),
                to: Some(1),
            },
            HandCard {
                card: ECard::Wild(Wild::Recount),
                to: None,
            },
        ],
    });
    state.outcome = Some(Outcome {
        winners: vec![0],
        scores: vec![300, 238],
        reason: "{s0} wins with 300 electoral votes".to_string(),
    });
    let names = names();
    let ann = position(
        &ElectoralCombat::view(&state, Viewer::Seat(0)),
        &Names::new(&names),
    );
    assert!(
        ann.text
            .starts_with("The game is over: Ann wins with 300 electoral votes.\nYou (Ann): "),
        "{}",
        ann.text
    );
    assert!(
        ann.text.ends_with(
            "Last hand (12, laid by Bo): you took California 54; Bo took Texas 40; out: Recount"
        ),
        "{}",
        ann.text
    );
    assert!(
        ann.html
            .contains("<b>Last hand (12, laid by Bo):</b> you took California 54")
    );
}
