//! The clock's part in the store's transactions: at creation it stores the settings and gives
//! every seat its clock; with every entry it ends the waits of seats that moved or are no
//! longer awaited, starts the waits of seats newly awaited, refuses a move that comes after the
//! mover's deadline, and tells every player when the clock played. The organiser's cancellation
//! ends every wait: a game that is over has no clock.

use super::waits::{self, GameClock};
use crate::domain::{ClockSettings, TimeControl};
use crate::engine::log::render;
use crate::engine::record::Mark;
use crate::notices::clock::{News, Readers, enqueue_clock};
use crate::store::game::effects::{Appended, Creation, EffectError, Effects};
use crate::store::game::plan::MovePlan;
use futures_util::future::BoxFuture;
use sqlx::PgConnection;

/// The clock, plugged into the store.
pub struct ClockEffects;

impl Effects for ClockEffects {
    fn created<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        creation: &'a Creation<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            let settings = ClockSettings::of_game(creation.settings);
            sqlx::query("UPDATE games SET clock = $2 WHERE id = $1")
                .bind(creation.id)
                .bind(serde_json::to_value(&settings).expect("settings serialize"))
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO seat_clocks (game_id, seat, bank_secs) \
                 SELECT $1, s, $3 FROM generate_series(0, $2 - 1) AS s",
            )
            .bind(creation.id)
            .bind(creation.seats.len() as i32)
            .bind(settings.first_allowance().num_seconds())
            .execute(&mut *tx)
            .await?;
            let clock = GameClock {
                settings,
                paused: false,
            };
            for seat in creation.started.active() {
                let away = waits::on_vacation(tx, &clock, creation.id, seat as i32).await?;
                waits::start(tx, &clock, creation.id, seat as i32, 0, creation.at, away).await?;
            }
            Ok(())
        })
    }

    fn move_reads(&self) -> Option<&'static str> {
        Some(super::plan::READS)
    }

    fn plan_move(
        &self,
        read: &serde_json::Value,
        entries: &[Appended<'_>],
        plan: &mut MovePlan,
    ) -> Result<bool, EffectError> {
        super::plan::plan(read, entries, plan)
    }

    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        entry: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            let game_id = entry.row.id;
            let clock = waits::game_clock(tx, game_id).await?;
            let mover = entry.seat as i32;
            if entry.by_clock() {
                let due = waits::wait(tx, game_id, mover)
                    .await?
                    .and_then(|w| w.due_at);
                if due.is_none_or(|due| due > entry.at) {
                    return Err(EffectError::Refused(
                        "the clock moves only for a seat whose time has run out".into(),
                    ));
                }
            } else if clock.settings.times_out() && matches!(entry.by, None | Some(Mark::Undo)) {
                let late = waits::wait(tx, game_id, mover)
                    .await?
                    .and_then(|w| w.due_at)
                    .filter(|due| *due <= entry.at);
                if let Some(due) = late {
                    return Err(EffectError::Refused(format!(
                        "your time ran out at {} UTC: the clock moves for you",
                        due.format("%Y-%m-%d %H:%M:%S")
                    )));
                }
            }
            let after = if entry.game.outcome().is_some() {
                Vec::new()
            } else {
                entry.game.active()
            };
            // The clock counts turns, not commands: a seat that moves and is still to move
            // goes on with the same wait (no allowance or increment per command, none for an
            // undo); it ends, with its increment, when the seat is no longer awaited.
            let turn_goes_on = entry.before.contains(&entry.seat) && after.contains(&entry.seat);
            for &seat in entry.before {
                if !after.contains(&seat) {
                    waits::finish(
                        tx,
                        &clock,
                        game_id,
                        seat as i32,
                        entry.at,
                        seat == entry.seat && !entry.by_organiser(),
                    )
                    .await?;
                }
            }
            for &seat in &after {
                if !entry.before.contains(&seat) {
                    let away = clock.paused
                        || waits::on_vacation(tx, &clock, game_id, seat as i32).await?;
                    waits::start(tx, &clock, game_id, seat as i32, entry.seq, entry.at, away)
                        .await?;
                }
            }
            if turn_goes_on && entry.by_clock() {
                // The clock plays the rest of a turn whose time ran out, one move a tick.
                waits::due_again(tx, game_id, mover, entry.at).await?;
            }
            if entry.by_clock() {
                tell_everyone(tx, entry, &clock.settings).await?;
            }
            Ok(())
        })
    }
}

/// Every player hears what the clock did, in the move's own transaction.
async fn tell_everyone(
    tx: &mut PgConnection,
    entry: &Appended<'_>,
    settings: &ClockSettings,
) -> Result<(), sqlx::Error> {
    let names: Vec<String> =
        sqlx::query_scalar("SELECT name FROM seats WHERE game_id = $1 ORDER BY seat")
            .bind(entry.row.id)
            .fetch_all(&mut *tx)
            .await?;
    let who = names.get(entry.seat).cloned().unwrap_or_default();
    let mut lines = vec![format!(
        "{who}'s time to move ran out ({}).",
        settings.describe()
    )];
    if let Some((_, _, played)) = entry.log.last() {
        lines.extend(
            played
                .iter()
                .map(|l| format!("The clock played: {}", render(l, &names))),
        );
    }
    if matches!(settings.control, TimeControl::None { .. }) {
        return Ok(());
    }
    let name = crate::games::find_game(entry.game.game_id()).map_or("", |g| g.name());
    enqueue_clock(
        tx,
        entry.row.id,
        name,
        Readers::Everyone,
        News {
            event: format!("timeout:{}", entry.seq),
            headline: &format!("{who}'s time ran out"),
            lines,
        },
    )
    .await
}
