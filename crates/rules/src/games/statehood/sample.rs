//! Determinization for Statehood: every card the seat cannot see is dealt at random from the
//! cards it has not seen face up this hand — not in its hand, not the card it drew, not the
//! top of the discard pile, not won and laid face up, not in the pending declaration, not in a
//! Puerto Rico declarer's shown hand. The other hands, a drawn card held by another seat, the
//! discard pile beneath its top and the stock are dealt from them, at the sizes the view
//! shows. A Puerto Rico declarer's hand is the hand it showed. Another seat's sealed answer to
//! Puerto Rico is drawn: six of its cards but Puerto Rico when it holds six, else a pass
//! (under rules version 1 a seat holding six may pass too: one time in two).
//!
//! Puerto Rico is never beneath the discard pile's top: discarding it ends the hand; once the
//! stock is gone, it is in the hand of the seat awaited to declare it.
//!
//! Cards that were face up once and are now covered (the discard pile beneath its top) are
//! treated as unseen: the view does not show them, and a bot remembers only what its view
//! shows. What the play so far suggests is not used either.

use super::state::{Options, Phase, PrAnswer, PrDeclaration, State};
use super::view::View;
use super::{Statehood, puerto_rico};
use crate::cards::Card;
use crate::engine::determinize::{deal, remove_seen};
use crate::engine::{Determinize, GameRng, SampleError, Seat, Table};

/// The cards `seat` has not seen face up this hand (its view's hand is `own`), sorted: the
/// ones the other hands, a drawn card held by another seat, the discard pile beneath its top
/// and the stock are dealt from.
pub(super) fn unseen(view: &View, seat: Seat, own: &[Card]) -> Result<Vec<Card>, SampleError> {
    let mut pool = Card::standard_52();
    pool.extend(Card::territories());
    let mut seen: Vec<Card> = own.to_vec();
    seen.extend(view.drawn);
    seen.extend(view.discard_top);
    for won in view.won.iter().flatten() {
        seen.push(won.card);
        seen.extend(&won.beneath);
    }
    if let Some(d) = &view.declaration {
        seen.push(d.card);
        seen.extend(&d.defence);
        seen.extend(d.challenges.iter().flat_map(|(_, cards)| cards.iter()));
    }
    if let Some(p) = view.puerto_rico.as_ref().filter(|p| p.declarer != seat) {
        seen.extend(&p.shown);
    }
    remove_seen(&mut pool, seen)?;
    pool.sort();
    Ok(pool)
}

impl Determinize for Statehood {
    fn sample(
        view: &View,
        seat: Seat,
        table: &Table<Options>,
        rng: &mut GameRng,
    ) -> Result<State, SampleError> {
        let seats = table.seats;
        if view.hands.len() != seats || view.hand_sizes.len() != seats {
            return Err(SampleError::new("the view's seats are not the table's"));
        }
        let own = view
            .hands
            .get(seat)
            .cloned()
            .flatten()
            .ok_or_else(|| SampleError::new("the view shows no hand of this seat"))?;
        let drawer = (view.phase == Phase::Drawn)
            .then(|| view.turn.first().copied())
            .flatten();
        let pr_declarer = view.puerto_rico.as_ref().map(|p| p.declarer);
        let mut pool = unseen(view, seat, &own)?;
        // Puerto Rico is never discarded (doing so ends the hand): the cards beneath the top
        // of the pile are dealt first, from the pool without it.
        let beneath = view
            .discard_count
            .checked_sub(usize::from(view.discard_top.is_some()))
            .ok_or_else(|| SampleError::new("a discard pile without its top"))?;
        let unplaced_pr = pool.iter().position(|c| *c == puerto_rico());
        let pr = unplaced_pr.map(|i| pool.remove(i));
        let mut discard = deal(&mut pool, beneath, rng)?;
        discard.extend(view.discard_top);
        // With the stock gone, the seat awaited to declare Puerto Rico holds it, in everyone's
        // sight: it is kept aside for that hand.
        let forced_holder = (view.phase == Phase::ForcedPuertoRico)
            .then(|| view.turn.first().copied())
            .flatten()
            .filter(|&holder| holder != seat);
        if forced_holder.is_none() {
            pool.extend(pr);
        } else if pr.is_none() {
            return Err(SampleError::new("Puerto Rico is seen elsewhere"));
        }
        let mut hands = Vec::with_capacity(seats);
        for (s, size) in view.hand_sizes.iter().enumerate() {
            hands.push(match (s == seat, &view.puerto_rico) {
                (true, _) => own.clone(),
                (false, Some(p)) if p.declarer == s => p.shown.clone(),
                _ if forced_holder == Some(s) => {
                    let mut hand = deal(&mut pool, size.saturating_sub(1), rng)?;
                    hand.push(puerto_rico());
                    hand
                }
                _ => deal(&mut pool, *size, rng)?,
            });
        }
        let drawn = match (drawer, view.drawn) {
            (_, Some(card)) => Some(card),
            (Some(_), None) => Some(deal(&mut pool, 1, rng)?[0]),
            (None, None) => None,
        };
        let stock = deal(&mut pool, view.stock_count, rng)?;
        if !pool.is_empty() {
            return Err(SampleError::new(format!(
                "{} cards unaccounted for",
                pool.len()
            )));
        }
        let puerto_rico = match &view.puerto_rico {
            Some(p) => {
                let mut answers = Vec::with_capacity(seats);
                for (s, hand) in hands.iter().enumerate() {
                    answers.push(match (s == seat || s == p.declarer, p.answered[s]) {
                        (true, _) => p.answers[s].clone(),
                        (false, false) => None,
                        (false, true) => Some(sealed_answer(hand, table, rng)?),
                    });
                }
                if answers[p.declarer].is_none() {
                    answers[p.declarer] = Some(PrAnswer::Pass);
                }
                Some(PrDeclaration {
                    declarer: p.declarer,
                    shown: p.shown.clone(),
                    answers,
                })
            }
            None => None,
        };
        let turn = match (pr_declarer, view.turn.first()) {
            (Some(declarer), _) => declarer,
            (None, Some(&turn)) => turn,
            (None, None) => view.dealer,
        };
        Ok(State {
            rules_version: view.rules_version,
            options: table.options.clone(),
            seats,
            hand_number: view.hand_number,
            dealer: view.dealer,
            phase: view.phase,
            turn,
            hands,
            stock,
            discard,
            drawn,
            declaration: view.declaration.clone(),
            puerto_rico,
            won: view.won.clone(),
            scores: view.scores.clone(),
            last_hand: view.last_hand.clone(),
            outcome: view.outcome.clone(),
        })
    }
}

/// A sealed answer to Puerto Rico for a seat holding `hand`, drawn at random among those it may
/// give.
fn sealed_answer(
    hand: &[Card],
    table: &Table<Options>,
    rng: &mut GameRng,
) -> Result<PrAnswer, SampleError> {
    let mut usable: Vec<Card> = hand
        .iter()
        .copied()
        .filter(|c| *c != puerto_rico())
        .collect();
    let may_pass = hand.len() < 6 || table.rules_version < 2;
    if usable.len() < 6 || (may_pass && rng.index(2) == 0) {
        return Ok(PrAnswer::Pass);
    }
    Ok(PrAnswer::Cards(deal(&mut usable, 6, rng)?))
}
