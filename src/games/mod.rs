//! The hosted games, each pure rules with no I/O, and the registry that lists them.

pub mod electoral_combat;
pub mod nationhood;
pub mod pack;
pub mod statehood;
pub mod votes_for_women;
pub mod whitehouse;

#[cfg(test)]
pub(crate) mod present_checks;

use crate::engine::DynGame;
use crate::engine::dynamic::Adapter;

/// Every hosted game, in the order shown to people.
pub static ALL: &[&dyn DynGame] = &[
    &Adapter::<whitehouse::Whitehouse>::NEW,
    &Adapter::<statehood::Statehood>::NEW,
    &Adapter::<electoral_combat::ElectoralCombat>::NEW,
    &Adapter::<nationhood::Nationhood>::NEW,
    &Adapter::<votes_for_women::VotesForWomen>::NEW,
];
