//! Invitations to a club, as the lobby's invitations to a seat: an admin names addresses, each
//! is mailed a link (through the outbox, by the effects seam) that proves the address, so
//! taking it signs the reader in with that address's account (made if there is none) and
//! makes it a member. Bounded per club in PostgreSQL: pending ones, and those made a day.

use crate::domain::{ClubRole, EmailAddress};
use crate::store::clubs::club::{
    Club, ClubError, MAX_MEMBERS, check_room_to_join, lock_club, read_club, role_in,
};
use crate::store::game::effects::ClubNews;
use crate::store::{Account, Store, looks_like_token, new_token, token_hash};
use chrono::{DateTime, Utc};
use sqlx::Row;

/// How many invitations of one club may wait for an answer at once.
pub const MAX_PENDING_INVITES: i64 = 50;

/// How many invitations one club may make in 24 hours (withdrawn ones count).
pub const INVITES_PER_DAY: i64 = 100;

/// How many days an invitation's link works.
pub const INVITE_DAYS: i32 = 14;

/// An invitation waiting for its answer, as the club's admins see it.
#[derive(Debug, Clone)]
pub struct PendingInvite {
    /// Its id (to withdraw it).
    pub id: i64,
    /// The address invited (shown to the club's admins only).
    pub email: String,
    /// Until when its link works.
    pub expires_at: DateTime<Utc>,
}

impl Store {
    /// Invites each address to the club (by an admin of an open club) and queues its mail;
    /// the number invited. Refused whole if an address is a member already or invited and
    /// waiting, or a bound would be passed.
    pub async fn invite_to_club(
        &self,
        club_id: i64,
        by: &Account,
        addresses: &[EmailAddress],
    ) -> Result<usize, ClubError> {
        if addresses.is_empty() {
            return Err(ClubError::Invalid("name at least one address".into()));
        }
        let mut seen: Vec<String> = Vec::new();
        for address in addresses {
            let lower = address.as_str().to_lowercase();
            if seen.contains(&lower) {
                return Err(ClubError::Invalid(format!("{address} is named twice")));
            }
            seen.push(lower);
        }
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let (club, role) = lock_club(&mut tx, club_id, by.id).await?;
        if role != Some(ClubRole::Admin) {
            return Err(ClubError::NotAllowed(
                "only the club's admins may invite".into(),
            ));
        }
        if club.closed_at.is_some() {
            return Err(ClubError::Closed);
        }
        sqlx::query(
            "DELETE FROM club_invites WHERE club_id = $1 AND ended_at IS NOT NULL \
             AND created_at <= $2 - interval '1 day'",
        )
        .bind(club_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE club_invites SET ended_at = $2, token_hash = NULL \
             WHERE club_id = $1 AND ended_at IS NULL AND expires_at <= $2",
        )
        .bind(club_id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let counts = sqlx::query(
            "SELECT count(*) FILTER (WHERE ended_at IS NULL) AS pending, \
             count(*) FILTER (WHERE created_at > $2 - interval '1 day') AS today \
             FROM club_invites WHERE club_id = $1",
        )
        .bind(club_id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let (pending, today): (i64, i64) = (counts.try_get("pending")?, counts.try_get("today")?);
        let asked = addresses.len() as i64;
        if pending + asked > MAX_PENDING_INVITES {
            return Err(ClubError::Invalid(format!(
                "{pending} invitations wait for an answer already: a club may have at most \
                 {MAX_PENDING_INVITES} waiting (withdraw some, or wait for answers)"
            )));
        }
        if today + asked > INVITES_PER_DAY {
            return Err(ClubError::Invalid(format!(
                "this club made {today} invitations in the last 24 hours, and may make at most \
                 {INVITES_PER_DAY}: try again tomorrow"
            )));
        }
        if club.members + pending + asked > MAX_MEMBERS {
            return Err(ClubError::Invalid(format!(
                "a club has at most {MAX_MEMBERS} members, invitations waiting included"
            )));
        }
        for address in addresses {
            let clash: Option<String> = sqlx::query_scalar(
                "SELECT 'a member' FROM club_members m JOIN accounts a ON a.id = m.account_id \
                 WHERE m.club_id = $1 AND lower(a.email) = lower($2) \
                 UNION ALL SELECT 'invited already' FROM club_invites \
                 WHERE club_id = $1 AND ended_at IS NULL AND lower(email) = lower($2) LIMIT 1",
            )
            .bind(club_id)
            .bind(address.as_str())
            .fetch_optional(&mut *tx)
            .await?;
            if let Some(what) = clash {
                return Err(ClubError::Invalid(format!("{address} is {what}")));
            }
            let token = new_token();
            sqlx::query(
                "INSERT INTO club_invites (club_id, email, token_hash, invited_by, created_at, \
                 expires_at) VALUES ($1, $2, $3, $4, $5, $5 + make_interval(days => $6))",
            )
            .bind(club_id)
            .bind(address.as_str())
            .bind(token_hash(&token))
            .bind(by.id)
            .bind(now)
            .bind(INVITE_DAYS)
            .execute(&mut *tx)
            .await?;
            let news = ClubNews {
                club_id,
                club_name: &club.name,
                by: &by.name,
                token: &token,
                days: INVITE_DAYS,
                to: address,
                at: now,
            };
            for effect in &self.effects {
                effect.club_news(&mut tx, &news).await?;
            }
        }
        tx.commit().await?;
        tracing::info!(
            club = club_id,
            invited = addresses.len(),
            "club invitations"
        );
        Ok(addresses.len())
    }

    /// The club an invitation link leads to, and the address it was sent to, while it waits.
    pub async fn club_invitation(&self, token: &str) -> Result<Option<(Club, String)>, ClubError> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT club_id, email FROM club_invites WHERE token_hash = $1 \
             AND ended_at IS NULL AND expires_at > $2",
        )
        .bind(token_hash(token))
        .bind(self.now())
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let club_id: i64 = row.try_get("club_id")?;
        let email: String = row.try_get("email")?;
        // The link holder sees the club's name and description, even a private club's: the
        // mail that carried the link named it already.
        let mut conn = self.pool.acquire().await?;
        Ok(read_club(&mut conn, club_id)
            .await?
            .map(|club| (club, email)))
    }

    /// Accepts an invitation for `account`, which must be the invited address's (signed in by
    /// a link mailed to it: a forwarded invitation signs nobody in and joins nobody); the link
    /// is used up and the account becomes a member. The club's id.
    pub async fn accept_club_invitation(
        &self,
        token: &str,
        account: &Account,
    ) -> Result<i64, ClubError> {
        let (club, email) = self
            .club_invitation(token)
            .await?
            .ok_or(ClubError::NotFound)?;
        if club.closed_at.is_some() {
            return Err(ClubError::Closed);
        }
        if email.to_lowercase() != account.email.to_lowercase() {
            return Err(ClubError::NotAllowed(format!(
                "this invitation is for {email}: sign in as that address to join"
            )));
        }
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let used = sqlx::query(
            "UPDATE club_invites SET ended_at = $3, token_hash = NULL \
             WHERE club_id = $1 AND token_hash = $2 AND ended_at IS NULL AND expires_at > $3",
        )
        .bind(club.id)
        .bind(token_hash(token))
        .bind(now)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if used == 0 {
            return Err(ClubError::NotFound);
        }
        let closed: Option<DateTime<Utc>> =
            sqlx::query_scalar("SELECT closed_at FROM clubs WHERE id = $1 FOR UPDATE")
                .bind(club.id)
                .fetch_one(&mut *tx)
                .await?;
        if closed.is_some() {
            return Err(ClubError::Closed);
        }
        if role_in(&mut tx, club.id, account.id).await?.is_none() {
            check_room_to_join(&mut tx, account.id, "this address's account is").await?;
            sqlx::query(
                "INSERT INTO club_members (club_id, account_id, role, joined_at) \
                 VALUES ($1, $2, 'member', $3)",
            )
            .bind(club.id)
            .bind(account.id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(club.id)
    }

    /// The club's invitations waiting for an answer (for its admins), newest first.
    pub async fn pending_invites(&self, club_id: i64) -> Result<Vec<PendingInvite>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT id, email, expires_at FROM club_invites WHERE club_id = $1 \
             AND ended_at IS NULL AND expires_at > $2 ORDER BY created_at DESC, id DESC",
        )
        .bind(club_id)
        .bind(self.now())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PendingInvite {
                    id: r.try_get("id")?,
                    email: r.try_get("email")?,
                    expires_at: r.try_get("expires_at")?,
                })
            })
            .collect()
    }

    /// Withdraws a pending invitation (an admin): its link no longer works.
    pub async fn withdraw_club_invite(
        &self,
        club_id: i64,
        by: &Account,
        invite: i64,
    ) -> Result<(), ClubError> {
        let mut tx = self.pool.begin().await?;
        let (_, role) = lock_club(&mut tx, club_id, by.id).await?;
        if role != Some(ClubRole::Admin) {
            return Err(ClubError::NotAllowed(
                "only the club's admins may withdraw an invitation".into(),
            ));
        }
        let gone = sqlx::query(
            "UPDATE club_invites SET ended_at = $3, token_hash = NULL \
             WHERE club_id = $1 AND id = $2 AND ended_at IS NULL",
        )
        .bind(club_id)
        .bind(invite)
        .bind(self.now())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if gone == 0 {
            return Err(ClubError::Invalid(
                "no such invitation waits for an answer".into(),
            ));
        }
        tx.commit().await?;
        Ok(())
    }
}
