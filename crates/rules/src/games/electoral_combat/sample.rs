//! Determinization for Electoral College Combat: nobody sees the stacks or the hand's face-down
//! cards, so the sampler deals every card not yet seen (not won, not removed, not face up) at
//! random among the face-down slots and both stacks, keeping the two known won cards of a last
//! hand among its face-down slots, and draws the other player's sealed sign at random.

use super::cards::ECard;
use super::state::{Sign, Slot, State};
use super::view::View;
use super::{ElectoralCombat, Options};
use crate::engine::determinize::{deal, remove_seen};
use crate::engine::{Determinize, GameRng, SampleError, Seat, Table};

impl Determinize for ElectoralCombat {
    fn sample(
        view: &View,
        seat: Seat,
        table: &Table<Options>,
        rng: &mut GameRng,
    ) -> Result<State, SampleError> {
        if seat > 1 {
            return Err(SampleError::new(format!(
                "no seat {seat} in a game for two"
            )));
        }
        let mut pool = ECard::deck();
        remove_seen(
            &mut pool,
            view.won
                .iter()
                .flatten()
                .chain(&view.removed)
                .copied()
                .chain(
                    // Won and removed cards of the table are counted above.
                    view.table
                        .iter()
                        .filter(|s| s.won_by.is_none() && !s.removed)
                        .filter_map(|s| s.card),
                ),
        )?;
        pool.sort();
        let down: Vec<usize> = view
            .table
            .iter()
            .filter(|s| s.card.is_none())
            .map(|s| s.slot)
            .collect();
        let mut cards: Vec<Option<ECard>> = view.table.iter().map(|s| s.card).collect();
        // The known won cards of a last hand still face down lie in some face-down slots.
        let mut open = down.clone();
        let hidden_known: Vec<ECard> = view
            .added
            .iter()
            .filter(|c| pool.contains(c))
            .copied()
            .collect();
        for known in hidden_known {
            let at = deal(&mut open, 1, rng)?[0];
            cards[at] = Some(known);
            pool.retain(|c| *c != known);
        }
        for at in open {
            cards[at] = Some(deal(&mut pool, 1, rng)?[0]);
        }
        let stacks = [
            deal(&mut pool, view.stack_sizes[0], rng)?,
            deal(&mut pool, view.stack_sizes[1], rng)?,
        ];
        if !pool.is_empty() {
            return Err(SampleError::new(format!(
                "{} cards unaccounted for",
                pool.len()
            )));
        }
        let mut signs = view.signs;
        for (s, sign) in signs.iter_mut().enumerate() {
            if s != seat && view.signed[s] {
                *sign = Some(Sign::ALL[rng.index(3)]);
            }
        }
        Ok(State {
            rules_version: table.rules_version,
            options: table.options.clone(),
            hand: view.hand,
            layer: view.layer,
            stacks,
            won: view.won.clone(),
            removed: view.removed.clone(),
            table: view
                .table
                .iter()
                .zip(cards)
                .map(|(s, card)| Slot {
                    card: card.expect("every slot dealt"),
                    up: s.face_up,
                    turned_by: s.turned_by,
                    won_by: s.won_by,
                    removed: s.removed,
                })
                .collect(),
            added: view.added.clone(),
            wild: view.wild,
            phase: view.phase,
            signs,
            draws: view.draws,
            last_signs: view.last_signs,
            last_hand: view.last_hand.clone(),
            outcome: view.outcome.clone(),
        })
    }
}
