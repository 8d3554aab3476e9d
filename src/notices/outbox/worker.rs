//! The outbox worker: claims due rows with `FOR UPDATE SKIP LOCKED` (a claim is a lease: the
//! row is `sending` until it is sent, fails, or the lease lapses after a crash), sends them,
//! records the result, retries with exponential backoff and jitter, and gives up after a
//! configured number of tries (the organiser is told). LISTEN/NOTIFY wakes it; polling is
//! the fallback. Any number of workers in any number of processes may run on one outbox.

use crate::notices::EmailAddress;
use crate::notices::mail::compose::{Envelope, Sender, compose};
use crate::notices::mail::render::{MailContext, Rendered, render, render_digest};
use crate::notices::mail::transport::{SendError, Transport};
use crate::notices::notice::{Answer, Digest, GameRef, Idle, Notice, Player, Undeliverable};
use crate::notices::outbox::{OUTBOX_CHANNEL, fold};
use crate::notices::webhook::{HookClient, HookNotice};
use futures_util::future::Either;
use sqlx::Row;
use sqlx::postgres::{PgListener, PgPool, PgRow};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::watch;

/// What one claimed outbox row sends: a chat notice to a webhook, or a mail (its notice, or why
/// it cannot be read).
enum Outgoing {
    Hook(i64),
    Mail(Box<Result<Notice, SendError>>),
}

/// The pause before the LISTEN connection is made again after it was lost.
const RECONNECT_WAIT: Duration = Duration::from_secs(1);

/// The shortest sleep before looking for a row that comes due without a notification.
const SOONEST_WAKE: Duration = Duration::from_millis(250);

/// How the worker paces itself.
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Tries before a message is given up as undeliverable.
    pub max_attempts: i32,
    /// The wait after the first failure; doubled after each further one.
    pub retry_base: Duration,
    /// The longest wait between tries.
    pub retry_max: Duration,
    /// Rows claimed (and sent concurrently) at once.
    pub batch: i64,
    /// How often to look for due rows when no notification comes.
    pub poll: Duration,
    /// How long a claim holds before another worker may take the row (after a crash).
    pub lease: Duration,
    /// A seat on the daily digest gets at most one message per this interval.
    pub digest_every: Duration,
    /// The organiser is told when the seat to move has not moved for this long (once per
    /// position); `None`: never.
    pub idle_after: Option<Duration>,
}

impl Default for WorkerConfig {
    fn default() -> WorkerConfig {
        WorkerConfig {
            max_attempts: 8,
            retry_base: Duration::from_secs(60),
            retry_max: Duration::from_secs(6 * 3600),
            batch: 16,
            poll: Duration::from_secs(30),
            lease: Duration::from_secs(600),
            digest_every: Duration::from_secs(24 * 3600),
            idle_after: Some(Duration::from_secs(72 * 3600)),
        }
    }
}

/// The wait before try number `attempts + 1`: `base · 2^(attempts-1)`, at most `max`, times a
/// random factor in [0.5, 1) so that many failed messages do not all come back at once.
pub fn backoff(config: &WorkerConfig, attempts: i32, jitter: f64) -> Duration {
    let exponent = attempts.saturating_sub(1).clamp(0, 30) as u32;
    let full = config
        .retry_base
        .saturating_mul(1u32 << exponent)
        .min(config.retry_max);
    full.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
}

fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u32::from_le_bytes(bytes) as f64 / (u32::MAX as f64 + 1.0)
}

/// One claimed row.
#[derive(Debug, Clone)]
struct Claimed {
    id: i64,
    /// None for mail about an account or a table still filling.
    game_id: Option<i64>,
    seat: Option<i32>,
    event: String,
    recipient: String,
    recipient_name: String,
    payload: serde_json::Value,
    attempts: i32,
    /// The webhook a chat notice goes to; `None` for mail.
    webhook_id: Option<i64>,
}

fn claimed(row: &PgRow) -> Result<Claimed, sqlx::Error> {
    Ok(Claimed {
        id: row.try_get("id")?,
        game_id: row.try_get("game_id")?,
        seat: row.try_get("seat")?,
        event: row.try_get("event")?,
        recipient: row.try_get("recipient")?,
        recipient_name: row.try_get("recipient_name")?,
        payload: row.try_get("payload")?,
        attempts: row.try_get("attempts")?,
        webhook_id: row.try_get("webhook_id")?,
    })
}

macro_rules! returning {
    () => {
        " RETURNING id, game_id, seat, event, recipient, recipient_name, payload, attempts, webhook_id"
    };
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// Messages sent.
    pub sent: usize,
    /// Messages that failed and will be tried again.
    pub retrying: usize,
    /// Messages given up.
    pub failed: usize,
}

impl Pass {
    /// Rows handled in all.
    pub fn handled(&self) -> usize {
        self.sent + self.retrying + self.failed
    }
}

/// An outbox worker.
pub struct Worker {
    pool: PgPool,
    transport: Transport,
    sender: Sender,
    ctx: MailContext,
    config: WorkerConfig,
    hooks: HookClient,
}

impl Worker {
    /// A worker sending through `transport` as `sender`, with links under `ctx`.
    pub fn new(
        pool: PgPool,
        transport: Transport,
        sender: Sender,
        ctx: MailContext,
        config: WorkerConfig,
    ) -> Worker {
        Worker {
            pool,
            transport,
            sender,
            ctx,
            config,
            hooks: HookClient::new(false),
        }
    }

    /// The same worker sending chat notices through `hooks` (by default a client that
    /// reaches public addresses only).
    pub fn with_webhooks(mut self, hooks: HookClient) -> Worker {
        self.hooks = hooks;
        self
    }

    /// Runs until `shutdown` turns true: a pass whenever a notification comes or the poll
    /// interval passes, and at once again while passes find work.
    pub async fn run(&self, mut shutdown: watch::Receiver<bool>) {
        let mut listener = match PgListener::connect_with(&self.pool).await {
            Ok(mut l) => match l.listen(OUTBOX_CHANNEL).await {
                Ok(()) => Some(l),
                Err(e) => {
                    tracing::warn!(error = %e, "outbox: LISTEN failed, polling only");
                    None
                }
            },
            Err(e) => {
                tracing::warn!(error = %e, "outbox: no listener connection, polling only");
                None
            }
        };
        tracing::info!(
            poll_secs = self.config.poll.as_secs_f64(),
            "outbox worker running"
        );
        let mut idle_checked: Option<tokio::time::Instant> = None;
        loop {
            if *shutdown.borrow() {
                break;
            }
            if idle_checked.is_none_or(|at| at.elapsed() >= self.config.poll) {
                idle_checked = Some(tokio::time::Instant::now());
                if let Err(e) = self.idle_pass().await {
                    tracing::error!(error = %e, "outbox: looking for idle seats failed");
                }
            }
            match self.pass().await {
                Ok(pass) if pass.handled() > 0 => {
                    crate::telemetry::outbox(pass.sent, pass.retrying, pass.failed);
                    continue;
                }
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "outbox pass failed"),
            }
            // A row may come due without a notification (a retry's backoff, a lapsed lease
            // after a crash or a failover, a folded answer): sleep until the first one.
            let until_due = match self.next_due().await {
                Ok(Some(wait)) => wait.min(self.config.poll),
                Ok(None) => self.config.poll,
                Err(e) => {
                    tracing::warn!(error = %e, "outbox: finding the next due row failed");
                    self.config.poll
                }
            };
            let wake = async {
                match listener.as_mut() {
                    Some(l) => {
                        if let Err(e) = l.recv().await {
                            // The next `recv` connects again (to the primary the pool
                            // follows): soon, not a whole poll interval later.
                            tracing::warn!(error = %e, "outbox: listener lost, reconnecting");
                            tokio::time::sleep(self.config.poll.min(RECONNECT_WAIT)).await;
                        }
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wake => {}
                _ = tokio::time::sleep(until_due) => {}
                changed = shutdown.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
            }
        }
        tracing::info!("outbox worker stopped");
    }

    /// How long until the first mail or chat notice waiting comes due (digests keep to the
    /// poll); `None` when none waits. At least `SOONEST_WAKE`: a row already due that this
    /// pass did not take is another worker's, and is not looked at again in a tight loop.
    pub async fn next_due(&self) -> Result<Option<Duration>, sqlx::Error> {
        let wait: Option<f64> = sqlx::query_scalar(
            "SELECT extract(epoch FROM min(due_at) - now())::float8 FROM outbox \
             WHERE status IN ('pending', 'sending') AND NOT digest",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(wait.map(|s| Duration::from_secs_f64(s.max(0.0)).max(SOONEST_WAKE)))
    }

    /// One pass: claims a batch of due messages and sends them concurrently, then one due
    /// digest.
    pub async fn pass(&self) -> Result<Pass, sqlx::Error> {
        let rows = sqlx::query(concat!(
            "UPDATE outbox SET status = 'sending', attempts = attempts + 1, \
             due_at = now() + make_interval(secs => $2), folded_into = NULL \
             WHERE id IN (SELECT id FROM outbox \
                 WHERE status IN ('pending', 'sending') AND due_at <= now() AND NOT digest \
                 ORDER BY due_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)",
            returning!()
        ))
        .bind(self.config.batch)
        .bind(self.config.lease.as_secs_f64())
        .fetch_all(&self.pool)
        .await?;
        let mut rows: Vec<Claimed> = rows.iter().map(claimed).collect::<Result<_, _>>()?;
        rows.sort_by_key(|r| r.id);
        let results = self.deliver_all(&rows).await;
        let mut pass = Pass::default();
        let (sent, unsent): (Vec<_>, Vec<_>) = rows
            .iter()
            .zip(results)
            .partition(|(_, result)| matches!(result, Ok(true)));
        // What went out is recorded first: a batch's other rows cannot be written while the
        // database is away (a failover), and a row left `sending` goes out again when its
        // lease lapses.
        if !sent.is_empty() {
            let sent: Vec<&Claimed> = sent.into_iter().map(|(row, _)| row).collect();
            self.record(&sent, Ok(()), &mut pass).await?;
        }
        for (row, result) in unsent {
            match result {
                Ok(_) => self.skip(&[row], &mut pass).await?,
                Err(e) => self.record(&[row], Err(e), &mut pass).await?,
            }
        }
        self.digest_pass(&mut pass).await?;
        Ok(pass)
    }

    /// Sends `rows` side by side. First the answers waiting for the seats' next mails are
    /// handed to the mails of the batch that can carry them ([`fold::take_waiting`]), each to
    /// the seat's next mail after it, so which mail carries an answer does not depend on which
    /// gets there first. Returns each row's result in `rows`' order.
    async fn deliver_all(&self, rows: &[Claimed]) -> Vec<Result<bool, SendError>> {
        let outgoing: Vec<Outgoing> = rows
            .iter()
            .map(|row| match row.webhook_id {
                Some(hook) => Outgoing::Hook(hook),
                None => Outgoing::Mail(Box::new(
                    serde_json::from_value(row.payload.clone()).map_err(|e| SendError {
                        permanent: true,
                        message: format!("unreadable outbox row: {e}"),
                    }),
                )),
            })
            .collect();
        let carriers: Vec<i64> = rows
            .iter()
            .zip(&outgoing)
            .filter(|(row, out)| {
                row.game_id.is_some()
                    && row.seat.is_some()
                    && matches!(out, Outgoing::Mail(n) if n.as_ref().as_ref().is_ok_and(fold::can_carry))
            })
            .map(|(row, _)| row.id)
            .collect();
        let mut taken = if carriers.is_empty() {
            HashMap::new()
        } else {
            // Without them the mails go out all the same; the answers wait for a later mail.
            fold::take_waiting(&self.pool, &carriers, self.config.lease)
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "answers waiting for the next mail not taken");
                    HashMap::new()
                })
        };
        let deliveries = rows.iter().zip(outgoing).map(|(row, out)| match out {
            Outgoing::Hook(hook) => Either::Left(self.deliver_hook(row, hook)),
            Outgoing::Mail(notice) => {
                let answers = taken.remove(&row.id).unwrap_or_default();
                Either::Right(self.deliver(row, *notice, answers))
            }
        });
        futures_util::future::join_all(deliveries).await
    }

    /// Queues an organiser notice for each running game whose seat to move has not moved
    /// for `idle_after`: one per game position and seat, whichever workers look. Returns
    /// the notices queued.
    pub async fn idle_pass(&self) -> Result<usize, crate::store::StoreError> {
        let Some(after) = self.config.idle_after else {
            return Ok(0);
        };
        let games: Vec<(i64, i64, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
            "SELECT g.id, g.head_seq, g.updated_at FROM games g \
             WHERE g.status = 'running' AND g.organiser_email IS NOT NULL \
             AND g.updated_at <= now() - make_interval(secs => $1) \
             AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.game_id = g.id \
                 AND o.kind = 'idle' AND o.event LIKE 'idle:' || g.head_seq || ':%') \
             ORDER BY g.updated_at LIMIT 100",
        )
        .bind(after.as_secs_f64())
        .fetch_all(&self.pool)
        .await?;
        let store = crate::store::Store::from_pool(self.pool.clone());
        let mut queued = 0;
        for (id, head_seq, since) in games {
            let loaded = store.load(id).await?;
            let Some(kind) = crate::games::find_game(&loaded.row.kind) else {
                continue;
            };
            if loaded.row.head_seq != head_seq || loaded.game.outcome().is_some() {
                continue;
            }
            let seats = store.seats(id).await?;
            let mut tx = self.pool.begin().await?;
            for seat in loaded.game.active() {
                let name = seats
                    .iter()
                    .find(|s| s.seat == seat)
                    .map_or_else(|| format!("seat {}", seat + 1), |s| s.name.clone());
                let notice = Notice::Idle(Idle {
                    game: GameRef {
                        home: None,
                        id,
                        name: kind.name().to_string(),
                    },
                    seat: Player {
                        name,
                        seat: kind.seat_name(seat, seats.len()),
                    },
                    since,
                });
                let inserted = sqlx::query(
                    "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload) \
                     SELECT id, NULL, $2, 'idle', organiser_email, 'Organiser', $3 FROM games \
                     WHERE id = $1 AND organiser_email IS NOT NULL \
                     ON CONFLICT (game_id, event, recipient) DO NOTHING",
                )
                .bind(id)
                .bind(format!("idle:{head_seq}:{seat}"))
                .bind(serde_json::to_value(&notice).expect("notices serialize"))
                .execute(&mut *tx)
                .await?;
                queued += inserted.rows_affected() as usize;
            }
            tx.commit().await?;
        }
        if queued > 0 {
            tracing::info!(queued, "organiser told of idle seats");
        }
        Ok(queued)
    }

    fn message_key(row: &Claimed) -> String {
        let who = row.seat.map_or("org".to_string(), |s| format!("s{s}"));
        let about = row.game_id.map_or("a".to_string(), |g| format!("g{g}"));
        format!("pp.{about}.{}.{who}", row.event.replace(':', "."))
    }

    /// Sends one row with `answers` (taken for it by [`fold::take_waiting`]) at its top, and
    /// settles them: folded into it when it went out, given back when not. False when there was
    /// nothing left to send (every message of the thread it carried was hidden since it was
    /// queued).
    async fn deliver(
        &self,
        row: &Claimed,
        notice: Result<Notice, SendError>,
        answers: Vec<(i64, Answer)>,
    ) -> Result<bool, SendError> {
        let (ids, answers): (Vec<i64>, Vec<Answer>) = answers.into_iter().unzip();
        let (sent, carried) = match notice {
            Ok(mut notice) => {
                let carried = !answers.is_empty() && fold::carry(&mut notice, &answers);
                (self.send_notice(row, notice).await, carried)
            }
            Err(e) => (Err(e), false),
        };
        if ids.is_empty() {
            return sent;
        }
        // A failed write leaves the claim to lapse: the answers then go out on their own, later.
        let settled = match (&sent, carried) {
            (Ok(true), true) => fold::folded(&self.pool, &ids, row.id).await,
            _ => fold::released(&self.pool, &ids, row.id).await,
        };
        if let Err(e) = settled {
            tracing::warn!(?ids, error = %e, "answers carried: their rows not updated");
        }
        sent
    }

    /// Sends one notice; false when there was nothing left to send.
    async fn send_notice(&self, row: &Claimed, mut notice: Notice) -> Result<bool, SendError> {
        let permanent = |message: String| SendError {
            permanent: true,
            message,
        };
        if !crate::notices::outbox::drop_hidden(&self.pool, &mut notice)
            .await
            .map_err(|e| SendError {
                permanent: false,
                message: format!("database: {e}"),
            })?
        {
            return Ok(false);
        }
        let database = |e: sqlx::Error| SendError {
            permanent: false,
            message: format!("database: {e}"),
        };
        if let Some(game_id) = row.game_id
            && let Some(game) = notice.game_mut()
        {
            game.home = crate::notices::outbox::home(&self.pool, game_id)
                .await
                .map_err(database)?;
        }
        let sent = match render(&notice, &self.ctx) {
            Ok(rendered) => {
                let thread = match (row.seat, &notice) {
                    (_, Notice::Invite(_)) => None,
                    (Some(seat), _) => row.game_id.map(|game| format!("pp.g{game}.invite.s{seat}")),
                    (None, _) => None,
                };
                self.send(row, &Self::message_key(row), thread, &rendered)
                    .await
            }
            Err(e) => Err(permanent(format!("template: {e}"))),
        };
        sent.map(|()| true)
    }

    /// Sends one chat notice to its webhook; false when the webhook was removed meanwhile.
    async fn deliver_hook(&self, row: &Claimed, hook: i64) -> Result<bool, SendError> {
        let target = crate::store::Store::from_pool(self.pool.clone())
            .webhook_target(hook)
            .await
            .map_err(|e| SendError {
                permanent: false,
                message: format!("database: {e}"),
            })?;
        let Some(target) = target else {
            return Ok(false);
        };
        let notice: HookNotice =
            serde_json::from_value(row.payload.clone()).map_err(|e| SendError {
                permanent: true,
                message: format!("unreadable outbox row: {e}"),
            })?;
        let request = crate::notices::webhook::body::request(
            target.kind,
            target.secret.as_deref(),
            &notice,
            row.id,
            &self.ctx.base_url,
        );
        self.hooks.post(&target.url, request).await.map(|()| true)
    }

    /// Marks rows that were not sent because nothing was left in them to send.
    async fn skip(&self, rows: &[&Claimed], pass: &mut Pass) -> Result<(), sqlx::Error> {
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        sqlx::query(
            "UPDATE outbox SET status = 'failed',              last_error = 'not sent: every message of the thread in it was hidden by the organiser'              WHERE id = ANY($1)",
        )
        .bind(&ids)
        .execute(&self.pool)
        .await?;
        pass.failed += rows.len();
        Ok(())
    }

    async fn send(
        &self,
        row: &Claimed,
        key: &str,
        thread: Option<String>,
        rendered: &Rendered,
    ) -> Result<(), SendError> {
        let to = EmailAddress::parse(&row.recipient).map_err(|e| SendError {
            permanent: true,
            message: e.to_string(),
        })?;
        let envelope = Envelope {
            to,
            to_name: row.recipient_name.clone(),
            message_id: self.sender.message_id(key),
            thread: thread.map(|t| self.sender.message_id(&t)),
        };
        let message = compose(&self.sender, &envelope, rendered).map_err(|e| SendError {
            permanent: true,
            message: e.to_string(),
        })?;
        self.transport.send(&message, rendered).await
    }

    /// Records how sending went for `rows` (one digest, or a batch that all went out).
    async fn record(
        &self,
        rows: &[&Claimed],
        result: Result<(), SendError>,
        pass: &mut Pass,
    ) -> Result<(), sqlx::Error> {
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        let attempts = rows.iter().map(|r| r.attempts).max().unwrap_or(1);
        match result {
            Ok(()) => {
                self.keep_sent(&ids).await?;
                pass.sent += rows.len();
                tracing::info!(ids = ?ids, "mail sent");
            }
            Err(e) if !e.permanent && attempts < self.config.max_attempts => {
                let wait = backoff(&self.config, attempts, jitter());
                sqlx::query(
                    "UPDATE outbox SET status = 'pending', last_error = $2, \
                     due_at = now() + make_interval(secs => $3) WHERE id = ANY($1)",
                )
                .bind(&ids)
                .bind(&e.message)
                .bind(wait.as_secs_f64())
                .execute(&self.pool)
                .await?;
                pass.retrying += rows.len();
                tracing::warn!(ids = ?ids, attempts, retry_in = ?wait, error = %e, "mail not sent, will retry");
            }
            Err(e) => {
                let mut tx = self.pool.begin().await?;
                sqlx::query(
                    "UPDATE outbox SET status = 'failed', last_error = $2 WHERE id = ANY($1)",
                )
                .bind(&ids)
                .bind(&e.message)
                .execute(&mut *tx)
                .await?;
                // A webhook's failures are its owner's to see on their page, nobody else's.
                for row in rows.iter().filter(|r| r.webhook_id.is_none()) {
                    tell_organiser(&mut tx, row, &e.message).await?;
                }
                tx.commit().await?;
                pass.failed += rows.len();
                tracing::error!(ids = ?ids, attempts, error = %e, "mail undeliverable");
            }
        }
        Ok(())
    }

    /// Records rows as sent. The mail is out already, so a write that fails (the database
    /// primary moving to another host, [`crate::pg::primary`]) is tried again with backoff for
    /// as long as the lease holds: a row left `sending` goes out a second time when its lease
    /// lapses, so giving up sooner would only make that certain.
    async fn keep_sent(&self, ids: &[i64]) -> Result<(), sqlx::Error> {
        let began = std::time::Instant::now();
        let mut wait = Duration::from_millis(100);
        loop {
            // The raw link token and reply secret are not kept once the message is out.
            let written = sqlx::query(
                "UPDATE outbox SET status = 'sent', sent_at = now(), last_error = NULL, \
                 payload = payload - 'token' #- '{ask,reply}' WHERE id = ANY($1)",
            )
            .bind(ids)
            .execute(&self.pool)
            .await;
            match written {
                Ok(_) => return Ok(()),
                Err(e) if began.elapsed() + wait < self.config.lease => {
                    tracing::warn!(ids = ?ids, error = %e, retry_in_ms = wait.as_millis() as u64,
                        "mail sent but not yet recorded as sent: trying again");
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends one due digest: every waiting turn of one recipient on the digest, at most once
    /// per `digest_every`.
    async fn digest_pass(&self, pass: &mut Pass) -> Result<(), sqlx::Error> {
        let rows = sqlx::query(concat!(
            "WITH pick AS (SELECT o.recipient FROM outbox o \
                 WHERE o.digest AND o.status IN ('pending', 'sending') AND o.due_at <= now() \
                 AND NOT EXISTS (SELECT 1 FROM outbox s WHERE s.digest AND s.recipient = o.recipient \
                     AND s.status = 'sent' AND s.sent_at > now() - make_interval(secs => $2)) \
                 ORDER BY o.id LIMIT 1 FOR UPDATE SKIP LOCKED) \
             UPDATE outbox SET status = 'sending', attempts = attempts + 1, \
                 due_at = now() + make_interval(secs => $1) \
             WHERE digest AND status IN ('pending', 'sending') AND due_at <= now() \
                 AND recipient = (SELECT recipient FROM pick)",
            returning!()
        ))
        .bind(self.config.lease.as_secs_f64())
        .bind(self.config.digest_every.as_secs_f64())
        .fetch_all(&self.pool)
        .await?;
        let mut rows: Vec<Claimed> = rows.iter().map(claimed).collect::<Result<_, _>>()?;
        if rows.is_empty() {
            return Ok(());
        }
        rows.sort_by_key(|r| r.id);
        let refs: Vec<&Claimed> = rows.iter().collect();
        match self.send_digest(&rows).await {
            Ok(true) => self.record(&refs, Ok(()), pass).await,
            Ok(false) => self.skip(&refs, pass).await,
            Err(e) => self.record(&refs, Err(e), pass).await,
        }
    }

    /// Sends one digest; false when nothing was left in it to send.
    async fn send_digest(&self, rows: &[Claimed]) -> Result<bool, SendError> {
        let mut turns = Vec::new();
        for row in rows {
            let mut notice = serde_json::from_value::<Notice>(row.payload.clone());
            if let Ok(n) = notice.as_mut() {
                let kept = crate::notices::outbox::drop_hidden(&self.pool, n)
                    .await
                    .map_err(|e| SendError {
                        permanent: false,
                        message: format!("database: {e}"),
                    })?;
                if !kept {
                    continue;
                }
            }
            // News of the clock (a reminder) stands in the digest as its game's entry.
            let notice = match notice {
                Ok(Notice::Clock(news)) if news.token.is_some() => {
                    Ok(Notice::Turn(crate::notices::notice::Turn {
                        answered: Vec::new(),
                        you: crate::notices::notice::Player {
                            name: row.recipient_name.clone(),
                            seat: String::new(),
                        },
                        lines: std::iter::once(news.headline).chain(news.lines).collect(),
                        choices: Vec::new(),
                        deadline: news.deadline,
                        token: news.token.unwrap_or_default(),
                        game: news.game,
                        ask: Default::default(),
                        messages: Vec::new(),
                    }))
                }
                // Messages mailed as written stand in the digest as their game's entry.
                Ok(Notice::Message(news)) => Ok(Notice::Turn(crate::notices::notice::Turn {
                    answered: Vec::new(),
                    you: crate::notices::notice::Player {
                        name: news.name,
                        seat: String::new(),
                    },
                    lines: Vec::new(),
                    choices: Vec::new(),
                    deadline: None,
                    token: news.token,
                    game: news.game,
                    ask: Default::default(),
                    messages: news.messages,
                })),
                other => other,
            };
            if let Ok(Notice::Turn(mut turn)) = notice {
                // The latest notice of each game stands for that game, with every message.
                if let Some(earlier) = turns
                    .iter()
                    .position(|t: &crate::notices::notice::Turn| t.game.id == turn.game.id)
                {
                    let mut messages = turns.remove(earlier).messages;
                    messages.append(&mut turn.messages);
                    turn.messages = messages;
                }
                turns.push(turn);
            }
        }
        for turn in &mut turns {
            turn.game.home = crate::notices::outbox::home(&self.pool, turn.game.id)
                .await
                .map_err(|e| SendError {
                    permanent: false,
                    message: format!("database: {e}"),
                })?;
        }
        let Some(last) = turns.last() else {
            if rows
                .iter()
                .all(|r| r.payload.get("kind").and_then(|k| k.as_str()) == Some("message"))
            {
                return Ok(false);
            }
            return Err(SendError {
                permanent: true,
                message: "a digest without readable turns".into(),
            });
        };
        let token = last.token.clone();
        let first = &rows[0];
        let digest = Digest {
            name: rows[rows.len() - 1].recipient_name.clone(),
            turns: turns.clone(),
        };
        let rendered = render_digest(&digest, &token, &self.ctx).map_err(|e| SendError {
            permanent: true,
            message: format!("template: {e}"),
        })?;
        self.send(first, &format!("pp.digest.{}", first.id), None, &rendered)
            .await
            .map(|()| true)
    }
}

/// Queues the notice of a seat's undeliverable mail (one per seat and address): to the
/// organiser, or, in a game without a desk, to every other player.
async fn tell_organiser(
    tx: &mut sqlx::PgConnection,
    row: &Claimed,
    error: &str,
) -> Result<(), sqlx::Error> {
    let Some(seat) = row.seat else {
        return Ok(());
    };
    let Ok(notice) = serde_json::from_value::<Notice>(row.payload.clone()) else {
        return Ok(());
    };
    let Some(game) = notice.game().cloned() else {
        return Ok(());
    };
    let player = match &notice {
        Notice::Invite(n) => n.you.clone(),
        Notice::Turn(n) => n.you.clone(),
        Notice::Over(n) => n.you.clone(),
        _ => Player {
            name: row.recipient_name.clone(),
            seat: format!("seat {}", seat + 1),
        },
    };
    // The organiser hears the address and what the mail server said; in a game without a
    // desk (a lobby game) every other player hears only that the mail did not arrive.
    let for_organiser = Notice::Undeliverable(Undeliverable {
        game: game.clone(),
        seat: player.clone(),
        address: row.recipient.clone(),
        error: error.to_string(),
    });
    let for_players = Notice::Undeliverable(Undeliverable {
        game,
        seat: player,
        address: String::new(),
        error: String::new(),
    });
    sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload) \
         SELECT id, NULL::integer, $2, 'undeliverable', organiser_email, 'Organiser', $3 FROM games \
         WHERE id = $1 AND has_desk AND organiser_email IS NOT NULL \
         UNION ALL \
         SELECT s.game_id, NULL::integer, $2, 'undeliverable', s.email, s.name, $4 FROM seats s \
         JOIN games g ON g.id = s.game_id \
         WHERE g.id = $1 AND NOT g.has_desk AND s.seat <> $5 AND s.email IS NOT NULL \
         AND s.mail_pref <> 'off' \
         ON CONFLICT (game_id, event, recipient) DO NOTHING",
    )
    .bind(row.game_id)
    .bind(format!("undeliverable:{seat}:{}", row.recipient))
    .bind(serde_json::to_value(&for_organiser).expect("notices serialize"))
    .bind(serde_json::to_value(&for_players).expect("notices serialize"))
    .bind(seat)
    .execute(&mut *tx)
    .await?;
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(OUTBOX_CHANNEL)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter_in_the_upper_half() {
        let config = WorkerConfig {
            retry_base: Duration::from_secs(10),
            retry_max: Duration::from_secs(100),
            ..WorkerConfig::default()
        };
        assert_eq!(backoff(&config, 1, 1.0), Duration::from_secs(10));
        assert_eq!(backoff(&config, 2, 1.0), Duration::from_secs(20));
        assert_eq!(backoff(&config, 3, 1.0), Duration::from_secs(40));
        assert_eq!(backoff(&config, 5, 1.0), Duration::from_secs(100));
        assert_eq!(backoff(&config, 40, 1.0), Duration::from_secs(100));
        assert_eq!(backoff(&config, 2, 0.0), Duration::from_secs(10));
        let j = jitter();
        assert!((0.0..1.0).contains(&j));
    }
}
