//! The rules engine's tests in one binary, without a database: each game's property tests, the
//! golden records, the audit of records and the practice bots.

#[path = "../common/scratch.rs"]
mod scratch;

mod audit;
mod bots;
mod forced;
mod golden;
mod layout;
mod properties_electoral_combat;
mod properties_nationhood;
mod properties_statehood;
mod properties_votes_for_women;
mod properties_whitehouse;
