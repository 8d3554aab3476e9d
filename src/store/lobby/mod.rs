//! The lobby: open tables, their seats and invitations, and the start of a full table's game.

pub(in crate::store) mod start;
pub(in crate::store) mod tables;
