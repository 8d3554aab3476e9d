//! Accounts and their sessions (DESIGN.md "Identity"): an account gathers a person's seats and
//! preferences; it never weakens a seat link or widens what a seat may see. A session is a
//! random token in a cookie, of which the database keeps only the hash, so any web process can
//! read it and a stolen database holds no usable session.

use crate::domain::{EmailAddress, PlayerName};
use crate::store::{Store, new_token, token_hash};
use chrono::{DateTime, Utc};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

/// How many days a session lasts without signing in again.
pub const SESSION_DAYS: i32 = 30;

/// How many live sessions (browsers signed in) an account keeps at most; a new one ends the
/// oldest beyond.
pub const MAX_SESSIONS: i64 = 20;

/// A person known by their email address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// The account's id.
    pub id: i64,
    /// The address the account signs in with.
    pub email: String,
    /// The name shown to other players.
    pub name: String,
    /// An IANA time zone ("Europe/Paris") in which pages show times.
    pub time_zone: String,
    /// `every`, `digest` or `off`: mail for all the account's seats.
    pub mail_pref: String,
    /// When the account was made.
    pub created_at: DateTime<Utc>,
}

/// An account from a row holding the columns of `account_columns!`.
pub(in crate::store) fn account_from_row(row: &PgRow) -> Result<Account, sqlx::Error> {
    Ok(Account {
        id: row.try_get("id")?,
        email: row.try_get("email")?,
        name: row.try_get("name")?,
        time_zone: row.try_get("time_zone")?,
        mail_pref: row.try_get("mail_pref")?,
        created_at: row.try_get("created_at")?,
    })
}

/// The columns [`account`] reads, for `concat!` (queries are static strings).
macro_rules! account_columns {
    () => {
        "a.id, a.email, a.name, a.time_zone, a.mail_pref, a.created_at"
    };
}

impl Store {
    /// The account of an address (letter case ignored), made with `name` if there is none; in
    /// either case every seat given that address without an owner becomes the account's.
    pub async fn account_for_email(
        &self,
        email: &EmailAddress,
        name: &PlayerName,
    ) -> Result<Account, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let found = self
            .account_in(&mut tx, email.as_str(), name.as_str())
            .await?;
        tx.commit().await?;
        Ok(found)
    }

    /// [`Store::account_for_email`] inside a transaction. A seat that becomes the account's
    /// takes the account's mail preference, except that a seat whose mail was turned off stays
    /// off (an unsubscribe is never undone behind its reader's back).
    pub(in crate::store) async fn account_in(
        &self,
        tx: &mut PgConnection,
        email: &str,
        name: &str,
    ) -> Result<Account, sqlx::Error> {
        sqlx::query(
            "INSERT INTO accounts (email, name) VALUES ($1, $2) \
             ON CONFLICT ((lower(email))) DO NOTHING",
        )
        .bind(email)
        .bind(name)
        .execute(&mut *tx)
        .await?;
        let found = self
            .account_by_email(tx, email)
            .await?
            .ok_or(sqlx::Error::RowNotFound)?;
        sqlx::query(
            "UPDATE seats SET account_id = $1, \
             mail_pref = CASE WHEN mail_pref = 'off' THEN 'off' ELSE $3 END \
             WHERE account_id IS NULL AND lower(email) = lower($2)",
        )
        .bind(found.id)
        .bind(email)
        .bind(&found.mail_pref)
        .execute(&mut *tx)
        .await?;
        Ok(found)
    }

    /// The account of an address, letter case ignored.
    pub(in crate::store) async fn account_by_email(
        &self,
        tx: &mut PgConnection,
        email: &str,
    ) -> Result<Option<Account>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            account_columns!(),
            " FROM accounts a WHERE lower(a.email) = lower($1)"
        ))
        .bind(email)
        .fetch_optional(&mut *tx)
        .await?
        .as_ref()
        .map(account_from_row)
        .transpose()
    }

    /// An account by its id.
    pub async fn account(&self, id: i64) -> Result<Option<Account>, sqlx::Error> {
        sqlx::query(concat!(
            "SELECT ",
            account_columns!(),
            " FROM accounts a WHERE a.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(account_from_row)
        .transpose()
    }

    /// Starts a session for the account: the raw token for the cookie, shown once. The
    /// account's expired sessions are deleted, and beyond [`MAX_SESSIONS`] live ones the
    /// oldest end, so an account never holds more.
    pub async fn start_session(&self, account_id: i64) -> Result<String, sqlx::Error> {
        let token = new_token();
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO sessions (token_hash, account_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $3 + make_interval(days => $4))",
        )
        .bind(token_hash(&token))
        .bind(account_id)
        .bind(now)
        .bind(SESSION_DAYS)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM sessions WHERE account_id = $1 AND (expires_at <= $2 OR token_hash IN \
             (SELECT token_hash FROM sessions WHERE account_id = $1 \
              ORDER BY created_at DESC, token_hash OFFSET $3))",
        )
        .bind(account_id)
        .bind(now)
        .bind(MAX_SESSIONS)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(token)
    }

    /// The account a session token signs in, while the session lasts.
    pub async fn session_account(&self, token: &str) -> Result<Option<Account>, sqlx::Error> {
        if !crate::store::looks_like_token(token) {
            return Ok(None);
        }
        sqlx::query(concat!(
            "SELECT ",
            account_columns!(),
            " FROM sessions s JOIN accounts a ON a.id = s.account_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2"
        ))
        .bind(token_hash(token))
        .bind(self.now())
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(account_from_row)
        .transpose()
    }

    /// Ends one session (signing out on this device).
    pub async fn end_session(&self, token: &str) -> Result<(), sqlx::Error> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash(token))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ends every session of the account (signing out everywhere); the number ended.
    pub async fn end_all_sessions(&self, account_id: i64) -> Result<u64, sqlx::Error> {
        Ok(sqlx::query("DELETE FROM sessions WHERE account_id = $1")
            .bind(account_id)
            .execute(&self.pool)
            .await?
            .rows_affected())
    }
}
