//! Lobby tables: a game still looking for players. A table is no game: it has no seed and no
//! commitment until the join that takes its last seat starts the game, in the same
//! transaction, with the table's row locked so two players racing for that seat cannot both
//! have it ([`crate::store::lobby::start`]).

use crate::domain::{EmailAddress, ExpiryDays, Seating};
use crate::engine::Seed;
use crate::games::find_game;
use crate::store::game::effects::{TableEvent, TableNews};
use crate::store::{Account, Store, StoreError, new_token, token_hash};
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

/// How many open tables one account may have created at once.
pub const MAX_OPEN_TABLES: i64 = 5;

/// How many tables the lobby shows a page.
pub const LOBBY_PAGE: i64 = 50;

/// Why a table could not be changed as asked. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No such table (or invitation).
    #[error("no such table")]
    NotFound,
    /// The table is no longer open: its game started, it expired or it was cancelled.
    #[error("{0}")]
    Closed(String),
    /// The seat asked for is taken (by another player a moment ago, or before).
    #[error("that seat was just taken: choose another or find another table")]
    SeatTaken,
    /// The player is already at this table.
    #[error("you already have a seat at this table")]
    AlreadySeated,
    /// Only the table's creator may do this, or only a seated player.
    #[error("{0}")]
    NotAllowed(String),
    /// A bound is reached or the request is not possible as made.
    #[error("{0}")]
    Invalid(String),
    /// Starting the game failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for TableError {
    fn from(e: sqlx::Error) -> TableError {
        TableError::Store(StoreError::Db(e))
    }
}

impl From<crate::store::game::effects::EffectError> for TableError {
    fn from(e: crate::store::game::effects::EffectError) -> TableError {
        TableError::Store(e.into())
    }
}

/// A table as its creator asks for it.
#[derive(Debug, Clone)]
pub struct NewTable {
    /// The game's id (`"whitehouse"`).
    pub kind: String,
    /// The rules' options.
    pub options: Value,
    /// The settings beyond the rules (`{"clock": …}`), as for a created game.
    pub settings: Value,
    /// How many players.
    pub seat_count: usize,
    /// How seats are assigned.
    pub seating: Seating,
    /// The creator's own position, if they play (0-based; any free one at random seating).
    pub creator_position: Option<usize>,
    /// The creator's words for the shuffle, when they play (docs/FAIRNESS.md).
    pub creator_words: Option<crate::engine::deal::ShuffleWords>,
    /// How long the table waits.
    pub expires_in: ExpiryDays,
    /// Addresses invited to a held seat each.
    pub invites: Vec<EmailAddress>,
    /// The club whose members alone may see and join it (none for the lobby's tables).
    pub club_id: Option<i64>,
    /// Practice bots put at the table from the start, one place each, by level (docs/BOTS.md;
    /// never at a club's table, whose games are rated).
    pub bots: Vec<crate::engine::BotLevel>,
}

/// A place at a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePlace {
    /// Its position (the seat, at placed seating; the order of joining otherwise).
    pub position: i32,
    /// The account seated there, if any.
    pub account_id: Option<i64>,
    /// The seated player's name ("Bot (easy)" for a bot), or none for a held invitation.
    pub name: Option<String>,
    /// The seat in the started game.
    pub game_seat: Option<i32>,
    /// The level of the practice bot that has the place, if a bot has it.
    pub bot: Option<crate::engine::BotLevel>,
}

/// A table as pages show it.
#[derive(Debug, Clone)]
pub struct Table {
    /// Id.
    pub id: i64,
    /// The game's id.
    pub kind: String,
    /// The rules' options.
    pub options: Value,
    /// How many players.
    pub seat_count: i32,
    /// How seats are assigned.
    pub seating: Seating,
    /// Who opened it.
    pub creator_id: i64,
    /// Their name.
    pub creator_name: String,
    /// `open`, `started`, `expired` or `cancelled` (an open table past its time is expired).
    pub status: String,
    /// The game, once started.
    pub game_id: Option<i64>,
    /// Opened.
    pub created_at: DateTime<Utc>,
    /// When it expires if still open.
    pub expires_at: DateTime<Utc>,
    /// The taken and held places, by position.
    pub places: Vec<TablePlace>,
    /// The game's clock, as chosen when the table was opened.
    pub clock: crate::domain::ClockSettings,
    /// The club whose members alone may see and join it.
    pub club_id: Option<i64>,
    /// Not in the lobby's list; its page opens only to its creator and those seated or
    /// invited at it ([`Store::may_see_table`]).
    pub unlisted: bool,
}

impl Table {
    /// The free positions.
    pub fn free_positions(&self) -> Vec<i32> {
        (0..self.seat_count)
            .filter(|p| self.places.iter().all(|t| t.position != *p))
            .collect()
    }

    /// The account's place, if seated.
    pub fn place_of(&self, account_id: i64) -> Option<&TablePlace> {
        self.places
            .iter()
            .find(|p| p.account_id == Some(account_id))
    }
}

/// One open table in the lobby's list.
#[derive(Debug, Clone)]
pub struct LobbyEntry {
    /// Id.
    pub id: i64,
    /// The game's id.
    pub kind: String,
    /// The rules' options.
    pub options: Value,
    /// How many players.
    pub seat_count: i32,
    /// How seats are assigned.
    pub seating: Seating,
    /// The seated players' names, by position.
    pub names: Vec<String>,
    /// Places taken or held.
    pub taken: i64,
    /// Opened.
    pub created_at: DateTime<Utc>,
    /// The game's clock, as chosen when the table was opened.
    pub clock: crate::domain::ClockSettings,
}

/// What a join did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    /// Seated; the table still waits for others.
    Seated,
    /// The join took the last seat: the game started.
    Started {
        /// The new game.
        game_id: i64,
    },
}

fn seating(text: &str) -> Result<Seating, sqlx::Error> {
    Seating::parse(text).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

fn table_row(row: &PgRow, now: DateTime<Utc>) -> Result<Table, sqlx::Error> {
    let status: String = row.try_get("status")?;
    let expires_at: DateTime<Utc> = row.try_get("expires_at")?;
    let status = if status == "open" && expires_at <= now {
        "expired".to_string()
    } else {
        status
    };
    Ok(Table {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        options: row.try_get("options")?,
        seat_count: row.try_get("seat_count")?,
        seating: seating(row.try_get("seating")?)?,
        creator_id: row.try_get("creator_id")?,
        creator_name: row.try_get("creator_name")?,
        status,
        game_id: row.try_get("game_id")?,
        created_at: row.try_get("created_at")?,
        expires_at,
        places: Vec::new(),
        clock: crate::domain::ClockSettings::of_game(&row.try_get("settings")?),
        club_id: row.try_get("club_id")?,
        unlisted: row.try_get("unlisted")?,
    })
}

/// The words for a table that is no longer open.
pub(in crate::store) fn closed_words(status: &str) -> String {
    match status {
        "started" => "that seat was just taken: the table is full and its game has started".into(),
        "expired" => "this table waited its time without filling up and has expired".into(),
        _ => "this table was cancelled by its creator".into(),
    }
}

impl Store {
    /// Opens a table: checks the options by setting the game up (with a throwaway seed: the
    /// game's own is drawn at the start), seats the creator if they play, holds a seat for each
    /// invited address and queues its invitation. Bounded by [`MAX_OPEN_TABLES`] a creator.
    pub async fn open_table(&self, creator: &Account, new: &NewTable) -> Result<i64, TableError> {
        let game = find_game(&new.kind).ok_or(TableError::NotFound)?;
        let (min, max) = game.seat_counts();
        if !(min..=max).contains(&new.seat_count) {
            return Err(TableError::Invalid(format!(
                "{} is played by {min} to {max} players",
                game.name()
            )));
        }
        let options = game
            .new_match(&new.options, new.seat_count, Seed::random())
            .map_err(|e| TableError::Invalid(e.to_string()))?
            .options();
        let sitting = usize::from(new.creator_position.is_some());
        let unlisted = new.settings.get("unlisted") == Some(&Value::Bool(true));
        if !new.bots.is_empty() {
            if crate::games::find_bot(game.id()).is_none() {
                return Err(TableError::Invalid(format!(
                    "{} has no practice bot yet",
                    game.name()
                )));
            }
            if new.club_id.is_some() {
                return Err(TableError::Invalid(
                    "a club's games are rated: bots sit only at the lobby's tables".into(),
                ));
            }
            if sitting + new.invites.len() == 0 && new.bots.len() + 1 > new.seat_count {
                return Err(TableError::Invalid(
                    "at least one seat must be a player's, not a bot's".into(),
                ));
            }
        }
        let held = new.invites.len() + sitting + new.bots.len();
        if unlisted && held != new.seat_count {
            // Nobody but its invitees reaches an unlisted table: a seat left free stays free.
            return Err(TableError::Invalid(format!(
                "an unlisted table fills by your invitations only: invite one address for each \
                 seat you do not take ({} in all)",
                new.seat_count - sitting
            )));
        }
        if !unlisted && held >= new.seat_count {
            return Err(TableError::Invalid(
                "leave at least one seat open for the lobby (or create the game directly)".into(),
            ));
        }
        if let Some(p) = new.creator_position
            && p >= new.seat_count
        {
            return Err(TableError::Invalid("no such seat".into()));
        }
        let mut seen: Vec<String> = vec![creator.email.to_lowercase()];
        for address in &new.invites {
            let lower = address.as_str().to_lowercase();
            if seen.contains(&lower) {
                return Err(TableError::Invalid(format!(
                    "{address} is invited twice, or is yours"
                )));
            }
            seen.push(lower);
        }
        if new.club_id.is_some()
            && (!new.invites.is_empty() || new.settings.get("unlisted") == Some(&Value::Bool(true)))
        {
            return Err(TableError::Invalid(
                "a club's table is found by its members on the club's page: it takes no \
                 invitations and is not unlisted"
                    .into(),
            ));
        }
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        if let Some(club) = new.club_id {
            club_open_to(&mut tx, club, creator.id).await?;
        }
        // One creator's openings are counted one at a time.
        sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
            .bind(creator.id)
            .execute(&mut *tx)
            .await?;
        let open: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM open_tables WHERE creator_id = $1 AND status = 'open' \
             AND expires_at > $2",
        )
        .bind(creator.id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        if open >= MAX_OPEN_TABLES {
            return Err(TableError::Invalid(format!(
                "you have {open} open tables already, the most one player may have: wait for \
                 one to fill or cancel one"
            )));
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO open_tables (kind, options, settings, seat_count, seating, creator_id, \
             created_at, expires_at, unlisted, club_id) VALUES ($1, $2, $3, $4, $5, $6, $7, \
             $7 + make_interval(days => $8), coalesce(($3->>'unlisted')::boolean, false), $9) \
             RETURNING id",
        )
        .bind(game.id())
        .bind(&options)
        .bind(&new.settings)
        .bind(new.seat_count as i32)
        .bind(new.seating.as_str())
        .bind(creator.id)
        .bind(now)
        .bind(new.expires_in.days())
        .bind(new.club_id)
        .fetch_one(&mut *tx)
        .await?;
        let mut free =
            (0..new.seat_count as i32).filter(|p| Some(*p as usize) != new.creator_position);
        if let Some(p) = new.creator_position {
            sqlx::query(
                "INSERT INTO table_seats (table_id, position, account_id, joined_at, contribution) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(id)
            .bind(p as i32)
            .bind(creator.id)
            .bind(now)
            .bind(new.creator_words.as_ref().map(|w| w.as_str()))
            .execute(&mut *tx)
            .await?;
        }
        for address in &new.invites {
            let position = free.next().expect("fewer invitations than free seats");
            let token = new_token();
            sqlx::query(
                "INSERT INTO table_seats (table_id, position, invited_email, invite_token_hash, \
                 joined_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(id)
            .bind(position)
            .bind(address.as_str())
            .bind(token_hash(&token))
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let news = TableNews {
                table_id: id,
                game_name: game.name(),
                event: TableEvent::Invited {
                    token,
                    by: creator.name.clone(),
                    time_control: crate::domain::ClockSettings::of_game(&new.settings).describe(),
                },
                to: address,
                to_name: "",
                at: now,
            };
            self.tell(&mut tx, &news).await?;
        }
        for level in &new.bots {
            let position = free
                .next()
                .expect("fewer bots and invitations than free seats");
            sqlx::query(
                "INSERT INTO table_seats (table_id, position, bot, joined_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(id)
            .bind(position)
            .bind(level.name())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        tracing::info!(table = id, kind = game.id(), "table opened");
        Ok(id)
    }

    pub(in crate::store) async fn tell(
        &self,
        tx: &mut PgConnection,
        news: &TableNews<'_>,
    ) -> Result<(), TableError> {
        for effect in &self.effects {
            effect.table_news(tx, news).await?;
        }
        Ok(())
    }

    /// A table with its places.
    pub async fn table(&self, id: i64) -> Result<Option<Table>, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        read_table(&mut conn, id, self.now(), false).await
    }

    /// Whether `reader` may see `table` at all: anyone a listed table; an unlisted one (whose
    /// sequential id anyone can guess) only its creator, an account seated at it, or an account
    /// whose address holds one of its invitations.
    pub async fn may_see_table(
        &self,
        table: &Table,
        reader: Option<&Account>,
    ) -> Result<bool, sqlx::Error> {
        if !table.unlisted {
            return Ok(true);
        }
        let Some(reader) = reader else {
            return Ok(false);
        };
        if reader.id == table.creator_id || table.place_of(reader.id).is_some() {
            return Ok(true);
        }
        sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM table_seats WHERE table_id = $1 \
             AND account_id IS NULL AND lower(invited_email) = lower($2))",
        )
        .bind(table.id)
        .bind(&reader.email)
        .fetch_one(&self.pool)
        .await
    }

    /// A page of the lobby: listed open tables not past their time, oldest first; and how
    /// many there are in all. An unlisted table is found by its invitations and its link only, a
    /// club's table by its members on the club's page.
    pub async fn lobby(&self, page: i64) -> Result<(Vec<LobbyEntry>, i64), sqlx::Error> {
        let now = self.now();
        let rows = sqlx::query(
            "WITH page AS (SELECT id FROM open_tables WHERE status = 'open' AND expires_at > $1 \
               AND NOT unlisted AND club_id IS NULL ORDER BY created_at, id LIMIT $2 OFFSET $3) \
             SELECT t.id, t.kind, t.options, t.settings, t.seat_count, t.seating, t.created_at, \
             (SELECT count(*) FROM table_seats s WHERE s.table_id = t.id) AS taken, \
             ARRAY(SELECT a.name FROM table_seats s JOIN accounts a ON a.id = s.account_id \
                   WHERE s.table_id = t.id ORDER BY s.position) AS names \
             FROM page JOIN open_tables t ON t.id = page.id ORDER BY t.created_at, t.id",
        )
        .bind(now)
        .bind(LOBBY_PAGE)
        .bind(page.max(0) * LOBBY_PAGE)
        .fetch_all(&self.pool)
        .await?;
        let total: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM open_tables WHERE status = 'open' AND expires_at > $1 \
             AND NOT unlisted AND club_id IS NULL",
        )
        .bind(now)
        .fetch_one(&self.pool)
        .await?;
        let entries = lobby_entries(&rows)?;
        Ok((entries, total))
    }

    /// The club's open tables not past their time, oldest first (for its members).
    pub async fn club_tables(&self, club_id: i64) -> Result<Vec<LobbyEntry>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT t.id, t.kind, t.options, t.settings, t.seat_count, t.seating, t.created_at, \
             (SELECT count(*) FROM table_seats s WHERE s.table_id = t.id) AS taken, \
             ARRAY(SELECT a.name FROM table_seats s JOIN accounts a ON a.id = s.account_id \
                   WHERE s.table_id = t.id ORDER BY s.position) AS names \
             FROM open_tables t WHERE t.club_id = $1 AND t.status = 'open' AND t.expires_at > $2 \
             ORDER BY t.created_at, t.id LIMIT $3",
        )
        .bind(club_id)
        .bind(self.now())
        .bind(LOBBY_PAGE)
        .fetch_all(&self.pool)
        .await?;
        lobby_entries(&rows)
    }

    /// The account's tables that have not started: those it created and those it sits at,
    /// newest first (for "my games").
    pub async fn open_tables_of(&self, account_id: i64) -> Result<Vec<Table>, sqlx::Error> {
        let now = self.now();
        let ids: Vec<i64> = sqlx::query_scalar(
            "SELECT t.id FROM open_tables t WHERE t.status = 'open' AND t.expires_at > $2 \
             AND (t.creator_id = $1 OR EXISTS (SELECT 1 FROM table_seats s \
                  WHERE s.table_id = t.id AND s.account_id = $1)) \
             ORDER BY t.created_at DESC, t.id DESC",
        )
        .bind(account_id)
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        let mut conn = self.pool.acquire().await?;
        let mut tables = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(t) = read_table(&mut conn, id, now, false).await? {
                tables.push(t);
            }
        }
        Ok(tables)
    }

    /// Leaves a table before its game starts (the creator cancels instead).
    pub async fn leave_table(&self, id: i64, account: &Account) -> Result<(), TableError> {
        let mut tx = self.pool.begin().await?;
        let table = open_for_update(&mut tx, id, self.now()).await?;
        if table.creator_id == account.id {
            return Err(TableError::NotAllowed(
                "you opened this table: cancel it instead of leaving".into(),
            ));
        }
        let left = sqlx::query("DELETE FROM table_seats WHERE table_id = $1 AND account_id = $2")
            .bind(id)
            .bind(account.id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if left == 0 {
            return Err(TableError::NotAllowed(
                "you have no seat at this table".into(),
            ));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Withdraws an invitation not yet accepted (the creator only): the seat is free again.
    pub async fn withdraw_invitation(
        &self,
        id: i64,
        account: &Account,
        position: i32,
    ) -> Result<(), TableError> {
        let mut tx = self.pool.begin().await?;
        let table = open_for_update(&mut tx, id, self.now()).await?;
        if table.creator_id != account.id {
            return Err(TableError::NotAllowed(
                "only the table's creator may withdraw an invitation".into(),
            ));
        }
        let gone = sqlx::query(
            "DELETE FROM table_seats WHERE table_id = $1 AND position = $2 AND account_id IS NULL \
             AND bot IS NULL",
        )
        .bind(id)
        .bind(position)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if gone == 0 {
            return Err(TableError::Invalid(
                "no invitation waits at that seat".into(),
            ));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Cancels an open table (the creator only); everyone seated or invited is told.
    pub async fn cancel_table(&self, id: i64, account: &Account) -> Result<(), TableError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let table = open_for_update(&mut tx, id, now).await?;
        if table.creator_id != account.id {
            return Err(TableError::NotAllowed(
                "only the table's creator may cancel it".into(),
            ));
        }
        self.cancel_table_in(&mut tx, id, Some(account.id), now)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Cancels an open table inside the caller's transaction (its creator's cancellation, or
    /// its club's closing) and tells everyone seated or invited but `by`.
    pub(in crate::store) async fn cancel_table_in(
        &self,
        tx: &mut PgConnection,
        id: i64,
        by: Option<i64>,
        now: DateTime<Utc>,
    ) -> Result<(), TableError> {
        let table = open_for_update(tx, id, now).await?;
        sqlx::query("UPDATE open_tables SET status = 'cancelled', ended_at = $2 WHERE id = $1")
            .bind(id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        self.tell_everyone(tx, &table, TableEvent::Cancelled, by, now)
            .await
    }

    /// Expires the open tables past their time (a batch at most, claimed with SKIP LOCKED so
    /// two processes never expire one twice) and tells everyone seated or invited; the number
    /// expired.
    pub async fn expire_tables(&self, now: DateTime<Utc>) -> Result<usize, TableError> {
        let mut tx = self.pool.begin().await?;
        let ids: Vec<i64> = sqlx::query_scalar(
            "UPDATE open_tables SET status = 'expired', ended_at = $1 WHERE id IN ( \
               SELECT id FROM open_tables WHERE status = 'open' AND expires_at <= $1 \
               ORDER BY expires_at LIMIT 200 FOR UPDATE SKIP LOCKED) RETURNING id",
        )
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        for id in &ids {
            if let Some(table) = read_table(&mut tx, *id, now, false).await? {
                self.tell_everyone(&mut tx, &table, TableEvent::Expired, None, now)
                    .await?;
            }
        }
        tx.commit().await?;
        if !ids.is_empty() {
            tracing::info!(tables = ids.len(), "tables expired");
        }
        Ok(ids.len())
    }

    /// Tells the creator and every seated or invited person (but `except`) of `event`.
    async fn tell_everyone(
        &self,
        tx: &mut PgConnection,
        table: &Table,
        event: TableEvent,
        except: Option<i64>,
        at: DateTime<Utc>,
    ) -> Result<(), TableError> {
        let rows = sqlx::query(
            "SELECT a.email, a.name FROM accounts a WHERE a.id <> $2 AND (a.id = $3 OR a.id IN \
               (SELECT account_id FROM table_seats WHERE table_id = $1)) \
             UNION ALL SELECT invited_email, '' FROM table_seats \
             WHERE table_id = $1 AND account_id IS NULL",
        )
        .bind(table.id)
        .bind(except.unwrap_or(-1))
        .bind(table.creator_id)
        .fetch_all(&mut *tx)
        .await?;
        let name = find_game(&table.kind).map_or(table.kind.as_str(), |g| g.name());
        for row in rows {
            let email: String = row.try_get(0)?;
            let to_name: String = row.try_get(1)?;
            let Ok(to) = EmailAddress::parse(&email) else {
                continue;
            };
            let news = TableNews {
                table_id: table.id,
                game_name: name,
                event: event.clone(),
                to: &to,
                to_name: &to_name,
                at,
            };
            self.tell(tx, &news).await?;
        }
        Ok(())
    }
}

/// The lobby's list rows.
fn lobby_entries(rows: &[PgRow]) -> Result<Vec<LobbyEntry>, sqlx::Error> {
    rows.iter()
        .map(|r| {
            Ok(LobbyEntry {
                id: r.try_get("id")?,
                kind: r.try_get("kind")?,
                options: r.try_get("options")?,
                seat_count: r.try_get("seat_count")?,
                seating: seating(r.try_get("seating")?)?,
                names: r.try_get("names")?,
                taken: r.try_get("taken")?,
                created_at: r.try_get("created_at")?,
                clock: crate::domain::ClockSettings::of_game(&r.try_get("settings")?),
            })
        })
        .collect()
}

/// Refuses a table of a club that is closed or that the account is no member of (a private
/// club's, as a club that does not exist).
pub(in crate::store) async fn club_open_to(
    tx: &mut PgConnection,
    club_id: i64,
    account_id: i64,
) -> Result<(), TableError> {
    let club: Option<(bool, bool, bool)> = sqlx::query_as(
        "SELECT c.private, c.closed_at IS NOT NULL, EXISTS (SELECT 1 FROM club_members m \
         WHERE m.club_id = c.id AND m.account_id = $2) FROM clubs c WHERE c.id = $1 FOR SHARE OF c",
    )
    .bind(club_id)
    .bind(account_id)
    .fetch_optional(&mut *tx)
    .await?;
    match club {
        None | Some((true, _, false)) => Err(TableError::NotFound),
        Some((false, _, false)) => Err(TableError::NotAllowed(
            "this table is for the club's members only".into(),
        )),
        Some((_, true, true)) => Err(TableError::Closed(
            "this club is closed: it takes no new games".into(),
        )),
        Some((_, false, true)) => Ok(()),
    }
}

/// Reads a table and its places; `lock` takes the table's row for update.
pub(in crate::store) async fn read_table(
    conn: &mut PgConnection,
    id: i64,
    now: DateTime<Utc>,
    lock: bool,
) -> Result<Option<Table>, sqlx::Error> {
    let query = if lock {
        "SELECT t.*, a.name AS creator_name FROM open_tables t JOIN accounts a ON a.id = t.creator_id \
         WHERE t.id = $1 FOR UPDATE OF t"
    } else {
        "SELECT t.*, a.name AS creator_name FROM open_tables t JOIN accounts a ON a.id = t.creator_id \
         WHERE t.id = $1"
    };
    let Some(row) = sqlx::query(query)
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let mut table = table_row(&row, now)?;
    let places = sqlx::query(
        "SELECT s.position, s.account_id, a.name, s.game_seat, s.bot FROM table_seats s \
         LEFT JOIN accounts a ON a.id = s.account_id WHERE s.table_id = $1 ORDER BY s.position",
    )
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    table.places = places
        .iter()
        .map(|r| {
            let bot = r
                .try_get::<Option<String>, _>("bot")?
                .and_then(|b| crate::engine::BotLevel::parse(&b));
            Ok(TablePlace {
                position: r.try_get("position")?,
                account_id: r.try_get("account_id")?,
                name: match bot {
                    Some(level) => Some(level.seat_name()),
                    None => r.try_get("name")?,
                },
                game_seat: r.try_get("game_seat")?,
                bot,
            })
        })
        .collect::<Result<_, sqlx::Error>>()?;
    Ok(Some(table))
}

/// The table, locked, if it is still open and not past its time.
pub(in crate::store) async fn open_for_update(
    tx: &mut PgConnection,
    id: i64,
    now: DateTime<Utc>,
) -> Result<Table, TableError> {
    let table = read_table(tx, id, now, true)
        .await?
        .ok_or(TableError::NotFound)?;
    if table.status != "open" {
        return Err(TableError::Closed(closed_words(&table.status)));
    }
    Ok(table)
}

/// How long ago, for the lobby ("3 hours").
pub fn waiting_words(since: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let d = (now - since).max(Duration::zero());
    let (n, unit) = if d < Duration::hours(1) {
        (d.num_minutes(), "minute")
    } else if d < Duration::days(2) {
        (d.num_hours(), "hour")
    } else {
        (d.num_days(), "day")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}
