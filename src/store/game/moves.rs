//! The ways a game's log grows: a seat's move or undo, the clock's move or forfeit, the
//! organiser's cancellation. Each is one transaction (`append.rs`).

use crate::engine::{RuleError, Seat};
use crate::store::game::append::{Mover, Play};
use crate::store::game::effects::AfterAppend;
use crate::store::{CancelReason, Store, SubmitError};
use serde_json::Value;

impl Store {
    /// Applies a command for a seat and appends it, in one transaction that names the seq it
    /// expects: of two writers of the same seq exactly one wins, the other gets `Conflict`.
    pub async fn submit(
        &self,
        id: i64,
        seat: Seat,
        command: &Value,
        expected_head: Option<i64>,
    ) -> Result<i64, SubmitError> {
        self.append(
            id,
            Mover::Seat(seat),
            Play::Seat(command),
            expected_head,
            None,
        )
        .await
    }

    /// [`Store::submit`] for whoever `mover` is: with [`Mover::Holder`], the seat a token
    /// opens is found in the move's own read ([`SubmitError::NotHolder`] when it opens none
    /// of this game).
    pub async fn submit_as(
        &self,
        id: i64,
        mover: Mover<'_>,
        command: &Value,
        expected_head: Option<i64>,
    ) -> Result<i64, SubmitError> {
        self.append(id, mover, Play::Seat(command), expected_head, None)
            .await
    }

    /// [`Store::undo`] for whoever `mover` is, as [`Store::submit_as`].
    pub async fn undo_as(
        &self,
        id: i64,
        mover: Mover<'_>,
        expected_head: Option<i64>,
    ) -> Result<i64, SubmitError> {
        self.append(id, mover, Play::Undo, expected_head, None)
            .await
    }

    /// [`Store::submit`], with `after` writing its own rows in the move's transaction (after
    /// the effects every move has).
    pub async fn submit_with(
        &self,
        id: i64,
        seat: Seat,
        command: &Value,
        expected_head: Option<i64>,
        after: &dyn AfterAppend,
    ) -> Result<i64, SubmitError> {
        self.append(
            id,
            Mover::Seat(seat),
            Play::Seat(command),
            expected_head,
            Some(after),
        )
        .await
    }

    /// `seat` takes back its last command (see [`crate::engine::Match::undo`]): an entry
    /// marked `undo` in the hash chain, refused with a reason when the rules allow no undo
    /// now. Like a move, it names the head it expects.
    pub async fn undo(
        &self,
        id: i64,
        seat: Seat,
        expected_head: Option<i64>,
    ) -> Result<i64, SubmitError> {
        self.append(id, Mover::Seat(seat), Play::Undo, expected_head, None)
            .await
    }

    /// [`Store::undo`], with `after` writing its own rows in the undo's transaction.
    pub async fn undo_with(
        &self,
        id: i64,
        seat: Seat,
        expected_head: Option<i64>,
        after: &dyn AfterAppend,
    ) -> Result<i64, SubmitError> {
        self.append(
            id,
            Mover::Seat(seat),
            Play::Undo,
            expected_head,
            Some(after),
        )
        .await
    }

    /// The clock plays the game's timeout move for `seat` at the game's current position (the
    /// clock's effect refuses it unless the seat's deadline has passed).
    pub async fn play_for_clock(&self, id: i64, seat: Seat) -> Result<i64, SubmitError> {
        let loaded = self.load(id).await?;
        if !loaded.game.active().contains(&seat) {
            return Err(SubmitError::Rule(RuleError::NotYourTurn));
        }
        let command = loaded.game.on_timeout(seat);
        self.append(
            id,
            Mover::Seat(seat),
            Play::ClockMove(&command),
            Some(loaded.row.head_seq),
            None,
        )
        .await
    }

    /// The clock ends the game: `seat` forfeits (the clock's effect refuses it unless the
    /// seat's deadline has passed).
    pub async fn forfeit(&self, id: i64, seat: Seat) -> Result<i64, SubmitError> {
        self.append(id, Mover::Seat(seat), Play::Forfeit, None, None)
            .await
    }

    /// The organiser ends the game unfinished for `reason`: an entry marked `"by":
    /// "organiser"` in the hash chain, nobody wins, the seed is revealed as for any finished
    /// game, and the effects tell every player. Refused once the game is over.
    pub async fn cancel(&self, id: i64, reason: &CancelReason) -> Result<i64, SubmitError> {
        self.append(
            id,
            Mover::Seat(0),
            Play::Cancel(reason.as_str()),
            None,
            None,
        )
        .await
    }
}
