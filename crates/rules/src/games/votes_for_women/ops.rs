//! The interpreter of card effects: runs the top frame's ops until one awaits a decision
//! (taking forced decisions alone), and applies a decision to the op awaiting it.

use super::board::Cube;
use super::data::{Cond, Cubes as CubeSel, Dice, Op, SUFF, St, card};
use super::rules::{settle, take_strategy};
use super::state::{Command, Frame, Mark, Script, Source, State};
use super::stops::{
    Spec, Stop, amount, assignments, campaign_colours, campaign_dice, campaign_spec, congress_room,
    frame_stop, ops_of, sixes, take_top_frame_stop,
};
use crate::engine::log::{count as counted, who};
use crate::engine::{GameRng, Log, RuleError, Seat};

fn illegal<T>(why: impl Into<String>) -> Result<T, RuleError> {
    Err(RuleError::illegal(why))
}

fn top(state: &mut State) -> &mut Frame {
    state.stack.last_mut().expect("a frame runs")
}

fn roll(rng: &mut GameRng, dice: Dice) -> Vec<u8> {
    (0..dice.count)
        .map(|_| rng.below(u32::from(dice.sides)) as u8 + 1)
        .collect()
}

/// Runs effects until a decision is awaited or none is left, then the turn's flow.
pub fn run(state: &mut State, rng: &mut GameRng, log: &mut Log) {
    loop {
        if state.outcome.is_some() {
            state.end_effects();
            return;
        }
        let Some(frame) = state.stack.last() else {
            settle(state, rng, log);
            return;
        };
        let ops = ops_of(frame);
        if frame.ip as usize >= ops.len() {
            finish_frame(state, log);
            continue;
        }
        if !frame.entered {
            enter(state, &ops[frame.ip as usize], rng, log);
            top(state).entered = true;
            continue;
        }
        let seat = frame.seat;
        match frame_stop(state, frame) {
            Some(stop) => match forced(state, &stop) {
                Some(command) => {
                    state.awaited.keep(stop);
                    decide(state, seat, &command, rng, log).expect("a forced decision is legal")
                }
                None => {
                    state.awaited.keep(stop);
                    return;
                }
            },
            None => exec(state, &ops[frame.ip as usize], rng, log),
        }
    }
}

/// The command of a decision with one possible answer.
fn forced(state: &State, stop: &Stop) -> Option<Command> {
    match stop {
        Stop::Card {
            options,
            bottom: false,
        } if options.len() == 1 => Some(Command::Card { card: options[0] }),
        Stop::States { options, count } if options.len() == *count => Some(Command::States {
            states: options.clone(),
        }),
        Stop::State {
            options,
            yellow: None | Some(0),
        } if options.len() == 1 => Some(Command::State {
            state: options[0],
            yellow: None,
        }),
        Stop::Region { options } if options.len() == 1 => {
            Some(Command::Region { region: options[0] })
        }
        Stop::Place {
            spec,
            reroll: false,
        } if spec.forced() && !spec.asks_colour(state, state.stack.last()?.seat) => {
            Some(Command::Place {
                cubes: spec.forced_counts(),
                takes: None,
            })
        }
        Stop::Remove {
            spec,
            reroll: false,
        } if spec.forced() => Some(Command::Remove {
            cubes: spec.forced_counts(),
        }),
        Stop::Campaign => {
            let frame = state.stack.last()?;
            if state.buttons[frame.seat] > 0 {
                return None;
            }
            let ways = assignments(&frame.dice);
            let [dice] = ways.as_slice() else {
                return None;
            };
            let specs = campaign_specs(state, frame.seat, dice);
            let asks = specs.iter().any(|s| s.asks_colour(state, frame.seat));
            (!asks && specs.iter().all(Spec::forced)).then(|| {
                let mut counts = specs.iter().map(|s| Some(s.forced_counts()));
                Command::Assign {
                    dice: dice.clone(),
                    c1: counts.next().flatten(),
                    c2: counts.next().flatten(),
                    c3: counts.next().flatten(),
                    c4: counts.next().flatten(),
                    takes: None,
                }
            })
        }
        _ => None,
    }
}

/// Each campaigner's placement for these dice (one per campaigner, in order).
pub fn campaign_specs(state: &State, seat: Seat, dice: &[u8]) -> Vec<Spec> {
    campaign_colours(state, seat)
        .iter()
        .zip(dice)
        .map(|(&(cube, region), &die)| campaign_spec(state, seat, cube, region, die))
        .collect()
}

fn enter(state: &mut State, op: &Op, rng: &mut GameRng, log: &mut Log) {
    let seat = top(state).seat;
    let dice = match op {
        Op::RollForSuccess(d) | Op::Roll(d) | Op::RollSixes(d) => Some(*d),
        Op::Lobby => Some(Dice {
            count: state.campaigner_count(seat),
            sides: if seat == SUFF && state.rest_of_turn.contains(&42) {
                8
            } else {
                6
            },
        }),
        Op::Campaign if war_unpaid(state, seat, log) => None,
        Op::Campaign => Some(campaign_dice(state, seat)),
        Op::Draw(n) => {
            for _ in 0..*n {
                if let Some(c) = state.decks[seat].pop() {
                    top(state).cards.push(c);
                }
            }
            let drawn = top(state).cards.len();
            log.push(|| {
                format!(
                    "{} draws {} from the draw deck",
                    who(seat),
                    counted(drawn as i64, "card")
                )
            });
            None
        }
        _ => None,
    };
    if let Some(d) = dice {
        let faces = roll(rng, d);
        let frame = top(state);
        frame.dice = faces.clone();
        frame.sides = d.sides;
        frame.reroll_open = matches!(op, Op::Roll(_));
        let what = roll_words(frame);
        log.push(|| format!("{} rolls {faces:?} ({what})", who(seat)));
        state.last_roll = Some((seat, what, faces));
    }
}

impl State {
    /// Ends the effects being resolved when the game is won in the middle of one. Under rules
    /// version 2 their cards go where a finished effect's would (drawn cards to the discard
    /// pile, a claimed card out of the game), so every card stays somewhere; version 1 dropped
    /// them with the effects.
    pub fn end_effects(&mut self) {
        if self.v2() {
            while let Some(frame) = self.stack.pop() {
                for c in frame.cards {
                    self.discard_card(c);
                }
                if frame.script == Script::Card && frame.source == Source::Claimed {
                    self.spent.push(frame.card);
                } else {
                    self.discard_card(frame.card);
                }
            }
        }
        self.stack.clear();
    }
}

/// Under rules version 2, War in Europe (88) charges the Suffragist a button for the
/// Campaigning action of a card (Transportation) as for one played from the hand: paid here
/// when she has one; when she has none the action is not taken, and this says so (its dice
/// are left unrolled, so no decision is awaited).
fn war_unpaid(state: &mut State, seat: Seat, log: &mut Log) -> bool {
    let frame = top(state);
    frame.dice.clear();
    let script = frame.script;
    if !state.v2()
        || seat != SUFF
        || script != Script::Card
        || !state.rest_of_turn.contains(&88)
        || state.campaigner_count(seat) == 0
    {
        return false;
    }
    if state.buttons[seat] > 0 {
        state.buttons[seat] -= 1;
        log.push(|| format!("{} pays a button to campaign (War in Europe)", who(seat)));
        return false;
    }
    log.push(|| {
        format!(
            "{} has no button to pay for the Campaigning action (War in Europe)",
            who(seat)
        )
    });
    true
}

/// A finished effect: its card goes to a box, its discard pile, or (claimed) out of play.
fn finish_frame(state: &mut State, log: &mut Log) {
    let frame = state.stack.pop().expect("a frame");
    let c = frame.card;
    match (frame.script, frame.source, frame.to_box) {
        (Script::Card, Source::Claimed, _) => state.spent.push(c),
        (Script::Card, _, Some(kind)) => {
            state.boxed_mut(kind).push(c);
            log.push(|| format!("{} stays in effect", card(c).name));
        }
        _ => state.discard_card(c),
    }
}

fn roll_words(frame: &Frame) -> String {
    match frame.script {
        Script::Card => card(frame.card).name.clone(),
        Script::Campaign => "Campaigning".into(),
        Script::Lobby => "Lobbying".into(),
        Script::Organize => "Organizing".into(),
    }
}

fn reroll(state: &mut State, rng: &mut GameRng, log: &mut Log) -> Result<(), RuleError> {
    let frame = state.stack.last().expect("a frame");
    let seat = frame.seat;
    if state.buttons[seat] == 0 {
        return illegal("a reroll costs a button and you have none");
    }
    state.buttons[seat] -= 1;
    let d = Dice {
        count: frame.dice.len() as u8,
        sides: frame.sides,
    };
    let faces = roll(rng, d);
    let frame = top(state);
    frame.dice = faces.clone();
    let what = roll_words(frame);
    log.push(|| format!("{} spends a button and rerolls: {faces:?}", who(seat)));
    state.last_roll = Some((seat, what, faces));
    Ok(())
}

fn advance(state: &mut State) {
    let frame = top(state);
    let was_roll = matches!(ops_of(frame).get(frame.ip as usize), Some(Op::Roll(_)));
    frame.ip += 1;
    frame.entered = false;
    if !was_roll {
        frame.reroll_open = false;
    }
}

/// Where the matching `else`/`endif` of the `if` at `at` is (its index).
fn branch_end(ops: &[Op], at: usize, stop_at_else: bool) -> usize {
    let mut depth = 0;
    for (i, op) in ops.iter().enumerate().skip(at + 1) {
        match op {
            Op::If(_) => depth += 1,
            Op::Else if depth == 0 && stop_at_else => return i,
            Op::Endif if depth == 0 => return i,
            Op::Endif => depth -= 1,
            _ => {}
        }
    }
    ops.len()
}

/// Applies an op that awaits no decision, and moves past it.
fn exec(state: &mut State, op: &Op, rng: &mut GameRng, log: &mut Log) {
    let frame = state.stack.last().expect("a frame");
    let (seat, ip, selected) = (frame.seat, frame.ip, frame.selected);
    let other = State::other(seat);
    match op {
        Op::AddCampaigner(colour, region) => {
            state.campaigners.push(super::state::Campaigner {
                colour: *colour,
                region: *region,
            });
            log.push(|| format!("{} puts a campaigner in the {}", who(seat), region.name()));
        }
        Op::Congress { add, count } => {
            let n = amount(state, frame, *count).min(6) as u8;
            state.move_congress(*add, n, log);
        }
        Op::Buttons(n) => {
            state.gain_buttons(seat, *n);
            log.push(|| format!("{} gains {}", who(seat), counted(*n, "button")));
        }
        Op::SpendButtons(n) => state.buttons[seat] = state.buttons[seat].saturating_sub(*n),
        Op::OpponentLoses(count) => {
            let n = amount(state, frame, *count).min(255) as u8;
            state.buttons[other] = state.buttons[other].saturating_sub(n);
            log.push(|| format!("{} loses {}", who(other), counted(n, "button")));
        }
        Op::PlaceSelected(n) => {
            if let Some(st) = selected {
                let yellow = frame.yellow.min(*n);
                for i in 0..*n {
                    let cube = if seat != SUFF {
                        Cube::Red
                    } else if i < n - yellow {
                        Cube::Purple
                    } else {
                        Cube::Yellow
                    };
                    state.place_cube(seat, st, cube, log);
                }
            }
        }
        Op::RemoveAllFixed(cubes, states) => {
            for &st in states {
                remove_all(state, st, *cubes);
            }
        }
        Op::RemoveAllSelected(cubes) => {
            if let Some(st) = selected {
                remove_all(state, st, *cubes);
            }
        }
        Op::If(cond) => {
            let holds = match cond {
                Cond::RollSucceeded => frame.dice.first().is_some_and(|&d| d >= 3),
                Cond::Suffragist => seat == SUFF,
            };
            if !holds {
                let ops = ops_of(frame);
                let mut to = branch_end(ops, ip as usize, true);
                if matches!(ops.get(to), Some(Op::Else)) {
                    to += 1;
                }
                if cond == &Cond::RollSucceeded {
                    let name = &card(frame.card).name;
                    log.push(|| format!("{name}: the roll fails"));
                }
                let f = top(state);
                f.ip = to as u16;
                f.entered = false;
            }
        }
        Op::Else => {
            let to = branch_end(ops_of(frame), ip as usize, false);
            let f = top(state);
            f.ip = to as u16;
            f.entered = false;
        }
        Op::Persistent(kind) => top(state).to_box = Some(*kind),
        Op::DiscardPersistent(kind, c) => {
            if let Some(at) = state.boxed(*kind).iter().position(|x| x == c) {
                state.boxed_mut(*kind).remove(at);
                state.discard_card(*c);
                log.push(|| format!("{} is discarded", card(*c).name));
            }
        }
        Op::DiscardDrawn => {
            for c in std::mem::take(&mut top(state).cards) {
                state.discard_card(c);
                log.push(|| format!("{} discards {}", who(seat), card(c).name));
            }
        }
        Op::ShuffleDeck => {
            rng.shuffle(&mut state.decks[seat]);
            log.push(|| format!("{} shuffles the draw deck", who(seat)));
        }
        Op::Riots => {
            let mut n = 0;
            for _ in 0..2 {
                if state.hands[other].is_empty() {
                    break;
                }
                let at = rng.index(state.hands[other].len());
                let c = state.hands[other].remove(at);
                state.discard_card(c);
                n += 1;
                log.push(|| format!("{} discards {} at random", who(other), card(c).name));
            }
            state.draw(other, if state.v2() { 2 } else { n });
        }
        Op::Organize => {
            let n = state.campaigner_count(seat);
            state.gain_buttons(seat, n);
            log.push(|| format!("{} organizes: {}", who(seat), counted(n, "button")));
        }
        Op::Lobby => {
            let n = sixes(&frame.dice).min(congress_room(state, seat)) as u8;
            log.push(|| format!("{} lobbies: {}", who(seat), successes_words(n)));
            state.move_congress(seat == SUFF, n, log);
        }
        _ => {}
    }
    if state.outcome.is_none() && !state.stack.is_empty() {
        let f = state.stack.last().expect("a frame");
        if f.ip == ip && f.entered {
            advance(state);
        }
    }
}

fn remove_all(state: &mut State, st: St, cubes: CubeSel) {
    let c = &mut state.states[st.0 as usize];
    match cubes {
        CubeSel::Purple => c.purple = 0,
        CubeSel::Yellow => c.yellow = 0,
        CubeSel::Red => c.red = 0,
        CubeSel::Suffragist => {
            c.purple = 0;
            c.yellow = 0;
        }
    }
}

/// Applies the counts of a placement (removal) spec.
fn apply_spec(
    state: &mut State,
    seat: Seat,
    spec: &Spec,
    counts: &[u32],
    remove: bool,
    log: &mut Log,
) {
    apply_spec_as(state, seat, spec, counts, remove, true, log);
}

/// [`apply_spec`], where `fallback` says whether a Suffragist cube whose colour has run out
/// is placed in the other colour: not for a campaigner's cubes under rules version 2, which
/// must match the campaigner's colour (RULES.md, "Actions").
fn apply_spec_as(
    state: &mut State,
    seat: Seat,
    spec: &Spec,
    counts: &[u32],
    remove: bool,
    fallback: bool,
    log: &mut Log,
) {
    for (unit, &n) in spec.units.iter().zip(counts) {
        for _ in 0..n {
            let cubes = [
                (Cube::Purple, unit.purple),
                (Cube::Yellow, unit.yellow),
                (Cube::Red, unit.red),
            ];
            for (cube, k) in cubes {
                for _ in 0..k {
                    if remove {
                        state.remove_cube(unit.st, cube);
                    } else {
                        let out =
                            state.states[unit.st.0 as usize].red == 0 && state.supply(cube) == 0;
                        if fallback || seat != SUFF || !out {
                            state.place_cube(seat, unit.st, cube, log);
                        }
                    }
                }
            }
        }
    }
    log.push(|| {
        let cubes: u32 = spec
            .units
            .iter()
            .zip(counts)
            .map(|(u, &n)| n * (u32::from(u.purple) + u32::from(u.yellow) + u32::from(u.red)))
            .sum();
        let states: Vec<&str> = spec
            .units
            .iter()
            .zip(counts)
            .filter(|(_, n)| **n > 0)
            .map(|(u, _)| u.st.code())
            .collect();
        placement_words(&who(seat), remove, cubes, &states)
    });
}

/// The log line of a placement or removal: "{s0} places 3 cubes in NY, NJ", "{s1} removes
/// 1 cube from CA", "{s0} places no cubes".
pub fn placement_words(who: &str, remove: bool, cubes: u32, states: &[&str]) -> String {
    let (verb, word) = if remove {
        ("removes", "from")
    } else {
        ("places", "in")
    };
    if cubes == 0 || states.is_empty() {
        return format!("{who} {verb} no cubes");
    }
    format!(
        "{who} {verb} {} {word} {}",
        counted(cubes, "cube"),
        states.join(", ")
    )
}

/// The log line of a Lobbying action's result: "no successes", "1 success", "2 successes".
pub fn successes_words(n: u8) -> String {
    match n {
        0 => "no successes".into(),
        1 => "1 success".into(),
        n => format!("{n} successes"),
    }
}

fn push_card(state: &mut State, seat: Seat, c: u8, log: &mut Log) {
    log.push(|| format!("{} resolves {}", who(seat), card(c).name));
    if state.v2() {
        let extra = super::rules::extra_cost(state, seat, c);
        if extra > 0 {
            state.buttons[seat] -= extra;
            log.push(|| format!("{} pays a button to play it as an event", who(seat)));
        }
    }
    state
        .stack
        .push(Frame::new(c, Script::Card, Source::Drawn, seat));
}

/// Applies a decision to the op awaiting it.
pub fn decide(
    state: &mut State,
    seat: Seat,
    command: &Command,
    rng: &mut GameRng,
    log: &mut Log,
) -> Result<(), RuleError> {
    let Some(stop) = take_top_frame_stop(state) else {
        return illegal("nothing is awaited");
    };
    let frame = state.stack.last().expect("a frame");
    let op = &ops_of(frame)[frame.ip as usize];
    match (&stop, command) {
        (Stop::Reroll, Command::Reroll)
        | (Stop::Place { reroll: true, .. }, Command::Reroll)
        | (Stop::Remove { reroll: true, .. }, Command::Reroll) => reroll(state, rng, log),
        (Stop::Campaign, Command::Reroll) => reroll(state, rng, log),
        (Stop::Reroll, Command::Accept) => {
            log.push(|| format!("{} keeps the roll", who(seat)));
            exec(state, op, rng, log);
            Ok(())
        }
        (Stop::Place { spec, .. }, Command::Place { cubes, .. })
        | (Stop::Remove { spec, .. }, Command::Remove { cubes }) => {
            spec.check(cubes).map_err(RuleError::Illegal)?;
            let remove = matches!(command, Command::Remove { .. });
            apply_spec(state, seat, spec, cubes, remove, log);
            if state.outcome.is_none() {
                top(state).region = None;
                advance(state);
            }
            Ok(())
        }
        (Stop::States { options, count }, Command::States { states }) => {
            let mut seen = Vec::new();
            for s in states {
                if !options.contains(s) || seen.contains(s) {
                    return illegal(format!("{} is not a state you may pick", s.code()));
                }
                seen.push(*s);
            }
            if states.len() != *count {
                return illegal(format!("pick exactly {count} states"));
            }
            let Op::RemoveAllUpTo(cubes, _) = op else {
                return illegal("no states to pick");
            };
            for &s in states {
                remove_all(state, s, *cubes);
            }
            log.push(|| {
                let codes: Vec<&str> = states.iter().map(|s| s.code()).collect();
                format!("{} clears {}", who(seat), codes.join(", "))
            });
            advance(state);
            Ok(())
        }
        (
            Stop::State { options, yellow },
            Command::State {
                state: st,
                yellow: y,
            },
        ) => {
            if !options.contains(st) {
                return illegal(format!("{} is not a state you may pick", st.name()));
            }
            let y = match (yellow, y) {
                (Some(max), Some(y)) if y <= max => *y,
                (Some(0), None) | (None, None) => 0,
                (Some(max), _) => return illegal(format!("say how many of {max} are yellow")),
                (None, Some(_)) => return illegal("no cubes to colour here"),
            };
            match op {
                Op::CheckToX => {
                    state.states[st.0 as usize].mark = Some(Mark::X);
                    log.push(|| format!("{} now rejects the Amendment", st.name()));
                    state.check_victory();
                }
                Op::Reconsider => {
                    state.states[st.0 as usize].mark = None;
                    log.push(|| format!("{} reconsiders", st.name()));
                    let cubes = if seat == SUFF {
                        let mut v = vec![Cube::Purple; 2 - usize::from(y)];
                        v.extend(vec![Cube::Yellow; usize::from(y)]);
                        v
                    } else {
                        vec![Cube::Red; 2]
                    };
                    for cube in cubes {
                        state.place_cube(seat, *st, cube, log);
                    }
                }
                _ => {
                    let f = top(state);
                    f.selected = Some(*st);
                    f.yellow = y;
                    log.push(|| format!("{} selects {}", who(seat), st.name()));
                }
            }
            if state.outcome.is_none() {
                advance(state);
            }
            Ok(())
        }
        (Stop::Region { options }, Command::Region { region }) => {
            if !options.contains(region) {
                return illegal("that region has no state to take cubes");
            }
            top(state).region = Some(*region);
            log.push(|| format!("{} chooses the {}", who(seat), region.name()));
            Ok(())
        }
        (Stop::Card { options, bottom }, Command::Card { card: c }) => {
            if !options.contains(c) {
                return illegal("that card is not on offer");
            }
            let c = *c;
            match op {
                Op::PlayDrawn => {
                    top(state).cards.retain(|&x| x != c);
                    advance(state);
                    push_card(state, seat, c, log);
                }
                Op::SearchDeck => {
                    state.decks[seat].retain(|&x| x != c);
                    advance(state);
                    push_card(state, seat, c, log);
                }
                Op::Arrange if *bottom => {
                    let f = top(state);
                    f.cards.retain(|&x| x != c);
                    let below = f.on_top as usize;
                    f.on_top += 1;
                    let done = f.cards.is_empty();
                    let deck = &mut state.decks[seat];
                    deck.insert(deck.len() - below, c);
                    log.push(|| format!("{} puts a card back on top of the draw deck", who(seat)));
                    if done {
                        advance(state);
                    }
                }
                Op::CounterStrat => {
                    state.rest_of_turn.retain(|&x| x != c);
                    state.discard_card(c);
                    log.push(|| format!("{} discards {} from the box", who(seat), card(c).name));
                    advance(state);
                }
                Op::ChangeInPlans => {
                    let other = State::other(seat);
                    state.hands[other].retain(|&x| x != c);
                    state.discard_card(c);
                    state.draw(other, 1);
                    log.push(|| format!("{} must discard {}", who(other), card(c).name));
                    advance(state);
                }
                Op::SelectStrategy => {
                    take_strategy(state, seat, c, log);
                    advance(state);
                }
                _ => return illegal("no card to pick"),
            }
            Ok(())
        }
        (Stop::Card { bottom: true, .. }, Command::Bottom) => {
            let f = top(state);
            let rest = std::mem::take(&mut f.cards);
            let n = rest.len();
            for c in rest {
                state.decks[seat].insert(0, c);
            }
            log.push(|| {
                format!(
                    "{} puts {} at the bottom of the draw deck",
                    who(seat),
                    counted(n as i64, "card")
                )
            });
            advance(state);
            Ok(())
        }
        (Stop::Moves, Command::Moves { c1, c2, c3, c4 }) => {
            let own = state.campaigners_of(seat);
            let to = [c1, c2, c3, c4];
            if to.iter().filter(|r| r.is_some()).count() != own.len()
                || to[..own.len()].iter().any(|r| r.is_none())
            {
                return illegal("say where each of your campaigners goes");
            }
            for ((at, _), region) in own.iter().zip(to) {
                state.campaigners[*at].region = region.expect("checked");
            }
            log.push(|| format!("{} moves campaigners freely", who(seat)));
            advance(state);
            Ok(())
        }
        (Stop::Campaign, Command::Move { campaigner, region }) => {
            let own = state.campaigners_of(seat);
            let i = usize::from(*campaigner);
            let Some(&(at, c)) = own.get(i) else {
                return illegal("no such campaigner");
            };
            if top(state).moved.get(i).copied().unwrap_or(false) {
                return illegal("that campaigner has moved already");
            }
            if c.region == *region {
                return illegal("the campaigner is there already");
            }
            if state.buttons[seat] == 0 {
                return illegal("a move costs a button and you have none");
            }
            state.buttons[seat] -= 1;
            state.campaigners[at].region = *region;
            let f = top(state);
            f.moved.resize(own.len(), false);
            f.moved[i] = true;
            log.push(|| {
                format!(
                    "{} spends a button to move a campaigner to the {}",
                    who(seat),
                    region.name()
                )
            });
            Ok(())
        }
        (
            Stop::Campaign,
            Command::Assign {
                dice,
                c1,
                c2,
                c3,
                c4,
                ..
            },
        ) => {
            if !is_rearrangement(dice, &top(state).dice) {
                return illegal("give each campaigner one of the dice rolled");
            }
            let specs = campaign_specs(state, seat, dice);
            let counts = [c1, c2, c3, c4];
            if counts.iter().filter(|c| c.is_some()).count() != specs.len() {
                return illegal("place cubes for each campaigner");
            }
            for (spec, counts) in specs.iter().zip(counts) {
                let Some(counts) = counts else {
                    return illegal("place cubes for each campaigner");
                };
                spec.check(counts).map_err(RuleError::Illegal)?;
            }
            let fallback = !state.v2();
            for (spec, counts) in specs.iter().zip(counts) {
                apply_spec_as(
                    state,
                    seat,
                    spec,
                    counts.as_ref().expect("checked"),
                    false,
                    fallback,
                    log,
                );
            }
            if state.outcome.is_none() {
                advance(state);
            }
            Ok(())
        }
        _ => illegal(stop_words(&stop)),
    }
}

/// Whether `dice` holds the faces of `rolled` in some order: one of its [`assignments`].
fn is_rearrangement(dice: &[u8], rolled: &[u8]) -> bool {
    let times = |faces: &[u8], face: u8| faces.iter().filter(|&&f| f == face).count();
    dice.len() == rolled.len() && dice.iter().all(|&f| times(dice, f) == times(rolled, f))
}

/// What a stop asks, for a refusal.
pub fn stop_words(stop: &Stop) -> &'static str {
    match stop {
        Stop::HandCard => "play a card from your hand",
        Stop::AfterHand => "play a claimed card or end your turn",
        Stop::Commit => "commit buttons for a Strategy card",
        Stop::Answer => "defer, match or supersede",
        Stop::Card { .. } => "pick a card",
        Stop::Reroll => "reroll or keep the roll",
        Stop::Place { .. } => "place your cubes",
        Stop::Remove { .. } => "remove the cubes",
        Stop::States { .. } => "pick the states",
        Stop::State { .. } => "pick a state",
        Stop::Region { .. } => "pick a region",
        Stop::Moves => "say where your campaigners go",
        Stop::Campaign => "assign the dice and place the cubes, reroll, or move a campaigner",
    }
}
