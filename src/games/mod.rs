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
use crate::engine::seat_bot::{BotAdapter, DynBot};

/// Every hosted game, in the order shown to people.
pub static ALL: &[&dyn DynGame] = &[
    &Adapter::<whitehouse::Whitehouse>::NEW,
    &Adapter::<statehood::Statehood>::NEW,
    &Adapter::<electoral_combat::ElectoralCombat>::NEW,
    &Adapter::<nationhood::Nationhood>::NEW,
    &Adapter::<votes_for_women::VotesForWomen>::NEW,
];

/// The games a bot can play (those with a sampler: docs/BOTS.md).
pub static BOTS: &[&dyn DynBot] = &[
    &BotAdapter::<whitehouse::Whitehouse>::NEW,
    &BotAdapter::<statehood::Statehood>::NEW,
    &BotAdapter::<electoral_combat::ElectoralCombat>::NEW,
    &BotAdapter::<nationhood::Nationhood>::NEW,
    &BotAdapter::<votes_for_women::VotesForWomen>::NEW,
];
