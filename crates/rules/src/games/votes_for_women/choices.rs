//! The decisions open to a seat as generic choices, and the cautious move the clock plays.

use super::board::Cube;
use super::data::Region;
use super::data::SUFF;
use super::fixed::{
    assign_command, campaigner_prompt, campaigner_words, card_label, card_value, fixed_command,
    move_label, region_value, state_value,
};
use super::rules::{self, claimed_options, hand_options, max_commit};
use super::state::{Action, Phase, State, TakeFirst};
use super::stops::{
    Stop, Unit, assignments, awaited_stop, campaign_colours, unit_code, unit_label,
};
use crate::engine::log::count;
use crate::engine::{Choice, Json, Param, ParamKind, PickOption, Seat, Text};
use serde_json::{Value, json};

fn card_options(cards: &[u8]) -> Vec<PickOption> {
    cards
        .iter()
        .map(|&c| PickOption::fixed(card_value(c), card_label(c)))
        .collect()
}

fn one(options: Vec<PickOption>) -> ParamKind {
    ParamKind::One { options }
}

fn region_options(regions: impl Iterator<Item = Region>) -> Vec<PickOption> {
    regions
        .map(|r| PickOption::fixed(region_value(r), r.name()))
        .collect()
}

fn state_options(states: &[super::data::St]) -> Vec<PickOption> {
    states
        .iter()
        .map(|&s| PickOption::fixed(state_value(s), s.name()))
        .collect()
}

/// The cards `seat` may play from the hand, by action in the choices' order, the actions
/// with none left out. Discarding is open only when no other play is: the other four lists
/// decide it, as in `hand_options`, without working them out again.
pub(super) fn hand_plays(state: &State, seat: Seat) -> Vec<(Action, Vec<u8>)> {
    let mut plays = Vec::with_capacity(4);
    for action in [
        Action::Event,
        Action::Campaign,
        Action::Organize,
        Action::Lobby,
    ] {
        let cards = hand_options(state, seat, action);
        if !cards.is_empty() {
            plays.push((action, cards));
        }
    }
    if plays.is_empty() && !state.hands[seat].is_empty() {
        plays.push((Action::Discard, state.hands[seat].clone()));
    }
    plays
}

/// The choices of `seat` now; empty when it is not awaited.
pub fn for_seat(state: &State, seat: Seat) -> Vec<Choice> {
    let Some((awaited, stop)) = awaited_stop(state) else {
        return Vec::new();
    };
    if awaited != seat {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(8);
    let claimed = |out: &mut Vec<Choice>, label: &'static str| {
        let cards = claimed_options(state, seat);
        if !cards.is_empty() {
            out.push(
                Choice::fixed(label, fixed_command!({"type": "claimed"})).with_param(
                    "card",
                    "Which claimed card?",
                    one(card_options(&cards)),
                ),
            );
        }
    };
    match stop.as_ref() {
        Stop::HandCard => {
            for (action, cards) in hand_plays(state, seat) {
                let (label, command) = match action {
                    Action::Event => (
                        "Play a card as an event",
                        fixed_command!({"type": "play", "action": "event"}),
                    ),
                    Action::Campaign => (
                        "Play a card for Campaigning",
                        fixed_command!({"type": "play", "action": "campaign"}),
                    ),
                    Action::Organize => (
                        "Play a card for Organizing",
                        fixed_command!({"type": "play", "action": "organize"}),
                    ),
                    Action::Lobby => (
                        "Play a card for Lobbying",
                        fixed_command!({"type": "play", "action": "lobby"}),
                    ),
                    Action::Discard => (
                        "Discard a card for no effect (nothing else is open)",
                        fixed_command!({"type": "play", "action": "discard"}),
                    ),
                };
                out.push(Choice::fixed(label, command).with_param(
                    "card",
                    "Which card?",
                    one(card_options(&cards)),
                ));
            }
            claimed(&mut out, "Play a claimed card first");
        }
        Stop::AfterHand => {
            claimed(&mut out, "Play a claimed card");
            out.push(Choice::fixed(
                "End your turn",
                fixed_command!({"type": "end_turn"}),
            ));
        }
        Stop::Commit => {
            let opp = state.buttons[1];
            let max = max_commit(state);
            out.push(
                Choice::fixed("Commit buttons", fixed_command!({"type": "commit"})).with_param(
                    "buttons",
                    "How many buttons?",
                    ParamKind::Number {
                        min: 0,
                        max: i64::from(max.min(opp)),
                        step: 1,
                    },
                ),
            );
            if max > opp {
                out.push(
                    Choice::action(
                        format!(
                            "Commit {}: the Opposition cannot match",
                            count(opp + 1, "button")
                        ),
                        json!({"type": "commit", "buttons": opp + 1}),
                    )
                    .with_param(
                        "card",
                        "Which Strategy card?",
                        one(card_options(&state.strategy_face_up)),
                    ),
                );
            }
        }
        Stop::Answer => {
            let n = state.commitment.map_or(0, |c| c.buttons);
            if rules::defer_open(state) {
                out.push(Choice::fixed(
                    format!(
                        "Defer: the Suffragist pays {} and takes a Strategy card",
                        count(n, "button")
                    ),
                    fixed_command!({"type": "defer"}),
                ));
            }
            out.push(Choice::fixed(
                if n == 0 {
                    "Match: nobody pays, nobody takes a card".to_string()
                } else {
                    format!(
                        "Match: both pay {}, nobody takes a card",
                        count(n, "button")
                    )
                },
                fixed_command!({"type": "match"}),
            ));
            if state.buttons[1] > n {
                out.push(
                    Choice::fixed(
                        format!(
                            "Supersede: pay {} and take a Strategy card",
                            count(n + 1, "button")
                        ),
                        fixed_command!({"type": "supersede"}),
                    )
                    .with_param(
                        "card",
                        "Which Strategy card?",
                        one(card_options(&state.strategy_face_up)),
                    ),
                );
            }
        }
        Stop::Card { options, bottom } => {
            let label = if state.phase == Phase::StrategyPick && state.stack.is_empty() {
                "Take a Strategy card"
            } else if *bottom {
                "Put a card back on top (the first one put back is the top card)"
            } else {
                "Pick a card"
            };
            out.push(
                Choice::fixed(label, fixed_command!({"type": "card"})).with_param(
                    "card",
                    "Which card?",
                    one(card_options(options)),
                ),
            );
            if *bottom {
                out.push(Choice::fixed(
                    "Put the rest at the bottom of the draw deck",
                    fixed_command!({"type": "bottom"}),
                ));
            }
        }
        Stop::Reroll => {
            out.push(Choice::fixed(
                "Reroll (1 button)",
                fixed_command!({"type": "reroll"}),
            ));
            out.push(Choice::fixed(
                "Keep the roll",
                fixed_command!({"type": "accept"}),
            ));
        }
        Stop::Place { spec, reroll } | Stop::Remove { spec, reroll } => {
            let (command, label) = if matches!(stop.as_ref(), Stop::Place { .. }) {
                (fixed_command!({"type": "place"}), "Place the cubes")
            } else {
                (fixed_command!({"type": "remove"}), "Remove the cubes")
            };
            let verb = if matches!(stop.as_ref(), Stop::Place { .. }) {
                "Place"
            } else {
                "Remove"
            };
            let sets = spec.units.iter().any(|u| u.purple + u.yellow + u.red > 1);
            let prompt = match spec.total {
                n if sets => format!("{verb} cubes in {n} states"),
                1 => format!("{verb} 1 cube in all"),
                n => format!("{verb} {n} cubes in all"),
            };
            let mut choice =
                Choice::fixed(label, command).with_param("cubes", prompt, spec.param());
            if matches!(stop.as_ref(), Stop::Place { .. }) && spec.asks_colour(state, seat) {
                choice = with_takes(choice);
            }
            out.push(choice);
            if *reroll {
                out.push(Choice::fixed(
                    "Reroll the dice (1 button)",
                    fixed_command!({"type": "reroll"}),
                ));
            }
        }
        Stop::States { options, count } => {
            let options = state_options(options);
            out.push(
                Choice::fixed("Pick the states", fixed_command!({"type": "states"})).with_param(
                    "states",
                    "Which states?",
                    ParamKind::Pick {
                        options,
                        min: *count,
                        max: *count,
                        rule: Default::default(),
                    },
                ),
            );
        }
        Stop::State { options, yellow } => {
            let mut choice = Choice::fixed("Pick a state", fixed_command!({"type": "state"}))
                .with_param("state", "Which state?", one(state_options(options)));
            if let Some(max) = yellow.filter(|m| *m > 0) {
                choice = choice.with_param(
                    "yellow",
                    format!("How many of the {max} cubes are yellow (the rest purple)?"),
                    ParamKind::Number {
                        min: 0,
                        max: i64::from(max),
                        step: 1,
                    },
                );
            }
            out.push(choice);
        }
        Stop::Region { options } => out.push(
            Choice::fixed("Pick a region", fixed_command!({"type": "region"})).with_param(
                "region",
                "Which region?",
                one(region_options(options.iter().copied())),
            ),
        ),
        Stop::Moves => {
            let mut choice =
                Choice::fixed("Move the campaigners", fixed_command!({"type": "moves"}));
            for (i, (_, c)) in state.campaigners_of(seat).iter().enumerate() {
                choice = choice.with_param(
                    campaigner_field(i),
                    format!(
                        "Where does the {:?} campaigner in the {} go?",
                        c.colour,
                        c.region.name()
                    )
                    .to_lowercase(),
                    one(region_options(Region::ALL.into_iter())),
                );
            }
            out.push(choice);
        }
        Stop::Campaign => campaign_choices(state, seat, &mut out),
    }
    out
}

/// What Campaigning offers a seat, in the choices' order.
pub(super) struct CampaignOffers {
    /// Whether it may reroll all dice.
    pub reroll: bool,
    /// The campaigners (by index among its own) it may move for a button.
    pub moves: Vec<usize>,
    /// The ways to hand out the dice, one die per campaigner ([`assignments`]).
    pub ways: Vec<Vec<u8>>,
    /// Each own campaigner's cube and region ([`campaign_colours`]).
    pub colours: Vec<(Cube, Region)>,
    /// Whether placing asks which colour red cubes take first ([`with_takes`]).
    pub asks: bool,
}

/// What Campaigning offers `seat` now.
pub(super) fn campaign_offers(state: &State, seat: Seat) -> CampaignOffers {
    let frame = state.stack.last().expect("a campaign runs");
    let buttons = state.buttons[seat];
    let colours = campaign_colours(state, seat);
    let moves = if buttons > 0 {
        (0..colours.len())
            .filter(|&i| !frame.moved.get(i).copied().unwrap_or(false))
            .collect()
    } else {
        Vec::new()
    };
    CampaignOffers {
        reroll: buttons > 0 && frame.dice.iter().any(|&d| d < frame.sides),
        moves,
        ways: assignments(&frame.dice),
        asks: super::stops::asks_colour(state, seat, colours.iter().flat_map(|&(_, r)| r.states())),
        colours,
    }
}

/// The regions a campaigner in `region` may move to.
pub(super) fn other_regions(region: Region) -> impl Iterator<Item = Region> {
    Region::ALL.into_iter().filter(move |r| *r != region)
}

fn campaign_choices(state: &State, seat: Seat, out: &mut Vec<Choice>) {
    let CampaignOffers {
        reroll,
        moves,
        ways,
        colours,
        asks,
    } = campaign_offers(state, seat);
    if reroll {
        out.push(Choice::fixed(
            "Reroll all dice (1 button)",
            fixed_command!({"type": "reroll"}),
        ));
    }
    let own = state.campaigners_of(seat);
    for i in moves {
        let c = own[i].1;
        out.push(
            Choice::fixed(move_label(c.colour, c.region), move_command(i)).with_param(
                "region",
                "To which region?",
                one(region_options(other_regions(c.region))),
            ),
        );
    }
    // A campaigner's words, prompt and placement for one die depend on nothing else: made once
    // for every way of handing out the dice, and moved into the last way that uses them.
    struct Placement {
        campaigner: usize,
        die: u8,
        words: Text,
        prompt: Text,
        param: Option<ParamKind>,
        uses_left: usize,
    }
    let mut made: Vec<Placement> = Vec::new();
    for dice in &ways {
        let mut label = String::with_capacity(64);
        label.push_str("Place cubes: ");
        let mut params = Vec::with_capacity(dice.len());
        for (i, ((&(cube, region), (_, c)), &die)) in colours.iter().zip(&own).zip(dice).enumerate()
        {
            let at = match made.iter().position(|m| m.campaigner == i && m.die == die) {
                Some(at) => at,
                None => {
                    let (total, param) = campaign_placement(state, seat, cube, region, die);
                    made.push(Placement {
                        campaigner: i,
                        die,
                        words: campaigner_words(c.colour, c.region, die),
                        prompt: campaigner_prompt(c.colour, total, c.region),
                        param: Some(param),
                        uses_left: ways.iter().filter(|way| way[i] == die).count(),
                    });
                    made.len() - 1
                }
            };
            let placement = &mut made[at];
            if i > 0 {
                label.push_str("; ");
            }
            label.push_str(&placement.words);
            placement.uses_left -= 1;
            let kind = if placement.uses_left == 0 {
                placement.param.take()
            } else {
                placement.param.clone()
            };
            params.push(Param {
                field: campaigner_field(i),
                prompt: placement.prompt.clone(),
                kind: kind.expect("a placement is taken by its last use"),
            });
        }
        let mut choice = Choice::fixed(label, assign_command(dice));
        choice.params = params;
        if asks {
            choice = with_takes(choice);
        }
        out.push(choice);
    }
}

/// The Opposition's question of which Suffragist colour its red cubes take first, where a
/// state it may place in holds both (rules version 3).
fn with_takes(choice: Choice) -> Choice {
    choice.with_param(
        "takes",
        "Where a state holds purple and yellow, which do your red cubes remove first, purple or \
         yellow?",
        one(TAKES
            .iter()
            .map(|&(_, name)| PickOption::new(name, name))
            .collect()),
    )
}

/// The colours red cubes may take first, in [`with_takes`]'s order, with their names.
pub(super) const TAKES: [(TakeFirst, &str); 2] =
    [(TakeFirst::Purple, "purple"), (TakeFirst::Yellow, "yellow")];

/// The states of `region` where `seat` may place cubes for a campaigner's `die`, with how many
/// each takes at most, in the placement's order.
pub(super) fn campaign_rooms(
    state: &State,
    seat: Seat,
    region: Region,
    die: u8,
) -> impl Iterator<Item = (super::data::St, u32)> {
    region
        .states()
        .map(move |st| (st, state.room(seat, st).min(u32::from(die))))
        .filter(|&(_, cap)| cap > 0)
}

/// A campaigner's placement with `die` cubes of `cube` in its `region`, and how many it
/// places: the parameter of [`campaign_spec`], made straight from the rooms of the region's
/// states (single cubes of one colour, no group caps), without the general placement's
/// bookkeeping; a test checks they agree.
fn campaign_placement(
    state: &State,
    seat: Seat,
    cube: Cube,
    region: Region,
    die: u8,
) -> (u32, ParamKind) {
    let colour = match cube {
        Cube::Purple if seat == SUFF => (1, 0, 0),
        Cube::Yellow if seat == SUFF => (0, 1, 0),
        _ if seat != SUFF => (0, 0, 1),
        _ => unreachable!("the Suffragist's campaigners place purple or yellow"),
    };
    let mut options = Vec::with_capacity(8);
    let mut caps = Vec::with_capacity(8);
    for (st, cap) in campaign_rooms(state, seat, region, die) {
        let unit = Unit {
            st,
            purple: colour.0,
            yellow: colour.1,
            red: colour.2,
        };
        options.push(PickOption {
            value: state_value(st),
            label: unit_label(&unit),
            weight: 0,
            group: None,
            code: Some(unit_code(&unit)),
            heading: Some(region.name().into()),
        });
        caps.push(cap);
    }
    let total = u32::from(die).min(caps.iter().sum());
    let param = ParamKind::Allot {
        options,
        total,
        caps,
        groups: Vec::new(),
    };
    (total, param)
}

/// The paid move of the `i`-th campaigner (from 0).
fn move_command(i: usize) -> Json {
    static MOVES: std::sync::LazyLock<Vec<Value>> = std::sync::LazyLock::new(|| {
        (0..4)
            .map(|i| json!({"type": "move", "campaigner": i}))
            .collect()
    });
    MOVES.get(i).map_or_else(
        || Json::Owned(json!({"type": "move", "campaigner": i})),
        Json::Borrowed,
    )
}

/// The field of the `i`-th campaigner (from 0) in a command: `c1`, `c2`...
fn campaigner_field(i: usize) -> Text {
    const FIELDS: [&str; 4] = ["c1", "c2", "c3", "c4"];
    FIELDS
        .get(i)
        .map_or_else(|| format!("c{}", i + 1).into(), |&f| f.into())
}

/// The clock's move: the choice that spends and risks least, filled with the first legal
/// values (keep a roll, end the turn, commit nothing, defer, organize or play the first card).
pub fn cautious(state: &State, seat: Seat) -> Value {
    let choices = for_seat(state, seat);
    let rank = |c: &Choice| -> usize {
        let kind = c.command["type"].as_str().unwrap_or_default();
        let action = c.command["action"].as_str().unwrap_or_default();
        match (kind, action) {
            ("accept" | "end_turn" | "defer" | "bottom", _) => 0,
            ("commit", _) if c.command.get("buttons").is_none() => 0,
            ("play", "organize") => 1,
            ("play", "event") => 2,
            ("play", "campaign") => 3,
            ("play", _) => 4,
            ("reroll" | "move" | "supersede" | "claimed", _) => 9,
            _ => 5,
        }
    };
    let choice = choices
        .iter()
        .min_by_key(|c| rank(c))
        .expect("an awaited seat has a choice");
    let values: Vec<Value> = choice.params.iter().map(|p| first_value(&p.kind)).collect();
    choice.build(&values).expect("the first values are legal")
}

/// The first legal value of a parameter (the cautious move's): the first option, the fewest
/// picks, the least number, cubes placed greedily in the options' order.
pub fn first_value(kind: &ParamKind) -> Value {
    match kind {
        ParamKind::One { options } => options[0].value.clone().into_owned(),
        ParamKind::Pick { options, min, .. } => Value::from(
            options[..*min]
                .iter()
                .map(|o| o.value.clone().into_owned())
                .collect::<Vec<_>>(),
        ),
        ParamKind::Number { min, .. } => Value::from(*min),
        ParamKind::Distribute {
            options,
            total,
            max_each,
        } => {
            let mut left = *total;
            Value::from(
                options
                    .iter()
                    .map(|_| {
                        let n = left.min(*max_each);
                        left -= n;
                        n
                    })
                    .collect::<Vec<_>>(),
            )
        }
        ParamKind::Allot {
            options,
            total,
            caps,
            groups,
        } => {
            let mut left = *total;
            let mut used = vec![0u32; groups.len()];
            let counts: Vec<u32> = options
                .iter()
                .zip(caps)
                .map(|(o, cap)| {
                    let g = groups
                        .iter()
                        .position(|g| o.group.as_deref() == Some(g.group.as_ref()));
                    let room = g.map_or(u32::MAX, |g| groups[g].cap - used[g]);
                    let n = left.min(*cap).min(room);
                    left -= n;
                    if let Some(g) = g {
                        used[g] += n;
                    }
                    n
                })
                .collect();
            Value::from(counts)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::stops::campaign_spec;
    use super::*;
    use crate::engine::Seed;
    use crate::engine::testing::random_midgame;
    use crate::games::votes_for_women::{Options, VotesForWomen};

    #[test]
    fn a_campaigners_placement_is_the_general_placements_parameter() {
        let mut compared = 0;
        for seed in 0..60 {
            for steps in [20, 60, 110, 160] {
                let state = random_midgame::<VotesForWomen>(
                    Options::default(),
                    2,
                    Seed::from_number(seed),
                    steps,
                )
                .state;
                for seat in [0, 1] {
                    for &(cube, region) in &campaign_colours(&state, seat) {
                        for die in 1..=8 {
                            let spec = campaign_spec(&state, seat, cube, region, die);
                            let (total, param) =
                                campaign_placement(&state, seat, cube, region, die);
                            assert_eq!((total, param), (spec.total, spec.param()));
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 1000, "only {compared} placements compared");
    }
}
