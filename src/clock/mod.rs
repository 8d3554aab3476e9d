//! The correspondence clock: each awaited seat's deadline, kept in the transaction of every
//! move ([`effects::ClockEffects`]); reminders and timeouts applied by a scheduler that any
//! number of processes may run ([`scheduler`]); vacations and the organiser's pause and
//! extensions ([`controls`]); league games' ends ([`league`]). Time comes from a [`crate::time::Clock`].

pub mod controls;
pub mod effects;
pub mod league;
pub mod plan;
pub mod scheduler;
mod waits;

pub use controls::{SeatDeadline, deadlines};
pub use effects::ClockEffects;
pub use league::LeagueEffects;
pub use scheduler::{Scheduler, Tick};
