//! Mail about a lobby table, which is no game yet (its outbox rows belong to none): the
//! invitation to a held seat, and the word that the table expired or was cancelled.

use crate::notices::notice::{Notice, TableNotice};
use crate::notices::outbox::announce;
use crate::store::game::effects::{TableEvent, TableNews};
use sqlx::PgConnection;

/// Queues the notice of `news` for its reader.
pub async fn enqueue_table_news(
    tx: &mut PgConnection,
    news: &TableNews<'_>,
) -> Result<(), sqlx::Error> {
    let (event, headline, lines, token) = match &news.event {
        TableEvent::Invited {
            token,
            by,
            time_control,
        } => (
            format!("table:{}:invite:{}", news.table_id, crate::notices::outbox::event_tag(token)),
            format!("{by} invites you to play"),
            vec![
                format!(
                    "{by} invites you to a game of {} and keeps a seat for you.",
                    news.game_name
                ),
                format!("Time to move: {time_control}."),
                "The link below shows the table; to take the seat, sign in with this address from there (a sign-in link is mailed here; an account is made for it if you have none): no password.".into(),
            ],
            Some(token.clone()),
        ),
        TableEvent::Expired => (
            format!("table:{}:expired", news.table_id),
            "the table expired".to_string(),
            vec![format!(
                "The table for a game of {} waited its time without finding enough players, and has expired. Nobody can join it any more; no game was started.",
                news.game_name
            )],
            None,
        ),
        TableEvent::Cancelled => (
            format!("table:{}:cancelled", news.table_id),
            "the table was cancelled".to_string(),
            vec![format!(
                "The creator of the table for a game of {} cancelled it before it filled up; no game was started.",
                news.game_name
            )],
            None,
        ),
    };
    let notice = Notice::Table(TableNotice {
        table_id: news.table_id,
        game_name: news.game_name.to_string(),
        headline,
        lines,
        token,
    });
    sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, digest) \
         VALUES (NULL, NULL, $1, $2, $3, $4, $5, false)",
    )
    .bind(&event)
    .bind(notice.kind())
    .bind(news.to.as_str())
    .bind(news.to_name)
    .bind(serde_json::to_value(&notice).expect("notices serialize"))
    .execute(&mut *tx)
    .await?;
    announce(tx).await
}
