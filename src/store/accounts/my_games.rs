//! "My games": every seat an account owns, sorted for a person who comes back to see where it
//! is their move. Read from indexed tables only (`seats.account_id`, the clock's `seat_clocks`
//! that marks each awaited seat, `games.status`/`result`), never by replaying a game.

use crate::engine::Seat;
use crate::store::Store;
use chrono::{DateTime, Utc};
use sqlx::Row;

/// At most this many finished games are listed (the most recent); running games are all listed.
pub const MAX_FINISHED: i64 = 100;

/// Where one of the account's seats stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// The seat must act; `due` is its deadline when the game's clock times out.
    YourMove {
        /// Since when the seat is awaited.
        since: Option<DateTime<Utc>>,
        /// When its time runs out.
        due: Option<DateTime<Utc>>,
    },
    /// Others must act.
    Waiting {
        /// The names of the seats awaited, in seat order.
        on: Vec<String>,
        /// Since when the longest of them has been awaited.
        since: Option<DateTime<Utc>>,
    },
    /// The game is over; the result in one sentence (seat names as log placeholders), where
    /// it was kept.
    Finished {
        /// The result sentence, unrendered.
        result: Option<String>,
    },
}

/// One of the account's seats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MyGame {
    /// The game.
    pub game_id: i64,
    /// The game's kind (`"whitehouse"`).
    pub kind: String,
    /// The account's seat in it.
    pub seat: Seat,
    /// Every seat's name, in seat order.
    pub names: Vec<String>,
    /// Moves so far.
    pub moves: i64,
    /// When the game last changed.
    pub updated_at: DateTime<Utc>,
    /// Where it stands for this seat.
    pub standing: Standing,
}

/// The account's games: those awaiting its move (soonest deadline first, then longest
/// waiting), then those waiting on others (longest waiting first), then the latest
/// [`MAX_FINISHED`] finished ones (most recent first); and how many finished games there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MyGames {
    /// The games in that order.
    pub games: Vec<MyGame>,
    /// How many finished games the account has in all.
    pub finished_total: i64,
}

impl Store {
    /// The account's games, sorted as [`MyGames`] says.
    pub async fn my_games(&self, account_id: i64) -> Result<MyGames, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT g.id, g.kind, g.status, g.result, g.head_seq, g.updated_at, s.seat, \
             ARRAY(SELECT n.name FROM seats n WHERE n.game_id = g.id ORDER BY n.seat) AS names, \
             c.awaited_seq IS NOT NULL AS mine, c.waiting_since, \
             CASE WHEN g.clock->'control'->>'kind' = 'none' THEN NULL ELSE c.due_at END AS due, \
             w.on, w.since \
             FROM seats s JOIN games g ON g.id = s.game_id \
             LEFT JOIN seat_clocks c ON c.game_id = s.game_id AND c.seat = s.seat \
             LEFT JOIN LATERAL (SELECT array_agg(os.name ORDER BY os.seat) AS on, \
                 min(oc.waiting_since) AS since \
                 FROM seat_clocks oc JOIN seats os ON os.game_id = oc.game_id AND os.seat = oc.seat \
                 WHERE oc.game_id = g.id AND oc.awaited_seq IS NOT NULL AND oc.seat <> s.seat) w \
               ON g.status = 'running' \
             WHERE s.account_id = $1 AND g.status = 'running' \
             UNION ALL \
             (SELECT g.id, g.kind, g.status, g.result, g.head_seq, g.updated_at, s.seat, \
             ARRAY(SELECT n.name FROM seats n WHERE n.game_id = g.id ORDER BY n.seat), \
             false, NULL, NULL, NULL, NULL \
             FROM seats s JOIN games g ON g.id = s.game_id \
             WHERE s.account_id = $1 AND g.status <> 'running' \
             ORDER BY g.updated_at DESC, g.id DESC LIMIT $2)",
        )
        .bind(account_id)
        .bind(MAX_FINISHED)
        .fetch_all(&self.pool)
        .await?;
        let mut games = Vec::with_capacity(rows.len());
        for r in &rows {
            let standing = if r.try_get::<String, _>("status")? != "running" {
                Standing::Finished {
                    result: r.try_get("result")?,
                }
            } else if r.try_get::<Option<bool>, _>("mine")?.unwrap_or(false) {
                Standing::YourMove {
                    since: r.try_get("waiting_since")?,
                    due: r.try_get("due")?,
                }
            } else {
                Standing::Waiting {
                    on: r
                        .try_get::<Option<Vec<String>>, _>("on")?
                        .unwrap_or_default(),
                    since: r.try_get("since")?,
                }
            };
            games.push(MyGame {
                game_id: r.try_get("id")?,
                kind: r.try_get("kind")?,
                seat: r.try_get::<i32, _>("seat")? as Seat,
                names: r.try_get("names")?,
                moves: r.try_get("head_seq")?,
                updated_at: r.try_get("updated_at")?,
                standing,
            });
        }
        games.sort_by_key(order_key);
        let finished_total: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM seats s JOIN games g ON g.id = s.game_id \
             WHERE s.account_id = $1 AND g.status <> 'running'",
        )
        .bind(account_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(MyGames {
            games,
            finished_total,
        })
    }
}

/// Group, two times, a recency, game and seat: see [`order_key`].
type OrderKey = (
    u8,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    i64,
    i64,
    Seat,
);

/// The sort key: the group, then (your move) deadline and wait, (waiting) the wait, (finished)
/// the most recent first; the game and seat last so the order is total.
fn order_key(g: &MyGame) -> OrderKey {
    let far = Some(DateTime::<Utc>::MAX_UTC);
    match &g.standing {
        Standing::YourMove { since, due } => (0, due.or(far), since.or(far), 0, g.game_id, g.seat),
        Standing::Waiting { since, .. } => (1, since.or(far), None, 0, g.game_id, g.seat),
        Standing::Finished { .. } => (
            2,
            None,
            None,
            -g.updated_at.timestamp_micros(),
            -g.game_id,
            g.seat,
        ),
    }
}
