//! The bound on hints: at most `per_hour` a seat in any hour, counted in PostgreSQL (one
//! `hints` row a hint given, read under an advisory lock on the seat) so that it holds across
//! processes, as the bound on replies is ([`crate::replies::limits`]). A refused request
//! writes nothing.

use crate::engine::Seat;
use chrono::{DateTime, Duration, Utc};
use sqlx::PgPool;

/// Whether a hint may be given now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Counted: its row (taken back by [`uncount`] if the hint then fails) and the hints the
    /// seat has left in the hour, with this one given (`None` without a bound).
    Yes {
        /// The `hints` row.
        id: i64,
        /// Hints left this hour.
        left: Option<u32>,
    },
    /// The seat had `per_hour` hints in the hour before: the next fits at this time.
    NotUntil(DateTime<Utc>),
}

/// Counts a hint for `game_id`'s `seat` at `now`, or says when the next one fits when the
/// seat already had `per_hour` in the hour before (0: no bound).
pub async fn count(
    pool: &PgPool,
    (game_id, seat): (i64, Seat),
    per_hour: u32,
    now: DateTime<Utc>,
) -> Result<Counted, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind(format!("hint-seat:{game_id}:{seat}"))
        .execute(&mut *tx)
        .await?;
    let recent: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT asked_at FROM hints WHERE game_id = $1 AND seat = $2 \
         AND asked_at > $3 - interval '1 hour' ORDER BY asked_at DESC",
    )
    .bind(game_id)
    .bind(seat as i32)
    .bind(now)
    .fetch_all(&mut *tx)
    .await?;
    if per_hour > 0 && recent.len() >= per_hour as usize {
        // The `per_hour`-th latest leaves the hour first of those that fill it.
        return Ok(Counted::NotUntil(
            recent[per_hour as usize - 1] + Duration::hours(1),
        ));
    }
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO hints (game_id, seat, asked_at) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(game_id)
    .bind(seat as i32)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    let left = (per_hour > 0).then(|| per_hour - recent.len() as u32 - 1);
    Ok(Counted::Yes { id, left })
}

/// Takes back the hint counted as row `id` (its search failed: nothing was given).
pub async fn uncount(pool: &PgPool, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM hints WHERE id = $1")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}
