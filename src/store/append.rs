//! Appending to a game's log: a move (a seat's, the clock's, the organiser's ending) and, in
//! the same transaction, the moves it leaves settled: a seat's only possible move where that
//! is public or the seat asked for it, and what a seat's standing orders decide. Each is an
//! entry of its own in the hash chain, marked with who made it ([`Mark`]).

use super::effects::{AfterAppend, Appended};
use super::{Loaded, Store, StoreError, SubmitError, chain_time};
use crate::engine::audit::{Entry, genesis, link};
use crate::engine::record::{Mark, cancel_command, forfeit_command, undo_command};
use crate::engine::{ApplyError, DynMatch, Log, RuleError, Seat};
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, Row};
use std::sync::Arc;

/// At most this many entries are played for seats after one move: more than any game's
/// longest run of settled decisions, so a game that would loop is cut short, not hung.
const MAX_SETTLED: usize = 500;

/// What is appended: a seat's own command or its taking back of its last one, the clock's
/// timeout move or forfeit, or the organiser's cancellation.
#[derive(Clone, Copy)]
pub(super) enum Play<'a> {
    Seat(&'a Value),
    Undo,
    ClockMove(&'a Value),
    BotMove(&'a Value),
    Forfeit,
    Cancel(&'a str),
}

/// One entry made in memory, before it is written.
struct Pending {
    seat: Seat,
    command: Value,
    by: Option<Mark>,
    /// The seats awaited before it.
    before: Vec<Seat>,
    /// The match after it, for every entry but the last (the last one's is the game itself).
    after: Option<Box<dyn DynMatch>>,
}

/// What each seat has settled ahead: whether its only possible moves are played for it, and
/// its standing orders.
#[derive(Debug, Clone, Default)]
pub struct Settled {
    /// By seat: "play my forced moves" (the seat's own setting, else its account's default).
    pub play_forced: Vec<bool>,
    /// By seat: the ids of its standing orders.
    pub orders: Vec<Vec<String>>,
}

impl Settled {
    /// The entry settled for some awaited seat of `game`, if any: the first awaited seat (in
    /// seat order) whose only move is public or that plays its forced moves, else whose
    /// standing order decides.
    fn next(&self, game: &dyn DynMatch) -> Option<(Seat, Value, Mark)> {
        if game.outcome().is_some() {
            return None;
        }
        let active = game.active();
        for &seat in &active {
            if let Some(command) = game.forced(seat) {
                let wanted = self.play_forced.get(seat).copied().unwrap_or(false);
                if wanted || game.forced_in_public(seat) {
                    return Some((seat, command, Mark::Auto));
                }
            }
        }
        for &seat in &active {
            for order in self.orders.get(seat).into_iter().flatten() {
                if let Some(command) = game.standing_command(seat, order) {
                    return Some((seat, command, Mark::Standing));
                }
            }
        }
        None
    }
}

impl Store {
    /// What the seats of game `id` have settled ahead ([`Settled`]).
    pub async fn settled(&self, tx: &mut PgConnection, id: i64) -> Result<Settled, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT s.seat, coalesce(s.play_forced, a.play_forced, false) AS play_forced, \
             coalesce((SELECT array_agg(o.order_id ORDER BY o.made_at, o.order_id) \
                       FROM standing_orders o WHERE o.game_id = s.game_id AND o.seat = s.seat), \
                      '{}') AS orders \
             FROM seats s LEFT JOIN accounts a ON a.id = s.account_id \
             WHERE s.game_id = $1 ORDER BY s.seat",
        )
        .bind(id)
        .fetch_all(tx)
        .await?;
        let mut settled = Settled::default();
        for row in rows {
            settled.play_forced.push(row.try_get("play_forced")?);
            settled.orders.push(row.try_get("orders")?);
        }
        Ok(settled)
    }

    /// Plays whatever the seats of game `id` have settled at its current position (after a
    /// seat turned on "play my forced moves" or gave a standing order); returns the head,
    /// unchanged when nothing was settled.
    pub async fn play_settled(&self, id: i64) -> Result<i64, SubmitError> {
        let loaded = self.load(id).await?;
        if loaded.game.outcome().is_some() {
            return Ok(loaded.row.head_seq);
        }
        let head = loaded.row.head_seq;
        self.write(loaded, Vec::new(), Some(head), None).await
    }

    /// Applies a play and appends it with the entries it settles, in one transaction that
    /// names the seq it expects: of two writers of the same seq exactly one wins, the other
    /// gets `Conflict`. Returns the final head.
    pub(super) async fn append(
        &self,
        id: i64,
        seat: Seat,
        play: Play<'_>,
        expected_head: Option<i64>,
        after: Option<&dyn AfterAppend>,
    ) -> Result<i64, SubmitError> {
        let mut loaded = self.load(id).await?;
        let head = loaded.row.head_seq;
        if expected_head.is_some_and(|e| e != head) {
            return Err(SubmitError::Conflict { head });
        }
        if loaded.game.outcome().is_some() {
            return Err(SubmitError::Refused(
                "the game is over: no more moves can be made".into(),
            ));
        }
        let before = loaded.game.active();
        let game = loaded.game.as_mut();
        let refused = |e: ApplyError| match e {
            ApplyError::Malformed(m) => SubmitError::Malformed(m),
            e @ ApplyError::TooLarge(_) => SubmitError::TooLarge(e.to_string()),
            ApplyError::Rule(r) => SubmitError::Rule(r),
        };
        let mut recorder = Log::recording();
        let (command, by) = match play {
            Play::Seat(command) | Play::ClockMove(command) | Play::BotMove(command) => {
                let command = game.canonical(command).map_err(refused)?;
                game.apply_json(seat, &command, &mut recorder)
                    .map_err(refused)?;
                let by = match play {
                    Play::ClockMove(_) => Some(Mark::Clock),
                    Play::BotMove(_) => Some(Mark::Bot),
                    _ => None,
                };
                if by.is_some() {
                    game.seal();
                }
                (command, by)
            }
            Play::Undo => {
                game.undo(seat, &mut recorder).map_err(SubmitError::Rule)?;
                (undo_command(), Some(Mark::Undo))
            }
            Play::Forfeit => {
                if !before.contains(&seat) {
                    return Err(SubmitError::Rule(RuleError::NotYourTurn));
                }
                let outcome = game.forfeit(seat);
                recorder.push(|| outcome.reason);
                (forfeit_command(), Some(Mark::Clock))
            }
            Play::Cancel(reason) => {
                let outcome = game.cancel(reason).map_err(SubmitError::Rule)?;
                recorder.push(|| outcome.reason);
                (cancel_command(reason), Some(Mark::Organiser))
            }
        };
        let mut log = (*loaded.log).clone();
        log.push((head + 1, seat, recorder.take()));
        loaded.log = Arc::new(log);
        let first = Pending {
            seat,
            command,
            by,
            before,
            after: None,
        };
        self.write(loaded, vec![first], Some(head), after).await
    }

    /// Adds the settled entries after `entries` (already applied to `loaded.game`, their lines
    /// in `loaded.log`), writes them all and runs the effects of each, then `after` once with
    /// the last.
    async fn write(
        &self,
        mut loaded: Loaded,
        mut entries: Vec<Pending>,
        expected_head: Option<i64>,
        after: Option<&dyn AfterAppend>,
    ) -> Result<i64, SubmitError> {
        let id = loaded.row.id;
        let head = loaded.row.head_seq;
        let epoch = loaded.epoch;
        let mut log = (*loaded.log).clone();
        let settles = entries.last().is_none_or(|e| e.by != Some(Mark::Organiser))
            && could_settle(loaded.game.as_ref());
        if settles {
            let settled = {
                let mut conn = self.pool.acquire().await?;
                self.settled(&mut conn, id).await?
            };
            while entries.len() < MAX_SETTLED {
                let Some((seat, command, mark)) = settled.next(loaded.game.as_ref()) else {
                    break;
                };
                let snapshot = loaded.game.clone_box();
                let before = loaded.game.active();
                let mut recorder = Log::recording();
                let applied = loaded.game.apply_json(seat, &command, &mut recorder);
                // What was played for a seat is final: only its own hand's moves are undone.
                loaded.game.seal();
                if let Err(e) = applied {
                    // The game offered it: refusing it now is a defect of the game's rules.
                    tracing::error!(game = id, seat, error = %e, "a settled move was refused");
                    loaded.game = snapshot;
                    break;
                }
                if let Some(last) = entries.last_mut() {
                    last.after = Some(snapshot);
                }
                log.push((head + entries.len() as i64 + 1, seat, recorder.take()));
                entries.push(Pending {
                    seat,
                    command,
                    by: Some(mark),
                    before,
                    after: None,
                });
            }
        }
        if entries.is_empty() {
            return Ok(head);
        }
        if expected_head.is_some_and(|e| e != head) {
            return Err(SubmitError::Conflict { head });
        }
        let at = self.now();
        let at_text = chain_time(&at);
        let mut hash = genesis(&loaded.row.head_hash).ok_or_else(|| StoreError::Corrupt {
            game: id,
            reason: "head hash is not hex".into(),
        })?;
        let mut hashes = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            hash = link(
                &hash,
                Entry {
                    seq: (head + i as i64 + 1) as u64,
                    seat: entry.seat,
                    command: &entry.command,
                    at: &at_text,
                    by: entry.by.map(Mark::as_str),
                },
            );
            hashes.push(hex::encode(hash));
        }
        let game = loaded.game.as_ref();
        let status = if game.outcome().is_some() {
            "over"
        } else {
            "running"
        };
        let last_seq = head + entries.len() as i64;
        let mut tx = self.pool.begin().await?;
        let moved = sqlx::query(
            "UPDATE games SET head_seq = $3, head_hash = $4, status = $5, updated_at = $6 \
             WHERE id = $1 AND head_seq = $2",
        )
        .bind(id)
        .bind(head)
        .bind(last_seq)
        .bind(hashes.last().expect("one entry at least"))
        .bind(status)
        .bind(at)
        .execute(&mut *tx)
        .await?;
        if moved.rows_affected() != 1 {
            return Err(SubmitError::Conflict { head: head + 1 });
        }
        if let Some(outcome) = game.outcome() {
            sqlx::query("UPDATE games SET result = $2 WHERE id = $1")
                .bind(id)
                .bind(&outcome.reason)
                .execute(&mut *tx)
                .await?;
        }
        let base = log.len() - entries.len();
        for (i, entry) in entries.iter().enumerate() {
            let seq = head + i as i64 + 1;
            insert_entry(&mut tx, id, seq, entry, at, &hashes[i]).await?;
            let appended = Appended {
                row: &loaded.row,
                seq,
                seat: entry.seat,
                by: entry.by,
                at,
                before: &entry.before,
                game: entry.after.as_deref().unwrap_or(game),
                log: &log[..base + i + 1],
                played_next: entries.get(i + 1).map(|next| next.seat),
                first_seq: head + 1,
            };
            let mut done = Ok(());
            for effect in &self.effects {
                done = effect.appended(&mut tx, &appended).await;
                if done.is_err() {
                    break;
                }
            }
            let last = i + 1 == entries.len();
            if let (Ok(()), Some(after), true) = (&done, after, last) {
                done = after.appended(&mut tx, &appended).await;
            }
            if let Err(e) = done {
                // Roll back before answering: a dropped transaction's rollback is only
                // queued, and its row locks would still be held when the caller goes on (a
                // scheduler's SKIP LOCKED would pass over the seat's clock).
                tx.rollback().await?;
                return Err(e.into());
            }
        }
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(super::MOVES_CHANNEL)
            .bind(format!("{id}:{last_seq}"))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        for (i, entry) in entries.iter().enumerate() {
            tracing::info!(
                game = id,
                seq = head + i as i64 + 1,
                seat = entry.seat,
                by = entry.by.map_or("seat", Mark::as_str),
                "command appended"
            );
        }
        self.remember(id, last_seq, epoch, game, &Arc::new(log));
        Ok(last_seq)
    }
}

/// Whether any seat of `game` might have a move settled: one is forced, or the game has
/// standing orders. Saves reading the seats' settings after most moves.
fn could_settle(game: &dyn DynMatch) -> bool {
    game.outcome().is_none()
        && (!game.standing_orders().is_empty()
            || game.active().iter().any(|&s| game.forced(s).is_some()))
}

async fn insert_entry(
    tx: &mut PgConnection,
    id: i64,
    seq: i64,
    entry: &Pending,
    at: DateTime<Utc>,
    hash: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id)
    .bind(seq)
    .bind(entry.seat as i32)
    .bind(&entry.command)
    .bind(at)
    .bind(hash)
    .bind(entry.by.map(Mark::as_str))
    .execute(tx)
    .await?;
    Ok(())
}
