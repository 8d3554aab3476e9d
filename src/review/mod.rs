//! A review after every finished game (issue 49, docs/BOTS.md "Review"): for each seat, the few
//! moves (at most [`TURNING_POINTS`]) where its estimated result dropped most, each with what
//! the search would have played and the estimates before and after, worked out from the seat's
//! own view at that point of the log (exactly as a hint is), and, where knowing every card
//! would have changed the advice, also with everything known.
//!
//! Worked out in the background ([`worker`]) at a bounded budget ([`Budget`]), stored in
//! PostgreSQL ([`stored`], migration 0035), shown once the game is over (`GET
//! /api/games/{id}/review`, marks on the replay viewer) and summed up in the game-over mail
//! ([`mail_lines`]).

pub mod compute;
pub mod effects;
pub mod stored;
pub mod worker;

use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Turning points shown a seat at most.
pub const TURNING_POINTS: usize = 3;

/// A move is a turning point only when its estimate fell by more than this (a smaller fall is
/// within the noise of a small search).
pub const MIN_DROP: f64 = 0.05;

/// What one review may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Playouts of each search (`POSTPLAY_REVIEW_PLAYOUTS`).
    pub playouts: u32,
    /// Decisions weighed a seat at most, spread evenly over the seat's decisions with more
    /// than one legal move (`POSTPLAY_REVIEW_DECISIONS`).
    pub decisions: usize,
}

impl Default for Budget {
    /// 100 playouts a search, 24 decisions a seat: at most seats × (24 + 3) searches of 100
    /// playouts a game (4 seats: 10,800 playouts, the work of 36 medium bot moves).
    fn default() -> Budget {
        Budget {
            playouts: 100,
            decisions: 24,
        }
    }
}

/// A finished game's review: the API's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    /// The game.
    pub game_id: i64,
    /// Each seat's review, in seat order.
    pub seats: Vec<SeatReview>,
    /// The playouts of each search.
    pub playouts_per_decision: u32,
    /// The bound on decisions weighed a seat.
    pub decisions_per_seat: usize,
    /// The playouts spent in all.
    pub playouts: u64,
}

/// One seat's part of a review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatReview {
    /// The seat.
    pub seat: Seat,
    /// Its name.
    pub name: String,
    /// Its decisions with more than one legal move.
    pub decisions: usize,
    /// Of them, the ones weighed (at most [`Budget::decisions`]).
    pub weighed: usize,
    /// Its turning points, the biggest drop first (at most [`TURNING_POINTS`]).
    pub turning_points: Vec<TurningPoint>,
}

/// A move where the seat's estimated result dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurningPoint {
    /// The move's number in the log (the replay shows it at `?at=seq`).
    pub seq: i64,
    /// The move made, as the seat's page words it.
    pub played: String,
    /// The move made, as the game's command.
    pub played_command: Value,
    /// What the search would have played, as the seat's page words it.
    pub best: String,
    /// That move as the game's command.
    pub best_command: Value,
    /// The seat's estimated chance before the move, with the search's move (0 to 1, a draw
    /// counting half).
    pub before: f64,
    /// Its estimated chance after the move made.
    pub after: f64,
    /// `before - after`.
    pub drop: f64,
    /// The same move weighed with everything known, when that would have changed the advice.
    pub open: Option<OpenLook>,
    /// The turning point in words.
    pub words: String,
}

/// A turning point weighed with every card known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenLook {
    /// What the search would have played, as the seat's page words it.
    pub best: String,
    /// That move as the game's command.
    pub best_command: Value,
    /// The chance before, with that move.
    pub before: f64,
    /// The chance after the move made.
    pub after: f64,
}

/// A chance as a whole percentage: "62%".
pub fn percent(chance: f64) -> String {
    format!("{}%", (chance * 100.0).round() as i64)
}

/// What the search would have played, said against the move made: the whole move when it is
/// another choice, and only the answers from the first that differs ("the same with
/// Face-down card 2") when it is the same choice with other answers, so a long choice is not
/// read twice.
pub fn instead(played: &str, best: &str) -> String {
    use crate::notices::reply::ask::PART;
    let same = played
        .char_indices()
        .zip(best.chars())
        .find(|((_, a), b)| a != b)
        .map_or(played.len().min(best.len()), |((at, _), _)| at);
    // The answers start after a question's "? "; the choice's label is the part before the
    // first PART, and it must be the same.
    match best[..same].rfind("? ") {
        Some(question) if best[..question].contains(PART) && question + 2 < best.len() => {
            format!("the same with {}", &best[question + 2..])
        }
        _ => best.to_string(),
    }
}

/// A turning point in words, naming the seat by `name`.
pub fn point_words(name: &str, point: &TurningPoint) -> String {
    let mut text = format!(
        "Move {}: {name} played {}; from what {name} could see then, the search would have \
         played {} — estimated chance {} before, {} after.",
        point.seq,
        point.played,
        instead(&point.played, &point.best),
        percent(point.before),
        percent(point.after)
    );
    if let Some(open) = &point.open {
        text.push_str(&format!(
            " With everything known it would have played {} ({} before, {} after).",
            instead(&point.played, &open.best),
            percent(open.before),
            percent(open.after)
        ));
    }
    text
}

/// The lines of a seat's review in its game-over mail: its turning points in short, or that
/// it had none.
pub fn mail_lines(seat: &SeatReview) -> Vec<String> {
    if seat.turning_points.is_empty() {
        return vec![format!(
            "No move of yours lowered your estimated chance by more than {} points, of the {} \
             weighed.",
            (MIN_DROP * 100.0).round() as i64,
            seat.weighed
        )];
    }
    seat.turning_points
        .iter()
        .map(|p| {
            format!(
                "Move {}: you played {}; the search would have played {} ({} → {}).",
                p.seq,
                p.played,
                instead(&p.played, &p.best),
                percent(p.before),
                percent(p.after)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests;
