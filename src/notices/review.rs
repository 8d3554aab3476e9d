//! A finished game's review in its game-over mail (docs/BOTS.md "Review"): the mail is told a
//! review is coming (and held back a while for it), then given the seat's lines when it is
//! ready, or told nothing more when it could not be made. Only mail still waiting to go is
//! changed; mail already sent says the review will be on the replay page.

use crate::engine::Seat;
use crate::notices::outbox::announce;
use sqlx::PgConnection;

/// Game `id`'s game-over mail still waiting says a review is being worked out, and waits up to
/// `hold` for it.
pub async fn review_coming(
    tx: &mut PgConnection,
    id: i64,
    hold: std::time::Duration,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE outbox SET payload = jsonb_set(payload, '{review}', '{\"ready\": false, \"lines\": []}'), \
         due_at = greatest(due_at, now() + make_interval(secs => $2)) \
         WHERE game_id = $1 AND event = 'over' AND status = 'pending'",
    )
    .bind(id)
    .bind(hold.as_secs_f64())
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Game `id`'s game-over mail to `seat`, if still waiting, carries `lines` and goes now.
pub async fn review_ready(
    tx: &mut PgConnection,
    id: i64,
    seat: Seat,
    lines: &[String],
) -> Result<(), sqlx::Error> {
    let review = serde_json::json!({"ready": true, "lines": lines});
    sqlx::query(
        "UPDATE outbox SET payload = jsonb_set(payload, '{review}', $3), \
         due_at = least(due_at, now()) \
         WHERE game_id = $1 AND seat = $2 AND event = 'over' AND status = 'pending'",
    )
    .bind(id)
    .bind(seat as i32)
    .bind(review)
    .execute(&mut *tx)
    .await?;
    announce(tx).await
}

/// Game `id`'s review could not be made: its game-over mail still waiting says nothing of one
/// and goes now.
pub async fn review_failed(tx: &mut PgConnection, id: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE outbox SET payload = payload - 'review', due_at = least(due_at, now()) \
         WHERE game_id = $1 AND event = 'over' AND status = 'pending'",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    announce(tx).await
}
