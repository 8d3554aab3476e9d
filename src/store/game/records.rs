//! A game's record (docs/record-format.md): written out for a viewer, and read in, verified,
//! as a new game.

use crate::engine::record::Mark;
use crate::engine::{Log, Record, RecordedCommand, RecordedMessage, Viewer};
use crate::games::find_game;
use crate::store::game::loading::apply_entry;
use crate::store::{
    CreatedGame, PlayerName, Store, StoreError, chain_time, messages, new_token, token_hash,
};
use chrono::{DateTime, Utc};
use sqlx::Row;

impl Store {
    /// The record of a game as `viewer` may see it (docs/record-format.md): names but never
    /// emails or tokens. Once the game is over, everything, seed included. While it runs, no
    /// seed, and every command the viewer may not see in full in its public form, marked
    /// `redacted`; an [`Viewer::Auditor`] (an administrator moving a running game to another
    /// server, never a player) gets the full record with the seed.
    pub async fn export(&self, id: i64, viewer: Viewer) -> Result<Record, StoreError> {
        let loaded = self.load(id).await?;
        let row = &loaded.row;
        let seats = self.seats(id).await?;
        let over = row.status == "over";
        let reveal_seed = viewer == Viewer::Auditor;
        let mut commands = self.commands(id, 0).await?;
        let mut redacted = vec![false; commands.len()];
        if !over && !reveal_seed {
            let mut game = self.start(row)?;
            let mut silent = Log::silent();
            for (i, entry) in commands.iter_mut().enumerate() {
                // Every entry is redacted by the game's rule, whoever made it (a seat, the
                // clock, any later mark); only the server's own endings are not game commands.
                let ends = matches!(
                    crate::engine::record::ending(entry.by(), &entry.command),
                    Ok(Some(_))
                ) || entry.mark == Some(Mark::Undo);
                let public = if viewer.sees_seat(entry.seat) || ends {
                    None
                } else {
                    game.redacted(entry.seat, &entry.command)
                };
                apply_entry(game.as_mut(), entry, &mut silent).map_err(|e| {
                    StoreError::Corrupt {
                        game: id,
                        reason: format!("command {}: {e}", entry.seq),
                    }
                })?;
                if let Some(public) = public {
                    entry.command = public;
                    redacted[i] = true;
                }
            }
        }
        Ok(Record {
            game: row.kind.clone(),
            rules_version: row.rules_version as u32,
            options: row.options.clone(),
            seats: row.seat_count as usize,
            seat_names: seats.into_iter().map(|s| s.name).collect(),
            seed: (over || reveal_seed).then_some(row.seed),
            commitment: Some(row.commitment.clone()),
            deal: if over || reveal_seed {
                self.deal_of(id).await?
            } else {
                None
            },
            chain_head: Some(row.head_hash.clone()),
            commands: commands
                .into_iter()
                .zip(redacted)
                .map(|(c, redacted)| RecordedCommand {
                    by: c.by().map(str::to_string),
                    seat: c.seat,
                    command: c.command,
                    at: Some(chain_time(&c.created_at)),
                    hash: Some(c.hash),
                    redacted,
                })
                .collect(),
            final_state_hash: (over || reveal_seed).then(|| loaded.game.state_hash()),
            messages: self
                .messages(id)
                .await?
                .into_iter()
                .map(|m| RecordedMessage {
                    seat: m.seat,
                    at: chain_time(&m.at),
                    after: m.head,
                    text: m.visible_text().map(str::to_string),
                    hidden: m.hidden.is_some(),
                    author: m.author,
                })
                .collect(),
        })
    }

    /// Stores a game from a record after verifying it (chain, commitment, replay), keeping
    /// its log, times and hashes; new links are made for the organiser and every seat. The
    /// record must carry its seed: a game cannot go on without it.
    pub async fn import(&self, record: &Record) -> Result<CreatedGame, StoreError> {
        let verified =
            crate::engine::audit::verify(crate::games::ALL, record, record.chain_head.as_deref())
                .map_err(|e| StoreError::Invalid(format!("the record does not verify: {e}")))?;
        let seed = record
            .seed
            .ok_or_else(|| StoreError::Invalid("the record has no seed".into()))?;
        let game = find_game(&record.game)
            .ok_or_else(|| StoreError::Invalid(format!("no game called {:?}", record.game)))?;
        let mut times = Vec::with_capacity(record.commands.len());
        for (i, entry) in record.commands.iter().enumerate() {
            let at = entry.at.as_deref().unwrap_or_default();
            let parsed = DateTime::parse_from_rfc3339(at)
                .map_err(|e| StoreError::Invalid(format!("entry {}: time {at:?}: {e}", i + 1)))?
                .with_timezone(&Utc);
            times.push(parsed);
        }
        let messages = messages::imported(record)?;
        let over = verified.outcome.is_some();
        let organiser_token = new_token();
        let seat_tokens: Vec<String> = (0..record.seats).map(|_| new_token()).collect();
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query(
            "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
             organiser_token_hash, head_seq, head_hash, status, imported_deal) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .bind(&record.game)
        .bind(record.rules_version as i32)
        .bind(&record.options)
        .bind(record.seats as i32)
        .bind(seed.0.to_vec())
        .bind(seed.commitment())
        .bind(token_hash(&organiser_token))
        .bind(record.commands.len() as i64)
        .bind(&verified.chain_head)
        .bind(if over { "over" } else { "running" })
        .bind(
            record
                .deal
                .as_ref()
                .map(|d| serde_json::to_value(d).expect("a deal is JSON")),
        )
        .fetch_one(&mut *tx)
        .await?
        .try_get("id")?;
        for (seat, token) in seat_tokens.iter().enumerate() {
            let name = record
                .seat_names
                .get(seat)
                .and_then(|n| PlayerName::parse(n).ok())
                .map_or_else(|| game.seat_name(seat, record.seats), |n| n.to_string());
            sqlx::query(
                "INSERT INTO seats (game_id, seat, name, token_hash) VALUES ($1, $2, $3, $4)",
            )
            .bind(id)
            .bind(seat as i32)
            .bind(name)
            .bind(token_hash(token))
            .execute(&mut *tx)
            .await?;
        }
        for (i, entry) in record.commands.iter().enumerate() {
            let mark = match entry.by.as_deref() {
                None => None,
                Some(word) => Some(Mark::parse(word).ok_or_else(|| {
                    StoreError::Invalid(format!("entry {}: {word:?} is no mark", i + 1))
                })?),
            };
            sqlx::query("INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) VALUES ($1, $2, $3, $4, $5, $6, $7)")
                .bind(id)
                .bind(i as i64 + 1)
                .bind(entry.seat as i32)
                .bind(&entry.command)
                .bind(times[i])
                .bind(entry.hash.as_deref().unwrap_or_default())
                .bind(mark.map(Mark::as_str))
                .execute(&mut *tx)
                .await?;
        }
        messages::store_imported(&mut tx, id, &messages).await?;
        tx.commit().await?;
        tracing::info!(game = id, kind = %record.game, commands = record.commands.len(), "game imported");
        let handovers = vec![None; seat_tokens.len()];
        Ok(CreatedGame {
            id,
            organiser_token,
            seat_tokens,
            handovers,
            spectator: None,
            commitment: seed.commitment(),
        })
    }
}
