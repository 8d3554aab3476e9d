//! Determinization for Nationhood: the other hand and the stock are dealt at random from the
//! cards the seat has not seen: the 54 less its hand, both discard piles (face up) and the
//! cities on the table. Sizes are the view's. What the play so far suggests (a card the other
//! player took from its pile and still holds, a joker suggested by a threat of war) is not
//! used: every unseen card is equally likely in the hand or the stock.

use super::Nationhood;
use super::melds::{nation_progress_rises_with, nation_progress_without_each};
use super::play::pack;
use super::state::{Command, Options, Phase, State};
use super::view::View;
use crate::engine::determinize::{deal, remove_seen};
use crate::engine::{Determinize, GameRng, SampleError, Seat, Table};

impl Determinize for Nationhood {
    /// Random play never makes a nation (1,000 random matches: all drawn), so a search over
    /// random playouts learns nothing of it. In a playout a seat plays for a nation as a
    /// beginner would: it takes its discard pile's top card when that brings its hand nearer to
    /// a nation ([`super::melds::nation_progress`]), else draws from the stock, and discards a card whose
    /// loss keeps its hand nearest (ties at random). One move in eight, and every other kind
    /// of move (cities, diplomacy, war), is left to random play.
    fn playout_command(state: &State, seat: Seat, rng: &mut GameRng) -> Option<Command> {
        if state.turn != seat || rng.index(8) == 0 {
            return None;
        }
        let hand = &state.hands[seat];
        match state.phase {
            Phase::Turn => {
                let better = (state.piles[seat].last())
                    .is_some_and(|&top| nation_progress_rises_with(hand, top));
                if better {
                    Some(Command::DrawPile)
                } else {
                    (!state.stock.is_empty()).then_some(Command::DrawStock)
                }
            }
            Phase::Melding => {
                let scores = nation_progress_without_each(hand);
                let best = *scores.iter().max()?;
                let ties: Vec<usize> = (0..hand.len()).filter(|&i| scores[i] == best).collect();
                Some(Command::Discard {
                    card: hand[ties[rng.index(ties.len())]],
                })
            }
            _ => None,
        }
    }

    fn sample(
        view: &View,
        seat: Seat,
        table: &Table<Options>,
        rng: &mut GameRng,
    ) -> Result<State, SampleError> {
        if seat > 1 || view.hands.len() != 2 || view.hand_sizes.len() != 2 {
            return Err(SampleError::new("Nationhood is played by two seats"));
        }
        let own = view.hands[seat]
            .clone()
            .ok_or_else(|| SampleError::new("the view shows no hand of this seat"))?;
        let mut pool = pack();
        remove_seen(
            &mut pool,
            own.iter()
                .chain(view.piles.iter().flatten())
                .chain(view.cities.iter().flat_map(|c| c.cards.iter()))
                .copied(),
        )?;
        pool.sort();
        let other = 1 - seat;
        let mut hands = vec![Vec::new(), Vec::new()];
        hands[seat] = own;
        hands[other] = deal(&mut pool, view.hand_sizes[other], rng)?;
        let stock = deal(&mut pool, view.stock_count, rng)?;
        if !pool.is_empty() {
            return Err(SampleError::new(format!(
                "{} cards unaccounted for",
                pool.len()
            )));
        }
        Ok(State {
            rules_version: view.rules_version,
            options: table.options.clone(),
            rubber: view.rubber,
            rubbers_won: view.rubbers_won.clone(),
            scores: view.scores.clone(),
            hand_number: view.hand_number,
            dealer: view.dealer,
            phase: view.phase,
            turn: view.turn_of,
            hands,
            stock,
            piles: view.piles.clone(),
            cities: view.cities.clone(),
            next_city: view.next_city,
            offer: view.offer.clone(),
            war_threats: view.war_threats.clone(),
            last_stock_taker: view.last_stock_taker,
            restocked: view.restocked,
            hands_without_winner: view.hands_without_winner,
            last_hand: view.last_hand.clone(),
            outcome: view.outcome.clone(),
        })
    }
}
