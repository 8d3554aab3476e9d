//! A seat's and an organiser's links: finding what a token opens, a seat's new link, and the
//! server's own secrets.

use crate::engine::Seat;
use crate::store::{
    MAIL_LINK_DAYS, MAIL_LINK_GRACE_DAYS, Rekeyed, Store, StoreError, looks_like_token, token_hash,
};
use sqlx::Row;

/// The game and seat a token opens: `$1` the token's hash, `$2` whether a minted link must
/// be fresh, `$3` the time now, `$4` [`MAIL_LINK_DAYS`], `$5` [`MAIL_LINK_GRACE_DAYS`].
/// Public for the HTTP load bench, which runs the same SQL in pgbench.
pub const SEAT_BY_TOKEN: &str = "SELECT game_id, seat FROM seats WHERE token_hash = $1 \
     UNION ALL SELECT l.game_id, l.seat FROM seat_links l JOIN games g ON g.id = l.game_id \
     WHERE l.token_hash = $1 AND (NOT $2 OR (l.created_at > $3 - make_interval(days => $4) \
     AND (g.status = 'running' OR g.updated_at > $3 - make_interval(days => $5)))) LIMIT 1";

impl Store {
    /// The game and seat a seat token opens: the seat's own token, or a link minted for one
    /// of its notices while that is fresh ([`MAIL_LINK_DAYS`] days, and no more than
    /// [`MAIL_LINK_GRACE_DAYS`] days after the game ended). A relink ends both kinds.
    pub async fn seat_by_token(&self, token: &str) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        self.seat_by(token, true).await
    }

    /// The game and seat a token names for the seat's mail settings only: a minted link from
    /// an old message still reaches them (unsubscribing must always work).
    pub async fn seat_for_mail_settings(
        &self,
        token: &str,
    ) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        self.seat_by(token, false).await
    }

    async fn seat_by(&self, token: &str, fresh: bool) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let now = self.now();
        let row = sqlx::query(SEAT_BY_TOKEN)
            .bind(token_hash(token))
            .bind(fresh)
            .bind(now)
            .bind(MAIL_LINK_DAYS)
            .bind(MAIL_LINK_GRACE_DAYS)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| {
            Ok((
                r.try_get::<i64, _>("game_id")?,
                r.try_get::<i32, _>("seat")? as Seat,
            ))
        })
        .transpose()
    }

    /// The game an organiser token manages.
    pub async fn organiser_by_token(&self, token: &str) -> Result<Option<i64>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query("SELECT id FROM games WHERE organiser_token_hash = $1 AND has_desk")
            .bind(token_hash(token))
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| r.try_get("id")).transpose()
    }

    /// Ends every credential of a seat and gives it new keys ([`Store::rekey_seat_in`]) in a
    /// transaction of its own, as the organiser does. `None` if no such seat.
    pub async fn relink_seat(&self, id: i64, seat: Seat) -> Result<Option<Rekeyed>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rekeyed = self
            .rekey_seat_in(&mut tx, id, seat, None, &crate::store::Changer::Organiser)
            .await?;
        tx.commit().await?;
        Ok(rekeyed)
    }

    /// A server-wide secret by name, created at random on first use (shared by every process).
    pub async fn secret(&self, key: &str) -> Result<Vec<u8>, sqlx::Error> {
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh).expect("the OS random source works");
        sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        )
        .bind(key)
        .bind(fresh.to_vec())
        .execute(&self.pool)
        .await?;
        sqlx::query("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_one(&self.pool)
            .await?
            .try_get("value")
    }
}
