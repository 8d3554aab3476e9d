//! Personal API tokens: a signed-in player makes one for a script or a bot (shown once, kept
//! hashed), uses it as `Authorization: Bearer`, and revokes it. An account holds at most
//! [`MAX_API_TOKENS`].

use crate::domain::TokenLabel;
use crate::store::accounts::account::account_from_row;
use crate::store::{Account, Store, new_token, token_hash};
use chrono::{DateTime, Utc};
use sqlx::Row;

/// The most API tokens an account may hold at once.
pub const MAX_API_TOKENS: i64 = 10;

/// A token as its owner's page lists it (never the token itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiToken {
    /// The token's id, for revoking it.
    pub id: i64,
    /// What its owner called it.
    pub label: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it was last used, if ever.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The account already holds [`MAX_API_TOKENS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyTokens;

impl Store {
    /// Makes an API token for the account: the raw token, shown once.
    pub async fn create_api_token(
        &self,
        account_id: i64,
        label: &TokenLabel,
    ) -> Result<Result<String, TooManyTokens>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        // The account's row is the lock under which its tokens are counted.
        sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
            .bind(account_id)
            .execute(&mut *tx)
            .await?;
        let held: i64 = sqlx::query_scalar("SELECT count(*) FROM api_tokens WHERE account_id = $1")
            .bind(account_id)
            .fetch_one(&mut *tx)
            .await?;
        if held >= MAX_API_TOKENS {
            return Ok(Err(TooManyTokens));
        }
        let token = new_token();
        sqlx::query(
            "INSERT INTO api_tokens (account_id, token_hash, label, created_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(account_id)
        .bind(token_hash(&token))
        .bind(label.as_str())
        .bind(self.now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Ok(token))
    }

    /// The account's API tokens, newest first.
    pub async fn api_tokens(&self, account_id: i64) -> Result<Vec<ApiToken>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT id, label, created_at, last_used_at FROM api_tokens \
             WHERE account_id = $1 ORDER BY created_at DESC, id DESC",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ApiToken {
                    id: r.try_get("id")?,
                    label: r.try_get("label")?,
                    created_at: r.try_get("created_at")?,
                    last_used_at: r.try_get("last_used_at")?,
                })
            })
            .collect()
    }

    /// Revokes one of the account's tokens; false if it has no such token.
    pub async fn revoke_api_token(&self, account_id: i64, id: i64) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query("DELETE FROM api_tokens WHERE account_id = $1 AND id = $2")
                .bind(account_id)
                .bind(id)
                .execute(&self.pool)
                .await?
                .rows_affected()
                == 1,
        )
    }

    /// The account an API token acts for, noting when it was used.
    pub async fn api_token_account(&self, token: &str) -> Result<Option<Account>, sqlx::Error> {
        if !crate::store::looks_like_token(token) {
            return Ok(None);
        }
        sqlx::query(
            "WITH used AS (UPDATE api_tokens SET last_used_at = $2 WHERE token_hash = $1 \
             RETURNING account_id) \
             SELECT a.id, a.email, a.name, a.time_zone, a.mail_pref, a.created_at \
             FROM used JOIN accounts a ON a.id = used.account_id",
        )
        .bind(token_hash(token))
        .bind(self.now())
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(account_from_row)
        .transpose()
    }
}
