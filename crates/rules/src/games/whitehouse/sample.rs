//! Determinization for Whitehouse: the other three hands and (unless the seat laid it back)
//! the kitty are dealt at random from the cards the seat has not seen: not in its hand, not on
//! the table, not played to a finished trick of this hand. Hand sizes are the view's. Which of
//! the bid winner's cards came from the kitty, while it holds them, is drawn among its hand.
//! What the play so far suggests (a seat that did not follow suit holds none of it) is not
//! used: every unseen card is equally likely anywhere.

use super::Whitehouse;
use super::deal::sort_key;
use super::state::{Options, Phase, State};
use super::view::{View, pack};
use crate::engine::determinize::{deal, remove_seen};
use crate::engine::{Determinize, GameRng, SampleError, Seat, Table};

impl Determinize for Whitehouse {
    fn sample(
        view: &View,
        seat: Seat,
        table: &Table<Options>,
        rng: &mut GameRng,
    ) -> Result<State, SampleError> {
        let options = &table.options;
        let own = view
            .hands
            .get(seat)
            .cloned()
            .flatten()
            .ok_or_else(|| SampleError::new("the view shows no hand of this seat"))?;
        let mut pool = pack(options.jokers);
        remove_seen(
            &mut pool,
            own.iter()
                .chain(&view.played)
                .chain(view.trick.iter().map(|(_, c)| c))
                .chain(view.kitty.iter().flatten())
                .copied(),
        )?;
        pool.sort();
        let mut hands = vec![Vec::new(); 4];
        for (s, hand) in hands.iter_mut().enumerate() {
            *hand = if s == seat {
                own.clone()
            } else {
                let mut cards = deal(&mut pool, view.hand_sizes[s], rng)?;
                cards.sort_by_key(|c| sort_key(*c, view.trump));
                cards
            };
        }
        let kitty = match &view.kitty {
            Some(kitty) => kitty.clone(),
            None => deal(&mut pool, view.kitty_size, rng)?,
        };
        if !pool.is_empty() {
            return Err(SampleError::new(format!(
                "{} cards unaccounted for",
                pool.len()
            )));
        }
        let taken_kitty = match view.bidder {
            Some(b) if view.phase == Phase::Kitty && table.rules_version >= 3 => {
                if b == seat {
                    view.from_kitty.clone()
                } else {
                    let mut held = hands[b].clone();
                    let mut taken = deal(&mut held, options.kitty_size(), rng)?;
                    taken.sort_by_key(|c| hands[b].iter().position(|h| h == c));
                    taken
                }
            }
            _ => Vec::new(),
        };
        let laid_back = matches!(
            view.phase,
            Phase::Challenges | Phase::Play | Phase::HandOver
        );
        let mut tricks_won = view.tricks_won.clone();
        if let Some(b) = view.bidder.filter(|_| laid_back && view.kitty_size > 0) {
            tricks_won[b] = tricks_won[b].saturating_sub(1);
        }
        let dealer = view.dealer;
        let turn = view.turn.unwrap_or(dealer);
        let eliminated = view.eliminated.clone();
        let after = |from: Seat| (1..4).map(move |i| (from + i) % 4);
        let challenge_answers = match (view.phase, view.bidder) {
            (Phase::Challenges, Some(b)) => after(b)
                .take_while(|&s| s != turn)
                .filter(|&s| !eliminated[s])
                .count(),
            (Phase::Play | Phase::HandOver | Phase::Over, Some(b)) if !options.partnership => {
                after(b).filter(|&s| !eliminated[s]).count()
            }
            _ => 0,
        };
        let leader = match view.phase {
            Phase::Play | Phase::HandOver => view.trick.first().map_or(turn, |(s, _)| *s),
            _ => (dealer + 1) % 4,
        };
        Ok(State {
            rules_version: table.rules_version,
            options: options.clone(),
            dealer_draw: Vec::new(),
            hand_number: view.hand_number,
            dealer,
            phase: view.phase,
            turn,
            hands,
            kitty,
            taken_kitty,
            bids: view.bids.clone(),
            bidder: view.bidder,
            high_bid: view.high_bid,
            trump: view.trump,
            challengers: view.challengers.clone(),
            challenge_answers,
            leader,
            trick: view.trick.clone(),
            last_trick: view.last_trick.clone(),
            trump_broken: view.trump_broken,
            tricks_won,
            captured: view.captured.clone(),
            scores: view.scores.clone(),
            eliminated,
            last_hand: view.last_hand.clone(),
            outcome: view.outcome.clone(),
        })
    }
}
