//! The sign-in mail: a link made by the store ([`crate::store::issue_link`], which counts the
//! address's recent links) and the outbox row that carries it, in one transaction: either both
//! are written or neither.

use crate::domain::LocalPath;
use crate::notices::EmailAddress;
use crate::notices::notice::{Notice, SignInNotice};
use crate::notices::outbox::{OUTBOX_CHANNEL, event_tag};
use crate::store::{SIGN_IN_MINUTES, TooManyLinks, issue_link};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Queues a sign-in link for `email` (coming back to `next`), unless the address had too many
/// links lately. `device` is the asking browser's device token, if it carries one (a browser
/// that signed in as the address before has its own allowance).
pub async fn queue_sign_in(
    pool: &PgPool,
    email: &EmailAddress,
    next: &LocalPath,
    now: DateTime<Utc>,
    device: Option<&str>,
) -> Result<Result<(), TooManyLinks>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let token = match issue_link(&mut tx, email, next, now, device).await? {
        Ok(token) => token,
        Err(limited) => return Ok(Err(limited)),
    };
    let notice = Notice::SignIn(SignInNotice {
        address: email.as_str().to_string(),
        minutes: SIGN_IN_MINUTES,
        token: token.clone(),
    });
    sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload) \
         VALUES (NULL, NULL, $1, $2, $3, $3, $4)",
    )
    .bind(format!("signin:{}", event_tag(&token)))
    .bind(notice.kind())
    .bind(email.as_str())
    .bind(serde_json::to_value(&notice).expect("notices serialize"))
    .execute(&mut *tx)
    .await?;
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(OUTBOX_CHANNEL)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Ok(()))
}
