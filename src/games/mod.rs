//! The hosted games, each pure rules with no I/O, and the registry that lists them.

use crate::engine::DynGame;

/// Every hosted game, in the order shown to people.
pub static ALL: &[&dyn DynGame] = &[];
