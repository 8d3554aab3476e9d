//! Club ratings (issue 33): one Weng-Lin rating per club, game and member, updated in the
//! transaction of a club game's last entry ([`RatingEffects`]). [`ranking`] says how each
//! game's end orders its sides, [`system`] computes the new ratings with the `skillratings`
//! crate; the rows live in `store::ratings`, the chart in `web::rating_chart`. Decisions are
//! in docs/RATINGS.md.

pub mod effects;
pub mod ranking;
pub mod system;

pub use effects::{RatingEffects, Unrated};
