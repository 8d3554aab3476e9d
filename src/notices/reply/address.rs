//! Reply addresses: `play+<secret>@<reply domain>`, the secret 160 random bits like a seat
//! link, stored only hashed, bound to one seat and the position its mail was about (with the
//! choices the seat had there). An address ends [`DAYS_AFTER_END`] days after its game ends
//! (until then a reply is answered "the game is over") and is pruned then.

use crate::engine::{Choice, Seat};
use crate::store::{looks_like_token, new_token, token_hash};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool, Row};

/// The local part's prefix before the secret.
const PREFIX: &str = "play+";

/// Days after its game's end that a reply address still leads to its seat.
pub const DAYS_AFTER_END: i32 = 7;

/// What a reply address is bound to.
#[derive(Debug, Clone)]
pub struct Bound {
    /// The game.
    pub game_id: i64,
    /// The seat.
    pub seat: Seat,
    /// The position (log head) the mail was about.
    pub seq: i64,
    /// The seat's choices at that position.
    pub choices: Vec<Choice>,
}

/// A fresh secret bound to `seat` at position `seq` with its `choices`; returns the secret.
pub async fn mint(
    tx: &mut PgConnection,
    game_id: i64,
    seat: Seat,
    seq: i64,
    choices: &[Choice],
) -> Result<String, sqlx::Error> {
    let secret = new_token();
    sqlx::query(
        "INSERT INTO reply_addresses (token_hash, game_id, seat, seq, choices) \
         VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(token_hash(&secret))
    .bind(game_id)
    .bind(seat as i32)
    .bind(seq)
    .bind(serde_json::to_value(choices).expect("choices serialize"))
    .execute(tx)
    .await?;
    Ok(secret)
}

/// Ends every reply address of a seat (its keys were renewed: DESIGN.md "Identity").
pub async fn end_for_seat(
    tx: &mut PgConnection,
    game_id: i64,
    seat: Seat,
) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM reply_addresses WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .execute(tx)
        .await?;
    Ok(())
}

/// What a secret is bound to at `now`, if it is one of ours and has not ended.
pub async fn find(
    pool: &PgPool,
    secret: &str,
    now: DateTime<Utc>,
) -> Result<Option<Bound>, sqlx::Error> {
    if !looks_like_token(secret) {
        return Ok(None);
    }
    find_by_hash(pool, &token_hash(secret), now).await
}

/// What the secret with this hash is bound to at `now`, unless its address has ended.
pub async fn find_by_hash(
    pool: &PgPool,
    hash: &[u8],
    now: DateTime<Utc>,
) -> Result<Option<Bound>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT r.game_id, r.seat, r.seq, r.choices FROM reply_addresses r \
         JOIN games g ON g.id = r.game_id WHERE r.token_hash = $1 \
         AND NOT (g.status = 'over' AND g.updated_at <= $2 - make_interval(days => $3))",
    )
    .bind(hash)
    .bind(now)
    .bind(DAYS_AFTER_END)
    .fetch_optional(pool)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let choices: serde_json::Value = row.try_get("choices")?;
    Ok(Some(Bound {
        game_id: row.try_get("game_id")?,
        seat: row.try_get::<i32, _>("seat")? as Seat,
        seq: row.try_get("seq")?,
        choices: serde_json::from_value(choices).unwrap_or_default(),
    }))
}

/// Deletes the reply addresses that ended by `now` (their game ended more than
/// [`DAYS_AFTER_END`] days before), a batch of at most `limit`; returns how many.
pub async fn prune(pool: &PgPool, now: DateTime<Utc>, limit: i64) -> Result<u64, sqlx::Error> {
    let deleted = sqlx::query(
        "DELETE FROM reply_addresses WHERE token_hash IN (SELECT r.token_hash \
         FROM reply_addresses r JOIN games g ON g.id = r.game_id \
         WHERE g.status = 'over' AND g.updated_at <= $1 - make_interval(days => $2) LIMIT $3)",
    )
    .bind(now)
    .bind(DAYS_AFTER_END)
    .bind(limit)
    .execute(pool)
    .await?;
    Ok(deleted.rows_affected())
}

/// The address for a secret in `domain`.
pub fn address(secret: &str, domain: &str) -> String {
    format!("{PREFIX}{secret}@{domain}")
}

/// The secret in an address such as `play+<secret>@domain` (or `<play+...>`), if it has one.
pub fn secret_in(address: &str) -> Option<String> {
    let address = address.trim().trim_start_matches('<').trim_end_matches('>');
    let (local, _) = address.rsplit_once('@')?;
    let secret = local
        .get(..PREFIX.len())?
        .eq_ignore_ascii_case(PREFIX)
        .then(|| &local[PREFIX.len()..])?;
    looks_like_token(secret).then(|| secret.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_is_read_back_from_the_address() {
        let secret = "0123456789abcdef0123456789abcdef01234567";
        let addr = address(secret, "pp.example");
        assert_eq!(addr, format!("play+{secret}@pp.example"));
        assert_eq!(secret_in(&addr).as_deref(), Some(secret));
        assert_eq!(
            secret_in(&format!("<{}>", addr.to_uppercase())).as_deref(),
            Some(secret)
        );
        assert_eq!(secret_in("play+1234@pp.example"), None);
        assert_eq!(secret_in("ann@pp.example"), None);
        assert_eq!(secret_in(secret), None);
    }
}
