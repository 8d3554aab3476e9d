//! Chat news (docs/WEBHOOKS.md): a seat's turn or the game's end, queued in the outbox for
//! each webhook of the seat's account, in the move's own transaction.

use crate::engine::Seat;
use crate::engine::log::render;
use crate::notices::notice::GameRef;
use crate::notices::outbox::OUTBOX_CHANNEL;
use crate::notices::webhook::{HOOK_KIND, HookEvent, HookNotice};
use crate::store::game::effects::Appended;
use sqlx::{PgConnection, Row};

/// Queues a webhook notice for each webhook of each seat's account that the entry concerns: a
/// turn for the seats in `newly` ([`crate::notices::turn::turns_to_tell`]), or the end for every seat.
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
    let seats = crate::notices::outbox::mail_seats(tx, row.id).await?;
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let game_ref = GameRef {
        home: None,
        id: row.id,
        name: kind.name().to_string(),
    };
    for (seat, hook) in hooks {
        let Some(mail_seat) = seats.iter().find(|s| s.seat == seat) else {
            continue;
        };
        let you = crate::notices::outbox::player(kind, mail_seat, seats.len());
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
