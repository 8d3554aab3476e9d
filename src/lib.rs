//! postplay: slow, asynchronous play of card and board games by email link.
//!
//! Every game is an append-only log of commands replayed through deterministic, seeded rules
//! (`engine`), so any game can be audited, verified and replayed move by move.

pub mod bots;
pub mod cli;
pub mod clock;
pub mod config;
pub mod domain;
pub mod fds;
pub mod hints;
pub mod leagues;
pub mod logging;
pub mod notices;
pub mod pg;
pub mod ratings;
pub mod replies;
pub mod review;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod time;
pub mod web;
pub mod words;

/// The engine, the games and the Statehood pack, from their own crate (`crates/rules`), under
/// the paths the rest of the server names them by.
pub use postplay_rules::{cards, engine, games};
