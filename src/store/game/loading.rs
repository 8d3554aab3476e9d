//! Reading games: rows, seats, the log, and a game replayed to its head, kept in the store's
//! small process cache keyed by the log's head.

use crate::engine::record::Mark;
use crate::engine::{ApplyError, DynMatch, Log, Seat, Seed};
use crate::games::find_game;
use crate::store::{CommandRow, GameRow, Loaded, LogEntry, SeatRow, Store, StoreError};
use chrono::{DateTime, Utc};
use sqlx::Row;
use std::sync::Arc;

macro_rules! game_columns {
    () => {
        "id, kind, rules_version, options, seat_count, seed, commitment, status, head_seq, head_hash, \
         created_at, updated_at, club_id"
    };
}
pub(in crate::store) use game_columns;

/// A copy of what the cache holds of a game: its head, the match there and its log.
pub(in crate::store) type CachedCopy = (i64, Box<dyn DynMatch>, Arc<Vec<LogEntry>>);

/// A replayed game kept in the store's cache, good while its log's head is `head`.
pub(in crate::store) struct Cached {
    head: i64,
    /// The database epoch it was read in ([`Store::with_epoch`]).
    epoch: u64,
    game: Box<dyn DynMatch>,
    log: Arc<Vec<LogEntry>>,
}

impl Store {
    /// A game's row.
    pub async fn game(&self, id: i64) -> Result<Option<GameRow>, sqlx::Error> {
        let row = sqlx::query(concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(game_row).transpose()
    }

    /// The most recently active games anyone may see (no unlisted game, no private club's).
    pub async fn recent_games(&self, limit: i64) -> Result<Vec<GameRow>, sqlx::Error> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            game_columns!(),
            " FROM games WHERE spectator_hash IS NULL AND (club_id IS NULL OR club_id IN \
             (SELECT id FROM clubs WHERE NOT private)) ORDER BY updated_at DESC LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(game_row).collect()
    }

    /// A game's seats in order.
    pub async fn seats(&self, id: i64) -> Result<Vec<SeatRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT seat, name, email, bot FROM seats WHERE game_id = $1 ORDER BY seat",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(SeatRow {
                    seat: r.try_get::<i32, _>("seat")? as Seat,
                    name: r.try_get("name")?,
                    email: r.try_get("email")?,
                    bot: r
                        .try_get::<Option<String>, _>("bot")?
                        .and_then(|b| crate::engine::BotLevel::parse(&b)),
                })
            })
            .collect()
    }

    /// A game's commands after `after`, in order.
    pub async fn commands(&self, id: i64, after: i64) -> Result<Vec<CommandRow>, sqlx::Error> {
        commands_on(&self.pool, id, after).await
    }

    /// The entries after `after` made by someone other than their seat's hand, with the mark
    /// (for a log that says who made them).
    pub async fn marks(&self, id: i64, after: i64) -> Result<Vec<(i64, Mark)>, sqlx::Error> {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT seq, made_by FROM commands WHERE game_id = $1 AND seq > $2 \
             AND made_by IS NOT NULL ORDER BY seq",
        )
        .bind(id)
        .bind(after)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(seq, word)| Some((seq, Mark::parse(&word)?)))
            .collect())
    }

    /// The game replayed to its current head (from the cache, advanced by the log's tail).
    pub async fn load(&self, id: i64) -> Result<Loaded, StoreError> {
        let epoch = self.epoch_now();
        let row = self.game(id).await?.ok_or(StoreError::NotFound)?;
        let cached = self.cached(id, epoch, row.head_seq);
        let tail = match &cached {
            Some((head, _, _)) if *head == row.head_seq => Vec::new(),
            Some((head, _, _)) => self.commands(id, *head).await?,
            None => self.commands(id, 0).await?,
        };
        self.advance(row, epoch, cached, tail)
    }

    /// What the cache holds of game `id` for `epoch` at a head no later than `head`.
    pub(in crate::store) fn cached(&self, id: i64, epoch: u64, head: i64) -> Option<CachedCopy> {
        let cache = self.cache.lock().expect("cache lock");
        cache
            .get(&id)
            .filter(|c| c.head <= head && c.epoch == epoch)
            .map(|c| (c.head, c.game.clone_box(), c.log.clone()))
    }

    /// The game of `row` replayed to its head: from `cached` (else from its start), advanced
    /// by `tail`, the commands after the cached head.
    pub(in crate::store) fn advance(
        &self,
        row: GameRow,
        epoch: u64,
        cached: Option<CachedCopy>,
        tail: Vec<CommandRow>,
    ) -> Result<Loaded, StoreError> {
        let id = row.id;
        let (head, mut game, log) = match cached {
            Some(found) => found,
            None => {
                let game = self.start(&row)?;
                let opening = game.opening();
                let log = if opening.is_empty() {
                    Vec::new()
                } else {
                    vec![(0, 0, opening.into())]
                };
                (0, game, Arc::new(log))
            }
        };
        if head == row.head_seq {
            return Ok(Loaded {
                row,
                game,
                log,
                epoch,
            });
        }
        let mut lines = (*log).clone();
        let mut recorder = Log::recording();
        for entry in tail {
            if entry.seq <= head {
                continue;
            }
            if entry.seq > row.head_seq {
                break;
            }
            apply_entry(game.as_mut(), &entry, &mut recorder).map_err(|e| StoreError::Corrupt {
                game: id,
                reason: format!("command {}: {e}", entry.seq),
            })?;
            lines.push((entry.seq, entry.seat, recorder.take().into()));
        }
        let log = Arc::new(lines);
        self.remember(id, row.head_seq, epoch, game.as_ref(), &log);
        Ok(Loaded {
            row,
            game,
            log,
            epoch,
        })
    }

    /// A game set up from its row, before any command.
    pub(in crate::store) fn start(&self, row: &GameRow) -> Result<Box<dyn DynMatch>, StoreError> {
        let kind = find_game(&row.kind).ok_or_else(|| StoreError::Corrupt {
            game: row.id,
            reason: format!("unknown game {}", row.kind),
        })?;
        kind.new_match_at(
            &row.options,
            row.seat_count as usize,
            row.seed,
            row.rules_version as u32,
        )
        .map_err(|e| StoreError::Corrupt {
            game: row.id,
            reason: e.to_string(),
        })
    }

    pub(in crate::store) fn remember(
        &self,
        id: i64,
        head: i64,
        epoch: u64,
        game: &dyn DynMatch,
        log: &Arc<Vec<LogEntry>>,
    ) {
        let mut cache = self.cache.lock().expect("cache lock");
        if cache.len() > 4096 {
            cache.clear();
        }
        let newer = cache
            .get(&id)
            .is_none_or(|c| c.head < head || c.epoch != epoch);
        if newer && epoch == self.epoch_now() {
            cache.insert(
                id,
                Cached {
                    head,
                    epoch,
                    game: game.clone_box(),
                    log: log.clone(),
                },
            );
        }
    }

    /// When each seat last moved itself (its only move played for it and its standing orders
    /// count; the clock's moves for it do not), by seat; `None` for a seat
    /// that has not moved.
    pub async fn last_moves(&self, id: i64) -> Result<Vec<Option<DateTime<Utc>>>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT s.seat, max(c.created_at) AS at FROM seats s LEFT JOIN commands c \
             ON c.game_id = s.game_id AND c.seat = s.seat \
             AND (c.made_by IS NULL OR c.made_by IN ('auto', 'standing')) \
             WHERE s.game_id = $1 GROUP BY s.seat ORDER BY s.seat",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| r.try_get("at")).collect()
    }
}

pub(in crate::store) fn game_row(row: &sqlx::postgres::PgRow) -> Result<GameRow, sqlx::Error> {
    let seed: Vec<u8> = row.try_get("seed")?;
    let mut bytes = [0u8; 32];
    bytes.copy_from_slice(&seed);
    Ok(GameRow {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        rules_version: row.try_get("rules_version")?,
        options: row.try_get("options")?,
        seat_count: row.try_get("seat_count")?,
        seed: Seed(bytes),
        commitment: row.try_get("commitment")?,
        status: row.try_get("status")?,
        head_seq: row.try_get("head_seq")?,
        head_hash: row.try_get("head_hash")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        club_id: row.try_get("club_id")?,
    })
}

/// Replays one stored entry (a forfeit by the clock and the organiser's cancellation end the
/// game).
pub(in crate::store) fn apply_entry(
    game: &mut dyn DynMatch,
    entry: &CommandRow,
    log: &mut Log,
) -> Result<(), ApplyError> {
    crate::engine::record::apply_entry(game, entry.seat, entry.by(), &entry.command, log)
}

/// Game `id`'s commands after `after`, in order, read through `on` (the pool, or a connection
/// a move already holds).
pub(in crate::store) async fn commands_on<'e>(
    on: impl sqlx::PgExecutor<'e>,
    id: i64,
    after: i64,
) -> Result<Vec<CommandRow>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT seq, seat, command, created_at, hash, made_by FROM commands \
         WHERE game_id = $1 AND seq > $2 ORDER BY seq",
    )
    .bind(id)
    .bind(after)
    .fetch_all(on)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(CommandRow {
                seq: r.try_get("seq")?,
                seat: r.try_get::<i32, _>("seat")? as Seat,
                command: r.try_get("command")?,
                created_at: r.try_get("created_at")?,
                hash: r.try_get("hash")?,
                mark: match r.try_get::<Option<String>, _>("made_by")? {
                    None => None,
                    Some(word) => Some(Mark::parse(&word).ok_or_else(|| {
                        sqlx::Error::Decode(format!("{word:?} is no mark").into())
                    })?),
                },
            })
        })
        .collect()
}
