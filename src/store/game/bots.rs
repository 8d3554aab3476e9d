//! Practice bots' seats (docs/BOTS.md): which seats of a game bots play, and the bots' work
//! list (`bot_games`), claimed with `FOR UPDATE SKIP LOCKED` and a lease so any number of
//! processes share it and each game is played by one at a time.

use crate::engine::{BotLevel, DynGame, Seat, Seed};
use crate::games::find_bot;
use crate::store::game::append::{Mover, Play};
use crate::store::{NewSeat, Store, StoreError, SubmitError};
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use sqlx::{PgConnection, Row};

/// A seat a bot plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotSeat {
    /// The seat.
    pub seat: Seat,
    /// How it plays.
    pub level: BotLevel,
    /// The bot's own seed, drawn when the game was made: each decision's seed comes from it
    /// and the command's number ([`crate::engine::search::decision_seed`]).
    pub seed: Seed,
}

/// Refuses seats a game cannot be made with: a bot in a game that has none yet, a bot with
/// an address, or a table of bots only (a practice game is someone's practice).
pub(in crate::store) fn check_seats(
    game: &dyn DynGame,
    seats: &[NewSeat],
) -> Result<(), StoreError> {
    if seats.iter().all(|s| s.bot.is_none()) {
        return Ok(());
    }
    if find_bot(game.id()).is_none() {
        return Err(StoreError::Invalid(format!(
            "{} has no practice bot yet: every seat needs a player",
            game.name()
        )));
    }
    if seats.iter().all(|s| s.bot.is_some()) {
        return Err(StoreError::Invalid(
            "at least one seat must be a player's, not a bot's".into(),
        ));
    }
    if seats.iter().any(|s| s.bot.is_some() && s.email.is_some()) {
        return Err(StoreError::Invalid(
            "a bot's seat has no address: nobody is mailed for it".into(),
        ));
    }
    Ok(())
}

/// Puts a new game with a bot seat on the bots' work list, in its creating transaction.
pub(in crate::store) async fn enlist(
    tx: &mut PgConnection,
    id: i64,
    seats: &[NewSeat],
) -> Result<(), sqlx::Error> {
    if seats.iter().any(|s| s.bot.is_some()) {
        sqlx::query("INSERT INTO bot_games (game_id) VALUES ($1)")
            .bind(id)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

impl Store {
    /// The seats of game `id` that bots play, in seat order.
    pub async fn bot_seats(&self, id: i64) -> Result<Vec<BotSeat>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT seat, bot, bot_seed FROM seats WHERE game_id = $1 AND bot IS NOT NULL \
             ORDER BY seat",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let level: String = r.try_get("bot")?;
                let seed: Vec<u8> = r.try_get("bot_seed")?;
                let corrupt = |what: &str| sqlx::Error::Decode(format!("seat's {what}").into());
                Ok(BotSeat {
                    seat: r.try_get::<i32, _>("seat")? as Seat,
                    level: BotLevel::parse(&level).ok_or_else(|| corrupt("bot level"))?,
                    seed: Seed(seed.try_into().map_err(|_| corrupt("bot seed"))?),
                })
            })
            .collect()
    }

    /// Claims up to `limit` games whose head moved since their bots last looked, for `lease`:
    /// another process skips them until the lease runs out or the claim is let go.
    pub async fn claim_bot_games(
        &self,
        limit: i64,
        lease: Duration,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let now = self.now();
        sqlx::query_scalar(
            "UPDATE bot_games b SET lease_until = $2 FROM ( \
               SELECT b.game_id FROM bot_games b JOIN games g ON g.id = b.game_id \
               WHERE g.head_seq <> b.seen_seq \
                 AND (b.lease_until IS NULL OR b.lease_until <= $1) \
                 AND (b.retry_at IS NULL OR b.retry_at <= $1) \
               ORDER BY g.updated_at LIMIT $3 FOR UPDATE OF b SKIP LOCKED) d \
             WHERE b.game_id = d.game_id RETURNING b.game_id",
        )
        .bind(now)
        .bind(now + lease)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
    }

    /// Keeps a claimed game for another `lease` (a bot about to think again).
    pub async fn renew_bot_lease(&self, id: i64, lease: Duration) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE bot_games SET lease_until = $2 WHERE game_id = $1")
            .bind(id)
            .bind(self.now() + lease)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Lets go of a claimed game whose bots have nothing to do at head `seen`: it is claimed
    /// again when the head moves. A game that is over leaves the list.
    pub async fn bots_done(&self, id: i64, seen: i64, over: bool) -> Result<(), sqlx::Error> {
        let query = if over {
            "DELETE FROM bot_games WHERE game_id = $1"
        } else {
            "UPDATE bot_games SET seen_seq = $2, lease_until = NULL, retry_at = NULL, \
             failures = 0 WHERE game_id = $1"
        };
        sqlx::query(query)
            .bind(id)
            .bind(seen)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Lets go of a claimed game whose bot failed (a defect, logged by the caller): it is
    /// tried again after a wait that doubles with each failure in a row, up to a day.
    pub async fn bots_failed(&self, id: i64) -> Result<DateTime<Utc>, sqlx::Error> {
        sqlx::query_scalar(
            "UPDATE bot_games SET failures = failures + 1, lease_until = NULL, \
             retry_at = $2 + make_interval(secs => least(86400, 10 * power(2, least(failures, 14)))) \
             WHERE game_id = $1 RETURNING retry_at",
        )
        .bind(id)
        .bind(self.now())
        .fetch_one(&self.pool)
        .await
    }

    /// A bot plays `command` for its `seat`, at the head it decided from: an entry marked
    /// `"by": "bot"`. Refused unless the seat is a bot's.
    pub async fn play_for_bot(
        &self,
        id: i64,
        seat: Seat,
        command: &Value,
        expected_head: i64,
    ) -> Result<i64, SubmitError> {
        if !self.bot_seats(id).await?.iter().any(|b| b.seat == seat) {
            return Err(SubmitError::Refused(format!(
                "seat {} of game {id} is not a bot's",
                seat + 1
            )));
        }
        self.append(
            id,
            Mover::Seat(seat),
            Play::BotMove(command),
            Some(expected_head),
            None,
        )
        .await
    }
}
