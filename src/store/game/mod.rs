//! A game and its log: creation, loading and replay (the cache), every way the log grows and the move's transaction with its effects, standing orders, bots' seats, history, records, and unlisted games.

pub(in crate::store) mod append;
pub(in crate::store) mod bots;
pub mod census;
pub(in crate::store) mod creation;
pub mod effects;
pub(in crate::store) mod history;
pub(in crate::store) mod loading;
pub(in crate::store) mod move_read;
pub(in crate::store) mod moves;
pub(in crate::store) mod orders;
pub mod plan;
pub(in crate::store) mod records;
pub(in crate::store) mod sealed_since;
pub(in crate::store) mod unlisted;
