//! What each viewer sees of an Electoral College Combat game. Face-down cards (both stacks and
//! the face-down cards of the hand) are absent for every player: nobody may look at them.

use super::cards::ECard;
use super::state::{HandRecord, Phase, Sign, State, WildPlay};
use super::{ElectoralCombat, HANDS, TO_WIN};
use crate::engine::{Outcome, Rules, Seat, Viewer};
use serde::{Deserialize, Serialize};

/// One card of the hand on the table.
#[derive(Serialize, Deserialize, Debug)]
pub struct SlotView {
    /// Its place, the `slot` of commands.
    pub slot: usize,
    /// The card, once face up (or won); always for an auditor.
    pub card: Option<ECard>,
    /// Face up.
    pub face_up: bool,
    /// Who turned it over.
    pub turned_by: Option<Seat>,
    /// Who has won it.
    pub won_by: Option<Seat>,
    /// A played wild card, out of the game.
    pub removed: bool,
}

/// The board as one viewer may see it.
#[derive(Serialize, Deserialize, Debug)]
pub struct View {
    /// What the game waits for (slots and seats, never a card).
    pub phase: Phase,
    /// The hand being played, 1 to 12.
    pub hand: u8,
    /// Hands in a game.
    pub hands: u8,
    /// Who laid this hand.
    pub layer: Seat,
    /// The seats awaited.
    pub awaiting: Vec<Seat>,
    /// The viewer's seat, if a player.
    pub you: Option<Seat>,
    /// The hand on the table.
    pub table: Vec<SlotView>,
    /// The wild card ruling this hand and who turned it over.
    pub wild: Option<WildPlay>,
    /// Last two hands: the two won cards shuffled into the hand (where they lie is unknown).
    pub added: Vec<ECard>,
    /// Cards left in each stack.
    pub stack_sizes: [usize; 2],
    /// The stacks themselves, top last: auditors only.
    pub stacks: Option<[Vec<ECard>; 2]>,
    /// The cards each player has won.
    pub won: [Vec<ECard>; 2],
    /// Electoral votes each player has won.
    pub votes: [u32; 2],
    /// Electoral votes that win (or, with Book Deal, that lose).
    pub to_win: u32,
    /// Book Deal: fewer than 270 wins.
    pub book_deal: bool,
    /// The apportionment counted: 2024 or 2012.
    pub apportionment: u32,
    /// Played wild cards, out of the game.
    pub removed: Vec<ECard>,
    /// Russian Collusion: who has chosen a sign this round (the signs stay sealed).
    pub signed: [bool; 2],
    /// The viewer's own sealed sign (every sign for an auditor).
    pub signs: [Option<Sign>; 2],
    /// Russian Collusion: the signs last shown.
    pub last_signs: Option<[Sign; 2]>,
    /// Russian Collusion: drawn rounds replayed in this hand.
    pub draws: u32,
    /// The last finished hand.
    pub last_hand: Option<HandRecord>,
    /// The result, once over.
    pub outcome: Option<Outcome>,
}

/// The view of `state` for `viewer`.
pub fn view(state: &State, viewer: Viewer) -> View {
    let all = viewer.sees_all();
    View {
        phase: state.phase,
        hand: state.hand,
        hands: HANDS,
        layer: state.layer,
        awaiting: ElectoralCombat::active(state),
        you: match viewer {
            Viewer::Seat(s) => Some(s),
            _ => None,
        },
        table: state
            .table
            .iter()
            .enumerate()
            .map(|(slot, s)| SlotView {
                slot,
                card: (all || s.up || !s.live()).then_some(s.card),
                face_up: s.up,
                turned_by: s.turned_by,
                won_by: s.won_by,
                removed: s.removed,
            })
            .collect(),
        wild: state.wild,
        added: state.added.clone(),
        stack_sizes: [state.stacks[0].len(), state.stacks[1].len()],
        stacks: all.then(|| state.stacks.clone()),
        won: state.won.clone(),
        votes: [state.votes(0), state.votes(1)],
        to_win: TO_WIN,
        book_deal: state.options.book_deal,
        apportionment: state.options.apportionment,
        removed: state.removed.clone(),
        signed: [state.signs[0].is_some(), state.signs[1].is_some()],
        signs: [0, 1].map(|s| {
            if viewer.sees_seat(s) {
                state.signs[s]
            } else {
                None
            }
        }),
        last_signs: state.last_signs,
        draws: state.draws,
        last_hand: state.last_hand.clone(),
        outcome: state.outcome.clone(),
    }
}
