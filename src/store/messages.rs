//! A game's message thread (issue 17): what its players, and signed-in spectators where the
//! creator allowed it, say to each other. Messages are not commands: they are not in the
//! command log or its hash chain, and nothing about them changes the game. Every message
//! records the log head when it was written, so the replay can show it at its step. Limits are
//! counted here, in the database, so every web process agrees on them.

use crate::domain::MessageText;
use crate::engine::Seat;
use crate::store::Store;
use chrono::{DateTime, Duration, Utc};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

/// The most messages a game's thread holds.
pub const MAX_MESSAGES_PER_GAME: i64 = 1000;

/// The most messages one author may write in one game within a minute.
pub const MESSAGES_PER_MINUTE: i64 = 5;

/// The most messages one author may write in one game within an hour.
pub const MESSAGES_PER_HOUR: i64 = 30;

/// How many days after a game ends its thread stays open for a last word.
pub const THREAD_OPEN_DAYS_AFTER_END: i64 = 7;

/// Who writes a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    /// A seat of the game (by its link, or by the account that owns it).
    Seat(Seat),
    /// A signed-in account without a seat in the game.
    Spectator(i64),
    /// The address a seat was taken from, by the link of that change (named after the seat:
    /// "Bo's previous address").
    Former(Seat),
}

/// One message of a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The message's id (increasing in the order written).
    pub id: i64,
    /// The game.
    pub game_id: i64,
    /// The author's seat, if a player wrote it.
    pub seat: Option<Seat>,
    /// The seat whose previous address wrote it, after the seat changed hands.
    pub former_seat: Option<Seat>,
    /// The author's display name when it was written.
    pub author: String,
    /// The text; empty once hidden.
    pub text: String,
    /// The game's log head when it was written.
    pub head: i64,
    /// When it was written.
    pub at: DateTime<Utc>,
    /// When it was hidden and by whom, if it was.
    pub hidden: Option<(DateTime<Utc>, String)>,
}

impl Message {
    /// The text where it may be shown: `None` once hidden.
    pub fn visible_text(&self) -> Option<&str> {
        self.hidden.is_none().then_some(self.text.as_str())
    }
}

/// Why a message was not stored (nothing was, in every case).
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// No such game.
    #[error("no such game")]
    NotFound,
    /// The thread takes no more messages (the game ended long ago, or the thread is full).
    #[error("{0}")]
    Closed(String),
    /// The author wrote too many messages lately.
    #[error("you write messages too often: at most {limit} {per}; try again in {}", crate::time::in_words(*.retry_after))]
    TooMany {
        /// The limit reached.
        limit: i64,
        /// "a minute", "an hour".
        per: &'static str,
        /// When the next message will be taken.
        retry_after: Duration,
    },
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// Something that must happen with the message refused it.
    #[error("{0}")]
    Effect(String),
}

impl From<crate::store::game::effects::EffectError> for PostError {
    fn from(e: crate::store::game::effects::EffectError) -> PostError {
        match e {
            crate::store::game::effects::EffectError::Refused(m) => PostError::Effect(m),
            crate::store::game::effects::EffectError::Db(e) => PostError::Db(e),
        }
    }
}

macro_rules! message_columns {
    () => {
        "id, game_id, seat, former_seat, author_name, body, head_seq, created_at, hidden_at, hidden_by"
    };
}

fn message(row: &PgRow) -> Result<Message, sqlx::Error> {
    let hidden_at: Option<DateTime<Utc>> = row.try_get("hidden_at")?;
    let hidden_by: Option<String> = row.try_get("hidden_by")?;
    let hidden = hidden_at.zip(hidden_by);
    Ok(Message {
        id: row.try_get("id")?,
        game_id: row.try_get("game_id")?,
        seat: row.try_get::<Option<i32>, _>("seat")?.map(|s| s as Seat),
        former_seat: row
            .try_get::<Option<i32>, _>("former_seat")?
            .map(|s| s as Seat),
        author: row.try_get("author_name")?,
        text: if hidden.is_some() {
            String::new()
        } else {
            row.try_get("body")?
        },
        head: row.try_get("head_seq")?,
        at: row.try_get("created_at")?,
        hidden,
    })
}

impl Store {
    /// Whether the game's creator opened its thread to signed-in spectators.
    pub async fn spectators_may_write(&self, game_id: i64) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query_scalar("SELECT spectators_may_write FROM games WHERE id = $1")
                .bind(game_id)
                .fetch_optional(&self.pool)
                .await?
                .unwrap_or(false),
        )
    }

    /// Opens (or closes) the game's thread to signed-in spectators: the creator's choice.
    pub async fn set_spectators_may_write(
        &self,
        game_id: i64,
        allowed: bool,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE games SET spectators_may_write = $2 WHERE id = $1")
            .bind(game_id)
            .bind(allowed)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The seat an account owns in a game (the first, if it owns several).
    pub async fn owned_seat(
        &self,
        game_id: i64,
        account_id: i64,
    ) -> Result<Option<Seat>, sqlx::Error> {
        let seat: Option<i32> = sqlx::query_scalar(
            "SELECT seat FROM seats WHERE game_id = $1 AND account_id = $2 ORDER BY seat LIMIT 1",
        )
        .bind(game_id)
        .bind(account_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(seat.map(|s| s as Seat))
    }

    /// Stores a message from `author` (named `spectator_name` when a spectator: a seat is
    /// named as the seat is now), after the thread's limits: open (running, or ended less than
    /// [`THREAD_OPEN_DAYS_AFTER_END`] days ago), not full ([`MAX_MESSAGES_PER_GAME`]), and the
    /// author under [`MESSAGES_PER_MINUTE`] and [`MESSAGES_PER_HOUR`]. Messages to one game
    /// are taken one at a time, so two writers cannot both take the last place.
    pub async fn post_message(
        &self,
        game_id: i64,
        author: Author,
        spectator_name: &str,
        text: &MessageText,
    ) -> Result<Message, PostError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "SELECT pg_advisory_xact_lock(hashtextextended('game_messages:' || $1::text, 0))",
        )
        .bind(game_id)
        .execute(&mut *tx)
        .await?;
        let game = sqlx::query("SELECT status, head_seq, updated_at FROM games WHERE id = $1")
            .bind(game_id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(PostError::NotFound)?;
        let status: String = game.try_get("status")?;
        let head: i64 = game.try_get("head_seq")?;
        let ended: DateTime<Utc> = game.try_get("updated_at")?;
        if status == "over" && now - ended > Duration::days(THREAD_OPEN_DAYS_AFTER_END) {
            return Err(PostError::Closed(format!(
                "the game ended more than {THREAD_OPEN_DAYS_AFTER_END} days ago: its messages are closed"
            )));
        }
        let count: i64 =
            sqlx::query_scalar("SELECT count(*) FROM game_messages WHERE game_id = $1")
                .bind(game_id)
                .fetch_one(&mut *tx)
                .await?;
        if count >= MAX_MESSAGES_PER_GAME {
            return Err(PostError::Closed(format!(
                "this game's thread is full ({MAX_MESSAGES_PER_GAME} messages)"
            )));
        }
        let seat_name = |seat: Seat| {
            sqlx::query_scalar::<sqlx::Postgres, String>(
                "SELECT name FROM seats WHERE game_id = $1 AND seat = $2",
            )
            .bind(game_id)
            .bind(seat as i32)
        };
        let (seat, account, name, former) = match author {
            Author::Seat(seat) => {
                let name = seat_name(seat)
                    .fetch_optional(&mut *tx)
                    .await?
                    .ok_or(PostError::NotFound)?;
                (Some(seat as i32), None, name, None)
            }
            Author::Spectator(account) => (None, Some(account), spectator_name.to_string(), None),
            Author::Former(seat) => {
                let name = seat_name(seat)
                    .fetch_optional(&mut *tx)
                    .await?
                    .ok_or(PostError::NotFound)?;
                let name = format!("{name}'s previous address");
                (None, None, name, Some(seat as i32))
            }
        };
        let recent: Vec<DateTime<Utc>> = sqlx::query_scalar(
            "SELECT created_at FROM game_messages WHERE game_id = $1 \
             AND (seat = $2 OR (seat IS NULL AND $2 IS NULL AND account_id = $3)) \
             AND created_at > $4 ORDER BY created_at",
        )
        .bind(game_id)
        .bind(seat)
        .bind(account)
        .bind(now - Duration::hours(1))
        .fetch_all(&mut *tx)
        .await?;
        for (limit, per, window) in [
            (MESSAGES_PER_MINUTE, "a minute", Duration::minutes(1)),
            (MESSAGES_PER_HOUR, "an hour", Duration::hours(1)),
        ] {
            let within: Vec<&DateTime<Utc>> =
                recent.iter().filter(|at| now - **at < window).collect();
            if within.len() as i64 >= limit {
                let frees = *within[within.len() - limit as usize] + window;
                return Err(PostError::TooMany {
                    limit,
                    per,
                    retry_after: (frees - now).max(Duration::seconds(1)),
                });
            }
        }
        let row = sqlx::query(concat!(
            "INSERT INTO game_messages (game_id, seat, account_id, author_name, body, head_seq, created_at, former_seat) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ",
            message_columns!()
        ))
        .bind(game_id)
        .bind(seat)
        .bind(account)
        .bind(&name)
        .bind(text.as_str())
        .bind(head)
        .bind(now)
        .bind(former)
        .fetch_one(&mut *tx)
        .await?;
        let posted = message(&row)?;
        for effect in &self.effects {
            effect.message_posted(&mut tx, &posted).await?;
        }
        tx.commit().await?;
        tracing::info!(game = game_id, message = posted.id, "message posted");
        Ok(posted)
    }

    /// Writes `text` into game `game_id`'s thread inside `tx`, from the seat `former_seat`'s
    /// previous holder (signed "{name}'s previous address", hidden by nobody), past the
    /// thread's limits: what a seat's leaving tells the other players must reach them. The
    /// effects tell them as for any message.
    pub(in crate::store) async fn post_leaving_in(
        &self,
        tx: &mut PgConnection,
        game_id: i64,
        former_seat: Seat,
        text: &str,
    ) -> Result<(), crate::store::StoreError> {
        let row = sqlx::query(concat!(
            "INSERT INTO game_messages (game_id, seat, account_id, author_name, body, head_seq, created_at, former_seat) \
             SELECT s.game_id, NULL, NULL, s.name || '''s previous address', $3, g.head_seq, $4, s.seat \
             FROM seats s JOIN games g ON g.id = s.game_id WHERE s.game_id = $1 AND s.seat = $2 \
             RETURNING ",
            message_columns!()
        ))
        .bind(game_id)
        .bind(former_seat as i32)
        .bind(text)
        .bind(self.now())
        .fetch_one(&mut *tx)
        .await?;
        let posted = message(&row)?;
        for effect in &self.effects {
            effect.message_posted(tx, &posted).await?;
        }
        Ok(())
    }

    /// A game's thread in the order written, hidden messages included (without their text).
    pub async fn messages(&self, game_id: i64) -> Result<Vec<Message>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            message_columns!(),
            " FROM game_messages WHERE game_id = $1 ORDER BY id"
        ))
        .bind(game_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(message)
        .collect()
    }

    /// Hides a message of the game: it stays stored, marked hidden `by` whom and when; its
    /// text is shown, mailed and exported no more. False when the game has no such message, it
    /// was hidden already, or a seat's previous address wrote it (whoever took the seat must
    /// not silence the warning).
    pub async fn hide_message(
        &self,
        game_id: i64,
        message_id: i64,
        by: &str,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE game_messages SET hidden_at = $3, hidden_by = $4 \
             WHERE game_id = $1 AND id = $2 AND hidden_at IS NULL AND former_seat IS NULL",
        )
        .bind(game_id)
        .bind(message_id)
        .bind(self.now())
        .bind(by)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

impl Store {
    /// Hides a message of the game's thread written by `seat`, on its writer's request: kept,
    /// marked hidden by the writer. False if the seat wrote no such visible message.
    pub async fn hide_own_message(
        &self,
        game_id: i64,
        message_id: i64,
        seat: Seat,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE game_messages SET hidden_at = $4, hidden_by = 'writer' \
             WHERE game_id = $1 AND id = $2 AND seat = $3 AND hidden_at IS NULL",
        )
        .bind(game_id)
        .bind(message_id)
        .bind(seat as i32)
        .bind(self.now())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

/// A message of a record checked for import.
pub(in crate::store) struct Imported {
    seat: Option<i32>,
    author: String,
    text: Option<MessageText>,
    after: i64,
    at: DateTime<Utc>,
}

/// The record's messages, checked: a known seat, a name, a valid text unless hidden, a time,
/// a step within the log; at most [`MAX_MESSAGES_PER_GAME`].
pub(in crate::store) fn imported(
    record: &crate::engine::Record,
) -> Result<Vec<Imported>, crate::store::StoreError> {
    let invalid = |i: usize, why: String| {
        crate::store::StoreError::Invalid(format!("message {}: {why}", i + 1))
    };
    if record.messages.len() as i64 > MAX_MESSAGES_PER_GAME {
        return Err(crate::store::StoreError::Invalid(format!(
            "a game holds at most {MAX_MESSAGES_PER_GAME} messages; the record has {}",
            record.messages.len()
        )));
    }
    record
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if m.seat.is_some_and(|s| s >= record.seats) {
                return Err(invalid(i, "no such seat".into()));
            }
            let author = crate::domain::PlayerName::parse(&m.author)
                .map_err(|e| invalid(i, format!("author: {e}")))?;
            let text = match (&m.text, m.hidden) {
                (_, true) => None,
                (Some(text), false) => {
                    Some(MessageText::parse(text).map_err(|e| invalid(i, e.to_string()))?)
                }
                (None, false) => return Err(invalid(i, "no text".into())),
            };
            if m.after < 0 || m.after > record.commands.len() as i64 {
                return Err(invalid(
                    i,
                    "written after a move the log does not hold".into(),
                ));
            }
            let at = DateTime::parse_from_rfc3339(&m.at)
                .map_err(|e| invalid(i, format!("time {:?}: {e}", m.at)))?
                .with_timezone(&Utc);
            Ok(Imported {
                seat: m.seat.map(|s| s as i32),
                author: author.to_string(),
                text,
                after: m.after,
                at,
            })
        })
        .collect()
}

/// Stores an imported game's messages (a hidden one stays hidden, by the organiser, from its
/// own time: the record does not say when it was hidden).
pub(in crate::store) async fn store_imported(
    tx: &mut sqlx::PgConnection,
    game_id: i64,
    messages: &[Imported],
) -> Result<(), sqlx::Error> {
    for m in messages {
        sqlx::query(
            "INSERT INTO game_messages (game_id, seat, author_name, body, head_seq, created_at, hidden_at, hidden_by) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(game_id)
        .bind(m.seat)
        .bind(&m.author)
        .bind(m.text.as_ref().map_or("", |t| t.as_str()))
        .bind(m.after)
        .bind(m.at)
        .bind(m.text.is_none().then_some(m.at))
        .bind(m.text.is_none().then_some("organiser"))
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}
