//! The decision awaited now, computed from the state alone: the choices offer it, `apply`
//! checks a command against it, and the interpreter takes it alone when it is forced.

use super::board::Cube;
use super::data::{BoxKind, Colour, Dice, OPP, Op, Region, SUFF, St, card};
use super::fixed::state_value;
use super::state::{Frame, Mark, Phase, Script, State};
use crate::engine::{GroupCap, ParamKind, PickOption, Seat, Text};
use std::borrow::Cow;

/// One unit of a placement or removal: so many cubes of each colour into one state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The state.
    pub st: St,
    /// Purple cubes in the unit.
    pub purple: u8,
    /// Yellow cubes.
    pub yellow: u8,
    /// Red cubes.
    pub red: u8,
}

/// A cube placement or removal to allot among states.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Spec {
    /// The options.
    pub units: Vec<Unit>,
    /// The most of each option.
    pub caps: Vec<u32>,
    /// The caps of groups (a state, or a region) and their names.
    pub groups: Vec<(&'static str, u32)>,
    /// Each option's group.
    pub group_of: Vec<Option<usize>>,
    /// Units to allot in all.
    pub total: u32,
}

impl Spec {
    /// Whether the Opposition placing by this spec is asked which colour its red cubes take
    /// (rules version 3): some state it may place in holds both purple and yellow.
    pub fn asks_colour(&self, state: &State, seat: Seat) -> bool {
        asks_colour(state, seat, self.units.iter().map(|u| u.st))
    }

    /// An empty spec with room for `units` options and `groups` groups.
    fn with_capacity(units: usize, groups: usize) -> Spec {
        Spec {
            units: Vec::with_capacity(units),
            caps: Vec::with_capacity(units),
            groups: Vec::with_capacity(groups),
            group_of: Vec::with_capacity(units),
            total: 0,
        }
    }

    fn push(&mut self, unit: Unit, cap: u32, group: Option<usize>) {
        if cap > 0 {
            self.units.push(unit);
            self.caps.push(cap);
            self.group_of.push(group);
        }
    }

    fn group(&mut self, name: &'static str, cap: u32) -> usize {
        self.groups.push((name, cap));
        self.groups.len() - 1
    }

    /// The sum of `value(i)` over the options of each group, and over the options of none.
    fn group_sums(&self, value: impl Fn(usize) -> u32) -> ([u32; MAX_GROUPS], u32) {
        let mut per_group = [0u32; MAX_GROUPS];
        let mut free = 0;
        for (i, group) in self.group_of.iter().enumerate() {
            match group {
                Some(g) => per_group[*g] += value(i),
                None => free += value(i),
            }
        }
        (per_group, free)
    }

    /// The most units that fit.
    pub fn capacity(&self) -> u32 {
        let (per_group, free) = self.group_sums(|i| self.caps[i]);
        free + per_group
            .iter()
            .zip(&self.groups)
            .map(|(sum, g)| (*sum).min(g.1))
            .sum::<u32>()
    }

    fn with_total(mut self, wanted: u32) -> Spec {
        self.total = wanted.min(self.capacity());
        self.drop_unused_groups();
        self
    }

    /// Drops the groups no option belongs to, numbering the others again in order.
    fn drop_unused_groups(&mut self) {
        let mut used = [false; MAX_GROUPS];
        for &g in self.group_of.iter().flatten() {
            used[g] = true;
        }
        if used[..self.groups.len()].iter().all(|&u| u) {
            return;
        }
        let mut index = [None; MAX_GROUPS];
        let mut kept = 0;
        for g in 0..self.groups.len() {
            if used[g] {
                index[g] = Some(kept);
                self.groups[kept] = self.groups[g];
                kept += 1;
            }
        }
        self.groups.truncate(kept);
        for g in &mut self.group_of {
            *g = g.and_then(|g| index[g]);
        }
    }

    /// True when only one allotment is possible.
    pub fn forced(&self) -> bool {
        if self.total == 0 {
            return true;
        }
        let sum: u32 = self.caps.iter().sum();
        let (per_group, _) = self.group_sums(|i| self.caps[i]);
        let binding = per_group
            .iter()
            .zip(&self.groups)
            .any(|(in_group, (_, cap))| in_group > cap);
        self.total == sum && !binding
    }

    /// The only allotment, when forced.
    pub fn forced_counts(&self) -> Vec<u32> {
        if self.total == 0 {
            vec![0; self.caps.len()]
        } else {
            self.caps.clone()
        }
    }

    /// The parameter a form fills.
    pub fn param(&self) -> ParamKind {
        ParamKind::Allot {
            options: self
                .units
                .iter()
                .zip(&self.group_of)
                .map(|(u, g)| PickOption {
                    value: state_value(u.st),
                    label: unit_label(u),
                    weight: 0,
                    group: g.map(|g| self.groups[g].0.into()),
                    code: Some(unit_code(u)),
                    heading: Some(u.st.region().name().into()),
                })
                .collect(),
            total: self.total,
            caps: self.caps.clone(),
            groups: self
                .groups
                .iter()
                .map(|(group, cap)| GroupCap {
                    group: (*group).into(),
                    cap: *cap,
                })
                .collect(),
        }
    }

    /// Checks counts sent for this spec: the same rule as its [`ParamKind::Allot`], without
    /// building the parameter.
    pub fn check(&self, counts: &[u32]) -> Result<(), String> {
        if counts.len() != self.units.len() {
            return Err(format!("expected {} counts", self.units.len()));
        }
        let mut per_group = [0u32; MAX_GROUPS];
        for (i, &n) in counts.iter().enumerate() {
            if n > self.caps[i] {
                return Err(format!(
                    "at most {} on {}",
                    self.caps[i],
                    unit_label(&self.units[i])
                ));
            }
            if let Some(g) = self.group_of[i] {
                per_group[g] += n;
                if per_group[g] > self.groups[g].1 {
                    return Err(format!(
                        "at most {} on {}",
                        self.groups[g].1, self.groups[g].0
                    ));
                }
            }
        }
        let sum: u32 = counts.iter().sum();
        if sum == self.total {
            Ok(())
        } else {
            Err(format!("place {} in all; you placed {sum}", self.total))
        }
    }
}

/// The most groups of a spec: it groups by state or by region, each at most once.
const MAX_GROUPS: usize = super::data::STATES;

/// The most cubes of one colour in a unit whose label is made once, in [`UNIT_LABELS`].
const LABELLED: u8 = 8;

/// Labels made once per state: purple and yellow together, then red alone.
const LABELS_PER_STATE: usize = (LABELLED as usize + 1) * (LABELLED as usize + 2);

/// The words of every unit a placement or removal offers (purple and yellow cubes together,
/// or red cubes alone, up to [`LABELLED`] of a colour), as `write` writes them, made once
/// and kept for the life of the process: a random game builds thousands of option labels,
/// and the table itself should cost little to make.
fn unit_words(write: fn(&mut String, &Unit)) -> Vec<&'static str> {
    let units = super::data::STATES * LABELS_PER_STATE;
    let mut text = String::with_capacity(units * 24);
    let mut ends = Vec::with_capacity(units);
    let mut add = |unit: Unit| {
        write(&mut text, &unit);
        ends.push(text.len());
    };
    for st in St::all() {
        for purple in 0..=LABELLED {
            for yellow in 0..=LABELLED {
                add(Unit {
                    st,
                    purple,
                    yellow,
                    red: 0,
                });
            }
        }
        for red in 0..=LABELLED {
            add(Unit {
                st,
                purple: 0,
                yellow: 0,
                red,
            });
        }
    }
    let text: &'static str = String::leak(text);
    let mut start = 0;
    ends.into_iter()
        .map(|end| {
            let words = &text[start..end];
            start = end;
            words
        })
        .collect()
}

/// Where [`unit_words`] keeps the words of `u`, if it does.
fn unit_at(u: &Unit) -> Option<usize> {
    let n = usize::from(LABELLED) + 1;
    let at = match (u.purple, u.yellow, u.red) {
        (p, y, 0) if p.max(y) <= LABELLED => usize::from(p) * n + usize::from(y),
        (0, 0, r) if r <= LABELLED => n * n + usize::from(r),
        _ => return None,
    };
    Some(usize::from(u.st.0) * LABELS_PER_STATE + at)
}

/// The label of every unit a placement or removal offers, made once.
static UNIT_LABELS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| unit_words(write_unit_label));

/// The codes of the units of [`UNIT_LABELS`], in the same order, made once.
static UNIT_CODES: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| unit_words(write_unit_code));

/// A unit's words in a form ("California: 1 purple").
pub fn unit_label(u: &Unit) -> Text {
    match unit_at(u) {
        Some(at) => UNIT_LABELS[at].into(),
        None => {
            let mut label = String::new();
            write_unit_label(&mut label, u);
            label.into()
        }
    }
}

/// A unit's code for a reply: the state's code and its cubes, a letter per colour with the
/// count before it unless the unit is one cube ("NY-P", "NY-2P", "NY-1P1Y", "GA-2R").
pub fn unit_code(u: &Unit) -> Text {
    match unit_at(u) {
        Some(at) => UNIT_CODES[at].into(),
        None => {
            let mut code = String::new();
            write_unit_code(&mut code, u);
            code.into()
        }
    }
}

/// Writes `n` in decimal, without the formatting machinery: the tables write thousands.
fn push_count(out: &mut String, n: u8) {
    if n >= 100 {
        out.push(char::from(b'0' + n / 100));
    }
    if n >= 10 {
        out.push(char::from(b'0' + n / 10 % 10));
    }
    out.push(char::from(b'0' + n % 10));
}

fn write_unit_code(out: &mut String, u: &Unit) {
    let parts = [(u.purple, 'P'), (u.yellow, 'Y'), (u.red, 'R')];
    let present = || parts.into_iter().filter(|(n, _)| *n > 0);
    out.push_str(u.st.code());
    out.push('-');
    let mut one = present();
    if let (Some((1, letter)), None) = (one.next(), one.next()) {
        out.push(letter);
        return;
    }
    for (n, letter) in present() {
        push_count(out, n);
        out.push(letter);
    }
}

fn write_unit_label(out: &mut String, u: &Unit) {
    out.push_str(u.st.name());
    out.push_str(": ");
    let parts = [(u.purple, "purple"), (u.yellow, "yellow"), (u.red, "red")];
    for (i, (n, colour)) in parts.into_iter().filter(|(n, _)| *n > 0).enumerate() {
        if i > 0 {
            out.push_str(" + ");
        }
        push_count(out, n);
        out.push(' ');
        out.push_str(colour);
    }
}

/// Single cubes of `seat` (of `colour` when fixed) into `states`, at most `max` in one state.
pub fn units_spec(
    state: &State,
    seat: Seat,
    states: &[St],
    max: u32,
    colour: Option<Cube>,
    wanted: u32,
) -> Spec {
    let mut spec = Spec::with_capacity(2 * states.len(), states.len());
    for &st in states {
        let cap = state.room(seat, st).min(max);
        if cap == 0 {
            continue;
        }
        let unit = |p: u8, y: u8, r: u8| Unit {
            st,
            purple: p,
            yellow: y,
            red: r,
        };
        match colour {
            Some(Cube::Purple) => spec.push(unit(1, 0, 0), cap, None),
            Some(Cube::Yellow) => spec.push(unit(0, 1, 0), cap, None),
            _ if seat != SUFF => spec.push(unit(0, 0, 1), cap, None),
            _ => {
                let g = spec.group(st.code(), cap);
                spec.push(unit(1, 0, 0), cap, Some(g));
                spec.push(unit(0, 1, 0), cap, Some(g));
            }
        }
    }
    spec.with_total(wanted)
}

/// Bundles of `n` cubes: one into each listed state (`per_region`: one state of each
/// region), the Suffragist choosing how many of each bundle are yellow.
pub fn bundle_spec(
    state: &State,
    seat: Seat,
    targets: impl Iterator<Item = (St, u8)>,
    per_region: bool,
) -> Spec {
    let (len, _) = targets.size_hint();
    let mut spec = Spec::with_capacity(len, len);
    let mut region_group = [None; Region::ALL.len()];
    let mut wanted = 0;
    for (st, n) in targets {
        if state.room(seat, st) == 0 || n == 0 {
            continue;
        }
        let g = if per_region {
            let r = st.region() as usize;
            if region_group[r].is_none() {
                region_group[r] = Some(spec.group(st.region().name(), 1));
                wanted += 1;
            }
            region_group[r].unwrap()
        } else {
            wanted += 1;
            spec.group(st.code(), 1)
        };
        if seat == SUFF {
            for yellow in 0..=n {
                let unit = Unit {
                    st,
                    purple: n - yellow,
                    yellow,
                    red: 0,
                };
                spec.push(unit, 1, Some(g));
            }
        } else {
            let unit = Unit {
                st,
                purple: 0,
                yellow: 0,
                red: n,
            };
            spec.push(unit, 1, Some(g));
        }
    }
    spec.with_total(wanted)
}

/// Removal of up to `wanted` cubes of the given colours, at most `max` from one state.
pub fn removal_spec(state: &State, colours: &[Cube], max: u32, wanted: u32) -> Spec {
    let mut spec = Spec::default();
    for st in St::all() {
        let c = &state.states[st.0 as usize];
        let counts = || {
            colours
                .iter()
                .map(|&cube| {
                    let n = match cube {
                        Cube::Purple => c.purple,
                        Cube::Yellow => c.yellow,
                        Cube::Red => c.red,
                    };
                    (cube, n)
                })
                .filter(|(_, n)| *n > 0)
        };
        let present = counts().count();
        if present == 0 {
            continue;
        }
        let g = (present > 1).then(|| spec.group(st.code(), max));
        for (cube, n) in counts() {
            let unit = Unit {
                st,
                purple: u8::from(cube == Cube::Purple),
                yellow: u8::from(cube == Cube::Yellow),
                red: u8::from(cube == Cube::Red),
            };
            spec.push(unit, u32::from(n).min(max), g);
        }
    }
    spec.with_total(wanted)
}

/// The decision awaited.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// Play a card from the hand (or a claimed card first).
    HandCard,
    /// Play a claimed card, or end the turn.
    AfterHand,
    /// The Suffragist commits.
    Commit,
    /// The Opposition answers the commitment.
    Answer,
    /// Take one of these cards (Strategy pick, drawn card, box card...); `bottom`: the rest
    /// may go to the bottom of the deck instead.
    Card { options: Vec<u8>, bottom: bool },
    /// Reroll, or keep (`accept`) the roll.
    Reroll,
    /// Place cubes; `reroll`: the roll that counted them may be rolled again.
    Place { spec: Spec, reroll: bool },
    /// Remove cubes.
    Remove { spec: Spec, reroll: bool },
    /// Pick exactly `count` of these states.
    States { options: Vec<St>, count: usize },
    /// Pick one of these states; `yellow`: the Suffragist says how many of so many cubes are
    /// yellow.
    State {
        options: Vec<St>,
        yellow: Option<u8>,
    },
    /// Pick a region.
    Region { options: Vec<Region> },
    /// Move each campaigner for free.
    Moves,
    /// Campaigning: reroll, move, or assign the dice and place.
    Campaign,
}

/// The decision the top frame awaits, kept from the end of the command that left it there.
/// Every change of a state goes through setup or `apply`, which sets or clears it; debug
/// builds (the tests) check it against the decision worked out afresh.
#[derive(Clone, Debug, Default)]
pub struct Awaited(Option<Stop>);

impl PartialEq for Awaited {
    fn eq(&self, _: &Awaited) -> bool {
        true
    }
}

impl Awaited {
    /// Keeps `stop` as the top frame's decision.
    pub fn keep(&mut self, stop: Stop) {
        self.0 = Some(stop);
    }
}

/// The top frame's decision, taken out of the state (which is about to change): the kept one
/// if any, else worked out.
pub fn take_top_frame_stop(state: &mut State) -> Option<Stop> {
    let kept = state.awaited.0.take();
    let frame = state.stack.last()?;
    match kept {
        Some(kept) => {
            debug_assert_eq!(
                Some(&kept),
                frame_stop(state, frame).as_ref(),
                "the kept decision is stale"
            );
            Some(kept)
        }
        None => frame_stop(state, frame),
    }
}

/// The top frame's decision: the kept one if any, else worked out.
fn top_frame_stop<'a>(state: &'a State, frame: &Frame) -> Option<Cow<'a, Stop>> {
    match &state.awaited.0 {
        Some(kept) => {
            debug_assert_eq!(
                Some(kept),
                frame_stop(state, frame).as_ref(),
                "the kept decision is stale"
            );
            Some(Cow::Borrowed(kept))
        }
        None => frame_stop(state, frame).map(Cow::Owned),
    }
}

/// Whose decision it is, without working out the decision: after every command the top
/// frame, if any, awaits one.
pub fn awaited(state: &State) -> Option<Seat> {
    if state.outcome.is_some() {
        return None;
    }
    if let Some(frame) = state.stack.last() {
        return Some(frame.seat);
    }
    match state.phase {
        Phase::Over => None,
        Phase::StrategyCommit | Phase::StrategyPick => Some(SUFF),
        Phase::StrategyAnswer => Some(1),
        Phase::Operations => Some(state.to_play),
        Phase::FinalVoting => Some(match &state.vote {
            Some(vote) => vote_loser(state, vote),
            None => state.chooser,
        }),
    }
}

/// Whose decision it is, and what.
pub fn stop(state: &State) -> Option<(Seat, Stop)> {
    awaited_stop(state).map(|(seat, stop)| (seat, stop.into_owned()))
}

/// Whose decision it is, and what, borrowed from the state where it was kept.
pub fn awaited_stop(state: &State) -> Option<(Seat, Cow<'_, Stop>)> {
    if state.outcome.is_some() {
        return None;
    }
    if let Some(frame) = state.stack.last() {
        return top_frame_stop(state, frame).map(|s| (frame.seat, s));
    }
    let turn_stop = |seat: Seat, stop: Stop| Some((seat, Cow::Owned(stop)));
    match state.phase {
        Phase::Over => None,
        Phase::StrategyCommit => turn_stop(SUFF, Stop::Commit),
        Phase::StrategyAnswer => turn_stop(1, Stop::Answer),
        Phase::StrategyPick => turn_stop(
            SUFF,
            Stop::Card {
                options: state.strategy_face_up.clone(),
                bottom: false,
            },
        ),
        Phase::Operations if !state.hand_done => turn_stop(state.to_play, Stop::HandCard),
        Phase::Operations => turn_stop(state.to_play, Stop::AfterHand),
        Phase::FinalVoting => match &state.vote {
            Some(vote) => turn_stop(vote_loser(state, vote), Stop::Reroll),
            None => turn_stop(
                state.chooser,
                Stop::State {
                    options: St::all()
                        .filter(|s| state.states[s.0 as usize].mark.is_none())
                        .collect(),
                    yellow: None,
                },
            ),
        },
    }
}

/// Who is losing the vote now.
pub fn vote_loser(state: &State, vote: &super::state::Vote) -> Seat {
    let (s, o) = vote_totals(state, vote);
    let febb = state.final_voting.contains(&52);
    if s > o || (s == o && febb) { 1 } else { SUFF }
}

/// Each side's total in the vote: die plus own cubes in the state.
pub fn vote_totals(state: &State, vote: &super::state::Vote) -> (u32, u32) {
    let c = &state.states[vote.state.0 as usize];
    (
        u32::from(vote.dice[0]) + u32::from(c.purple + c.yellow),
        u32::from(vote.dice[1]) + u32::from(c.red),
    )
}

/// Whether the losing side may still turn the vote with a reroll.
pub fn vote_reroll_open(state: &State, vote: &super::state::Vote) -> bool {
    let loser = vote_loser(state, vote);
    if state.buttons[loser] == 0 {
        return false;
    }
    let c = &state.states[vote.state.0 as usize];
    let (s, o) = vote_totals(state, vote);
    let best = u32::from(vote.sides[loser]) + u32::from(c.of(loser));
    let febb = state.final_voting.contains(&52);
    if loser == SUFF {
        best > o || (best == o && febb)
    } else {
        best > s || (best == s && !febb)
    }
}

/// The ops a frame runs.
pub fn ops_of(frame: &Frame) -> &'static [Op] {
    static CAMPAIGN: [Op; 1] = [Op::Campaign];
    static ORGANIZE: [Op; 1] = [Op::Organize];
    static LOBBY: [Op; 1] = [Op::Lobby];
    match frame.script {
        Script::Card => &card(frame.card).ops,
        Script::Campaign => &CAMPAIGN,
        Script::Organize => &ORGANIZE,
        Script::Lobby => &LOBBY,
    }
}

/// Congressional markers a side's successes can still move.
pub fn congress_room(state: &State, seat: Seat) -> usize {
    if state.amendment_sent {
        0
    } else if seat == SUFF {
        usize::from(6 - state.congress)
    } else {
        usize::from(state.congress)
    }
}

/// Dice showing 6 or more.
pub fn sixes(dice: &[u8]) -> usize {
    dice.iter().filter(|&&d| d >= 6).count()
}

/// The amount an op's count stands for.
pub fn amount(state: &State, frame: &Frame, amount: super::data::Amount) -> u32 {
    use super::data::Amount;
    match amount {
        Amount::Fixed(n) => u32::from(n),
        Amount::RollTotal => frame.dice.iter().map(|&d| u32::from(d)).sum(),
        Amount::Sixes => sixes(&frame.dice) as u32,
        Amount::HalfOpponentButtons => {
            u32::from(state.buttons[State::other(frame.seat)]).div_ceil(2)
        }
    }
}

/// Campaigning dice for a side: d6 while one of its own "d6" cards is in the rest-of-turn box.
pub fn campaign_dice(state: &State, seat: Seat) -> Dice {
    let own: &[u8] = if seat == SUFF {
        &[2, 33, 43]
    } else {
        &[68, 81, 92]
    };
    Dice {
        count: state.campaigner_count(seat),
        sides: if own.iter().any(|c| state.rest_of_turn.contains(c)) {
            6
        } else {
            4
        },
    }
}

/// States a Reconsideration by `seat` may target.
pub fn reconsider_targets(state: &State, seat: Seat) -> Vec<St> {
    St::all()
        .filter(|&s| reconsiderable(state, seat, s))
        .collect()
}

/// Whether a Reconsideration by `seat` has a state to target.
pub fn any_reconsider_target(state: &State, seat: Seat) -> bool {
    St::all().any(|s| reconsiderable(state, seat, s))
}

fn reconsiderable(state: &State, seat: Seat, st: St) -> bool {
    let want = if seat == SUFF { Mark::X } else { Mark::Check };
    state.states[st.0 as usize].mark == Some(want) && !state.civil_war_bars(seat, st)
}

/// States holding a check.
pub fn check_states(state: &State) -> Vec<St> {
    St::all()
        .filter(|&s| state.states[s.0 as usize].mark == Some(Mark::Check))
        .collect()
}

/// Whether a state holds a check.
pub fn any_check(state: &State) -> bool {
    state.states.iter().any(|c| c.mark == Some(Mark::Check))
}

/// The Suffragist's yellow question for the next selected-state placement, if any.
fn selected_count(frame: &Frame) -> u8 {
    ops_of(frame)[frame.ip as usize..]
        .iter()
        .find_map(|op| match op {
            Op::PlaceSelected(n) => Some(*n),
            _ => None,
        })
        .unwrap_or(0)
}

/// Whether a roll could still come out better: not every die shows its top face.
fn can_improve(frame: &Frame) -> bool {
    frame.dice.iter().any(|&d| d < frame.sides)
}

/// The decision the top frame's current op awaits, if any (the op has been entered). An op
/// with nothing to choose from awaits nothing.
pub fn frame_stop(state: &State, frame: &Frame) -> Option<Stop> {
    raw_frame_stop(state, frame).filter(|stop| match stop {
        Stop::Card { options, bottom } => *bottom || !options.is_empty(),
        Stop::States { count, .. } => *count > 0,
        Stop::State { options, .. } => !options.is_empty(),
        Stop::Place { spec, reroll } | Stop::Remove { spec, reroll } => spec.total > 0 || *reroll,
        _ => true,
    })
}

fn raw_frame_stop(state: &State, frame: &Frame) -> Option<Stop> {
    let seat = frame.seat;
    let op = ops_of(frame).get(frame.ip as usize)?;
    let buttons = state.buttons[seat];
    let reroll = frame.reroll_open && buttons > 0 && can_improve(frame);
    match op {
        Op::RollForSuccess(_) => (frame.dice[0] < 3 && buttons > 0).then_some(Stop::Reroll),
        Op::RollSixes(_) | Op::Lobby => {
            let room = congress_room(state, seat).min(frame.dice.len());
            (buttons > 0 && sixes(&frame.dice) < room).then_some(Stop::Reroll)
        }
        Op::PlaceFixed(list) => Some(Stop::Place {
            spec: bundle_spec(state, seat, list.iter().copied(), false),
            reroll: false,
        }),
        Op::PlaceOnePerRegion(n) => Some(Stop::Place {
            spec: bundle_spec(state, seat, St::all().map(|s| (s, *n)), true),
            reroll: false,
        }),
        Op::PlaceLimit { count, max, states } => {
            let wanted = amount(state, frame, *count);
            let spec = units_spec(state, seat, states, u32::from(*max), None, wanted);
            let reroll = reroll && spec.total < spec.capacity();
            Some(Stop::Place { spec, reroll })
        }
        Op::PlaceRegion(n) => match frame.region {
            None => {
                let options: Vec<Region> = Region::ALL
                    .into_iter()
                    .filter(|r| r.states().any(|s| state.room(seat, s) > 0))
                    .collect();
                (!options.is_empty()).then_some(Stop::Region { options })
            }
            Some(region) => Some(Stop::Place {
                spec: bundle_spec(state, seat, region.states().map(|s| (s, *n)), false),
                reroll: false,
            }),
        },
        Op::RemoveLimit { cubes, count, max } => {
            let colours: &[Cube] = match cubes {
                super::data::Cubes::Red => &[Cube::Red],
                super::data::Cubes::Purple => &[Cube::Purple],
                super::data::Cubes::Yellow => &[Cube::Yellow],
                super::data::Cubes::Suffragist => &[Cube::Purple, Cube::Yellow],
            };
            let wanted = amount(state, frame, *count);
            let spec = removal_spec(state, colours, u32::from(*max), wanted);
            let reroll = reroll && spec.total < spec.capacity();
            Some(Stop::Remove { spec, reroll })
        }
        Op::RemoveAllUpTo(cubes, n) => {
            let options: Vec<St> = St::all()
                .filter(|s| {
                    let c = &state.states[s.0 as usize];
                    match cubes {
                        super::data::Cubes::Purple => c.purple > 0,
                        super::data::Cubes::Yellow => c.yellow > 0,
                        super::data::Cubes::Red => c.red > 0,
                        super::data::Cubes::Suffragist => c.purple + c.yellow > 0,
                    }
                })
                .collect();
            let count = usize::from(*n).min(options.len());
            Some(Stop::States { options, count })
        }
        Op::CheckToX => Some(Stop::State {
            options: check_states(state),
            yellow: None,
        }),
        Op::Reconsider => Some(Stop::State {
            options: reconsider_targets(state, seat),
            yellow: (seat == SUFF).then_some(2),
        }),
        Op::SelectState => Some(Stop::State {
            options: St::all().filter(|&s| state.room(seat, s) > 0).collect(),
            yellow: (seat == SUFF).then(|| selected_count(frame)),
        }),
        Op::PlayDrawn => Some(Stop::Card {
            options: frame
                .cards
                .iter()
                .copied()
                .filter(|&c| super::rules::playable(state, seat, c, state.v2()))
                .collect(),
            bottom: false,
        }),
        Op::Arrange => (!frame.cards.is_empty()).then(|| Stop::Card {
            options: frame.cards.clone(),
            bottom: true,
        }),
        Op::SearchDeck => {
            let mut options: Vec<u8> = state.decks[seat]
                .iter()
                .copied()
                .filter(|&c| super::rules::playable(state, seat, c, state.v2()))
                .collect();
            options.sort_unstable();
            Some(Stop::Card {
                options,
                bottom: false,
            })
        }
        Op::CounterStrat => Some(Stop::Card {
            options: state.boxed(BoxKind::RestOfTurn).clone(),
            bottom: false,
        }),
        Op::ChangeInPlans => {
            let mut options: Vec<u8> = state.hands[State::other(seat)]
                .iter()
                .copied()
                .filter(|&c| !card(c).campaigner)
                .collect();
            options.sort_unstable();
            Some(Stop::Card {
                options,
                bottom: false,
            })
        }
        Op::SelectStrategy => Some(Stop::Card {
            options: state.strategy_face_up.clone(),
            bottom: false,
        }),
        Op::FreeMoves => (state.campaigner_count(seat) > 0).then_some(Stop::Moves),
        Op::Campaign => {
            (state.campaigner_count(seat) > 0 && !frame.dice.is_empty()).then_some(Stop::Campaign)
        }
        _ => None,
    }
}

/// The campaigners' cube colours, in campaigner order.
pub fn campaign_colours(state: &State, seat: Seat) -> Vec<(Cube, Region)> {
    state
        .campaigners
        .iter()
        .filter(|c| c.seat() == seat)
        .map(|c| {
            (
                match c.colour {
                    Colour::Purple => Cube::Purple,
                    Colour::Yellow => Cube::Yellow,
                    Colour::Red => Cube::Red,
                },
                c.region,
            )
        })
        .collect()
}

/// The distinct ways to hand out the dice, one per campaigner, in ascending order.
pub fn assignments(dice: &[u8]) -> Vec<Vec<u8>> {
    let mut way = dice.to_vec();
    way.sort_unstable();
    let mut out = Vec::with_capacity(way.len().max(1));
    loop {
        out.push(way.clone());
        if !next_permutation(&mut way) {
            return out;
        }
    }
}

/// Rearranges `items` into the next greater permutation; false (leaving them as they are)
/// when they are the greatest.
fn next_permutation(items: &mut [u8]) -> bool {
    let Some(i) = items.windows(2).rposition(|w| w[0] < w[1]) else {
        return false;
    };
    let j = items
        .iter()
        .rposition(|&x| x > items[i])
        .expect("a greater item follows");
    items.swap(i, j);
    items[i + 1..].reverse();
    true
}

/// A campaigner's placement with `die` cubes in its region.
pub fn campaign_spec(state: &State, seat: Seat, cube: Cube, region: Region, die: u8) -> Spec {
    let mut in_region = region.states();
    let states: [St; 8] = std::array::from_fn(|_| in_region.next().expect("eight states"));
    units_spec(
        state,
        seat,
        &states,
        u32::from(die),
        (seat == SUFF).then_some(cube),
        u32::from(die),
    )
}

/// Whether the Opposition placing red cubes in any of `states` is asked which Suffragist colour
/// they take (rules version 3): one of them holds both purple and yellow.
pub fn asks_colour(state: &State, seat: Seat, states: impl IntoIterator<Item = St>) -> bool {
    seat == OPP
        && state.v3()
        && states.into_iter().any(|st| {
            let c = &state.states[st.0 as usize];
            c.purple > 0 && c.yellow > 0 && state.room(seat, st) > 0
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seed;
    use crate::engine::testing::random_midgame;
    use crate::games::votes_for_women::{Options, VotesForWomen};

    /// A state whose top effect awaits a decision, kept by the command that led there.
    fn awaiting_an_effect() -> State {
        (0..)
            .flat_map(|seed| [30, 60, 90].map(move |steps| (seed, steps)))
            .map(|(seed, steps)| {
                random_midgame::<VotesForWomen>(
                    Options::default(),
                    2,
                    Seed::from_number(seed),
                    steps,
                )
                .state
            })
            .find(|state| state.awaited.0.is_some())
            .expect("some random game stops inside an effect")
    }

    #[test]
    fn the_kept_decision_is_the_one_worked_out_afresh() {
        let mut state = awaiting_an_effect();
        let kept = stop(&state);
        state.awaited = Awaited::default();
        assert_eq!(kept, stop(&state));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "the kept decision is stale")]
    fn a_stale_kept_decision_is_caught_in_debug_builds() {
        let mut state = awaiting_an_effect();
        let other = match stop(&state) {
            Some((_, Stop::Moves)) => Stop::Campaign,
            _ => Stop::Moves,
        };
        state.awaited.keep(other);
        let _ = stop(&state);
    }

    #[test]
    fn no_placement_names_a_state_twice() {
        // A spec has at most one group per state named, so its groups fit in MAX_GROUPS.
        for id in 1..=128 {
            for op in &card(id).ops {
                let mut states: Vec<St> = match op {
                    Op::PlaceFixed(list) => list.iter().map(|(st, _)| *st).collect(),
                    Op::PlaceLimit { states, .. } => states.clone(),
                    _ => continue,
                };
                let named = states.len();
                states.sort_unstable();
                states.dedup();
                assert_eq!(states.len(), named, "card {id} names a state twice");
                assert!(named <= MAX_GROUPS);
            }
        }
    }

    /// Every permutation, sorted, duplicates dropped: the ways to hand out the dice, found
    /// the long way.
    fn assignments_afresh(dice: &[u8]) -> Vec<Vec<u8>> {
        fn permute(items: &mut Vec<u8>, k: usize, out: &mut Vec<Vec<u8>>) {
            if k == items.len() {
                out.push(items.clone());
                return;
            }
            for i in k..items.len() {
                items.swap(k, i);
                permute(items, k + 1, out);
                items.swap(k, i);
            }
        }
        let mut out = Vec::new();
        permute(&mut dice.to_vec(), 0, &mut out);
        out.sort();
        out.dedup();
        out
    }

    #[test]
    fn the_ways_to_hand_out_dice_are_every_distinct_permutation_in_order() {
        let mut dice = Vec::new();
        for n in 0..=4 {
            for code in 0..4u32.pow(n) {
                dice.clear();
                dice.extend((0..n).map(|k| (code / 4u32.pow(k) % 4) as u8 + 1));
                assert_eq!(assignments(&dice), assignments_afresh(&dice), "{dice:?}");
            }
        }
    }

    /// A unit's label as `format!` words it.
    fn label_afresh(u: &Unit) -> String {
        use std::fmt::Write;
        let mut label = format!("{}: ", u.st.name());
        let parts = [(u.purple, "purple"), (u.yellow, "yellow"), (u.red, "red")];
        for (i, (n, colour)) in parts.into_iter().filter(|(n, _)| *n > 0).enumerate() {
            let join = if i > 0 { " + " } else { "" };
            write!(label, "{join}{n} {colour}").unwrap();
        }
        label
    }

    /// A unit's code as `format!` words it.
    fn code_afresh(u: &Unit) -> String {
        let parts = [(u.purple, 'P'), (u.yellow, 'Y'), (u.red, 'R')];
        let present: Vec<(u8, char)> = parts.into_iter().filter(|(n, _)| *n > 0).collect();
        let mut code = format!("{}-", u.st.code());
        match present.as_slice() {
            [(1, letter)] => code.push(*letter),
            _ => {
                for (n, letter) in present {
                    code.push_str(&format!("{n}{letter}"));
                }
            }
        }
        code
    }

    #[test]
    fn a_label_made_once_reads_as_one_made_afresh() {
        let counts = (0..=10).chain([99, 100, 255]);
        for st in St::all() {
            for purple in counts.clone() {
                for yellow in counts.clone() {
                    for red in counts.clone() {
                        let unit = Unit {
                            st,
                            purple,
                            yellow,
                            red,
                        };
                        assert_eq!(unit_label(&unit), label_afresh(&unit));
                        assert_eq!(unit_code(&unit), code_afresh(&unit));
                    }
                }
            }
        }
        let big = Unit {
            st: St(0),
            purple: 9,
            yellow: 0,
            red: 0,
        };
        assert_eq!(unit_label(&big), format!("{}: 9 purple", St(0).name()));
        let mixed = Unit { yellow: 2, ..big };
        let name = St(0).name();
        assert_eq!(unit_label(&mixed), format!("{name}: 9 purple + 2 yellow"));
        let both = Unit {
            purple: 3,
            yellow: 5,
            ..big
        };
        assert_eq!(unit_label(&both), format!("{name}: 3 purple + 5 yellow"));
    }
}
