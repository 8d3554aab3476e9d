//! The decisions open to a seat, and the clock's cautious move.

use super::state::{Command, Declaration, DeclarationKind, Phase, State};
use super::{dc, puerto_rico};
use crate::cards::{Card, Color};
use crate::engine::choice::fixed_json;
use crate::engine::{Choice, ParamKind, PickOption, PickRule, Seat};
use serde_json::json;
use std::borrow::Cow;

const PR_WARNING: &str = "discarding Puerto Rico forfeits the hand: every other player scores 6";

fn option(card: Card) -> PickOption {
    PickOption::fixed(Cow::Borrowed(card.code_value()), card.label()).weighted(i64::from(card.ev()))
}

fn options(cards: impl IntoIterator<Item = Card>) -> Vec<PickOption> {
    cards.into_iter().map(option).collect()
}

fn top_sum(cards: &[Card], count: usize) -> u32 {
    let mut evs: Vec<u32> = cards.iter().map(|c| c.ev()).collect();
    evs.sort_unstable_by(|a, b| b.cmp(a));
    evs.iter().take(count).sum()
}

/// The cards of `hand` a challenge of `declaration` may use, at most how many, and the
/// question that asks for them.
fn challenge_cards(declaration: &Declaration, hand: &[Card]) -> (Vec<Card>, usize, &'static str) {
    let pr = puerto_rico();
    match declaration.kind {
        DeclarationKind::Wildcard => (
            hand.iter().copied().filter(|&c| c != pr).collect(),
            1,
            "Which card challenges?",
        ),
        DeclarationKind::Dc => (
            hand.iter()
                .copied()
                .filter(|&c| c != pr && c.color() == Some(Color::Red))
                .collect(),
            3,
            "Which red cards challenge (one to three)?",
        ),
    }
}

/// Whether a seat holding `size` cards, all from `cards`, could challenge `declaration`.
pub fn could_challenge(declaration: &Declaration, cards: &[Card], size: usize) -> bool {
    let (usable, max, _) = challenge_cards(declaration, cards);
    let max = max.min(size).min(usable.len());
    max > 0 && top_sum(&usable, max) > declaration.high().0
}

/// The choices of an awaited seat.
pub fn for_seat(state: &State, seat: Seat) -> Vec<Choice> {
    let hand = &state.hands[seat];
    let pr = puerto_rico();
    let warn_pr = |choice: Choice, cards: &[Card]| {
        if cards.contains(&pr) {
            choice.warn(PR_WARNING)
        } else {
            choice
        }
    };
    match state.phase {
        Phase::Turn => {
            let mut choices = Vec::new();
            if let Some(&top) = state.discard.last() {
                let take = Choice::fixed(
                    format!("Take {} from the discard pile", top.label()),
                    fixed_json!({"type": "take_discard"}),
                )
                .with_param(
                    "discard",
                    "Which card do you discard?",
                    ParamKind::One {
                        options: options(hand.iter().copied()),
                    },
                );
                choices.push(warn_pr(take, hand));
            }
            if !state.stock.is_empty() {
                choices.push(Choice::fixed(
                    "Draw from the stock",
                    fixed_json!({"type": "draw"}),
                ));
            }
            for &wild in hand.iter().filter(|c| c.is_territory()) {
                let defenders: Vec<Card> = hand
                    .iter()
                    .copied()
                    .filter(|&c| c != wild && c != pr)
                    .collect();
                if !defenders.is_empty() {
                    choices.push(
                        Choice::action(
                            format!("Declare statehood for {}", wild.name()),
                            json!({"type": "declare_wild", "wildcard": wild}),
                        )
                        .with_param(
                            "defence",
                            "Which card defends it?",
                            ParamKind::One {
                                options: options(defenders),
                            },
                        ),
                    );
                }
            }
            if hand.contains(&dc()) {
                let blue: Vec<Card> = hand
                    .iter()
                    .copied()
                    .filter(|&c| c != dc() && c.color() == Some(Color::Blue))
                    .collect();
                if !blue.is_empty() {
                    let max = blue.len().min(3);
                    choices.push(
                        Choice::fixed(
                            "Declare statehood for DC",
                            fixed_json!({"type": "declare_dc"}),
                        )
                        .with_param(
                            "defence",
                            "Which blue cards defend it (one to three)?",
                            ParamKind::Pick {
                                options: options(blue),
                                min: 1,
                                max,
                                rule: PickRule::Any,
                            },
                        ),
                    );
                }
            }
            if hand.contains(&pr) {
                choices.push(Choice::fixed(
                    "Declare statehood for Puerto Rico (the hand ends)",
                    fixed_json!({"type": "declare_puerto_rico"}),
                ));
            }
            choices
        }
        Phase::Drawn => {
            let drawn = state.drawn.expect("a card was drawn");
            let mut cards = vec![drawn];
            cards.extend(hand.iter().copied());
            let choice = Choice::fixed("Discard a card", fixed_json!({"type": "discard"}))
                .with_param(
                    "card",
                    format!(
                        "You drew {}: discard it, or keep it and discard a card from your hand",
                        drawn.label()
                    ),
                    ParamKind::One {
                        options: options(cards.clone()),
                    },
                );
            vec![warn_pr(choice, &cards)]
        }
        Phase::Challenges => {
            let declaration = state.declaration.as_ref().expect("pending");
            let (high, _) = declaration.high();
            let mut choices = vec![Choice::fixed("Pass", fixed_json!({"type": "pass"}))];
            let (usable, max, prompt) = challenge_cards(declaration, hand);
            let max = max.min(usable.len());
            if max > 0 && top_sum(&usable, max) > high {
                choices.push(
                    Choice::fixed(
                        format!("Challenge (beat {high} electoral votes)"),
                        fixed_json!({"type": "challenge"}),
                    )
                    .with_param(
                        "cards",
                        prompt,
                        ParamKind::Pick {
                            options: options(usable),
                            min: 1,
                            max,
                            rule: PickRule::SumAbove {
                                threshold: i64::from(high),
                            },
                        },
                    ),
                );
            }
            choices
        }
        Phase::ForcedPuertoRico => vec![Choice::fixed(
            "Declare statehood for Puerto Rico (the stock is gone)",
            fixed_json!({"type": "declare_puerto_rico"}),
        )],
        Phase::PuertoRicoChallenges => {
            let defence = state.puerto_rico.as_ref().map_or(0, |p| p.defence());
            // Puerto Rico is in the declarer's hand, never a challenger's; filtered all the same.
            let usable: Vec<Card> = hand.iter().copied().filter(|&c| c != pr).collect();
            let mut choices = Vec::new();
            if usable.len() < 6 {
                choices.push(
                    Choice::fixed(
                        "Do not challenge Puerto Rico (you hold fewer than six cards)",
                        fixed_json!({"type": "pass"}),
                    )
                    .sealed(),
                );
            } else if !state.v2() {
                choices.push(
                    Choice::fixed(
                        "Do not challenge Puerto Rico",
                        fixed_json!({"type": "pass"}),
                    )
                    .sealed(),
                );
            }
            if usable.len() >= 6 {
                choices.push(
                    Choice::fixed(
                        "Challenge Puerto Rico with six cards",
                        fixed_json!({"type": "challenge_puerto_rico"}),
                    )
                    .with_param(
                        "cards",
                        format!(
                            "Which six cards? (more than {defence} electoral votes to succeed)"
                        ),
                        ParamKind::Pick {
                            options: options(usable),
                            min: 6,
                            max: 6,
                            rule: PickRule::Any,
                        },
                    )
                    .sealed(),
                );
            }
            choices
        }
        Phase::Over => Vec::new(),
    }
}

/// The clock's move: draw (and then throw away the drawn card, or the cheapest card if the
/// drawn one is Puerto Rico), pass on challenges, declare Puerto Rico when forced, and (rules
/// version 2, where every player holding six cards challenges Puerto Rico) commit the six
/// cards with the most electoral votes.
pub fn cautious(state: &State, seat: Seat) -> Command {
    match state.phase {
        Phase::Turn if !state.stock.is_empty() => Command::Draw,
        Phase::Turn | Phase::ForcedPuertoRico => Command::DeclarePuertoRico,
        Phase::Drawn => {
            let drawn = state.drawn.expect("a card was drawn");
            if drawn != puerto_rico() {
                return Command::Discard { card: drawn };
            }
            let card = state.hands[seat]
                .iter()
                .copied()
                .min_by_key(|c| (c.ev(), c.rank()))
                .unwrap_or(drawn);
            Command::Discard { card }
        }
        Phase::PuertoRicoChallenges if state.v2() && state.hands[seat].len() >= 6 => {
            let mut cards: Vec<Card> = state.hands[seat]
                .iter()
                .copied()
                .filter(|&c| c != puerto_rico())
                .collect();
            cards.sort_by_key(|c| std::cmp::Reverse((c.ev(), c.rank())));
            cards.truncate(6);
            Command::ChallengePuertoRico { cards }
        }
        Phase::Challenges | Phase::PuertoRicoChallenges | Phase::Over => Command::Pass,
    }
}
