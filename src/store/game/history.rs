//! A game's history step by step, replayed from its stored record: what the whole log, the
//! replay viewer and the score table are drawn from.

use crate::engine::record::Mark;
use crate::engine::{DynMatch, Log, Seat, Standing};
use crate::store::game::loading::apply_entry;
use crate::store::{GameRow, Store, StoreError};
use chrono::{DateTime, Utc};

/// One step of a game: the setup (seq 0) or a stored command, with what it did.
pub struct Step {
    /// The command's number; 0 for the setup.
    pub seq: i64,
    /// Who moved (seat 0 for the setup).
    pub seat: Seat,
    /// When it was accepted; the game's creation for the setup.
    pub at: DateTime<Utc>,
    /// Who made it when not the seat by its own hand.
    pub mark: Option<Mark>,
    /// Its public log lines, with seat placeholders.
    pub lines: Vec<String>,
    /// Where the game stood after it.
    pub standing: Option<Standing>,
}

/// A game replayed from its start to a chosen move.
pub struct History {
    /// The game's row.
    pub row: GameRow,
    /// The state after the last step.
    pub game: Box<dyn DynMatch>,
    /// Every step from the setup on.
    pub steps: Vec<Step>,
}

impl Store {
    /// Replays game `id` from its seed up to move `upto` (its head when `None`), keeping every
    /// step's log lines, time and standing.
    pub async fn history(&self, id: i64, upto: Option<i64>) -> Result<History, StoreError> {
        let row = self.game(id).await?.ok_or(StoreError::NotFound)?;
        let upto = upto.unwrap_or(row.head_seq).clamp(0, row.head_seq);
        let mut game = self.start(&row)?;
        let mut steps = vec![Step {
            seq: 0,
            seat: 0,
            at: row.created_at,
            mark: None,
            lines: game.opening(),
            standing: game.standing(),
        }];
        let mut recorder = Log::recording();
        for entry in self.commands(id, 0).await? {
            if entry.seq > upto {
                break;
            }
            apply_entry(game.as_mut(), &entry, &mut recorder).map_err(|e| StoreError::Corrupt {
                game: id,
                reason: format!("command {}: {e}", entry.seq),
            })?;
            steps.push(Step {
                seq: entry.seq,
                seat: entry.seat,
                at: entry.created_at,
                mark: entry.mark,
                lines: recorder.take(),
                standing: game.standing(),
            });
        }
        Ok(History { row, game, steps })
    }
}
