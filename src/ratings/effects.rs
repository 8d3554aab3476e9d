//! Ratings in the store's transactions: when a club game's last entry is appended, its
//! players' ratings, counts and histories are written in that same transaction, or nothing is
//! if the game is not one to rate.

use super::ranking::{self, Ranking};
use super::system::{self, NEWCOMER, Skill};
use crate::engine::Seat;
use crate::store::clubs::ratings::{self as stored, RatingChange, SeatPlay};
use crate::store::game::effects::{Appended, Creation, EffectError, Effects};
use crate::store::game::plan::MovePlan;
use futures_util::future::BoxFuture;
use sqlx::PgConnection;

/// Rates club games as they end, plugged into the store.
pub struct RatingEffects;

/// Why a finished game is not rated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unrated {
    /// The organiser (or the club's closing) cancelled it: it has no result.
    #[error("cancelled")]
    Cancelled,
    /// It belongs to no club.
    #[error("not a club game")]
    NoClub,
    /// Its kind has no ranking rule.
    #[error("its game is not rated")]
    KindNotRated,
    /// A seat is held by no person's account: an unclaimed link, or a bot (a bot seat holds
    /// no account, so a game with one is never rated).
    #[error("seat {0} is held by no member's account")]
    NoAccount(Seat),
    /// One account holds two seats: it would play against itself.
    #[error("one account holds seats {0} and {1}")]
    SameAccount(Seat, Seat),
    /// A seat never made a move of its own (an abandoned seat).
    #[error("seat {0} never moved")]
    NeverMoved(Seat),
}

/// Whether a finished game with these seats is rated: every seat held by an account of its
/// own, and every seat moved at least once. (`store::ratings::rating_facts` repeats this rule
/// in SQL, so that no rating row is made for a game that is not rated.)
pub fn check_seats(seats: &[SeatPlay]) -> Result<Vec<i64>, Unrated> {
    let mut accounts = Vec::with_capacity(seats.len());
    for play in seats {
        let account = play.account_id.ok_or(Unrated::NoAccount(play.seat))?;
        if let Some(other) = seats[..accounts.len()]
            .iter()
            .find(|p| p.account_id == Some(account))
        {
            return Err(Unrated::SameAccount(other.seat, play.seat));
        }
        if !play.moved() {
            return Err(Unrated::NeverMoved(play.seat));
        }
        accounts.push(account);
    }
    Ok(accounts)
}

impl Effects for RatingEffects {
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
            if entry.game.outcome().is_none() {
                return Ok(());
            }
            match rate(tx, entry).await? {
                Ok(()) => {}
                Err(Unrated::NoClub) => {}
                Err(why) => tracing::info!(game = entry.row.id, %why, "club game not rated"),
            }
            Ok(())
        })
    }
}

/// Rates the game `entry` ended, or says why not.
async fn rate(
    tx: &mut PgConnection,
    entry: &Appended<'_>,
) -> Result<Result<(), Unrated>, sqlx::Error> {
    let Some(club_id) = entry.row.club_id else {
        return Ok(Err(Unrated::NoClub));
    };
    if entry.by_organiser() {
        return Ok(Err(Unrated::Cancelled));
    }
    let Some(ranking) = ranking::of_match(entry.game) else {
        return Ok(Err(Unrated::KindNotRated));
    };
    let game_id = entry.row.id;
    let kind = entry.game.game_id();
    let start = (NEWCOMER.mu, NEWCOMER.sigma, NEWCOMER.shown());
    let seats = stored::rating_facts(tx, club_id, game_id, kind, start, entry.at).await?;
    let accounts = match check_seats(&seats) {
        Ok(accounts) => accounts,
        Err(why) => return Ok(Err(why)),
    };
    let mut skills = Vec::with_capacity(seats.len());
    for play in &seats {
        let Some((mu, sigma)) = play.skill else {
            tracing::error!(
                game = game_id,
                seat = play.seat,
                "a rated seat's rating was not read"
            );
            return Ok(Err(Unrated::NoAccount(play.seat)));
        };
        skills.push(Skill { mu, sigma });
    }
    let changes = changes(&ranking, &seats, &accounts, |seat| skills[seat]);
    stored::save_changes(tx, club_id, kind, game_id, &changes, entry.at).await?;
    tracing::info!(game = game_id, club = club_id, kind, "club game rated");
    Ok(Ok(()))
}

/// Each player's change by a game ranked `ranking`, from their skills before it.
fn changes(
    ranking: &Ranking,
    seats: &[SeatPlay],
    accounts: &[i64],
    skill_of: impl Fn(Seat) -> Skill,
) -> Vec<RatingChange> {
    let before: Vec<(Vec<Skill>, usize)> = ranking
        .sides
        .iter()
        .map(|side| {
            (
                side.seats.iter().map(|&s| skill_of(s)).collect(),
                side.place,
            )
        })
        .collect();
    let after = system::update(&before);
    let mut changes = Vec::with_capacity(seats.len());
    for (i, side) in ranking.sides.iter().enumerate() {
        for (j, &seat) in side.seats.iter().enumerate() {
            let (old, new) = (before[i].0[j], after[i][j]);
            let play = &seats[seat];
            changes.push(RatingChange {
                account_id: accounts[seat],
                seat,
                place: side.place,
                result: ranking.result(side),
                before: (old.mu, old.sigma, old.shown()),
                after: (new.mu, new.sigma, new.shown()),
                moves_on_time: play.on_time,
                moves: play.on_time + play.late,
            });
        }
    }
    changes.sort_by_key(|c| c.seat);
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(seat: Seat, account: Option<i64>, on_time: i64, late: i64) -> SeatPlay {
        SeatPlay {
            seat,
            account_id: account,
            on_time,
            late,
            skill: None,
        }
    }

    #[test]
    fn which_seats_are_rated() {
        let good = [play(0, Some(7), 3, 0), play(1, Some(9), 2, 1)];
        assert_eq!(check_seats(&good), Ok(vec![7, 9]));
        let bot = [play(0, Some(7), 3, 0), play(1, None, 2, 0)];
        assert_eq!(check_seats(&bot), Err(Unrated::NoAccount(1)));
        let twice = [play(0, Some(7), 3, 0), play(1, Some(7), 2, 0)];
        assert_eq!(check_seats(&twice), Err(Unrated::SameAccount(0, 1)));
        // Only the clock ever moved for seat 1.
        let idle = [play(0, Some(7), 3, 0), play(1, Some(9), 0, 2)];
        assert_eq!(check_seats(&idle), Err(Unrated::NeverMoved(1)));
    }

    #[test]
    fn a_forfeit_is_a_loss_and_its_timeout_a_late_move() {
        let ranking = ranking::rank(
            "nationhood",
            2,
            &crate::engine::Outcome {
                winners: vec![0],
                scores: vec![0, 0],
                reason: String::new(),
            },
            |_| Vec::new(),
        )
        .unwrap();
        let seats = [play(0, Some(7), 4, 0), play(1, Some(9), 3, 1)];
        let changes = changes(&ranking, &seats, &[7, 9], |_| NEWCOMER);
        assert_eq!(changes[1].result, crate::store::GameResult::Loss);
        assert!(changes[1].after.0 < NEWCOMER.mu);
        assert_eq!((changes[1].moves_on_time, changes[1].moves), (3, 4));
        assert_eq!(changes[0].result, crate::store::GameResult::Win);
    }
}
