//! The evening's checks, read from the database and the sink: every record verifies, every
//! acknowledged move is in the log, no mail went twice (and none marked sent went missing),
//! how long mail took, and when the clock acted on the deadlines that fell due.

use crate::common::TestDb;
use crate::day_mail::Inboxes;
use crate::day_setup::Due;
use chrono::{DateTime, Utc};
use postplay::engine::Viewer;
use postplay::engine::audit::verify;
use std::collections::HashMap;
use std::time::Duration;

/// Every game's full record (with its seed, as an auditor moving it gets it) checked as
/// `postplay verify` checks it, against the chain head in its row: (verified, failures).
pub async fn records(db: &TestDb, ids: &[i64]) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut verified = 0;
    for &id in ids {
        let outcome = match db.store.export(id, Viewer::Auditor).await {
            Ok(record) => {
                let head = db.store.game(id).await.unwrap().map(|r| r.head_hash);
                verify(postplay::games::ALL, &record, head.as_deref()).map_err(|e| e.to_string())
            }
            Err(e) => Err(format!("export: {e}")),
        };
        match outcome {
            Ok(_) => verified += 1,
            Err(e) => failures.push(format!("game {id}: {e}")),
        }
    }
    (verified, failures)
}

/// Acknowledged moves missing from the log (no entry at that seq by that seat): their list.
pub async fn missing(db: &TestDb, acked: &[(i64, i64, i32)]) -> Vec<(i64, i64, i32)> {
    let games: Vec<i64> = acked.iter().map(|a| a.0).collect();
    let seqs: Vec<i64> = acked.iter().map(|a| a.1).collect();
    let seats: Vec<i32> = acked.iter().map(|a| a.2).collect();
    sqlx::query_as(
        "SELECT a.game, a.seq, a.seat FROM UNNEST($1::bigint[], $2::bigint[], $3::int[]) \
         AS a(game, seq, seat) LEFT JOIN commands c ON c.game_id = a.game AND c.seq = a.seq \
         AND c.seat = a.seat AND c.made_by IS NULL WHERE c.seq IS NULL",
    )
    .bind(&games)
    .bind(&seqs)
    .bind(&seats)
    .fetch_all(db.store.pool())
    .await
    .unwrap()
}

/// What became of the outbox.
pub struct MailCheck {
    /// Rows written since the day began, by status.
    pub by_status: Vec<(String, i64)>,
    /// Seconds from a day's row being written to its first arrival at the sink.
    pub lag: Vec<f64>,
    /// Message-IDs that arrived more than once.
    pub duplicated: Vec<String>,
    /// Rows marked sent (at any time) whose message never arrived.
    pub never_arrived: Vec<String>,
    /// Messages that arrived without a row of their own.
    pub unknown: usize,
}

/// The Message-ID the worker gives a row (`notices::outbox::worker`'s key, in the sender's domain).
fn message_id(game: Option<i64>, seat: Option<i32>, event: &str, domain: &str) -> String {
    let who = seat.map_or("org".to_string(), |s| format!("s{s}"));
    let about = game.map_or("a".to_string(), |g| format!("g{g}"));
    format!("<pp.{about}.{}.{who}@{domain}>", event.replace(':', "."))
}

/// Checks every mail row against what the sink received; the lag of rows after `day_from`.
pub async fn mail(db: &TestDb, inboxes: &Inboxes, day_from: i64, domain: &str) -> MailCheck {
    type Row = (i64, Option<i64>, Option<i32>, String, String, DateTime<Utc>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, game_id, seat, event, status, created_at FROM outbox \
         WHERE webhook_id IS NULL AND NOT digest ORDER BY id",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    let mut by_status: HashMap<String, i64> = HashMap::new();
    let mut lag = Vec::new();
    let mut never_arrived = Vec::new();
    let mut known = 0;
    for (id, game, seat, event, status, created) in rows {
        let key = message_id(game, seat, &event, domain);
        let arrived = inboxes.received.get(&key);
        if arrived.is_some() {
            known += 1;
        }
        if id > day_from {
            *by_status.entry(status.clone()).or_default() += 1;
            if let Some((_, at)) = arrived {
                let at: DateTime<Utc> = (*at).into();
                lag.push((at - created).as_seconds_f64());
            }
        }
        if status == "sent" && arrived.is_none() {
            never_arrived.push(format!("outbox row {id} ({key})"));
        }
    }
    let mut by_status: Vec<(String, i64)> = by_status.into_iter().collect();
    by_status.sort();
    lag.sort_by(f64::total_cmp);
    MailCheck {
        by_status,
        lag,
        duplicated: inboxes
            .received
            .iter()
            .filter(|(_, (n, _))| *n > 1)
            .map(|(id, (n, _))| format!("{id} x{n}"))
            .collect(),
        never_arrived,
        unknown: inboxes.received.len() - known,
    }
}

/// What the clock did with the deadlines set to fall due.
pub struct Timeouts {
    /// Seconds late of each deadline the clock acted on.
    pub late: Vec<f64>,
    /// Deadlines due before `by` the clock did not act on.
    pub not_applied: Vec<String>,
    /// Deadlines due after `by` (too close to the end to count), not acted on.
    pub due_late: usize,
    /// The clock's entries written during the day in all (a turn of several moves is played
    /// one move a tick).
    pub entries: i64,
}

/// For each deadline, the clock's first entry for that seat at or after it.
pub async fn timeouts(
    db: &TestDb,
    due: &[Due],
    since: DateTime<Utc>,
    by: DateTime<Utc>,
) -> Timeouts {
    let games: Vec<i64> = due.iter().map(|d| d.game).collect();
    let seats: Vec<i32> = due.iter().map(|d| d.seat).collect();
    let ats: Vec<DateTime<Utc>> = due.iter().map(|d| d.at).collect();
    type Row = (i64, i32, DateTime<Utc>, Option<DateTime<Utc>>);
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT d.game, d.seat, d.at, (SELECT min(c.created_at) FROM commands c \
           WHERE c.game_id = d.game AND c.seat = d.seat AND c.made_by = 'clock' \
           AND c.created_at >= d.at) \
         FROM UNNEST($1::bigint[], $2::int[], $3::timestamptz[]) AS d(game, seat, at)",
    )
    .bind(&games)
    .bind(&seats)
    .bind(&ats)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    let mut out = Timeouts {
        late: Vec::new(),
        not_applied: Vec::new(),
        due_late: 0,
        entries: sqlx::query_scalar(
            "SELECT count(*) FROM commands WHERE made_by = 'clock' AND created_at >= $1",
        )
        .bind(since)
        .fetch_one(db.store.pool())
        .await
        .unwrap(),
    };
    for (game, seat, at, acted) in rows {
        match acted {
            Some(acted) => out.late.push((acted - at).as_seconds_f64()),
            None if at <= by => out
                .not_applied
                .push(format!("game {game} seat {seat} due {at}")),
            None => out.due_late += 1,
        }
    }
    out.late.sort_by(f64::total_cmp);
    out
}

/// The `p` quantile of sorted values (0 when empty).
pub fn quantile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A duration in milliseconds, for the report.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
