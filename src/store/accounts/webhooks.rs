//! An account's chat webhooks (docs/WEBHOOKS.md): made, listed with how their deliveries went,
//! removed. At most [`MAX_WEBHOOKS`] an account, counted under the account's row lock so
//! every process agrees. The URL is a secret: it leaves this module only for sending.

use crate::domain::{WebhookKind, WebhookUrl};
use crate::store::Store;
use chrono::{DateTime, Utc};
use sqlx::Row;

/// The most webhooks an account may hold at once.
pub const MAX_WEBHOOKS: i64 = 3;

/// A webhook as its owner's page lists it (the URL masked by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookLine {
    /// Its id, for removing it.
    pub id: i64,
    /// Its kind.
    pub kind: WebhookKind,
    /// The stored URL; a page shows only `crate::domain::masked_url` of it.
    pub url: String,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// Notices delivered.
    pub sent: i64,
    /// Notices waiting, or being retried.
    pub waiting: i64,
    /// Notices given up on.
    pub failed: i64,
    /// The error of the latest notice that failed or is being retried, with when.
    pub last_error: Option<(DateTime<Utc>, String)>,
}

/// A webhook as the worker sends to it.
#[derive(Clone)]
pub struct WebhookTarget {
    /// Its kind.
    pub kind: WebhookKind,
    /// The URL (a secret).
    pub url: String,
    /// A generic webhook's signing key.
    pub secret: Option<String>,
}

/// The account already holds [`MAX_WEBHOOKS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyWebhooks;

/// A fresh signing key for a generic webhook: 48 hex digits (192 bits) from the OS CSPRNG.
fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    hex::encode(bytes)
}

impl Store {
    /// Adds a webhook to the account: its id, and the signing key of a generic one (shown once).
    pub async fn add_webhook(
        &self,
        account_id: i64,
        kind: WebhookKind,
        url: &WebhookUrl,
    ) -> Result<Result<(i64, Option<String>), TooManyWebhooks>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
            .bind(account_id)
            .execute(&mut *tx)
            .await?;
        let held: i64 = sqlx::query_scalar("SELECT count(*) FROM webhooks WHERE account_id = $1")
            .bind(account_id)
            .fetch_one(&mut *tx)
            .await?;
        if held >= MAX_WEBHOOKS {
            return Ok(Err(TooManyWebhooks));
        }
        let secret = (kind == WebhookKind::Generic).then(new_secret);
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO webhooks (account_id, kind, url, secret, created_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(account_id)
        .bind(kind.as_str())
        .bind(url.as_str())
        .bind(&secret)
        .bind(self.now())
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Ok((id, secret)))
    }

    /// The account's webhooks, oldest first, each with how its deliveries went.
    pub async fn webhooks(&self, account_id: i64) -> Result<Vec<WebhookLine>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT w.id, w.kind, w.url, w.created_at, l.at AS error_at, l.error, \
             count(o.id) FILTER (WHERE o.status = 'sent') AS sent, \
             count(o.id) FILTER (WHERE o.status IN ('pending', 'sending')) AS waiting, \
             count(o.id) FILTER (WHERE o.status = 'failed') AS failed \
             FROM webhooks w LEFT JOIN outbox o ON o.webhook_id = w.id \
             LEFT JOIN LATERAL (SELECT o2.created_at AS at, o2.last_error AS error FROM outbox o2 \
                 WHERE o2.webhook_id = w.id AND o2.last_error IS NOT NULL \
                 ORDER BY o2.id DESC LIMIT 1) l ON true \
             WHERE w.account_id = $1 GROUP BY w.id, l.at, l.error ORDER BY w.id",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let kind: String = r.try_get("kind")?;
                let at: Option<DateTime<Utc>> = r.try_get("error_at")?;
                let error: Option<String> = r.try_get("error")?;
                Ok(WebhookLine {
                    id: r.try_get("id")?,
                    kind: WebhookKind::parse(&kind).unwrap_or(WebhookKind::Generic),
                    url: r.try_get("url")?,
                    created_at: r.try_get("created_at")?,
                    sent: r.try_get("sent")?,
                    waiting: r.try_get("waiting")?,
                    failed: r.try_get("failed")?,
                    last_error: at.zip(error),
                })
            })
            .collect()
    }

    /// Removes one of the account's webhooks, with its deliveries not yet made; false when the
    /// account has no such webhook.
    pub async fn remove_webhook(&self, account_id: i64, id: i64) -> Result<bool, sqlx::Error> {
        let done = sqlx::query("DELETE FROM webhooks WHERE id = $1 AND account_id = $2")
            .bind(id)
            .bind(account_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Where the worker sends a webhook's notice; `None` once it was removed.
    pub async fn webhook_target(&self, id: i64) -> Result<Option<WebhookTarget>, sqlx::Error> {
        let row = sqlx::query("SELECT kind, url, secret FROM webhooks WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            let kind: String = r.try_get("kind")?;
            Ok(WebhookTarget {
                kind: WebhookKind::parse(&kind).unwrap_or(WebhookKind::Generic),
                url: r.try_get("url")?,
                secret: r.try_get("secret")?,
            })
        })
        .transpose()
    }
}
