//! Unlisted games: shown by no list, answering no route keyed by their (sequential) id; their
//! public pages are reached through a spectator link only. The link is kept in clear, since it
//! is shown again on the desk and to every seat, and it opens only the public view; it is
//! looked up by its hash, like every other token. A private club's game has no spectator link:
//! its id-keyed routes answer to the club's signed-in members only.

use crate::store::Store;
use crate::store::tokens::{looks_like_token, new_token, token_hash};
use sqlx::PgConnection;

/// Makes a game unlisted inside its creation; its spectator link's token.
pub(in crate::store) async fn make_unlisted(
    tx: &mut PgConnection,
    id: i64,
) -> Result<String, sqlx::Error> {
    let token = new_token();
    sqlx::query("UPDATE games SET spectator_token = $2, spectator_hash = $3 WHERE id = $1")
        .bind(id)
        .bind(&token)
        .bind(token_hash(&token))
        .execute(&mut *tx)
        .await?;
    Ok(token)
}

/// Who may reach a game by its (sequential) id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Anyone: a listed game.
    Open,
    /// Nobody: an unlisted game, reached through its spectator link only.
    Unlisted,
    /// The signed-in members of this private club only (and a seat by its own key).
    Members(i64),
}

/// The SQL expression for where the game `g` is played when it is a league's: "Tuesday Cards ·
/// Autumn Combat" (its club, then its league), NULL for a game of no league. The one
/// definition of a game's home, for the mail ([`crate::notices::outbox::home`]) and the pages.
macro_rules! league_home_of_g {
    () => {
        "(SELECT c.name || ' · ' || l.name FROM leagues l JOIN clubs c ON c.id = l.club_id \
         WHERE l.id = g.league_id)"
    };
}
pub(crate) use league_home_of_g;

/// What a seat's page shows about its game besides the game itself, read at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surroundings {
    /// The game's clock is paused.
    pub paused: bool,
    /// The spectator link's token of an unlisted game.
    pub spectator_token: Option<String>,
    /// Where a league game is played: "Tuesday Cards · Autumn Combat".
    pub home: Option<String>,
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

    /// Whether game `id` is paused, its spectator link and its club and league, in one query
    /// (the seat's page asked three).
    pub async fn surroundings(&self, id: i64) -> Result<Surroundings, sqlx::Error> {
        let (paused, spectator_token, home): (bool, Option<String>, Option<String>) =
            sqlx::query_as(concat!(
                "SELECT g.paused_at IS NOT NULL, g.spectator_token, ",
                league_home_of_g!(),
                " FROM games g WHERE g.id = $1"
            ))
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        Ok(Surroundings {
            paused,
            spectator_token,
            home,
        })
    }

    /// True if the game exists, is listed and belongs to no private club: only then do routes
    /// keyed by its id answer to anyone.
    pub async fn is_listed(&self, id: i64) -> Result<bool, sqlx::Error> {
        Ok(self.game_gate(id).await? == Some(Gate::Open))
    }

    /// Who may reach the game by its id: `None` for no such game.
    pub async fn game_gate(&self, id: i64) -> Result<Option<Gate>, sqlx::Error> {
        let row: Option<(bool, Option<i64>)> = sqlx::query_as(
            "SELECT g.spectator_hash IS NOT NULL, c.id FROM games g \
             LEFT JOIN clubs c ON c.id = g.club_id AND c.private WHERE g.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(
            row.map(|(unlisted, private_club)| match (unlisted, private_club) {
                (true, _) => Gate::Unlisted,
                (false, Some(club)) => Gate::Members(club),
                (false, None) => Gate::Open,
            }),
        )
    }

    /// True if the account is a member of the club.
    pub async fn is_member(&self, club_id: i64, account_id: i64) -> Result<bool, sqlx::Error> {
        Ok(sqlx::query_scalar::<_, i32>(
            "SELECT 1 FROM club_members WHERE club_id = $1 AND account_id = $2",
        )
        .bind(club_id)
        .bind(account_id)
        .fetch_optional(&self.pool)
        .await?
        .is_some())
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
