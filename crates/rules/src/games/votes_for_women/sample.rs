//! Determinization for Votes for Women: every card the seat has not seen is dealt at random
//! among the places it could be. The three State cards removed at setup are the State cards
//! seen nowhere; the Strategy deck holds the Strategy cards seen nowhere, in a random order.
//! Each side's unseen cards fill that side's draw deck, the other hand and the cards the other
//! side's effects have drawn and set aside. A draw deck is stacked by era (Late at the bottom,
//! Early on top) and drawn from the top, so its remaining cards are the bottom of that stack:
//! the deck takes, era by era from Late, as many unseen cards of each era as the stack's bottom
//! holds, and the hand and set-aside cards the rest. Once a card that may have reordered
//! a deck was played (a search and shuffle, cards put on top or at the bottom), or where the
//! unseen cards do not fit that stacking, the side's unseen cards are dealt uniformly instead.
//! A deal is kept only when it awaits the decision the view awaits (docs/BOTS.md). Nothing the play
//! suggests is used (which cards the other side chose not to play).

use super::VotesForWomen;
use super::data::{Deck, Era, MAP, St, card};
use super::state::{Commitment, Cubes, Frame, Options, Script, State, Vote};
use super::view::{CardView, Resolving, View};
use crate::engine::determinize::{deal, remove_seen};
use crate::engine::{Determinize, GameRng, SampleError, Seat, Table};

/// Deals tried before giving up on a view: a deal is kept only when the decision it awaits is
/// the view's (which seat, and what), since that can hang on hidden cards (the other side
/// choosing among the cards its effect drew shows that at least two of them are playable).
const TRIES: usize = 500;

impl Determinize for VotesForWomen {
    fn sample(
        view: &View,
        seat: Seat,
        table: &Table<Options>,
        rng: &mut GameRng,
    ) -> Result<State, SampleError> {
        for _ in 0..TRIES {
            let state = deal_once(view, seat, table, rng)?;
            if super::view::awaiting(&state) == view.awaiting {
                return Ok(state);
            }
        }
        Err(SampleError::new(format!(
            "no deal of {TRIES} awaits what the view awaits: {:?}",
            view.awaiting
        )))
    }
}

/// One deal of the hidden cards, not yet checked against the decision the view awaits.
fn deal_once(
    view: &View,
    seat: Seat,
    table: &Table<Options>,
    rng: &mut GameRng,
) -> Result<State, SampleError> {
    if seat > 1 || view.hands.len() != 2 || view.hand_sizes.len() != 2 {
        return Err(SampleError::new("Votes for Women is played by two seats"));
    }
    let other = State::other(seat);
    let own = ids(view.hands[seat]
        .as_ref()
        .ok_or_else(|| SampleError::new("the view shows no hand of this seat"))?);
    let shown = view
        .resolving
        .iter()
        .filter(|r| r.seat == seat)
        .find_map(|r| r.shown.as_deref())
        .map(ids);
    let mut pool: Vec<u8> = (1..=128).collect();
    remove_seen(&mut pool, seen(view, &own, shown.as_deref()))?;
    pool.sort_unstable();
    let of_deck = |deck: Deck| -> Vec<u8> {
        pool.iter()
            .copied()
            .filter(|&c| card(c).deck == deck)
            .collect()
    };
    let mut removed = of_deck(Deck::State);
    if removed.len() != 3 {
        return Err(SampleError::new(format!(
            "{} State cards unseen, not the three removed at setup",
            removed.len()
        )));
    }
    rng.shuffle(&mut removed);
    let mut strategy_deck = of_deck(Deck::Strategy);
    if strategy_deck.len() != view.strategy_deck_size {
        return Err(SampleError::new("the Strategy deck's size disagrees"));
    }
    rng.shuffle(&mut strategy_deck);
    // Hidden drawn cards of the other side: its hand (unless shown) and its frames' cards.
    let hidden_frames: Vec<usize> = view
        .resolving
        .iter()
        .map(|r| if r.seat == other { r.drawn_count } else { 0 })
        .collect();
    let hand_hidden = if shown.is_some() {
        0
    } else {
        view.hand_sizes[other]
    };
    let mut decks = [Vec::new(), Vec::new()];
    let mut drawn = Vec::new();
    for side in [seat, other] {
        let deck_of = if side == 0 {
            Deck::Suffragist
        } else {
            Deck::Opposition
        };
        let hidden = if side == other {
            hand_hidden + hidden_frames.iter().sum::<usize>()
        } else {
            0
        };
        let stacked = !reordered(view, side);
        let (deck, rest) = deal_side(
            of_deck(deck_of),
            view.deck_sizes[side],
            hidden,
            stacked,
            rng,
        )?;
        decks[side] = deck;
        if side == other {
            drawn = rest;
        }
    }
    let mut hands = [Vec::new(), Vec::new()];
    hands[seat] = own;
    hands[other] = match shown {
        Some(hand) => hand,
        None => drawn.split_off(drawn.len() - hand_hidden),
    };
    let mut stack = Vec::with_capacity(view.resolving.len());
    for (r, &n) in view.resolving.iter().zip(&hidden_frames) {
        let cards = match &r.drawn {
            Some(seen) if r.seat == seat => ids(seen),
            _ if r.seat == other => drawn.split_off(drawn.len() - n),
            _ => return Err(SampleError::new("the view hides this seat's drawn cards")),
        };
        stack.push(frame(r, cards)?);
    }
    let mut states = vec![Cubes::default(); super::data::STATES];
    let mut state_cards = Vec::new();
    for s in &view.states {
        let st = St::from_code(&s.code)
            .ok_or_else(|| SampleError::new(format!("no state {}", s.code)))?;
        states[st.0 as usize] = Cubes {
            purple: s.purple,
            yellow: s.yellow,
            red: s.red,
            mark: s.mark,
        };
        state_cards.extend(s.card.as_ref().map(|c| c.id));
    }
    state_cards.sort_by_key(|&c| MAP.iter().position(|m| m.card == Some(c)));
    Ok(State {
        rules_version: table.rules_version,
        turn: view.turn,
        round: view.round,
        phase: view.phase,
        to_play: view.to_play,
        hand_done: view.hand_done,
        claimed_done: view.claimed_done,
        congress: view.congress,
        amendment_sent: view.amendment_sent,
        states,
        campaigners: view.campaigners.clone(),
        buttons: view.buttons,
        hands,
        decks,
        discards: pair(&view.discards)?,
        state_cards,
        removed_state_cards: removed,
        strategy_deck,
        strategy_face_up: ids(&view.strategy_face_up),
        claimed: pair(&view.claimed)?,
        spent: ids(&view.spent),
        rest_of_turn: ids(&view.rest_of_turn),
        rest_of_game: ids(&view.rest_of_game),
        final_voting: ids(&view.final_voting),
        commitment: view.commitment.map(|buttons| Commitment { buttons }),
        chooser: view.chooser,
        vote: view.vote.as_ref().map(|v| Vote {
            state: v.state,
            dice: v.dice,
            sides: v.sides,
        }),
        stack,
        last_roll: view.last_roll.clone(),
        outcome: view.outcome.clone(),
        awaited: Default::default(),
        red_takes: None,
    })
}

fn ids(cards: &[CardView]) -> Vec<u8> {
    cards.iter().map(|c| c.id).collect()
}

fn pair(piles: &[Vec<CardView>]) -> Result<[Vec<u8>; 2], SampleError> {
    match piles {
        [a, b] => Ok([ids(a), ids(b)]),
        _ => Err(SampleError::new("expected a pile per seat")),
    }
}

/// Every card the view shows face up to the seat.
fn seen<'a>(
    view: &'a View,
    own: &'a [u8],
    shown: Option<&'a [u8]>,
) -> impl Iterator<Item = u8> + 'a {
    let piles = view
        .discards
        .iter()
        .chain(&view.claimed)
        .chain([
            &view.strategy_face_up,
            &view.rest_of_turn,
            &view.rest_of_game,
            &view.final_voting,
            &view.spent,
        ])
        .flatten()
        .map(|c| c.id);
    let frames = view
        .resolving
        .iter()
        .flat_map(|r| std::iter::once(r.card.id).chain(r.drawn.iter().flatten().map(|c| c.id)));
    let state_cards = view
        .states
        .iter()
        .filter_map(|s| s.card.as_ref().map(|c| c.id));
    own.iter()
        .copied()
        .chain(shown.into_iter().flatten().copied())
        .chain(piles)
        .chain(frames)
        .chain(state_cards)
}

/// Progress, Not Politics (the Opposition's), The Winning Plan and Eye on the Future (Strategy
/// cards, either side's) put cards back on top of a draw deck, at its bottom, or shuffle it.
const REORDERING: [(u8, Option<Seat>); 3] = [(66, Some(1)), (111, None), (113, None)];

/// Whether a card that reorders `side`'s draw deck has been played or is being resolved (or,
/// for want of knowing, discarded unplayed): its deck is then no longer taken as stacked by era.
fn reordered(view: &View, side: Seat) -> bool {
    let out: Vec<u8> = view
        .discards
        .iter()
        .flatten()
        .chain(&view.spent)
        .map(|c| c.id)
        .chain(view.resolving.iter().map(|r| r.card.id))
        .collect();
    REORDERING
        .iter()
        .any(|&(c, of)| of.is_none_or(|s| s == side) && out.contains(&c))
}

/// Deals one side's unseen cards: `deck` of them to its draw deck (top last) and `hidden` to
/// the places drawn from it that the seat cannot see. The deck is the bottom of the era-stacked
/// deck when `stacked` and the unseen cards fit it, else a uniform deal; a Start card (the opening hand's)
/// never goes into the deck.
fn deal_side(
    mut pool: Vec<u8>,
    deck: usize,
    hidden: usize,
    stacked: bool,
    rng: &mut GameRng,
) -> Result<(Vec<u8>, Vec<u8>), SampleError> {
    if pool.len() != deck + hidden {
        return Err(SampleError::new(format!(
            "{} unseen cards of a side for {deck} in the deck and {hidden} hidden",
            pool.len()
        )));
    }
    let side = pool.first().map(|&c| card(c).deck);
    let era_size = |era: Era| {
        (1..=104u8)
            .filter(|&c| Some(card(c).deck) == side && card(c).era == era)
            .count()
    };
    let of_era = |pool: &[u8], era: Era| -> Vec<u8> {
        pool.iter()
            .copied()
            .filter(|&c| card(c).era == era)
            .collect()
    };
    // From the bottom: how many of each era the deck's remaining cards are.
    let mut left = deck;
    let mut layers = Vec::with_capacity(3);
    for era in [Era::Late, Era::Middle, Era::Early] {
        let n = left.min(era_size(era));
        left -= n;
        layers.push((era, n));
    }
    let stacked =
        stacked && left == 0 && layers.iter().all(|&(era, n)| of_era(&pool, era).len() >= n);
    let mut out = Vec::with_capacity(deck);
    if stacked {
        for (era, n) in layers {
            let mut cards = of_era(&pool, era);
            let mut layer = deal(&mut cards, n, rng)?;
            layer.sort_unstable();
            rng.shuffle(&mut layer);
            pool.retain(|c| !layer.contains(c));
            out.extend(layer);
        }
    } else {
        let (mut start, mut rest): (Vec<u8>, Vec<u8>) =
            pool.iter().partition(|&&c| card(c).era == Era::Start);
        if start.len() > hidden {
            return Err(SampleError::new("an opening card cannot be in the deck"));
        }
        out = deal(&mut rest, deck, rng)?;
        start.extend(rest);
        pool = start;
    }
    rng.shuffle(&mut pool);
    Ok((out, pool))
}

/// A frame of the effect stack from its public parts and its drawn cards.
fn frame(r: &Resolving, cards: Vec<u8>) -> Result<Frame, SampleError> {
    let script: Script = serde_json::from_value(serde_json::Value::String(r.what.clone()))
        .map_err(|_| SampleError::new(format!("no effect {}", r.what)))?;
    Ok(Frame {
        card: r.card.id,
        script,
        source: r.source,
        seat: r.seat,
        ip: r.ip,
        entered: r.entered,
        dice: r.dice.clone(),
        sides: r.sides,
        reroll_open: r.reroll_open,
        selected: r.selected,
        yellow: r.yellow,
        region: r.region,
        cards,
        on_top: r.on_top,
        moved: r.moved.clone(),
        to_box: r.to_box,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Rules, Seed, Viewer};

    /// At setup each deck is stacked by era: a sample deals the other hand from the Early cards
    /// (beside its opening card) and keeps both decks Late at the bottom, Early on top.
    #[test]
    fn a_sample_keeps_the_decks_stacked_by_era() {
        let mut rng = GameRng::new(&Seed::from_number(3), 0);
        let real = VotesForWomen::setup(&Options::default(), 2, &mut rng).unwrap();
        let table = Table {
            options: Options::default(),
            seats: 2,
            rules_version: VotesForWomen::RULES_VERSION,
        };
        for seat in [0, 1] {
            let view = VotesForWomen::view(&real, Viewer::Seat(seat));
            let sample = VotesForWomen::sample(&view, seat, &table, &mut rng).unwrap();
            let other = State::other(seat);
            let eras: Vec<Era> = sample.hands[other].iter().map(|&c| card(c).era).collect();
            assert_eq!(eras.iter().filter(|&&e| e == Era::Start).count(), 1);
            assert!(eras.iter().all(|&e| e <= Era::Early), "{eras:?}");
            for deck in &sample.decks {
                let eras: Vec<Era> = deck.iter().map(|&c| card(c).era).collect();
                assert!(eras.windows(2).all(|w| w[0] >= w[1]), "{eras:?}");
                assert_eq!(eras.first(), Some(&Era::Late));
                assert_eq!(eras.last(), Some(&Era::Early));
            }
            let sorted = |cards: &[u8]| {
                let mut v = cards.to_vec();
                v.sort_unstable();
                v
            };
            assert_eq!(sorted(&sample.decks[seat]), sorted(&real.decks[seat]));
        }
    }
}
