//! The PostgreSQL event store: games, seats, and the append-only, hash-chained command log.
//! A game's state is never stored: it is the replay of its log, kept in a small process cache
//! keyed by the log's head.
//!
//! Where to look, a folder a capability: `game/` (creation, loading and its cache, `moves` for
//! every way a log grows and `append` for the move's transaction, records), `seats/` (keys,
//! links, changes of hands), `accounts/`, `lobby/`, `clubs/` (with leagues and ratings); the
//! game's messages and the tokens are shared by all.

mod accounts;
pub mod clubs;
mod fairness;
pub mod game;
mod lobby;
mod messages;
mod seats;
mod tokens;

pub use crate::domain::{CancelReason, EmailAddress, InvalidName, MAX_NAME_CHARS, PlayerName};
pub use accounts::account::{Account, MAX_SESSIONS, SESSION_DAYS};
pub use accounts::api_tokens::{ApiToken, MAX_API_TOKENS, TooManyTokens};
pub use accounts::close::{Closed, FORMER_PLAYER, closed_address};
pub use accounts::export::{
    AccountExport, ExportedMessage, ExportedSeat, ExportedSettings, ExportedToken, ExportedWebhook,
};
pub use accounts::my_games::{MAX_FINISHED, MyGame, MyGames, Standing};
pub use accounts::organised::{MAX_ORGANISED_LISTED, OrganisedGame};
pub use accounts::seats::{Claim, MAX_DEVICE_LINKS};
pub use accounts::sign_in::{
    DEVICE_ADDRESSES, DEVICE_DAYS, LINKS_PER_DAY, LINKS_PER_QUARTER_HOUR, LinkProblem,
    PendingSignIn, SIGN_IN_MINUTES, SLOW_LINK_MINUTES, SLOWER_LINK_MINUTES, TooManyLinks,
    issue_link,
};
pub use accounts::webhooks::{MAX_WEBHOOKS, TooManyWebhooks, WebhookLine, WebhookTarget};
pub use clubs::archive::{
    ARCHIVE_PAGE, ArchiveFilter, ArchivePage, ArchivedGame, Choice, MAX_ARCHIVE_PAGE,
    MAX_LEAGUE_CHOICES, MAX_PLAYER_CHOICES,
};
pub use clubs::club::{
    CLUB_PAGE, Club, ClubError, ClubGame, MAX_CLUBS_JOINED, MAX_CLUBS_MADE, MAX_MEMBERS, Member,
    NewClub,
};
pub use clubs::games::ChosenGame;
pub use clubs::invites::{INVITE_DAYS, INVITES_PER_DAY, MAX_PENDING_INVITES, PendingInvite};
pub use clubs::league_life::{LeaguePass, START_BATCH, plan_words};
pub use clubs::leagues::{
    ENDED_LEAGUES_SHOWN, Entrant, League, LeagueLine, LeagueView, MAX_ACTIVE_LEAGUES,
    MAX_SIGNUP_DAYS, NewLeague, ScheduledGame, meetings_word, mode_word,
};
pub use clubs::ratings::{GameResult, RatingPoint, RatingRow, StandingsPage};
pub use fairness::DealFrom;
pub use game::append::{Mover, Settled};
pub use game::bots::BotSeat;
pub use game::history::{History, Step};
pub use game::orders::OrderError;
pub(crate) use game::unlisted::league_home_of_g;
pub use game::unlisted::{Gate, Surroundings};
pub use lobby::tables::{
    Joined, LOBBY_PAGE, LobbyEntry, MAX_OPEN_TABLES, NewTable, Table, TableError, TablePlace,
    waiting_words,
};
pub use messages::{
    Author, MAX_MESSAGES_PER_GAME, MESSAGES_PER_HOUR, MESSAGES_PER_MINUTE, Message, PostError,
    THREAD_OPEN_DAYS_AFTER_END,
};
pub use seats::changes::{
    CHANGE_LINK_DAYS, ChangeKind, ChangeLink, Changer, MESSAGES_PER_CHANGE, RECLAIM_HOURS,
    ReclaimRefused, SeatChange, SeatChangeNews,
};
pub use seats::keys::{ENDED_LINKS_KEPT, Handover, Rekeyed, SeatKeys, TakeUp};
pub use seats::links::SEAT_BY_TOKEN;
pub use tokens::{looks_like_token, new_token, token_hash};

use crate::engine::record::Mark;
use crate::engine::{DynMatch, RuleError, Seat, Seed};
use crate::time::{Clock, SystemClock};
use chrono::{DateTime, Utc};
use game::effects::{EffectError, Effects};
use serde_json::Value;
use sqlx::postgres::{PgPool, PgPoolOptions};
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
    /// The token given as the mover opens no seat of this game ([`Mover::Holder`]).
    #[error("this token opens no seat of this game")]
    NotHolder,
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
    /// A practice bot plays this seat at this level (then it has no address and nobody holds
    /// it): docs/BOTS.md.
    pub bot: Option<crate::engine::BotLevel>,
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
    /// SHA-256 of the game's seed (hex), published from the start.
    pub commitment: String,
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
    /// The level of the practice bot that plays the seat, if a bot does.
    pub bot: Option<crate::engine::BotLevel>,
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

/// One command's public log lines: (seq, seat, lines); seq 0 holds the setup's lines, if
/// any. The lines are shared, so a move extends a copy of the log without copying its text.
pub type LogEntry = (i64, Seat, Arc<[String]>);

/// A game replayed to its head, with its public log.
pub struct Loaded {
    /// The row, as read.
    pub row: GameRow,
    /// The state at `row.head_seq`.
    pub game: Box<dyn DynMatch>,
    /// Public log lines by command ([`LogEntry`]).
    pub log: Arc<Vec<LogEntry>>,
    /// The database epoch it was read in ([`Store::with_epoch`]); a game built elsewhere
    /// (a benchmark's) says 0.
    pub epoch: u64,
}

/// The store: a connection pool, the replay cache, the clock it reads "now" from, and what
/// else happens in its transactions.
pub struct Store {
    pool: PgPool,
    cache: Mutex<HashMap<i64, game::loading::Cached>>,
    clock: Arc<dyn Clock>,
    effects: Vec<Arc<dyn Effects>>,
    epoch: Arc<AtomicU64>,
}

/// The time format of the hash chain: RFC 3339, UTC, microseconds.
pub fn chain_time(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// How long a request waits for a database connection before it is told the database is not
/// reachable (sqlx's default is 30 seconds).
pub const ACQUIRE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

impl Store {
    /// Connects a pool with these options: at most 32 connections, each waited for at most
    /// [`ACQUIRE_TIMEOUT`].
    pub async fn connect(options: sqlx::postgres::PgConnectOptions) -> Result<Store, sqlx::Error> {
        Store::connect_bounded(options, 32, ACQUIRE_TIMEOUT).await
    }

    /// Connects a pool of at most `connections`, each waited for at most `wait`.
    pub async fn connect_bounded(
        options: sqlx::postgres::PgConnectOptions,
        connections: u32,
        wait: std::time::Duration,
    ) -> Result<Store, sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(connections)
            .acquire_timeout(wait)
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
}
