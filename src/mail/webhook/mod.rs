//! Chat notifications (docs/WEBHOOKS.md): a your-turn notice or a game's end, for a seat whose
//! account has webhooks, queued in the outbox in the move's own transaction (one row per
//! webhook, naming it by id, never by URL), and sent by the outbox worker with mail's retries
//! and undeliverable marking. A chat channel is shared, so a webhook notice carries no seat
//! link and nothing of the seat's hidden information: it names the game and points to the
//! account's games behind sign-in (`/me`).

pub mod body;
pub mod client;

use super::notice::{GameRef, Player};
use super::outbox::OUTBOX_CHANNEL;
use crate::engine::Seat;
use crate::engine::log::render;
use crate::store::effects::Appended;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::{PgConnection, Row};

pub use client::HookClient;

/// The outbox `kind` of a webhook delivery.
pub const HOOK_KIND: &str = "webhook";

/// What happened, as a webhook hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    /// The seat must act.
    Turn,
    /// The game ended (or was cancelled).
    Over,
}

impl HookEvent {
    /// The word in the JSON and the `X-Postplay-Event` header.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::Turn => "turn",
            HookEvent::Over => "over",
        }
    }
}

/// A webhook notice as the outbox stores it: public facts about the game and the seat's own
/// name and role, never a link token or the seat's hidden information.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookNotice {
    /// Turn or game end.
    pub event: HookEvent,
    /// The game.
    pub game: GameRef,
    /// The account's seat in it.
    pub you: Player,
    /// The seat's deadline, on a turn under a clock.
    pub deadline: Option<DateTime<Utc>>,
    /// How the game ended, in the public log's words.
    pub result: Option<String>,
    /// The winners' names.
    pub winners: Vec<String>,
    /// The organiser cancelled the game.
    pub cancelled: bool,
    /// When it happened.
    pub at: DateTime<Utc>,
}

/// Queues a webhook notice for each webhook of each seat's account that the entry concerns: a
/// turn for the seats in `newly` (`super::outbox::turns_to_tell`), or the end for every seat.
/// Mail preferences do not apply: a webhook is its own choice, stopped by removing it.
pub async fn enqueue_after_move(
    tx: &mut PgConnection,
    entry: &Appended<'_>,
    newly: &[Seat],
) -> Result<(), sqlx::Error> {
    let (row, game) = (entry.row, entry.game);
    let outcome = game.outcome();
    let hooks = sqlx::query(
        "SELECT s.seat, w.id FROM seats s JOIN webhooks w ON w.account_id = s.account_id \
         WHERE s.game_id = $1 ORDER BY s.seat, w.id",
    )
    .bind(row.id)
    .fetch_all(&mut *tx)
    .await?;
    let hooks: Vec<(Seat, i64)> = hooks
        .iter()
        .map(|r| Ok((r.try_get::<i32, _>("seat")? as Seat, r.try_get("id")?)))
        .collect::<Result<_, sqlx::Error>>()?;
    let hooks: Vec<(Seat, i64)> = hooks
        .into_iter()
        .filter(|(seat, _)| outcome.is_some() || newly.contains(seat))
        .collect();
    if hooks.is_empty() {
        return Ok(());
    }
    let Some(kind) = crate::games::find_game(game.game_id()) else {
        return Ok(());
    };
    let seats = super::outbox::mail_seats(tx, row.id).await?;
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let game_ref = GameRef {
        id: row.id,
        name: kind.name().to_string(),
    };
    for (seat, hook) in hooks {
        let Some(mail_seat) = seats.iter().find(|s| s.seat == seat) else {
            continue;
        };
        let you = super::outbox::player(kind, mail_seat, seats.len());
        let (event, notice) = match &outcome {
            Some(outcome) => (
                "over".to_string(),
                HookNotice {
                    event: HookEvent::Over,
                    game: game_ref.clone(),
                    you,
                    deadline: None,
                    result: Some(render(&outcome.reason, &names)),
                    winners: outcome
                        .winners
                        .iter()
                        .filter_map(|w| names.get(*w).cloned())
                        .collect(),
                    cancelled: entry.by_organiser(),
                    at: entry.at,
                },
            ),
            None => (
                format!("turn:{}", entry.seq),
                HookNotice {
                    event: HookEvent::Turn,
                    game: game_ref.clone(),
                    you,
                    deadline: sqlx::query_scalar(
                        "SELECT due_at FROM seat_clocks WHERE game_id = $1 AND seat = $2",
                    )
                    .bind(row.id)
                    .bind(seat as i32)
                    .fetch_optional(&mut *tx)
                    .await?
                    .flatten(),
                    result: None,
                    winners: Vec::new(),
                    cancelled: false,
                    at: entry.at,
                },
            ),
        };
        sqlx::query(
            "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, webhook_id) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (game_id, event, recipient) DO NOTHING",
        )
        .bind(row.id)
        .bind(seat as i32)
        .bind(&event)
        .bind(HOOK_KIND)
        .bind(format!("webhook:{hook}"))
        .bind(&mail_seat.name)
        .bind(serde_json::to_value(&notice).expect("notices serialize"))
        .bind(hook)
        .execute(&mut *tx)
        .await?;
    }
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(OUTBOX_CHANNEL)
        .execute(&mut *tx)
        .await?;
    Ok(())
}
