//! The JSON values and words the choices borrow, made once: a random game offers thousands of
//! options, and none of them should allocate its state's code or its card's label again.

use super::data::{Region, St, card};
use crate::engine::Json;
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
    let at = Region::ALL
        .iter()
        .position(|r| *r == region)
        .expect("every region is listed");
    Json::Borrowed(&REGION_VALUES[at])
}

/// A card's label in a form: its title and effect.
pub fn card_label(c: u8) -> &'static str {
    CARD_LABELS[usize::from(c)].as_str()
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
        assert_eq!(
            *fixed_command!({"type": "bottom"}),
            serde_json::json!({"type": "bottom"})
        );
    }
}
