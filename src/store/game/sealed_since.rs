//! A move named for an older head that nothing since has changed for its seat.
//!
//! In a simultaneous step (Electoral College Combat's Russian Collusion signs, Statehood's
//! answers to Puerto Rico) several seats choose at once, sealed. A player who opened the page
//! before the other sealed, and sends their choice after, names a head that has passed; what
//! they were shown is still all they may know, and their choice means the same. Such a move is
//! taken at the current head instead of being refused as "the game moved on" (docs/MOVE.md,
//! "A head that passed while others sealed").

use crate::engine::record::Mark;
use crate::engine::{Log, Seat};
use crate::store::game::loading::{apply_entry, commands_on};
use crate::store::{Loaded, Store, StoreError};
use sqlx::PgConnection;

/// At most this many entries may lie between the head a move names and the game's head for
/// the move to be taken there: one per other seat of the largest game, with room for the
/// moves settled for them.
const MAX_SEALED_BETWEEN: i64 = 16;

impl Store {
    /// Whether every entry after `since` up to `loaded`'s head was another seat's sealed
    /// choice, made while `seat` was awaited (before and after it), leaving `seat` the choices
    /// it had at `since`: so `seat` decides now on exactly what it was shown then. Replays the
    /// game from its start (a move on a passed head is rare; the cache holds only the head).
    pub(in crate::store) async fn only_sealed_since(
        &self,
        conn: &mut PgConnection,
        loaded: &Loaded,
        seat: Seat,
        since: i64,
    ) -> Result<bool, StoreError> {
        let head = loaded.row.head_seq;
        if since < 0 || since >= head || head - since > MAX_SEALED_BETWEEN {
            return Ok(false);
        }
        // What the loaded game already tells, before any replay: the mover is awaited now and
        // made none of the entries since.
        let others_only = loaded
            .log
            .iter()
            .filter(|(seq, _, _)| *seq > since)
            .all(|&(_, by, _)| by != seat);
        if !others_only || !loaded.game.active().contains(&seat) {
            return Ok(false);
        }
        let id = loaded.row.id;
        let corrupt = |seq: i64, e: String| StoreError::Corrupt {
            game: id,
            reason: format!("command {seq}: {e}"),
        };
        let mut game = self.start(&loaded.row)?;
        let mut lines = Log::silent();
        let mut choices = None;
        for entry in commands_on(&mut *conn, id, 0).await? {
            if entry.seq > head {
                break;
            }
            if entry.seq > since {
                let awaited = choices.get_or_insert_with(|| {
                    game.active().contains(&seat).then(|| game.choices(seat))
                });
                if awaited.is_none()
                    || entry.seat == seat
                    || matches!(entry.mark, Some(Mark::Undo | Mark::Organiser))
                    || game.redacted(entry.seat, &entry.command).is_none()
                {
                    return Ok(false);
                }
            }
            apply_entry(game.as_mut(), &entry, &mut lines)
                .map_err(|e| corrupt(entry.seq, e.to_string()))?;
            if entry.seq > since && !game.active().contains(&seat) {
                return Ok(false);
            }
        }
        Ok(choices
            .flatten()
            .is_some_and(|then| then == loaded.game.choices(seat)))
    }
}
