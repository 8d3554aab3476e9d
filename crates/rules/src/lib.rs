//! postplay's rules: the game-agnostic engine (`engine`: commands replayed through seeded
//! rules, audit, search) and the five games (`games`) with the Statehood pack (`cards`).
//!
//! A crate of its own, beneath the server (`postplay` re-exports its modules under the same
//! names), so it is built once, optimised even in a test build, while the server above it is
//! built for compiling fast (docs/LAYOUT.md, docs/TESTING.md). It knows nothing of storage,
//! the web or mail.

pub mod cards;
pub mod engine;
pub mod games;
