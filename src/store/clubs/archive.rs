//! A club's archive (issue 33, item 7): its finished games, the last ended first, a page at a
//! time, filtered by game, player and league, and the choices those filters offer. The caller
//! decides who may read it (whoever may see the club's games).

use crate::store::Store;
use chrono::{DateTime, Utc};
use sqlx::{Postgres, QueryBuilder, Row};

/// Games on a page of the archive.
pub const ARCHIVE_PAGE: i64 = 50;

/// Pages past this one are empty (half a million games).
pub const MAX_ARCHIVE_PAGE: i64 = 10_000;

/// The player filter offers at most this many names.
pub const MAX_PLAYER_CHOICES: i64 = 2_000;

/// The league filter offers the club's last this many leagues.
pub const MAX_LEAGUE_CHOICES: i64 = 200;

/// Which of a club's finished games to show; `None` is no filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArchiveFilter {
    /// The game's id of the rules (`"whitehouse"`).
    pub kind: Option<String>,
    /// An account that held a seat in the game.
    pub player: Option<i64>,
    /// The league the game belongs to.
    pub league: Option<i64>,
}

/// A finished game in the archive.
#[derive(Debug, Clone)]
pub struct ArchivedGame {
    /// The game.
    pub id: i64,
    /// The game's id of the rules.
    pub kind: String,
    /// The players' names, by seat.
    pub names: Vec<String>,
    /// The accounts holding the seats (none for a seat no account claimed), by seat.
    pub accounts: Vec<Option<i64>>,
    /// The result in words (seat names as `{s0}` placeholders); for a cancelled game, the
    /// cancellation's reason.
    pub result: Option<String>,
    /// Cancelled by its organiser or the club: it has no winner and was not rated.
    pub cancelled: bool,
    /// Its league's name, if it was a league's game.
    pub league: Option<String>,
    /// When its last entry was written.
    pub ended_at: DateTime<Utc>,
}

/// A page of the archive.
#[derive(Debug, Clone)]
pub struct ArchivePage {
    /// The games, the last ended first.
    pub games: Vec<ArchivedGame>,
    /// Whether a next page exists.
    pub more: bool,
}

/// A name to pick in a filter, and the id it stands for.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Choice {
    /// The account's or league's id.
    pub id: i64,
    /// Its name.
    pub name: String,
}

impl Store {
    /// Page `page` (from 0) of club `club_id`'s finished games (cancelled ones included and
    /// marked) that pass `filter`, the last ended first. Only the ids of the page are picked
    /// in order (from the index `games_club_status`); the seats, league and whether it was
    /// cancelled (its last entry the organiser's) are read for those 50 alone, the last entry
    /// by its key (an `EXISTS` there is planned as a hashed scan of every command).
    pub async fn club_archive(
        &self,
        club_id: i64,
        filter: &ArchiveFilter,
        page: i64,
    ) -> Result<ArchivePage, sqlx::Error> {
        if !(0..=MAX_ARCHIVE_PAGE).contains(&page) {
            return Ok(ArchivePage {
                games: Vec::new(),
                more: false,
            });
        }
        let mut q: QueryBuilder<Postgres> = QueryBuilder::new(
            "SELECT g.id, g.kind, g.result, g.updated_at, l.name AS league, \
             ARRAY(SELECT s.name FROM seats s WHERE s.game_id = g.id ORDER BY s.seat) AS names, \
             ARRAY(SELECT s.account_id FROM seats s WHERE s.game_id = g.id ORDER BY s.seat) \
               AS accounts, \
             coalesce((SELECT c.made_by = 'organiser' FROM commands c \
               WHERE c.game_id = g.id AND c.seq = g.head_seq), false) AS cancelled \
             FROM (SELECT f.id, f.updated_at FROM games f WHERE f.club_id = ",
        );
        q.push_bind(club_id).push(" AND f.status = 'over'");
        if let Some(kind) = &filter.kind {
            q.push(" AND f.kind = ").push_bind(kind.clone());
        }
        if let Some(league) = filter.league {
            q.push(" AND f.league_id = ").push_bind(league);
        }
        if let Some(player) = filter.player {
            q.push(" AND f.id IN (SELECT s.game_id FROM seats s WHERE s.account_id = ")
                .push_bind(player)
                .push(")");
        }
        q.push(" ORDER BY f.updated_at DESC, f.id DESC LIMIT ")
            .push_bind(ARCHIVE_PAGE + 1)
            .push(" OFFSET ")
            .push_bind(page * ARCHIVE_PAGE)
            .push(
                ") p JOIN games g ON g.id = p.id LEFT JOIN leagues l ON l.id = g.league_id \
                 ORDER BY p.updated_at DESC, p.id DESC",
            );
        let rows = q.build().fetch_all(&self.pool).await?;
        let more = rows.len() as i64 > ARCHIVE_PAGE;
        let games = rows
            .iter()
            .take(ARCHIVE_PAGE as usize)
            .map(|r| {
                Ok(ArchivedGame {
                    id: r.try_get("id")?,
                    kind: r.try_get("kind")?,
                    names: r.try_get("names")?,
                    accounts: r.try_get("accounts")?,
                    result: r.try_get("result")?,
                    cancelled: r.try_get("cancelled")?,
                    league: r.try_get("league")?,
                    ended_at: r.try_get("updated_at")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()?;
        Ok(ArchivePage { games, more })
    }

    /// The names the archive's player filter offers, by name: everyone with a rating in the
    /// club (each played a rated game of it, member or former member) and, when `members` (the
    /// reader is a member), the club's members. At most [`MAX_PLAYER_CHOICES`].
    pub async fn archive_players(
        &self,
        club_id: i64,
        members: bool,
    ) -> Result<Vec<Choice>, sqlx::Error> {
        let sql = if members {
            "SELECT a.id, a.name FROM accounts a WHERE a.id IN \
             (SELECT account_id FROM club_ratings WHERE club_id = $1 \
              UNION SELECT account_id FROM club_members WHERE club_id = $1) \
             ORDER BY lower(a.name), a.id LIMIT $2"
        } else {
            "SELECT a.id, a.name FROM accounts a WHERE a.id IN \
             (SELECT account_id FROM club_ratings WHERE club_id = $1) \
             ORDER BY lower(a.name), a.id LIMIT $2"
        };
        sqlx::query_as(sql)
            .bind(club_id)
            .bind(MAX_PLAYER_CHOICES)
            .fetch_all(&self.pool)
            .await
    }

    /// The name of `account` if the archive may be filtered by it: it held a seat in one of
    /// the club's games, or (when `members`, the reader being a member) it is a member. `None`
    /// alike for an account that does not exist and one that never played in the club.
    pub async fn archive_player(
        &self,
        club_id: i64,
        account_id: i64,
        members: bool,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT a.name FROM accounts a WHERE a.id = $2 AND (\
               EXISTS (SELECT 1 FROM seats s JOIN games g ON g.id = s.game_id \
                 WHERE s.account_id = $2 AND g.club_id = $1) \
               OR ($3 AND EXISTS (SELECT 1 FROM club_members \
                 WHERE club_id = $1 AND account_id = $2)))",
        )
        .bind(club_id)
        .bind(account_id)
        .bind(members)
        .fetch_optional(&self.pool)
        .await
    }

    /// The club's last [`MAX_LEAGUE_CHOICES`] leagues, the newest first, for the archive's
    /// league filter.
    pub async fn archive_leagues(&self, club_id: i64) -> Result<Vec<Choice>, sqlx::Error> {
        sqlx::query_as("SELECT id, name FROM leagues WHERE club_id = $1 ORDER BY id DESC LIMIT $2")
            .bind(club_id)
            .bind(MAX_LEAGUE_CHOICES)
            .fetch_all(&self.pool)
            .await
    }

    /// The name of league `league_id` if it is club `club_id`'s (`None` for another club's
    /// league and for none at all alike).
    pub async fn club_league_name(
        &self,
        club_id: i64,
        league_id: i64,
    ) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar("SELECT name FROM leagues WHERE id = $1 AND club_id = $2")
            .bind(league_id)
            .bind(club_id)
            .fetch_optional(&self.pool)
            .await
    }
}
