//! Clock news: reminders, timeouts, pauses and extra time, to a seat, every seat or the
//! organiser.

use crate::engine::Seat;
use crate::notices::EmailAddress;
use crate::notices::notice::{ClockNews, GameRef, Notice};
use crate::notices::outbox::{NewRow, announce, insert, mail_seats, mint_link};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;

/// Who clock news goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// One seat (with a private link of its own).
    Seat(Seat),
    /// Every seat.
    Everyone,
    /// The organiser, if they gave an address.
    Organiser,
}

/// What clock news says.
pub struct News<'a> {
    /// One message per event and reader: `"remind:17:2:1"`, `"timeout:18"`.
    pub event: String,
    /// The subject after the game's title.
    pub headline: &'a str,
    /// The sentences.
    pub lines: Vec<String>,
}

/// Queues clock news in the current transaction. A seat's own deadline goes with it; digest
/// readers get it in their digest, readers who chose no mail get nothing.
pub async fn enqueue_clock(
    tx: &mut PgConnection,
    game_id: i64,
    game_name: &str,
    readers: Readers,
    news: News<'_>,
) -> Result<(), sqlx::Error> {
    let game = GameRef {
        home: None,
        id: game_id,
        name: game_name.to_string(),
    };
    let mut queued = false;
    if readers == Readers::Organiser {
        let organiser: Option<String> =
            sqlx::query_scalar("SELECT organiser_email FROM games WHERE id = $1")
                .bind(game_id)
                .fetch_one(&mut *tx)
                .await?;
        if let Some(to) = organiser.and_then(|a| EmailAddress::parse(&a).ok()) {
            let notice = Notice::Clock(ClockNews {
                game,
                headline: news.headline.to_string(),
                lines: news.lines,
                deadline: None,
                token: None,
            });
            insert(
                tx,
                NewRow {
                    game_id,
                    seat: None,
                    event: news.event,
                    to: &to,
                    to_name: "organiser",
                    notice,
                    digest: false,
                },
            )
            .await?;
            announce(tx).await?;
        }
        return Ok(());
    }
    for seat in mail_seats(tx, game_id).await? {
        if readers != Readers::Everyone && readers != Readers::Seat(seat.seat) {
            continue;
        }
        let Some(to) = &seat.email else { continue };
        if seat.pref == "off" {
            continue;
        }
        let deadline: Option<DateTime<Utc>> =
            sqlx::query_scalar("SELECT due_at FROM seat_clocks WHERE game_id = $1 AND seat = $2")
                .bind(game_id)
                .bind(seat.seat as i32)
                .fetch_optional(&mut *tx)
                .await?
                .flatten();
        let token = mint_link(tx, game_id, seat.seat).await?;
        let notice = Notice::Clock(ClockNews {
            game: game.clone(),
            headline: news.headline.to_string(),
            lines: news.lines.clone(),
            deadline,
            token: Some(token),
        });
        insert(
            tx,
            NewRow {
                game_id,
                seat: Some(seat.seat),
                event: news.event.clone(),
                to,
                to_name: &seat.name,
                notice,
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
