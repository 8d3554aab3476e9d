//! What each viewer sees of a Nationhood game: the table (cities, both discard piles, counts),
//! one's own hand, and nothing of the other hand or the stock. Whether a player holds a joker,
//! and so could make war, is part of the hand and shown to nobody else.

use super::melds::run_cards;
use super::state::{City, HandEnd, Offer, Phase, State};
use crate::cards::Card;
use crate::engine::{Outcome, Seat, Viewer};
use serde::{Deserialize, Serialize};

/// The board as one viewer may see it.
#[derive(Serialize, Deserialize, Debug)]
pub struct View {
    /// Stage.
    pub phase: Phase,
    /// The rubber being played.
    pub rubber: u32,
    /// Rubbers in the match (1 or 3).
    pub rubbers: u32,
    /// Rubbers won by each seat.
    pub rubbers_won: Vec<u32>,
    /// Points in this rubber.
    pub scores: Vec<i64>,
    /// Points that win a rubber.
    pub target: i64,
    /// Hand number in the match.
    pub hand_number: u32,
    /// Dealer.
    pub dealer: Seat,
    /// Awaited seats.
    pub turn: Vec<Seat>,
    /// Whose turn it is (the offerer while an offer awaits its answer).
    pub turn_of: Seat,
    /// The viewer's seat.
    pub you: Option<Seat>,
    /// Hands the viewer may see, by seat (`None` for hidden ones).
    pub hands: Vec<Option<Vec<Card>>>,
    /// The cards of each visible hand that lie in runs (kept in a war).
    pub runs: Vec<Option<Vec<Card>>>,
    /// Cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// Cards left in the stock.
    pub stock_count: usize,
    /// The rules version the game began with.
    pub rules_version: u32,
    /// True once the stock has been rebuilt from the discard piles in this hand (version 2):
    /// when it runs out again the hand ends without a winner.
    pub restocked: bool,
    /// The stock in order (top last), for an auditor only.
    pub stock: Option<Vec<Card>>,
    /// Each seat's own discard pile, face up, top last.
    pub piles: Vec<Vec<Card>>,
    /// The cities on the table.
    pub cities: Vec<City>,
    /// An offer awaiting its answer.
    pub offer: Option<Offer>,
    /// The offer in words, with seat placeholders.
    pub offer_words: Option<String>,
    /// Players whose diplomacy was refused and who may declare war on their next turn (if
    /// they hold a joker, which nobody else can see).
    pub war_threats: Vec<Seat>,
    /// The last hand's end, with its nation shown.
    pub last_hand: Option<HandEnd>,
    /// The number the next city laid this hand will get (cities are numbered in the order
    /// laid, in everyone's sight).
    #[serde(default)]
    pub next_city: u32,
    /// Who took the last card taken from the stock this hand, in everyone's sight (rules
    /// version 1 breaks a tie with it when the stock runs out).
    #[serde(default)]
    pub last_stock_taker: Option<Seat>,
    /// Hands in a row that ended without a winner (rules version 2: three end the match
    /// drawn).
    #[serde(default)]
    pub hands_without_winner: u32,
    /// The result.
    pub outcome: Option<Outcome>,
}

/// The view of `state` for `viewer`.
pub fn view(state: &State, viewer: Viewer) -> View {
    let hands: Vec<Option<Vec<Card>>> = (0..2)
        .map(|s| viewer.sees_seat(s).then(|| state.hands[s].clone()))
        .collect();
    View {
        phase: state.phase,
        rubber: state.rubber,
        rubbers: state.options.rubbers,
        rubbers_won: state.rubbers_won.clone(),
        scores: state.scores.clone(),
        target: state.options.target,
        hand_number: state.hand_number,
        dealer: state.dealer,
        turn: <super::Nationhood as crate::engine::Rules>::active(state),
        turn_of: state.turn,
        you: match viewer {
            Viewer::Seat(s) => Some(s),
            _ => None,
        },
        runs: hands.iter().map(|h| h.as_deref().map(run_cards)).collect(),
        hands,
        hand_sizes: state.hands.iter().map(Vec::len).collect(),
        stock_count: state.stock.len(),
        rules_version: state.rules_version,
        restocked: state.restocked,
        stock: viewer.sees_all().then(|| state.stock.clone()),
        piles: state.piles.clone(),
        cities: state.cities.clone(),
        offer: state.offer.clone(),
        offer_words: state.offer.as_ref().map(|o| state.offer_words(o)),
        war_threats: state.war_threats.clone(),
        last_hand: state.last_hand.clone(),
        next_city: state.next_city,
        last_stock_taker: state.last_stock_taker,
        hands_without_winner: state.hands_without_winner,
        outcome: state.outcome.clone(),
    }
}
