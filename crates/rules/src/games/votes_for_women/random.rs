//! The random player's move, typed ([`crate::engine::Rules::random_command`]): what the generic
//! player makes of [`for_seat`](super::choices::for_seat)'s choices, with the same draws in the
//! same order, without building them.

use super::choices::{TAKES, campaign_offers, campaign_rooms, hand_plays, other_regions};
use super::data::{OPP, Region};
use super::rules::{claimed_options, defer_open, max_commit};
use super::state::{Command, State};
use super::stops::{Stop, awaited_stop};
use crate::engine::bot::{random_allot, random_indices};
use crate::engine::{GameRng, Seat};

/// One of `items` at random, as the generic player fills a `One` parameter.
fn one<T: Copy>(items: &[T], rng: &mut GameRng) -> T {
    items[rng.index(items.len())]
}

/// A number in `0..=max` at random, as the generic player fills a `Number` parameter from 0
/// by 1.
fn number(max: u8, rng: &mut GameRng) -> u8 {
    rng.below(u32::from(max) + 1) as u8
}

/// One of the choices `offered` marks, drawn as the generic player draws among the choices it
/// is offered; its index among all of them.
fn draw<const N: usize>(offered: [bool; N], rng: &mut GameRng) -> usize {
    let k = rng.index(offered.iter().filter(|&&o| o).count());
    (0..N)
        .filter(|&i| offered[i])
        .nth(k)
        .expect("k is below the count")
}

/// The random player's move for `seat`: one of its choices, in `for_seat`'s order, filled at
/// random; `None` when it has none.
pub fn random_command(state: &State, seat: Seat, rng: &mut GameRng) -> Option<Command> {
    let (awaited, stop) = awaited_stop(state)?;
    if awaited != seat {
        return None;
    }
    // Each arm draws a choice among those offered, then fills its parameters in order.
    Some(match stop.as_ref() {
        Stop::HandCard => {
            let plays = hand_plays(state, seat);
            let claimed = claimed_options(state, seat);
            let offered = plays.len() + usize::from(!claimed.is_empty());
            if offered == 0 {
                return None;
            }
            match plays.get(rng.index(offered)) {
                Some((action, cards)) => Command::Play {
                    card: one(cards, rng),
                    action: *action,
                },
                None => Command::Claimed {
                    card: one(&claimed, rng),
                },
            }
        }
        Stop::AfterHand => {
            let claimed = claimed_options(state, seat);
            match draw([!claimed.is_empty(), true], rng) {
                0 => Command::Claimed {
                    card: one(&claimed, rng),
                },
                _ => Command::EndTurn,
            }
        }
        Stop::Commit => {
            let (opp, max) = (state.buttons[OPP], max_commit(state));
            match draw([true, max > opp], rng) {
                0 => Command::Commit {
                    buttons: number(max.min(opp), rng),
                    card: None,
                },
                _ => Command::Commit {
                    buttons: opp + 1,
                    card: Some(one(&state.strategy_face_up, rng)),
                },
            }
        }
        Stop::Answer => {
            let n = state.commitment.map_or(0, |c| c.buttons);
            match draw([defer_open(state), true, state.buttons[OPP] > n], rng) {
                0 => Command::Defer,
                1 => Command::Match,
                _ => Command::Supersede {
                    card: one(&state.strategy_face_up, rng),
                },
            }
        }
        Stop::Card { options, bottom } => match draw([true, *bottom], rng) {
            0 => Command::Card {
                card: one(options, rng),
            },
            _ => Command::Bottom,
        },
        Stop::Reroll => match draw([true, true], rng) {
            0 => Command::Reroll,
            _ => Command::Accept,
        },
        Stop::Place { spec, reroll } | Stop::Remove { spec, reroll } => {
            if draw([true, *reroll], rng) == 1 {
                return Some(Command::Reroll);
            }
            let cubes = random_allot(
                spec.total,
                &spec.caps,
                &spec.group_of,
                |g| spec.groups[g].1,
                rng,
            );
            if matches!(stop.as_ref(), Stop::Remove { .. }) {
                return Some(Command::Remove { cubes });
            }
            let takes = spec.asks_colour(state, seat).then(|| one(&TAKES, rng).0);
            Command::Place { cubes, takes }
        }
        Stop::States { options, count } => {
            draw([true], rng);
            let picked = random_indices(options.len(), *count, *count, rng);
            Command::States {
                states: picked.into_iter().map(|i| options[i]).collect(),
            }
        }
        Stop::State { options, yellow } => {
            draw([true], rng);
            Command::State {
                state: one(options, rng),
                yellow: yellow.filter(|m| *m > 0).map(|m| number(m, rng)),
            }
        }
        Stop::Region { options } => {
            draw([true], rng);
            Command::Region {
                region: one(options, rng),
            }
        }
        Stop::Moves => {
            draw([true], rng);
            let mut to = [None; 4];
            for slot in to.iter_mut().take(state.campaigners_of(seat).len()) {
                *slot = Some(one(&Region::ALL, rng));
            }
            let [c1, c2, c3, c4] = to;
            Command::Moves { c1, c2, c3, c4 }
        }
        Stop::Campaign => {
            let offers = campaign_offers(state, seat);
            let offered = usize::from(offers.reroll) + offers.moves.len() + offers.ways.len();
            let mut at = rng.index(offered);
            if offers.reroll {
                if at == 0 {
                    return Some(Command::Reroll);
                }
                at -= 1;
            }
            if let Some(&i) = offers.moves.get(at) {
                let others: Vec<Region> = other_regions(offers.colours[i].1).collect();
                return Some(Command::Move {
                    campaigner: i as u8,
                    region: one(&others, rng),
                });
            }
            let dice = &offers.ways[at - offers.moves.len()];
            let mut cubes: [Option<Vec<u32>>; 4] = Default::default();
            for (slot, (&(_, region), &die)) in
                cubes.iter_mut().zip(offers.colours.iter().zip(dice))
            {
                let caps: Vec<u32> = campaign_rooms(state, seat, region, die)
                    .map(|(_, cap)| cap)
                    .collect();
                let total = u32::from(die).min(caps.iter().sum());
                *slot = Some(random_allot(total, &caps, &[], |_| 0, rng));
            }
            let takes = offers.asks.then(|| one(&TAKES, rng).0);
            let [c1, c2, c3, c4] = cubes;
            Command::Assign {
                dice: dice.clone(),
                c1,
                c2,
                c3,
                c4,
                takes,
            }
        }
    })
}
