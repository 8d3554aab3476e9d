//! The scheduler: every tick it claims due deadlines and reminders with `FOR UPDATE SKIP
//! LOCKED`, so any number of processes (`serve`, `worker`) may run it and each deadline is
//! acted on once. A timeout appends the game's own timeout move (or a forfeit), marked as the
//! clock's in the hash chain, through the store like any move: a move that came first wins.

use super::waits::{self, GameClock};
use crate::domain::OnTimeout;
use crate::notices::clock::{News, Readers, enqueue_clock};
use crate::store::{Store, SubmitError};
use crate::time::in_words;
use chrono::{DateTime, Duration, Utc};
use sqlx::Row;
use std::sync::Arc;

/// How many deadlines or reminders one tick takes on at most.
const BATCH: i64 = 200;

/// How long a scheduler holds a deadline it claimed before another may take it.
const LEASE: Duration = Duration::seconds(60);

/// What one tick did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    /// Timeout moves and forfeits appended.
    pub timeouts: usize,
    /// Reminders queued.
    pub reminders: usize,
    /// Organisers asked to act on a game without a time limit.
    pub safety: usize,
    /// Vacations that ran out.
    pub vacations_ended: usize,
    /// Lobby tables that expired unfilled.
    pub tables_expired: usize,
    /// Held replies played (their hour's bound let them through).
    pub replies_played: usize,
    /// Inbound mail rows pruned (ended reply addresses, old mail for no seat).
    pub mail_pruned: usize,
    /// What the leagues' pass did: sign-ups closed, rounds started, leagues finished.
    pub leagues: crate::store::LeaguePass,
}

impl Tick {
    /// True if the tick did nothing.
    pub fn is_idle(&self) -> bool {
        *self == Tick::default()
    }
}

/// Runs the clock's ticks over a store (whose clock says what "now" is).
pub struct Scheduler {
    store: Arc<Store>,
    replies: Option<Arc<crate::replies::Inbox>>,
}

impl Scheduler {
    /// A scheduler over `store`.
    pub fn new(store: Arc<Store>) -> Scheduler {
        Scheduler {
            store,
            replies: None,
        }
    }

    /// The same scheduler playing, on each tick, the replies held by the hourly bound whose
    /// time has come, through `inbox`.
    pub fn with_replies(mut self, inbox: Arc<crate::replies::Inbox>) -> Scheduler {
        self.replies = Some(inbox);
        self
    }

    /// Runs ticks every `every` until `stop` turns true.
    pub async fn run(
        &self,
        every: std::time::Duration,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) {
        loop {
            match self.tick().await {
                Ok(t) if !t.is_idle() => {
                    crate::telemetry::clock("timeout", t.timeouts);
                    crate::telemetry::clock("reminder", t.reminders);
                    crate::telemetry::clock("safety", t.safety);
                    crate::telemetry::clock("vacation_ended", t.vacations_ended);
                    crate::telemetry::clock("table_expired", t.tables_expired);
                    crate::telemetry::clock("held_reply_played", t.replies_played);
                    tracing::info!(?t, "clock tick")
                }
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "clock tick failed"),
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = stop.changed() => return,
            }
            if *stop.borrow() {
                return;
            }
        }
    }

    /// One tick: vacations that ran out, due deadlines, due reminders, lobby tables past
    /// their time, held replies now due, until none is left (in batches); then the leagues' pass
    /// (`store::league_life`) and the pruning of inbound mail that ended.
    pub async fn tick(&self) -> Result<Tick, sqlx::Error> {
        let now = self.store.now();
        let mut tick = Tick {
            vacations_ended: super::controls::end_due_vacations(&self.store, now).await?,
            ..Tick::default()
        };
        for _ in 0..100 {
            let claimed = self.claim_deadlines(now).await?;
            if claimed.is_empty() {
                break;
            }
            for (game, seat, seq) in claimed {
                self.act_on_deadline(game, seat, seq, now, &mut tick)
                    .await?;
            }
        }
        while let n @ 1.. = self.send_reminders(now).await? {
            tick.reminders += n;
        }
        loop {
            match self.store.expire_tables(now).await {
                Ok(0) => break,
                Ok(n) => tick.tables_expired += n,
                Err(e) => {
                    tracing::error!(error = %e, "expiring lobby tables failed");
                    break;
                }
            }
        }
        if let Some(inbox) = &self.replies {
            loop {
                match inbox.play_held().await {
                    Ok(0) => break,
                    Ok(n) => tick.replies_played += n,
                    Err(e) => {
                        tracing::error!(error = %e, "playing held replies failed");
                        break;
                    }
                }
            }
        }
        // After the timeouts, so a game the clock just ended lets its league move on now.
        match self.store.run_leagues().await {
            Ok(pass) => tick.leagues = pass,
            Err(e) => tracing::error!(error = %e, "the leagues' pass failed"),
        }
        match crate::replies::prune::prune(self.store.pool(), now).await {
            Ok(p) => tick.mail_pruned = (p.reply_addresses + p.unknown_mail) as usize,
            Err(e) => tracing::error!(error = %e, "pruning inbound mail failed"),
        }
        Ok(tick)
    }

    async fn claim_deadlines(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(i64, i32, i64)>, sqlx::Error> {
        let rows = sqlx::query(
            "UPDATE seat_clocks c SET lease_until = $2 FROM ( \
               SELECT game_id, seat FROM seat_clocks \
               WHERE due_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) \
               ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) d \
             WHERE c.game_id = d.game_id AND c.seat = d.seat \
             RETURNING c.game_id, c.seat, c.awaited_seq",
        )
        .bind(now)
        .bind(now + LEASE)
        .bind(BATCH)
        .fetch_all(self.store.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("game_id")?,
                    r.try_get("seat")?,
                    r.try_get("awaited_seq")?,
                ))
            })
            .collect()
    }

    async fn act_on_deadline(
        &self,
        game: i64,
        seat: i32,
        seq: i64,
        now: DateTime<Utc>,
        tick: &mut Tick,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.store.pool().begin().await?;
        let clock = waits::game_clock(&mut tx, game).await?;
        tx.commit().await?;
        if !clock.settings.times_out() {
            return self.ask_organiser(game, seat, &clock, now, tick).await;
        }
        let result = match clock.settings.on_timeout {
            OnTimeout::Move => self.store.play_for_clock(game, seat as usize).await,
            OnTimeout::Forfeit => self.store.forfeit(game, seat as usize).await,
        };
        let _ = seq;
        match result {
            Ok(_) => tick.timeouts += 1,
            // Someone moved first, the game ended, or the seat's wait is a new one.
            // Someone moved at the same moment: look again.
            Err(SubmitError::Conflict { .. }) => {
                sqlx::query(
                    "UPDATE seat_clocks SET lease_until = NULL WHERE game_id = $1 AND seat = $2",
                )
                .bind(game)
                .bind(seat)
                .execute(self.store.pool())
                .await?;
            }
            // The seat is no longer awaited: the deadline is stale.
            Err(SubmitError::Rule(_)) => {
                sqlx::query("UPDATE seat_clocks SET due_at = NULL, lease_until = NULL WHERE game_id = $1 AND seat = $2")
                    .bind(game)
                    .bind(seat)
                    .execute(self.store.pool())
                    .await?;
            }
            Err(SubmitError::Refused(_)) => {}
            Err(SubmitError::Db(e)) => return Err(e),
            Err(e) => tracing::error!(game, seat, error = %e, "the clock could not move"),
        }
        Ok(())
    }

    /// A game without a time limit: the organiser (or, in a game without a desk, every
    /// player) hears that a seat has not moved, once per wait.
    async fn ask_organiser(
        &self,
        game: i64,
        seat: i32,
        clock: &GameClock,
        now: DateTime<Utc>,
        tick: &mut Tick,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.store.pool().begin().await?;
        let row = sqlx::query(
            "UPDATE seat_clocks c SET due_at = NULL, lease_until = NULL FROM seats s, games g \
             WHERE c.game_id = $1 AND c.seat = $2 AND s.game_id = c.game_id AND s.seat = c.seat \
             AND g.id = c.game_id RETURNING s.name, g.kind, g.has_desk, c.awaited_seq",
        )
        .bind(game)
        .bind(seat)
        .fetch_one(&mut *tx)
        .await?;
        let name: String = row.try_get("name")?;
        let kind: String = row.try_get("kind")?;
        let has_desk: bool = row.try_get("has_desk")?;
        let seq: Option<i64> = row.try_get("awaited_seq")?;
        let game_name = crate::games::find_game(&kind).map_or(kind.clone(), |g| g.name().into());
        let since = format!(
            "{name} has not moved since {} ({}).",
            (now - clock.settings.first_allowance()).format("%Y-%m-%d"),
            clock.settings.describe()
        );
        // A game without a desk (a lobby game) has no organiser: every player is asked.
        let (readers, what_now) = if has_desk {
            (
                Readers::Organiser,
                "You may remind them, give the seat a new link, or cancel the game from your organiser page.",
            )
        } else {
            (
                Readers::Everyone,
                "The game has no time limit, so it waits for them. Write to them in the game's messages, or reach them another way.",
            )
        };
        enqueue_clock(
            &mut tx,
            game,
            &game_name,
            readers,
            News {
                event: format!("safety:{}:{seat}", seq.unwrap_or(0)),
                headline: &format!("{name} has not moved for a long time"),
                lines: vec![since, what_now.into()],
            },
        )
        .await?;
        tx.commit().await?;
        tick.safety += 1;
        Ok(())
    }

    /// Queues the due reminders (in one transaction per batch); how many.
    async fn send_reminders(&self, now: DateTime<Utc>) -> Result<usize, sqlx::Error> {
        let mut tx = self.store.pool().begin().await?;
        let rows = sqlx::query(
            "UPDATE seat_clocks c SET reminders = c.reminders + 1, \
               remind_at = CASE WHEN c.reminders = 0 AND c.due_at - interval '24 hours' > $1 \
                                THEN c.due_at - interval '24 hours' END \
             FROM (SELECT game_id, seat FROM seat_clocks WHERE remind_at <= $1 \
                   ORDER BY remind_at LIMIT $2 FOR UPDATE SKIP LOCKED) d, games g \
             WHERE c.game_id = d.game_id AND c.seat = d.seat AND g.id = c.game_id \
             RETURNING c.game_id, c.seat, c.due_at, c.reminders, c.awaited_seq, g.kind",
        )
        .bind(now)
        .bind(BATCH)
        .fetch_all(&mut *tx)
        .await?;
        for row in &rows {
            let game: i64 = row.try_get("game_id")?;
            let seat: i32 = row.try_get("seat")?;
            let due: Option<DateTime<Utc>> = row.try_get("due_at")?;
            let n: i32 = row.try_get("reminders")?;
            let seq: Option<i64> = row.try_get("awaited_seq")?;
            let kind: String = row.try_get("kind")?;
            let Some(due) = due else { continue };
            let left = in_words(due - now);
            let game_name =
                crate::games::find_game(&kind).map_or(kind.clone(), |g| g.name().into());
            enqueue_clock(
                &mut tx,
                game,
                &game_name,
                Readers::Seat(seat as usize),
                News {
                    event: format!("remind:{}:{n}", seq.unwrap_or(0)),
                    headline: &format!("{left} left to move"),
                    lines: vec![format!(
                        "It is your move, and you have {left} left. If your time runs out, the clock moves for you."
                    )],
                },
            )
            .await?;
        }
        tx.commit().await?;
        Ok(rows.len())
    }
}
