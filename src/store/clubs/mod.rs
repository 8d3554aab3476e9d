//! Clubs: members, invitations, games, the archive, leagues and their life, and ratings.

pub(in crate::store) mod archive;
pub(in crate::store) mod club;
pub(in crate::store) mod games;
pub(in crate::store) mod invites;
pub mod league_life;
pub(in crate::store) mod leagues;
pub mod ratings;
