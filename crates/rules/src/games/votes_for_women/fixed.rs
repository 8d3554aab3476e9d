//! The JSON values and words the choices borrow, made once: a random game offers thousands of
//! options, and none of them should allocate its state's code or its card's label again.

use super::data::{Colour, Region, St, card};
use crate::engine::{Json, Text};
use serde_json::Value;
use std::sync::LazyLock;

/// A command with nothing to fill in, made once where it is written and borrowed after.
macro_rules! fixed_command {
    ($($json:tt)+) => {{
        static COMMAND: std::sync::LazyLock<serde_json::Value> =
            std::sync::LazyLock::new(|| serde_json::json!($($json)+));
        crate::engine::Json::Borrowed(&*COMMAND)
    }};
}
pub(super) use fixed_command;

static STATE_VALUES: LazyLock<Vec<Value>> =
    LazyLock::new(|| St::all().map(|s| Value::from(s.code())).collect());

static REGION_VALUES: LazyLock<Vec<Value>> = LazyLock::new(|| {
    Region::ALL
        .iter()
        .map(|r| serde_json::to_value(r).expect("a region serializes"))
        .collect()
});

static CARD_VALUES: LazyLock<Vec<Value>> = LazyLock::new(|| (0..=128u8).map(Value::from).collect());

static CARD_LABELS: LazyLock<Vec<String>> = LazyLock::new(|| {
    (0..=128u8)
        .map(|c| format!("{} ({})", card(c).name, card(c).effect))
        .collect()
});

/// A state's code as an option's value (`"CA"`).
pub fn state_value(st: St) -> Json {
    Json::Borrowed(&STATE_VALUES[usize::from(st.0)])
}

/// A region's code as an option's value.
pub fn region_value(region: Region) -> Json {
    Json::Borrowed(&REGION_VALUES[region_at(region)])
}

/// A card's id as an option's value.
pub fn card_value(c: u8) -> Json {
    Json::Borrowed(&CARD_VALUES[usize::from(c)])
}

/// A card's label in a form: its title and effect.
pub fn card_label(c: u8) -> &'static str {
    CARD_LABELS[usize::from(c)].as_str()
}

/// The `assign` commands for one or two dice of up to [`MOST_CUBES`] each, by
/// [`assign_at`].
static ASSIGN_COMMANDS: LazyLock<Vec<Value>> = LazyLock::new(|| {
    let dice = 0..=MOST_CUBES as u8;
    let one = dice.clone().map(|d| vec![d]);
    let two = dice
        .clone()
        .flat_map(|a| dice.clone().map(move |b| vec![a, b]));
    one.chain(two)
        .map(|dice| serde_json::json!({"type": "assign", "dice": dice}))
        .collect()
});

fn assign_at(dice: &[u8]) -> Option<usize> {
    let n = MOST_CUBES as usize + 1;
    match *dice {
        [a] if u32::from(a) <= MOST_CUBES => Some(usize::from(a)),
        [a, b] if u32::from(a.max(b)) <= MOST_CUBES => {
            Some(n + usize::from(a) * n + usize::from(b))
        }
        _ => None,
    }
}

/// The command handing out `dice` to the campaigners in order.
pub fn assign_command(dice: &[u8]) -> Json {
    match assign_at(dice) {
        Some(at) => Json::Borrowed(&ASSIGN_COMMANDS[at]),
        None => Json::Owned(serde_json::json!({"type": "assign", "dice": dice})),
    }
}

const COLOURS: [Colour; 3] = [Colour::Purple, Colour::Yellow, Colour::Red];

/// The most cubes a campaigner's prompt is made once for (a die of eight sides).
const MOST_CUBES: u32 = 8;

fn colour_at(colour: Colour) -> usize {
    COLOURS
        .iter()
        .position(|c| *c == colour)
        .expect("every colour is listed")
}

fn region_at(region: Region) -> usize {
    Region::ALL
        .iter()
        .position(|r| *r == region)
        .expect("every region is listed")
}

fn format_move_label(colour: Colour, region: Region) -> String {
    format!(
        "Move the {colour:?} campaigner from the {} (1 button)",
        region.name()
    )
}

fn format_campaigner_prompt(colour: Colour, cubes: u32, region: Region) -> String {
    format!(
        "{colour:?} campaigner: {} in the {}",
        crate::engine::log::count(cubes, "cube"),
        region.name()
    )
}

fn format_campaigner_words(colour: Colour, region: Region, die: u32) -> String {
    format!("{colour:?} in the {} takes {die}", region.name())
}

static CAMPAIGNER_WORDS: LazyLock<Vec<String>> = LazyLock::new(|| {
    COLOURS
        .iter()
        .flat_map(|&c| {
            Region::ALL.iter().flat_map(move |&r| {
                (0..=MOST_CUBES).map(move |die| format_campaigner_words(c, r, die))
            })
        })
        .collect()
});

static MOVE_LABELS: LazyLock<Vec<String>> = LazyLock::new(|| {
    COLOURS
        .iter()
        .flat_map(|&c| Region::ALL.iter().map(move |&r| format_move_label(c, r)))
        .collect()
});

static CAMPAIGNER_PROMPTS: LazyLock<Vec<String>> = LazyLock::new(|| {
    COLOURS
        .iter()
        .flat_map(|&c| {
            (0..=MOST_CUBES).flat_map(move |n| {
                Region::ALL
                    .iter()
                    .map(move |&r| format_campaigner_prompt(c, n, r))
            })
        })
        .collect()
});

/// The label of a campaigner's paid move.
pub fn move_label(colour: Colour, region: Region) -> &'static str {
    &MOVE_LABELS[colour_at(colour) * Region::ALL.len() + region_at(region)]
}

/// What a campaigner does with a die, in the label of a way to hand out the dice.
pub fn campaigner_words(colour: Colour, region: Region, die: u8) -> Text {
    let die = u32::from(die);
    if die > MOST_CUBES {
        return format_campaigner_words(colour, region, die).into();
    }
    let at = (colour_at(colour) * Region::ALL.len() + region_at(region))
        * (MOST_CUBES as usize + 1)
        + die as usize;
    CAMPAIGNER_WORDS[at].as_str().into()
}

/// The question for a campaigner's cubes: how many, where.
pub fn campaigner_prompt(colour: Colour, cubes: u32, region: Region) -> Text {
    if cubes > MOST_CUBES {
        return format_campaigner_prompt(colour, cubes, region).into();
    }
    let at = (colour_at(colour) * (MOST_CUBES as usize + 1) + cubes as usize) * Region::ALL.len()
        + region_at(region);
    CAMPAIGNER_PROMPTS[at].as_str().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_values_read_as_values_made_afresh() {
        for st in St::all() {
            assert_eq!(*state_value(st), Value::from(st.code()));
        }
        for r in Region::ALL {
            assert_eq!(*region_value(r), serde_json::to_value(r).unwrap());
        }
        for c in 0..=128 {
            assert_eq!(*card_value(c), Value::from(c));
        }
        assert_eq!(
            *fixed_command!({"type": "bottom"}),
            serde_json::json!({"type": "bottom"})
        );
    }

    #[test]
    fn assign_commands_made_once_read_as_commands_made_afresh() {
        let dice = 0..=MOST_CUBES as u8 + 1;
        let afresh = |dice: &[u8]| serde_json::json!({"type": "assign", "dice": dice});
        for a in dice.clone() {
            assert_eq!(*assign_command(&[a]), afresh(&[a]));
            for b in dice.clone() {
                assert_eq!(*assign_command(&[a, b]), afresh(&[a, b]));
                assert_eq!(*assign_command(&[a, b, 1]), afresh(&[a, b, 1]));
            }
        }
        assert!(matches!(assign_command(&[2, 5]), Json::Borrowed(_)));
    }

    #[test]
    fn words_made_once_read_as_words_made_afresh() {
        for c in COLOURS {
            for r in Region::ALL {
                assert_eq!(move_label(c, r), format_move_label(c, r));
                for n in 0..=MOST_CUBES + 1 {
                    assert_eq!(
                        campaigner_prompt(c, n, r),
                        format_campaigner_prompt(c, n, r)
                    );
                    let die = n as u8;
                    assert_eq!(
                        campaigner_words(c, r, die),
                        format_campaigner_words(c, r, n)
                    );
                }
            }
        }
        assert_eq!(
            card_label(1),
            format!("{} ({})", card(1).name, card(1).effect)
        );
    }
}
