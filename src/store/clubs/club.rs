//! Clubs (issue 33): made by a signed-in account, who is their first admin; members come by
//! an admin's invitation ([`crate::store::clubs::invites`]). A private club is seen by its members only.
//! Every change of who belongs or who runs the club takes the club's row `FOR UPDATE`, so two
//! admins acting at once cannot leave it without an admin or beyond its bounds.

use crate::domain::{ClubDescription, ClubName, ClubRole};
use crate::store::lobby::tables::TableError;
use crate::store::{Account, Store, StoreError};
use chrono::{DateTime, Utc};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

/// How many clubs one account may have made and not closed.
pub const MAX_CLUBS_MADE: i64 = 5;

/// How many clubs one account may belong to.
pub const MAX_CLUBS_JOINED: i64 = 50;

/// How many members a club may have; pending invitations count towards it.
pub const MAX_MEMBERS: i64 = 1000;

/// How many clubs, games or members a list shows a page.
pub const CLUB_PAGE: i64 = 50;

/// Why a club could not be changed as asked. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum ClubError {
    /// No such club, or one the reader may not see (a private club to a non-member).
    #[error("no such club")]
    NotFound,
    /// The reader may not do this (an admin's action by a member, ...).
    #[error("{0}")]
    NotAllowed(String),
    /// The club is closed: no new members, invitations or games.
    #[error("this club is closed: it takes no new members or games")]
    Closed,
    /// A bound is reached or the request is not possible as made.
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for ClubError {
    fn from(e: sqlx::Error) -> ClubError {
        ClubError::Store(StoreError::Db(e))
    }
}

impl From<crate::store::game::effects::EffectError> for ClubError {
    fn from(e: crate::store::game::effects::EffectError) -> ClubError {
        ClubError::Store(e.into())
    }
}

impl From<TableError> for ClubError {
    fn from(e: TableError) -> ClubError {
        match e {
            TableError::Store(e) => ClubError::Store(e),
            other => ClubError::Invalid(other.to_string()),
        }
    }
}

/// A club as its pages show it.
#[derive(Debug, Clone)]
pub struct Club {
    /// Id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its short description (may be empty).
    pub description: String,
    /// Seen by its members only.
    pub private: bool,
    /// Made.
    pub created_at: DateTime<Utc>,
    /// Closed, if it is: no new members, invitations or games.
    pub closed_at: Option<DateTime<Utc>>,
    /// How many members it has.
    pub members: i64,
}

/// What a new club is to be.
#[derive(Debug, Clone)]
pub struct NewClub {
    /// Its name.
    pub name: ClubName,
    /// Its description.
    pub description: ClubDescription,
    /// Seen by its members only.
    pub private: bool,
}

/// A member as the club's members see them: a name, never an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The member's account.
    pub account_id: i64,
    /// Their display name.
    pub name: String,
    /// What they are in the club.
    pub role: ClubRole,
    /// Since when.
    pub joined_at: DateTime<Utc>,
}

/// One of a club's games in its lists.
#[derive(Debug, Clone)]
pub struct ClubGame {
    /// The game.
    pub id: i64,
    /// The game's id of the rules (`"whitehouse"`).
    pub kind: String,
    /// The players' names, by seat.
    pub names: Vec<String>,
    /// Entries in its log.
    pub moves: i64,
    /// The result in words (seat names as `{s0}` placeholders), once over.
    pub result: Option<String>,
    /// Its last move (or its start).
    pub updated_at: DateTime<Utc>,
}

/// The columns [`club_row`] reads, for `concat!` (queries are static strings).
macro_rules! club_columns {
    () => {
        "c.id, c.name, c.description, c.private, c.created_at, c.closed_at, \
         (SELECT count(*) FROM club_members m WHERE m.club_id = c.id) AS members"
    };
}

fn club_row(row: &PgRow) -> Result<Club, sqlx::Error> {
    Ok(Club {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        private: row.try_get("private")?,
        created_at: row.try_get("created_at")?,
        closed_at: row.try_get("closed_at")?,
        members: row.try_get("members")?,
    })
}

fn role(text: &str) -> Result<ClubRole, sqlx::Error> {
    ClubRole::parse(text).map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

/// The club's row locked for a change of its members, and the role of `account` in it.
pub(in crate::store) async fn lock_club(
    tx: &mut PgConnection,
    club_id: i64,
    account_id: i64,
) -> Result<(Club, Option<ClubRole>), ClubError> {
    let row = sqlx::query(concat!(
        "SELECT ",
        club_columns!(),
        " FROM clubs c WHERE c.id = $1 FOR UPDATE OF c"
    ))
    .bind(club_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(ClubError::NotFound)?;
    let club = club_row(&row)?;
    let role = role_in(tx, club_id, account_id).await?;
    if club.private && role.is_none() {
        return Err(ClubError::NotFound);
    }
    Ok((club, role))
}

/// The club, whoever asks (the caller decides who may see it).
pub(in crate::store) async fn read_club(
    conn: &mut PgConnection,
    club_id: i64,
) -> Result<Option<Club>, sqlx::Error> {
    let row = sqlx::query(concat!(
        "SELECT ",
        club_columns!(),
        " FROM clubs c WHERE c.id = $1"
    ))
    .bind(club_id)
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(club_row).transpose()
}

/// The account's role in the club, if it is a member.
pub(in crate::store) async fn role_in(
    conn: &mut PgConnection,
    club_id: i64,
    account_id: i64,
) -> Result<Option<ClubRole>, sqlx::Error> {
    let text: Option<String> =
        sqlx::query_scalar("SELECT role FROM club_members WHERE club_id = $1 AND account_id = $2")
            .bind(club_id)
            .bind(account_id)
            .fetch_optional(&mut *conn)
            .await?;
    text.as_deref().map(role).transpose()
}

/// Refuses anyone but an admin.
fn admin_only(role: Option<ClubRole>, what: &str) -> Result<(), ClubError> {
    if role == Some(ClubRole::Admin) {
        Ok(())
    } else {
        Err(ClubError::NotAllowed(format!(
            "only the club's admins may {what}"
        )))
    }
}

/// Refuses an account already in [`MAX_CLUBS_JOINED`] clubs.
pub(in crate::store) async fn check_room_to_join(
    tx: &mut PgConnection,
    account_id: i64,
    whose: &str,
) -> Result<(), ClubError> {
    let joined: i64 = sqlx::query_scalar("SELECT count(*) FROM club_members WHERE account_id = $1")
        .bind(account_id)
        .fetch_one(&mut *tx)
        .await?;
    if joined >= MAX_CLUBS_JOINED {
        return Err(ClubError::Invalid(format!(
            "{whose} in {joined} clubs already, the most one account may belong to"
        )));
    }
    Ok(())
}

impl Store {
    /// Makes a club with `founder` as its admin. Bounded by [`MAX_CLUBS_MADE`] open clubs made
    /// and [`MAX_CLUBS_JOINED`] memberships, counted with the founder's row locked.
    pub async fn create_club(&self, founder: &Account, new: &NewClub) -> Result<i64, ClubError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE")
            .bind(founder.id)
            .execute(&mut *tx)
            .await?;
        let made: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM clubs WHERE created_by = $1 AND closed_at IS NULL",
        )
        .bind(founder.id)
        .fetch_one(&mut *tx)
        .await?;
        if made >= MAX_CLUBS_MADE {
            return Err(ClubError::Invalid(format!(
                "you run {made} open clubs already, the most one account may make: close one first"
            )));
        }
        check_room_to_join(&mut tx, founder.id, "you are").await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO clubs (name, description, private, created_by, created_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(new.name.as_str())
        .bind(new.description.as_str())
        .bind(new.private)
        .bind(founder.id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO club_members (club_id, account_id, role, joined_at) \
             VALUES ($1, $2, 'admin', $3)",
        )
        .bind(id)
        .bind(founder.id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(club = id, private = new.private, "club made");
        Ok(id)
    }

    /// The club as `reader` may see it, and the reader's role in it: `None` for no such club,
    /// and for a private club to anyone but its members.
    pub async fn club_for(
        &self,
        id: i64,
        reader: Option<i64>,
    ) -> Result<Option<(Club, Option<ClubRole>)>, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        let Some(club) = read_club(&mut conn, id).await? else {
            return Ok(None);
        };
        let role = match reader {
            Some(account) => role_in(&mut conn, id, account).await?,
            None => None,
        };
        Ok((!club.private || role.is_some()).then_some((club, role)))
    }

    /// The clubs the account belongs to, by name, with its role in each.
    pub async fn clubs_of(&self, account_id: i64) -> Result<Vec<(Club, ClubRole)>, sqlx::Error> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            club_columns!(),
            ", me.role FROM club_members me JOIN clubs c ON c.id = me.club_id \
             WHERE me.account_id = $1 ORDER BY c.closed_at IS NOT NULL, lower(c.name), c.id"
        ))
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((club_row(r)?, role(r.try_get("role")?)?)))
            .collect()
    }

    /// A page of the public clubs, newest first, and how many there are.
    pub async fn public_clubs(&self, page: i64) -> Result<(Vec<Club>, i64), sqlx::Error> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            club_columns!(),
            " FROM clubs c WHERE NOT c.private \
             ORDER BY c.created_at DESC, c.id DESC LIMIT $1 OFFSET $2"
        ))
        .bind(CLUB_PAGE)
        .bind(page.max(0) * CLUB_PAGE)
        .fetch_all(&self.pool)
        .await?;
        let total: i64 = sqlx::query_scalar("SELECT count(*) FROM clubs WHERE NOT private")
            .fetch_one(&self.pool)
            .await?;
        Ok((rows.iter().map(club_row).collect::<Result<_, _>>()?, total))
    }

    /// A page of the club's members, admins first, then by name: names, never addresses.
    pub async fn members(&self, club_id: i64, page: i64) -> Result<Vec<Member>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT m.account_id, a.name, m.role, m.joined_at FROM club_members m \
             JOIN accounts a ON a.id = m.account_id WHERE m.club_id = $1 \
             ORDER BY m.role = 'admin' DESC, lower(a.name), a.id LIMIT $2 OFFSET $3",
        )
        .bind(club_id)
        .bind(CLUB_PAGE)
        .bind(page.max(0) * CLUB_PAGE)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(Member {
                    account_id: r.try_get("account_id")?,
                    name: r.try_get("name")?,
                    role: role(r.try_get("role")?)?,
                    joined_at: r.try_get("joined_at")?,
                })
            })
            .collect()
    }

    /// A page of the club's games, running or finished (`over`), most recently moved first
    /// (read in order from the index `games_club_status`).
    pub async fn club_games(
        &self,
        club_id: i64,
        over: bool,
        page: i64,
    ) -> Result<Vec<ClubGame>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT g.id, g.kind, g.head_seq, g.result, g.updated_at, \
             ARRAY(SELECT s.name FROM seats s WHERE s.game_id = g.id ORDER BY s.seat) AS names \
             FROM games g WHERE g.club_id = $1 AND g.status = $2 \
             ORDER BY g.updated_at DESC, g.id DESC LIMIT $3 OFFSET $4",
        )
        .bind(club_id)
        .bind(if over { "over" } else { "running" })
        .bind(CLUB_PAGE)
        .bind(page.max(0) * CLUB_PAGE)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ClubGame {
                    id: r.try_get("id")?,
                    kind: r.try_get("kind")?,
                    names: r.try_get("names")?,
                    moves: r.try_get("head_seq")?,
                    result: r.try_get("result")?,
                    updated_at: r.try_get("updated_at")?,
                })
            })
            .collect()
    }

    /// Makes a member an admin, or an admin a member again (by an admin). The last admin
    /// cannot be made a member: another must be named first.
    pub async fn set_club_role(
        &self,
        club_id: i64,
        by: &Account,
        member: i64,
        new_role: ClubRole,
    ) -> Result<(), ClubError> {
        let mut tx = self.pool.begin().await?;
        let (_, role) = lock_club(&mut tx, club_id, by.id).await?;
        admin_only(role, "make admins")?;
        let current = role_in(&mut tx, club_id, member)
            .await?
            .ok_or_else(|| ClubError::Invalid("that account is not a member".into()))?;
        if current == new_role {
            return Ok(());
        }
        if new_role == ClubRole::Member && admins(&mut tx, club_id).await? <= 1 {
            return Err(ClubError::Invalid(
                "the club's last admin stays admin: make another member admin first".into(),
            ));
        }
        sqlx::query("UPDATE club_members SET role = $3 WHERE club_id = $1 AND account_id = $2")
            .bind(club_id)
            .bind(member)
            .bind(new_role.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Removes a member (by an admin; an admin leaves rather than removing themselves). Their
    /// seats in the club's games stay theirs; they leave its leagues (docs/LEAGUES.md).
    pub async fn remove_member(
        &self,
        club_id: i64,
        by: &Account,
        member: i64,
    ) -> Result<(), ClubError> {
        let mut tx = self.pool.begin().await?;
        let (_, role) = lock_club(&mut tx, club_id, by.id).await?;
        admin_only(role, "remove members")?;
        if member == by.id {
            return Err(ClubError::Invalid(
                "to go, leave the club instead of removing yourself".into(),
            ));
        }
        let gone = sqlx::query("DELETE FROM club_members WHERE club_id = $1 AND account_id = $2")
            .bind(club_id)
            .bind(member)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if gone == 0 {
            return Err(ClubError::Invalid("that account is not a member".into()));
        }
        leave_tables(&mut tx, club_id, member).await?;
        crate::store::clubs::league_life::member_left(&mut tx, club_id, member, self.now()).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The account leaves the club; its seats in the club's games stay its own, and it leaves
    /// the club's leagues (docs/LEAGUES.md, "Running a league"). The last
    /// admin cannot leave: they name another admin first (or close the club and stay).
    pub async fn leave_club(&self, club_id: i64, account: &Account) -> Result<(), ClubError> {
        let mut tx = self.pool.begin().await?;
        let (_, role) = lock_club(&mut tx, club_id, account.id).await?;
        let role = role.ok_or_else(|| ClubError::Invalid("you are not a member".into()))?;
        if role == ClubRole::Admin && admins(&mut tx, club_id).await? <= 1 {
            return Err(ClubError::Invalid(
                "you are the club's last admin: make another member admin before you leave".into(),
            ));
        }
        sqlx::query("DELETE FROM club_members WHERE club_id = $1 AND account_id = $2")
            .bind(club_id)
            .bind(account.id)
            .execute(&mut *tx)
            .await?;
        leave_tables(&mut tx, club_id, account.id).await?;
        crate::store::clubs::league_life::member_left(&mut tx, club_id, account.id, self.now())
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Closes the club (an admin): it takes no new members, invitations or games from now on;
    /// pending invitations end and its open tables are cancelled (everyone at them is told).
    /// Its games go on and stay verifiable; its members keep their seats and the club.
    pub async fn close_club(&self, club_id: i64, by: &Account) -> Result<(), ClubError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let (club, role) = lock_club(&mut tx, club_id, by.id).await?;
        admin_only(role, "close the club")?;
        if club.closed_at.is_some() {
            return Err(ClubError::Closed);
        }
        sqlx::query("UPDATE clubs SET closed_at = $2 WHERE id = $1")
            .bind(club_id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE club_invites SET ended_at = $2, token_hash = NULL \
             WHERE club_id = $1 AND ended_at IS NULL",
        )
        .bind(club_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let tables: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM open_tables WHERE club_id = $1 AND status = 'open' \
             AND expires_at > $2 ORDER BY id",
        )
        .bind(club_id)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        for table in tables {
            self.cancel_table_in(&mut tx, table, None, now).await?;
        }
        tx.commit().await?;
        tracing::info!(club = club_id, "club closed");
        Ok(())
    }
}

/// How many admins the club has.
async fn admins(tx: &mut PgConnection, club_id: i64) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT count(*) FROM club_members WHERE club_id = $1 AND role = 'admin'")
        .bind(club_id)
        .fetch_one(&mut *tx)
        .await
}

/// A member who goes gives back their places at the club's open tables (a table they opened
/// stays theirs to cancel: they cannot be seated at a club table without being its member,
/// but what they opened is not taken from the others waiting at it).
async fn leave_tables(
    tx: &mut PgConnection,
    club_id: i64,
    account_id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM table_seats s USING open_tables t WHERE s.table_id = t.id \
         AND t.club_id = $1 AND t.status = 'open' AND s.account_id = $2 AND t.creator_id <> $2",
    )
    .bind(club_id)
    .bind(account_id)
    .execute(&mut *tx)
    .await?;
    Ok(())
}
