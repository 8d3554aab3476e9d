//! Bounds on replies, counted in PostgreSQL so that they hold across processes (`postplay
//! receive` starts one per message): at most `per_hour` replies a seat, and `per_hour` a
//! sender address, in any hour. A reply that passes is marked counted on its stored row; the
//! counts are read from those rows under advisory locks on the seat and the sender, so two
//! processes cannot both slip under a limit. A reply over a limit is never dropped: it is
//! held, marked counted at the first moment both bounds let it through (after the replies
//! already held), and played then by the clock's scheduler ([`super::Inbox::play_held`]); the
//! person is told that time once, by the first reply held (DESIGN.md, "A bound never loses
//! what a person sent").

use super::ledger;
use crate::engine::Seat;
use chrono::{DateTime, Duration, Utc};
use sqlx::PgPool;

/// Whether a reply may be acted on now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Within the bounds (or counted before): act on it now.
    Now,
    /// Over a bound: held, to be played at `at`.
    Held {
        /// When it will be played.
        at: DateTime<Utc>,
        /// Which bound held it.
        by: Bound,
    },
}

/// The bound a held reply met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The seat's replies an hour.
    Seat,
    /// The sender address's replies an hour.
    Sender,
}

/// Counts the stored reply `id` for `game_id`'s `seat` and for `sender` (lowercased) at `now`,
/// or holds it when the seat or the sender already had `per_hour` replies in the hour before
/// (0: no limit). A held reply's first hold queues the mail that tells the seat when it will
/// be played, in the same transaction. A reply counted once (one taken up again after a stop,
/// or a held one whose time has come) passes again.
pub async fn allow(
    pool: &PgPool,
    id: i64,
    (game_id, seat): (i64, Seat),
    sender: &str,
    per_hour: u32,
    now: DateTime<Utc>,
) -> Result<Verdict, sqlx::Error> {
    if per_hour == 0 {
        return Ok(Verdict::Now);
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
    // Held replies are counted at their future times, so the `per_hour`-th latest of the
    // counted times, an hour on, is when the next one fits.
    let (counted, by_seat, by_sender, pending): (
        bool,
        Option<DateTime<Utc>>,
        Option<DateTime<Utc>>,
        bool,
    ) = sqlx::query_as(
        "SELECT \
           EXISTS (SELECT 1 FROM inbound_mail WHERE id = $1 AND counted_at IS NOT NULL), \
           (SELECT counted_at FROM inbound_mail WHERE game_id = $2 AND seat = $3 \
               AND counted_at IS NOT NULL AND counted_at > $5 - interval '1 hour' \
               ORDER BY counted_at DESC OFFSET $6 - 1 LIMIT 1), \
           (SELECT counted_at FROM inbound_mail WHERE sender = $4 \
               AND counted_at IS NOT NULL AND counted_at > $5 - interval '1 hour' \
               ORDER BY counted_at DESC OFFSET $6 - 1 LIMIT 1), \
           EXISTS (SELECT 1 FROM inbound_mail WHERE status = 'held' \
               AND ((game_id = $2 AND seat = $3) OR sender = $4))",
    )
    .bind(id)
    .bind(game_id)
    .bind(seat as i32)
    .bind(sender)
    .bind(now)
    .bind(i64::from(per_hour))
    .fetch_one(&mut *tx)
    .await?;
    if counted {
        return Ok(Verdict::Now);
    }
    let hour = Duration::hours(1);
    let verdict = match (by_seat, by_sender) {
        (None, None) => Verdict::Now,
        (Some(s), Some(a)) if a > s => Verdict::Held {
            at: a + hour,
            by: Bound::Sender,
        },
        (Some(s), _) => Verdict::Held {
            at: s + hour,
            by: Bound::Seat,
        },
        (None, Some(a)) => Verdict::Held {
            at: a + hour,
            by: Bound::Sender,
        },
    };
    let (at, status) = match verdict {
        Verdict::Now => (now, "received"),
        Verdict::Held { at, .. } => (at.max(now), "held"),
    };
    sqlx::query(
        "UPDATE inbound_mail SET counted_at = $2, sender = $3, status = $4, \
         claimed_until = CASE WHEN $4 = 'held' THEN NULL ELSE claimed_until END WHERE id = $1",
    )
    .bind(id)
    .bind(at)
    .bind(sender)
    .bind(status)
    .execute(&mut *tx)
    .await?;
    let verdict = match verdict {
        Verdict::Held { by, .. } => Verdict::Held { at, by },
        v => v,
    };
    if let Verdict::Held { at, by } = verdict
        && !pending
    {
        let text = held_text(per_hour, by, sender, at);
        ledger::held(&mut tx, (game_id, seat), id, &text).await?;
    }
    tx.commit().await?;
    Ok(verdict)
}

/// What the person is told when a reply of theirs is held.
fn held_text(per_hour: u32, by: Bound, sender: &str, at: DateTime<Utc>) -> String {
    let sent = match by {
        Bound::Seat => format!("you have sent {per_hour} replies for this seat this hour"),
        Bound::Sender => format!("{per_hour} replies have come from {sender} this hour"),
    };
    format!(
        "{sent}, as many as are played in an hour; this one will be played at {}, and any \
         more sent before then after it, in the order they came",
        at.format("%H:%M UTC on %A %-d %B %Y")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_held_text_names_the_bound_and_the_time() {
        let at = DateTime::parse_from_rfc3339("2026-11-28T14:05:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let text = held_text(60, Bound::Seat, "ann@example.org", at);
        assert!(text.starts_with("you have sent 60 replies for this seat this hour"));
        assert!(text.contains("will be played at 14:05 UTC on Saturday 28 November 2026"));
        let text = held_text(60, Bound::Sender, "ann@example.org", at);
        assert!(text.starts_with("60 replies have come from ann@example.org this hour"));
    }
}
