//! Mail about a club's league, which is no game (its outbox rows belong to none): the word
//! that sign-up closed with too few entrants and the league is cancelled, and the word that
//! it is over, with its winner and final table.

use crate::notices::notice::{LeagueNotice, Notice};
use crate::notices::outbox::announce;
use crate::store::game::effects::{LeagueEvent, LeagueNews};
use sqlx::PgConnection;

/// Queues the notice of `news` for its entrant.
pub async fn enqueue_league_news(
    tx: &mut PgConnection,
    news: &LeagueNews<'_>,
) -> Result<(), sqlx::Error> {
    let (event, headline, lines) = match &news.event {
        LeagueEvent::Cancelled { entrants, why } => (
            format!("league:{}:cancelled", news.league_id),
            "the league is cancelled".to_string(),
            vec![
                format!(
                    "Sign-up for the {} league {} of {} has closed with {entrants} entrant{}, and the league could not start: {why}.",
                    news.game_name,
                    news.league_name,
                    news.club_name,
                    if *entrants == 1 { "" } else { "s" }
                ),
                "It is cancelled: no game was started. The club's admins may open another.".into(),
            ],
        ),
        LeagueEvent::Finished { winner, table } => (
            format!("league:{}:finished", news.league_id),
            format!("the league is over: {winner} wins"),
            [format!(
                "Every game of the {} league {} of {} has ended. {winner} wins it. The final table:",
                news.game_name, news.league_name, news.club_name,
            )]
            .into_iter()
            .chain(table.iter().cloned())
            .collect(),
        ),
    };
    let notice = Notice::League(LeagueNotice {
        club_id: news.club_id,
        league_id: news.league_id,
        title: format!(
            "{} ({}) of {}",
            news.league_name, news.game_name, news.club_name
        ),
        headline,
        lines,
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
