//! A game's thread in mail: a your-turn mail (and so the digest) carries the messages written
//! since the seat's previous mail that carried any, never the seat's own; a seat that chose it
//! is mailed each message as it is written. A message never causes a mail of its own otherwise.
//! Hidden messages are dropped again when a mail is sent ([`crate::notices::outbox::worker`]).

use crate::engine::Seat;
use crate::notices::notice::{GameRef, MessageNews, Notice, ThreadMessage};
use crate::notices::outbox::{NewRow, announce, insert, mail_seats, mint_link};
use crate::store::Message;
use sqlx::{PgConnection, Row};

/// The most messages one mail carries (the latest ones; the page shows them all).
pub const MAX_MAILED_MESSAGES: i64 = 30;

/// The visible messages of the game not yet mailed to `seat` and not written by it (at most
/// [`MAX_MAILED_MESSAGES`], the latest); every message so far counts as mailed to it from now.
pub async fn unsent(
    tx: &mut PgConnection,
    game_id: i64,
    seat: Seat,
) -> Result<Vec<ThreadMessage>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT m.id, m.author_name, m.created_at, m.body FROM game_messages m \
         JOIN seats s ON s.game_id = m.game_id AND s.seat = $2 \
         WHERE m.game_id = $1 AND m.id > s.messages_mailed_upto AND m.hidden_at IS NULL \
         AND m.seat IS DISTINCT FROM $2 ORDER BY m.id DESC LIMIT $3",
    )
    .bind(game_id)
    .bind(seat as i32)
    .bind(MAX_MAILED_MESSAGES)
    .fetch_all(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE seats SET messages_mailed_upto = \
         (SELECT coalesce(max(id), 0) FROM game_messages WHERE game_id = $1) \
         WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat as i32)
    .execute(&mut *tx)
    .await?;
    let mut messages = rows
        .iter()
        .map(|r| {
            Ok(ThreadMessage {
                id: r.try_get("id")?,
                author: r.try_get("author_name")?,
                at: r.try_get("created_at")?,
                text: r.try_get("body")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    messages.reverse();
    Ok(messages)
}

/// Queues the new message (with any others not yet mailed) to every seat that asked for each
/// message by mail, has an address and has not turned mail off; never to its author. A seat on
/// the daily digest gets it in the digest.
pub async fn enqueue_each_message(
    tx: &mut PgConnection,
    message: &Message,
) -> Result<(), sqlx::Error> {
    let wanting: Vec<i32> = sqlx::query_scalar(
        "SELECT seat FROM seats WHERE game_id = $1 AND mail_each_message \
         AND email IS NOT NULL AND mail_pref <> 'off' AND seat IS DISTINCT FROM $2 ORDER BY seat",
    )
    .bind(message.game_id)
    .bind(message.seat.map(|s| s as i32))
    .fetch_all(&mut *tx)
    .await?;
    if wanting.is_empty() {
        return Ok(());
    }
    let kind: String = sqlx::query_scalar("SELECT kind FROM games WHERE id = $1")
        .bind(message.game_id)
        .fetch_one(&mut *tx)
        .await?;
    let game = GameRef {
        home: None,
        id: message.game_id,
        name: crate::games::find_game(&kind).map_or(kind.clone(), |g| g.name().to_string()),
    };
    let seats = mail_seats(tx, message.game_id).await?;
    let mut queued = false;
    for seat in seats.iter().filter(|s| wanting.contains(&(s.seat as i32))) {
        let Some(to) = &seat.email else { continue };
        let messages = unsent(tx, message.game_id, seat.seat).await?;
        if messages.is_empty() {
            continue;
        }
        let token = mint_link(tx, message.game_id, seat.seat).await?;
        insert(
            tx,
            NewRow {
                game_id: message.game_id,
                seat: Some(seat.seat),
                event: format!("message:{}", message.id),
                to,
                to_name: &seat.name,
                notice: Notice::Message(MessageNews {
                    game: game.clone(),
                    name: seat.name.clone(),
                    messages,
                    token,
                }),
                digest: seat.pref == "digest",
            },
        )
        .await?;
        queued = true;
    }
    if queued {
        announce(tx).await?;
    }
    Ok(())
}

/// Whether a seat is mailed each message as it is written.
pub async fn mail_each_message(
    pool: &sqlx::PgPool,
    game_id: i64,
    seat: Seat,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT mail_each_message FROM seats WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .fetch_one(pool)
        .await
}

/// Sets whether a seat is mailed each message as it is written.
pub async fn set_mail_each_message(
    pool: &sqlx::PgPool,
    game_id: i64,
    seat: Seat,
    each: bool,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE seats SET mail_each_message = $3 WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .bind(each)
        .execute(pool)
        .await?;
    Ok(())
}
