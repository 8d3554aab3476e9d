//! A seat's new private link by mail: after its keys were renewed, or on a lost-link request
//! (bounded per day).

use crate::engine::Seat;
use crate::notices::EmailAddress;
use crate::notices::notice::{GameRef, LinkNotice, Notice};
use crate::notices::outbox::{NewRow, announce, event_tag, insert, mail_seats, mint_link};
use sqlx::PgConnection;

/// Queues a seat's new private link (its keys were renewed) to the seat's address, inside the
/// transaction that renewed them; false when the seat has no address. It goes even when the
/// seat chose no mail: it is the only way the player gets the link.
pub async fn enqueue_new_link(
    tx: &mut PgConnection,
    game_id: i64,
    game_name: &str,
    seat: Seat,
    token: &str,
) -> Result<bool, sqlx::Error> {
    let Some(reader) = mail_seats(&mut *tx, game_id)
        .await?
        .into_iter()
        .find(|s| s.seat == seat)
    else {
        return Ok(false);
    };
    let Some(to) = &reader.email else {
        return Ok(false);
    };
    let notice = Notice::Link(LinkNotice {
        game: GameRef {
            home: None,
            id: game_id,
            name: game_name.to_string(),
        },
        headline: "your new private link".into(),
        lines: vec![
            format!("Hello {}, your seat has a new private link.", reader.name),
            "The old link, the links in earlier messages and the reply addresses of earlier messages no longer reach your seat.".into(),
        ],
        manage: false,
        token: token.to_string(),
    });
    insert(
        &mut *tx,
        NewRow {
            game_id,
            seat: Some(seat),
            event: format!("relink:{}", event_tag(token)),
            to,
            to_name: &reader.name,
            notice,
            digest: false,
        },
    )
    .await?;
    announce(&mut *tx).await?;
    Ok(true)
}

/// How many links a seat may be mailed on request from the game's page in a day.
pub const LOST_LINKS_PER_DAY: i64 = 3;

/// Why a link asked for on the game's page was not mailed.
#[derive(Debug, thiserror::Error)]
pub enum LostLinkError {
    /// The seat has no address to send to.
    #[error("this seat has no address: its player needs the organiser for a new handover link")]
    NoAddress,
    /// Enough links went to the seat today.
    #[error(
        "this seat was mailed {LOST_LINKS_PER_DAY} links today already: look in that mailbox, or try again tomorrow"
    )]
    TooMany,
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

/// Mails a fresh link for `seat` to the seat's own address, asked for on the game's page by
/// a player who lost theirs (the page never shows the address or the link). Older links keep
/// working. At most [`LOST_LINKS_PER_DAY`] a seat in a day, counted in the database under the
/// seat's row lock, so every process shares the count.
pub async fn enqueue_lost_link(
    pool: &sqlx::PgPool,
    game_id: i64,
    game_name: &str,
    seat: Seat,
) -> Result<String, LostLinkError> {
    let mut tx = pool.begin().await?;
    let email: Option<String> =
        sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = $2 FOR UPDATE")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_optional(&mut *tx)
            .await?
            .flatten();
    let to = email
        .and_then(|e| EmailAddress::parse(&e).ok())
        .ok_or(LostLinkError::NoAddress)?;
    let today: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND seat = $2 AND event LIKE 'lost:%' \
         AND created_at > now() - interval '1 day'",
    )
    .bind(game_id)
    .bind(seat as i32)
    .fetch_one(&mut *tx)
    .await?;
    if today >= LOST_LINKS_PER_DAY {
        return Err(LostLinkError::TooMany);
    }
    let name: String =
        sqlx::query_scalar("SELECT name FROM seats WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_one(&mut *tx)
            .await?;
    let token = mint_link(&mut tx, game_id, seat).await?;
    let notice = Notice::Link(LinkNotice {
        game: GameRef {
            home: None,
            id: game_id,
            name: game_name.to_string(),
        },
        headline: "a link to your seat".into(),
        lines: vec![
            format!("Hello {name}, someone asked on the game's page for a link to your seat."),
            "If that was not you, nothing has changed: the link reaches only this mailbox, and your older links still work.".into(),
        ],
        manage: false,
        token: token.clone(),
    });
    insert(
        &mut tx,
        NewRow {
            game_id,
            seat: Some(seat),
            event: format!("lost:{}", event_tag(&token)),
            to: &to,
            to_name: &name,
            notice,
            digest: false,
        },
    )
    .await?;
    announce(&mut tx).await?;
    tx.commit().await?;
    Ok(crate::domain::masked(to.as_str()))
}
