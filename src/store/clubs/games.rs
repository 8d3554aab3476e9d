//! A club's games made from the club (issue 33 item 3): a member starts a game with the
//! members they choose, seat by seat, and the club's admins act on its games in the
//! organiser's place. A club game has no organiser link: who may act is read from the club.

use crate::domain::{ClubRole, EmailAddress, PlayerName, look_alikes};
use crate::store::clubs::club::{read_club, role_in};
use crate::store::lobby::tables::{TableError, club_open_to};
use crate::store::{Account, ClubError, NewSeat, Store};
use serde_json::Value;
use sqlx::Row;

/// A game a member asks to start in the club with chosen members.
#[derive(Debug, Clone)]
pub struct ChosenGame {
    /// The rules' id (`"whitehouse"`).
    pub kind: String,
    /// The rules' options.
    pub options: Value,
    /// The settings beyond the rules' options (`{"clock": …}`); never unlisted.
    pub settings: Value,
    /// The member's account for each seat, in seat order.
    pub members: Vec<i64>,
    /// The starting member's words for the shuffle (docs/FAIRNESS.md).
    pub words: Option<crate::engine::deal::ShuffleWords>,
}

fn table_refusal(e: TableError) -> ClubError {
    match e {
        TableError::NotFound => ClubError::NotFound,
        TableError::NotAllowed(_) => {
            ClubError::NotAllowed("only the club's members start its games".into())
        }
        TableError::Closed(_) => ClubError::Closed,
        TableError::Store(e) => ClubError::Store(e),
        other => ClubError::Invalid(other.to_string()),
    }
}

impl Store {
    /// Starts a game of the club between the chosen members, made by `by` (a member of the
    /// open club, seated or not): each seat is its member's (name, address and account), the
    /// game belongs to the club, has no organiser desk and no spectator link, and every seat
    /// is mailed its link by the creation's effects. In one transaction with the club's row
    /// shared, so a closed club or a removed member starts nothing; nothing is written when
    /// refused.
    pub async fn start_club_game(
        &self,
        club_id: i64,
        by: &Account,
        new: &ChosenGame,
    ) -> Result<i64, ClubError> {
        if new.settings.get("unlisted") == Some(&Value::Bool(true)) {
            return Err(ClubError::Invalid(
                "a club's game is never unlisted: its members find it on the club's page".into(),
            ));
        }
        let mut tx = self.pool.begin().await?;
        club_open_to(&mut tx, club_id, by.id)
            .await
            .map_err(table_refusal)?;
        for (seat, member) in new.members.iter().enumerate() {
            if new.members[..seat].contains(member) {
                return Err(ClubError::Invalid(format!(
                    "seat {}: every seat needs a different member",
                    seat + 1
                )));
            }
        }
        let rows = sqlx::query(
            "SELECT a.id, a.name, a.email FROM club_members m JOIN accounts a ON a.id = m.account_id \
             WHERE m.club_id = $1 AND m.account_id = ANY($2)",
        )
        .bind(club_id)
        .bind(&new.members)
        .fetch_all(&mut *tx)
        .await?;
        let mut seats = Vec::with_capacity(new.members.len());
        for (seat, member) in new.members.iter().enumerate() {
            let row = rows
                .iter()
                .find(|r| r.try_get::<i64, _>("id").ok() == Some(*member))
                .ok_or_else(|| {
                    ClubError::Invalid(format!("seat {}: not a member of the club", seat + 1))
                })?;
            let invalid = |e: &dyn std::fmt::Display| ClubError::Invalid(e.to_string());
            seats.push(NewSeat {
                name: PlayerName::parse(&row.try_get::<String, _>("name")?)
                    .map_err(|e| invalid(&e))?,
                email: Some(
                    EmailAddress::parse(&row.try_get::<String, _>("email")?)
                        .map_err(|e| invalid(&e))?,
                ),
                bot: None,
            });
        }
        if let Some((a, b)) = look_alikes(seats.iter().map(|s| s.name.as_str())) {
            return Err(ClubError::Invalid(format!(
                "seats {} and {}: {:?} and {:?} look alike: choose members the players can tell \
                 apart, or ask one to change their name",
                a + 1,
                b + 1,
                seats[a].name.as_str(),
                seats[b].name.as_str()
            )));
        }
        let created = self
            .start_members_game(
                &mut tx,
                &new.kind,
                &new.options,
                &new.settings,
                Some(club_id),
                &seats,
                new.words
                    .iter()
                    .map(|w| w.clone().from(by.name.as_str()))
                    .collect(),
            )
            .await
            .map_err(|e| match e {
                crate::store::StoreError::Invalid(m) => ClubError::Invalid(m),
                e => ClubError::Store(e),
            })?;
        tx.commit().await?;
        tracing::info!(
            club = club_id,
            game = created.id,
            by = by.id,
            "club game started with chosen members"
        );
        Ok(created.id)
    }

    /// Whether `account` may act on `game` as its organiser from the club's pages: the club is
    /// one `account` may see (else [`ClubError::NotFound`], as for a missing club), the game is
    /// the club's (else `NotFound`), and `account` is the club's admin (else `NotAllowed`).
    /// A closed club's admins still act on its games, which go on.
    pub async fn club_game_admin(
        &self,
        club_id: i64,
        game_id: i64,
        account_id: i64,
    ) -> Result<(), ClubError> {
        let mut conn = self.pool.acquire().await?;
        let club = read_club(&mut conn, club_id)
            .await?
            .ok_or(ClubError::NotFound)?;
        let role = role_in(&mut conn, club_id, account_id).await?;
        if club.private && role.is_none() {
            return Err(ClubError::NotFound);
        }
        let of_club: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM games WHERE id = $1 AND club_id = $2)",
        )
        .bind(game_id)
        .bind(club_id)
        .fetch_one(&mut *conn)
        .await?;
        if !of_club {
            return Err(ClubError::NotFound);
        }
        if role != Some(ClubRole::Admin) {
            return Err(ClubError::NotAllowed(
                "only the club's admins act on its games".into(),
            ));
        }
        Ok(())
    }

    /// Every member of the club (id and name, by name), for choosing players: at most
    /// [`crate::store::MAX_MEMBERS`].
    pub async fn member_names(&self, club_id: i64) -> Result<Vec<(i64, String)>, sqlx::Error> {
        sqlx::query_as(
            "SELECT a.id, a.name FROM club_members m JOIN accounts a ON a.id = m.account_id \
             WHERE m.club_id = $1 ORDER BY lower(a.name), a.id LIMIT $2",
        )
        .bind(club_id)
        .bind(crate::store::MAX_MEMBERS)
        .fetch_all(&self.pool)
        .await
    }
}
