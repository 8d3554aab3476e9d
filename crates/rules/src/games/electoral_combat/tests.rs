//! Scenario tests from the printed rules: every example of the text and every case of the
//! issue. Hands are set up directly and steered with commands.

use super::hand::deal;
use super::*;
use crate::engine::{Match, Seed};

fn c(code: &str) -> ECard {
    ECard::from_code(code).unwrap_or_else(|| panic!("no card {code}"))
}

const FN: &str = "FAKE_NEWS";
const CE: &str = "CELEBRITY_ENDORSEMENT";
const RC: &str = "RECOUNT";
const SS: &str = "SWING_STATE";
const RU: &str = "RUSSIAN_COLLUSION";

/// A game at hand `hand` whose table holds `codes` (slot order), laid by `layer`, nothing won.
fn hand_with(options: Options, hand: u8, layer: Seat, codes: [&str; 5]) -> State {
    let mut state = deal(options, &mut GameRng::new(&Seed::from_number(3), 0), 2);
    let cards: Vec<ECard> = codes.iter().map(|code| c(code)).collect();
    for stack in &mut state.stacks {
        stack.retain(|card| !cards.contains(card));
    }
    state.hand = hand;
    state.layer = layer;
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
    state.phase = Phase::Turn {
        seat: layer,
        purpose: Purpose::First,
    };
    state
}

fn table(layer: Seat, codes: [&str; 5]) -> State {
    hand_with(Options::default(), 1, layer, codes)
}

fn act(state: &mut State, seat: Seat, command: Command) -> Result<Vec<String>, RuleError> {
    let mut rng = GameRng::new(&Seed::from_number(99), 1);
    let mut log = Log::recording();
    ElectoralCombat::apply(state, seat, &command, &mut rng, &mut log)?;
    Ok(log.take())
}

fn ok(state: &mut State, seat: Seat, command: Command) {
    let before = state.clone();
    if let Err(e) = act(state, seat, command.clone()) {
        panic!("{command:?} by {seat} refused: {e}\n{before:?}");
    }
}

fn turn(state: &mut State, seat: Seat, slot: usize) {
    ok(state, seat, Command::Turn { slot });
}

fn won(state: &State, seat: Seat) -> Vec<&'static str> {
    let mut codes: Vec<&str> = state.won[seat].iter().map(|c| c.code()).collect();
    codes.sort_unstable();
    codes
}

fn sorted(mut codes: Vec<&'static str>) -> Vec<&'static str> {
    codes.sort_unstable();
    codes
}

/// The hand is over and the next one is laid by the other player.
fn assert_hand_over(state: &State, hand: u8, layer: Seat) {
    assert_eq!(state.hand, hand + 1, "the hand is over");
    assert_eq!(state.layer, 1 - layer);
    assert_eq!(state.table.len(), 5, "the next hand is laid");
    assert!(state.wild.is_none());
}

fn removed(state: &State) -> Vec<&'static str> {
    sorted(state.removed.iter().map(|c| c.code()).collect())
}

// ---------------------------------------------------------------------------------------------
// Normal hands

#[test]
fn higher_card_takes_the_higher_and_any_one_other() {
    let mut s = table(0, ["TX", "OH", "IA", "CA", "NY"]);
    turn(&mut s, 0, 0); // Texas 40
    assert!(ElectoralCombat::is_active(&s, 1));
    turn(&mut s, 1, 1); // Ohio 17
    assert_eq!(
        s.phase,
        Phase::Choose {
            seat: 0,
            high: 0,
            low: 1
        }
    );
    // Taking the higher card itself as the "other" is refused, and changes nothing.
    let before = s.clone();
    assert!(act(&mut s, 0, Command::TakeHigher { with: 0 }).is_err());
    assert_eq!(s, before);
    ok(&mut s, 0, Command::TakeHigher { with: 3 }); // a face-down card: California
    assert_eq!(won(&s, 0), vec!["CA", "TX"]);
    assert_eq!(won(&s, 1), vec!["IA", "NY", "OH"]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn higher_card_may_take_the_lower_card_and_two_face_down_cards() {
    let mut s = table(0, ["IA", "TX", "CA", "NY", "DE"]);
    turn(&mut s, 0, 0); // Iowa 6
    turn(&mut s, 1, 1); // Texas 40: the other player turned the higher card
    assert_eq!(
        s.phase,
        Phase::Choose {
            seat: 1,
            high: 1,
            low: 0
        }
    );
    assert!(
        act(
            &mut s,
            1,
            Command::TakeLower {
                face_down: vec![2, 2]
            }
        )
        .is_err()
    );
    assert!(
        act(
            &mut s,
            1,
            Command::TakeLower {
                face_down: vec![1, 2]
            }
        )
        .is_err()
    );
    assert!(act(&mut s, 1, Command::TakeLower { face_down: vec![2] }).is_err());
    ok(
        &mut s,
        1,
        Command::TakeLower {
            face_down: vec![2, 3],
        },
    );
    assert_eq!(won(&s, 1), vec!["CA", "IA", "NY"]);
    assert_eq!(won(&s, 0), vec!["DE", "TX"]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn equal_values_three_equal_cards() {
    // Arizona, Indiana and Tennessee all carry 11.
    let mut s = table(0, ["AZ", "IN", "TN", "CA", "TX"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 0,
            purpose: Purpose::Third { .. }
        }
    ));
    turn(&mut s, 0, 2);
    assert_eq!(won(&s, 0), vec!["AZ", "IN", "TN"]);
    assert_eq!(won(&s, 1), vec!["CA", "TX"]);
}

#[test]
fn equal_values_third_card_higher() {
    let mut s = table(0, ["AZ", "IN", "TX", "CA", "IA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    assert_eq!(s.phase, Phase::TieHigh { seat: 0, third: 2 });
    let offered = ElectoralCombat::choices(&s, 0);
    assert_eq!(offered.len(), 1);
    ok(&mut s, 0, Command::TakeHigher { with: 3 });
    assert_eq!(won(&s, 0), vec!["CA", "TX"]);
    assert_eq!(won(&s, 1), vec!["AZ", "IA", "IN"]);
}

#[test]
fn equal_values_third_card_lower() {
    let mut s = table(0, ["AZ", "IN", "IA", "CA", "TX"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    assert_eq!(won(&s, 0), vec!["CA", "IA", "TX"]);
    assert_eq!(won(&s, 1), vec!["AZ", "IN"]);
}

#[test]
fn the_apportionment_option_decides_what_is_equal() {
    // Florida 30 and New York 28 by 2024; both 29 by 2012.
    let codes = ["FL", "NY", "DE", "CA", "TX"];
    let mut s = table(0, codes);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    assert!(matches!(s.phase, Phase::Choose { seat: 0, .. }));
    let options = Options {
        apportionment: 2012,
        book_deal: false,
    };
    let mut s = hand_with(options, 1, 0, codes);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 0,
            purpose: Purpose::Third { .. }
        }
    ));
}

// ---------------------------------------------------------------------------------------------
// Fake News

#[test]
fn fake_news_turned_first_two_guessed_pairs() {
    let mut s = table(0, [FN, "OH", "TX", "IA", "KS"]);
    turn(&mut s, 0, 0);
    assert_eq!(removed(&s), vec![FN], "Fake News is discarded");
    // The revealer goes on turning: the other player is not asked for a card.
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 0,
            purpose: Purpose::FakeNewsReference
        }
    ));
    turn(&mut s, 0, 1); // Ohio 17
    ok(
        &mut s,
        0,
        Command::Guess {
            guess: Guess::Higher,
        },
    );
    turn(&mut s, 0, 2); // Texas 40: right
    assert_eq!(won(&s, 0), vec!["OH", "TX"]);
    turn(&mut s, 0, 3); // Iowa 6
    ok(
        &mut s,
        0,
        Command::Guess {
            guess: Guess::Higher,
        },
    );
    turn(&mut s, 0, 4); // Kansas 6: equal, so wrong
    assert_eq!(won(&s, 0), vec!["OH", "TX"]);
    assert_eq!(won(&s, 1), vec!["IA", "KS"]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn fake_news_example_1_turned_second() {
    // "You begin the hand and turn over a regular card; then, I turn over Fake News."
    let mut s = table(0, ["OH", FN, "IA", "KS", "CA"]);
    turn(&mut s, 0, 0); // Ohio 17, by the player who laid the hand
    turn(&mut s, 1, 1); // Fake News
    assert_eq!(
        s.phase,
        Phase::Guess {
            seat: 1,
            reference: Reference::Card { slot: 0 }
        }
    );
    ok(
        &mut s,
        1,
        Command::Guess {
            guess: Guess::Lower,
        },
    );
    turn(&mut s, 1, 2); // Iowa 6: lower, right
    assert_eq!(won(&s, 1), vec!["IA", "OH"]);
    // "I then turn over another card and the process repeats."
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 1,
            purpose: Purpose::FakeNewsReference
        }
    ));
    turn(&mut s, 1, 3); // Kansas 6
    ok(
        &mut s,
        1,
        Command::Guess {
            guess: Guess::Lower,
        },
    );
    turn(&mut s, 1, 4); // California 54: wrong, so "you win the two cards"
    assert_eq!(won(&s, 1), vec!["IA", "OH"]);
    assert_eq!(won(&s, 0), vec!["CA", "KS"]);
    assert_eq!(removed(&s), vec![FN]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn fake_news_example_2_tie_break_sum() {
    // Arizona and Indiana tie at 11; the third card is Fake News; the sum is 22.
    for (guess, winner) in [(Guess::Higher, 0), (Guess::Lower, 1), (Guess::Equal, 1)] {
        let mut s = table(0, ["AZ", "IN", FN, "CA", "DE"]);
        turn(&mut s, 0, 0);
        turn(&mut s, 1, 1);
        turn(&mut s, 0, 2);
        assert_eq!(
            s.phase,
            Phase::Guess {
                seat: 0,
                reference: Reference::Sum
            }
        );
        ok(&mut s, 0, Command::Guess { guess });
        // California 54 + Delaware 3 = 57, higher than 22.
        assert_eq!(won(&s, winner), vec!["AZ", "CA", "DE", "IN"], "{guess:?}");
        assert!(won(&s, 1 - winner).is_empty());
        assert_eq!(removed(&s), vec![FN]);
    }
    // Equal sums: 11 + 11 against Michigan 15 + Oklahoma 7.
    let mut s = table(0, ["AZ", "IN", FN, "MI", "OK"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    ok(
        &mut s,
        0,
        Command::Guess {
            guess: Guess::Equal,
        },
    );
    assert_eq!(won(&s, 0), vec!["AZ", "IN", "MI", "OK"]);
}

#[test]
fn fake_news_second_wild_card_wins_every_remaining_card() {
    let mut s = table(0, [FN, "OH", RC, "IA", "TX"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 0, 1); // Ohio
    ok(
        &mut s,
        0,
        Command::Guess {
            guess: Guess::Higher,
        },
    );
    turn(&mut s, 0, 2); // Recount: a second wild card
    assert_eq!(won(&s, 0), vec!["IA", "OH", "TX"]);
    assert_eq!(removed(&s), vec![FN, RC]);
    assert_hand_over(&s, 1, 0);
}

// ---------------------------------------------------------------------------------------------
// Celebrity Endorsement

#[test]
fn celebrity_endorsement_revealer_wins_the_lowest() {
    let mut s = table(0, [CE, "TX", "OH", "DE", "IA"]);
    turn(&mut s, 0, 0);
    assert_eq!(won(&s, 0), vec!["DE"]);
    assert_eq!(won(&s, 1), vec!["IA", "OH", "TX"]);
    assert_eq!(removed(&s), vec![CE]);
    assert_eq!(s.last_hand.as_ref().unwrap().cards.len(), 5);
    assert_hand_over(&s, 1, 0);

    // Turned second: "I" is the player who turned it, here the other player.
    let mut s = table(0, ["IA", CE, "TX", "DE", "OH"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    assert_eq!(won(&s, 1), vec!["DE"]);
    assert_eq!(won(&s, 0), vec!["IA", "OH", "TX"]);
}

#[test]
fn celebrity_endorsement_with_another_wild_card_wins_every_state() {
    let mut s = table(0, [CE, "TX", RU, "IA", "DE"]);
    turn(&mut s, 0, 0);
    assert_eq!(won(&s, 0), vec!["DE", "IA", "TX"]);
    assert!(won(&s, 1).is_empty());
    assert_eq!(
        removed(&s),
        vec![CE, RU],
        "every revealed wild card leaves the game"
    );
    assert_hand_over(&s, 1, 0);

    // As the tie-breaking third card, with two other wild cards among the rest.
    let mut s = table(1, ["AZ", "IN", CE, SS, FN]);
    turn(&mut s, 1, 0);
    turn(&mut s, 0, 1);
    turn(&mut s, 1, 2);
    assert_eq!(won(&s, 1), vec!["AZ", "IN"]);
    assert_eq!(removed(&s), vec![CE, FN, SS]);
}

// ---------------------------------------------------------------------------------------------
// Recount

#[test]
fn recount_first_lower_card_wins_all() {
    // "I turn over Recount. You turn over a card, and I turn over another card."
    let mut s = table(0, [RC, "OH", "TX", "IA", "CA"]);
    turn(&mut s, 0, 0);
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 1,
            purpose: Purpose::Recount
        }
    ));
    turn(&mut s, 1, 1); // Ohio 17
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 0,
            purpose: Purpose::Recount
        }
    ));
    turn(&mut s, 0, 2); // Texas 40: the other player's card is lower
    assert_eq!(won(&s, 1), vec!["CA", "IA", "OH", "TX"]);
    assert_eq!(removed(&s), vec![RC]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn recount_first_equal_values_even_or_odd() {
    // Equal: "you turn over another card. If that card is even, you win all; odd, I win all."
    for (tiebreak, winner) in [("GA", 1), ("MI", 0)] {
        // Georgia 16 (even), Michigan 15 (odd).
        let mut s = table(0, [RC, "AZ", "IN", tiebreak, "CA"]);
        turn(&mut s, 0, 0);
        turn(&mut s, 1, 1);
        turn(&mut s, 0, 2);
        assert!(matches!(
            s.phase,
            Phase::Turn {
                seat: 1,
                purpose: Purpose::RecountTiebreak
            }
        ));
        turn(&mut s, 1, 3);
        assert_eq!(
            won(&s, winner),
            sorted(vec!["AZ", "IN", tiebreak, "CA"]),
            "{tiebreak}"
        );
    }
}

#[test]
fn recount_second_the_other_order() {
    // "I turn over a card and you turn over Recount. You turn over another card. If it is lower
    // than mine, you win all the cards. If the card is higher, I win all the cards."
    let mut s = table(0, ["OH", RC, "IA", "TX", "CA"]);
    turn(&mut s, 0, 0); // Ohio 17
    turn(&mut s, 1, 1); // Recount
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 1,
            purpose: Purpose::Recount
        }
    ));
    turn(&mut s, 1, 2); // Iowa 6: lower than mine
    assert_eq!(won(&s, 1), vec!["CA", "IA", "OH", "TX"]);

    let mut s = table(0, ["OH", RC, "TX", "IA", "CA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 1, 2); // Texas 40: higher
    assert_eq!(won(&s, 0), vec!["CA", "IA", "OH", "TX"]);

    // "If the card is the same value, then I turn over a third card. If that card is even, I win
    // all the cards. If the card is odd, you win all the cards."
    for (third, winner) in [("GA", 0), ("MI", 1)] {
        let mut s = table(0, ["AZ", RC, "IN", third, "CA"]);
        turn(&mut s, 0, 0);
        turn(&mut s, 1, 1);
        turn(&mut s, 1, 2);
        assert!(matches!(
            s.phase,
            Phase::Turn {
                seat: 0,
                purpose: Purpose::RecountTiebreak
            }
        ));
        turn(&mut s, 0, 3);
        assert_eq!(
            won(&s, winner),
            sorted(vec!["AZ", "IN", third, "CA"]),
            "{third}"
        );
        assert_eq!(removed(&s), vec![RC]);
    }
}

#[test]
fn recount_as_the_tie_breaking_third_card() {
    // The two face-up cards are already equal: the other player turns the even/odd card.
    let mut s = table(0, ["AZ", "IN", RC, "GA", "CA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 1,
            purpose: Purpose::RecountTiebreak
        }
    ));
    turn(&mut s, 1, 3); // Georgia 16: even, the other player wins
    assert_eq!(won(&s, 1), vec!["AZ", "CA", "GA", "IN"]);
}

#[test]
fn a_second_wild_card_ends_the_hand_with_the_three_remaining_cards() {
    // "The player who turns over a second wild card in any hand wins the three remaining cards."
    let mut s = table(0, [RC, SS, "TX", "OH", "IA"]);
    turn(&mut s, 0, 0); // Recount
    turn(&mut s, 1, 1); // Swing State: the second wild card
    assert_eq!(won(&s, 1), vec!["IA", "OH", "TX"]);
    assert!(won(&s, 0).is_empty());
    assert_eq!(removed(&s), vec![RC, SS]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn a_third_wild_card_won_face_down_is_collected() {
    let mut s = table(0, [RC, SS, "TX", FN, "IA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    assert_eq!(won(&s, 1), vec![FN, "IA", "TX"]);
    assert_eq!(removed(&s), vec![RC, SS]);
    assert_eq!(s.votes(1), 46);
}

// ---------------------------------------------------------------------------------------------
// Swing State

#[test]
fn swing_state_first_even_or_odd_total() {
    // "You turn over a card, and I turn over a card. Even: I win all; odd: you win all."
    // Ohio 17 + Iowa 6 = 23 (odd); Ohio 17 + Oklahoma 7 = 24 (even).
    for (mine, winner) in [("IA", 1), ("OK", 0)] {
        let mut s = table(0, [SS, "OH", mine, "CA", "TX"]);
        turn(&mut s, 0, 0);
        assert!(matches!(
            s.phase,
            Phase::Turn {
                seat: 1,
                purpose: Purpose::SwingState
            }
        ));
        turn(&mut s, 1, 1);
        assert!(matches!(
            s.phase,
            Phase::Turn {
                seat: 0,
                purpose: Purpose::SwingState
            }
        ));
        turn(&mut s, 0, 2);
        assert_eq!(
            won(&s, winner),
            sorted(vec!["CA", "OH", mine, "TX"]),
            "{mine}"
        );
        assert_eq!(removed(&s), vec![SS]);
    }
}

#[test]
fn swing_state_second_three_card_total() {
    // "You turn over a card, and I turn over Swing State. We both turn over one more card: the
    // total of the three cards even, I win all; odd, you win all."
    let mut s = table(0, ["OH", SS, "IA", "KS", "CA"]);
    turn(&mut s, 0, 0); // Ohio 17
    turn(&mut s, 1, 1); // Swing State, by the other player
    turn(&mut s, 0, 2); // Iowa 6
    turn(&mut s, 1, 3); // Kansas 6: 29, odd: the player who laid the hand wins
    assert_eq!(won(&s, 0), vec!["CA", "IA", "KS", "OH"]);

    let mut s = table(0, ["OH", SS, "IA", "OK", "CA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    turn(&mut s, 1, 3); // Oklahoma 7: 30, even: the revealer wins
    assert_eq!(won(&s, 1), vec!["CA", "IA", "OH", "OK"]);
}

// ---------------------------------------------------------------------------------------------
// Russian Collusion

#[test]
fn russian_collusion_four_rounds_sealed() {
    // "You turn over a card, and I turn over Russian Collusion": four rounds for four cards.
    let mut s = table(0, ["OH", RU, "TX", "IA", "CA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    assert_eq!(s.phase, Phase::Rps);
    assert_eq!(ElectoralCombat::active(&s), vec![0, 1]);
    let choices = ElectoralCombat::choices(&s, 0);
    assert!(choices.len() == 3 && choices.iter().all(|c| c.sealed));

    // Round 1: a draw is played again; the first sign stays sealed until both are in.
    ok(&mut s, 0, Command::Rps { sign: Sign::Rock });
    assert_eq!(ElectoralCombat::active(&s), vec![1]);
    assert!(act(&mut s, 0, Command::Rps { sign: Sign::Paper }).is_err());
    let seen_by_1 = serde_json::to_string(&ElectoralCombat::view(&s, Viewer::Seat(1))).unwrap();
    assert!(!seen_by_1.contains("rock"), "{seen_by_1}");
    let seen_by_0 = ElectoralCombat::view(&s, Viewer::Seat(0));
    assert_eq!(seen_by_0.signs, [Some(Sign::Rock), None]);
    assert_eq!(seen_by_0.signed, [true, false]);
    ok(&mut s, 1, Command::Rps { sign: Sign::Rock });
    assert_eq!(s.phase, Phase::Rps);
    assert_eq!(s.draws, 1);

    // Round 1 again: scissors beat paper; the winner takes any card, even a face-down one.
    ok(
        &mut s,
        1,
        Command::Rps {
            sign: Sign::Scissors,
        },
    );
    ok(&mut s, 0, Command::Rps { sign: Sign::Paper });
    assert_eq!(s.phase, Phase::RpsTake { seat: 1 });
    assert!(
        act(&mut s, 1, Command::Take { slot: 1 }).is_err(),
        "the wild card is gone"
    );
    ok(&mut s, 1, Command::Take { slot: 4 }); // California, face down
    // Round 2.
    ok(&mut s, 0, Command::Rps { sign: Sign::Rock });
    ok(
        &mut s,
        1,
        Command::Rps {
            sign: Sign::Scissors,
        },
    );
    ok(&mut s, 0, Command::Take { slot: 2 }); // Texas
    // Round 3: one card of three taken, two left.
    ok(&mut s, 0, Command::Rps { sign: Sign::Paper });
    ok(&mut s, 1, Command::Rps { sign: Sign::Rock });
    ok(&mut s, 0, Command::Take { slot: 0 }); // Ohio, face up
    assert_eq!(s.phase, Phase::Rps);
    // Round 4: the last card goes to the winner without a further choice.
    ok(&mut s, 1, Command::Rps { sign: Sign::Paper });
    ok(&mut s, 0, Command::Rps { sign: Sign::Rock });
    assert_eq!(won(&s, 0), vec!["OH", "TX"]);
    assert_eq!(won(&s, 1), vec!["CA", "IA"]);
    assert_eq!(removed(&s), vec![RU]);
    assert_hand_over(&s, 1, 0);
}

#[test]
fn russian_collusion_turned_first_plays_four_rounds_for_four_face_down_cards() {
    let mut s = table(1, [RU, "OH", "TX", "IA", "CA"]);
    turn(&mut s, 1, 0);
    let mut rounds = 0;
    while s.hand == 1 {
        assert_eq!(s.phase, Phase::Rps);
        ok(&mut s, 0, Command::Rps { sign: Sign::Rock });
        ok(
            &mut s,
            1,
            Command::Rps {
                sign: Sign::Scissors,
            },
        );
        rounds += 1;
        if let Phase::RpsTake { seat } = s.phase {
            let slot = s.live().next().unwrap();
            ok(&mut s, seat, Command::Take { slot });
        }
    }
    assert_eq!(rounds, 4);
    assert_eq!(won(&s, 0), vec!["CA", "IA", "OH", "TX"]);
}

#[test]
fn timeout_signs_never_draw_each_other() {
    let mut s = table(0, ["OH", RU, "TX", "IA", "CA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    for _ in 0..4 {
        let a = ElectoralCombat::on_timeout(&s, 0);
        let b = ElectoralCombat::on_timeout(&s, 1);
        ok(&mut s, 0, a);
        ok(&mut s, 1, b);
        assert_eq!(s.draws, 0);
        if let Phase::RpsTake { seat } = s.phase {
            let take = ElectoralCombat::on_timeout(&s, seat);
            ok(&mut s, seat, take);
        }
    }
    assert_eq!(s.hand, 2);
}

// ---------------------------------------------------------------------------------------------
// The last two hands

#[test]
fn last_hand_rebuild_with_the_highest_won_card_and_any_other() {
    let mut s = table(0, ["OH", "IA", "KS", "NE", "NM"]);
    s.table.clear();
    s.hand = 11;
    s.layer = 0;
    s.stacks = [
        vec![c("AK"), c("DC"), c("VT")],
        vec![c("WY"), c("ND"), c("SD")],
    ];
    s.won = [
        vec![c("OH"), c("TX"), c(FN), c("IA"), c("GA")],
        vec![c("CA"), c("NY"), c("FL")],
    ];
    s.start_hand(&mut Log::silent());
    assert_eq!(s.phase, Phase::Rebuild { seat: 0 });
    let offered = ElectoralCombat::choices(&s, 0);
    assert_eq!(offered.len(), 1);
    let crate::engine::ParamKind::One { options } = &offered[0].params[0].kind else {
        panic!("one card to choose");
    };
    let values: Vec<&str> = options.iter().map(|o| o.value.as_str().unwrap()).collect();
    assert_eq!(
        values,
        vec!["OH", FN, "IA", "GA"],
        "any won card but Texas, the highest"
    );
    // The highest is added anyway; a card not won is refused.
    assert!(act(&mut s, 0, Command::Rebuild { card: c("TX") }).is_err());
    assert!(act(&mut s, 0, Command::Rebuild { card: c("CA") }).is_err());
    ok(&mut s, 0, Command::Rebuild { card: c(FN) }); // a collected wild card
    let mut on_table: Vec<&str> = s.table.iter().map(|t| t.card.code()).collect();
    on_table.sort_unstable();
    assert_eq!(on_table, sorted(vec!["AK", "DC", "VT", "TX", FN]));
    assert!(s.stacks[0].is_empty());
    assert_eq!(won(&s, 0), vec!["GA", "IA", "OH"]);
    assert_eq!(s.added, vec![c("TX"), c(FN)]);
    assert_eq!(
        s.phase,
        Phase::Turn {
            seat: 0,
            purpose: Purpose::First
        }
    );
    // Nobody sees where the cards lie, nor the three from the stack.
    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let text = serde_json::to_string(&ElectoralCombat::view(&s, viewer)).unwrap();
        for hidden in ["AK", "DC", "VT", "WY", "ND", "SD"] {
            assert!(
                !text.contains(&format!("\"{hidden}\"")),
                "{viewer:?} sees {hidden}"
            );
        }
        let view = ElectoralCombat::view(&s, viewer);
        assert!(view.table.iter().all(|t| t.card.is_none()));
    }
    let audit = ElectoralCombat::view(&s, Viewer::Auditor);
    assert!(audit.table.iter().all(|t| t.card.is_some()));
}

#[test]
fn twelve_hands_then_the_count() {
    let mut m = Match::<ElectoralCombat>::new(Options::default(), 2, Seed::from_number(7)).unwrap();
    let mut layers = Vec::new();
    while m.outcome().is_none() {
        if let Phase::Turn {
            purpose: Purpose::First,
            seat,
        } = m.state.phase
        {
            layers.push((m.state.hand, seat));
        }
        let seat = ElectoralCombat::active(&m.state)[0];
        let command = ElectoralCombat::on_timeout(&m.state, seat);
        m.apply(seat, &command, &mut Log::silent()).unwrap();
    }
    layers.dedup();
    let expected: Vec<(u8, Seat)> = (1..=12).map(|h| (h, usize::from(h + 1) % 2)).collect();
    assert_eq!(
        layers, expected,
        "the players take turns laying, the first player first"
    );
    let outcome = m.outcome().unwrap();
    assert_eq!(
        outcome.scores.iter().sum::<i64>(),
        538,
        "every state is won"
    );
    assert!(m.state.stacks.iter().all(Vec::is_empty));
}

// ---------------------------------------------------------------------------------------------
// Winning

/// Hand 12 about to be played, the rest of the pack already won, so that the first player ends
/// with `first_votes` electoral votes.
fn last_hand(book_deal: bool, first_votes: u32) -> State {
    let options = Options {
        apportionment: 2024,
        book_deal,
    };
    // The last hand: Texas 40 against Iowa 6; the first player takes Texas and Kansas 6, the
    // other player Iowa, Nebraska 5 and New Mexico 5.
    let mut s = hand_with(options, 12, 0, ["TX", "IA", "KS", "NE", "NM"]);
    s.stacks = [Vec::new(), Vec::new()];
    s.won = [Vec::new(), Vec::new()];
    let in_hand = ["TX", "IA", "KS", "NE", "NM"];
    let rest: Vec<ECard> = ECard::deck()
        .into_iter()
        .filter(|c| c.wild().is_none() && !in_hand.contains(&c.code()))
        .collect();
    // A subset of the rest adding up to first_votes - 46 (Texas and Kansas come in the hand).
    let target = (first_votes - 46) as usize;
    let mut from: Vec<Option<(usize, usize)>> = vec![None; target + 1]; // sum -> (card, previous sum)
    let mut reached = vec![false; target + 1];
    reached[0] = true;
    for (i, card) in rest.iter().enumerate() {
        let ev = card.ev(false) as usize;
        for sum in (ev..=target).rev() {
            if !reached[sum] && reached[sum - ev] {
                reached[sum] = true;
                from[sum] = Some((i, sum - ev));
            }
        }
    }
    assert!(reached[target]);
    let mut mine = Vec::new();
    let mut sum = target;
    while let Some((i, previous)) = from[sum] {
        mine.push(i);
        sum = previous;
    }
    for (i, card) in rest.into_iter().enumerate() {
        s.won[usize::from(!mine.contains(&i))].push(card);
    }
    s
}

fn finish(mut s: State) -> Outcome {
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    ok(&mut s, 0, Command::TakeHigher { with: 2 });
    assert_eq!(s.phase, Phase::Over);
    assert!(ElectoralCombat::active(&s).is_empty());
    ElectoralCombat::outcome(&s).unwrap()
}

#[test]
fn the_winner_is_named_by_the_seats_name_since_version_two() {
    let names = ["Hal".to_string(), "Ivy".to_string()];
    let outcome = finish(last_hand(false, 300));
    assert_eq!(
        crate::engine::log::render(&outcome.reason, &names),
        "Hal wins with 300 electoral votes to 238"
    );
    let mut v1 = last_hand(false, 300);
    v1.rules_version = 1;
    let outcome = finish(v1);
    assert_eq!(
        outcome.reason, "Player 1 wins with 300 electoral votes to 238",
        "a version-1 game ends as it was recorded"
    );
}

#[test]
fn two_hundred_seventy_wins() {
    let outcome = finish(last_hand(false, 300));
    assert_eq!(outcome.winners, vec![0]);
    assert_eq!(outcome.scores, vec![300, 238]);
}

#[test]
fn book_deal_reverses_the_winner() {
    let outcome = finish(last_hand(true, 300));
    assert_eq!(outcome.winners, vec![1], "fewer than 270 wins");
    assert_eq!(outcome.scores, vec![300, 238]);
    let outcome = finish(last_hand(true, 200));
    assert_eq!(outcome.winners, vec![0]);
    let outcome = finish(last_hand(false, 200));
    assert_eq!(outcome.winners, vec![1]);
}

#[test]
fn two_hundred_sixty_nine_all_is_a_tie() {
    for book_deal in [false, true] {
        let outcome = finish(last_hand(book_deal, 269));
        assert!(outcome.winners.is_empty());
        assert_eq!(outcome.scores, vec![269, 269]);
    }
}

// ---------------------------------------------------------------------------------------------
// Hidden cards, options, refusals

#[test]
fn nobody_sees_a_stack_not_even_its_owner() {
    let s = deal(
        Options::default(),
        &mut GameRng::new(&Seed::from_number(11), 0),
        2,
    );
    assert_eq!(s.stacks[0].len(), 23, "28 dealt, five laid");
    assert_eq!(s.stacks[1].len(), 28);
    for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let text = serde_json::to_string(&ElectoralCombat::view(&s, viewer)).unwrap();
        for card in s
            .stacks
            .iter()
            .flatten()
            .chain(s.table.iter().map(|t| &t.card))
        {
            assert!(
                !text.contains(&format!("\"{}\"", card.code())),
                "{viewer:?}"
            );
        }
    }
    let audit = serde_json::to_string(&ElectoralCombat::view(&s, Viewer::Auditor)).unwrap();
    assert!(audit.contains(&format!("\"{}\"", s.stacks[1][0].code())));
}

#[test]
fn the_pack_is_56_cards_of_538_votes() {
    let deck = ECard::deck();
    assert_eq!(deck.len(), 56);
    assert_eq!(deck.iter().filter(|c| c.wild().is_some()).count(), 5);
    assert_eq!(deck.iter().map(|c| c.ev(false)).sum::<u32>(), 538);
    assert_eq!(deck.iter().map(|c| c.ev(true)).sum::<u32>(), 538);
    assert!(ECard::from_code("PR").is_none());
    assert!(ECard::from_code("BJ").is_none());
    assert_eq!(serde_json::to_string(&c(SS)).unwrap(), "\"SWING_STATE\"");
    assert_eq!(serde_json::from_str::<ECard>("\"CA\"").unwrap(), c("CA"));
}

#[test]
fn bad_options_are_refused() {
    let bad = serde_json::json!({"apportionment": 2020});
    let game = crate::games::find_game("electoral-combat").unwrap();
    assert!(game.new_match(&bad, 2, Seed::from_number(1)).is_err());
    let unknown = serde_json::json!({"senate": true});
    assert!(game.new_match(&unknown, 2, Seed::from_number(1)).is_err());
    let fine = serde_json::json!({"apportionment": 2012, "book_deal": true});
    assert!(game.new_match(&fine, 2, Seed::from_number(1)).is_ok());
}

#[test]
fn wrong_moves_are_refused_and_change_nothing() {
    let mut s = table(0, ["TX", "OH", "IA", "CA", "NY"]);
    let before = s.clone();
    assert_eq!(
        act(&mut s, 1, Command::Turn { slot: 0 }),
        Err(RuleError::NotYourTurn)
    );
    assert!(act(&mut s, 0, Command::Turn { slot: 7 }).is_err());
    assert!(
        act(
            &mut s,
            0,
            Command::Guess {
                guess: Guess::Higher
            }
        )
        .is_err()
    );
    assert!(act(&mut s, 0, Command::Rps { sign: Sign::Rock }).is_err());
    assert_eq!(s, before);
    turn(&mut s, 0, 0);
    let before = s.clone();
    assert!(
        act(&mut s, 1, Command::Turn { slot: 0 }).is_err(),
        "already face up"
    );
    assert_eq!(s, before);
}

#[test]
fn a_guess_no_unseen_card_can_make_right_is_flagged() {
    // California (54) is the most any card has: "higher" cannot be right.
    let mut s = table(0, ["CA", FN, "IA", "KS", "TX"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    let choices = ElectoralCombat::choices(&s, 1);
    let warned: Vec<bool> = choices.iter().map(|c| c.warning.is_some()).collect();
    assert_eq!(
        warned,
        vec![true, false, true],
        "higher and equal are hopeless"
    );
}

#[test]
fn swing_state_as_the_tie_breaking_third_card_totals_all_four() {
    // Arizona 11 + Indiana 11, then Ohio 17 (other player) + Iowa 6 (revealer) = 45: odd.
    let mut s = table(0, ["AZ", "IN", SS, "OH", "IA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    assert!(matches!(
        s.phase,
        Phase::Turn {
            seat: 1,
            purpose: Purpose::SwingState
        }
    ));
    turn(&mut s, 1, 3);
    turn(&mut s, 0, 4);
    assert_eq!(won(&s, 1), vec!["AZ", "IA", "IN", "OH"]);
}

#[test]
fn russian_collusion_as_the_tie_breaking_third_card_plays_four_rounds() {
    let mut s = table(0, ["AZ", "IN", RU, "OH", "IA"]);
    turn(&mut s, 0, 0);
    turn(&mut s, 1, 1);
    turn(&mut s, 0, 2);
    let mut rounds = 0;
    while s.hand == 1 {
        ok(&mut s, 0, Command::Rps { sign: Sign::Paper });
        ok(
            &mut s,
            1,
            Command::Rps {
                sign: Sign::Scissors,
            },
        );
        rounds += 1;
        if let Phase::RpsTake { seat } = s.phase {
            let slot = s.live().last().unwrap();
            ok(&mut s, seat, Command::Take { slot });
        }
    }
    assert_eq!(rounds, 4);
    assert_eq!(won(&s, 1), vec!["AZ", "IA", "IN", "OH"]);
}

#[test]
fn decode_reads_every_command_as_the_derived_deserialize_does() {
    let direct = crate::games::decode_checks::check_against_derived(
        "electoral-combat",
        6,
        <ElectoralCombat as crate::engine::Rules>::decode,
        super::state::direct,
    );
    assert!(direct > 100, "{direct} commands read directly");
}
