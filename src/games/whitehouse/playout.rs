//! Whitehouse's playout moves: how every seat plays in a search's playouts (docs/BOTS.md,
//! "Where search alone plays badly"). Random play bids any amount up to 530, so a random
//! auction often ends in a landslide that fails and ends the game at once, and it plays its
//! cards without regard to who is winning the trick: playouts then say more about random
//! landslides than about the move searched. These moves bid what the hand is worth (never a
//! landslide), name the longest suit, lay back the kitty's worth of votes, take tricks cheaply
//! and give votes to a partner's trick. They read the sampled state's own hand and the table
//! only.

use super::state::{Command, Phase, State};
use super::tricks::{compare, effective_suit};
use crate::cards::{Card, Suit};
use crate::engine::{GameRng, Seat};
use std::cmp::Ordering;

/// The highest bid a playout makes: landslides are left to the search's own moves.
const HIGHEST_PLAYOUT_BID: u32 = 490;

/// The hand strength at which a seat bids 270; each point more is worth 10 votes more.
const OPENING_STRENGTH: i32 = 20;

/// The move `seat` makes in a playout, or `None` for a move at random (one card in eight, and
/// every challenge).
pub fn playout_command(state: &State, seat: Seat, rng: &mut GameRng) -> Option<Command> {
    if state.turn != seat {
        return None;
    }
    match state.phase {
        Phase::Bidding => Some(bid(state, seat)),
        Phase::Trump => Some(Command::Trump {
            suit: best_suit(state, seat).1,
        }),
        Phase::Kitty => Some(Command::Discard {
            cards: lay_back(state, seat)?,
        }),
        Phase::Play if rng.index(8) == 0 => None,
        Phase::Play => play(state, seat).map(|card| Command::Play { card }),
        Phase::Challenges | Phase::HandOver | Phase::Over => None,
    }
}

/// High-card points: jokers 5, ace 4, king 3, queen 2, jack 1.
fn points(card: Card) -> i32 {
    match card.rank() {
        Some(14) => 4,
        Some(13) => 3,
        Some(12) => 2,
        Some(11) => 1,
        Some(_) => 0,
        None if card.is_joker() => 5,
        None => 0,
    }
}

/// The cards of `suit` in `hand`, jokers included (they are trump whatever is named).
fn length(hand: &[Card], suit: Suit) -> i32 {
    hand.iter()
        .filter(|c| c.suit() == Some(suit) || c.is_joker())
        .count() as i32
}

/// The hand's strength in its best allowed trump suit (high cards, plus two a card of
/// trump), and that suit.
fn best_suit(state: &State, seat: Seat) -> (i32, Suit) {
    let hand = &state.hands[seat];
    let high: i32 = hand.iter().map(|c| points(*c)).sum();
    state
        .trump_suits(seat)
        .into_iter()
        .map(|suit| {
            let in_suit: i32 = hand
                .iter()
                .filter(|c| c.suit() == Some(suit))
                .map(|c| points(*c))
                .sum();
            (high + 2 * length(hand, suit) + in_suit, suit)
        })
        .max_by_key(|(strength, _)| *strength)
        .expect("every bidder may name a suit")
}

/// The lowest bid allowed when the hand is worth it, else a pass. A seat whose partner holds
/// the high bid passes.
fn bid(state: &State, seat: Seat) -> Command {
    let min = state.min_bid();
    if state.forced_to_bid(seat) {
        return Command::Bid { amount: min };
    }
    let partner_holds = state
        .bidder
        .is_some_and(|b| state.options.partnership && state.same_side(b, seat));
    let (strength, _) = best_suit(state, seat);
    let worth = 270 + 10 * (strength - OPENING_STRENGTH);
    if partner_holds || worth < min as i32 || min > HIGHEST_PLAYOUT_BID {
        Command::Pass
    } else {
        Command::Bid { amount: min }
    }
}

/// The kitty laid back: side-suit cards with the most votes and the least chance of taking a
/// trick (the kitty counts as the bidder's trick), then the lowest trumps.
fn lay_back(state: &State, seat: Seat) -> Option<Vec<Card>> {
    let trump = state.trump?;
    let size = state.options.kitty_size();
    let mut side: Vec<Card> = state.hands[seat]
        .iter()
        .copied()
        .filter(|c| effective_suit(*c, trump) != trump && points(*c) < 4)
        .collect();
    side.sort_by_key(|c| std::cmp::Reverse(c.ev() as i32 - 12 * points(*c)));
    side.truncate(size);
    if side.len() < size {
        let mut rest: Vec<Card> = state.hands[seat]
            .iter()
            .copied()
            .filter(|c| !side.contains(c))
            .collect();
        rest.sort_by(|a, b| compare(*a, *b, trump, trump));
        side.extend(rest.into_iter().take(size - side.len()));
    }
    Some(side)
}

/// The card to play: a side-suit ace to lead (else a lead at random); following, the
/// cheapest card that takes the trick from the other side, or the card with the most votes
/// onto a partner's winning trick, or the fewest votes onto a trick already lost.
fn play(state: &State, seat: Seat) -> Option<Card> {
    let trump = state.trump?;
    let legal = state.legal_cards(seat);
    let Some(&(_, first)) = state.trick.first() else {
        return legal
            .iter()
            .copied()
            .find(|c| c.rank() == Some(14) && effective_suit(*c, trump) != trump);
    };
    let led = effective_suit(first, trump);
    let &(winner, winning) = state
        .trick
        .iter()
        .reduce(|a, b| {
            if compare(b.1, a.1, led, trump) == Ordering::Greater {
                b
            } else {
                a
            }
        })
        .expect("a trick under way has a card");
    let ours = state.options.partnership && state.same_side(winner, seat);
    if ours {
        let is_trump = |c: &Card| effective_suit(*c, trump) == trump;
        return legal
            .iter()
            .copied()
            .min_by_key(|c| (is_trump(c), std::cmp::Reverse(c.ev()), c.rank()));
    }
    let taking = legal
        .iter()
        .copied()
        .filter(|c| compare(*c, winning, led, trump) == Ordering::Greater)
        .min_by(|a, b| compare(*a, *b, led, trump));
    taking.or_else(|| legal.iter().copied().min_by_key(|c| (c.ev(), c.rank())))
}

#[cfg(test)]
mod tests {
    use super::super::{HandSummary, Options, Whitehouse};
    use super::playout_command;
    use crate::engine::bot::{bot_rng, fill_at_random};
    use crate::engine::{GameRng, Log, Rules, Seed};

    /// The first hand of the game dealt from `seed`, played by the playout moves (`policy`)
    /// or at random: its summary, and whether anyone bid a landslide.
    fn first_hand(seed: u64, policy: bool) -> (Option<HandSummary>, bool) {
        let seed = Seed::from_number(seed);
        let mut rng = GameRng::new(&seed, 0);
        let mut state = Whitehouse::setup(&Options::default(), 4, &mut rng).unwrap();
        let mut bot = bot_rng(&seed);
        let mut landslide = false;
        while state.last_hand.is_none() && state.outcome.is_none() {
            let seat = state.turn;
            let command = match policy.then(|| playout_command(&state, seat, &mut bot)) {
                Some(Some(command)) => command,
                _ => {
                    let choices = Whitehouse::choices(&state, seat);
                    let json = fill_at_random(&choices[bot.index(choices.len())], &mut bot);
                    Whitehouse::decode(&json).unwrap()
                }
            };
            if let super::Command::Bid { amount } = command {
                landslide |= amount >= 500;
            }
            Whitehouse::apply(&mut state, seat, &command, &mut rng, &mut Log::silent())
                .unwrap_or_else(|e| panic!("{command:?} refused: {e:?}"));
        }
        (state.last_hand, landslide)
    }

    /// The playout moves never bid a landslide, where random bidding often does, and make
    /// their contracts far more often (docs/BOTS.md, "Where search alone plays badly").
    #[test]
    fn playouts_that_bid_what_a_hand_is_worth_make_their_contracts() {
        let deals = 200;
        let count = |policy: bool| {
            let (mut made, mut landslides) = (0, 0);
            for seed in 0..deals {
                let (hand, landslide) = first_hand(seed, policy);
                made += u32::from(hand.is_some_and(|h| h.made));
                landslides += u32::from(landslide);
            }
            (made, landslides)
        };
        let (policy_made, policy_landslides) = count(true);
        let (random_made, random_landslides) = count(false);
        eprintln!(
            "of {deals} first hands, contracts made: playout moves {policy_made}, random \
             {random_made}; landslides bid: {policy_landslides}, random {random_landslides}"
        );
        assert_eq!(policy_landslides, 0);
        assert!(random_landslides > 0, "random bidding bid no landslide");
        assert!(
            policy_made > 2 * random_made,
            "made {policy_made} against random's {random_made}"
        );
    }
}
