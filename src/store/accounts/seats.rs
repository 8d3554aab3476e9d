//! What an account does with its seats: its settings (the mail preference applies to every
//! seat it owns), claiming a seat by its link, and opening a seat from "my games" by a link
//! made for the owner alone.

use crate::domain::{PlayerName, TimeZoneName};
use crate::engine::Seat;
use crate::store::seats::keys::{Ending, end_links};
use crate::store::tokens::device_hash;
use crate::store::{Store, new_token, token_hash};

/// The most links a seat's owner holds at once, one per device that opened it from "my games"
/// (the `OFFSET 4` of `Ending::OldestDevices` keeps one fewer, before the new one is made).
pub const MAX_DEVICE_LINKS: i32 = 5;

/// What claiming a seat did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// The seat is now the account's.
    Claimed,
    /// It was the account's already.
    AlreadyYours,
    /// Another account owns it: nothing changed.
    OwnedByAnother,
}

impl Store {
    /// Saves an account's settings; the mail preference (`every`, `digest`, `off`, checked by
    /// the database) is set on every seat the account owns, where the mail code reads it.
    pub async fn save_account_settings(
        &self,
        account_id: i64,
        name: &PlayerName,
        zone: TimeZoneName,
        mail_pref: &str,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE accounts SET name = $2, time_zone = $3, mail_pref = $4 WHERE id = $1")
            .bind(account_id)
            .bind(name.as_str())
            .bind(zone.as_str())
            .bind(mail_pref)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE seats SET mail_pref = $2 WHERE account_id = $1")
            .bind(account_id)
            .bind(mail_pref)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// The account that owns a seat, if any.
    pub async fn seat_owner(&self, game_id: i64, seat: Seat) -> Result<Option<i64>, sqlx::Error> {
        Ok(sqlx::query_scalar::<_, Option<i64>>(
            "SELECT account_id FROM seats WHERE game_id = $1 AND seat = $2",
        )
        .bind(game_id)
        .bind(seat as i32)
        .fetch_optional(&self.pool)
        .await?
        .flatten())
    }

    /// Makes a seat the account's, unless another account owns it. The seat keeps its address
    /// (the organiser's choice); it takes the account's mail preference unless its mail is off.
    pub async fn claim_seat(
        &self,
        account_id: i64,
        game_id: i64,
        seat: Seat,
    ) -> Result<Claim, sqlx::Error> {
        let claimed = sqlx::query(
            "UPDATE seats s SET account_id = a.id, \
             mail_pref = CASE WHEN s.mail_pref = 'off' THEN 'off' ELSE a.mail_pref END \
             FROM accounts a WHERE a.id = $1 AND s.game_id = $2 AND s.seat = $3 \
             AND s.account_id IS NULL",
        )
        .bind(account_id)
        .bind(game_id)
        .bind(seat as i32)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if claimed == 1 {
            return Ok(Claim::Claimed);
        }
        Ok(match self.seat_owner(game_id, seat).await? {
            Some(owner) if owner == account_id => Claim::AlreadyYours,
            _ => Claim::OwnedByAnother,
        })
    }

    /// A fresh link to a seat the account owns, for one device (`device` is the signed-in
    /// session's token), or `None` if the account does not own the seat. It replaces the link
    /// made for that device before; a seat holds at most [`MAX_DEVICE_LINKS`] such links, and
    /// the oldest is ended when another device opens it. Counted under the seat's row lock, so
    /// processes opening the seat at once agree.
    pub async fn owner_seat_link(
        &self,
        account_id: i64,
        game_id: i64,
        seat: Seat,
        device: &str,
    ) -> Result<Option<String>, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        let owned: Option<i64> = sqlx::query_scalar(
            "SELECT account_id FROM seats WHERE game_id = $1 AND seat = $2 AND account_id = $3 \
             FOR UPDATE",
        )
        .bind(game_id)
        .bind(seat as i32)
        .bind(account_id)
        .fetch_optional(&mut *tx)
        .await?;
        if owned.is_none() {
            return Ok(None);
        }
        let now = self.now();
        let device = device_hash(device);
        end_links(&mut tx, Ending::Device(&device), game_id, seat, now).await?;
        end_links(&mut tx, Ending::OldestDevices, game_id, seat, now).await?;
        let token = new_token();
        sqlx::query(
            "INSERT INTO seat_links (token_hash, game_id, seat, created_at, account_id, device_hash) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(token_hash(&token))
        .bind(game_id)
        .bind(seat as i32)
        .bind(now)
        .bind(account_id)
        .bind(device)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some(token))
    }

    /// The seat a link that no longer opens anything belonged to: one that was ended (replaced,
    /// relinked, released) or a mailed link past its time. Only for sending the seat's signed-in
    /// owner on to the seat: never a way in by itself.
    pub async fn seat_of_dead_link(&self, token: &str) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        if !crate::store::looks_like_token(token) {
            return Ok(None);
        }
        let row: Option<(i64, i32)> = sqlx::query_as(
            "SELECT game_id, seat FROM ended_links WHERE token_hash = $1 \
             UNION ALL SELECT game_id, seat FROM seat_links WHERE token_hash = $1 LIMIT 1",
        )
        .bind(token_hash(token))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(game, seat)| (game, seat as Seat)))
    }
}
