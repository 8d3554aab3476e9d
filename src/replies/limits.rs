//! Bounds on replies, counted in PostgreSQL so that they hold across processes (`postplay
//! receive` starts one per message): at most `per_hour` replies a seat, and `per_hour` a
//! sender address, in any hour. A reply that passes is marked counted on its stored row; the
//! counts are read from those rows under advisory locks on the seat and the sender, so two
//! processes cannot both slip under a limit. A reply over a limit is stored and ignored
//! without an answer, so a flood of mail never turns into a flood of answers.

use crate::engine::Seat;
use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Counts the stored reply `id` for `game_id`'s `seat` and for `sender` (lowercased) at `now`;
/// false when the seat or the sender already had `per_hour` replies in the hour before
/// (0: no limit). A reply counted once (one taken up again after a stop) passes again.
pub async fn allow(
    pool: &PgPool,
    id: i64,
    (game_id, seat): (i64, Seat),
    sender: &str,
    per_hour: u32,
    now: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    if per_hour == 0 {
        return Ok(true);
    }
    let mut tx = pool.begin().await?;
    // Always the seat's lock first, then the sender's: no two processes wait on each other.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind(format!("reply-seat:{game_id}:{seat}"))
        .execute(&mut *tx)
        .await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('reply-sender:' || $1, 0))")
        .bind(sender)
        .execute(&mut *tx)
        .await?;
    let (counted, by_seat, by_sender): (bool, i64, i64) = sqlx::query_as(
        "SELECT \
           EXISTS (SELECT 1 FROM inbound_mail WHERE id = $1 AND counted_at IS NOT NULL), \
           (SELECT count(*) FROM inbound_mail WHERE game_id = $2 AND seat = $3 \
               AND counted_at IS NOT NULL AND counted_at > $5 - interval '1 hour'), \
           (SELECT count(*) FROM inbound_mail WHERE sender = $4 \
               AND counted_at IS NOT NULL AND counted_at > $5 - interval '1 hour')",
    )
    .bind(id)
    .bind(game_id)
    .bind(seat as i32)
    .bind(sender)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    if counted {
        return Ok(true);
    }
    let limit = i64::from(per_hour);
    if by_seat >= limit || by_sender >= limit {
        return Ok(false);
    }
    sqlx::query("UPDATE inbound_mail SET counted_at = $2, sender = $3 WHERE id = $1")
        .bind(id)
        .bind(now)
        .bind(sender)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(true)
}
