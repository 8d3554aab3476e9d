//! The PostgreSQL event store: games, seats, and the append-only, hash-chained command log.
//! A game's state is never stored: it is the replay of its log, kept in a small process cache
//! keyed by the log's head.

mod account_seats;
mod accounts;
mod api_tokens;
mod append;
mod club_archive;
mod club_games;
mod club_invites;
mod clubs;
pub mod effects;
mod history;
pub mod league_life;
mod leagues;
mod messages;
mod my_games;
mod orders;
pub mod ratings;
mod seat_keys;
mod sign_in;
mod table_start;
mod tables;
mod tokens;
mod unlisted;
mod webhooks;

pub use crate::domain::{CancelReason, EmailAddress, InvalidName, MAX_NAME_CHARS, PlayerName};
pub use account_seats::{Claim, MAX_DEVICE_LINKS};
pub use accounts::{Account, MAX_SESSIONS, SESSION_DAYS};
pub use api_tokens::{ApiToken, MAX_API_TOKENS, TooManyTokens};
use append::Play;
pub use append::Settled;
pub use club_archive::{
    ARCHIVE_PAGE, ArchiveFilter, ArchivePage, ArchivedGame, Choice, MAX_ARCHIVE_PAGE,
    MAX_LEAGUE_CHOICES, MAX_PLAYER_CHOICES,
};
pub use club_games::ChosenGame;
pub use club_invites::{INVITE_DAYS, INVITES_PER_DAY, MAX_PENDING_INVITES, PendingInvite};
pub use clubs::{
    CLUB_PAGE, Club, ClubError, ClubGame, MAX_CLUBS_JOINED, MAX_CLUBS_MADE, MAX_MEMBERS, Member,
    NewClub,
};
pub use history::{History, Step};
pub use league_life::{LeaguePass, START_BATCH, plan_words};
pub use leagues::{
    ENDED_LEAGUES_SHOWN, Entrant, League, LeagueLine, LeagueView, MAX_ACTIVE_LEAGUES,
    MAX_SIGNUP_DAYS, NewLeague, ScheduledGame, meetings_word, mode_word,
};
pub use messages::{
    Author, MAX_MESSAGES_PER_GAME, MESSAGES_PER_HOUR, MESSAGES_PER_MINUTE, Message, PostError,
    THREAD_OPEN_DAYS_AFTER_END,
};
pub use my_games::{MAX_FINISHED, MyGame, MyGames, Standing};
pub use orders::OrderError;
pub use ratings::{GameResult, RatingPoint, RatingRow, StandingsPage};
pub use seat_keys::{ENDED_LINKS_KEPT, Handover, Rekeyed, SeatKeys, TakeUp};
pub use sign_in::{
    LINKS_PER_DAY, LINKS_PER_QUARTER_HOUR, LinkProblem, PendingSignIn, SIGN_IN_MINUTES,
    SLOW_LINK_MINUTES, SLOWER_LINK_MINUTES, TooManyLinks, issue_link,
};
pub use tables::{
    Joined, LOBBY_PAGE, LobbyEntry, MAX_OPEN_TABLES, NewTable, Table, TableError, TablePlace,
    waiting_words,
};
pub use tokens::{looks_like_token, new_token, token_hash};
pub use unlisted::Gate;
pub use webhooks::{MAX_WEBHOOKS, TooManyWebhooks, WebhookLine, WebhookTarget};

use crate::engine::record::Mark;
use crate::engine::{
    ApplyError, DynMatch, Log, Record, RecordedCommand, RecordedMessage, RuleError, Seat, Seed,
    Viewer, find_game,
};
use crate::time::{Clock, SystemClock};
use chrono::{DateTime, Utc};
use effects::{AfterAppend, Creation, EffectError, Effects};
use serde_json::Value;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{PgConnection, Row};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The migrations in migrations/, embedded in the binary.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// How many days a link minted for a notice opens its seat.
pub const MAIL_LINK_DAYS: i32 = 30;

/// How many days after its game ended a minted link still opens its seat.
pub const MAIL_LINK_GRACE_DAYS: i32 = 7;

/// The channel on which every appended command is announced (payload: `game_id:seq`).
pub const MOVES_CHANNEL: &str = "postplay_moves";

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No such game.
    #[error("no such game")]
    NotFound,
    /// The game cannot be created as asked.
    #[error("{0}")]
    Invalid(String),
    /// The log holds something the rules refuse (a bug or a tampered database).
    #[error("game {game}: the log does not replay: {reason}")]
    Corrupt { game: i64, reason: String },
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

/// Why a submitted command was not appended. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// No such game.
    #[error("no such game")]
    NotFound,
    /// Someone moved first: the log's head is no longer the one expected.
    #[error("the game has moved on (now at move {head}): reload and decide again")]
    Conflict { head: i64 },
    /// The JSON is no command of this game.
    #[error("not a command of this game: {0}")]
    Malformed(String),
    /// The JSON is longer than any command ([`crate::engine::dynamic::MAX_COMMAND_BYTES`]).
    #[error("{0}")]
    TooLarge(String),
    /// The rules refuse it.
    #[error("{0}")]
    Rule(RuleError),
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// The stored log does not replay.
    #[error(transparent)]
    Store(StoreError),
    /// Something that must happen with the move refused it (the seat's time ran out).
    #[error("{0}")]
    Refused(String),
}

impl From<EffectError> for SubmitError {
    fn from(e: EffectError) -> SubmitError {
        match e {
            EffectError::Refused(m) => SubmitError::Refused(m),
            EffectError::Db(e) => SubmitError::Db(e),
        }
    }
}

impl From<EffectError> for StoreError {
    fn from(e: EffectError) -> StoreError {
        match e {
            EffectError::Refused(m) => StoreError::Invalid(m),
            EffectError::Db(e) => StoreError::Db(e),
        }
    }
}

impl From<StoreError> for SubmitError {
    fn from(e: StoreError) -> SubmitError {
        match e {
            StoreError::NotFound => SubmitError::NotFound,
            StoreError::Db(e) => SubmitError::Db(e),
            other => SubmitError::Store(other),
        }
    }
}

/// A seat asked for at creation.
#[derive(Debug, Clone)]
pub struct NewSeat {
    /// Display name.
    pub name: PlayerName,
    /// Email address, if given.
    pub email: Option<EmailAddress>,
}

/// A created game and its secret links' tokens, shown once.
#[derive(Debug, Clone)]
pub struct CreatedGame {
    /// The game id.
    pub id: i64,
    /// The organiser's token.
    pub organiser_token: String,
    /// Each seat's token, by seat. Never shown to the organiser: a seat with an address gets
    /// it by mail, a seat without one is taken up through its handover link.
    pub seat_tokens: Vec<String>,
    /// The one-time handover link's token of each seat without an address, by seat.
    pub handovers: Vec<Option<String>>,
    /// For an unlisted game, its spectator link's token.
    pub spectator: Option<String>,
}

/// A game's row.
#[derive(Debug, Clone)]
pub struct GameRow {
    /// Id.
    pub id: i64,
    /// Game id of the rules (`"whitehouse"`).
    pub kind: String,
    /// Rules version at creation.
    pub rules_version: i32,
    /// Options JSON.
    pub options: Value,
    /// Seats.
    pub seat_count: i32,
    /// Seed (secret while running).
    pub seed: Seed,
    /// SHA-256 of the seed.
    pub commitment: String,
    /// `running` or `over`.
    pub status: String,
    /// Number of commands in the log.
    pub head_seq: i64,
    /// Hash-chain link of the last command (the commitment when empty).
    pub head_hash: String,
    /// Created.
    pub created_at: DateTime<Utc>,
    /// Last move.
    pub updated_at: DateTime<Utc>,
    /// The club whose game it is, if any.
    pub club_id: Option<i64>,
}

/// A seat's row.
#[derive(Debug, Clone)]
pub struct SeatRow {
    /// Seat number.
    pub seat: Seat,
    /// Display name.
    pub name: String,
    /// Email, if given.
    pub email: Option<String>,
}

/// One logged command.
#[derive(Debug, Clone)]
pub struct CommandRow {
    /// 1-based.
    pub seq: i64,
    /// Who moved.
    pub seat: Seat,
    /// The command.
    pub command: Value,
    /// Accepted at.
    pub created_at: DateTime<Utc>,
    /// Chain link.
    pub hash: String,
    /// Who made it when not the seat by its own hand.
    pub mark: Option<Mark>,
}

impl CommandRow {
    /// Who made the entry when not its seat by its own hand, as the record's `by` names them.
    pub fn by(&self) -> Option<&'static str> {
        self.mark.map(Mark::as_str)
    }
}

/// A game replayed to its head, with its public log.
pub struct Loaded {
    /// The row, as read.
    pub row: GameRow,
    /// The state at `row.head_seq`.
    pub game: Box<dyn DynMatch>,
    /// Public log lines by command: (seq, seat, lines); seq 0 holds the setup's lines, if any.
    pub log: Arc<Vec<(i64, Seat, Vec<String>)>>,
    /// The database epoch it was read in ([`Store::with_epoch`]); a game built elsewhere
    /// (a benchmark's) says 0.
    pub epoch: u64,
}

struct Cached {
    head: i64,
    /// The database epoch it was read in ([`Store::with_epoch`]).
    epoch: u64,
    game: Box<dyn DynMatch>,
    log: Arc<Vec<(i64, Seat, Vec<String>)>>,
}

/// The store: a connection pool, the replay cache, the clock it reads "now" from, and what
/// else happens in its transactions.
pub struct Store {
    pool: PgPool,
    cache: Mutex<HashMap<i64, Cached>>,
    clock: Arc<dyn Clock>,
    effects: Vec<Arc<dyn Effects>>,
    epoch: Arc<AtomicU64>,
}

/// The time format of the hash chain: RFC 3339, UTC, microseconds.
pub fn chain_time(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

fn game_row(row: &sqlx::postgres::PgRow) -> Result<GameRow, sqlx::Error> {
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

macro_rules! game_columns {
    () => {
        "id, kind, rules_version, options, seat_count, seed, commitment, status, head_seq, head_hash, \
         created_at, updated_at, club_id"
    };
}

/// How long a request waits for a database connection before it is told the database is not
/// reachable (sqlx's default is 30 seconds).
pub const ACQUIRE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

impl Store {
    /// Connects a pool with these options: at most 32 connections, each waited for at most
    /// [`ACQUIRE_TIMEOUT`].
    pub async fn connect(options: sqlx::postgres::PgConnectOptions) -> Result<Store, sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(32)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await?;
        Ok(Store::from_pool(pool))
    }

    /// Wraps an existing pool, with the system clock and no effects.
    pub fn from_pool(pool: PgPool) -> Store {
        Store {
            pool,
            cache: Mutex::new(HashMap::new()),
            clock: Arc::new(SystemClock),
            effects: Vec::new(),
            epoch: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The same store reading "now" from `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Store {
        self.clock = clock;
        self
    }

    /// The same store with one more effect in its transactions.
    pub fn with_effect(mut self, effect: Arc<dyn Effects>) -> Store {
        self.effects.push(effect);
        self
    }

    /// The same store whose replay cache holds only what was read since `epoch` last moved:
    /// the pool follows a database primary that may change ([`crate::pg::primary`]), and a
    /// commit the old primary showed need not be on the new one.
    pub fn with_epoch(mut self, epoch: Arc<AtomicU64>) -> Store {
        self.epoch = epoch;
        self
    }

    /// The database epoch now (see [`Store::with_epoch`]).
    pub(crate) fn epoch_now(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Another handle on the same pool, clock and effects, with a cache of its own.
    pub fn clone_handle(&self) -> Store {
        Store {
            pool: self.pool.clone(),
            cache: Mutex::new(HashMap::new()),
            clock: self.clock.clone(),
            effects: self.effects.clone(),
            epoch: self.epoch.clone(),
        }
    }

    /// Now, by the store's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// The store's clock.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    /// The pool.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Applies pending migrations.
    pub async fn migrate(&self) -> Result<(), sqlx::migrate::MigrateError> {
        MIGRATOR.run(&self.pool).await
    }

    /// Creates a game: checks the options by setting it up, stores it with fresh tokens.
    pub async fn create_game(
        &self,
        kind: &str,
        options: &Value,
        seats: &[NewSeat],
        seed: Seed,
    ) -> Result<CreatedGame, StoreError> {
        self.create_game_with(kind, options, seats, seed, None, &Value::Null)
            .await
    }

    /// Creates a game with the organiser's address (told of undeliverable mail) and the
    /// settings beyond the rules' options (`{"clock": …}`), which the effects read: invitations
    /// and the first deadlines are written in the same transaction.
    pub async fn create_game_with(
        &self,
        kind: &str,
        options: &Value,
        seats: &[NewSeat],
        seed: Seed,
        organiser_email: Option<&EmailAddress>,
        settings: &Value,
    ) -> Result<CreatedGame, StoreError> {
        let mut tx = self.pool.begin().await?;
        let created = self
            .create_game_in(
                &mut tx,
                kind,
                options,
                seats,
                seed,
                organiser_email,
                settings,
            )
            .await?;
        tx.commit().await?;
        tracing::info!(game = created.id, kind, seats = seats.len(), "game created");
        Ok(created)
    }

    /// [`Store::create_game_with`] inside the caller's transaction (a lobby table starting
    /// its game): nothing is written unless the caller commits.
    #[allow(clippy::too_many_arguments)]
    pub async fn create_game_in(
        &self,
        tx: &mut PgConnection,
        kind: &str,
        options: &Value,
        seats: &[NewSeat],
        seed: Seed,
        organiser_email: Option<&EmailAddress>,
        settings: &Value,
    ) -> Result<CreatedGame, StoreError> {
        let game = find_game(kind)
            .ok_or_else(|| StoreError::Invalid(format!("no game called {kind:?}")))?;
        let started = game
            .new_match(options, seats.len(), seed)
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        let organiser_token = new_token();
        let seat_tokens: Vec<String> = seats.iter().map(|_| new_token()).collect();
        let commitment = seed.commitment();
        let id: i64 = sqlx::query(
            "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
             organiser_token_hash, head_hash, organiser_email) VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $8) \
             RETURNING id",
        )
        .bind(kind)
        .bind(game.rules_version() as i32)
        .bind(started.options())
        .bind(seats.len() as i32)
        .bind(seed.0.to_vec())
        .bind(&commitment)
        .bind(token_hash(&organiser_token))
        .bind(organiser_email.map(|e| e.as_str()))
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        for (i, seat) in seats.iter().enumerate() {
            sqlx::query("INSERT INTO seats (game_id, seat, name, email, token_hash) VALUES ($1, $2, $3, $4, $5)")
                .bind(id)
                .bind(i as i32)
                .bind(seat.name.as_str())
                .bind(seat.email.as_ref().map(|e| e.as_str()))
                .bind(token_hash(&seat_tokens[i]))
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "UPDATE seats s SET account_id = a.id, mail_pref = a.mail_pref FROM accounts a \
             WHERE s.game_id = $1 AND lower(s.email) = lower(a.email)",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let creation = Creation {
            id,
            game,
            started: started.as_ref(),
            seats,
            seat_tokens: &seat_tokens,
            organiser_token: &organiser_token,
            commitment: &commitment,
            organiser_email,
            settings,
            at: self.now(),
        };
        for effect in &self.effects {
            effect.created(tx, &creation).await?;
        }
        let with_address: Vec<bool> = seats.iter().map(|s| s.email.is_some()).collect();
        let handovers = seat_keys::first_handovers(tx, id, &with_address, self.now()).await?;
        let spectator = if settings.get("unlisted") == Some(&Value::Bool(true)) {
            Some(unlisted::make_unlisted(tx, id).await?)
        } else {
            None
        };
        Ok(CreatedGame {
            id,
            organiser_token,
            seat_tokens,
            handovers,
            spectator,
        })
    }

    /// The game and seat a seat token opens: the seat's own token, or a link minted for one
    /// of its notices while that is fresh ([`MAIL_LINK_DAYS`] days, and no more than
    /// [`MAIL_LINK_GRACE_DAYS`] days after the game ended). A relink ends both kinds.
    pub async fn seat_by_token(&self, token: &str) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        self.seat_by(token, true).await
    }

    /// The game and seat a token names for the seat's mail settings only: a minted link from
    /// an old message still reaches them (unsubscribing must always work).
    pub async fn seat_for_mail_settings(
        &self,
        token: &str,
    ) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        self.seat_by(token, false).await
    }

    async fn seat_by(&self, token: &str, fresh: bool) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let now = self.now();
        let row = sqlx::query(
            "SELECT game_id, seat FROM seats WHERE token_hash = $1 \
             UNION ALL SELECT l.game_id, l.seat FROM seat_links l JOIN games g ON g.id = l.game_id \
             WHERE l.token_hash = $1 AND (NOT $2 OR (l.created_at > $3 - make_interval(days => $4) \
             AND (g.status = 'running' OR g.updated_at > $3 - make_interval(days => $5)))) LIMIT 1",
        )
        .bind(token_hash(token))
        .bind(fresh)
        .bind(now)
        .bind(MAIL_LINK_DAYS)
        .bind(MAIL_LINK_GRACE_DAYS)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok((
                r.try_get::<i64, _>("game_id")?,
                r.try_get::<i32, _>("seat")? as Seat,
            ))
        })
        .transpose()
    }

    /// The game an organiser token manages.
    pub async fn organiser_by_token(&self, token: &str) -> Result<Option<i64>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query("SELECT id FROM games WHERE organiser_token_hash = $1 AND has_desk")
            .bind(token_hash(token))
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| r.try_get("id")).transpose()
    }

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
        let rows =
            sqlx::query("SELECT seat, name, email FROM seats WHERE game_id = $1 ORDER BY seat")
                .bind(id)
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| {
                Ok(SeatRow {
                    seat: r.try_get::<i32, _>("seat")? as Seat,
                    name: r.try_get("name")?,
                    email: r.try_get("email")?,
                })
            })
            .collect()
    }

    /// A game's commands after `after`, in order.
    pub async fn commands(&self, id: i64, after: i64) -> Result<Vec<CommandRow>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT seq, seat, command, created_at, hash, made_by FROM commands \
             WHERE game_id = $1 AND seq > $2 ORDER BY seq",
        )
        .bind(id)
        .bind(after)
        .fetch_all(&self.pool)
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
        let cached = {
            let cache = self.cache.lock().expect("cache lock");
            cache
                .get(&id)
                .filter(|c| c.head <= row.head_seq && c.epoch == epoch)
                .map(|c| (c.head, c.game.clone_box(), c.log.clone()))
        };
        let (head, mut game, log) = match cached {
            Some(found) => found,
            None => {
                let game = self.start(&row)?;
                let opening = game.opening();
                let log = if opening.is_empty() {
                    Vec::new()
                } else {
                    vec![(0, 0, opening)]
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
        for entry in self.commands(id, head).await? {
            if entry.seq > row.head_seq {
                break;
            }
            apply_entry(game.as_mut(), &entry, &mut recorder).map_err(|e| StoreError::Corrupt {
                game: id,
                reason: format!("command {}: {e}", entry.seq),
            })?;
            lines.push((entry.seq, entry.seat, recorder.take()));
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
    fn start(&self, row: &GameRow) -> Result<Box<dyn DynMatch>, StoreError> {
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

    fn remember(
        &self,
        id: i64,
        head: i64,
        epoch: u64,
        game: &dyn DynMatch,
        log: &Arc<Vec<(i64, Seat, Vec<String>)>>,
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

    /// Applies a command for a seat and appends it, in one transaction that names the seq it
    /// expects: of two writers of the same seq exactly one wins, the other gets `Conflict`.
    pub async fn submit(
        &self,
        id: i64,
        seat: Seat,
        command: &Value,
        expected_head: Option<i64>,
    ) -> Result<i64, SubmitError> {
        self.append(id, seat, Play::Seat(command), expected_head, None)
            .await
    }

    /// [`Store::submit`], with `after` writing its own rows in the move's transaction (after
    /// the effects every move has).
    pub async fn submit_with(
        &self,
        id: i64,
        seat: Seat,
        command: &Value,
        expected_head: Option<i64>,
        after: &dyn AfterAppend,
    ) -> Result<i64, SubmitError> {
        self.append(id, seat, Play::Seat(command), expected_head, Some(after))
            .await
    }

    /// `seat` takes back its last command (see [`crate::engine::Match::undo`]): an entry
    /// marked `undo` in the hash chain, refused with a reason when the rules allow no undo
    /// now. Like a move, it names the head it expects.
    pub async fn undo(
        &self,
        id: i64,
        seat: Seat,
        expected_head: Option<i64>,
    ) -> Result<i64, SubmitError> {
        self.append(id, seat, Play::Undo, expected_head, None).await
    }

    /// [`Store::undo`], with `after` writing its own rows in the undo's transaction.
    pub async fn undo_with(
        &self,
        id: i64,
        seat: Seat,
        expected_head: Option<i64>,
        after: &dyn AfterAppend,
    ) -> Result<i64, SubmitError> {
        self.append(id, seat, Play::Undo, expected_head, Some(after))
            .await
    }

    /// The clock plays the game's timeout move for `seat` at the game's current position (the
    /// clock's effect refuses it unless the seat's deadline has passed).
    pub async fn play_for_clock(&self, id: i64, seat: Seat) -> Result<i64, SubmitError> {
        let loaded = self.load(id).await?;
        if !loaded.game.active().contains(&seat) {
            return Err(SubmitError::Rule(RuleError::NotYourTurn));
        }
        let command = loaded.game.on_timeout(seat);
        self.append(
            id,
            seat,
            Play::ClockMove(&command),
            Some(loaded.row.head_seq),
            None,
        )
        .await
    }

    /// The clock ends the game: `seat` forfeits (the clock's effect refuses it unless the
    /// seat's deadline has passed).
    pub async fn forfeit(&self, id: i64, seat: Seat) -> Result<i64, SubmitError> {
        self.append(id, seat, Play::Forfeit, None, None).await
    }

    /// The organiser ends the game unfinished for `reason`: an entry marked `"by":
    /// "organiser"` in the hash chain, nobody wins, the seed is revealed as for any finished
    /// game, and the effects tell every player. Refused once the game is over.
    pub async fn cancel(&self, id: i64, reason: &CancelReason) -> Result<i64, SubmitError> {
        self.append(id, 0, Play::Cancel(reason.as_str()), None, None)
            .await
    }

    /// The record of a game as `viewer` may see it (docs/record-format.md): names but never
    /// emails or tokens. Once the game is over, everything, seed included. While it runs, no
    /// seed, and every command the viewer may not see in full in its public form, marked
    /// `redacted`; an [`Viewer::Auditor`] (an administrator moving a running game to another
    /// server, never a player) gets the full record with the seed.
    pub async fn export(&self, id: i64, viewer: Viewer) -> Result<Record, StoreError> {
        let loaded = self.load(id).await?;
        let row = &loaded.row;
        let seats = self.seats(id).await?;
        let over = row.status == "over";
        let reveal_seed = viewer == Viewer::Auditor;
        let mut commands = self.commands(id, 0).await?;
        let mut redacted = vec![false; commands.len()];
        if !over && !reveal_seed {
            let mut game = self.start(row)?;
            let mut silent = Log::silent();
            for (i, entry) in commands.iter_mut().enumerate() {
                // Every entry is redacted by the game's rule, whoever made it (a seat, the
                // clock, any later mark); only the server's own endings are not game commands.
                let ends = matches!(
                    crate::engine::record::ending(entry.by(), &entry.command),
                    Ok(Some(_))
                ) || entry.mark == Some(Mark::Undo);
                let public = if viewer.sees_seat(entry.seat) || ends {
                    None
                } else {
                    game.redacted(entry.seat, &entry.command)
                };
                apply_entry(game.as_mut(), entry, &mut silent).map_err(|e| {
                    StoreError::Corrupt {
                        game: id,
                        reason: format!("command {}: {e}", entry.seq),
                    }
                })?;
                if let Some(public) = public {
                    entry.command = public;
                    redacted[i] = true;
                }
            }
        }
        Ok(Record {
            game: row.kind.clone(),
            rules_version: row.rules_version as u32,
            options: row.options.clone(),
            seats: row.seat_count as usize,
            seat_names: seats.into_iter().map(|s| s.name).collect(),
            seed: (over || reveal_seed).then_some(row.seed),
            commitment: Some(row.commitment.clone()),
            chain_head: Some(row.head_hash.clone()),
            commands: commands
                .into_iter()
                .zip(redacted)
                .map(|(c, redacted)| RecordedCommand {
                    by: c.by().map(str::to_string),
                    seat: c.seat,
                    command: c.command,
                    at: Some(chain_time(&c.created_at)),
                    hash: Some(c.hash),
                    redacted,
                })
                .collect(),
            final_state_hash: (over || reveal_seed).then(|| loaded.game.state_hash()),
            messages: self
                .messages(id)
                .await?
                .into_iter()
                .map(|m| RecordedMessage {
                    seat: m.seat,
                    at: chain_time(&m.at),
                    after: m.head,
                    text: m.visible_text().map(str::to_string),
                    hidden: m.hidden.is_some(),
                    author: m.author,
                })
                .collect(),
        })
    }

    /// Stores a game from a record after verifying it (chain, commitment, replay), keeping
    /// its log, times and hashes; new links are made for the organiser and every seat. The
    /// record must carry its seed: a game cannot go on without it.
    pub async fn import(&self, record: &Record) -> Result<CreatedGame, StoreError> {
        let verified = crate::engine::audit::verify(record, record.chain_head.as_deref())
            .map_err(|e| StoreError::Invalid(format!("the record does not verify: {e}")))?;
        let seed = record
            .seed
            .ok_or_else(|| StoreError::Invalid("the record has no seed".into()))?;
        let game = find_game(&record.game)
            .ok_or_else(|| StoreError::Invalid(format!("no game called {:?}", record.game)))?;
        let mut times = Vec::with_capacity(record.commands.len());
        for (i, entry) in record.commands.iter().enumerate() {
            let at = entry.at.as_deref().unwrap_or_default();
            let parsed = DateTime::parse_from_rfc3339(at)
                .map_err(|e| StoreError::Invalid(format!("entry {}: time {at:?}: {e}", i + 1)))?
                .with_timezone(&Utc);
            times.push(parsed);
        }
        let messages = messages::imported(record)?;
        let over = verified.outcome.is_some();
        let organiser_token = new_token();
        let seat_tokens: Vec<String> = (0..record.seats).map(|_| new_token()).collect();
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
             organiser_token_hash, head_seq, head_hash, status) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
        )
        .bind(&record.game)
        .bind(record.rules_version as i32)
        .bind(&record.options)
        .bind(record.seats as i32)
        .bind(seed.0.to_vec())
        .bind(seed.commitment())
        .bind(token_hash(&organiser_token))
        .bind(record.commands.len() as i64)
        .bind(&verified.chain_head)
        .bind(if over { "over" } else { "running" })
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        for (seat, token) in seat_tokens.iter().enumerate() {
            let name = record
                .seat_names
                .get(seat)
                .and_then(|n| PlayerName::parse(n).ok())
                .map_or_else(|| game.seat_name(seat, record.seats), |n| n.to_string());
            sqlx::query(
                "INSERT INTO seats (game_id, seat, name, token_hash) VALUES ($1, $2, $3, $4)",
            )
            .bind(id)
            .bind(seat as i32)
            .bind(name)
            .bind(token_hash(token))
            .execute(&mut *tx)
            .await?;
        }
        for (i, entry) in record.commands.iter().enumerate() {
            let mark = match entry.by.as_deref() {
                None => None,
                Some(word) => Some(Mark::parse(word).ok_or_else(|| {
                    StoreError::Invalid(format!("entry {}: {word:?} is no mark", i + 1))
                })?),
            };
            sqlx::query("INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) VALUES ($1, $2, $3, $4, $5, $6, $7)")
                .bind(id)
                .bind(i as i64 + 1)
                .bind(entry.seat as i32)
                .bind(&entry.command)
                .bind(times[i])
                .bind(entry.hash.as_deref().unwrap_or_default())
                .bind(mark.map(Mark::as_str))
                .execute(&mut *tx)
                .await?;
        }
        messages::store_imported(&mut tx, id, &messages).await?;
        tx.commit().await?;
        tracing::info!(game = id, kind = %record.game, commands = record.commands.len(), "game imported");
        let handovers = vec![None; seat_tokens.len()];
        Ok(CreatedGame {
            id,
            organiser_token,
            seat_tokens,
            handovers,
            spectator: None,
        })
    }

    /// Ends every credential of a seat and gives it new keys ([`Store::rekey_seat_in`]) in a
    /// transaction of its own. `None` if no such seat.
    pub async fn relink_seat(&self, id: i64, seat: Seat) -> Result<Option<Rekeyed>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rekeyed = self.rekey_seat_in(&mut tx, id, seat, None).await?;
        tx.commit().await?;
        Ok(rekeyed)
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

    /// A server-wide secret by name, created at random on first use (shared by every process).
    pub async fn secret(&self, key: &str) -> Result<Vec<u8>, sqlx::Error> {
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh).expect("the OS random source works");
        sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        )
        .bind(key)
        .bind(fresh.to_vec())
        .execute(&self.pool)
        .await?;
        sqlx::query("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_one(&self.pool)
            .await?
            .try_get("value")
    }
}

/// Replays one stored entry (a forfeit by the clock and the organiser's cancellation end the
/// game).
fn apply_entry(
    game: &mut dyn DynMatch,
    entry: &CommandRow,
    log: &mut Log,
) -> Result<(), ApplyError> {
    crate::engine::record::apply_entry(game, entry.seat, entry.by(), &entry.command, log)
}
