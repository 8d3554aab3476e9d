//! The decisions open to a seat, and the clock's cautious move.
//!
//! Every parameter is shaped so that any fill a page allows is a legal command: a city is one
//! choice per rank (with jokers, a second choice that takes at least one), a lay-off one choice
//! per city, listing only cards that fit it.

use super::melds::{face, fits_city, rank_plural, run_cards, write_faces};
use super::state::{City, Command, Phase, State};
use crate::cards::Card;
use crate::engine::choice::fixed_json;
use crate::engine::{Choice, ParamKind, PickOption, PickRule, Seat};
use serde_json::json;
use std::borrow::Cow;

fn option(card: Card) -> PickOption {
    PickOption::fixed(Cow::Borrowed(card.code_value()), face(card))
}

fn options(cards: impl IntoIterator<Item = Card>) -> Vec<PickOption> {
    cards.into_iter().map(option).collect()
}

fn city_option(city: &City, viewer: Seat) -> PickOption {
    let whose = if city.owner == viewer {
        "your"
    } else {
        "your opponent's"
    };
    let plural = rank_plural(city.rank);
    let mut label = String::with_capacity(whose.len() + plural.len() + 12 + 4 * city.cards.len());
    label.push_str(whose);
    label.push_str(" city of ");
    label.push_str(&plural);
    label.push_str(" (");
    write_faces(&city.cards, &mut label);
    label.push(')');
    PickOption::new(city.id, label)
}

fn pick(options: Vec<PickOption>, min: usize, max: usize) -> ParamKind {
    ParamKind::Pick {
        options,
        min,
        max,
        rule: PickRule::Any,
    }
}

/// The choices of an awaited seat.
pub fn for_seat(state: &State, seat: Seat) -> Vec<Choice> {
    let hand = &state.hands[seat];
    let mut choices = Vec::new();
    match state.phase {
        Phase::Turn => {
            draws(state, seat, "", &mut choices);
            diplomacy(state, seat, &mut choices);
            if state.may_declare_war(seat) && hand.iter().any(|c| c.is_joker()) {
                choices.push(Choice::fixed(
                    "Declare war: lay a joker on your discard pile and take your opponent's cities and unmelded cards",
                    fixed_json!({"type": "declare_war"}),
                ));
            }
        }
        Phase::Answer => {
            choices.push(Choice::fixed(
                "Accept the trade",
                fixed_json!({"type": "accept"}),
            ));
            choices.push(
                Choice::fixed("Refuse the trade", fixed_json!({"type": "refuse"})).warn(
                    "after a refusal your opponent may declare war on their next turn, if they hold a joker",
                ),
            );
        }
        Phase::Melding => {
            cities(state, seat, &mut choices);
            lay_offs(state, seat, &mut choices);
            exchanges(state, seat, &mut choices);
            if !hand.is_empty() {
                choices.push(discard(hand, "Discard (ends your turn)"));
            }
        }
        Phase::Whittle => {
            cities(state, seat, &mut choices);
            choices.push(discard(
                hand,
                "Discard onto your opponent's pile (whittling down to seven)",
            ));
        }
        Phase::Response => {
            if state.piles[seat].last().is_some_and(|c| c.is_joker()) {
                choices.push(Choice::fixed(
                    "Retaliate: war again, with the joker on your discard pile",
                    fixed_json!({"type": "retaliate"}),
                ));
            }
            draws(state, seat, "Rebuild: ", &mut choices);
            cities(state, seat, &mut choices);
        }
        Phase::Rebuild => {
            draws(state, seat, "", &mut choices);
            cities(state, seat, &mut choices);
        }
        Phase::Over => {}
    }
    choices
}

fn draws(state: &State, seat: Seat, prefix: &str, choices: &mut Vec<Choice>) {
    if !state.stock.is_empty() {
        choices.push(Choice::fixed(
            if prefix.is_empty() {
                Cow::Borrowed("Draw from the stock")
            } else {
                Cow::Owned(format!("{prefix}Draw from the stock"))
            },
            fixed_json!({"type": "draw_stock"}),
        ));
    }
    if let Some(&top) = state.piles[seat].last() {
        choices.push(Choice::fixed(
            format!("{prefix}Take {} from your discard pile", face(top)),
            fixed_json!({"type": "draw_pile"}),
        ));
    }
}

fn diplomacy(state: &State, seat: Seat, choices: &mut Vec<Choice>) {
    let opponent = State::other(seat);
    let mine: Vec<PickOption> = state
        .cities_of(seat)
        .map(|c| city_option(c, seat))
        .collect();
    let theirs: Vec<PickOption> = state
        .cities_of(opponent)
        .map(|c| city_option(c, seat))
        .collect();
    if !mine.is_empty() {
        let mut offer = Choice::fixed(
            "Offer a trade of cities (instead of your turn)",
            fixed_json!({"type": "offer"}),
        )
        .with_param("give", "Which of your cities do you offer?", {
            let n = mine.len();
            pick(mine, 1, n)
        });
        if !theirs.is_empty() {
            let n = theirs.len();
            offer = offer.with_param(
                "take",
                "Which of your opponent's cities do you ask for (none is allowed)?",
                pick(theirs.clone(), 0, n),
            );
        }
        choices.push(offer);
    }
    if !theirs.is_empty() {
        let n = theirs.len();
        choices.push(
            Choice::fixed(
                "Demand cities for nothing (instead of your turn)",
                fixed_json!({"type": "offer"}),
            )
            .with_param(
                "take",
                "Which of your opponent's cities do you demand?",
                pick(theirs, 1, n),
            ),
        );
    }
}

/// One choice per rank that can make a city: natural cards only, and, holding a joker, one
/// with at least one joker standing in.
fn cities(state: &State, seat: Seat, choices: &mut Vec<Choice>) {
    let hand = &state.hands[seat];
    let jokers: Vec<Card> = hand.iter().copied().filter(|c| c.is_joker()).collect();
    for rank in 2..=14u8 {
        let naturals: Vec<Card> = hand
            .iter()
            .copied()
            .filter(|c| c.rank() == Some(rank))
            .collect();
        let n = naturals.len();
        if n >= 3 {
            choices.push(
                Choice::fixed(
                    format!("Make a city of {}", rank_plural(rank)),
                    fixed_json!({"type": "meld"}),
                )
                .with_param(
                    "cards",
                    "Which cards?",
                    pick(options(naturals.clone()), 3, n),
                ),
            );
        }
        if n >= 2 && !jokers.is_empty() && !state.v2() {
            choices.push(
                Choice::fixed(
                    format!("Make a city of {} with a joker", rank_plural(rank)),
                    fixed_json!({"type": "meld"}),
                )
                .with_param(
                    "cards",
                    "Which natural cards (two or more)?",
                    pick(options(naturals), 2, n),
                )
                .with_param(
                    "jokers",
                    "Which jokers stand in?",
                    pick(options(jokers.clone()), 1, jokers.len()),
                ),
            );
        }
    }
}

fn lay_offs(state: &State, seat: Seat, choices: &mut Vec<Choice>) {
    let hand = &state.hands[seat];
    for city in &state.cities {
        let fitting: Vec<Card> = hand
            .iter()
            .copied()
            .filter(|&c| fits_city(c, city.rank) && !(state.v2() && c.is_joker()))
            .collect();
        if fitting.is_empty() {
            continue;
        }
        let whose = if city.owner == seat {
            "your"
        } else {
            "your opponent's"
        };
        choices.push(
            Choice::action(
                format!("Add to {whose} city of {}", rank_plural(city.rank)),
                json!({"type": "lay_off", "city": city.id}),
            )
            .with_param(
                "card",
                "Which card?",
                ParamKind::One {
                    options: options(fitting),
                },
            ),
        );
    }
}

/// Version 2: a joker from the hand for a natural card of one's own city.
fn exchanges(state: &State, seat: Seat, choices: &mut Vec<Choice>) {
    if !state.v2() {
        return exchanges_v1(state, seat, choices);
    }
    if !state.hands[seat].iter().any(|c| c.is_joker()) {
        return;
    }
    for city in state.cities_of(seat) {
        let naturals: Vec<Card> = city
            .cards
            .iter()
            .copied()
            .filter(|c| !c.is_joker())
            .collect();
        choices.push(
            Choice::action(
                format!(
                    "Exchange a joker from your hand for a card of your city of {}",
                    rank_plural(city.rank)
                ),
                json!({"type": "exchange", "city": city.id}),
            )
            .with_param(
                "card",
                "Which card do you take into your hand?",
                ParamKind::One {
                    options: options(naturals),
                },
            ),
        );
    }
}

/// Version 1: a natural card from the hand for a joker in one's own city.
fn exchanges_v1(state: &State, seat: Seat, choices: &mut Vec<Choice>) {
    let hand = &state.hands[seat];
    for city in state.cities_of(seat) {
        if !city.cards.iter().any(|c| c.is_joker()) {
            continue;
        }
        let naturals: Vec<Card> = hand
            .iter()
            .copied()
            .filter(|c| c.rank() == Some(city.rank))
            .collect();
        if naturals.is_empty() {
            continue;
        }
        choices.push(
            Choice::action(
                format!(
                    "Take the joker back from your city of {}",
                    rank_plural(city.rank)
                ),
                json!({"type": "exchange", "city": city.id}),
            )
            .with_param(
                "card",
                "Which card takes its place?",
                ParamKind::One {
                    options: options(naturals),
                },
            ),
        );
    }
}

fn discard(hand: &[Card], label: &'static str) -> Choice {
    Choice::fixed(label, fixed_json!({"type": "discard"})).with_param(
        "card",
        "Which card do you discard?",
        ParamKind::One {
            options: options(hand.iter().copied()),
        },
    )
}

/// The clock's move: draw from the stock (or the pile), refuse a trade, rebuild rather than
/// retaliate, and discard the newest card that is in no run.
pub fn cautious(state: &State, seat: Seat) -> Command {
    let draw = || {
        if state.stock.is_empty() {
            Command::DrawPile
        } else {
            Command::DrawStock
        }
    };
    match state.phase {
        Phase::Turn | Phase::Response | Phase::Rebuild => draw(),
        Phase::Answer => Command::Refuse,
        Phase::Melding | Phase::Whittle | Phase::Over => {
            let hand = &state.hands[seat];
            let runs = run_cards(hand);
            let card = hand
                .iter()
                .rev()
                .find(|c| !runs.contains(c))
                .or(hand.last())
                .copied()
                .unwrap_or(Card::BLUE_JOKER);
            Command::Discard { card }
        }
    }
}
