//! The position in words, for a mail: this game's presentation of its own view.

use super::View;
use crate::engine::present::{Names, Position, from_fields};

/// The position as `view` shows it, with the players' names.
pub fn position(view: &View, names: &Names) -> Position {
    from_fields(&serde_json::to_value(view).expect("views serialize"), names)
}
