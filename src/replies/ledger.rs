//! The inbound messages table and the answers: a message is stored before anything is done
//! with it, and its outcome is written in the same transaction as the answer (and, for a move,
//! as the command itself, through the store's [`AfterAppend`] seam).

use crate::engine::log::render;
use crate::engine::{DynMatch, Seat};
use crate::games::find_game;
use crate::notices::EmailAddress;
use crate::notices::notice::{Answer, Ask, GameRef, Notice};
use crate::notices::outbox::{self, MailSeat, OUTBOX_CHANNEL, fold};
use crate::store::LogEntry;
use crate::store::game::effects::{AfterAppend, Appended, EffectError};
use futures_util::future::BoxFuture;
use sqlx::{PgConnection, PgPool, Row};
use std::time::Duration;

/// How long a message being acted on is left alone before [`resumable`] offers it again.
pub const CLAIM: Duration = Duration::from_secs(120);

/// How a message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The move was made.
    Done,
    /// Refused, with an answer.
    Refused,
    /// Ignored without an answer.
    Ignored,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Refused => "refused",
            Status::Ignored => "ignored",
        }
    }
}

/// A new message to store.
pub struct NewMessage<'a> {
    /// Message-ID or digest.
    pub key: &'a str,
    /// The size as delivered, in bytes.
    pub size: usize,
    /// The bytes kept (capped, secrets cut out).
    pub raw: &'a [u8],
    /// The hash of the reply secret, if there was one.
    pub reply_hash: Option<Vec<u8>>,
    /// The seat it is for, if known.
    pub seat: Option<(i64, Seat)>,
}

/// How much stored mail for no reply address of ours is kept, at most: the newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownCap {
    /// Messages.
    pub rows: i64,
    /// Bytes kept of them, in all.
    pub bytes: i64,
}

/// Stores a message and claims it; `None` when a message with this key is already stored. A
/// message for no seat is stored with the older ones for no seat trimmed to `cap`, in one
/// transaction under a lock, so the cap holds whatever number of processes receive at once.
pub async fn store(
    pool: &PgPool,
    message: NewMessage<'_>,
    cap: UnknownCap,
) -> Result<Option<i64>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    if message.seat.is_none() {
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('inbound-unknown', 0))")
            .execute(&mut *tx)
            .await?;
    }
    let id: Option<i64> = sqlx::query_scalar(
        "INSERT INTO inbound_mail (message_key, size, raw, reply_hash, game_id, seat, claimed_until) \
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) \
         ON CONFLICT (message_key) DO NOTHING RETURNING id",
    )
    .bind(message.key)
    .bind(i32::try_from(message.size).unwrap_or(i32::MAX))
    .bind(message.raw)
    .bind(message.reply_hash)
    .bind(message.seat.map(|s| s.0))
    .bind(message.seat.map(|s| s.1 as i32))
    .bind(CLAIM.as_secs_f64())
    .fetch_optional(&mut *tx)
    .await?;
    if message.seat.is_none() && id.is_some() {
        trim_unknown(&mut tx, cap).await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// Deletes the oldest stored messages for no seat beyond `cap`; returns how many.
async fn trim_unknown(tx: &mut PgConnection, cap: UnknownCap) -> Result<u64, sqlx::Error> {
    let deleted = sqlx::query(
        "DELETE FROM inbound_mail WHERE id IN (SELECT id FROM \
             (SELECT id, row_number() OVER newest AS n, sum(octet_length(raw)) OVER newest AS bytes \
              FROM inbound_mail WHERE game_id IS NULL \
              WINDOW newest AS (ORDER BY id DESC ROWS UNBOUNDED PRECEDING)) kept \
         WHERE n > $1 OR bytes > $2)",
    )
    .bind(cap.rows)
    .bind(cap.bytes)
    .execute(tx)
    .await?;
    Ok(deleted.rows_affected())
}

/// How long stored mail for no seat is kept at most.
pub const UNKNOWN_DAYS: i32 = 7;

/// Deletes stored mail for no seat older than [`UNKNOWN_DAYS`] at `now`, a batch of at most
/// `limit`; returns how many.
pub async fn prune_unknown(
    pool: &PgPool,
    now: chrono::DateTime<chrono::Utc>,
    limit: i64,
) -> Result<u64, sqlx::Error> {
    let deleted = sqlx::query(
        "DELETE FROM inbound_mail WHERE id IN (SELECT id FROM inbound_mail \
         WHERE game_id IS NULL AND received_at < $1 - make_interval(days => $2) LIMIT $3)",
    )
    .bind(now)
    .bind(UNKNOWN_DAYS)
    .bind(limit)
    .execute(pool)
    .await?;
    Ok(deleted.rows_affected())
}

/// A stored message left undecided (the process stopped midway), claimed again.
pub struct Resumable {
    /// Its id.
    pub id: i64,
    /// The bytes kept.
    pub raw: Vec<u8>,
    /// The size as delivered.
    pub size: usize,
    /// The hash of its reply secret.
    pub reply_hash: Option<Vec<u8>>,
}

/// Claims up to `limit` messages whose handling stopped midway.
pub async fn resumable(pool: &PgPool, limit: i64) -> Result<Vec<Resumable>, sqlx::Error> {
    let rows = sqlx::query(
        "UPDATE inbound_mail SET claimed_until = now() + make_interval(secs => $2) \
         WHERE id IN (SELECT id FROM inbound_mail WHERE status = 'received' \
             AND claimed_until < now() ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) \
         RETURNING id, raw, size, reply_hash",
    )
    .bind(limit)
    .bind(CLAIM.as_secs_f64())
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Resumable {
                id: r.try_get("id")?,
                raw: r.try_get("raw")?,
                size: r.try_get::<i32, _>("size")? as usize,
                reply_hash: r.try_get("reply_hash")?,
            })
        })
        .collect()
}

/// Claims up to `limit` held replies whose time has come at `now`, the earliest first: each
/// goes back to being received (so a process stopped while playing it leaves it to
/// [`resumable`]).
pub async fn due_held(
    pool: &PgPool,
    now: chrono::DateTime<chrono::Utc>,
    limit: i64,
) -> Result<Vec<Resumable>, sqlx::Error> {
    let rows = sqlx::query(
        "UPDATE inbound_mail SET status = 'received', claimed_until = now() + make_interval(secs => $3) \
         WHERE id IN (SELECT id FROM inbound_mail WHERE status = 'held' AND counted_at <= $1 \
             ORDER BY counted_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) \
         RETURNING id, raw, size, reply_hash, counted_at",
    )
    .bind(now)
    .bind(limit)
    .bind(CLAIM.as_secs_f64())
    .fetch_all(pool)
    .await?;
    let mut due = rows
        .iter()
        .map(|r| {
            let at: chrono::DateTime<chrono::Utc> = r.try_get("counted_at")?;
            Ok((
                (at, r.try_get::<i64, _>("id")?),
                Resumable {
                    id: r.try_get("id")?,
                    raw: r.try_get("raw")?,
                    size: r.try_get::<i32, _>("size")? as usize,
                    reply_hash: r.try_get("reply_hash")?,
                },
            ))
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    due.sort_by_key(|(order, _)| *order);
    Ok(due.into_iter().map(|(_, r)| r).collect())
}

async fn decide(
    tx: &mut PgConnection,
    id: i64,
    status: Status,
    outcome: &str,
    seq: Option<i64>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE inbound_mail SET status = $2, outcome = $3, seq = $4, decided_at = now(), \
         claimed_until = NULL WHERE id = $1",
    )
    .bind(id)
    .bind(status.word())
    .bind(outcome)
    .bind(seq)
    .execute(tx)
    .await?;
    Ok(())
}

/// Records an outcome with no answer.
pub async fn ignore(pool: &PgPool, id: i64, why: &str) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    decide(&mut tx, id, Status::Ignored, why, None).await?;
    tx.commit().await
}

/// What an answer says.
pub struct Reply<'a> {
    /// The inbound message's id.
    pub id: i64,
    /// The seat answered.
    pub seat: Seat,
    /// The line that was read.
    pub line: &'a str,
    /// What was played, or why nothing was.
    pub text: &'a str,
}

/// Queues the answer to `seat` (at its own address, never the message's sender), showing
/// the position in `game` at log head `seq` and the log since `since`. A `foldable` answer to
/// a reply played, when nothing is asked of the seat now, waits for the seat's next mail to
/// carry it ([`fold`]), unless the seat wants every answer or its mail is not sent each turn.
#[allow(clippy::too_many_arguments)]
async fn answer(
    tx: &mut PgConnection,
    game_id: i64,
    seq: i64,
    game: &dyn DynMatch,
    log: &[LogEntry],
    since: i64,
    reply: &Reply<'_>,
    (played, foldable): (bool, bool),
) -> Result<(), sqlx::Error> {
    let seats = outbox::mail_seats(tx, game_id).await?;
    let Some(seat) = seats.iter().find(|s| s.seat == reply.seat) else {
        return Ok(());
    };
    let (Some(to), Some(kind)) = (&seat.email, find_game(game.game_id())) else {
        return Ok(());
    };
    if seat.pref == "off" {
        return Ok(());
    }
    let names: Vec<String> = seats.iter().map(|s: &MailSeat| s.name.clone()).collect();
    let ask = if game.outcome().is_some() {
        Ask::default()
    } else {
        crate::notices::turn::ask(tx, game_id, game, (reply.seat, seq), &names).await?
    };
    let token = outbox::mint_link(tx, game_id, reply.seat).await?;
    let notice = Notice::Answer(Answer {
        answered: Vec::new(),
        game: GameRef {
            home: None,
            id: game_id,
            name: kind.name().to_string(),
        },
        you: outbox::player(kind, seat, seats.len()),
        line: crate::notices::mail::compose::one_line(reply.line, 200),
        played,
        held: false,
        text: reply.text.to_string(),
        lines: log
            .iter()
            .filter(|(s, _, _)| *s > since)
            .flat_map(|(_, _, lines)| lines.iter().map(|l| render(l, &names)))
            .collect(),
        ask,
        token,
    });
    let waits = foldable
        && played
        && seat.pref == "every"
        && matches!(&notice, Notice::Answer(a) if a.ask.replies.is_empty())
        && !fold::every_answer(tx, game_id, reply.seat).await?;
    let event = format!("answer:{}", reply.id);
    let row = AnswerRow {
        seat: reply.seat,
        event: &event,
        to,
        name: &seat.name,
        waits,
    };
    insert_answer(tx, game_id, row, &notice).await
}

/// Where an answer goes, and whether it waits to be carried by the seat's next mail.
struct AnswerRow<'a> {
    seat: Seat,
    event: &'a str,
    to: &'a EmailAddress,
    name: &'a str,
    waits: bool,
}

async fn insert_answer(
    tx: &mut PgConnection,
    game_id: i64,
    row: AnswerRow<'_>,
    notice: &Notice,
) -> Result<(), sqlx::Error> {
    let wait = if row.waits {
        fold::ANSWER_WAIT
    } else {
        Duration::ZERO
    };
    sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, \
         fold, due_at) VALUES ($1, $2, $3, 'answer', $4, $5, $6, $7, \
         now() + make_interval(secs => $8)) ON CONFLICT (game_id, event, recipient) DO NOTHING",
    )
    .bind(game_id)
    .bind(row.seat as i32)
    .bind(row.event)
    .bind(row.to.as_str())
    .bind(row.name)
    .bind(serde_json::to_value(notice).expect("notices serialize"))
    .bind(row.waits)
    .bind(wait.as_secs_f64())
    .execute(&mut *tx)
    .await?;
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(OUTBOX_CHANNEL)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// Queues the mail that tells `seat` of `game_id` that its reply `id` is held, and when it
/// will be played (`text`): no position and no reply address, since replying again only
/// queues behind it. Written in the transaction that holds the reply.
pub async fn held(
    tx: &mut PgConnection,
    (game_id, seat): (i64, Seat),
    id: i64,
    text: &str,
) -> Result<(), sqlx::Error> {
    let seats = outbox::mail_seats(tx, game_id).await?;
    let Some(mail_seat) = seats.iter().find(|s| s.seat == seat) else {
        return Ok(());
    };
    let kind: String = sqlx::query_scalar("SELECT kind FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_one(&mut *tx)
        .await?;
    let (Some(to), Some(kind)) = (&mail_seat.email, find_game(&kind)) else {
        return Ok(());
    };
    if mail_seat.pref == "off" {
        return Ok(());
    }
    let token = outbox::mint_link(tx, game_id, seat).await?;
    let notice = Notice::Answer(Answer {
        answered: Vec::new(),
        game: GameRef {
            home: None,
            id: game_id,
            name: kind.name().to_string(),
        },
        you: outbox::player(kind, mail_seat, seats.len()),
        line: String::new(),
        played: false,
        held: true,
        text: text.to_string(),
        lines: Vec::new(),
        ask: Ask::default(),
        token,
    });
    let event = format!("held:{id}");
    let row = AnswerRow {
        seat,
        event: &event,
        to,
        name: &mail_seat.name,
        waits: false,
    };
    insert_answer(tx, game_id, row, &notice).await
}

/// Records a refusal and queues its answer (the reason, the position now and the choices
/// again), in one transaction.
pub async fn refuse(
    pool: &PgPool,
    game_id: i64,
    loaded: &crate::store::Loaded,
    reply: &Reply<'_>,
) -> Result<(), sqlx::Error> {
    let head = loaded.row.head_seq;
    answer_without_move(pool, game_id, loaded, reply, head, Status::Refused).await
}

/// Answers a reply that was done without a move (a standing order given or cancelled): the
/// message is done, and the answer says what was settled, with the position now and the
/// log since `since`.
pub async fn noted(
    pool: &PgPool,
    game_id: i64,
    loaded: &crate::store::Loaded,
    reply: &Reply<'_>,
    since: i64,
) -> Result<(), sqlx::Error> {
    answer_without_move(pool, game_id, loaded, reply, since, Status::Done).await
}

async fn answer_without_move(
    pool: &PgPool,
    game_id: i64,
    loaded: &crate::store::Loaded,
    reply: &Reply<'_>,
    since: i64,
    status: Status,
) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    decide(&mut tx, reply.id, status, reply.text, None).await?;
    let head = loaded.row.head_seq;
    let done = status == Status::Done;
    answer(
        &mut tx,
        game_id,
        head,
        loaded.game.as_ref(),
        &loaded.log,
        since,
        reply,
        (done, false),
    )
    .await?;
    tx.commit().await
}

/// Written in the move's own transaction: the message is done, and the answer queued.
pub struct Played<'a> {
    /// What the answer says.
    pub reply: Reply<'a>,
    /// Played later than it was sent (held by the hourly bound, or answering a mail the game
    /// had moved past): its answer goes out at once, never folded into the next mail.
    pub late: bool,
}

impl AfterAppend for Played<'_> {
    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        appended: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            decide(
                tx,
                self.reply.id,
                Status::Done,
                self.reply.text,
                Some(appended.first_seq),
            )
            .await?;
            answer(
                tx,
                appended.row.id,
                appended.seq,
                appended.game,
                appended.log,
                appended.first_seq - 1,
                &self.reply,
                (true, !self.late),
            )
            .await?;
            Ok(())
        })
    }
}

/// Whether the organiser lets replies come from any address.
pub async fn any_sender(pool: &PgPool, game_id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT mail_any_sender FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_optional(pool)
        .await
        .map(|v| v.unwrap_or(false))
}

/// The organiser's leave for replies from any address (`false`: only the seat's own).
pub async fn set_any_sender(pool: &PgPool, game_id: i64, allowed: bool) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE games SET mail_any_sender = $2 WHERE id = $1")
        .bind(game_id)
        .bind(allowed)
        .execute(pool)
        .await?;
    Ok(())
}

/// Whether the game is over (a reply to it is answered with that alone).
pub async fn game_over(pool: &PgPool, game_id: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT status = 'over' FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_optional(pool)
        .await
        .map(|v| v.unwrap_or(false))
}

/// The seat's address, as stored.
pub async fn seat_email(
    pool: &PgPool,
    game_id: i64,
    seat: Seat,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .fetch_optional(pool)
        .await
        .map(Option::flatten)
}
