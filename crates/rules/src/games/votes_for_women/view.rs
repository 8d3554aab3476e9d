//! What each viewer sees: the whole map and every face-up card, one's own hand and the cards
//! one's own effect has drawn; never the other hand, a draw deck's cards, or the State cards
//! removed unseen.

use super::data::{BoxKind, Deck, MAP, Op, Region, St, card};
use super::state::{Campaigner, Mark, Phase, Source, State};
use super::stops::{stop, vote_totals};
use crate::engine::{Outcome, Seat, Viewer};
use serde::{Deserialize, Serialize};

/// A face-up card.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct CardView {
    /// Its id, 1..=128.
    pub id: u8,
    /// Its title.
    pub name: String,
    /// Its deck.
    pub deck: Deck,
    /// What it does, in our words.
    pub effect: String,
}

impl CardView {
    /// The card with this id.
    pub fn of(id: u8) -> CardView {
        let c = card(id);
        CardView {
            id,
            name: c.name.clone(),
            deck: c.deck,
            effect: c.effect.clone(),
        }
    }

    fn all(ids: &[u8]) -> Vec<CardView> {
        ids.iter().map(|&c| CardView::of(c)).collect()
    }
}

/// One state on the map.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StateView {
    /// Postal code.
    pub code: String,
    /// Name.
    pub name: String,
    /// Region.
    pub region: Region,
    /// Purple cubes.
    pub purple: u8,
    /// Yellow cubes.
    pub yellow: u8,
    /// Red cubes.
    pub red: u8,
    /// Check or X.
    pub mark: Option<Mark>,
    /// Its State card while still face up, to be claimed.
    pub card: Option<CardView>,
}

/// An effect being resolved.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Resolving {
    /// Whose.
    pub seat: Seat,
    /// The card played (or played for an action).
    pub card: CardView,
    /// What: "event", "campaign", "organize", "lobby".
    pub what: String,
    /// The dice on the table.
    pub dice: Vec<u8>,
    /// Cards drawn and set aside, when the viewer may see them.
    pub drawn: Option<Vec<CardView>>,
    /// How many are set aside.
    pub drawn_count: usize,
    /// Where the card came from (played from the hand, a claimed card, drawn by an effect).
    pub source: Source,
    /// How far the effect has run: the index of its next step in the card's printed effect.
    pub ip: u16,
    /// That step has begun (its dice are rolled, its cards drawn).
    pub entered: bool,
    /// The faces of the dice on the table.
    pub sides: u8,
    /// The roll may still be rolled again by the step that uses it.
    pub reroll_open: bool,
    /// The state an earlier step selected.
    pub selected: Option<St>,
    /// How many of the cubes for the selected state the Suffragist said are yellow.
    pub yellow: u8,
    /// The region chosen by Regional Focus.
    pub region: Option<Region>,
    /// How many drawn cards were put back on top of the draw deck so far (not which).
    pub on_top: u8,
    /// The campaigners (by index among the seat's) moved in this Campaigning action.
    pub moved: Vec<bool>,
    /// The box the card goes to when its effect is done.
    pub to_box: Option<BoxKind>,
    /// The opponent's hand, shown by Change In Plans to its player while choosing the card to
    /// discard (the card reads "See opponent's hand").
    pub shown: Option<Vec<CardView>>,
}

/// A state being voted on in Final Voting.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct VoteView {
    /// The state.
    pub state: St,
    /// Each side's die.
    pub dice: [u8; 2],
    /// Each side's die size.
    pub sides: [u8; 2],
    /// Each side's total.
    pub totals: [u32; 2],
}

/// The game as one viewer may see it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct View {
    /// The viewer's seat.
    pub you: Option<Seat>,
    /// Turn 1..=6.
    pub turn: u8,
    /// Round 1..=6.
    pub round: u8,
    /// Stage.
    pub phase: Phase,
    /// Whose part of the round it is.
    pub to_play: Seat,
    /// That seat has played its card from the hand this round.
    pub hand_done: bool,
    /// That seat has played a claimed card this round.
    pub claimed_done: bool,
    /// Whose pick of the next state to vote it is in Final Voting.
    pub chooser: Seat,
    /// Seats awaited.
    pub active: Vec<Seat>,
    /// Congressional markers.
    pub congress: u8,
    /// The Amendment has been sent to the states.
    pub amendment_sent: bool,
    /// Checks placed.
    pub checks: usize,
    /// X's placed.
    pub xs: usize,
    /// The 48 states, by region.
    pub states: Vec<StateView>,
    /// Campaigners on the map.
    pub campaigners: Vec<Campaigner>,
    /// Buttons by seat.
    pub buttons: [u8; 2],
    /// Hands the viewer may see, by seat.
    pub hands: Vec<Option<Vec<CardView>>>,
    /// Cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// Cards in each draw deck.
    pub deck_sizes: Vec<usize>,
    /// Discard piles, top last.
    pub discards: Vec<Vec<CardView>>,
    /// Claimed State and Strategy cards, by seat.
    pub claimed: Vec<Vec<CardView>>,
    /// Face-up Strategy cards.
    pub strategy_face_up: Vec<CardView>,
    /// Cards left in the Strategy deck.
    pub strategy_deck_size: usize,
    /// The rest-of-turn box.
    pub rest_of_turn: Vec<CardView>,
    /// The rest-of-game box.
    pub rest_of_game: Vec<CardView>,
    /// The final-voting box.
    pub final_voting: Vec<CardView>,
    /// Claimed State and Strategy cards played, out of the game.
    pub spent: Vec<CardView>,
    /// Buttons committed in the Strategy phase, while answered.
    pub commitment: Option<u8>,
    /// The state being voted on.
    pub vote: Option<VoteView>,
    /// Effects being resolved, innermost last.
    pub resolving: Vec<Resolving>,
    /// The last roll: who, what for, the dice.
    pub last_roll: Option<(Seat, String, Vec<u8>)>,
    /// What is awaited, in words.
    pub awaiting: Option<String>,
    /// The State cards removed at setup, for an auditor only.
    pub removed_state_cards: Option<Vec<CardView>>,
    /// The result.
    pub outcome: Option<Outcome>,
    /// For the viewer about to play a card from its hand, the plays closed to every card,
    /// with the rules' reasons (`rules::hand_notes`).
    #[serde(default)]
    pub hand_closed: Vec<String>,
    /// For the viewer about to play a card from its hand: why a card may not be played as an
    /// event, by card id.
    #[serde(default)]
    pub hand_notes: Vec<(u8, String)>,
}

/// The view of `state` for `viewer`.
pub fn view(state: &State, viewer: Viewer) -> View {
    let you = match viewer {
        Viewer::Seat(s) => Some(s),
        _ => None,
    };
    let states = St::all()
        .map(|st| {
            let c = state.states[st.0 as usize];
            StateView {
                code: st.code().to_string(),
                name: st.name().to_string(),
                region: st.region(),
                purple: c.purple,
                yellow: c.yellow,
                red: c.red,
                mark: c.mark,
                card: MAP[st.0 as usize]
                    .card
                    .filter(|id| state.state_cards.contains(id))
                    .map(CardView::of),
            }
        })
        .collect();
    let resolving = state
        .stack
        .iter()
        .map(|f| Resolving {
            seat: f.seat,
            card: CardView::of(f.card),
            what: format!("{:?}", f.script).to_lowercase(),
            dice: f.dice.clone(),
            drawn: viewer.sees_seat(f.seat).then(|| CardView::all(&f.cards)),
            drawn_count: f.cards.len(),
            source: f.source,
            ip: f.ip,
            entered: f.entered,
            sides: f.sides,
            reroll_open: f.reroll_open,
            selected: f.selected,
            yellow: f.yellow,
            region: f.region,
            on_top: f.on_top,
            moved: f.moved.clone(),
            to_box: f.to_box,
            shown: (viewer.sees_seat(f.seat) && shows_opponents_hand(f))
                .then(|| CardView::all(&state.hands[State::other(f.seat)])),
        })
        .collect();
    let awaiting = awaiting(state);
    let (hand_closed, hand_notes) = you
        .map(|seat| super::rules::hand_notes(state, seat))
        .unwrap_or_default();
    View {
        you,
        turn: state.turn,
        round: state.round,
        phase: state.phase,
        to_play: state.to_play,
        hand_done: state.hand_done,
        claimed_done: state.claimed_done,
        chooser: state.chooser,
        active: stop(state).map(|(s, _)| vec![s]).unwrap_or_default(),
        congress: state.congress,
        amendment_sent: state.amendment_sent,
        checks: state.checks(),
        xs: state.xs(),
        states,
        campaigners: state.campaigners.clone(),
        buttons: state.buttons,
        hands: (0..2)
            .map(|s| viewer.sees_seat(s).then(|| CardView::all(&state.hands[s])))
            .collect(),
        hand_sizes: state.hands.iter().map(Vec::len).collect(),
        deck_sizes: state.decks.iter().map(Vec::len).collect(),
        discards: state.discards.iter().map(|d| CardView::all(d)).collect(),
        claimed: state.claimed.iter().map(|d| CardView::all(d)).collect(),
        strategy_face_up: CardView::all(&state.strategy_face_up),
        strategy_deck_size: state.strategy_deck.len(),
        rest_of_turn: CardView::all(&state.rest_of_turn),
        rest_of_game: CardView::all(&state.rest_of_game),
        final_voting: CardView::all(&state.final_voting),
        spent: CardView::all(&state.spent),
        commitment: state.commitment.map(|c| c.buttons),
        vote: state.vote.map(|v| {
            let (s, o) = vote_totals(state, &v);
            VoteView {
                state: v.state,
                dice: v.dice,
                sides: v.sides,
                totals: [s, o],
            }
        }),
        resolving,
        last_roll: state.last_roll.clone(),
        awaiting,
        removed_state_cards: viewer
            .sees_all()
            .then(|| CardView::all(&state.removed_state_cards)),
        outcome: state.outcome.clone(),
        hand_closed,
        hand_notes,
    }
}

/// Whether the frame's current step is Change In Plans, begun: its player sees the opponent's
/// hand.
pub fn shows_opponents_hand(frame: &super::state::Frame) -> bool {
    frame.entered
        && matches!(
            super::stops::ops_of(frame).get(frame.ip as usize),
            Some(Op::ChangeInPlans)
        )
}

/// What is awaited, in words: the side and the decision.
pub fn awaiting(state: &State) -> Option<String> {
    stop(state).map(|(seat, s)| {
        format!(
            "{}: {}",
            super::board::side(seat),
            super::ops::stop_words(&s)
        )
    })
}
