//! What each viewer sees of a Whitehouse game.

use super::state::{BidEntry, HandSummary, Phase, State};
use crate::cards::{Card, Color, Suit};
use crate::engine::{Outcome, Seat, Viewer};
use serde::{Deserialize, Serialize};

/// The board as one viewer may see it. Other seats' hands and the kitty are absent.
#[derive(Serialize, Deserialize, Debug)]
pub struct View {
    /// The stage of the hand.
    pub phase: Phase,
    /// Hand number (from 1).
    pub hand_number: u32,
    /// The dealer.
    pub dealer: Seat,
    /// The seat awaited, unless over.
    pub turn: Option<Seat>,
    /// The viewer's seat, if a player.
    pub you: Option<Seat>,
    /// The viewer's own hand (every hand for an auditor: index = seat; others empty).
    pub hands: Vec<Option<Vec<Card>>>,
    /// Cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// The kitty, to the bid winner once it is put back, and to auditors.
    pub kitty: Option<Vec<Card>>,
    /// Cards in the kitty (while the bidder holds it: 0).
    pub kitty_size: usize,
    /// The cards of the viewer's hand that came from the kitty, while the bidder holds them
    /// and has not laid a kitty back: to the bidder (and auditors) only; empty otherwise and
    /// then left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_kitty: Vec<Card>,
    /// The auction.
    pub bids: Vec<BidEntry>,
    /// The bid winner so far.
    pub bidder: Option<Seat>,
    /// The highest bid so far.
    pub high_bid: Option<u32>,
    /// Trump.
    pub trump: Option<Suit>,
    /// The colour of the Big Joker, once trump is named (with jokers).
    pub big_joker: Option<Color>,
    /// Challengers (individual play).
    pub challengers: Vec<Seat>,
    /// The trick on the table.
    pub trick: Vec<(Seat, Card)>,
    /// The last trick of this hand and its taker.
    pub last_trick: Option<(Vec<(Seat, Card)>, Seat)>,
    /// Every card played to a finished trick of this hand, in pack order: each was shown face
    /// up to the whole table as it was played (a bot counts them; a player remembers them).
    #[serde(default)]
    pub played: Vec<Card>,
    /// Whether trump is broken.
    pub trump_broken: bool,
    /// Tricks each seat has taken this hand; the bidder's count includes the kitty once it is
    /// laid back, as the rules count it: "later counted as the first trick won by the bidder's
    /// team".
    pub tricks_won: Vec<u32>,
    /// Electoral votes each seat has taken in tricks this hand (played cards are public).
    pub captured: Vec<u32>,
    /// Partnerships or individual play.
    pub partnership: bool,
    /// Points to win.
    pub target: i64,
    /// Scores: North–South and East–West, or the four players.
    pub scores: Vec<i64>,
    /// Individual play: players out after a failed landslide.
    pub eliminated: Vec<bool>,
    /// The last finished hand.
    pub last_hand: Option<HandSummary>,
    /// The result, once over.
    pub outcome: Option<Outcome>,
}

/// The view of `state` for `viewer`.
pub fn view(state: &State, viewer: Viewer) -> View {
    let bidder_sees_kitty = matches!(viewer, Viewer::Seat(s) if Some(s) == state.bidder)
        && matches!(state.phase, Phase::Challenges | Phase::Play);
    View {
        phase: state.phase,
        hand_number: state.hand_number,
        dealer: state.dealer,
        turn: (state.phase != Phase::Over).then_some(state.turn),
        you: match viewer {
            Viewer::Seat(s) => Some(s),
            _ => None,
        },
        hands: (0..4)
            .map(|s| viewer.sees_seat(s).then(|| state.hands[s].clone()))
            .collect(),
        hand_sizes: state.hands.iter().map(Vec::len).collect(),
        kitty: (viewer.sees_all() || bidder_sees_kitty).then(|| state.kitty.clone()),
        kitty_size: state.kitty.len(),
        from_kitty: match state.bidder {
            Some(bidder) if state.phase == Phase::Kitty && viewer.sees_seat(bidder) => {
                state.taken_kitty.clone()
            }
            _ => Vec::new(),
        },
        bids: state.bids.clone(),
        bidder: state.bidder,
        high_bid: state.high_bid,
        trump: state.trump,
        big_joker: match state.trump {
            Some(t) if state.options.jokers => Some(t.color()),
            _ => None,
        },
        challengers: state.challengers.clone(),
        trick: state.trick.clone(),
        last_trick: state.last_trick.clone(),
        played: played(state),
        trump_broken: state.trump_broken,
        tricks_won: tricks_with_kitty(state),
        captured: state.captured.clone(),
        partnership: state.options.partnership,
        target: state.options.target,
        scores: state.scores.clone(),
        eliminated: state.eliminated.clone(),
        last_hand: state.last_hand.clone(),
        outcome: state.outcome.clone(),
    }
}

/// Each seat's tricks this hand, with the kitty laid back as the bidder's first.
fn tricks_with_kitty(state: &State) -> Vec<u32> {
    let mut tricks = state.tricks_won.clone();
    let laid_back = matches!(
        state.phase,
        Phase::Challenges | Phase::Play | Phase::HandOver
    );
    if let Some(bidder) = state
        .bidder
        .filter(|_| laid_back && !state.kitty.is_empty())
    {
        tricks[bidder] += 1;
    }
    tricks
}

/// The cards of finished tricks this hand: the pack less every hand, the kitty and the trick on
/// the table. None before play begins (every card is in a hand or the kitty).
fn played(state: &State) -> Vec<Card> {
    if !matches!(state.phase, Phase::Play | Phase::HandOver | Phase::Over) {
        return Vec::new();
    }
    pack(state.options.jokers)
        .into_iter()
        .filter(|c| {
            !state.hands.iter().any(|h| h.contains(c))
                && !state.kitty.contains(c)
                && !state.trick.iter().any(|(_, t)| t == c)
        })
        .collect()
}

/// The 52 cards, and the two jokers when the game plays with them.
pub fn pack(jokers: bool) -> Vec<Card> {
    let mut deck = Card::standard_52();
    if jokers {
        deck.extend([Card::BLUE_JOKER, Card::RED_JOKER]);
    }
    deck
}
