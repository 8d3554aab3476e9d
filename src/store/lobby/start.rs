//! Taking a seat at a lobby table, by joining or by an invitation, and the start of its game
//! when the last seat is taken: in one transaction with the table's row locked, so of two
//! players racing for the last seat exactly one is seated and one game is created.

use crate::domain::{EmailAddress, PlayerName, Seating, look_alikes};
use crate::engine::deal::{Contribution, ShuffleWords};
use crate::engine::{GameRng, Seed};
use crate::store::lobby::tables::{Joined, Table, TableError, open_for_update};
use crate::store::{Account, CreatedGame, DealFrom, NewSeat, Store, StoreError, token_hash};
use sqlx::{PgConnection, Row};

impl Store {
    /// Seats the account at an open table: at `position` for placed seating (required then),
    /// at any free place otherwise. The join that fills the table starts its game.
    pub async fn join_table(
        &self,
        id: i64,
        account: &Account,
        position: Option<i32>,
    ) -> Result<Joined, TableError> {
        self.join_table_with(id, account, position, None).await
    }

    /// [`Store::join_table`] with what the player contributes to the deal (docs/FAIRNESS.md):
    /// their browser's random bytes or words they typed ([`ShuffleWords`]).
    pub async fn join_table_with(
        &self,
        id: i64,
        account: &Account,
        position: Option<i32>,
        contribution: Option<&str>,
    ) -> Result<Joined, TableError> {
        let contribution = ShuffleWords::parse(contribution).map_err(TableError::Invalid)?;
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let table = open_for_update(&mut tx, id, now).await?;
        if table.place_of(account.id).is_some() {
            return Err(TableError::AlreadySeated);
        }
        refuse_look_alike(&table, &account.name)?;
        if let Some(club) = table.club_id {
            crate::store::lobby::tables::club_open_to(&mut tx, club, account.id).await?;
        }
        let free = table.free_positions();
        let position = match (table.seating, position) {
            (Seating::Placed, None) => {
                return Err(TableError::Invalid("choose a seat to take".into()));
            }
            (Seating::Placed, Some(p)) if !(0..table.seat_count).contains(&p) => {
                return Err(TableError::Invalid("no such seat".into()));
            }
            (Seating::Placed, Some(p)) if !free.contains(&p) => return Err(TableError::SeatTaken),
            (Seating::Placed, Some(p)) => p,
            (Seating::Random, _) => *free.first().ok_or(TableError::SeatTaken)?,
        };
        sqlx::query(
            "INSERT INTO table_seats (table_id, position, account_id, joined_at, contribution) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(position)
        .bind(account.id)
        .bind(now)
        .bind(contribution.as_ref().map(ShuffleWords::as_str))
        .execute(&mut *tx)
        .await?;
        let joined = self.start_if_full(&mut tx, &table, 1).await?;
        tx.commit().await?;
        Ok(joined)
    }

    /// The open table an invitation link leads to, and the address it was sent to.
    pub async fn invitation(&self, token: &str) -> Result<Option<(Table, String)>, sqlx::Error> {
        if !crate::store::looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT table_id, invited_email FROM table_seats \
             WHERE invite_token_hash = $1 AND account_id IS NULL",
        )
        .bind(token_hash(token))
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let id: i64 = row.try_get("table_id")?;
        let email: String = row.try_get("invited_email")?;
        Ok(self.table(id).await?.map(|t| (t, email)))
    }

    /// Accepts an invitation for `account`, which must be signed in as the invited address
    /// (the link alone proves nothing: it may have been forwarded): the account takes the held
    /// seat and the link is used up. The table is returned for the caller to show.
    pub async fn accept_invitation(
        &self,
        token: &str,
        account: &Account,
        contribution: Option<&str>,
    ) -> Result<(i64, Joined), TableError> {
        let contribution = ShuffleWords::parse(contribution).map_err(TableError::Invalid)?;
        let (table, email) = self.invitation(token).await?.ok_or(TableError::NotFound)?;
        if table.status != "open" {
            return Err(TableError::Closed(
                crate::store::lobby::tables::closed_words(&table.status),
            ));
        }
        if email.to_lowercase() != account.email.to_lowercase() {
            return Err(TableError::NotAllowed(format!(
                "this invitation is for {email}: sign in as that address to take the seat"
            )));
        }
        let mut tx = self.pool.begin().await?;
        let table = open_for_update(&mut tx, table.id, self.now()).await?;
        if table.place_of(account.id).is_some() {
            return Err(TableError::AlreadySeated);
        }
        refuse_look_alike(&table, &account.name)?;
        let taken = sqlx::query(
            "UPDATE table_seats SET account_id = $3, invite_token_hash = NULL, contribution = $4 \
             WHERE table_id = $1 AND invite_token_hash = $2 AND account_id IS NULL",
        )
        .bind(table.id)
        .bind(token_hash(token))
        .bind(account.id)
        .bind(contribution.as_ref().map(ShuffleWords::as_str))
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if taken == 0 {
            return Err(TableError::NotFound);
        }
        let joined = self.start_if_full(&mut tx, &table, 0).await?;
        tx.commit().await?;
        Ok((table.id, joined))
    }

    /// Starts the table's game if every place is now an account's (`added` places were taken
    /// since `table` was read): draws the seating if random, then the seed, and creates the
    /// game through the store with each seat's account (its name, address and ownership) and
    /// no organiser: a lobby game has no desk, its players serve themselves. The creation's
    /// effects mail everyone.
    async fn start_if_full(
        &self,
        tx: &mut PgConnection,
        table: &Table,
        added: usize,
    ) -> Result<Joined, TableError> {
        if table.places.len() + added < table.seat_count as usize {
            return Ok(Joined::Seated);
        }
        let rows = sqlx::query(
            "SELECT s.position, a.name, a.email, s.bot, s.contribution FROM table_seats s \
             LEFT JOIN accounts a ON a.id = s.account_id \
             WHERE s.table_id = $1 AND (s.account_id IS NOT NULL OR s.bot IS NOT NULL) \
             ORDER BY s.position",
        )
        .bind(table.id)
        .fetch_all(&mut *tx)
        .await?;
        if rows.len() < table.seat_count as usize {
            // A held invitation is not a player yet.
            return Ok(Joined::Seated);
        }
        let mut players = rows
            .iter()
            .map(|r| {
                let position = r.try_get::<i32, _>("position")?;
                let seat = match r.try_get::<Option<String>, _>("bot")? {
                    Some(level) => bot_seat(&level)?,
                    None => account_seat(
                        &r.try_get::<String, _>("name")?,
                        &r.try_get::<String, _>("email")?,
                    )?,
                };
                Ok((position, seat))
            })
            .collect::<Result<Vec<_>, TableError>>()?;
        if table.seating == Seating::Random {
            GameRng::new(&Seed::random(), 0).shuffle(&mut players);
        }
        let seats: Vec<NewSeat> = players.iter().map(|(_, seat)| seat.clone()).collect();
        let contributions = rows
            .iter()
            .map(|r| {
                let value = r.try_get::<Option<String>, _>("contribution")?;
                let name = r.try_get::<Option<String>, _>("name")?;
                Ok(value
                    .zip(name)
                    .map(|(value, from)| Contribution { from, value }))
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?
            .into_iter()
            .flatten()
            .collect();
        let settings: serde_json::Value =
            sqlx::query_scalar("SELECT settings FROM open_tables WHERE id = $1")
                .bind(table.id)
                .fetch_one(&mut *tx)
                .await?;
        let created = self
            .start_members_game(
                tx,
                &table.kind,
                &table.options,
                &settings,
                table.club_id,
                &seats,
                contributions,
            )
            .await?;
        for (seat, (position, _)) in players.iter().enumerate() {
            sqlx::query(
                "UPDATE table_seats SET game_seat = $3 WHERE table_id = $1 AND position = $2",
            )
            .bind(table.id)
            .bind(position)
            .bind(seat as i32)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "UPDATE open_tables SET status = 'started', game_id = $2, ended_at = $3 WHERE id = $1",
        )
        .bind(table.id)
        .bind(created.id)
        .bind(self.now())
        .execute(&mut *tx)
        .await?;
        tracing::info!(
            table = table.id,
            game = created.id,
            "table full: game started"
        );
        Ok(Joined::Started {
            game_id: created.id,
        })
    }

    /// Starts a game whose seats are members' accounts, in the caller's transaction: a lobby
    /// table's game when its last seat is taken, a league's games when their round opens, and
    /// a club game with chosen members.
    /// The game is created through the store (its effects mail each seat its link and set the
    /// first deadlines), belongs to `club` if given (private if the club is; a club game never
    /// has a spectator link), and has no organiser desk: its players serve themselves
    /// (DESIGN.md "Identity"; docs/lobby.md).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::store) async fn start_members_game(
        &self,
        tx: &mut PgConnection,
        kind: &str,
        options: &serde_json::Value,
        settings: &serde_json::Value,
        club: Option<i64>,
        seats: &[NewSeat],
        contributions: Vec<Contribution>,
    ) -> Result<CreatedGame, StoreError> {
        let deal = DealFrom::Drawn(contributions);
        let created = self
            .create_game_in(tx, kind, options, seats, deal, None, settings)
            .await?;
        sqlx::query("UPDATE games SET club_id = $2, has_desk = false WHERE id = $1")
            .bind(created.id)
            .bind(club)
            .execute(&mut *tx)
            .await?;
        Ok(created)
    }
}

/// Refuses a player whose name a reader could not tell from the name of someone seated at the
/// table already ([`crate::domain::look_alikes`]).
fn refuse_look_alike(table: &Table, name: &str) -> Result<(), TableError> {
    let seated = table.places.iter().filter_map(|p| p.name.as_deref());
    match seated
        .into_iter()
        .find(|n| look_alikes([*n, name]).is_some())
    {
        None => Ok(()),
        Some(other) => Err(TableError::Invalid(format!(
            "{other:?} sits at this table already and your name {name:?} looks just like it: \
             change your name in your settings so the players can tell you apart"
        ))),
    }
}

/// A game's seat for a member's account: its name and address, so the seat is the account's
/// and is mailed its link.
pub(in crate::store) fn account_seat(name: &str, email: &str) -> Result<NewSeat, StoreError> {
    Ok(NewSeat {
        name: PlayerName::parse(name).map_err(|e| StoreError::Invalid(e.to_string()))?,
        email: Some(EmailAddress::parse(email).map_err(|e| StoreError::Invalid(e.to_string()))?),
        bot: None,
    })
}

/// A game's seat for a practice bot put at a table.
fn bot_seat(level: &str) -> Result<NewSeat, StoreError> {
    let level = crate::engine::BotLevel::parse(level)
        .ok_or_else(|| StoreError::Invalid(format!("no bot plays at {level:?}")))?;
    Ok(NewSeat {
        name: PlayerName::parse(&level.seat_name())
            .map_err(|e| StoreError::Invalid(e.to_string()))?,
        email: None,
        bot: Some(level),
    })
}
