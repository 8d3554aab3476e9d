use super::super::state::BidEntry;
use super::super::{Options, Phase, State, Whitehouse};
use crate::cards::{Card, Suit};
use crate::engine::present::Names;
use crate::engine::present::check::{check_random_positions, position_problems};
use crate::engine::{Rules, Viewer};

fn names() -> Vec<String> {
    ["Ann", "Bo", "Cy", "Di"].map(String::from).into()
}

fn c(name: &str) -> Card {
    Card::named(name)
}

fn text(state: &State, viewer: Viewer) -> String {
    let names = names();
    let view = Whitehouse::view(state, viewer);
    let position = Whitehouse::position(&view, &Names::new(&names));
    let json = serde_json::to_value(&view).unwrap();
    let found = position_problems(&position, &json, &names, Some(1500));
    assert!(found.is_empty(), "{found:?}\n{}", position.text);
    position.text
}

/// Hand 3, North deals, East–West hold the contract at 340 in hearts; West led, North
/// followed, East is to play; South (Cy) reads it.
fn trick_in_progress() -> State {
    let mut s = State::new(Options::default(), 0, Vec::new());
    s.hand_number = 3;
    s.scores = vec![2, 1];
    s.phase = Phase::Play;
    s.bids = vec![
        BidEntry {
            seat: 1,
            amount: Some(340),
        },
        BidEntry {
            seat: 2,
            amount: None,
        },
        BidEntry {
            seat: 3,
            amount: None,
        },
        BidEntry {
            seat: 0,
            amount: None,
        },
    ];
    s.bidder = Some(1);
    s.high_bid = Some(340);
    s.trump = Some(Suit::Hearts);
    s.hands = vec![
        vec![c("TN"), c("IN")],
        vec![c("CA"), c("OH")],
        vec![c("NY"), c("FL"), c("GA")],
        vec![c("TX"), c("PA")],
    ];
    s.kitty = vec![c("VT"), c("WY")];
    s.trick = vec![(3, c("DE")), (0, c("RI"))];
    s.leader = 3;
    s.turn = 1;
    s.last_trick = Some((
        vec![(1, c("AK")), (2, c("ND")), (3, c("SD")), (0, c("MT"))],
        3,
    ));
    s.tricks_won = vec![1, 2, 0, 1];
    s.captured = vec![10, 30, 0, 12];
    s
}

#[test]
fn a_trick_in_progress_reads_from_the_seat() {
    let state = trick_in_progress();
    assert_eq!(
        text(&state, Viewer::Seat(2)),
        "Hand 3: North–South 2, East–West 1 (to 7)\n\
         Seats: North Ann (dealer), East Bo, South Cy (you), West Di\n\
         Contract: East–West 340 in ♥ hearts (Bo bids)\n\
         On the table: Di led 3♣ Delaware (3), Ann played 3♠ Rhode Island (4)\n\
         Previous trick: Di took it: Bo led 2♥ Alaska (3), you played 3♦ North Dakota (3), Di played 3♥ South Dakota (3), Ann played 4♦ Montana (4)\n\
         You (South) hold: A♣ New York (28), A♦ Florida (30), Q♠ Georgia (16)\n\
         Taken this hand: North–South 1 trick, 10 EV; East–West 4 tricks, 42 EV\n\
         Bo to play."
    );
    // The spectator sees no hand and no kitty; the bidder sees the kitty it laid back.
    let spectator = text(&state, Viewer::Spectator);
    assert!(!spectator.contains("hold"), "{spectator}");
    assert!(spectator.contains("South Cy,"), "{spectator}");
    let bidder = text(&state, Viewer::Seat(1));
    assert!(
        bidder.contains("The kitty you laid back: ") && bidder.contains("Your turn to play."),
        "{bidder}"
    );
    assert!(!text(&state, Viewer::Seat(0)).contains("kitty"));
}

#[test]
fn the_auction_says_who_bid_what_and_who_is_to_speak() {
    let mut state = trick_in_progress();
    state.phase = Phase::Bidding;
    state.bids.truncate(2);
    state.bidder = Some(1);
    state.high_bid = Some(340);
    state.trump = None;
    state.trick.clear();
    state.last_trick = None;
    state.turn = 3;
    let read = text(&state, Viewer::Seat(2));
    assert!(read.contains("Bidding: Bo bid 340, you passed\n"), "{read}");
    assert!(read.ends_with("Di to bid or pass."), "{read}");
    assert!(!read.contains("Contract"), "{read}");
    // Everyone before the dealer passed: the dealer must take 270.
    state.bids = (1..4).map(|seat| BidEntry { seat, amount: None }).collect();
    state.bidder = None;
    state.high_bid = None;
    state.turn = 0;
    let read = text(&state, Viewer::Seat(0));
    assert!(
        read.ends_with("Your turn to take the bid at 270."),
        "{read}"
    );
}

#[test]
fn the_end_names_the_winners() {
    let mut state = trick_in_progress();
    state.phase = Phase::Over;
    state.trick.clear();
    state.scores = vec![7, 1];
    state.outcome = Some(crate::engine::Outcome {
        winners: vec![0, 2],
        scores: vec![7, 1, 7, 1],
        reason: "North–South reach 7 points".into(),
    });
    let read = text(&state, Viewer::Seat(1));
    assert!(
        read.ends_with("Game over: North–South reach 7 points. Ann and Cy win."),
        "{read}"
    );
}

#[test]
fn positions_of_random_games_read_as_words() {
    let partnership = check_random_positions::<Whitehouse>(&Options::default(), 4, 0..3, 1500);
    let individual = Options {
        partnership: false,
        jokers: false,
        target: 3,
        ..Options::default()
    };
    let alone = check_random_positions::<Whitehouse>(&individual, 4, 10..13, 1500);
    assert!(partnership + alone > 1000, "{partnership} {alone}");
}

#[test]
fn the_kitty_laid_back_counts_as_the_bidders_first_trick() {
    let mut s = trick_in_progress();
    s.tricks_won = vec![0, 0, 0, 0];
    let v = Whitehouse::view(&s, Viewer::Spectator);
    assert_eq!(
        v.tricks_won,
        vec![0, 1, 0, 0],
        "the kitty is the bidder's first trick"
    );
    s.phase = Phase::Kitty;
    let v = Whitehouse::view(&s, Viewer::Spectator);
    assert_eq!(v.tricks_won, vec![0, 0, 0, 0], "not before it is laid back");
}
