//! The mail to the address a seat was taken from (DESIGN.md "Seats change hands in the open"):
//! who changed the seat's hands and when, where the seat now goes (masked), and the link that
//! lets the reader tell the other players or, after an address change, take the seat back.

use crate::domain::{EmailAddress, masked};
use crate::notices::notice::{GameRef, Notice, SeatChangeNotice};
use crate::notices::outbox::{NewRow, announce, event_tag, insert};
use crate::store::{ChangeKind, SeatChangeNews};
use sqlx::PgConnection;

fn when(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.format("%A %-d %B %Y, %H:%M UTC").to_string()
}

/// The headline and the sentences of the mail for `news`.
fn words(news: &SeatChangeNews<'_>, game: &str) -> (String, Vec<String>) {
    let change = news.change;
    let (by, at, name) = (change.by.words(), when(&change.at), news.seat_name);
    let (headline, what) = match change.kind {
        ChangeKind::Address | ChangeKind::Reclaimed => (
            "your seat now goes to another address".to_string(),
            match (change.kind, news.new_address) {
                (ChangeKind::Reclaimed, _) => format!(
                    "Hello {name}: your seat in {game} was taken back on {at} by the address it had \
                     before it was given yours."
                ),
                (_, Some(new)) => format!(
                    "Hello {name}: on {at}, {by} gave your seat in {game} a new address, {}: the \
                     seat now goes there.",
                    masked(new)
                ),
                _ => format!("Hello {name}: on {at}, {by} gave your seat in {game} a new address."),
            },
        ),
        ChangeKind::Relink | ChangeKind::Handover => (
            "your seat has new keys".to_string(),
            format!(
                "Hello {name}: on {at}, {by} gave your seat in {game} new keys: your account no \
                 longer holds it."
            ),
        ),
        ChangeKind::TakenUp => (
            "your seat was taken up by its handover link".to_string(),
            format!(
                "Hello {name}: on {at}, your seat in {game} was taken up by its handover link: \
                 your account no longer holds it."
            ),
        ),
        ChangeKind::Released | ChangeKind::Left => (
            "your account no longer holds your seat".to_string(),
            format!(
                "Hello {name}: on {at}, {by} released your account's claim on your seat in \
                 {game}: the links made for your devices no longer open it (the seat's own \
                 link, if you have it, still does)."
            ),
        ),
    };
    let mut lines = vec![
        what,
        "Every player of the game sees this change on their page, with who made it and when."
            .to_string(),
    ];
    lines.push(match news.reclaim_until {
        Some(until) => format!(
            "If you did not ask for this, you can take the seat back until {} and tell the other \
             players, from the link below.",
            when(&until)
        ),
        None => {
            "If you did not ask for this, tell the other players from the link below.".to_string()
        }
    });
    (headline, lines)
}

/// Queues the mail for `news` to the address the seat was taken from.
pub async fn enqueue_seat_change(
    tx: &mut PgConnection,
    news: &SeatChangeNews<'_>,
) -> Result<(), sqlx::Error> {
    let Ok(to) = EmailAddress::parse(news.previous) else {
        return Ok(());
    };
    let kind: String = sqlx::query_scalar("SELECT kind FROM games WHERE id = $1")
        .bind(news.game_id)
        .fetch_one(&mut *tx)
        .await?;
    let name = crate::games::find_game(&kind).map_or(kind.clone(), |g| g.name().to_string());
    let game = GameRef {
        home: None,
        id: news.game_id,
        name,
    };
    let (headline, lines) = words(news, &game.title());
    let notice = Notice::SeatChange(SeatChangeNotice {
        game,
        headline,
        lines,
        token: news.token.to_string(),
    });
    insert(
        tx,
        NewRow {
            game_id: news.game_id,
            seat: None,
            event: format!("seat-change:{}", event_tag(news.token)),
            to: &to,
            to_name: news.seat_name,
            notice,
            digest: false,
        },
    )
    .await?;
    announce(tx).await
}
