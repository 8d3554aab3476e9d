//! What a move reads, in one statement: the game's row, the log's tail past what the cache
//! holds, what the seats settled ahead, and what each effect reads to plan its writes.

use crate::engine::Seat;
use crate::engine::record::Mark;
use crate::store::game::append::Settled;
use crate::store::game::loading::{game_columns, game_row};
use crate::store::game::plan::renumber;
use crate::store::seats::links::SEAT_BY_TOKEN;
use crate::store::{
    CommandRow, Loaded, MAIL_LINK_DAYS, MAIL_LINK_GRACE_DAYS, Store, StoreError, looks_like_token,
    token_hash,
};
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::{PgConnection, Row};

/// A move's read: the game at its head, the seats' settled moves, each effect's read in the
/// store's order of effects, and the seat of the game a token holds when one was given.
pub(in crate::store) struct MoveRead {
    pub(in crate::store) loaded: Loaded,
    pub(in crate::store) settled: Settled,
    pub(in crate::store) effects: Vec<Value>,
    pub(in crate::store) holder: Option<Seat>,
}

impl Store {
    /// Reads everything a move on game `id` decides from, in one round trip: with `holder`,
    /// also which seat of the game that token opens (as [`Store::seat_by_token`] finds it).
    pub(in crate::store) async fn read_move(
        &self,
        conn: &mut PgConnection,
        id: i64,
        holder: Option<&str>,
    ) -> Result<MoveRead, StoreError> {
        let holder = holder.filter(|token| looks_like_token(token));
        let epoch = self.epoch_now();
        // The cache may hold a head the database no longer shows (a failover): the tail is
        // read past it, and replayed only if the head read is not behind it.
        let cached = self.cached(id, epoch, i64::MAX);
        let mut text = String::from(concat!(
            "SELECT ",
            game_columns!(),
            ", (SELECT coalesce(jsonb_agg(jsonb_build_array(c.seq, c.seat, c.command, \
             c.created_at, c.hash, c.made_by) ORDER BY c.seq), '[]') FROM commands c \
             WHERE c.game_id = $1 AND c.seq > $2) AS tail, \
             (SELECT coalesce(jsonb_agg(jsonb_build_array(coalesce(s.play_forced, \
             a.play_forced, false), coalesce((SELECT array_agg(o.order_id ORDER BY o.made_at, \
             o.order_id) FROM standing_orders o WHERE o.game_id = s.game_id AND o.seat = s.seat), \
             '{}')) ORDER BY s.seat), '[]') FROM seats s LEFT JOIN accounts a \
             ON a.id = s.account_id WHERE s.game_id = $1) AS settled"
        ));
        for (i, effect) in self.effects.iter().enumerate() {
            let read = effect.move_reads().unwrap_or("NULL::jsonb");
            text.push_str(&format!(", ({read}) AS effect_{i}"));
        }
        if holder.is_some() {
            text.push_str(&format!(
                ", (SELECT h.seat FROM ({}) AS h WHERE h.game_id = $1) AS holder",
                renumber(SEAT_BY_TOKEN, 2)
            ));
        }
        text.push_str(" FROM games WHERE id = $1");
        let from = cached.as_ref().map_or(0, |c| c.0);
        // The text is the store's and its effects' own fixed SQL.
        let mut query = sqlx::query(sqlx::AssertSqlSafe(text)).bind(id).bind(from);
        if let Some(token) = holder {
            query = query
                .bind(token_hash(token))
                .bind(true)
                .bind(self.now())
                .bind(MAIL_LINK_DAYS)
                .bind(MAIL_LINK_GRACE_DAYS);
        }
        let row = query
            .fetch_optional(&mut *conn)
            .await?
            .ok_or(StoreError::NotFound)?;
        let holder = match holder {
            Some(_) => row.try_get::<Option<i32>, _>("holder")?.map(|s| s as Seat),
            None => None,
        };
        let game = game_row(&row)?;
        let tail = parse_tail(id, row.try_get("tail")?)?;
        let settled = parse_settled(id, row.try_get("settled")?)?;
        let effects = (0..self.effects.len())
            .map(|i| row.try_get::<Option<Value>, _>(format!("effect_{i}").as_str()))
            .map(|v| v.map(Option::unwrap_or_default))
            .collect::<Result<Vec<Value>, sqlx::Error>>()?;
        let cached = cached.filter(|c| c.0 <= game.head_seq);
        let loaded = if cached.is_none() && from > 0 {
            // The cache was ahead of the database: replay from the start.
            self.advance(game, epoch, None, self.commands(id, 0).await?)?
        } else {
            self.advance(game, epoch, cached, tail)?
        };
        Ok(MoveRead {
            loaded,
            settled,
            effects,
            holder,
        })
    }
}

fn corrupt(id: i64, what: &str) -> StoreError {
    StoreError::Corrupt {
        game: id,
        reason: format!("the move's read: {what}"),
    }
}

fn parse_tail(id: i64, tail: Value) -> Result<Vec<CommandRow>, StoreError> {
    let Value::Array(rows) = tail else {
        return Err(corrupt(id, "the log's tail is no array"));
    };
    rows.into_iter()
        .map(|row| {
            let Value::Array(mut f) = row else {
                return Err(corrupt(id, "a command is no array"));
            };
            if f.len() != 6 {
                return Err(corrupt(id, "a command has the wrong fields"));
            }
            let mark = match f[5].take() {
                Value::Null => None,
                Value::String(word) => Some(Mark::parse(&word).ok_or_else(|| corrupt(id, "mark"))?),
                _ => return Err(corrupt(id, "mark")),
            };
            let at: DateTime<Utc> =
                serde_json::from_value(f[3].take()).map_err(|_| corrupt(id, "a command's time"))?;
            Ok(CommandRow {
                seq: f[0].as_i64().ok_or_else(|| corrupt(id, "seq"))?,
                seat: f[1].as_u64().ok_or_else(|| corrupt(id, "seat"))? as Seat,
                command: f[2].take(),
                created_at: at,
                hash: f[4]
                    .as_str()
                    .ok_or_else(|| corrupt(id, "hash"))?
                    .to_string(),
                mark,
            })
        })
        .collect()
}

fn parse_settled(id: i64, settled: Value) -> Result<Settled, StoreError> {
    let rows: Vec<(bool, Vec<String>)> =
        serde_json::from_value(settled).map_err(|_| corrupt(id, "the seats' settings"))?;
    let mut out = Settled::default();
    for (forced, orders) in rows {
        out.play_forced.push(forced);
        out.orders.push(orders);
    }
    Ok(out)
}
