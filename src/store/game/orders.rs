//! What a seat settles ahead: "play my forced moves" (its own choice, or its account's
//! default) and its standing orders. Each change plays at once whatever it now settles.

use crate::engine::{Seat, StandingOrder};
use crate::store::{Store, SubmitError};
use sqlx::Row;

/// Why a standing order was not given.
#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    /// The game offers no such order.
    #[error("this game has no standing order {0:?}")]
    Unknown(String),
    /// Storing it or playing what it settles failed.
    #[error(transparent)]
    Submit(#[from] SubmitError),
}

impl From<sqlx::Error> for OrderError {
    fn from(e: sqlx::Error) -> OrderError {
        OrderError::Submit(SubmitError::Db(e))
    }
}

impl Store {
    /// Whether the seat's only possible moves are played for it: its own setting (`None`:
    /// none given), and what applies (its setting, else its account's default, else off).
    pub async fn play_forced(
        &self,
        id: i64,
        seat: Seat,
    ) -> Result<(Option<bool>, bool), sqlx::Error> {
        let row = sqlx::query(
            "SELECT s.play_forced AS own, coalesce(s.play_forced, a.play_forced, false) AS applies \
             FROM seats s LEFT JOIN accounts a ON a.id = s.account_id \
             WHERE s.game_id = $1 AND s.seat = $2",
        )
        .bind(id)
        .bind(seat as i32)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => Ok((row.try_get("own")?, row.try_get("applies")?)),
            None => Ok((None, false)),
        }
    }

    /// Sets the seat's own "play my forced moves" (`None`: follow the account's default), then
    /// plays what it settles now; returns the head.
    pub async fn set_play_forced(
        &self,
        id: i64,
        seat: Seat,
        on: Option<bool>,
    ) -> Result<i64, SubmitError> {
        sqlx::query("UPDATE seats SET play_forced = $3 WHERE game_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat as i32)
            .bind(on)
            .execute(&self.pool)
            .await?;
        self.play_settled(id).await
    }

    /// The account-wide default of "play my forced moves".
    pub async fn account_play_forced(&self, account: i64) -> Result<bool, sqlx::Error> {
        sqlx::query_scalar("SELECT play_forced FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_optional(&self.pool)
            .await
            .map(|v| v.unwrap_or(false))
    }

    /// Sets the account-wide default, then plays what it settles in the account's running
    /// games whose seats follow it.
    pub async fn set_account_play_forced(&self, account: i64, on: bool) -> Result<(), SubmitError> {
        let games: Vec<i64> = sqlx::query_scalar(
            "WITH changed AS (UPDATE accounts SET play_forced = $2 WHERE id = $1 RETURNING id) \
             SELECT DISTINCT g.id FROM seats s JOIN games g ON g.id = s.game_id \
             JOIN changed c ON c.id = s.account_id \
             WHERE g.status = 'running' AND s.play_forced IS NULL",
        )
        .bind(account)
        .bind(on)
        .fetch_all(&self.pool)
        .await?;
        if on {
            for game in games {
                self.play_settled(game).await?;
            }
        }
        Ok(())
    }

    /// The seat's standing orders, as the game defines them, oldest first.
    pub async fn standing_orders(&self, id: i64, seat: Seat) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT order_id FROM standing_orders WHERE game_id = $1 AND seat = $2 \
             ORDER BY made_at, order_id",
        )
        .bind(id)
        .bind(seat as i32)
        .fetch_all(&self.pool)
        .await
    }

    /// Gives the seat the standing order `order` (one of `offered`, the game's), then plays
    /// what it settles now; returns the head. Giving it twice is giving it once.
    pub async fn give_order(
        &self,
        id: i64,
        seat: Seat,
        offered: &[StandingOrder],
        order: &str,
    ) -> Result<i64, OrderError> {
        if !offered.iter().any(|o| o.id == order) {
            return Err(OrderError::Unknown(order.chars().take(40).collect()));
        }
        sqlx::query(
            "INSERT INTO standing_orders (game_id, seat, order_id, made_at) \
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(seat as i32)
        .bind(order)
        .bind(self.now())
        .execute(&self.pool)
        .await?;
        Ok(self.play_settled(id).await?)
    }

    /// Cancels the seat's standing order `order`; true if it had it.
    pub async fn cancel_order(
        &self,
        id: i64,
        seat: Seat,
        order: &str,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "DELETE FROM standing_orders WHERE game_id = $1 AND seat = $2 AND order_id = $3",
        )
        .bind(id)
        .bind(seat as i32)
        .bind(order)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}
