//! The decisions open to an awaited seat, and the cautious move the clock plays for it.

use super::cards::{ECard, Wild};
use super::hand::rebuild_options;
use super::state::{Command, Guess, Phase, Purpose, Reference, Sign, State};
use crate::engine::choice::fixed_json;
use crate::engine::{Choice, ParamKind, PickOption, PickRule, Seat};
use serde_json::json;

/// A card of the table as an option: its name when face up, its place when face down; its
/// code for a reply is a state card's postal code, or the face-down card's number (a wild
/// card is named by its words, "Fake News").
fn slot_option(state: &State, slot: usize) -> PickOption {
    let s = &state.table[slot];
    if s.up {
        let option =
            PickOption::new(slot, state.label(s.card)).weighted(i64::from(state.ev(s.card)));
        match s.card.wild() {
            Some(_) => option,
            None => option.coded(s.card.code()),
        }
    } else {
        PickOption::new(slot, format!("face-down card {}", slot + 1)).coded((slot + 1).to_string())
    }
}

fn face_down_param(state: &State) -> ParamKind {
    ParamKind::One {
        options: state.face_down().map(|s| slot_option(state, s)).collect(),
    }
}

fn live_except(state: &State, except: usize) -> ParamKind {
    ParamKind::One {
        options: state
            .live()
            .filter(|&s| s != except)
            .map(|s| slot_option(state, s))
            .collect(),
    }
}

fn turn_label(purpose: Purpose) -> &'static str {
    match purpose {
        Purpose::First => "Turn over a card",
        Purpose::Second { .. } => "Turn over a card against it",
        Purpose::Third { .. } => "Turn over a third card to break the tie",
        Purpose::FakeNewsReference => "Fake News: turn over the card to guess against",
        Purpose::FakeNewsNext { .. } => "Fake News: turn over the card you guessed about",
        Purpose::Recount => "Recount: turn over a card (the lower card wins all)",
        Purpose::RecountTiebreak => "Recount: turn over a card (even or odd decides)",
        Purpose::SwingState => "Swing State: turn over a card (the total's even or odd decides)",
    }
}

/// The choices of an awaited seat.
pub fn for_seat(state: &State, seat: Seat) -> Vec<Choice> {
    match state.phase {
        Phase::Rebuild { .. } => {
            let highest = state
                .highest_won(seat)
                .map(|i| state.label(state.won[seat][i]))
                .unwrap_or_default();
            vec![
                Choice::fixed(
                    format!("Add {highest} and one other won card to your last three cards"),
                    fixed_json!({"type": "rebuild"}),
                )
                .with_param(
                    "card",
                    "Which other won card goes into your last hand?",
                    ParamKind::One {
                        options: rebuild_options(state, seat)
                            .map(|(_, c)| {
                                PickOption::new(c.code(), state.label(c))
                                    .weighted(i64::from(state.ev(c)))
                            })
                            .collect(),
                    },
                ),
            ]
        }
        Phase::Turn { purpose, .. } => vec![
            Choice::fixed(turn_label(purpose), fixed_json!({"type": "turn"})).with_param(
                "slot",
                "Which face-down card do you turn over?",
                face_down_param(state),
            ),
        ],
        Phase::Choose { high, low, .. } => vec![
            Choice::fixed(
                format!(
                    "Take the higher card, {}, and any one other card",
                    state.label(state.table[high].card)
                ),
                fixed_json!({"type": "take_higher"}),
            )
            .with_param(
                "with",
                "Which other card do you take?",
                live_except(state, high),
            ),
            Choice::fixed(
                format!(
                    "Take the lower card, {}, and two face-down cards",
                    state.label(state.table[low].card)
                ),
                fixed_json!({"type": "take_lower"}),
            )
            .with_param(
                "face_down",
                "Which two face-down cards do you take?",
                ParamKind::Pick {
                    options: state.face_down().map(|s| slot_option(state, s)).collect(),
                    min: 2,
                    max: 2,
                    rule: PickRule::Any,
                },
            ),
        ],
        Phase::TieHigh { third, .. } => vec![
            Choice::fixed(
                format!(
                    "Take the third card, {}, and any one other card",
                    state.label(state.table[third].card)
                ),
                fixed_json!({"type": "take_higher"}),
            )
            .with_param(
                "with",
                "Which other card do you take?",
                live_except(state, third),
            ),
        ],
        Phase::Guess { reference, .. } => {
            let against = match reference {
                Reference::Card { slot } => format!(
                    "the next card against {}",
                    state.label(state.table[slot].card)
                ),
                Reference::Sum => format!(
                    "the sum of the two face-down cards against {}",
                    exposed_sum(state)
                ),
            };
            let hopeless = |g: Guess| match reference {
                Reference::Card { slot } => {
                    let ev = state.ev(state.table[slot].card);
                    !unseen_states(state).any(|u| Guess::of(u, ev) == g)
                }
                Reference::Sum => false,
            };
            [Guess::Higher, Guess::Lower, Guess::Equal]
                .into_iter()
                .map(|g| {
                    let choice = Choice::action(
                        format!("Fake News: {against}: {}", g.word()),
                        json!({"type": "guess", "guess": g}),
                    );
                    if hopeless(g) {
                        choice.warn(format!(
                            "no state card still unseen is {}: only a wild card would save this guess",
                            g.word()
                        ))
                    } else {
                        choice
                    }
                })
                .collect()
        }
        Phase::Rps => Sign::ALL
            .into_iter()
            .map(|s| {
                Choice::action(
                    format!("Russian Collusion: {}", s.word()),
                    json!({"type": "rps", "sign": s}),
                )
                .sealed()
            })
            .collect(),
        Phase::RpsTake { .. } => vec![
            Choice::fixed("Take a card of the hand", fixed_json!({"type": "take"})).with_param(
                "slot",
                "Which card do you take?",
                ParamKind::One {
                    options: state.live().map(|s| slot_option(state, s)).collect(),
                },
            ),
        ],
        Phase::Over => Vec::new(),
    }
}

/// The votes of every state card nobody has seen yet (not won, not face up): what a face-down
/// card may be.
fn unseen_states(state: &State) -> impl Iterator<Item = u32> + '_ {
    ECard::deck().into_iter().filter_map(move |card| {
        let seen = card.wild().is_some()
            || state.won.iter().any(|pile| pile.contains(&card))
            || state.table.iter().any(|s| s.card == card && s.up);
        (!seen).then(|| state.ev(card))
    })
}

fn exposed_sum(state: &State) -> u32 {
    state
        .live()
        .filter(|&s| state.table[s].up)
        .map(|s| state.ev(state.table[s].card))
        .sum()
}

/// What the clock plays: the first face-down card, the known card where there is a choice, the
/// likelier guess, a sign that never draws against the other seat's timeout sign.
pub fn cautious(state: &State, seat: Seat) -> Command {
    let first_down = || state.face_down().next().unwrap_or(0);
    match state.phase {
        Phase::Rebuild { .. } => {
            let pick = rebuild_options(state, seat).max_by_key(|&(i, c)| {
                let ev = state.ev(c);
                // Book Deal keeps the smallest card, the usual game the largest; the earliest
                // won among equals.
                let key = if state.options.book_deal {
                    100 - ev
                } else {
                    ev
                };
                (key, usize::MAX - i)
            });
            Command::Rebuild {
                card: pick.map_or(ECard::Wild(Wild::FakeNews), |(_, c)| c),
            }
        }
        Phase::Turn { .. } => Command::Turn { slot: first_down() },
        Phase::Choose { low, .. } => Command::TakeHigher { with: low },
        Phase::TieHigh { third, .. } => Command::TakeHigher {
            with: state
                .live()
                .find(|&s| s != third && state.table[s].up)
                .unwrap_or_else(first_down),
        },
        Phase::Guess { reference, .. } => {
            let high = match reference {
                Reference::Card { slot } => state.ev(state.table[slot].card) >= 11,
                Reference::Sum => exposed_sum(state) >= 21,
            };
            Command::Guess {
                guess: if high { Guess::Lower } else { Guess::Higher },
            }
        }
        Phase::Rps => Command::Rps {
            sign: Sign::ALL[(state.draws as usize + seat) % 3],
        },
        Phase::RpsTake { .. } => Command::Take {
            slot: state
                .live()
                .max_by_key(|&s| {
                    let t = &state.table[s];
                    (t.up, state.ev(t.card) * u32::from(t.up), usize::MAX - s)
                })
                .unwrap_or(0),
        },
        Phase::Over => Command::Turn { slot: 0 },
    }
}
