//! Unlisted games: shown by no list, answering no route keyed by their (sequential) id; their
//! public pages are reached through a spectator link only. The link is kept in clear, since it
//! is shown again on the desk and to every seat, and it opens only the public view; it is
//! looked up by its hash, like every other token.

use super::Store;
use super::tokens::{looks_like_token, new_token, token_hash};
use sqlx::PgConnection;

/// Makes a game unlisted inside its creation; its spectator link's token.
pub(super) async fn make_unlisted(tx: &mut PgConnection, id: i64) -> Result<String, sqlx::Error> {
    let token = new_token();
    sqlx::query("UPDATE games SET spectator_token = $2, spectator_hash = $3 WHERE id = $1")
        .bind(id)
        .bind(&token)
        .bind(token_hash(&token))
        .execute(&mut *tx)
        .await?;
    Ok(token)
}

impl Store {
    /// A game's spectator link token: `None` for a listed game (or none at all).
    pub async fn spectator_token(&self, id: i64) -> Result<Option<String>, sqlx::Error> {
        Ok(sqlx::query_scalar::<_, Option<String>>(
            "SELECT spectator_token FROM games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .flatten())
    }

    /// True if the game exists and is listed: only then do routes keyed by its id answer.
    pub async fn is_listed(&self, id: i64) -> Result<bool, sqlx::Error> {
        Ok(
            sqlx::query_scalar::<_, bool>("SELECT spectator_hash IS NULL FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .unwrap_or(false),
        )
    }

    /// The unlisted game a spectator link opens.
    pub async fn game_by_spectator(&self, token: &str) -> Result<Option<i64>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        sqlx::query_scalar("SELECT id FROM games WHERE spectator_hash = $1")
            .bind(token_hash(token))
            .fetch_optional(&self.pool)
            .await
    }
}
