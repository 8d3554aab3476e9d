//! The games an account organises: made by it while signed in, reached from its own page and
//! run at their desk with its session (the organiser link works as before).

use crate::store::Store;
use chrono::{DateTime, Utc};
use sqlx::Row;

/// The most organised games the account's page lists (running first, then the latest ended).
pub const MAX_ORGANISED_LISTED: i64 = 50;

/// A game the account organises, as its page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrganisedGame {
    /// The game.
    pub game_id: i64,
    /// Its kind (`"whitehouse"`).
    pub kind: String,
    /// Every seat's name, in seat order.
    pub names: Vec<String>,
    /// `running`, `finished` or `cancelled`.
    pub status: String,
    /// Moves so far.
    pub moves: i64,
    /// When it last changed.
    pub updated_at: DateTime<Utc>,
}

impl Store {
    /// Marks `game` as organised by `account` (its creator, signed in when they made it).
    pub async fn set_organiser_account(&self, game: i64, account: i64) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE games SET organiser_account = $2 WHERE id = $1")
            .bind(game)
            .bind(account)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether `account` organises `game`.
    pub async fn organises(&self, account: i64, game: i64) -> Result<bool, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM games WHERE id = $1 AND organiser_account = $2 \
             AND has_desk)",
        )
        .bind(game)
        .bind(account)
        .fetch_one(&self.pool)
        .await
    }

    /// The games `account` organises: running ones first, then the others, latest first.
    pub async fn organised_games(&self, account: i64) -> Result<Vec<OrganisedGame>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT g.id, g.kind, g.status, g.head_seq, g.updated_at, \
             ARRAY(SELECT s.name FROM seats s WHERE s.game_id = g.id ORDER BY s.seat) AS names \
             FROM games g WHERE g.organiser_account = $1 AND g.has_desk \
             ORDER BY g.status = 'running' DESC, g.updated_at DESC, g.id DESC LIMIT $2",
        )
        .bind(account)
        .bind(MAX_ORGANISED_LISTED)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(OrganisedGame {
                    game_id: r.try_get("id")?,
                    kind: r.try_get("kind")?,
                    names: r.try_get("names")?,
                    status: r.try_get("status")?,
                    moves: r.try_get("head_seq")?,
                    updated_at: r.try_get("updated_at")?,
                })
            })
            .collect()
    }
}
