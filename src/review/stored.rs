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
    /// It could not be made (a game's defect, or the store failing every try), with why.
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

/// Tries a review has before a store that keeps failing makes it fail: the waits between them
/// double from [`FIRST_WAIT`] up to [`LONGEST_WAIT`], about fourteen hours in all.
pub const ATTEMPTS: i32 = 20;

/// The wait after a review's first try that the store failed.
pub const FIRST_WAIT: Duration = Duration::seconds(30);

/// The longest wait between two tries.
pub const LONGEST_WAIT: Duration = Duration::hours(1);

/// How long a review waits after its `attempts`-th try failed for the store.
pub fn wait_after(attempts: i32) -> Duration {
    let doubled = FIRST_WAIT.num_seconds() << (attempts - 1).clamp(0, 20);
    Duration::seconds(doubled.min(LONGEST_WAIT.num_seconds()))
}

/// Game `id`'s review could not be made for now (the store failed, with `error`): leaves it
/// pending and out of reach until its next try is due, or fails it after [`ATTEMPTS`] tries.
/// When the next try is due, or `None` if it failed.
pub async fn later(
    pool: &PgPool,
    id: i64,
    error: &str,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, sqlx::Error> {
    let attempts: i32 = sqlx::query_scalar(
        "UPDATE reviews SET attempts = attempts + 1, error = $2 \
         WHERE game_id = $1 AND status = 'pending' RETURNING attempts",
    )
    .bind(id)
    .bind(error)
    .fetch_one(pool)
    .await?;
    if attempts >= ATTEMPTS {
        failed(
            pool,
            id,
            &format!("gave up after {attempts} tries: {error}"),
        )
        .await?;
        return Ok(None);
    }
    sqlx::query_scalar(
        "UPDATE reviews SET lease_until = now() + make_interval(secs => $2) \
         WHERE game_id = $1 RETURNING lease_until",
    )
    .bind(id)
    .bind(wait_after(attempts).num_seconds() as f64)
    .fetch_one(pool)
    .await
    .map(Some)
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
