//! The decisions open to the seat awaited, and the cautious move the clock plays for it.

use super::state::{Command, Phase, State};
use super::{MAX_BID, MIN_BID, suit_label};
use crate::cards::{Card, Suit};
use crate::engine::choice::fixed_json;
use crate::engine::{Choice, Json, Param, ParamKind, PickOption, PickRule, Seat};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The option offering a card, its parts looked up in a table made once for the whole pack.
#[inline]
fn card_option(card: Card) -> PickOption {
    static PARTS: LazyLock<Vec<(&Value, &str, i64)>> = LazyLock::new(|| {
        Card::all()
            .map(|card| (card.code_value(), card.label(), i64::from(card.ev())))
            .collect()
    });
    let (value, label, weight) = PARTS[card.index()];
    PickOption {
        value: Cow::Borrowed(value),
        label: Cow::Borrowed(label),
        weight,
        group: None,
        code: None,
        heading: None,
    }
}

/// The options offering `cards`, in their order.
fn card_options(cards: impl Iterator<Item = Card> + Clone) -> Vec<PickOption> {
    let mut options = Vec::with_capacity(cards.clone().count());
    for card in cards {
        options.push(card_option(card));
    }
    options
}

/// The choice naming `suit` trump, its label and command made once for each suit.
fn trump_choice(suit: Suit) -> Choice {
    static LABELS_AND_COMMANDS: LazyLock<Vec<(String, Value)>> = LazyLock::new(|| {
        Suit::ALL
            .map(|suit| {
                (
                    format!("Name {} trump", suit_label(suit)),
                    json!({"type": "trump", "suit": suit}),
                )
            })
            .into()
    });
    let (label, command) = &LABELS_AND_COMMANDS[suit as usize];
    Choice::fixed(label.as_str(), Json::Borrowed(command))
}

/// A choice with one parameter to fill in, its one allocation of parameters exactly the size
/// needed.
fn with_one_param(
    label: &'static str,
    command: Json,
    field: &'static str,
    prompt: impl Into<Cow<'static, str>>,
    kind: ParamKind,
) -> Choice {
    Choice {
        label: Cow::Borrowed(label),
        command,
        params: vec![Param {
            field: field.into(),
            prompt: prompt.into(),
            kind,
        }],
        sealed: false,
        warning: None,
    }
}

/// The choices of `state.turn`.
pub fn for_turn(state: &State) -> Vec<Choice> {
    let seat = state.turn;
    match state.phase {
        Phase::Bidding if state.forced_to_bid(seat) => vec![Choice::action(
            format!("Take the bid at {MIN_BID} (everyone else passed)"),
            json!({"type": "bid", "amount": MIN_BID}),
        )],
        Phase::Bidding => {
            let mut choices = vec![Choice::fixed("Pass", fixed_json!({"type": "pass"}))];
            let min = state.min_bid();
            if min <= MAX_BID {
                choices.push(
                    Choice::fixed("Bid", fixed_json!({"type": "bid"})).with_param(
                        "amount",
                        "How many electoral votes will your side take?",
                        ParamKind::Number {
                            min: i64::from(min),
                            max: i64::from(MAX_BID),
                            step: 10,
                        },
                    ),
                );
            }
            choices
        }
        Phase::Trump => state
            .trump_suits(seat)
            .into_iter()
            .map(trump_choice)
            .collect(),
        Phase::Kitty => {
            let size = state.options.kitty_size();
            vec![
                Choice::fixed("Put the kitty back", fixed_json!({"type": "discard"})).with_param(
                    "cards",
                    format!("Choose {size} cards to lay face down as the kitty; the other 12 are your hand"),
                    ParamKind::Pick {
                        options: card_options(state.hands[seat].iter().copied()),
                        min: size,
                        max: size,
                        rule: PickRule::Any,
                    },
                ),
            ]
        }
        Phase::Challenges => vec![
            Choice::fixed(
                "Challenge the bid (+1 if it fails, −1 if it is made)",
                fixed_json!({"type": "challenge"}),
            ),
            Choice::fixed("Let the bid stand", fixed_json!({"type": "no_challenge"})),
        ],
        Phase::Play => vec![with_one_param(
            "Play a card",
            fixed_json!({"type": "play"}),
            "card",
            "Which card do you play?",
            ParamKind::One {
                options: card_options(state.legal_iter(seat)),
            },
        )],
        Phase::HandOver | Phase::Over => Vec::new(),
    }
}

/// The clock's move: pass (or the forced 270), the longest suit as trump, the lowest cards
/// back to the kitty, no challenge, the lowest legal card.
pub fn cautious(state: &State, seat: Seat) -> Command {
    let hand = &state.hands[seat];
    match state.phase {
        Phase::Bidding if state.forced_to_bid(seat) => Command::Bid { amount: MIN_BID },
        Phase::Bidding => Command::Pass,
        Phase::Trump => {
            let suits = state.trump_suits(seat);
            let count = |s: Suit| hand.iter().filter(|c| c.suit() == Some(s)).count();
            let suit = suits
                .iter()
                .copied()
                .max_by_key(|&s| (count(s), std::cmp::Reverse(s as u8)))
                .expect("at least one suit may be trump");
            Command::Trump { suit }
        }
        Phase::Kitty => {
            let trump = state.trump;
            let mut cards: Vec<Card> = hand.clone();
            cards.sort_by_key(|c| (c.is_joker() || c.suit() == trump, c.rank(), c.ev()));
            cards.truncate(state.options.kitty_size());
            Command::Discard { cards }
        }
        Phase::Challenges => Command::NoChallenge,
        Phase::Play | Phase::HandOver | Phase::Over => {
            let legal = if state.phase == Phase::Play {
                state.legal_cards(seat)
            } else {
                hand.clone()
            };
            let card = legal
                .iter()
                .copied()
                .min_by_key(|c| (c.is_joker(), c.rank(), c.ev()))
                .unwrap_or(Card::BLUE_JOKER);
            Command::Play { card }
        }
    }
}
