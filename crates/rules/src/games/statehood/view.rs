//! What each viewer sees of a Statehood game.

use super::state::{Declaration, HandEnd, Phase, PrAnswer, State, WonCard};
use crate::cards::Card;
use crate::engine::{Outcome, Seat, Viewer};
use serde::{Deserialize, Serialize};

/// A Puerto Rico declaration as a viewer sees it: answers stay sealed until all are in.
#[derive(Serialize, Deserialize, Debug)]
pub struct PrView {
    /// Who declared.
    pub declarer: Seat,
    /// The declarer's hand, face up.
    pub shown: Vec<Card>,
    /// The defence in electoral votes.
    pub defence: u32,
    /// Who has answered.
    pub answered: Vec<bool>,
    /// The viewer's own answer (every answer for an auditor).
    pub answers: Vec<Option<PrAnswer>>,
}

/// The total a challenge must beat, and who holds it (the declarer, or the last challenger).
#[derive(Serialize, Deserialize, Debug)]
pub struct High {
    /// Electoral votes.
    pub total: u32,
    /// Whose cards they are.
    pub seat: Seat,
}

/// The board as one viewer may see it.
#[derive(Serialize, Deserialize, Debug)]
pub struct View {
    /// Stage.
    pub phase: Phase,
    /// Hand number.
    pub hand_number: u32,
    /// Dealer.
    pub dealer: Seat,
    /// Awaited seats.
    pub turn: Vec<Seat>,
    /// The viewer's seat.
    pub you: Option<Seat>,
    /// Hands the viewer may see, by seat (`None` for hidden ones).
    pub hands: Vec<Option<Vec<Card>>>,
    /// Cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// Cards left in the stock.
    pub stock_count: usize,
    /// The stock in order (top last), for an auditor only.
    pub stock: Option<Vec<Card>>,
    /// The whole discard pile (top last), for an auditor only; players see its top.
    pub discard: Option<Vec<Card>>,
    /// The rules version the game began with.
    pub rules_version: u32,
    /// The top of the discard pile.
    pub discard_top: Option<Card>,
    /// Cards in the discard pile.
    pub discard_count: usize,
    /// The card just drawn, to the drawer.
    pub drawn: Option<Card>,
    /// The pending wildcard or DC declaration, face up.
    pub declaration: Option<Declaration>,
    /// The pending declaration's high total so far.
    pub high: Option<High>,
    /// The pending Puerto Rico declaration.
    pub puerto_rico: Option<PrView>,
    /// Cards won this hand, face up.
    pub won: Vec<Vec<WonCard>>,
    /// Scores.
    pub scores: Vec<i64>,
    /// Points to win.
    pub target: i64,
    /// The last hand's end (with its Puerto Rico challenges, revealed, when it had some).
    pub last_hand: Option<HandEnd>,
    /// The result.
    pub outcome: Option<Outcome>,
}

/// The view of `state` for `viewer`.
pub fn view(state: &State, viewer: Viewer) -> View {
    View {
        phase: state.phase,
        hand_number: state.hand_number,
        dealer: state.dealer,
        turn: <super::Statehood as crate::engine::Rules>::active(state),
        you: match viewer {
            Viewer::Seat(s) => Some(s),
            _ => None,
        },
        hands: (0..state.seats)
            .map(|s| viewer.sees_seat(s).then(|| state.hands[s].clone()))
            .collect(),
        hand_sizes: state.hands.iter().map(Vec::len).collect(),
        stock_count: state.stock.len(),
        stock: viewer.sees_all().then(|| state.stock.clone()),
        discard: viewer.sees_all().then(|| state.discard.clone()),
        rules_version: state.rules_version,
        discard_top: state.discard.last().copied(),
        discard_count: state.discard.len(),
        drawn: state
            .drawn
            .filter(|_| state.phase == Phase::Drawn && viewer.sees_seat(state.turn)),
        declaration: state.declaration.clone(),
        high: state.declaration.as_ref().map(|d| {
            let (total, seat) = d.high();
            High { total, seat }
        }),
        puerto_rico: state.puerto_rico.as_ref().map(|p| PrView {
            declarer: p.declarer,
            shown: p.shown.clone(),
            defence: p.defence(),
            answered: p.answers.iter().map(Option::is_some).collect(),
            answers: (0..state.seats)
                .map(|s| p.answers[s].clone().filter(|_| viewer.sees_seat(s)))
                .collect(),
        }),
        won: state.won.clone(),
        scores: state.scores.clone(),
        target: state.options.target,
        last_hand: state.last_hand.clone(),
        outcome: state.outcome.clone(),
    }
}
