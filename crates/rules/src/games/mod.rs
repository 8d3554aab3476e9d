//! The hosted games, each pure rules with no I/O, and the registry that lists them.

pub mod electoral_combat;
pub mod nationhood;
pub mod pack;
pub mod statehood;
pub mod votes_for_women;
pub mod whitehouse;

#[cfg(test)]
pub(crate) mod decode_checks;
#[cfg(test)]
pub(crate) mod present_checks;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod weigh_checks;

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

/// Every hosted game: [`ALL`], for the callers that take a list.
pub fn registry() -> &'static [&'static dyn DynGame] {
    ALL
}

/// The hosted game with this id.
pub fn find_game(id: &str) -> Option<&'static dyn DynGame> {
    crate::engine::dynamic::game_in(ALL, id)
}

/// The bot of the hosted game `id`, if the game has one.
pub fn find_bot(id: &str) -> Option<&'static dyn DynBot> {
    BOTS.iter().copied().find(|b| b.game_id() == id)
}
