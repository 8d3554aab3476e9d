//! The decisions open to a seat, and the clock's cautious move.

use super::state::{Command, Declaration, DeclarationKind, Phase, State};
use super::{dc, puerto_rico};
use crate::cards::{Card, Color};
use crate::engine::choice::fixed_json;
use crate::engine::{Choice, ParamKind, PickOption, PickRule, Seat, Text};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::LazyLock;

const PR_WARNING: &str = "discarding Puerto Rico forfeits the hand: every other player scores 6";

/// What the choices say of one card, made once for the pack so that offering them copies
/// borrowed words rather than formatting them.
struct CardWords {
    /// The card's code, the value of its option.
    value: &'static Value,
    /// The card's label, the words of its option.
    label: &'static str,
    /// Its electoral votes, the weight of its option.
    weight: i64,
    /// The label of taking it from the discard pile.
    take: String,
    /// The question put to the seat that drew it.
    drawn: String,
    /// The label of declaring it as a wildcard (read for the territories).
    declare: String,
    /// The command declaring it as a wildcard, but for the defence (read for the territories).
    declare_command: Value,
}

static CARD_WORDS: LazyLock<Vec<CardWords>> = LazyLock::new(|| {
    Card::all()
        .map(|card| CardWords {
            value: card.code_value(),
            label: card.label(),
            weight: i64::from(card.ev()),
            take: format!("Take {} from the discard pile", card.label()),
            drawn: format!(
                "You drew {}: discard it, or keep it and discard a card from your hand",
                card.label()
            ),
            declare: format!("Declare statehood for {}", card.name()),
            declare_command: json!({"type": "declare_wild", "wildcard": card}),
        })
        .collect()
});

fn words(card: Card) -> &'static CardWords {
    &CARD_WORDS[card.index()]
}

fn challenge_label(high: u32) -> String {
    format!("Challenge (beat {high} electoral votes)")
}

fn pr_prompt(defence: u32) -> String {
    format!("Which six cards? (more than {defence} electoral votes to succeed)")
}

/// Every total of electoral votes the pack can reach, from 0.
fn totals() -> impl Iterator<Item = u32> {
    0..=Card::all().map(Card::ev).sum()
}

static CHALLENGE_LABELS: LazyLock<Vec<String>> =
    LazyLock::new(|| totals().map(challenge_label).collect());

static PR_PROMPTS: LazyLock<Vec<String>> = LazyLock::new(|| totals().map(pr_prompt).collect());

/// `words(total)`, borrowed from `made` (the words of every total the pack can reach).
fn of_total(made: &'static [String], total: u32, words: fn(u32) -> String) -> Text {
    match made.get(total as usize) {
        Some(made) => Cow::Borrowed(made),
        None => Cow::Owned(words(total)),
    }
}

/// The cards as options weighted by their electoral votes.
fn options(cards: impl Iterator<Item = Card>) -> Vec<PickOption> {
    let mut options = Vec::with_capacity(cards.size_hint().1.unwrap_or(0));
    options.extend(cards.map(|card| {
        let words = words(card);
        PickOption {
            value: Cow::Borrowed(words.value),
            label: Cow::Borrowed(words.label),
            weight: words.weight,
            group: None,
            code: None,
            heading: None,
        }
    }));
    options
}

/// The electoral votes of the `count` cards of `cards` with the most; `count` is at most 3 and
/// at most the number of cards.
fn top_sum(cards: impl Iterator<Item = Card>, count: usize) -> u32 {
    let mut top = [0u32; 3];
    for ev in cards.map(Card::ev) {
        if let Some(at) = top.iter().position(|&t| ev > t) {
            top[at..].rotate_right(1);
            top[at] = ev;
        }
    }
    top[..count].iter().sum()
}

/// Which cards of a hand a challenge of `declaration` may use, at most how many, and the
/// question that asks for them.
fn challenge_rule(declaration: &Declaration) -> (fn(&Card) -> bool, usize, &'static str) {
    match declaration.kind {
        DeclarationKind::Wildcard => (|&c| c != puerto_rico(), 1, "Which card challenges?"),
        DeclarationKind::Dc => (
            |&c| c != puerto_rico() && c.color() == Some(Color::Red),
            3,
            "Which red cards challenge (one to three)?",
        ),
    }
}

/// Whether a seat holding `size` cards, all from `cards`, could challenge `declaration`.
pub fn could_challenge(declaration: &Declaration, cards: &[Card], size: usize) -> bool {
    let (usable, max, _) = challenge_rule(declaration);
    let usable = || cards.iter().copied().filter(usable);
    let max = max.min(size).min(usable().count());
    max > 0 && top_sum(usable(), max) > declaration.high().0
}

/// The choices of an awaited seat.
pub fn for_seat(state: &State, seat: Seat) -> Vec<Choice> {
    let hand = &state.hands[seat];
    let pr = puerto_rico();
    let warn_pr = |choice: Choice, holds_pr: bool| {
        if holds_pr {
            choice.warn(PR_WARNING)
        } else {
            choice
        }
    };
    match state.phase {
        Phase::Turn => {
            // Taking, drawing, at most one declaration a card, Puerto Rico.
            let mut choices = Vec::with_capacity(hand.len() + 2);
            if let Some(&top) = state.discard.last() {
                let take = Choice::fixed(
                    words(top).take.as_str(),
                    fixed_json!({"type": "take_discard"}),
                )
                .with_param(
                    "discard",
                    "Which card do you discard?",
                    ParamKind::One {
                        options: options(hand.iter().copied()),
                    },
                );
                choices.push(warn_pr(take, hand.contains(&pr)));
            }
            if !state.stock.is_empty() {
                choices.push(Choice::fixed(
                    "Draw from the stock",
                    fixed_json!({"type": "draw"}),
                ));
            }
            for &wild in hand.iter().filter(|c| c.is_territory()) {
                let defends = |c: &Card| *c != wild && *c != pr;
                if hand.iter().any(defends) {
                    let words = words(wild);
                    choices.push(
                        Choice::fixed(
                            words.declare.as_str(),
                            Cow::Borrowed(&words.declare_command),
                        )
                        .with_param(
                            "defence",
                            "Which card defends it?",
                            ParamKind::One {
                                options: options(hand.iter().copied().filter(defends)),
                            },
                        ),
                    );
                }
            }
            if hand.contains(&dc()) {
                let blue = |c: &Card| *c != dc() && c.color() == Some(Color::Blue);
                let count = hand.iter().filter(|c| blue(c)).count();
                if count > 0 {
                    choices.push(
                        Choice::fixed(
                            "Declare statehood for DC",
                            fixed_json!({"type": "declare_dc"}),
                        )
                        .with_param(
                            "defence",
                            "Which blue cards defend it (one to three)?",
                            ParamKind::Pick {
                                options: options(hand.iter().copied().filter(blue)),
                                min: 1,
                                max: count.min(3),
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
            let choice = Choice::fixed("Discard a card", fixed_json!({"type": "discard"}))
                .with_param(
                    "card",
                    words(drawn).drawn.as_str(),
                    ParamKind::One {
                        options: options(std::iter::once(drawn).chain(hand.iter().copied())),
                    },
                );
            vec![warn_pr(choice, drawn == pr || hand.contains(&pr))]
        }
        Phase::Challenges => {
            let declaration = state.declaration.as_ref().expect("pending");
            let (high, _) = declaration.high();
            let mut choices = vec![Choice::fixed("Pass", fixed_json!({"type": "pass"}))];
            let (usable, max, prompt) = challenge_rule(declaration);
            let usable = || hand.iter().copied().filter(usable);
            let max = max.min(usable().count());
            if max > 0 && top_sum(usable(), max) > high {
                choices.push(
                    Choice::fixed(
                        of_total(&CHALLENGE_LABELS, high, challenge_label),
                        fixed_json!({"type": "challenge"}),
                    )
                    .with_param(
                        "cards",
                        prompt,
                        ParamKind::Pick {
                            options: options(usable()),
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
            let usable = || hand.iter().copied().filter(|&c| c != pr);
            let six = usable().count() >= 6;
            let mut choices = Vec::with_capacity(2);
            if !six {
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
            if six {
                choices.push(
                    Choice::fixed(
                        "Challenge Puerto Rico with six cards",
                        fixed_json!({"type": "challenge_puerto_rico"}),
                    )
                    .with_param(
                        "cards",
                        of_total(&PR_PROMPTS, defence, pr_prompt),
                        ParamKind::Pick {
                            options: options(usable()),
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
