//! Seats and who holds them: their keys and links, handovers, and the open record of every change of hands.

pub(in crate::store) mod changes;
pub(in crate::store) mod keys;
pub(in crate::store) mod links;
