//! The review's part in the store's transactions: the last entry of a finished game (not a
//! cancelled one) queues its review, and its game-over mail is told one is coming.

use crate::store::game::effects::{Appended, Creation, EffectError, Effects};
use crate::store::game::plan::MovePlan;
use futures_util::future::BoxFuture;
use sqlx::PgConnection;
use std::time::Duration;

/// Queues a review when a game ends; its game-over mail waits up to `mail_wait` for it
/// (`POSTPLAY_REVIEW_MAIL_WAIT_SECS`; 0: the mail goes at once and says the review will be
/// on the replay page).
pub struct ReviewEffects {
    /// How long the game-over mail waits for the review.
    pub mail_wait: Duration,
}

impl Effects for ReviewEffects {
    fn created<'a>(
        &'a self,
        _tx: &'a mut PgConnection,
        _creation: &'a Creation<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    fn plan_move(
        &self,
        _read: &serde_json::Value,
        entries: &[Appended<'_>],
        _plan: &mut MovePlan,
    ) -> Result<bool, EffectError> {
        // A game's end is written in a transaction: nothing to plan for the moves before it.
        Ok(entries.iter().all(|e| e.game.outcome().is_none()))
    }

    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        entry: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            if entry.game.outcome().is_none()
                || entry.by_organiser()
                || crate::games::find_bot(entry.game.game_id()).is_none()
            {
                return Ok(());
            }
            sqlx::query("INSERT INTO reviews (game_id) VALUES ($1) ON CONFLICT DO NOTHING")
                .bind(entry.row.id)
                .execute(&mut *tx)
                .await?;
            crate::notices::review::review_coming(tx, entry.row.id, self.mail_wait).await?;
            Ok(())
        })
    }
}
