//! Sign-in links (DESIGN.md "Identity"): a random token mailed to an address, single use, valid
//! [`SIGN_IN_MINUTES`], bound to that address; the database keeps its hash. The rows are also
//! the per-address rate limit's count, so every web process agrees on it: an anonymous
//! allowance per address, and one per browser that signed in as the address before.

use crate::domain::{EmailAddress, LocalPath, PlayerName};
use crate::store::{Account, Store, new_token, token_hash};
use chrono::{DateTime, Duration, Utc};
use sqlx::{PgConnection, Row};

/// How long a sign-in link is valid.
pub const SIGN_IN_MINUTES: i64 = 15;
/// This many links to one address in a quarter of an hour go out at once.
pub const LINKS_PER_QUARTER_HOUR: i64 = 3;
/// This many links to one address in a day go out at the quarter hour's pace.
pub const LINKS_PER_DAY: i64 = 10;
/// Past [`LINKS_PER_QUARTER_HOUR`], one more link goes out once the last is this old.
pub const SLOW_LINK_MINUTES: i64 = 15;
/// Past [`LINKS_PER_DAY`], one more link goes out once the last is this old.
pub const SLOWER_LINK_MINUTES: i64 = 60;
/// How long a browser that signed in keeps its own allowance of links without signing in again.
pub const DEVICE_DAYS: i64 = 365;
/// The most addresses one browser keeps its own allowance for.
pub const DEVICE_ADDRESSES: i64 = 10;

/// No link was mailed now, because the allowance the request counts against had its links
/// lately; the one asking is told when the last went and when to ask again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyLinks {
    /// When the allowance's last link was made.
    pub last_sent: DateTime<Utc>,
    /// When one more link may be sent.
    pub next_at: DateTime<Utc>,
    /// How long until then.
    pub retry_after: Duration,
    /// Whether the request counted against a signed-in-before browser's own allowance.
    pub device: bool,
}

/// Why a sign-in link does not sign anyone in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkProblem {
    /// No such link (mistyped, or older than a day and gone).
    Unknown,
    /// Already used.
    Used,
    /// Older than [`SIGN_IN_MINUTES`].
    Expired,
}

/// A sign-in link that may still be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSignIn {
    /// The address it was mailed to.
    pub email: String,
    /// Where to go once signed in.
    pub next: LocalPath,
    /// The account of the address, if there is one already.
    pub account: Option<Account>,
    /// The name a new account would get.
    pub suggested_name: String,
}

/// Makes a sign-in link for `email` inside `tx` unless its allowance had its links lately; the
/// raw token, shown once (in the mail). Links of the same address are counted under a lock on
/// the address, so two processes cannot both slip under the limit.
///
/// Each address has an anonymous allowance, which anyone may spend, and each browser that
/// signed in as the address before (its `device` token, see [`Store::remember_device`]) has
/// its own, which nobody else can: a stranger spending the anonymous one cannot keep the
/// owner's browser from getting a link. Within an allowance, past [`LINKS_PER_QUARTER_HOUR`] in
/// a quarter hour or [`LINKS_PER_DAY`] in a day, links only slow down — one more goes out once
/// the last is [`SLOW_LINK_MINUTES`] old ([`SLOWER_LINK_MINUTES`] past the daily number) — and
/// every link, whoever asked for it, goes to the address itself. Whether the address has an
/// account plays no part.
pub async fn issue_link(
    tx: &mut PgConnection,
    email: &EmailAddress,
    next: &LocalPath,
    now: DateTime<Utc>,
    device: Option<&str>,
) -> Result<Result<String, TooManyLinks>, sqlx::Error> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('sign-in:' || lower($1), 0))")
        .bind(email.as_str())
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM sign_in_links WHERE created_at < $1 - interval '1 day'")
        .bind(now)
        .execute(&mut *tx)
        .await?;
    let device = match device.filter(|d| crate::store::looks_like_token(d)) {
        None => None,
        Some(token) => {
            let hash = token_hash(token);
            let known: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM sign_in_devices \
                 WHERE device_hash = $1 AND email = lower($2))",
            )
            .bind(&hash)
            .bind(email.as_str())
            .fetch_one(&mut *tx)
            .await?;
            known.then_some(hash)
        }
    };
    let recent: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT created_at FROM sign_in_links WHERE lower(email) = lower($1) \
         AND created_at > $2 - interval '1 day' AND device_hash IS NOT DISTINCT FROM $3 \
         ORDER BY created_at",
    )
    .bind(email.as_str())
    .bind(now)
    .bind(&device)
    .fetch_all(&mut *tx)
    .await?;
    let quarter = Duration::minutes(15);
    let in_quarter = recent.iter().filter(|t| now - **t < quarter).count() as i64;
    let in_day = recent.len() as i64;
    if let Some(&last) = recent.last()
        && (in_quarter >= LINKS_PER_QUARTER_HOUR || in_day >= LINKS_PER_DAY)
    {
        let pace = Duration::minutes(if in_day >= LINKS_PER_DAY {
            SLOWER_LINK_MINUTES
        } else {
            SLOW_LINK_MINUTES
        });
        if now - last < pace {
            return Ok(Err(TooManyLinks {
                last_sent: last,
                next_at: last + pace,
                retry_after: last + pace - now,
                device: device.is_some(),
            }));
        }
    }
    let token = new_token();
    sqlx::query(
        "INSERT INTO sign_in_links (token_hash, email, next_path, created_at, expires_at, \
         device_hash) VALUES ($1, $2, $3, $4, $4 + make_interval(mins => $5), $6)",
    )
    .bind(token_hash(&token))
    .bind(email.as_str())
    .bind(next.as_str())
    .bind(now)
    .bind(SIGN_IN_MINUTES as i32)
    .bind(&device)
    .execute(&mut *tx)
    .await?;
    Ok(Ok(token))
}

/// The name a new account of `email` gets unless its owner types one: the name its newest
/// seat was given, else the address's local part.
async fn suggested_name(tx: &mut PgConnection, email: &str) -> Result<String, sqlx::Error> {
    let seat: Option<String> = sqlx::query_scalar(
        "SELECT name FROM seats WHERE lower(email) = lower($1) ORDER BY game_id DESC LIMIT 1",
    )
    .bind(email)
    .fetch_optional(&mut *tx)
    .await?;
    Ok(seat.unwrap_or_else(|| {
        let local = email.split('@').next().unwrap_or_default();
        PlayerName::parse(local).map_or_else(|_| "Player".to_string(), |n| n.to_string())
    }))
}

impl Store {
    /// Remembers that the browser carrying `device` (its device cookie's token, if it had a
    /// well-formed one) signed in as `email`, so it gets its own allowance of links for that
    /// address ([`issue_link`]); the device token the browser should keep. A browser keeps at
    /// most [`DEVICE_ADDRESSES`] addresses; rows unused for [`DEVICE_DAYS`] are deleted.
    pub async fn remember_device(
        &self,
        email: &str,
        device: Option<&str>,
    ) -> Result<String, sqlx::Error> {
        let device = match device.filter(|d| crate::store::looks_like_token(d)) {
            Some(d) => d.to_string(),
            None => new_token(),
        };
        let hash = token_hash(&device);
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "DELETE FROM sign_in_devices WHERE signed_in_at < $1 - make_interval(days => $2)",
        )
        .bind(self.now())
        .bind(DEVICE_DAYS as i32)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO sign_in_devices (device_hash, email, signed_in_at) \
             VALUES ($1, lower($2), $3) \
             ON CONFLICT (device_hash, email) DO UPDATE SET signed_in_at = $3",
        )
        .bind(&hash)
        .bind(email)
        .bind(self.now())
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "DELETE FROM sign_in_devices WHERE device_hash = $1 AND email NOT IN \
             (SELECT email FROM sign_in_devices WHERE device_hash = $1 \
              ORDER BY signed_in_at DESC LIMIT $2)",
        )
        .bind(&hash)
        .bind(DEVICE_ADDRESSES)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(device)
    }

    /// What a sign-in link would do, without using it (mail scanners fetch links: looking
    /// must not consume).
    pub async fn pending_sign_in(
        &self,
        token: &str,
    ) -> Result<Result<PendingSignIn, LinkProblem>, sqlx::Error> {
        if !crate::store::looks_like_token(token) {
            return Ok(Err(LinkProblem::Unknown));
        }
        let mut tx = self.pool.begin().await?;
        let Some(row) = sqlx::query(
            "SELECT email, next_path, expires_at, used_at FROM sign_in_links WHERE token_hash = $1",
        )
        .bind(token_hash(token))
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(Err(LinkProblem::Unknown));
        };
        if row
            .try_get::<Option<DateTime<Utc>>, _>("used_at")?
            .is_some()
        {
            return Ok(Err(LinkProblem::Used));
        }
        if row.try_get::<DateTime<Utc>, _>("expires_at")? <= self.now() {
            return Ok(Err(LinkProblem::Expired));
        }
        let email: String = row.try_get("email")?;
        let next: String = row.try_get("next_path")?;
        let account = self.account_by_email(&mut tx, &email).await?;
        let suggested_name = match &account {
            Some(a) => a.name.clone(),
            None => suggested_name(&mut tx, &email).await?,
        };
        tx.commit().await?;
        Ok(Ok(PendingSignIn {
            email,
            next: LocalPath::or_home(Some(&next)),
            account,
            suggested_name,
        }))
    }

    /// Uses a sign-in link, once: the account of its address (made now, named `name` or the
    /// suggested name, if there was none) and where to go. A used, expired or unknown link
    /// changes nothing.
    pub async fn use_sign_in_link(
        &self,
        token: &str,
        name: Option<&PlayerName>,
    ) -> Result<Result<(Account, LocalPath), LinkProblem>, sqlx::Error> {
        if !crate::store::looks_like_token(token) {
            return Ok(Err(LinkProblem::Unknown));
        }
        let mut tx = self.pool.begin().await?;
        let used = sqlx::query(
            "UPDATE sign_in_links SET used_at = $2 \
             WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 \
             RETURNING email, next_path",
        )
        .bind(token_hash(token))
        .bind(self.now())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = used else {
            drop(tx);
            return Ok(Err(self
                .pending_sign_in(token)
                .await?
                .err()
                .unwrap_or(LinkProblem::Used)));
        };
        let email: String = row.try_get("email")?;
        let next: String = row.try_get("next_path")?;
        let name = match name {
            Some(n) => n.to_string(),
            None => suggested_name(&mut tx, &email).await?,
        };
        let account = self.account_in(&mut tx, &email, &name).await?;
        tx.commit().await?;
        Ok(Ok((account, LocalPath::or_home(Some(&next)))))
    }
}
