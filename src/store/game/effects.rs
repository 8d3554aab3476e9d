//! The one seam for "what else happens in this transaction": modules above the store (mail,
//! the clock) plug into game creation and every appended entry, so the store never calls up.

use crate::domain::EmailAddress;
use crate::engine::record::Mark;
use crate::engine::{DynGame, DynMatch, Seat};
use crate::store::game::plan::MovePlan;
use crate::store::{GameRow, LogEntry, NewSeat};
use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sqlx::PgConnection;

/// Why an effect stopped the transaction: nothing of it is written.
#[derive(Debug, thiserror::Error)]
pub enum EffectError {
    /// The entry may not be appended; the message is for the player ("your time ran out").
    #[error("{0}")]
    Refused(String),
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

/// A game being created, as its effects see it.
pub struct Creation<'a> {
    /// The new game's id.
    pub id: i64,
    /// Its rules.
    pub game: &'static dyn DynGame,
    /// The match as set up.
    pub started: &'a dyn DynMatch,
    /// The seats as asked.
    pub seats: &'a [NewSeat],
    /// Each seat's raw token, shown once.
    pub seat_tokens: &'a [String],
    /// The organiser's raw token, shown once.
    pub organiser_token: &'a str,
    /// The seed commitment.
    pub commitment: &'a str,
    /// The organiser's address.
    pub organiser_email: Option<&'a EmailAddress>,
    /// The game's options beyond the rules' own (the time control, ...), as given.
    pub settings: &'a serde_json::Value,
    /// When.
    pub at: DateTime<Utc>,
}

/// An entry being appended, as its effects see it.
pub struct Appended<'a> {
    /// The game's row as it was before the entry.
    pub row: &'a GameRow,
    /// The entry's position.
    pub seq: i64,
    /// The seat it is for.
    pub seat: Seat,
    /// Who made it when not the seat by its own hand: the clock (a timeout or a forfeit), the
    /// organiser (the game's cancellation), postplay (the seat's only move), a standing order.
    pub by: Option<Mark>,
    /// When.
    pub at: DateTime<Utc>,
    /// The seats awaited before it.
    pub before: &'a [Seat],
    /// The match after it.
    pub game: &'a dyn DynMatch,
    /// The whole public log, this entry's lines included.
    pub log: &'a [LogEntry],
    /// The seat played for by the next entry of this same transaction (its only move, or its
    /// standing order): the position this entry leaves it in is never put to it.
    pub played_next: Option<Seat>,
    /// The first entry of this transaction: the move that the entries after it follow from.
    pub first_seq: i64,
}

impl Appended<'_> {
    /// Whether the clock made it.
    pub fn by_clock(&self) -> bool {
        self.by == Some(Mark::Clock)
    }

    /// Whether the organiser made it.
    pub fn by_organiser(&self) -> bool {
        self.by == Some(Mark::Organiser)
    }
}

/// What happened to a lobby table that a person must be told of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableEvent {
    /// They are invited to a seat: the raw token of their invitation link, shown once.
    Invited {
        /// The invitation's raw token.
        token: String,
        /// Who invited them (the creator's name).
        by: String,
        /// The table's clock, in words ("3 days a move, weekends paused (UTC)").
        time_control: String,
    },
    /// The table waited its time without filling up.
    Expired,
    /// Its creator cancelled it.
    Cancelled,
}

/// News of a lobby table for one person (a table is no game yet: the mail belongs to none).
pub struct TableNews<'a> {
    /// The table's id.
    pub table_id: i64,
    /// The name of its game ("Whitehouse").
    pub game_name: &'a str,
    /// What happened.
    pub event: TableEvent,
    /// To whom.
    pub to: &'a EmailAddress,
    /// Their name, as far as known.
    pub to_name: &'a str,
    /// When.
    pub at: DateTime<Utc>,
}

/// An invitation to a club, for the address it is mailed to (it belongs to no game).
pub struct ClubNews<'a> {
    /// The club's id.
    pub club_id: i64,
    /// Its name.
    pub club_name: &'a str,
    /// Who invites (the admin's name).
    pub by: &'a str,
    /// The invitation's raw token, shown once.
    pub token: &'a str,
    /// How many days the link works.
    pub days: i32,
    /// To whom.
    pub to: &'a EmailAddress,
    /// When.
    pub at: DateTime<Utc>,
}

/// What happened to a league that its entrants are told of by mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeagueEvent {
    /// Sign-up closed with too few entrants (or a schedule that could not be laid out): the
    /// league is cancelled.
    Cancelled {
        /// How many had signed up.
        entrants: usize,
        /// Why, in words.
        why: String,
    },
    /// Every game has ended: the league is over.
    Finished {
        /// The winner's name (first in the final table).
        winner: String,
        /// The final table, a line a player ("1. Ann: 2 points, won–lost–drawn 2–0–0").
        table: Vec<String>,
    },
}

/// News of a league for one entrant (a league is no game: the mail belongs to none).
pub struct LeagueNews<'a> {
    /// The club's id.
    pub club_id: i64,
    /// Its name.
    pub club_name: &'a str,
    /// The league's id.
    pub league_id: i64,
    /// Its name.
    pub league_name: &'a str,
    /// The name of its game.
    pub game_name: &'a str,
    /// What happened.
    pub event: LeagueEvent,
    /// To whom.
    pub to: &'a EmailAddress,
    /// Their name.
    pub to_name: &'a str,
    /// When.
    pub at: DateTime<Utc>,
}

/// Something that happens inside the transaction of a game's creation and of every entry.
pub trait Effects: Send + Sync {
    /// Inside the transaction that invites an address to a club; nothing by default.
    fn club_news<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _news: &'a ClubNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    /// Inside the transaction that changes a league's course (cancelled at sign-up's close);
    /// nothing by default.
    fn league_news<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _news: &'a LeagueNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    /// Inside the transaction that changes a lobby table (an invitation, its expiry, its
    /// cancellation); nothing by default.
    fn table_news<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _news: &'a TableNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    /// Inside the creation's transaction.
    fn created<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        creation: &'a Creation<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>>;

    /// What the effect reads to plan a move's writes: a SQL expression of one `jsonb` (`$1`
    /// is the game's id), part of the move's one read statement. `None`: nothing.
    fn move_reads(&self) -> Option<&'static str> {
        None
    }

    /// Plans what the entries of one move write, from what [`Effects::move_reads`] read
    /// (`Null` when nothing), into `plan` ([`MovePlan`]): the store writes it all in one
    /// statement. `Ok(false)`: the effect cannot plan these entries, and the store writes
    /// them in a transaction calling [`Effects::appended`] instead. None by default.
    fn plan_move(
        &self,
        _read: &serde_json::Value,
        _entries: &[Appended<'_>],
        _plan: &mut MovePlan,
    ) -> Result<bool, EffectError> {
        Ok(false)
    }

    /// Inside the transaction that appends an entry, after the entry is written.
    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        entry: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>>;

    /// Inside the transaction that ends every credential of a seat (a new link, a new
    /// address, a handover taken up): whatever credential the effect keeps for the seat ends
    /// too. Nothing by default.
    fn seat_rekeyed<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _game_id: i64,
        _seat: Seat,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    /// Inside the transaction that changes who holds a seat, when the address the seat was taken
    /// from is to be told ([`crate::store::SeatChangeNews`]). Nothing by default.
    fn seat_changed<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _news: &'a crate::store::SeatChangeNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    /// Inside the transaction that stores a message of the game's thread (not a command).
    fn message_posted<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _message: &'a crate::store::Message,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }
}

/// An effect of one move only, given by its caller (a reply by mail writes its outcome and its
/// answer with the move it made), run after the effects every entry has.
pub trait AfterAppend: Sync {
    /// Inside the transaction that appends the entry.
    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        entry: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>>;
}
