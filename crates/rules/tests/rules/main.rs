//! The rules' tests in one binary, without a database or a server: each game's property tests,
//! the golden records, forced moves and the practice bots. Built with the rules' crate, so
//! optimised as it is even in a test build (docs/TESTING.md).

mod bots;
mod forced;
mod golden;
mod properties_electoral_combat;
mod properties_nationhood;
mod properties_statehood;
mod properties_votes_for_women;
mod properties_whitehouse;
