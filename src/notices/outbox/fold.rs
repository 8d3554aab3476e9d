//! Answers folded into the next mail: the answer to a reply that was played, when it tells
//! nothing the seat's next mail will not (no refusal, not played late, nothing new asked of the
//! seat now), waits in the outbox ([`ANSWER_WAIT`]) and goes out at the top of the seat's next
//! mail of the game ("Your reply "bid 300" was played: Bid 300."); if no such mail comes within
//! the wait it goes out on its own. A seat may ask for every answer on its own
//! ([`set_every_answer`]). docs/MAIL.md, "Fewer mails".

use crate::engine::Seat;
use crate::notices::notice::{Answer, Answered, Notice};
use sqlx::{PgConnection, PgPool, Row};
use std::collections::HashMap;
use std::time::Duration;

/// How long a played reply's answer waits for the seat's next mail to carry it: long enough
/// for the other players of a lively game to move (the next question then carries it), short
/// enough that a slow game still confirms the reply the same day.
pub const ANSWER_WAIT: Duration = Duration::from_secs(6 * 3600);

/// Whether the seat wants every answer to its replies on its own (default: folded).
pub async fn every_answer(
    tx: &mut PgConnection,
    game_id: i64,
    seat: Seat,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT mail_every_answer FROM seats WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .fetch_optional(tx)
        .await
        .map(|v| v.unwrap_or(false))
}

/// Sets whether the seat gets every answer to its replies on its own; on, its answers still
/// waiting go out now.
pub async fn set_every_answer(
    pool: &PgPool,
    game_id: i64,
    seat: Seat,
    every: bool,
) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE seats SET mail_every_answer = $3 WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .bind(every)
        .execute(&mut *tx)
        .await?;
    if every {
        sqlx::query(
            "UPDATE outbox SET due_at = now() WHERE game_id = $1 AND seat = $2 AND fold \
             AND status = 'pending'",
        )
        .bind(game_id)
        .bind(seat as i32)
        .execute(&mut *tx)
        .await?;
        super::announce(&mut tx).await?;
    }
    tx.commit().await
}

/// Takes the answers waiting for the seats' next mails that the outbox rows `carriers` (mails
/// to seats of games, sent together in one pass, each one that [`can_carry`]) carry, each
/// answer by the seat's next mail: the oldest carrier to the same seat and address queued no
/// sooner than the answer (a mail queued before the reply was played does not carry its
/// answer; a later one of the same pass does). Returns, for each carrier that takes any, the
/// answers' row ids and answers, oldest first. Each is claimed for its carrier (`sending`,
/// `folded_into`) so that no other mail to the seat, sent at the same moment by another worker,
/// carries it too; it stays due no sooner than `lease` from now, so if the carrying mail never
/// goes out (a crash) it goes out on its own once the lease lapses. [`folded`] or [`released`]
/// settles the claim.
pub(super) async fn take_waiting(
    pool: &PgPool,
    carriers: &[i64],
    lease: Duration,
) -> Result<HashMap<i64, Vec<(i64, Answer)>>, sqlx::Error> {
    let rows = sqlx::query(
        "WITH carrier AS (SELECT id, game_id, seat, recipient, created_at FROM outbox \
             WHERE id = ANY($1)), \
         pick AS (SELECT w.id, (SELECT c.id FROM carrier c WHERE c.game_id = w.game_id \
                 AND c.seat = w.seat AND c.recipient = w.recipient \
                 AND c.created_at >= w.created_at ORDER BY c.created_at, c.id LIMIT 1) AS taker \
             FROM outbox w WHERE w.fold AND w.status = 'pending' AND w.webhook_id IS NULL \
             AND (w.game_id, w.seat) IN (SELECT game_id, seat FROM carrier) \
             FOR UPDATE OF w SKIP LOCKED) \
         UPDATE outbox o SET status = 'sending', folded_into = pick.taker, \
             due_at = greatest(o.due_at, now() + make_interval(secs => $2)) \
         FROM pick WHERE o.id = pick.id AND pick.taker IS NOT NULL \
         RETURNING o.id, o.folded_into, o.payload",
    )
    .bind(carriers)
    .bind(lease.as_secs_f64())
    .fetch_all(pool)
    .await?;
    let mut taken: HashMap<i64, Vec<(i64, Answer)>> = HashMap::new();
    for row in rows {
        let payload: serde_json::Value = row.try_get("payload")?;
        if let Ok(Notice::Answer(answer)) = serde_json::from_value(payload) {
            taken
                .entry(row.try_get("folded_into")?)
                .or_default()
                .push((row.try_get("id")?, answer));
        }
    }
    for answers in taken.values_mut() {
        answers.sort_by_key(|(id, _)| *id);
    }
    Ok(taken)
}

/// Whether `notice` can carry answers waiting for the seat's next mail: a your-turn,
/// game-over or answer mail ([`carry`]).
pub fn can_carry(notice: &Notice) -> bool {
    matches!(
        notice,
        Notice::Turn(_) | Notice::Over(_) | Notice::Answer(_)
    )
}

/// Puts `answers` at the top of `notice` (one that [`can_carry`] them), their log lines
/// before its own; false when the notice cannot carry them.
pub fn carry(notice: &mut Notice, answers: &[Answer]) -> bool {
    let (answered, lines) = match notice {
        Notice::Turn(n) => (&mut n.answered, &mut n.lines),
        Notice::Over(n) => (&mut n.answered, &mut n.lines),
        Notice::Answer(n) => (&mut n.answered, &mut n.lines),
        _ => return false,
    };
    let mut earlier: Vec<String> = Vec::new();
    let mut taken = Vec::new();
    for answer in answers {
        earlier = joined(&earlier, &answer.lines);
        taken.push(Answered {
            line: answer.line.clone(),
            text: answer.text.clone(),
        });
    }
    taken.append(answered);
    *answered = taken;
    *lines = joined(&earlier, lines);
    true
}

/// `earlier` then `later`, the lines both hold (the end of one, the start of the other) once.
fn joined(earlier: &[String], later: &[String]) -> Vec<String> {
    let overlap = (0..=earlier.len().min(later.len()))
        .rev()
        .find(|&k| earlier[earlier.len() - k..] == later[..k])
        .unwrap_or(0);
    earlier.iter().chain(&later[overlap..]).cloned().collect()
}

/// Records that the answers `ids`, claimed by [`take_waiting`], went out inside the mail of
/// row `into`; one whose claim lapsed meanwhile (and went out on its own) is left as it is.
pub(super) async fn folded(pool: &PgPool, ids: &[i64], into: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE outbox SET status = 'folded', sent_at = now(), \
         payload = payload - 'token' #- '{ask,reply}' \
         WHERE id = ANY($1) AND status = 'sending' AND folded_into = $2",
    )
    .bind(ids)
    .bind(into)
    .execute(pool)
    .await?;
    Ok(())
}

/// Gives back the answers `ids` that row `into` claimed ([`take_waiting`]) and did not send:
/// they wait again for the seat's next mail, or their own time.
pub(super) async fn released(pool: &PgPool, ids: &[i64], into: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE outbox SET status = 'pending', folded_into = NULL \
         WHERE id = ANY($1) AND status = 'sending' AND folded_into = $2",
    )
    .bind(ids)
    .bind(into)
    .execute(pool)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    fn answer(line: &str, lines: Vec<String>) -> Answer {
        Answer {
            game: crate::notices::notice::GameRef::new(7, "Whitehouse"),
            you: crate::notices::notice::Player {
                name: "Ann".into(),
                seat: String::new(),
            },
            line: line.into(),
            played: true,
            held: false,
            text: format!("Bid: {line}"),
            lines,
            ask: Default::default(),
            token: "t".into(),
            answered: Vec::new(),
        }
    }

    #[test]
    fn a_mail_carries_the_answers_first_and_each_line_once() {
        let mut later = answer("300", lines(&["Bo passes", "Cy bids"]));
        let mut notice = Notice::Answer(later.clone());
        let earlier = [
            answer("1", lines(&["Ann bids 1", "Bo passes"])),
            answer("2", lines(&["Ann bids 2", "Bo passes"])),
        ];
        assert!(carry(&mut notice, &earlier));
        later.answered = vec![
            Answered {
                line: "1".into(),
                text: "Bid: 1".into(),
            },
            Answered {
                line: "2".into(),
                text: "Bid: 2".into(),
            },
        ];
        later.lines = lines(&[
            "Ann bids 1",
            "Bo passes",
            "Ann bids 2",
            "Bo passes",
            "Cy bids",
        ]);
        assert_eq!(notice, Notice::Answer(later));
        let mut other = Notice::SignIn(crate::notices::notice::SignInNotice {
            address: "a@b.example".into(),
            minutes: 5,
            token: "t".into(),
        });
        assert!(!carry(&mut other, &earlier));
    }

    #[test]
    fn lines_both_hold_are_shown_once() {
        assert_eq!(
            joined(&lines(&["a", "b", "c"]), &lines(&["b", "c", "d"])),
            lines(&["a", "b", "c", "d"])
        );
        assert_eq!(joined(&lines(&["a"]), &lines(&["d"])), lines(&["a", "d"]));
        assert_eq!(joined(&[], &lines(&["d"])), lines(&["d"]));
        assert_eq!(joined(&lines(&["a"]), &[]), lines(&["a"]));
        assert_eq!(
            joined(&lines(&["x", "x"]), &lines(&["x", "x", "y"])),
            lines(&["x", "x", "y"])
        );
    }
}
