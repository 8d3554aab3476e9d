//! Turn and game-over news: after each entry, a your-turn notice for each seat that *becomes*
//! active (with its position and reply lines), or game-over mail to every seat once the game
//! ends; and the same news to the seats' chat webhooks ([`crate::notices::chat`]).

use crate::engine::log::render;
use crate::engine::record::Mark;
use crate::engine::{DynMatch, Seat, Viewer};
use crate::notices::notice::{Ask, GameRef, Notice, Over, Turn};
use crate::notices::outbox::{NewRow, announce, insert, mail_seats, mint_link, player};
use crate::notices::reply::{address, reply_lines};
use crate::store::LogEntry;
use crate::store::game::effects::Appended;
use sqlx::PgConnection;

/// At most this many log lines go into a your-turn notice (the latest ones).
const MAX_LINES: usize = 60;

/// The position and replies of `seat` in `game` (at log head `seq`), players' names filled
/// in, with a fresh reply secret bound to them when the seat has something to decide.
pub async fn ask(
    tx: &mut PgConnection,
    game_id: i64,
    game: &dyn DynMatch,
    (seat, seq): (Seat, i64),
    names: &[String],
) -> Result<Ask, sqlx::Error> {
    let choices = if game.active().contains(&seat) {
        game.choices(seat)
    } else {
        Vec::new()
    };
    let reply = if choices.is_empty() {
        None
    } else {
        Some(address::mint(tx, game_id, seat, seq, &choices).await?)
    };
    let given: Vec<String> =
        sqlx::query_scalar("SELECT order_id FROM standing_orders WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_all(&mut *tx)
            .await?;
    Ok(ask_with(game, seat, names, reply, &given))
}

/// The position and replies of `seat` in `game`, with the reply secret `reply` (minted for
/// the seat's choices, if it has any) and the standing orders it has `given`.
pub fn ask_with(
    game: &dyn DynMatch,
    seat: Seat,
    names: &[String],
    reply: Option<String>,
    given: &[String],
) -> Ask {
    let choices = if game.active().contains(&seat) {
        game.choices(seat)
    } else {
        Vec::new()
    };
    let standing = if game.outcome().is_some() {
        Vec::new()
    } else {
        game.standing_orders()
            .iter()
            .filter(|o| o.seat.is_none_or(|s| s == seat))
            .map(|o| {
                let now = if given.iter().any(|g| g == o.id) {
                    " (standing now)"
                } else {
                    ""
                };
                format!("{}: {}{now}", o.id, o.label)
            })
            .collect()
    };
    Ask {
        standing,
        undo: game.can_undo(seat),
        board: game.position(Viewer::Seat(seat), names),
        replies: reply_lines(&choices),
        reply,
    }
}

/// The seats that must act now and did not before the command: they get a notice.
pub fn newly_active(before: &[Seat], after: &[Seat]) -> Vec<Seat> {
    after
        .iter()
        .copied()
        .filter(|s| !before.contains(s))
        .collect()
}

/// The public lines since a seat's last command (all of them if it never moved), names
/// filled in, at most the last `MAX_LINES`.
pub fn lines_since(log: &[LogEntry], seat: Seat, names: &[String]) -> Vec<String> {
    let start = log
        .iter()
        .rposition(|(_, who, _)| *who == seat)
        .map_or(0, |i| i + 1);
    let lines: Vec<String> = log[start..]
        .iter()
        .flat_map(|(_, _, lines)| lines.iter().map(|l| render(l, names)))
        .collect();
    let skip = lines.len().saturating_sub(MAX_LINES);
    lines.into_iter().skip(skip).collect()
}

/// The seats an entry puts a new decision to: those that became active (the seats awaited
/// before it → the match's active seats now), and a seat played for (its only move, its
/// standing order) that is still to move, which was never asked about where it is now; but
/// not a seat the next entry of the same transaction plays for.
pub fn turns_to_tell(entry: &Appended<'_>) -> Vec<Seat> {
    let active = entry.game.active();
    let mut newly = newly_active(entry.before, &active);
    if entry.by.is_some_and(Mark::is_seats_own) && active.contains(&entry.seat) {
        newly.push(entry.seat);
    }
    newly.retain(|&seat| Some(seat) != entry.played_next);
    newly
}

/// What an entry's transaction queues: a your-turn notice for each seat of
/// [`turns_to_tell`], or game-over mail to every seat once it ends (saying so, without scores,
/// when the organiser cancelled it); and the same news to the webhooks of the seats' accounts
/// ([`crate::notices::webhook`]), whatever the seats' mail preferences.
pub async fn enqueue_after_move(
    tx: &mut PgConnection,
    entry: &Appended<'_>,
) -> Result<(), sqlx::Error> {
    let (row, seq, game, log) = (entry.row, entry.seq, entry.game, entry.log);
    let cancelled = entry.by_organiser();
    let game_id = row.id;
    let outcome = game.outcome();
    let newly = turns_to_tell(entry);
    if outcome.is_none() && newly.is_empty() {
        return Ok(());
    }
    crate::notices::chat::enqueue_after_move(tx, entry, &newly).await?;
    let seats = mail_seats(tx, game_id).await?;
    if seats.iter().all(|s| s.email.is_none() || s.pref == "off") {
        return Ok(());
    }
    let Some(kind) = crate::games::find_game(game.game_id()) else {
        return Ok(());
    };
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let ending = game.ending(&names);
    let game_ref = GameRef {
        home: None,
        id: game_id,
        name: kind.name().to_string(),
    };
    let count = seats.len();
    let mut queued = false;
    for seat in &seats {
        let Some(to) = &seat.email else { continue };
        if seat.pref == "off" {
            continue;
        }
        let (event, notice, digest) = if let Some(outcome) = &outcome {
            let notice = Notice::Over(Over {
                answered: Vec::new(),
                game: game_ref.clone(),
                you: player(kind, seat, count),
                result: render(&outcome.reason, &names),
                verdict: ending
                    .as_ref()
                    .map(|e| e.verdict.clone())
                    .unwrap_or_default(),
                tally: match &ending {
                    Some(e) if !cancelled => e.tally.clone(),
                    _ => Vec::new(),
                },
                cancelled,
                winners: outcome
                    .winners
                    .iter()
                    .filter_map(|w| names.get(*w).cloned())
                    .collect(),
                lines: lines_since(log, seat.seat, &names),
                seed: row.seed.to_hex(),
                commitment: row.commitment.clone(),
                review: None,
            });
            ("over".to_string(), notice, false)
        } else if newly.contains(&seat.seat) {
            let token = mint_link(tx, game_id, seat.seat).await?;
            let ask = ask(tx, game_id, game, (seat.seat, seq), &names).await?;
            let notice = Notice::Turn(Turn {
                answered: Vec::new(),
                game: game_ref.clone(),
                you: player(kind, seat, count),
                lines: lines_since(log, seat.seat, &names),
                choices: game
                    .choices(seat.seat)
                    .into_iter()
                    .map(|c| c.label.into_owned())
                    .collect(),
                deadline: sqlx::query_scalar(
                    "SELECT due_at FROM seat_clocks WHERE game_id = $1 AND seat = $2",
                )
                .bind(game_id)
                .bind(seat.seat as i32)
                .fetch_optional(&mut *tx)
                .await?
                .flatten(),
                token,
                ask,
                messages: crate::notices::thread::unsent(tx, game_id, seat.seat).await?,
            });
            (format!("turn:{seq}"), notice, seat.pref == "digest")
        } else {
            continue;
        };
        insert(
            tx,
            NewRow {
                game_id,
                seat: Some(seat.seat),
                event,
                to,
                to_name: &seat.name,
                notice,
                digest,
            },
        )
        .await?;
        queued = true;
    }
    if queued {
        announce(tx).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_seats_that_become_active_are_notified() {
        assert_eq!(newly_active(&[0], &[1]), vec![1]);
        assert_eq!(newly_active(&[0, 1], &[1]), Vec::<Seat>::new());
        assert_eq!(newly_active(&[1], &[1, 2]), vec![2]);
        assert_eq!(newly_active(&[2], &[2]), Vec::<Seat>::new());
    }

    #[test]
    fn lines_since_the_seats_last_move() {
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        let log: Vec<LogEntry> = vec![
            (1, 0, ["{s0} bids".to_string()].into()),
            (
                2,
                1,
                ["{s1} passes".to_string(), "{s1} sighs".to_string()].into(),
            ),
            (3, 0, ["{s0} leads".to_string()].into()),
            (4, 1, ["{s1} follows".to_string()].into()),
        ];
        assert_eq!(lines_since(&log, 0, &names), vec!["Bo follows"]);
        assert_eq!(lines_since(&log, 1, &names), Vec::<String>::new());
        assert_eq!(lines_since(&log[..3], 1, &names), vec!["Ann leads"]);
        assert_eq!(lines_since(&log[..1], 1, &names), vec!["Ann bids"]);
    }
}
