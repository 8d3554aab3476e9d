//! Mail about a club, which is no game (its outbox rows belong to none): the invitation that
//! makes its reader a member.

use crate::notices::notice::{ClubNotice, Notice};
use crate::notices::outbox::announce;
use crate::store::game::effects::ClubNews;
use sqlx::PgConnection;

/// Queues the invitation of `news` for its address.
pub async fn enqueue_club_news(
    tx: &mut PgConnection,
    news: &ClubNews<'_>,
) -> Result<(), sqlx::Error> {
    let event = format!(
        "club:{}:invite:{}",
        news.club_id,
        crate::notices::outbox::event_tag(news.token)
    );
    let notice = Notice::Club(ClubNotice {
        club_id: news.club_id,
        club_name: news.club_name.to_string(),
        by: news.by.to_string(),
        days: news.days,
        token: news.token.to_string(),
    });
    sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, digest) \
         VALUES (NULL, NULL, $1, $2, $3, '', $4, false)",
    )
    .bind(&event)
    .bind(notice.kind())
    .bind(news.to.as_str())
    .bind(serde_json::to_value(&notice).expect("notices serialize"))
    .execute(&mut *tx)
    .await?;
    announce(tx).await
}
