//! Creating a game: its options checked by setting it up, its row, seats and fresh links
//! written with the effects' rows in one transaction.

use crate::engine::Seed;
use crate::games::find_game;
use crate::store::DealFrom;
use crate::store::game::bots;
use crate::store::game::effects::Creation;
use crate::store::game::unlisted;
use crate::store::seats::keys as seat_keys;
use crate::store::{CreatedGame, EmailAddress, NewSeat, Store, StoreError, new_token, token_hash};
use serde_json::Value;
use sqlx::PgConnection;
use sqlx::Row;

impl Store {
    /// Creates a game: checks the options by setting it up, stores it with fresh tokens.
    pub async fn create_game(
        &self,
        kind: &str,
        options: &Value,
        seats: &[NewSeat],
        seed: impl Into<DealFrom>,
    ) -> Result<CreatedGame, StoreError> {
        self.create_game_with(kind, options, seats, seed, None, &Value::Null)
            .await
    }

    /// Creates a game with the organiser's address (told of undeliverable mail) and the
    /// settings beyond the rules' options (`{"clock": …}`), which the effects read: invitations
    /// and the first deadlines are written in the same transaction.
    pub async fn create_game_with(
        &self,
        kind: &str,
        options: &Value,
        seats: &[NewSeat],
        seed: impl Into<DealFrom>,
        organiser_email: Option<&EmailAddress>,
        settings: &Value,
    ) -> Result<CreatedGame, StoreError> {
        let seed = seed.into();
        let mut tx = self.pool.begin().await?;
        let created = self
            .create_game_in(
                &mut tx,
                kind,
                options,
                seats,
                seed,
                organiser_email,
                settings,
            )
            .await?;
        tx.commit().await?;
        tracing::info!(game = created.id, kind, seats = seats.len(), "game created");
        Ok(created)
    }

    /// [`Store::create_game_with`] inside the caller's transaction (a lobby table starting
    /// its game): nothing is written unless the caller commits.
    #[allow(clippy::too_many_arguments)]
    pub async fn create_game_in(
        &self,
        tx: &mut PgConnection,
        kind: &str,
        options: &Value,
        seats: &[NewSeat],
        deal: DealFrom,
        organiser_email: Option<&EmailAddress>,
        settings: &Value,
    ) -> Result<CreatedGame, StoreError> {
        let game = find_game(kind)
            .ok_or_else(|| StoreError::Invalid(format!("no game called {kind:?}")))?;
        bots::check_seats(game, seats)?;
        let (seed, drawn) = match &deal {
            DealFrom::Chosen(seed) => (*seed, None),
            DealFrom::Drawn(contributions) => {
                let drawn = self.draw_seed(tx, contributions).await?;
                (drawn.seed, Some((drawn, contributions)))
            }
        };
        let started = game
            .new_match(options, seats.len(), seed)
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        let organiser_token = new_token();
        let seat_tokens: Vec<String> = seats.iter().map(|_| new_token()).collect();
        let commitment = seed.commitment();
        let id: i64 = sqlx::query(
            "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
             organiser_token_hash, head_hash, organiser_email, deal_batch, deal_index, \
             deal_contributions) VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $8, $9, $10, $11) \
             RETURNING id",
        )
        .bind(kind)
        .bind(game.rules_version() as i32)
        .bind(started.options())
        .bind(seats.len() as i32)
        .bind(seed.0.to_vec())
        .bind(&commitment)
        .bind(token_hash(&organiser_token))
        .bind(organiser_email.map(|e| e.as_str()))
        .bind(drawn.as_ref().map(|(d, _)| d.batch))
        .bind(drawn.as_ref().map(|(d, _)| d.index))
        .bind(drawn.as_ref().map(|(_, c)| serde_json::json!(c)))
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        for (i, seat) in seats.iter().enumerate() {
            sqlx::query(
                "INSERT INTO seats (game_id, seat, name, email, token_hash, bot, bot_seed) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(id)
            .bind(i as i32)
            .bind(seat.name.as_str())
            .bind(seat.email.as_ref().map(|e| e.as_str()))
            .bind(token_hash(&seat_tokens[i]))
            .bind(seat.bot.map(|b| b.name()))
            .bind(seat.bot.map(|_| Seed::random().0.to_vec()))
            .execute(&mut *tx)
            .await?;
        }
        bots::enlist(tx, id, seats).await?;
        sqlx::query(
            "UPDATE seats s SET account_id = a.id, mail_pref = a.mail_pref FROM accounts a \
             WHERE s.game_id = $1 AND lower(s.email) = lower(a.email)",
        )
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let creation = Creation {
            id,
            game,
            started: started.as_ref(),
            seats,
            seat_tokens: &seat_tokens,
            organiser_token: &organiser_token,
            commitment: &commitment,
            organiser_email,
            settings,
            at: self.now(),
        };
        for effect in &self.effects {
            effect.created(tx, &creation).await?;
        }
        // A seat with an address is mailed its link; a bot's seat is nobody's to take.
        let with_address: Vec<bool> = seats
            .iter()
            .map(|s| s.email.is_some() || s.bot.is_some())
            .collect();
        let handovers = seat_keys::first_handovers(tx, id, &with_address, self.now()).await?;
        let spectator = if settings.get("unlisted") == Some(&Value::Bool(true)) {
            Some(unlisted::make_unlisted(tx, id).await?)
        } else {
            None
        };
        Ok(CreatedGame {
            id,
            organiser_token,
            seat_tokens,
            handovers,
            spectator,
            commitment,
        })
    }
}
