//! What `/me/export` gathers of an account (docs/ACCOUNTS.md, "Your data"): its settings, the
//! seats it holds with their games, the messages it wrote, its webhooks and API tokens — never a
//! secret (a webhook's URL or key, a token), never a game's state: a game is named with links to
//! its public record, which shows every viewer only what that viewer may see.

use crate::store::Store;
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;

/// One seat the account holds, with its game.
#[derive(Debug, Clone, Serialize)]
pub struct ExportedSeat {
    /// The game.
    pub game_id: i64,
    /// Its kind (`"whitehouse"`).
    pub kind: String,
    /// The seat.
    pub seat: i32,
    /// The seat's player name.
    pub name: String,
    /// Every seat's name, in seat order.
    pub players: Vec<String>,
    /// `running` or `over`.
    pub status: String,
    /// How the game ended, as stored (`None` while running).
    pub result: Option<String>,
    /// Entries in the game's log.
    pub moves: i64,
    /// When the game was made.
    pub created_at: DateTime<Utc>,
    /// The path of the game's public pages: `/games/{id}`, or its spectator link for an
    /// unlisted game.
    pub path: String,
}

/// A message the account wrote: as a spectator, or from one of its seats.
#[derive(Debug, Clone, Serialize)]
pub struct ExportedMessage {
    /// The game.
    pub game_id: i64,
    /// The seat it was written from (`None`: as a spectator).
    pub seat: Option<i32>,
    /// The name it was signed with.
    pub author_name: String,
    /// What was written (empty when the organiser hid it from a game imported so).
    pub body: String,
    /// When.
    pub created_at: DateTime<Utc>,
    /// When the organiser hid it from the others, if they did.
    pub hidden_at: Option<DateTime<Utc>>,
}

/// A webhook, without its URL's secret part or its key.
#[derive(Debug, Clone, Serialize)]
pub struct ExportedWebhook {
    /// `discord`, `slack` or `generic`.
    pub kind: String,
    /// Its host and last four characters (`crate::domain::masked_url`).
    pub place: String,
    /// When it was added.
    pub created_at: DateTime<Utc>,
}

/// An API token, without the token.
#[derive(Debug, Clone, Serialize)]
pub struct ExportedToken {
    /// Its label.
    pub label: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it was last used.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The account's settings.
#[derive(Debug, Clone, Serialize)]
pub struct ExportedSettings {
    /// The address.
    pub email: String,
    /// The display name.
    pub name: String,
    /// The IANA time zone.
    pub time_zone: String,
    /// `every`, `digest` or `off`.
    pub mail_pref: String,
    /// "Play my forced moves" by default.
    pub play_forced: bool,
    /// When the account was made.
    pub created_at: DateTime<Utc>,
}

/// Everything `/me/export` holds, before the web adds its links.
#[derive(Debug, Clone, Serialize)]
pub struct AccountExport {
    /// The settings.
    pub settings: ExportedSettings,
    /// Every seat the account holds, newest game first.
    pub seats: Vec<ExportedSeat>,
    /// The games it organises (ids).
    pub organised: Vec<i64>,
    /// The messages it wrote, oldest first.
    pub messages: Vec<ExportedMessage>,
    /// Its webhooks.
    pub webhooks: Vec<ExportedWebhook>,
    /// Its API tokens.
    pub api_tokens: Vec<ExportedToken>,
}

impl Store {
    /// What the account `account_id` may download of itself; `None` for no such account.
    pub async fn account_export(
        &self,
        account_id: i64,
    ) -> Result<Option<AccountExport>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
        let Some(row) = sqlx::query(
            "SELECT email, name, time_zone, mail_pref, play_forced, created_at \
             FROM accounts WHERE id = $1",
        )
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        let settings = ExportedSettings {
            email: row.try_get("email")?,
            name: row.try_get("name")?,
            time_zone: row.try_get("time_zone")?,
            mail_pref: row.try_get("mail_pref")?,
            play_forced: row.try_get("play_forced")?,
            created_at: row.try_get("created_at")?,
        };
        let seats = sqlx::query(
            "SELECT g.id, g.kind, s.seat, s.name, g.status, g.result, g.head_seq, g.created_at, \
             g.spectator_token, \
             ARRAY(SELECT n.name FROM seats n WHERE n.game_id = g.id ORDER BY n.seat) AS players \
             FROM seats s JOIN games g ON g.id = s.game_id \
             WHERE s.account_id = $1 ORDER BY g.id DESC, s.seat",
        )
        .bind(account_id)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(|r| {
            let id: i64 = r.try_get("id")?;
            let path = match r.try_get::<Option<String>, _>("spectator_token")? {
                Some(token) => format!("/watch/{token}"),
                None => format!("/games/{id}"),
            };
            Ok(ExportedSeat {
                game_id: id,
                kind: r.try_get("kind")?,
                seat: r.try_get("seat")?,
                name: r.try_get("name")?,
                players: r.try_get("players")?,
                status: r.try_get("status")?,
                result: r.try_get("result")?,
                moves: r.try_get("head_seq")?,
                created_at: r.try_get("created_at")?,
                path,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
        let organised =
            sqlx::query_scalar("SELECT id FROM games WHERE organiser_account = $1 ORDER BY id")
                .bind(account_id)
                .fetch_all(&mut *tx)
                .await?;
        let messages = sqlx::query(
            "SELECT m.game_id, m.seat, m.author_name, m.body, m.created_at, m.hidden_at \
             FROM game_messages m \
             WHERE m.account_id = $1 OR EXISTS (SELECT 1 FROM seats s WHERE s.account_id = $1 \
                 AND s.game_id = m.game_id AND s.seat = m.seat) \
             ORDER BY m.id",
        )
        .bind(account_id)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(|r| {
            Ok(ExportedMessage {
                game_id: r.try_get("game_id")?,
                seat: r.try_get("seat")?,
                author_name: r.try_get("author_name")?,
                body: r.try_get("body")?,
                created_at: r.try_get("created_at")?,
                hidden_at: r.try_get("hidden_at")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
        let webhooks = sqlx::query(
            "SELECT kind, url, created_at FROM webhooks WHERE account_id = $1 ORDER BY id",
        )
        .bind(account_id)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(|r| {
            let url: String = r.try_get("url")?;
            Ok(ExportedWebhook {
                kind: r.try_get("kind")?,
                place: crate::domain::masked_url(&url),
                created_at: r.try_get("created_at")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
        let api_tokens = sqlx::query(
            "SELECT label, created_at, last_used_at FROM api_tokens WHERE account_id = $1 \
             ORDER BY id",
        )
        .bind(account_id)
        .fetch_all(&mut *tx)
        .await?
        .into_iter()
        .map(|r| {
            Ok(ExportedToken {
                label: r.try_get("label")?,
                created_at: r.try_get("created_at")?,
                last_used_at: r.try_get("last_used_at")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
        tx.commit().await?;
        Ok(Some(AccountExport {
            settings,
            seats,
            organised,
            messages,
            webhooks,
            api_tokens,
        }))
    }
}
