//! Closing an account (docs/ACCOUNTS.md, "Closing your account"): in one transaction its
//! sessions, API tokens, webhooks, device links and claims end; its address is forgotten
//! everywhere it was kept; a running game's seat is left without address or holder (the
//! organiser can give it a new address, its clock runs as the rules say) and its other players
//! are told; a finished game keeps the player's name or shows "a former player".

use crate::engine::Seat;
use crate::store::seats::changes::Changer;
use crate::store::{Store, StoreError};
use sqlx::Row;

/// The name a closed account's seats in finished games show when its player chose so.
pub const FORMER_PLAYER: &str = "a former player";

/// What the message a running game's other players read says.
const LEFT_MESSAGE: &str = "I have closed my postplay account and left this game. The organiser \
     can give my seat a new address; until then its clock runs as the game's rules say.";

/// What closing did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Closed {
    /// The running games the account left (their other players were told).
    pub left: Vec<i64>,
    /// How many seats of finished games it held.
    pub finished: usize,
}

/// The address a closed account keeps instead of its own: reaches nobody, names nobody.
pub fn closed_address(id: i64) -> String {
    format!("closed-{id}@closed.invalid")
}

impl Store {
    /// Closes the account `id`; `keep_name`: its seats in finished games keep the player's
    /// name, else they show [`FORMER_PLAYER`]. `None` when there is no such open account.
    pub async fn close_account(
        &self,
        id: i64,
        keep_name: bool,
    ) -> Result<Option<Closed>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let Some(email): Option<String> = sqlx::query_scalar(
            "SELECT email FROM accounts WHERE id = $1 AND closed_at IS NULL FOR UPDATE",
        )
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        let now = self.now();
        let seats = sqlx::query(
            "SELECT s.game_id, s.seat, g.status = 'running' AS running, \
             s.email IS NULL OR lower(s.email) = lower($2) AS mine FROM seats s \
             JOIN games g ON g.id = s.game_id \
             WHERE (s.account_id = $1 OR lower(s.email) = lower($2)) AND s.bot IS NULL \
             ORDER BY s.game_id, s.seat FOR UPDATE OF s",
        )
        .bind(id)
        .bind(&email)
        .fetch_all(&mut *tx)
        .await?;
        let mut closed = Closed::default();
        for row in seats {
            let game: i64 = row.try_get("game_id")?;
            let seat = row.try_get::<i32, _>("seat")? as Seat;
            let running: bool = row.try_get("running")?;
            let mine: bool = row.try_get("mine")?;
            // Neither the address nor the account reaches the seat any more; a seat the
            // account only claimed keeps the address it was given.
            sqlx::query(
                "UPDATE seats SET account_id = NULL, \
                 email = CASE WHEN $3 THEN NULL ELSE email END WHERE game_id = $1 AND seat = $2",
            )
            .bind(game)
            .bind(seat as i32)
            .bind(mine)
            .execute(&mut *tx)
            .await?;
            if running && !mine {
                // Only the claim ends (the device links with the account's, below).
                continue;
            }
            if running {
                // Every key of the seat ends; it waits for the organiser's new address.
                self.rekey_seat_in(&mut tx, game, seat, None, &Changer::Player)
                    .await?;
                self.post_leaving_in(&mut tx, game, seat, LEFT_MESSAGE)
                    .await?;
                if closed.left.last() != Some(&game) {
                    closed.left.push(game);
                }
            } else {
                closed.finished += 1;
                if !keep_name {
                    sqlx::query("UPDATE seats SET name = $3 WHERE game_id = $1 AND seat = $2")
                        .bind(game)
                        .bind(seat as i32)
                        .bind(FORMER_PLAYER)
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(
                        "UPDATE game_messages SET author_name = $3 \
                         WHERE game_id = $1 AND (seat = $2 OR former_seat = $2)",
                    )
                    .bind(game)
                    .bind(seat as i32)
                    .bind(FORMER_PLAYER)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        if !keep_name {
            sqlx::query(
                "UPDATE game_messages SET author_name = $2 WHERE account_id = $1 AND seat IS NULL",
            )
            .bind(id)
            .bind(FORMER_PLAYER)
            .execute(&mut *tx)
            .await?;
        }
        // What signed in as the account, and what it set up.
        for statement in [
            "DELETE FROM sessions WHERE account_id = $1",
            "DELETE FROM api_tokens WHERE account_id = $1",
            "DELETE FROM webhooks WHERE account_id = $1",
            "DELETE FROM seat_links WHERE account_id = $1",
            "DELETE FROM club_members WHERE account_id = $1",
            "DELETE FROM table_seats t USING open_tables o \
             WHERE t.table_id = o.id AND o.status = 'open' AND t.account_id = $1",
        ] {
            sqlx::query(statement).bind(id).execute(&mut *tx).await?;
        }
        // Everywhere else the address was kept.
        for statement in [
            "DELETE FROM sign_in_links WHERE lower(email) = lower($1)",
            "DELETE FROM sign_in_devices WHERE lower(email) = lower($1)",
            "DELETE FROM vacations WHERE lower(email) = lower($1)",
            "DELETE FROM club_invites WHERE lower(email) = lower($1)",
            "DELETE FROM table_seats t USING open_tables o \
             WHERE t.table_id = o.id AND o.status = 'open' AND lower(t.invited_email) = lower($1)",
            "UPDATE table_seats SET invited_email = NULL \
             WHERE lower(invited_email) = lower($1) AND account_id IS NOT NULL",
            "UPDATE games SET organiser_email = NULL WHERE lower(organiser_email) = lower($1)",
            "UPDATE seat_changes SET previous_email = NULL, token_hash = NULL, token_until = NULL \
             WHERE lower(previous_email) = lower($1)",
            "DELETE FROM outbox WHERE lower(recipient) = lower($1)",
            "DELETE FROM inbound_mail WHERE position(lower($1) IN lower(encode(raw, 'escape'))) > 0",
        ] {
            sqlx::query(statement)
                .bind(&email)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(
            "UPDATE accounts SET email = $2, closed_at = $3, \
             name = CASE WHEN $4 THEN name ELSE $5 END WHERE id = $1",
        )
        .bind(id)
        .bind(closed_address(id))
        .bind(now)
        .bind(keep_name)
        .bind(FORMER_PLAYER)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(account = id, left = closed.left.len(), "account closed");
        Ok(Some(closed))
    }
}
