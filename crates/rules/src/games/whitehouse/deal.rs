//! The draw for first dealer and the deal of each hand.

use super::state::{Phase, State};
use crate::cards::{Card, Suit, highest_by_rank_ev};
use crate::engine::{GameRng, Seat};
use std::sync::LazyLock;

/// Each seat draws one card from the shuffled 52 (North first, clockwise); the highest by rank,
/// then electoral votes, then first drawn, deals first.
pub fn draw_for_dealer(rng: &mut GameRng) -> (Vec<Card>, Seat) {
    let mut deck = Card::standard_52();
    rng.shuffle(&mut deck);
    let draw = deck[..4].to_vec();
    let dealer = highest_by_rank_ev(&draw).expect("four cards drawn");
    (draw, dealer)
}

/// Shuffles, deals twelve to each seat and the rest to the kitty, and opens the bidding. The
/// deal passes to the left after the first hand.
pub fn deal_hand(state: &mut State, rng: &mut GameRng) {
    if state.hand_number > 0 {
        state.dealer = (state.dealer + 1) % 4;
    }
    state.hand_number += 1;
    let mut deck = Card::standard_52();
    if state.options.jokers {
        deck.extend([Card::BLUE_JOKER, Card::RED_JOKER]);
    }
    rng.shuffle(&mut deck);
    let keys = packed_sort_keys(None);
    for (seat, hand) in state.hands.iter_mut().enumerate() {
        *hand = deck[seat * 12..seat * 12 + 12].to_vec();
        hand.sort_by_key(|c| keys[c.index()]);
    }
    state.kitty = deck[48..].to_vec();
    state.phase = Phase::Bidding;
    state.bids.clear();
    state.bidder = None;
    state.high_bid = None;
    state.trump = None;
    state.challengers.clear();
    state.challenge_answers = 0;
    state.trick.clear();
    state.last_trick = None;
    state.trump_broken = false;
    state.tricks_won = vec![0; 4];
    state.captured = vec![0; 4];
    state.turn = state.bidding_order()[0];
    state.leader = (state.dealer + 1) % 4;
}

/// Order for showing a hand: trump (jokers first) then the other suits, high to low.
pub fn sort_key(card: Card, trump: Option<Suit>) -> (u8, u8, u8) {
    match card.suit() {
        None => {
            let big = trump.is_some_and(|t| card.color() == Some(t.color()));
            (0, 0, u8::from(!big))
        }
        Some(suit) => {
            let group = if Some(suit) == trump {
                1
            } else {
                2 + suit as u8
            };
            (group, 15 - card.rank().unwrap_or(0), 0)
        }
    }
}

/// [`sort_key`] of every card by its index in the pack, packed as one number that orders the
/// same, from a table made once: hands are sorted at every deal and again when trump is named.
pub fn packed_sort_keys(trump: Option<Suit>) -> &'static [u32] {
    static KEYS: LazyLock<[Vec<u32>; 5]> = LazyLock::new(|| {
        let pack = |(a, b, c): (u8, u8, u8)| u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c);
        [
            None,
            Some(Suit::Spades),
            Some(Suit::Hearts),
            Some(Suit::Diamonds),
            Some(Suit::Clubs),
        ]
        .map(|trump| {
            Card::all()
                .map(|card| pack(sort_key(card, trump)))
                .collect()
        })
    });
    &KEYS[trump.map_or(0, |suit| 1 + suit as usize)]
}
