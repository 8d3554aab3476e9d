//! The decisions open to an awaited seat, and the cautious move the clock plays for it.

use super::cards::{ECard, Wild};
use super::hand::rebuild_options;
use super::state::{Command, Guess, Phase, Purpose, Reference, Sign, State};
use crate::engine::choice::fixed_json;
use crate::engine::{Choice, Json, ParamKind, PickOption, PickRule, Seat, Text};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The words of the choices that name one card, made once per card and apportionment.
struct CardWords {
    take_higher: String,
    take_lower: String,
    take_third: String,
    add_highest: String,
    /// Fake News against this card, by guess (in the order of [`Guess::ALL`]).
    guess_against: [String; 3],
}

impl CardWords {
    fn new(label: &str) -> CardWords {
        CardWords {
            take_higher: format!("Take the higher card, {label}, and any one other card"),
            take_lower: format!("Take the lower card, {label}, and two face-down cards"),
            take_third: format!("Take the third card, {label}, and any one other card"),
            add_highest: format!("Add {label} and one other won card to your last three cards"),
            guess_against: Guess::ALL
                .map(|g| format!("Fake News: the next card against {label}: {}", g.word())),
        }
    }
}

/// The words of the choices naming `card` under the state's apportionment.
fn words(state: &State, card: ECard) -> &'static CardWords {
    static WORDS: LazyLock<[Vec<CardWords>; 2]> = LazyLock::new(|| {
        [false, true].map(|ev_2012| ECard::table(|c| CardWords::new(c.label(ev_2012))))
    });
    &WORDS[usize::from(state.options.ev_2012())][card.index()]
}

/// A face-down card's label and reply code, by slot.
const FACE_DOWN: [(&str, &str); 5] = [
    ("face-down card 1", "1"),
    ("face-down card 2", "2"),
    ("face-down card 3", "3"),
    ("face-down card 4", "4"),
    ("face-down card 5", "5"),
];

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
    } else if let Some(&(label, code)) = FACE_DOWN.get(slot) {
        PickOption::new(slot, label).coded(code)
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
            let label: Text = match state.highest_won(seat) {
                Some(i) => words(state, state.won[seat][i]).add_highest.as_str().into(),
                None => "Add  and one other won card to your last three cards".into(),
            };
            vec![
                Choice::fixed(label, fixed_json!({"type": "rebuild"})).with_param(
                    "card",
                    "Which other won card goes into your last hand?",
                    ParamKind::One {
                        options: rebuild_options(state, seat)
                            .map(|(_, c)| {
                                PickOption::fixed(Cow::Borrowed(c.code_value()), state.label(c))
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
                words(state, state.table[high].card).take_higher.as_str(),
                fixed_json!({"type": "take_higher"}),
            )
            .with_param(
                "with",
                "Which other card do you take?",
                live_except(state, high),
            ),
            Choice::fixed(
                words(state, state.table[low].card).take_lower.as_str(),
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
                words(state, state.table[third].card).take_third.as_str(),
                fixed_json!({"type": "take_higher"}),
            )
            .with_param(
                "with",
                "Which other card do you take?",
                live_except(state, third),
            ),
        ],
        Phase::Guess { reference, .. } => {
            let (labels, possible): ([Text; 3], [bool; 3]) = match reference {
                Reference::Card { slot } => {
                    let card = state.table[slot].card;
                    let ev = state.ev(card);
                    let mut possible = [false; 3];
                    for unseen in unseen_states(state) {
                        possible[Guess::of(unseen, ev) as usize] = true;
                    }
                    let labels = &words(state, card).guess_against;
                    (labels.each_ref().map(|l| l.as_str().into()), possible)
                }
                Reference::Sum => {
                    let sum = exposed_sum(state);
                    let labels = Guess::ALL.map(|g| {
                        format!(
                            "Fake News: the sum of the two face-down cards against {sum}: {}",
                            g.word()
                        )
                        .into()
                    });
                    (labels, [true; 3])
                }
            };
            Guess::ALL
                .into_iter()
                .zip(labels)
                .map(|(g, label)| {
                    let choice = Choice::fixed(label, guess_command(g));
                    if possible[g as usize] {
                        choice
                    } else {
                        choice.warn(format!(
                            "no state card still unseen is {}: only a wild card would save this guess",
                            g.word()
                        ))
                    }
                })
                .collect()
        }
        Phase::Rps => Sign::ALL
            .into_iter()
            .map(|s| Choice::fixed(sign_label(s), sign_command(s)).sealed())
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

/// The command guessing `guess`, made once.
fn guess_command(guess: Guess) -> Json {
    static COMMANDS: LazyLock<[Value; 3]> =
        LazyLock::new(|| Guess::ALL.map(|g| json!({"type": "guess", "guess": g})));
    Cow::Borrowed(&COMMANDS[guess as usize])
}

/// The command showing `sign`, made once.
fn sign_command(sign: Sign) -> Json {
    static COMMANDS: LazyLock<[Value; 3]> =
        LazyLock::new(|| Sign::ALL.map(|s| json!({"type": "rps", "sign": s})));
    Cow::Borrowed(&COMMANDS[sign as usize])
}

fn sign_label(sign: Sign) -> &'static str {
    match sign {
        Sign::Rock => "Russian Collusion: rock",
        Sign::Paper => "Russian Collusion: paper",
        Sign::Scissors => "Russian Collusion: scissors",
    }
}

/// The votes of every state card nobody has seen yet (not won, not face up): what a face-down
/// card may be.
fn unseen_states(state: &State) -> impl Iterator<Item = u32> + '_ {
    ECard::all().iter().filter_map(move |&card| {
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
