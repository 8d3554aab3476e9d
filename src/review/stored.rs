//! Reviews in PostgreSQL (migration 0035): one row a finished game, claimed by a worker with
//! `FOR UPDATE SKIP LOCKED` and a lease, then done (the review as JSON) or failed.

use super::{Review, mail_lines};
use chrono::Duration;
use sqlx::PgPool;

/// Where a game's review stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// No review: the game is not over, was cancelled, or ended before reviews were made.
    None,
    /// Being worked out.
    Pending,
    /// Worked out.
    Done(Box<Review>),
    /// It could not be made (a game's defect), with why.
    Failed(String),
}

/// Game `id`'s review as it stands.
pub async fn status(pool: &PgPool, id: i64) -> Result<Status, sqlx::Error> {
    let row: Option<(String, Option<serde_json::Value>, Option<String>)> =
        sqlx::query_as("SELECT status, body, error FROM reviews WHERE game_id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    Ok(match row {
        None => Status::None,
        Some((status, Some(body), _)) if status == "done" => match serde_json::from_value(body) {
            Ok(review) => Status::Done(Box::new(review)),
            Err(e) => Status::Failed(format!("the stored review does not read: {e}")),
        },
        Some((status, _, error)) if status == "failed" => Status::Failed(error.unwrap_or_default()),
        Some(_) => Status::Pending,
    })
}

/// Claims the oldest pending review nobody holds, for `lease`: its game's id.
pub async fn claim(pool: &PgPool, lease: Duration) -> Result<Option<i64>, sqlx::Error> {
    sqlx::query_scalar(
        "UPDATE reviews SET lease_until = now() + make_interval(secs => $1) WHERE game_id = \
         (SELECT game_id FROM reviews WHERE status = 'pending' \
          AND (lease_until IS NULL OR lease_until < now()) \
          ORDER BY created_at, game_id LIMIT 1 FOR UPDATE SKIP LOCKED) \
         RETURNING game_id",
    )
    .bind(lease.num_seconds() as f64)
    .fetch_optional(pool)
    .await
}

/// Stores game `id`'s review and gives each seat's waiting game-over mail its lines.
pub async fn save(pool: &PgPool, review: &Review) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "UPDATE reviews SET status = 'done', body = $2, done_at = now(), lease_until = NULL \
         WHERE game_id = $1",
    )
    .bind(review.game_id)
    .bind(serde_json::to_value(review).expect("a review serializes"))
    .execute(&mut *tx)
    .await?;
    for seat in &review.seats {
        crate::notices::review::review_ready(&mut tx, review.game_id, seat.seat, &mail_lines(seat))
            .await?;
    }
    tx.commit().await
}

/// Game `id`'s review could not be made: records why and lets its game-over mail go.
pub async fn failed(pool: &PgPool, id: i64, error: &str) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "UPDATE reviews SET status = 'failed', error = $2, done_at = now(), lease_until = NULL \
         WHERE game_id = $1",
    )
    .bind(id)
    .bind(error)
    .execute(&mut *tx)
    .await?;
    crate::notices::review::review_failed(&mut tx, id).await?;
    tx.commit().await
}
