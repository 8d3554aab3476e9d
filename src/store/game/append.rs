//! Appending to a game's log: a move (a seat's, the clock's, the organiser's ending) and, in
//! the same transaction, the moves it leaves settled: a seat's only possible move where that
//! is public or the seat asked for it, and what a seat's standing orders decide. Each is an
//! entry of its own in the hash chain, marked with who made it ([`Mark`]).

use crate::engine::audit::{Entry, genesis, link};
use crate::engine::record::{Mark, cancel_command, forfeit_command, undo_command};
use crate::engine::{ApplyError, DynMatch, Log, RuleError, Seat};
use crate::store::game::effects::{AfterAppend, Appended};
use crate::store::game::move_read::MoveRead;
use crate::store::game::plan::{MovePlan, bind, renumber};
use crate::store::{Store, StoreError, SubmitError, chain_time};
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
pub(in crate::store) enum Play<'a> {
    Seat(&'a Value),
    Undo,
    ClockMove(&'a Value),
    BotMove(&'a Value),
    Forfeit,
    Cancel(&'a str),
}

/// Who makes a move: a seat the caller has already established, or whoever holds a seat
/// token, whose seat the move's own read finds (one round trip fewer than asking first).
#[derive(Clone, Copy)]
pub enum Mover<'a> {
    /// This seat.
    Seat(Seat),
    /// The seat of the game this token opens ([`Store::seat_by_token`]); none is
    /// [`SubmitError::NotHolder`].
    Holder(&'a str),
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
        let mut conn = self.pool.acquire().await?;
        for attempt in 0..2 {
            let read = self.read_move(&mut conn, id, None).await?;
            let head = read.loaded.row.head_seq;
            if read.loaded.game.outcome().is_some() {
                return Ok(head);
            }
            match self
                .write(&mut conn, read, Vec::new(), Some(head), None)
                .await?
            {
                Written::Head(head) => return Ok(head),
                Written::Raced if attempt == 0 => continue,
                Written::Raced => break,
            }
        }
        let head = self
            .read_move(&mut conn, id, None)
            .await?
            .loaded
            .row
            .head_seq;
        Err(SubmitError::Conflict { head })
    }

    /// Applies a play and appends it with the entries it settles, in one transaction that
    /// names the seq it expects: of two writers of the same seq exactly one wins, the other
    /// gets `Conflict`. Returns the final head.
    pub(in crate::store) async fn append(
        &self,
        id: i64,
        mover: Mover<'_>,
        play: Play<'_>,
        expected_head: Option<i64>,
        after: Option<&dyn AfterAppend>,
    ) -> Result<i64, SubmitError> {
        let appended = self
            .append_tried(id, mover, play, expected_head, after)
            .await;
        if let Err(e) = &appended {
            let reason = match e {
                SubmitError::Conflict { .. } => Some("conflict"),
                SubmitError::Malformed(_) => Some("malformed"),
                SubmitError::TooLarge(_) => Some("too_large"),
                SubmitError::Rule(_) => Some("rule"),
                SubmitError::Refused(_) => Some("refused"),
                SubmitError::NotHolder => Some("not_holder"),
                SubmitError::NotFound | SubmitError::Db(_) | SubmitError::Store(_) => None,
            };
            if let Some(reason) = reason {
                crate::telemetry::refusal(reason);
            }
        }
        appended
    }

    /// [`Store::append`], before its refusals are counted.
    async fn append_tried(
        &self,
        id: i64,
        mover: Mover<'_>,
        play: Play<'_>,
        expected_head: Option<i64>,
        after: Option<&dyn AfterAppend>,
    ) -> Result<i64, SubmitError> {
        let mut expected_head = expected_head;
        let token = match mover {
            Mover::Seat(_) => None,
            Mover::Holder(token) => Some(token),
        };
        // One connection for the read and the write: the pool's test of a connection taken
        // is a round trip of its own.
        let mut conn = self.pool.acquire().await?;
        for attempt in 0..2 {
            let read = self.read_move(&mut conn, id, token).await?;
            let seat = match mover {
                Mover::Seat(seat) => seat,
                Mover::Holder(_) => read.holder.ok_or(SubmitError::NotHolder)?,
            };
            let head = read.loaded.row.head_seq;
            if let (Some(since), Play::Seat(_)) = (expected_head, play)
                && since != head
                && self
                    .only_sealed_since(&mut conn, &read.loaded, seat, since)
                    .await?
            {
                expected_head = Some(head);
            }
            match self
                .append_read(&mut conn, read, seat, play, expected_head, after)
                .await?
            {
                Written::Head(head) => return Ok(head),
                // A race lost between the read and the write: the read again tells a move
                // made meanwhile (a conflict) from a guard that no longer holds (the time
                // ran out: the plan refuses it, with its reason).
                Written::Raced if attempt == 0 => expected_head = Some(head),
                Written::Raced => break,
            }
        }
        let head = self
            .read_move(&mut conn, id, None)
            .await?
            .loaded
            .row
            .head_seq;
        Err(SubmitError::Conflict { head })
    }

    /// [`Store::append`] from one read.
    async fn append_read(
        &self,
        conn: &mut PgConnection,
        mut read: MoveRead,
        seat: Seat,
        play: Play<'_>,
        expected_head: Option<i64>,
        after: Option<&dyn AfterAppend>,
    ) -> Result<Written, SubmitError> {
        let loaded = &mut read.loaded;
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
        log.push((head + 1, seat, recorder.take().into()));
        loaded.log = Arc::new(log);
        let first = Pending {
            seat,
            command,
            by,
            before,
            after: None,
        };
        self.write(conn, read, vec![first], Some(head), after).await
    }

    /// Adds the settled entries after `entries` (already applied to `loaded.game`, their lines
    /// in `loaded.log`) and writes them all with what the effects plan for them, in one
    /// statement; or, when an effect cannot plan them or `after` is given, in a transaction
    /// that runs the effects of each, then `after` once with the last.
    async fn write(
        &self,
        conn: &mut PgConnection,
        read: MoveRead,
        mut entries: Vec<Pending>,
        expected_head: Option<i64>,
        after: Option<&dyn AfterAppend>,
    ) -> Result<Written, SubmitError> {
        let MoveRead {
            mut loaded,
            settled,
            effects: reads,
            ..
        } = read;
        let id = loaded.row.id;
        let head = loaded.row.head_seq;
        let epoch = loaded.epoch;
        let mut log = (*loaded.log).clone();
        let settles = entries.last().is_none_or(|e| e.by != Some(Mark::Organiser))
            && could_settle(loaded.game.as_ref());
        if settles {
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
                log.push((
                    head + entries.len() as i64 + 1,
                    seat,
                    recorder.take().into(),
                ));
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
            return Ok(Written::Head(head));
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
        let base = log.len() - entries.len();
        // Entry `i` as the effects see it, planned or in the transaction.
        let appended_at = |i: usize| {
            let entry = &entries[i];
            Appended {
                row: &loaded.row,
                seq: head + i as i64 + 1,
                seat: entry.seat,
                by: entry.by,
                at,
                before: &entry.before,
                game: entry.after.as_deref().unwrap_or(game),
                log: &log[..base + i + 1],
                played_next: entries.get(i + 1).map(|next| next.seat),
                first_seq: head + 1,
            }
        };
        if after.is_none() {
            let appended: Vec<Appended> = (0..entries.len()).map(appended_at).collect();
            let mut plan = MovePlan::default();
            let mut planned = true;
            for (effect, read) in self.effects.iter().zip(&reads) {
                if !effect.plan_move(read, &appended, &mut plan)? {
                    planned = false;
                    break;
                }
            }
            if planned {
                plan.notify_once(crate::store::MOVES_CHANNEL, &format!("{id}:{last_seq}"));
                let rows = Rows {
                    head,
                    status,
                    result: game.outcome().map(|o| o.reason),
                    entries: &entries,
                    hashes: &hashes,
                    at,
                };
                if !self.write_planned(conn, id, rows, plan).await? {
                    return Ok(Written::Raced);
                }
                self.written(id, &loaded.row.kind, head, &entries);
                self.remember(id, last_seq, epoch, game, &Arc::new(log));
                return Ok(Written::Head(last_seq));
            }
        }
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
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
            return Ok(Written::Raced);
        }
        if let Some(outcome) = game.outcome() {
            sqlx::query("UPDATE games SET result = $2 WHERE id = $1")
                .bind(id)
                .bind(&outcome.reason)
                .execute(&mut *tx)
                .await?;
        }
        for (i, entry) in entries.iter().enumerate() {
            let seq = head + i as i64 + 1;
            insert_entry(&mut tx, id, seq, entry, at, &hashes[i]).await?;
            let appended = appended_at(i);
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
            .bind(crate::store::MOVES_CHANNEL)
            .bind(format!("{id}:{last_seq}"))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.written(id, &loaded.row.kind, head, &entries);
        self.remember(id, last_seq, epoch, game, &Arc::new(log));
        Ok(Written::Head(last_seq))
    }

    /// Logs the entries written after `head`.
    fn written(&self, id: i64, kind: &str, head: i64, entries: &[Pending]) {
        for (i, entry) in entries.iter().enumerate() {
            crate::telemetry::moved(kind, entry.by.map_or("seat", Mark::as_str));
            tracing::info!(
                game = id,
                seq = head + i as i64 + 1,
                seat = entry.seat,
                by = entry.by.map_or("seat", Mark::as_str),
                "command appended"
            );
        }
    }

    /// Writes a move's entries and its effects' plan in one statement; false when the head
    /// moved meanwhile or a guard no longer holds (nothing is written).
    async fn write_planned(
        &self,
        conn: &mut PgConnection,
        id: i64,
        rows: Rows<'_>,
        plan: MovePlan,
    ) -> Result<bool, sqlx::Error> {
        const OWN: usize = 14;
        let mut guards = String::new();
        let mut ctes = String::new();
        let mut args = Vec::new();
        for guard in plan.guards {
            guards.push_str(&format!(
                " AND ({})",
                renumber(guard.text, OWN + args.len())
            ));
            args.extend(guard.args);
        }
        for (i, write) in plan.writes.into_iter().enumerate() {
            ctes.push_str(&format!(
                ", w{i} AS ({})",
                renumber(write.text, OWN + args.len())
            ));
            args.extend(write.args);
        }
        let text = format!(
            "WITH head AS (UPDATE games SET head_seq = $3, head_hash = $4, status = $5, \
             updated_at = $6, result = coalesce($7, result) \
             WHERE id = $1 AND head_seq = $2{guards} RETURNING id), \
             cmd AS (INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) \
             SELECT $1, u.seq, u.seat, u.command::jsonb, $6, u.hash, u.made_by FROM head, \
             unnest($8::bigint[], $9::int[], $10::text[], $11::text[], $12::text[]) \
             AS u(seq, seat, command, hash, made_by)){ctes} \
             SELECT (SELECT count(*) FROM head) AS moved, (SELECT count(*) FROM \
             (SELECT pg_notify(n.channel, n.payload) FROM head, \
             unnest($13::text[], $14::text[]) AS n(channel, payload)) AS told) AS told"
        );
        let (channels, payloads): (Vec<String>, Vec<String>) = plan.notify.into_iter().unzip();
        let entries = rows.entries;
        // The text is the store's and its effects' own fixed SQL.
        let mut query = sqlx::query(sqlx::AssertSqlSafe(text))
            .bind(id)
            .bind(rows.head)
            .bind(rows.head + entries.len() as i64)
            .bind(rows.hashes.last().expect("one entry at least"))
            .bind(rows.status)
            .bind(rows.at)
            .bind(rows.result)
            .bind(
                (1..=entries.len() as i64)
                    .map(|i| rows.head + i)
                    .collect::<Vec<i64>>(),
            )
            .bind(entries.iter().map(|e| e.seat as i32).collect::<Vec<i32>>())
            .bind(
                entries
                    .iter()
                    .map(|e| e.command.to_string())
                    .collect::<Vec<String>>(),
            )
            .bind(rows.hashes.to_vec())
            .bind(
                entries
                    .iter()
                    .map(|e| e.by.map(|m| m.as_str().to_string()))
                    .collect::<Vec<Option<String>>>(),
            )
            .bind(channels)
            .bind(payloads);
        for arg in args {
            query = bind(query, arg);
        }
        let moved: i64 = query.fetch_one(conn).await?.try_get("moved")?;
        Ok(moved == 1)
    }
}

/// What a move writes of its own: the head and the entries.
struct Rows<'a> {
    head: i64,
    status: &'a str,
    result: Option<String>,
    entries: &'a [Pending],
    hashes: &'a [String],
    at: DateTime<Utc>,
}

/// How a write ended.
pub(in crate::store) enum Written {
    /// Written: the new head.
    Head(i64),
    /// Nothing written: the head moved since the read, or a guard no longer holds.
    Raced,
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
