//! Scenario tests from the printed rules.

use super::state::BidEntry;
use super::tricks::compare;
use super::*;
use crate::cards::Card;
use crate::engine::{Match, Seed};

fn c(code: &str) -> Card {
    Card::from_code(code).unwrap_or_else(|| panic!("no card {code}"))
}

fn cards(codes: &[&str]) -> Vec<Card> {
    codes.iter().map(|code| c(code)).collect()
}

fn act(state: &mut State, seat: Seat, command: Command) -> Result<(), RuleError> {
    let mut rng = GameRng::new(&Seed::from_number(99), 1);
    Whitehouse::apply(state, seat, &command, &mut rng, &mut Log::recording())
}

fn fresh(options: Options, dealer: Seat) -> State {
    let mut state = State::new(options, dealer, Vec::new());
    deal::deal_hand(&mut state, &mut GameRng::new(&Seed::from_number(5), 0));
    state.dealer = dealer;
    state.turn = state.bidding_order()[0];
    state.leader = (dealer + 1) % 4;
    state
}

/// The last trick of a hand about to be played: one card each, with the EVs already taken.
fn last_trick(
    options: Options,
    bidder: Seat,
    bid: u32,
    trump: Suit,
    hands: [&str; 4],
    captured: [u32; 4],
    kitty: &[&str],
) -> State {
    let mut state = fresh(options, 3);
    state.phase = Phase::Play;
    state.bidder = Some(bidder);
    state.high_bid = Some(bid);
    state.trump = Some(trump);
    state.trump_broken = true;
    state.hands = hands.iter().map(|h| cards(&[h])).collect();
    state.kitty = cards(kitty);
    state.captured = captured.to_vec();
    state.tricks_won = vec![3, 3, 3, 2];
    state.leader = 0;
    state.turn = 0;
    state
}

fn play_out(state: &mut State) {
    for seat in 0..4 {
        let card = state.hands[seat][0];
        act(state, seat, Command::Play { card }).unwrap();
    }
}

#[test]
fn bidding_example_270_pass_300_310() {
    // "the first bidder bids 270, second bidder passes, the third bidder bids 300, and then
    // the dealer bids 310."
    let mut state = fresh(Options::default(), 3);
    act(&mut state, 0, Command::Bid { amount: 270 }).unwrap();
    act(&mut state, 1, Command::Pass).unwrap();
    let err = act(&mut state, 2, Command::Bid { amount: 270 }).unwrap_err();
    assert_eq!(err.to_string(), "a bid must be at least 280");
    let err = act(&mut state, 2, Command::Bid { amount: 295 }).unwrap_err();
    assert_eq!(err.to_string(), "bids go up in steps of 10");
    act(&mut state, 2, Command::Bid { amount: 300 }).unwrap();
    act(&mut state, 3, Command::Bid { amount: 310 }).unwrap();
    assert_eq!(state.phase, Phase::Trump);
    assert_eq!(state.bidder, Some(3));
    assert_eq!(state.high_bid, Some(310));
    assert_eq!(
        state.bids,
        vec![
            BidEntry {
                seat: 0,
                amount: Some(270)
            },
            BidEntry {
                seat: 1,
                amount: None
            },
            BidEntry {
                seat: 2,
                amount: Some(300)
            },
            BidEntry {
                seat: 3,
                amount: Some(310)
            },
        ]
    );
}

#[test]
fn one_round_only_and_in_turn() {
    let mut state = fresh(Options::default(), 0);
    assert_eq!(state.turn, 1, "the dealer's left bids first");
    assert_eq!(
        act(&mut state, 2, Command::Pass),
        Err(RuleError::NotYourTurn)
    );
    let err = act(&mut state, 1, Command::Bid { amount: 540 }).unwrap_err();
    assert!(err.to_string().contains("at most 530"), "{err}");
}

#[test]
fn dealer_is_forced_to_270_when_all_pass() {
    let mut state = fresh(Options::default(), 2);
    for seat in [3, 0, 1] {
        act(&mut state, seat, Command::Pass).unwrap();
    }
    let choices = Whitehouse::choices(&state, 2);
    assert_eq!(choices.len(), 1);
    assert_eq!(
        *choices[0].command,
        serde_json::json!({"type": "bid", "amount": 270})
    );
    let before = state.clone();
    assert!(act(&mut state, 2, Command::Pass).is_err());
    assert!(act(&mut state, 2, Command::Bid { amount: 280 }).is_err());
    assert_eq!(state, before);
    act(&mut state, 2, Command::Bid { amount: 270 }).unwrap();
    assert_eq!(
        (state.bidder, state.high_bid, state.phase),
        (Some(2), Some(270), Phase::Trump)
    );
}

#[test]
fn red_trump_makes_the_red_joker_big() {
    let (rj, bj, ace) = (Card::RED_JOKER, Card::BLUE_JOKER, c("TX"));
    use std::cmp::Ordering::Greater;
    // Hearts trump: Red Joker > Blue Joker > A♥.
    assert_eq!(compare(rj, bj, Suit::Clubs, Suit::Hearts), Greater);
    assert_eq!(compare(bj, ace, Suit::Clubs, Suit::Hearts), Greater);
    // Spades trump: the Blue Joker is big.
    assert_eq!(compare(bj, rj, Suit::Hearts, Suit::Spades), Greater);
    // Jokers are trump whatever is led: the little joker beats the ace led.
    assert_eq!(compare(rj, c("CA"), Suit::Spades, Suit::Clubs), Greater);
    let mut state = fresh(Options::default(), 3);
    state.trump = Some(Suit::Diamonds);
    assert_eq!(
        Whitehouse::view(&state, Viewer::Spectator).big_joker,
        Some(crate::cards::Color::Red)
    );
}

#[test]
fn trump_name_then_kitty_exchange_keeps_twelve() {
    let mut state = fresh(Options::default(), 3);
    act(&mut state, 0, Command::Bid { amount: 300 }).unwrap();
    for seat in [1, 2, 3] {
        act(&mut state, seat, Command::Pass).unwrap();
    }
    let kitty = state.kitty.clone();
    act(&mut state, 0, Command::Trump { suit: Suit::Hearts }).unwrap();
    assert_eq!(
        state.hands[0].len(),
        18,
        "the bidder picks up the kitty after naming trump"
    );
    let five: Vec<Card> = state.hands[0][..5].to_vec();
    let err = act(&mut state, 0, Command::Discard { cards: five }).unwrap_err();
    assert!(err.to_string().contains("exactly 6"), "{err}");
    let back: Vec<Card> = kitty.clone();
    act(&mut state, 0, Command::Discard { cards: back }).unwrap();
    assert_eq!(state.hands[0].len(), 12);
    assert_eq!(state.kitty.len(), 6);
    assert_eq!(state.phase, Phase::Play);
    assert_eq!(state.turn, 0, "the dealer's left leads in partnership play");
    // Only the bidder sees the kitty it put back.
    assert!(Whitehouse::view(&state, Viewer::Seat(0)).kitty.is_some());
    assert!(Whitehouse::view(&state, Viewer::Seat(2)).kitty.is_none());
}

#[test]
fn the_kitty_taken_up_is_marked_in_the_bidders_view_only_until_laid_back() {
    let mut state = fresh(Options::default(), 3);
    act(&mut state, 0, Command::Bid { amount: 300 }).unwrap();
    for seat in [1, 2, 3] {
        act(&mut state, seat, Command::Pass).unwrap();
    }
    let kitty = state.kitty.clone();
    assert!(
        Whitehouse::view(&state, Viewer::Seat(0))
            .from_kitty
            .is_empty()
    );
    act(&mut state, 0, Command::Trump { suit: Suit::Hearts }).unwrap();
    let mut marked = Whitehouse::view(&state, Viewer::Seat(0)).from_kitty;
    marked.sort_by_key(|c| c.code());
    let mut expected = kitty.clone();
    expected.sort_by_key(|c| c.code());
    assert_eq!(
        marked, expected,
        "the bidder's view names the kitty's cards"
    );
    assert!(kitty.iter().all(|c| state.hands[0].contains(c)));
    for viewer in [
        Viewer::Seat(1),
        Viewer::Seat(2),
        Viewer::Seat(3),
        Viewer::Spectator,
    ] {
        let view = Whitehouse::view(&state, viewer);
        assert!(view.from_kitty.is_empty(), "{viewer:?}");
        let json = serde_json::to_string(&view).unwrap();
        assert!(!json.contains("from_kitty"), "{viewer:?}: {json}");
        for card in &kitty {
            assert!(
                !json.contains(&format!("\"{}\"", card.code())),
                "{viewer:?} sees {}",
                card.code()
            );
        }
    }
    // The bidder's mail marks them in its hand.
    let names = ["Ann", "Bo", "Cy", "Di"].map(String::from);
    let view = Whitehouse::view(&state, Viewer::Seat(0));
    let text = present::position(&view, &crate::engine::present::Names::new(&names)).text;
    assert_eq!(text.matches("(from the kitty)").count(), 6, "{text}");
    for card in &kitty {
        assert!(
            text.contains(&format!("{} (from the kitty)", card.label())),
            "{text}"
        );
    }
    // Laid back (here other cards than those taken up), nothing is marked any more.
    let back: Vec<Card> = state.hands[0]
        .iter()
        .filter(|c| !kitty.contains(c))
        .take(6)
        .copied()
        .collect();
    act(&mut state, 0, Command::Discard { cards: back }).unwrap();
    assert!(state.taken_kitty.is_empty());
    assert!(
        Whitehouse::view(&state, Viewer::Seat(0))
            .from_kitty
            .is_empty()
    );
}

#[test]
fn a_version_2_game_keeps_no_mark_of_the_kitty_and_hashes_as_recorded() {
    let mut state = fresh(Options::default(), 3);
    state.rules_version = 2;
    act(&mut state, 0, Command::Bid { amount: 300 }).unwrap();
    for seat in [1, 2, 3] {
        act(&mut state, seat, Command::Pass).unwrap();
    }
    act(&mut state, 0, Command::Trump { suit: Suit::Hearts }).unwrap();
    assert!(state.taken_kitty.is_empty());
    let json = serde_json::to_value(&state).unwrap();
    assert!(json.get("taken_kitty").is_none(), "{json}");
    assert!(
        Whitehouse::view(&state, Viewer::Seat(0))
            .from_kitty
            .is_empty()
    );
}

#[test]
fn team_colours_restrict_trump() {
    let options = Options {
        team_colors: TeamColors::NorthSouthRed,
        ..Options::default()
    };
    let mut state = fresh(options, 0);
    act(&mut state, 1, Command::Bid { amount: 300 }).unwrap();
    for seat in [2, 3, 0] {
        act(&mut state, seat, Command::Pass).unwrap();
    }
    let err = act(&mut state, 1, Command::Trump { suit: Suit::Hearts }).unwrap_err();
    assert_eq!(err.to_string(), "your team bids spades or clubs only");
    assert_eq!(Whitehouse::choices(&state, 1).len(), 2);
    act(&mut state, 1, Command::Trump { suit: Suit::Clubs }).unwrap();
}

#[test]
fn trump_may_not_be_led_until_broken_unless_only_trump() {
    let mut state = last_trick(
        Options::default(),
        0,
        300,
        Suit::Hearts,
        ["TX", "CA", "FL", "NY"],
        [0; 4],
        &[],
    );
    state.hands[0] = cards(&["TX", "PA"]);
    state.hands[1] = cards(&["CA", "OH"]);
    state.hands[2] = cards(&["FL", "IL"]);
    state.hands[3] = cards(&["NY", "NC"]);
    state.trump_broken = false;
    let err = act(&mut state, 0, Command::Play { card: c("TX") }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "trump (hearts) is not broken yet: lead another suit while you hold one"
    );
    assert_eq!(state.legal_cards(0), cards(&["PA"]));
    // A player with only trump may lead it.
    state.hands[0] = cards(&["TX", "OH"]);
    state.hands[1] = cards(&["CA", "PA"]);
    assert_eq!(state.legal_cards(0).len(), 2);
    // Trump broken by a player who cannot follow: then trump may be led.
    let mut state = last_trick(
        Options::default(),
        0,
        300,
        Suit::Hearts,
        ["CA", "OH", "PA", "NY"],
        [0; 4],
        &[],
    );
    state.trump_broken = false;
    state.hands[0] = cards(&["CA", "AK"]);
    state.hands[1] = cards(&["OH", "WY"]);
    state.hands[2] = cards(&["PA", "FL"]);
    state.hands[3] = cards(&["NY", "ND"]);
    act(&mut state, 0, Command::Play { card: c("CA") }).unwrap();
    assert_eq!(
        state.legal_cards(1).len(),
        2,
        "void in spades: trump or a discard"
    );
    let err = act(&mut state, 1, Command::Play { card: c("AK") }).unwrap_err();
    assert_eq!(err.to_string(), "you do not hold 2♥ Alaska (3)");
    act(&mut state, 1, Command::Play { card: c("OH") }).unwrap();
    assert!(
        state.trump_broken,
        "a heart played on a spade lead breaks trump"
    );
    act(&mut state, 2, Command::Play { card: c("PA") }).unwrap();
    act(&mut state, 3, Command::Play { card: c("NY") }).unwrap();
    assert_eq!(
        state.turn, 1,
        "Ohio, the only trump, takes the trick and leads"
    );
    assert!(state.legal_cards(1).contains(&c("WY")));
    let mut individual = last_trick(
        Options {
            partnership: false,
            ..Options::default()
        },
        0,
        300,
        Suit::Hearts,
        ["TX", "CA", "FL", "NY"],
        [0; 4],
        &[],
    );
    individual.trump_broken = false;
    individual.hands[0] = cards(&["TX", "PA"]);
    assert_eq!(
        individual.legal_cards(0).len(),
        2,
        "individual play: trump need not be broken"
    );
}

#[test]
fn players_must_follow_suit_so_no_renege_is_possible() {
    let mut state = last_trick(
        Options::default(),
        0,
        300,
        Suit::Hearts,
        ["CA", "OH", "PA", "NY"],
        [0; 4],
        &[],
    );
    state.hands[0] = cards(&["CA", "AK"]);
    state.hands[1] = cards(&["NJ", "OH"]);
    act(&mut state, 0, Command::Play { card: c("CA") }).unwrap();
    let before = state.clone();
    let err = act(&mut state, 1, Command::Play { card: c("OH") }).unwrap_err();
    assert_eq!(err.to_string(), "you must follow suit (spades)");
    assert_eq!(state, before);
}

#[test]
fn kitty_counts_for_the_bidder() {
    // North–South took 290 in eleven tricks and bid 300; the last trick is worth 12 and the
    // kitty 22: only the kitty makes the bid.
    let mut state = last_trick(
        Options::default(),
        0,
        300,
        Suit::Clubs,
        ["AK", "WY", "VT", "ND"],
        [150, 0, 140, 0],
        &["DC", "DE", "RI", "NH", "ME", "HI"],
    );
    play_out(&mut state);
    // Alaska, Wyoming, Vermont (2♣, trump) and North Dakota: South takes the trick.
    let summary = state.last_hand.clone().unwrap();
    let kitty_ev = 3 + 3 + 4 + 4 + 4 + 4;
    assert_eq!(summary.captured, 150 + 140 + (3 + 3 + 3 + 3) + kitty_ev);
    assert!(summary.made, "the kitty's {kitty_ev} EVs make the bid");
    assert_eq!(state.scores, vec![1, 0]);
    assert_eq!(state.hand_number, 2, "a new hand is dealt");
    assert_eq!(state.dealer, 0, "the deal passes to the left");
}

#[test]
fn failed_bid_costs_two_and_minus_seven_ends_the_game() {
    let mut state = last_trick(
        Options::default(),
        0,
        300,
        Suit::Clubs,
        ["AK", "WY", "VT", "ND"],
        [100, 0, 100, 0],
        &["DC"],
    );
    state.scores = vec![-5, 2];
    play_out(&mut state);
    assert_eq!(state.scores, vec![-7, 2]);
    assert_eq!(state.phase, Phase::Over);
    let outcome = Whitehouse::outcome(&state).unwrap();
    assert_eq!(
        outcome.winners,
        vec![1, 3],
        "East–West, the remaining team, win"
    );
    assert_eq!(outcome.scores, vec![-7, 2, -7, 2]);
}

#[test]
fn a_lead_of_one_point_is_said_in_the_singular() {
    let mut state = last_trick(
        Options::default(),
        0,
        300,
        Suit::Clubs,
        ["AK", "WY", "VT", "ND"],
        [100, 0, 100, 0],
        &["DC"],
    );
    state.scores = vec![-5, 1];
    let mut version_1 = state.clone();
    version_1.rules_version = 1;
    play_out(&mut state);
    let outcome = Whitehouse::outcome(&state).unwrap();
    assert!(
        outcome.reason.contains("leads with 1 point after"),
        "{}",
        outcome.reason
    );
    // A game begun under version 1 replays to the words its recorded hash holds.
    play_out(&mut version_1);
    let old = Whitehouse::outcome(&version_1).unwrap();
    assert!(
        old.reason.contains("leads with 1 points after"),
        "{}",
        old.reason
    );
    let json = serde_json::to_value(&version_1).unwrap();
    assert!(
        json.get("rules_version").is_none(),
        "a version-1 state hashes as before"
    );
}

#[test]
fn landslide_made_wins_outright() {
    let mut state = last_trick(
        Options::default(),
        1,
        500,
        Suit::Spades,
        ["AK", "CA", "WY", "ND"],
        [0, 300, 0, 200],
        &[],
    );
    state.scores = vec![6, -3];
    play_out(&mut state);
    let outcome = Whitehouse::outcome(&state).expect("a made landslide ends the game");
    assert_eq!(outcome.winners, vec![1, 3]);
    assert!(outcome.reason.contains("landslide"), "{}", outcome.reason);
}

#[test]
fn landslide_failed_loses_outright() {
    let mut state = last_trick(
        Options::default(),
        1,
        500,
        Suit::Spades,
        ["AK", "VT", "WY", "ND"],
        [0, 200, 0, 200],
        &[],
    );
    state.scores = vec![-4, 6];
    play_out(&mut state);
    let outcome = Whitehouse::outcome(&state).expect("a failed landslide ends the game");
    assert_eq!(outcome.winners, vec![0, 2]);
}

#[test]
fn individual_landslide_is_400_and_failing_it_eliminates() {
    let options = Options {
        partnership: false,
        ..Options::default()
    };
    let mut state = last_trick(
        options.clone(),
        2,
        400,
        Suit::Spades,
        ["AK", "VT", "WY", "ND"],
        [0, 0, 300, 0],
        &[],
    );
    play_out(&mut state);
    assert!(state.eliminated[2]);
    assert_eq!(state.phase, Phase::Bidding);
    assert!(
        !state.bidding_order().contains(&2),
        "an eliminated player no longer bids"
    );
    let mut state = last_trick(
        options,
        2,
        400,
        Suit::Spades,
        ["AK", "VT", "CA", "ND"],
        [0, 0, 350, 0],
        &[],
    );
    play_out(&mut state);
    assert_eq!(Whitehouse::outcome(&state).unwrap().winners, vec![2]);
}

#[test]
fn individual_challenges_score_plus_or_minus_one() {
    let options = Options {
        partnership: false,
        ..Options::default()
    };
    let mut state = fresh(options, 3);
    act(&mut state, 0, Command::Bid { amount: 300 }).unwrap();
    for seat in [1, 2, 3] {
        act(&mut state, seat, Command::Pass).unwrap();
    }
    act(&mut state, 0, Command::Trump { suit: Suit::Spades }).unwrap();
    let back = state.hands[0][..6].to_vec();
    act(&mut state, 0, Command::Discard { cards: back }).unwrap();
    assert_eq!((state.phase, state.turn), (Phase::Challenges, 1));
    act(&mut state, 1, Command::Challenge).unwrap();
    act(&mut state, 2, Command::NoChallenge).unwrap();
    act(&mut state, 3, Command::Challenge).unwrap();
    assert_eq!(
        (state.phase, state.turn),
        (Phase::Play, 0),
        "the bidder leads in individual play"
    );
    // Finish the hand with the bid defeated: the bidder −2, each challenger +1.
    let mut end = last_trick(
        Options {
            partnership: false,
            ..Options::default()
        },
        0,
        300,
        Suit::Spades,
        ["AK", "VT", "WY", "ND"],
        [100, 0, 0, 0],
        &[],
    );
    end.challengers = vec![1, 3];
    play_out(&mut end);
    assert_eq!(end.scores, vec![-2, 1, 0, 1]);
}

#[test]
fn individual_game_goes_on_while_the_top_is_tied() {
    let options = Options {
        partnership: false,
        ..Options::default()
    };
    let mut state = last_trick(
        options.clone(),
        0,
        270,
        Suit::Spades,
        ["CA", "VT", "WY", "ND"],
        [300, 0, 0, 0],
        &[],
    );
    state.scores = vec![6, 7, 0, 0];
    play_out(&mut state);
    assert_eq!(state.scores, vec![7, 7, 0, 0]);
    assert!(
        Whitehouse::outcome(&state).is_none(),
        "7–7 at the top: play goes on"
    );
    assert_eq!(state.phase, Phase::Bidding);
    let mut state = last_trick(
        options,
        0,
        270,
        Suit::Spades,
        ["CA", "VT", "WY", "ND"],
        [300, 0, 0, 0],
        &[],
    );
    state.scores = vec![7, 7, 0, 0];
    play_out(&mut state);
    assert_eq!(Whitehouse::outcome(&state).unwrap().winners, vec![0]);
}

#[test]
fn first_dealer_is_the_high_card_and_the_deal_is_twelve_each() {
    let m = Match::<Whitehouse>::new(Options::default(), 4, Seed::from_number(8)).unwrap();
    let draw = &m.state.dealer_draw;
    let dealer = m.state.dealer;
    for (seat, card) in draw.iter().enumerate() {
        if seat != dealer {
            assert_ne!(
                crate::cards::compare_rank_ev(*card, draw[dealer]),
                std::cmp::Ordering::Greater
            );
        }
    }
    assert!(m.state.hands.iter().all(|h| h.len() == 12));
    assert_eq!(m.state.kitty.len(), 6);
    let without = Match::<Whitehouse>::new(
        Options {
            jokers: false,
            ..Options::default()
        },
        4,
        Seed::from_number(8),
    )
    .unwrap();
    assert_eq!(without.state.kitty.len(), 4);
    assert!(!without.state.hands.iter().flatten().any(|c| c.is_joker()));
}

#[test]
fn bad_options_are_refused() {
    let bad = Options {
        target: 8,
        ..Options::default()
    };
    assert!(Match::<Whitehouse>::new(bad, 4, Seed::from_number(1)).is_err());
    let bad = Options {
        partnership: false,
        team_colors: TeamColors::NorthSouthRed,
        ..Options::default()
    };
    assert!(Match::<Whitehouse>::new(bad, 4, Seed::from_number(1)).is_err());
}

#[test]
fn decode_reads_every_command_as_the_derived_deserialize_does() {
    let direct = crate::games::decode_checks::check_against_derived(
        "whitehouse",
        3,
        <Whitehouse as crate::engine::Rules>::decode,
        super::state::direct,
    );
    assert!(direct > 200, "{direct} commands read directly");
}

#[test]
fn the_packed_sort_keys_order_as_the_sort_key() {
    use super::deal::{packed_sort_keys, sort_key};
    let trumps = [None].into_iter().chain(crate::cards::Suit::ALL.map(Some));
    for trump in trumps {
        let keys = packed_sort_keys(trump);
        for a in Card::all() {
            for b in Card::all() {
                assert_eq!(
                    keys[a.index()].cmp(&keys[b.index()]),
                    sort_key(a, trump).cmp(&sort_key(b, trump)),
                    "{a:?} {b:?} {trump:?}"
                );
            }
        }
    }
}
