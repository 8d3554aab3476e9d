//! A league game's end, written in its last entry's transaction: the result the league's table
//! reads (the places, or the seat whose time ran out, or none for a cancellation), and a flag
//! for the scheduler's pass, which opens the next round or finishes the league
//! (`store::league_life`).

use crate::engine::record::{Ending, ending};
use crate::leagues::Finish;
use crate::store::clubs::league_life::{league_of_game, record_league_game_end};
use crate::store::game::effects::{Appended, Creation, EffectError, Effects};
use crate::store::game::plan::MovePlan;
use futures_util::future::BoxFuture;
use sqlx::PgConnection;

/// Records league games' ends, plugged into the store.
pub struct LeagueEffects;

impl Effects for LeagueEffects {
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
            let Some(outcome) = entry.game.outcome() else {
                return Ok(());
            };
            let game_id = entry.row.id;
            let Some((league, format)) = league_of_game(tx, game_id).await? else {
                return Ok(());
            };
            let finish = if entry.by_organiser() {
                None
            } else if entry.by_clock() && forfeited(tx, game_id, entry.seq).await? {
                Some(Finish::TimedOut(entry.seat))
            } else {
                Some(Finish::from_outcome(&outcome, format))
            };
            record_league_game_end(tx, league, game_id, finish.as_ref(), entry.at).await?;
            Ok(())
        })
    }
}

/// Whether the clock's entry `seq` is a forfeit (rather than a timeout move that happened to
/// end the game).
async fn forfeited(tx: &mut PgConnection, game_id: i64, seq: i64) -> Result<bool, sqlx::Error> {
    let command: serde_json::Value =
        sqlx::query_scalar("SELECT command FROM commands WHERE game_id = $1 AND seq = $2")
            .bind(game_id)
            .bind(seq)
            .fetch_one(&mut *tx)
            .await?;
    Ok(matches!(
        ending(Some(crate::engine::record::BY_CLOCK), &command),
        Ok(Some(Ending::Forfeit))
    ))
}
