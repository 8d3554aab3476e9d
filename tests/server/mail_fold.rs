//! Fewer mails, nothing lost (issue 48, item 4), through the real `postplay receive` and SMTP:
//! a played reply's answer, when nothing new is asked of the seat, stands at the top of its
//! next mail; a refusal comes at once; with no next mail within the wait the answer comes on
//! its own; a seat that asks for every answer gets each at once.

use crate::common;

use common::mime::header;
use common::replyrig::{Rig, email, line_for, listed, receive_by_pipe, reply, reply_address, text};
use common::wait::{PATIENCE, until};
use postplay::engine::Seat;
use postplay::notices::mail::sink::Received;
use postplay::notices::outbox::fold::ANSWER_WAIT;
use serde_json::json;

/// A reply line read as one of the seat's choices, made from the mail's words.
async fn legal_line(rig: &Rig, game: i64, seat: Seat, mail: &Received) -> String {
    let choices = rig.db.store.load(game).await.unwrap().game.choices(seat);
    let listed = listed(&text(mail));
    let mut rng = common::replyrig::rng(game as u64);
    (0..2000)
        .find_map(|i| {
            let line = line_for(&listed[i % listed.len()], i % 2 == 0, &mut rng);
            postplay::notices::reply::read(&line, &choices)
                .is_ok()
                .then_some(line)
        })
        .expect("a line the mail's words make")
}

/// Sends `line` from `seat` to the reply address of `mail` through `postplay receive`.
fn answer(rig: &Rig, seat: Seat, mail: &Received, line: &str, n: usize) {
    let to = reply_address(mail);
    let raw = reply(&format!("<fold{n}@example.org>"), &email(seat), &to, line);
    receive_by_pipe(rig, &to, raw.as_bytes(), &[]);
}

/// The first mail to `seat` after the first `before`, once it came.
async fn next_mail(rig: &Rig, seat: Seat, before: usize) -> Received {
    until(
        &format!("a new mail to seat {seat}"),
        PATIENCE,
        async || {
            let mails = rig.mails_to(seat).await;
            mails
                .get(before)
                .cloned()
                .ok_or(format!("{} mails", mails.len()))
        },
    )
    .await
}

async fn waiting(rig: &Rig, game: i64, seat: Seat) -> Vec<(i64, String, f64)> {
    sqlx::query_as(
        "SELECT id, status, extract(epoch FROM due_at - created_at)::float8 FROM outbox \
         WHERE game_id = $1 AND seat = $2 AND fold ORDER BY id",
    )
    .bind(game)
    .bind(seat as i32)
    .fetch_all(rig.db.store.pool())
    .await
    .unwrap()
}

/// Plays the seat to move by reply until a reply of `seat` is played with nothing new asked
/// of it; returns the line and the count of `seat`'s mails just after it.
async fn play_until_folded(rig: &Rig, game: i64, seat: Seat, n: &mut usize) -> (String, usize) {
    loop {
        let active = rig.db.store.load(game).await.unwrap().game.active();
        let mover = active[0];
        let mail = rig.latest_ask(mover).await;
        let line = legal_line(rig, game, mover, &mail).await;
        let head = rig.db.store.load(game).await.unwrap().row.head_seq;
        let before = rig.mails_to(mover).await.len();
        *n += 1;
        answer(rig, mover, &mail, &line, *n);
        until("the reply played", PATIENCE, async || {
            let now = rig.db.store.load(game).await.unwrap().row.head_seq;
            if now > head { Ok(()) } else { Err("not yet") }
        })
        .await;
        let still = rig.db.store.load(game).await.unwrap().game.active();
        if mover == seat && !still.contains(&seat) {
            let after = rig.mails_to(seat).await;
            assert_eq!(
                after.len(),
                before,
                "no answer on its own: {:?}",
                after.last().map(|m| header(&m.data, "Subject"))
            );
            return (line, before);
        }
        if still.contains(&mover) {
            // The seat is still to move: its answer came at once and asks again.
            let answered = next_mail(rig, mover, before).await;
            assert!(header(&answered.data, "Reply-To").is_some());
            assert!(text(&answered).contains("done: "), "{}", text(&answered));
        }
    }
}

#[actix_web::test]
async fn a_played_reply_is_answered_in_the_next_mail_and_a_refusal_at_once() {
    let rig = Rig::new().await;
    let game = rig.game("electoral-combat", json!({}), 2, 31).await;
    let first = rig.db.store.load(game).await.unwrap().game.active()[0];
    // A refusal comes at once, with the choices again.
    let ask = rig.latest_ask(first).await;
    let before = rig.mails_to(first).await.len();
    answer(&rig, first, &ask, "yes please, the usual", 0);
    let refused = next_mail(&rig, first, before).await;
    let subject = header(&refused.data, "Subject").unwrap();
    assert!(subject.ends_with(": not played"), "{subject}");
    assert!(header(&refused.data, "Reply-To").is_some());
    let mut n = 0;
    let (line, mailed) = play_until_folded(&rig, game, first, &mut n).await;
    let rows = waiting(&rig, game, first as Seat).await;
    let (_, status, wait) = rows.last().unwrap().clone();
    assert_eq!(status, "pending");
    assert!(
        (wait - ANSWER_WAIT.as_secs_f64()).abs() < 60.0,
        "the answer waits {wait} s"
    );
    // The other seat moves until the first is asked again: that one mail carries the answer.
    let other = 1 - first;
    let mut next = None;
    while next.is_none() {
        let active = rig.db.store.load(game).await.unwrap().game.active();
        if active.contains(&first) {
            next = Some(next_mail(&rig, first, mailed).await);
            break;
        }
        let mail = rig.latest_ask(other).await;
        let reply_line = legal_line(&rig, game, other, &mail).await;
        let head = rig.db.store.load(game).await.unwrap().row.head_seq;
        n += 1;
        answer(&rig, other, &mail, &reply_line, n);
        until("the other seat's reply played", PATIENCE, async || {
            let now = rig.db.store.load(game).await.unwrap().row.head_seq;
            if now > head { Ok(()) } else { Err("not yet") }
        })
        .await;
    }
    let next = next.unwrap();
    let words = text(&next);
    assert!(
        words.contains(&format!("Your reply \"{line}\" was played: ")),
        "{words}"
    );
    assert!(header(&next.data, "Reply-To").is_some(), "it asks: {words}");
    assert_eq!(rig.mails_to(first).await.len(), mailed + 1, "one mail");
    let rows = waiting(&rig, game, first as Seat).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, "folded");
    rig.stop().await;
}

#[actix_web::test]
async fn the_answer_comes_on_its_own_when_no_next_mail_follows_within_the_wait() {
    let rig = Rig::new().await;
    let game = rig.game("electoral-combat", json!({}), 2, 32).await;
    let first = rig.db.store.load(game).await.unwrap().game.active()[0];
    let mut n = 0;
    let (line, mailed) = play_until_folded(&rig, game, first, &mut n).await;
    // Nobody moves; the wait runs out (its end brought to now stands for six hours passing).
    sqlx::query(
        "UPDATE outbox SET due_at = now() WHERE game_id = $1 AND fold AND status = 'pending'",
    )
    .bind(game)
    .execute(rig.db.store.pool())
    .await
    .unwrap();
    sqlx::query("SELECT pg_notify('postplay_outbox', '')")
        .execute(rig.db.store.pool())
        .await
        .unwrap();
    let alone = next_mail(&rig, first, mailed).await;
    let subject = header(&alone.data, "Subject").unwrap();
    assert!(subject.ends_with(": done"), "{subject}");
    let words = text(&alone);
    assert!(words.contains("done: "), "{words}");
    assert!(
        words.contains(&format!("Your reply read: {line}")),
        "{words}"
    );
    let rows = waiting(&rig, game, first as Seat).await;
    assert!(rows.iter().all(|(_, s, _)| s == "sent"), "{rows:?}");
    rig.stop().await;
}

#[actix_web::test]
async fn a_seat_that_asks_for_every_answer_gets_each_at_once() {
    let rig = Rig::new().await;
    let base = common::spawn_app(&rig.db);
    let game = rig.game("electoral-combat", json!({}), 2, 33).await;
    let first = rig.db.store.load(game).await.unwrap().game.active()[0];
    let ask = rig.latest_ask(first).await;
    let token = common::mailrig::play_token(&text(&ask)).unwrap();
    let client = awc::Client::default();
    let page = client
        .get(format!("{base}/mail/unsubscribe/{token}"))
        .send()
        .await
        .unwrap()
        .body()
        .await
        .unwrap();
    let page = String::from_utf8_lossy(&page).into_owned();
    assert!(page.contains("only when they tell something"), "{page}");
    for (value, status) in [("sometimes", 400), ("every", 200)] {
        let mut res = client
            .post(format!("{base}/mail/unsubscribe/{token}"))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
            .send_body(format!("answers={value}"))
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), status, "{value}");
        let body = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
        if status == 200 {
            assert!(body.contains("every reply confirmed"), "{body}");
        }
    }
    // The reply that leaves the seat with nothing to decide is answered at once.
    for n in 0.. {
        let active = rig.db.store.load(game).await.unwrap().game.active();
        let mover = active[0];
        let mail = rig.latest_ask(mover).await;
        let line = legal_line(&rig, game, mover, &mail).await;
        let before = rig.mails_to(mover).await.len();
        let head = rig.db.store.load(game).await.unwrap().row.head_seq;
        answer(&rig, mover, &mail, &line, n);
        until("the reply played", PATIENCE, async || {
            let now = rig.db.store.load(game).await.unwrap().row.head_seq;
            if now > head { Ok(()) } else { Err("not yet") }
        })
        .await;
        if mover != first {
            continue;
        }
        let done = next_mail(&rig, mover, before).await;
        assert!(text(&done).contains("done: "), "{}", text(&done));
        let still = rig.db.store.load(game).await.unwrap().game.active();
        if !still.contains(&first) {
            assert!(header(&done.data, "Reply-To").is_none());
            break;
        }
    }
    assert!(waiting(&rig, game, first as Seat).await.is_empty());
    rig.stop().await;
}

/// Plays game `seed` until an answer waits for the first seat's next mail, then queues copies
/// of it as answers of their own, one per entry of `shifts` (seconds from the waiting answer's
/// own queueing, so a copy may be older than it), all due in one statement so that one pass of
/// the worker takes them together; checks that copy `carrier` (from 1), and no other, carries
/// the answer, and that the answer is then folded.
async fn copies_sent_together(seed: u64, shifts: &[f64], carrier: usize) {
    let rig = Rig::new().await;
    let game = rig.game("electoral-combat", json!({}), 2, seed).await;
    let seat = rig.db.store.load(game).await.unwrap().game.active()[0];
    let mut n = 0;
    let (line, mailed) = play_until_folded(&rig, game, seat, &mut n).await;
    let copied = sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, \
         created_at) \
         SELECT game_id, seat, event || ':copy' || k, kind, recipient, recipient_name, payload, \
         created_at + make_interval(secs => shift) \
         FROM outbox, unnest($3::float8[]) WITH ORDINALITY AS c(shift, k) \
         WHERE game_id = $1 AND seat = $2 AND fold AND status = 'pending'",
    )
    .bind(game)
    .bind(seat as i32)
    .bind(shifts)
    .execute(rig.db.store.pool())
    .await
    .unwrap();
    assert_eq!(copied.rows_affected() as usize, shifts.len());
    sqlx::query("SELECT pg_notify('postplay_outbox', '')")
        .execute(rig.db.store.pool())
        .await
        .unwrap();
    let mails = until("every copy sent", PATIENCE, async || {
        let mails = rig.mails_to(seat).await;
        if mails.len() >= mailed + shifts.len() {
            return Ok(mails);
        }
        let copies: Vec<(String, String, Option<String>)> = sqlx::query_as(
            "SELECT kind, status, last_error FROM outbox WHERE game_id = $1 AND event LIKE '%:copy%'",
        )
        .bind(game)
        .fetch_all(rig.db.store.pool())
        .await
        .unwrap();
        Err(format!("{} mails; the copies {copies:?}", mails.len()))
    })
    .await;
    let says = format!("Your reply \"{line}\" was played: ");
    let carrying: Vec<String> = mails[mailed..]
        .iter()
        .filter(|m| text(m).contains(&says))
        .map(|m| header(&m.data, "Message-ID").unwrap_or_default())
        .collect();
    assert_eq!(carrying.len(), 1, "the answer in one mail: {carrying:?}");
    assert!(
        carrying[0].contains(&format!(".copy{carrier}.")),
        "the answer in copy {carrier}, the seat's next mail: {carrying:?}"
    );
    let rows = waiting(&rig, game, seat as Seat).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].1, "folded");
    rig.stop().await;
}

#[actix_web::test]
async fn two_mails_sent_at_once_carry_a_waiting_answer_once() {
    copies_sent_together(34, &[1.0, 1.0], 1).await;
}

/// A refusal queued a moment before the reply was played, still unsent when two more mails to
/// the seat come: the three go out in one pass. The oldest cannot carry an answer to a reply
/// played after it was written; the next one does.
#[actix_web::test]
async fn a_mail_queued_before_the_answer_leaves_it_to_the_next_mail_sent_with_it() {
    copies_sent_together(35, &[-1.0, 1.0, 2.0], 2).await;
}
