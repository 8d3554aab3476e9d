//! Moves by replying to the mail, end to end: real PostgreSQL, the outbox worker sending over
//! SMTP to a sink, replies delivered over LMTP and SMTP on loopback and through
//! `postplay receive` on standard input. Whole games played by a bot that reads only the mail;
//! every kind of reply a person (or a machine) might send.

use crate::common;

use common::mime::header;
use common::replyrig::{
    NAMES, Rig, email, line_for, listed, receive_by_pipe, reply, reply_address, rng, text,
};
use common::wait::{PATIENCE, until};
use postplay::notices::mail::sink::Received;
use postplay::notices::reply::check::internal_names;
use postplay::replies::{InboundSettings, Outcome};
use serde_json::json;

/// The subject of the first mail to `seat` after the first `before` of them, once it came.
async fn next_answer(rig: &Rig, seat: usize, before: usize) -> Received {
    until(&format!("an answer to seat {seat}"), PATIENCE, async || {
        let mails = rig.mails_to(seat).await;
        let count = mails.len();
        mails
            .into_iter()
            .skip(before)
            .find(|m| header(&m.data, "Subject").is_some_and(|s| s.starts_with("Re:")))
            .ok_or(format!("{count} mails, none new with Re:"))
    })
    .await
}

/// The id and status of the newest reply of `game` decided, once more than `before` are.
async fn decided(rig: &Rig, game: i64, before: i64) -> (i64, String) {
    until("the reply decided", PATIENCE, async || {
        let rows: Vec<(i64, String)> = sqlx::query_as(
            "SELECT id, status FROM inbound_mail WHERE game_id = $1 \
             AND status IN ('done', 'refused') ORDER BY id DESC",
        )
        .bind(game)
        .fetch_all(rig.db.store.pool())
        .await
        .unwrap();
        if rows.len() as i64 > before {
            Ok(rows[0].clone())
        } else {
            Err(format!("{} decided", rows.len()))
        }
    })
    .await
}

async fn decided_count(rig: &Rig, game: i64) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM inbound_mail WHERE game_id = $1 AND status IN ('done', 'refused')",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap()
}

/// Whether the answer to the reply `id` waits for the seat's next mail to carry it.
async fn answer_waits(rig: &Rig, game: i64, id: i64) -> bool {
    sqlx::query_scalar("SELECT fold FROM outbox WHERE game_id = $1 AND event = $2")
        .bind(game)
        .bind(format!("answer:{id}"))
        .fetch_optional(rig.db.store.pool())
        .await
        .unwrap()
        .unwrap_or(false)
}

/// What the mail of a whole game by replies came to: every mail of each seat either asks it
/// something (it carries a reply address), or is its invitation, its game's end, or an answer
/// that tells something without asking (a refusal, a reply played late); no "done" of a reply
/// stands on its own otherwise. Returns (mails, questions, answers folded into other mails,
/// refusals that ask nothing again, answers to replies played late).
async fn mail_bound(rig: &Rig, game: i64, seats: usize) -> (usize, usize, i64, usize, usize) {
    let late: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM inbound_mail i JOIN reply_addresses r ON r.token_hash = i.reply_hash \
         WHERE i.game_id = $1 AND i.status = 'done' AND i.seq - 1 <> r.seq",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap();
    let folded: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND fold AND status = 'folded'",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap();
    let waiting: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND fold AND status = 'pending'",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap();
    assert_eq!(
        waiting, 0,
        "every answer waiting was carried by a later mail"
    );
    let (mut mails, mut questions, mut alone, mut carried, mut refusals) = (0, 0, 0, 0, 0);
    for seat in 0..seats {
        let all = rig.mails_to(seat).await;
        let mut told_only = 0;
        for mail in &all {
            let subject = header(&mail.data, "Subject").unwrap();
            carried += text(mail).matches("Your reply \"").count();
            if header(&mail.data, "Reply-To").is_some() {
                questions += 1;
            } else if subject.ends_with("done") {
                alone += 1;
            } else {
                assert!(
                    [": game over", ": you are invited", ": not played"]
                        .iter()
                        .any(|end| subject.ends_with(end)),
                    "a mail that neither asks nor tells anything new: {subject}"
                );
                told_only += usize::from(subject.ends_with(": not played"));
            }
        }
        let asked = all
            .iter()
            .filter(|m| header(&m.data, "Reply-To").is_some())
            .count();
        // Its questions, its invitation and its game's end; refusals that ask nothing again
        // and answers to replies played late tell something of their own.
        assert!(
            all.len() <= asked + 2 + told_only + late as usize,
            "seat {seat}: {} mails for {asked} questions",
            all.len()
        );
        mails += all.len();
        refusals += told_only;
    }
    assert!(
        alone as i64 <= late,
        "{alone} answers of played replies came on their own, {late} replies were played late"
    );
    assert_eq!(
        carried as i64, folded,
        "each folded answer stands at the top of a later mail"
    );
    (mails, questions, folded, refusals, alone)
}

async fn inbound_done(rig: &Rig, game: i64) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM inbound_mail WHERE game_id = $1 AND status = 'done'")
        .bind(game)
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap()
}

/// How a reply reaches the server.
#[derive(Clone, Copy, Debug)]
enum Via {
    Lmtp,
    Smtp,
    Pipe,
}

/// Delivers a reply with `line` from `seat` to `to`.
async fn send(rig: &mut Rig, via: Via, seat: usize, to: &str, line: &str) {
    let id = rig.message_id();
    let body = format!(
        "{line}\n\nOn Monday, postplay <games@pp.example> wrote:\n> it is your turn\n> 1  Pass\n\n-- \n{}\nSent from my phone",
        NAMES[seat]
    );
    let raw = reply(&id, &email(seat), to, &body);
    match via {
        Via::Lmtp | Via::Smtp => {
            let status = rig
                .deliver(matches!(via, Via::Lmtp), &email(seat), to, &raw)
                .await;
            assert!(status.starts_with("250"), "{status}");
        }
        Via::Pipe => {
            receive_by_pipe(rig, to, raw.as_bytes(), &[]);
        }
    }
}

/// Words in a refusal that mean the reader failed to read a line made from the mail (not a
/// rule of the game the mail cannot show, such as a cap on cubes or a sum of votes).
const MISREAD: &[&str] = &[
    "names none",
    "could be",
    "not one of the options",
    "not understood",
    "not a whole number",
    "not a count",
    "no choice",
    "named twice",
    "does not say",
    "fits choice",
    "says no colour",
    "is neither a state",
    "follows no state",
    "followed by no state",
    "names no state",
    "answers both",
];

/// Plays a whole game by replies only, driven by the mails that arrive: each time a seat's
/// latest mail asks it to move (at an address not yet answered), the bot answers it with a
/// line made from that mail's text, choosing at random among the choices and options listed
/// and writing them by number and codes or by their printed words, in turn. One nonsense reply
/// per game is refused and changes nothing. Ends at the game-over mail.
async fn whole_game(kind: &str, options: serde_json::Value, seats: usize, seed: u64, via: Via) {
    let started = std::time::Instant::now();
    let mut rig = Rig::new().await;
    let game = rig.game(kind, options, seats, seed).await;
    let mut rng = rng(seed);
    let mut answered: Vec<String> = Vec::new();
    let mut moves = 0;
    let mut refused = 0;
    let mut stale = 0;
    let mut nonsense_sent = false;
    let mut undone = false;
    let mut examples = 0;
    // Cubes placed by lines written from a placement's words (regions, states, colours).
    let mut placed = 0;
    loop {
        let asks = until(
            "a mail asking a seat to move, or the game over",
            PATIENCE,
            async || {
                let all = rig.settle().await;
                if all
                    .iter()
                    .any(|m| header(&m.data, "Subject").is_some_and(|s| s.ends_with(": game over")))
                {
                    return Ok(Vec::new());
                }
                let mut asks = Vec::new();
                for seat in 0..seats {
                    let latest = rig
                        .mails_to(seat)
                        .await
                        .into_iter()
                        .rev()
                        .find(|m| header(&m.data, "Reply-To").is_some());
                    if let Some(mail) = latest {
                        let to = reply_address(&mail);
                        if !answered.contains(&to) {
                            asks.push((seat, to, text(&mail)));
                        }
                    }
                }
                if asks.is_empty() {
                    Err(format!(
                        "{} mails, {} addresses answered",
                        all.len(),
                        answered.len()
                    ))
                } else {
                    Ok(asks)
                }
            },
        )
        .await;
        if asks.is_empty() {
            break;
        }
        let (seat, to, body) = asks[rng.index(asks.len())].clone();
        let choices = listed(&body);
        assert!(
            !choices.is_empty(),
            "a mail that asks lists choices:\n{body}"
        );
        if !nonsense_sent && moves >= 2 && choices.len() > 1 {
            nonsense_sent = true;
            let head_before = head(&rig, game).await;
            let before = rig.mails_to(seat).await.len();
            send(&mut rig, via, seat, &to, "yes please, the usual").await;
            let answer = text(&next_answer(&rig, seat, before).await);
            assert!(answer.contains("not played: "), "{answer}");
            assert_eq!(
                head(&rig, game).await,
                head_before,
                "a refused reply changes nothing"
            );
        }
        let mut tries = 0;
        let mut played = false;
        let mut open = choices.clone();
        loop {
            let pick = rng.index(open.len());
            let choice = &open[pick];
            let placing = choice
                .params
                .iter()
                .any(|p| common::cubes::is_placement(&p.lines));
            // Now and then the example the mail gives, as a person copies it.
            let example = choice.example.clone().filter(|_| (moves + tries) % 5 == 4);
            examples += usize::from(example.is_some());
            let by_words = example.is_none();
            let line =
                example.unwrap_or_else(|| line_for(choice, (moves + tries) % 2 == 0, &mut rng));
            let before = rig.mails_to(seat).await.len();
            let hash_before = rig.db.store.load(game).await.unwrap().game.state_hash();
            let decided_before = decided_count(&rig, game).await;
            send(&mut rig, via, seat, &to, &line).await;
            let (id, status) = decided(&rig, game, decided_before).await;
            if status == "done" && answer_waits(&rig, game, id).await {
                // Played, and nothing new asked of the seat: the answer waits for its next
                // mail.
                let now = rig.mails_to(seat).await;
                assert!(
                    now[before..]
                        .iter()
                        .all(|m| !header(&m.data, "Subject").unwrap().starts_with("Re:")),
                    "no answer on its own for a reply played and folded"
                );
                played = true;
                break;
            }
            let answer = next_answer(&rig, seat, before).await;
            let words = text(&answer);
            let subject = header(&answer.data, "Subject").unwrap();
            if subject.ends_with("done") {
                assert!(words.contains("done: "), "{words}");
                played = true;
                placed += usize::from(placing && by_words);
                let now = rig.db.store.load(game).await.unwrap();
                if !undone && now.game.can_undo(seat) {
                    undone = true;
                    take_back_by_mail(&mut rig, via, game, seat, &answer, &hash_before).await;
                }
                break;
            }
            assert!(subject.ends_with("not played"), "{subject}");
            if ["not your turn", "has moved on", "game is over"]
                .iter()
                .any(|w| words.contains(w))
            {
                // Another seat moved since this mail: a newer one asks, or none.
                stale += 1;
                break;
            }
            assert!(
                !MISREAD.iter().any(|m| words.contains(m)),
                "the reader refused a line made from the mail: {line}\n{words}\n--- the mail:\n{body}"
            );
            refused += 1;
            tries += 1;
            if open.len() > 1 {
                open.remove(pick);
            }
            // Cubes meet caps the mail states only in words ("at most 1 on West"): the bot
            // tries other states until they fit.
            assert!(tries < 300, "stuck: {line}\n{words}");
        }
        answered.push(to);
        moves += i64::from(played);
    }
    assert!(
        nonsense_sent,
        "the game was long enough for a nonsense reply"
    );
    assert!(
        undone || kind != "votes-for-women",
        "a Votes for Women game by mail has a move to take back"
    );
    assert!(
        placed > 0 || kind != "votes-for-women",
        "a Votes for Women game by mail places cubes by lines written from the mail's words"
    );
    let loaded = rig.db.store.load(game).await.unwrap();
    assert!(loaded.game.outcome().is_some(), "the game ended");
    let (sent, questions, folded, refusals, late) = mail_bound(&rig, game, seats).await;
    // Before folding, each folded answer was a mail of its own (the setting "every reply
    // confirmed" still does that).
    eprintln!(
        "MAILS {kind}: {moves} decisions by mail, {questions} questions asked, {sent} mails \
         ({:.2} a decision, {:.2} a seat's question; {refusals} refusals asking nothing again, \
         {late} answers to replies played late); before folding {} mails ({:.2} a decision)",
        sent as f64 / moves as f64,
        sent as f64 / questions as f64,
        sent as i64 + folded,
        (sent as i64 + folded) as f64 / moves as f64,
    );
    let mut mails = 0;
    for seat in 0..seats {
        for mail in rig.mails_to(seat).await {
            let words = text(&mail);
            let names = internal_names(&words);
            assert!(
                names.is_empty(),
                "the program's own names {names:?} in a mail to a person:\n{words}"
            );
            mails += 1;
        }
    }
    assert_eq!(
        inbound_done(&rig, game).await,
        moves + i64::from(undone),
        "every reply that played (or took back) was recorded"
    );
    eprintln!(
        "{kind}: {moves} moves by mail of {} commands, {refused} replies refused by the rules, \
         {stale} stale, {examples} example replies played, {placed} placements written from \
         the words, {mails} mails read for internal \
         names, {:?}",
        loaded.row.head_seq,
        started.elapsed()
    );
    rig.stop().await;
}

/// The seat replies "undo" to the answer that says its move was done and asks its next
/// decision: the move is taken back (the state is again `before`, its hash before the move),
/// and the answer says so and asks the decision again; every other seat reads "takes back" in
/// its own view of the log and is mailed nothing for it. An "undo" to that older answer is
/// then refused.
async fn take_back_by_mail(
    rig: &mut Rig,
    via: Via,
    game: i64,
    seat: usize,
    answer: &Received,
    before_move: &str,
) {
    let body = text(answer);
    assert!(
        body.contains("Reply \"undo\""),
        "the answer offers the undo:\n{body}"
    );
    let loaded = rig.db.store.load(game).await.unwrap();
    let head = loaded.row.head_seq;
    let to = reply_address(answer);
    let seats = loaded.game.seats();
    let mut others_mailed = Vec::new();
    for other in (0..seats).filter(|&s| s != seat) {
        others_mailed.push(rig.mails_to(other).await.len());
    }
    let before = rig.mails_to(seat).await.len();
    send(rig, via, seat, &to, "Undo").await;
    let taken = next_answer(rig, seat, before).await;
    let subject = header(&taken.data, "Subject").unwrap();
    assert!(subject.ends_with("done"), "{subject}: {}", text(&taken));
    assert!(text(&taken).contains("takes back"), "{}", text(&taken));
    let now = rig.db.store.load(game).await.unwrap();
    assert_eq!(now.row.head_seq, head + 1);
    assert_eq!(
        now.game.state_hash(),
        before_move,
        "the reply took the move back"
    );
    for (other, mailed) in (0..seats).filter(|&s| s != seat).zip(others_mailed) {
        let seen = rig
            .db
            .store
            .export(game, postplay::engine::Viewer::Seat(other))
            .await
            .unwrap();
        let last = seen.commands.last().unwrap();
        assert_eq!((last.seat, last.by.as_deref()), (seat, Some("undo")));
        assert_eq!(
            rig.mails_to(other).await.len(),
            mailed,
            "seat {other} is mailed nothing for a position taken back"
        );
    }
    let (_, _, lines) = now.log.last().unwrap();
    assert!(
        lines.iter().any(|l| l.contains("takes back")),
        "everyone's log reads it: {lines:?}"
    );
    let export = rig
        .db
        .store
        .export(game, postplay::engine::Viewer::Auditor)
        .await
        .unwrap();
    assert_eq!(export.commands.last().unwrap().by.as_deref(), Some("undo"));
    // The same "undo" again, to the answer now out of date, takes nothing more back.
    let before = rig.mails_to(seat).await.len();
    send(rig, via, seat, &to, "undo").await;
    let stale = next_answer(rig, seat, before).await;
    assert!(
        header(&stale.data, "Subject")
            .unwrap()
            .ends_with("not played"),
        "{}",
        text(&stale)
    );
    assert_eq!(
        rig.db.store.load(game).await.unwrap().row.head_seq,
        head + 1
    );
}

#[actix_web::test]
async fn a_whole_whitehouse_game_by_replies_over_lmtp() {
    whole_game("whitehouse", json!({"target": 3}), 4, 18, Via::Lmtp).await;
}

#[actix_web::test]
async fn a_whole_statehood_game_by_replies_over_smtp() {
    whole_game("statehood", json!({"target": 12}), 3, 19, Via::Smtp).await;
}

#[actix_web::test]
async fn a_whole_electoral_combat_game_by_replies_through_the_pipe() {
    whole_game("electoral-combat", json!({}), 2, 20, Via::Pipe).await;
}

#[actix_web::test]
async fn a_whole_nationhood_game_by_replies_over_lmtp() {
    whole_game("nationhood", json!({"target": 3}), 2, 21, Via::Lmtp).await;
}

#[actix_web::test]
async fn a_whole_votes_for_women_game_by_replies_over_smtp() {
    whole_game("votes-for-women", json!({}), 2, 22, Via::Smtp).await;
}

async fn head(rig: &Rig, game: i64) -> i64 {
    rig.db.store.game(game).await.unwrap().unwrap().head_seq
}

#[actix_web::test]
async fn every_kind_of_reply_gets_the_right_answer_or_none() {
    let mut rig = Rig::new().await;
    let game = rig.game("whitehouse", json!({}), 4, 7).await;
    let loaded = rig.db.store.load(game).await.unwrap();
    let first = loaded.game.active()[0];
    let me = email(first);
    let invite = rig.latest_ask(first).await;
    let to = reply_address(&invite);
    let invite_text = text(&invite);
    assert!(invite_text.contains("Your position:"), "{invite_text}");
    assert!(invite_text.contains("  1  Pass"), "{invite_text}");
    assert!(
        invite_text.contains(
            "  2  Bid — How many electoral votes will your side take? A number from 270 to 530, \
             in steps of 10. — reply: 2 270\n"
        ),
        "{invite_text}"
    );
    let mut expected = 0;

    // An out-of-office notice: stored, ignored, never answered.
    let id = rig.message_id();
    let auto = reply(&id, &me, &to, "I am away until Monday.").replace(
        "Subject: Re: your turn",
        "Subject: Out of Office: Re: your turn\r\nAuto-Submitted: auto-replied",
    );
    assert_eq!(
        rig.inbox.receive(auto.as_bytes(), &[]).await.unwrap(),
        Outcome::Ignored("written by a machine (auto-reply, list or bounce)")
    );

    // A forged sender: refused, and the answer goes to the seat, not to the forger.
    let id = rig.message_id();
    let forged = reply(&id, "mallory@example.net", &to, "1");
    let status = rig.deliver(true, "mallory@example.net", &to, &forged).await;
    assert!(status.starts_with("250"), "{status}");
    expected += 1;

    // A NUL in the line.
    let id = rig.message_id();
    let outcome = rig
        .inbox
        .receive(reply(&id, &me, &to, "pa\0ss").as_bytes(), &[])
        .await
        .unwrap();
    assert!(
        matches!(&outcome, Outcome::Refused(r) if r.contains("control characters")),
        "{outcome:?}"
    );
    expected += 1;

    // A header injection attempt in the sender's name, with a line that is no choice.
    let id = rig.message_id();
    let injection = reply(&id, &me, &to, "fold").replace(
        "From: Player <",
        "From: =?utf-8?q?Ann=0D=0ABcc:_victim@example.net?= <",
    );
    let outcome = rig.inbox.receive(injection.as_bytes(), &[]).await.unwrap();
    assert!(
        matches!(&outcome, Outcome::Refused(r) if r.contains("\"fold\" names none")),
        "{outcome:?}"
    );
    expected += 1;

    // Too large, through `postplay receive` on standard input.
    let id = rig.message_id();
    let big = reply(&id, &me, &to, &format!("pass\n\n{}", "x".repeat(80 * 1024)));
    let printed = receive_by_pipe(&rig, &to, big.as_bytes(), &[]);
    assert!(printed.contains("too large"), "{printed}");
    expected += 1;
    assert_eq!(head(&rig, game).await, 0, "nothing was played");

    // HTML only, in capitals: played. Delivered twice: played once, answered once.
    let id = rig.message_id();
    let html = reply(
        &id,
        &me,
        &to,
        "<html><body><div>BID 270</div><div class=\"gmail_quote\">\
        On Monday postplay wrote:<blockquote>1  Pass</blockquote></div></body></html>",
    )
    .replace("text/plain", "text/html");
    assert_eq!(
        rig.inbox.receive(html.as_bytes(), &[]).await.unwrap(),
        Outcome::Done(1)
    );
    assert_eq!(
        rig.inbox.receive(html.as_bytes(), &[]).await.unwrap(),
        Outcome::Duplicate
    );
    // Played, and nothing asked of the seat now: its answer waits for the seat's next mail
    // (the refusal just below carries it).

    // The same address again, now that the seat is not to move.
    let id = rig.message_id();
    let outcome = rig
        .inbox
        .receive(reply(&id, &me, &to, "pass").as_bytes(), &[])
        .await
        .unwrap();
    assert!(
        matches!(&outcome, Outcome::Refused(r) if r.contains("not your turn")),
        "{outcome:?}"
    );
    expected += 1;

    // The others pass on the page: the seat won the auction and must name trump; its first
    // mail is stale and "bid" no longer means anything.
    while rig.db.store.load(game).await.unwrap().game.active() != vec![first] {
        let seat = rig.db.store.load(game).await.unwrap().game.active()[0];
        rig.db
            .store
            .submit(game, seat, &json!({"type": "pass"}), None)
            .await
            .unwrap();
    }
    let before = head(&rig, game).await;
    let id = rig.message_id();
    let outcome = rig
        .inbox
        .receive(reply(&id, &me, &to, "2 270").as_bytes(), &[])
        .await
        .unwrap();
    assert!(
        matches!(&outcome, Outcome::Refused(r) if r.contains("moved on")),
        "{outcome:?}"
    );
    assert_eq!(head(&rig, game).await, before);
    expected += 1;

    // The latest mail's first choice, by number, above quoted history and a signature,
    // through `postplay receive`.
    let latest = rig.latest_ask(first).await;
    let to_now = reply_address(&latest);
    assert_ne!(to_now, to, "a new position, a new address");
    let id = rig.message_id();
    let quoted = reply(
        &id,
        &me,
        &to_now,
        "1\n\nOn Monday postplay wrote:\n> 2  Bid\n-- \nAnn",
    );
    let printed = receive_by_pipe(&rig, &to_now, quoted.as_bytes(), &[]);
    assert!(printed.starts_with("Done("), "{printed}");
    assert_eq!(head(&rig, game).await, before + 1);
    expected += 1;

    let mails = rig.mails_to(first).await;
    let mails: Vec<_> = mails
        .into_iter()
        .filter(|m| header(&m.data, "Subject").is_some_and(|s| s.starts_with("Re:")))
        .collect();
    assert_eq!(
        mails.len(),
        expected,
        "one answer for each reply a person wrote"
    );
    let answers: Vec<String> = mails.iter().map(text).collect();
    for says in [
        "not played: the reply came from another address",
        "not played: the reply line holds control characters",
        "not played: \"fold\" names none of the choices or their options",
        "not played: the message is too large",
        "Your reply \"BID 270\" was played: Bid: 270.",
        "not played: it is not your turn",
        "not played: the game has moved on",
        "done: Name ",
    ] {
        let found = answers.iter().filter(|a| a.contains(says)).count();
        assert_eq!(found, 1, "{says} in\n{answers:#?}");
    }
    let forged = answers
        .iter()
        .find(|a| a.contains("another address"))
        .unwrap();
    assert!(
        forged.contains("To move, reply to this mail"),
        "the choices again:\n{forged}"
    );
    let all = rig.settle().await;
    assert!(all.iter().all(|m| {
        m.to.iter()
            .all(|t| !t.contains("mallory") && !t.contains("victim"))
    }));
    assert!(all.iter().all(|m| header(&m.data, "Bcc").is_none()));
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM inbound_mail")
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap();
    assert_eq!(
        stored, 9,
        "every message stored once, the duplicate not again"
    );
    let leaked: i64 =
        sqlx::query_scalar("SELECT count(*) FROM inbound_mail WHERE position($1 in raw) > 0")
            .bind(
                to.split('@')
                    .next()
                    .unwrap()
                    .trim_start_matches("play+")
                    .as_bytes(),
            )
            .fetch_one(rig.db.store.pool())
            .await
            .unwrap();
    assert_eq!(leaked, 0, "no reply secret kept in the stored messages");
    rig.stop().await;
}

#[actix_web::test]
async fn replies_over_the_hourly_limit_are_held_and_the_seat_told() {
    let rig = Rig::start(InboundSettings {
        reply_domain: Some("pp.example".into()),
        max_bytes: 64 * 1024,
        per_hour: 2,
        ..InboundSettings::default()
    })
    .await;
    let game = rig.game("whitehouse", json!({}), 4, 8).await;
    let first = rig.db.store.load(game).await.unwrap().game.active()[0];
    let to = reply_address(&rig.latest_ask(first).await);
    let mut outcomes = Vec::new();
    for n in 0..3 {
        let raw = reply(
            &format!("<limit{n}@example.org>"),
            &email(first),
            &to,
            "fold",
        );
        outcomes.push(rig.inbox.receive(raw.as_bytes(), &[]).await.unwrap());
    }
    assert!(matches!(outcomes[1], Outcome::Refused(_)));
    assert!(matches!(outcomes[2], Outcome::Held(_)), "{outcomes:?}");
    rig.stop().await;
}

async fn queued_for(rig: &Rig, game: i64, seat: i32) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbox WHERE game_id = $1 AND seat = $2")
        .bind(game)
        .bind(seat)
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap()
}

/// Plays at random on the page until both seats of an Electoral College Combat game must
/// choose a sealed sign at once; false if the game ended first.
async fn until_sealed_signs(rig: &Rig, game: i64, seed: u64) -> bool {
    let mut bot = rng(seed);
    for _ in 0..3000 {
        let loaded = rig.db.store.load(game).await.unwrap();
        let active = loaded.game.active();
        if active.len() == 2 {
            return true;
        }
        let Some(&seat) = active.first() else {
            return false;
        };
        let command =
            postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut bot).unwrap();
        rig.db
            .store
            .submit(game, seat, &command, None)
            .await
            .unwrap();
    }
    false
}

/// The latest mail of game `game` to `seat` that asks it to choose a sealed sign, if any.
async fn asked_for_sign(rig: &Rig, game: i64, seat: usize) -> Option<Received> {
    let title = format!("#{game}:");
    rig.mails_to(seat)
        .await
        .into_iter()
        .rev()
        .find(|m| {
            header(&m.data, "Subject").is_some_and(|s| s.contains(&title))
                && header(&m.data, "Reply-To").is_some()
        })
        .filter(|m| text(m).contains("Russian Collusion: rock"))
}

/// A game at the sealed signs where one seat (returned) was just asked by mail.
async fn game_at_signs(rig: &Rig, seeds: &mut std::ops::Range<u64>) -> (i64, usize, Received) {
    for seed in seeds.by_ref() {
        let game = rig.game("electoral-combat", json!({}), 2, seed).await;
        if !until_sealed_signs(rig, game, seed).await {
            continue;
        }
        for seat in 0..2 {
            if let Some(mail) = asked_for_sign(rig, game, seat).await {
                return (game, seat, mail);
            }
        }
    }
    panic!("no game reached the signs with a mail asking for one");
}

#[actix_web::test]
async fn a_sealed_sign_by_mail_stays_sealed() {
    let mut rig = Rig::new().await;
    let (game, seat, ask) = game_at_signs(&rig, &mut (1..60)).await;
    let other = 1 - seat;
    let seen_by_other = rig.mails_to(other).await.len();
    let queued_for_other = queued_for(&rig, game, other as i32).await;
    let id = rig.message_id();
    let to = reply_address(&ask);
    let before = rig.mails_to(seat).await.len();
    let outcome = rig
        .inbox
        .receive(
            reply(&id, &email(seat), &to, "russian collusion: scissors").as_bytes(),
            &[],
        )
        .await
        .unwrap();
    assert!(matches!(outcome, Outcome::Done(_)), "{outcome:?}");
    // Nothing is asked of the seat now: the answer waits for its next mail to carry it.
    let (fold, said): (bool, String) = sqlx::query_as(
        "SELECT fold, payload->>'text' FROM outbox WHERE game_id = $1 AND seat = $2 \
         AND kind = 'answer' ORDER BY id DESC LIMIT 1",
    )
    .bind(game)
    .bind(seat as i32)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap();
    assert!(fold);
    assert_eq!(said, "Russian Collusion: scissors");
    assert_eq!(rig.mails_to(seat).await.len(), before, "no mail of its own");
    // Nothing of it reaches the other seat while its own sign is open.
    assert_eq!(
        rig.mails_to(other).await.len(),
        seen_by_other,
        "no mail to the other seat"
    );
    assert_eq!(
        queued_for(&rig, game, other as i32).await,
        queued_for_other,
        "nothing queued"
    );
    let loaded = rig.db.store.load(game).await.unwrap();
    assert_eq!(
        loaded.game.active(),
        vec![other],
        "the other seat still chooses"
    );
    let view = loaded
        .game
        .view(postplay::engine::Viewer::Seat(other))
        .to_string();
    assert!(
        !view.contains("scissors"),
        "the other seat's view shows no sign: {view}"
    );
    rig.stop().await;
}

#[actix_web::test]
async fn a_stale_reply_still_legal_and_meaning_the_same_is_played() {
    let mut rig = Rig::new().await;
    let (game, seat, ask) = game_at_signs(&rig, &mut (1..60)).await;
    // The other seat chooses on the page first: the mail is now about an older position.
    let other = 1 - seat;
    let head_before = head(&rig, game).await;
    rig.db
        .store
        .submit(game, other, &json!({"type": "rps", "sign": "rock"}), None)
        .await
        .unwrap();
    let id = rig.message_id();
    let to = reply_address(&ask);
    let outcome = rig
        .inbox
        .receive(reply(&id, &email(seat), &to, "2").as_bytes(), &[])
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Done(head_before + 2));
    rig.stop().await;
}

/// Replies to each mail with its first choice and first option until the seat to move in
/// Electoral College Combat chooses between the higher and the lower card; returns that seat.
async fn up_to_higher_or_lower(rig: &Rig, game: i64) -> Option<usize> {
    for n in 0..12 {
        let loaded = rig.db.store.load(game).await.unwrap();
        let seat = *loaded.game.active().first()?;
        if loaded
            .game
            .choices(seat)
            .iter()
            .any(|c| c.label.starts_with("Take the lower card"))
        {
            return Some(seat);
        }
        let ask = rig.latest_ask(seat).await;
        let first = listed(&text(&ask)).into_iter().next()?;
        let code = first
            .params
            .first()
            .and_then(|p| p.options.first())
            .and_then(|o| o.code.clone())
            .unwrap_or_default();
        let to = reply_address(&ask);
        let id = format!("<up{game}.{n}@example.org>");
        let raw = reply(&id, &email(seat), &to, &format!("1 {code}"));
        rig.inbox.receive(raw.as_bytes(), &[]).await.unwrap();
    }
    None
}

#[actix_web::test]
async fn the_lower_card_is_read_from_its_own_words_through_receive() {
    let rig = Rig::new().await;
    let mut found = None;
    for seed in 1..20 {
        let game = rig.game("electoral-combat", json!({}), 2, seed).await;
        if let Some(seat) = up_to_higher_or_lower(&rig, game).await {
            found = Some((game, seat));
            break;
        }
    }
    let (game, seat) = found.expect("a game that reaches the higher or lower card");
    let mail = text(&rig.latest_ask(seat).await);
    let to = reply_address(&rig.latest_ask(seat).await);
    let lower = listed(&mail)
        .into_iter()
        .find(|c| c.label.starts_with("Take the lower card"))
        .unwrap_or_else(|| panic!("the lower card offered in: {mail}"));
    let codes: Vec<String> = lower.params[0]
        .options
        .iter()
        .filter_map(|o| o.code.clone())
        .take(2)
        .collect();
    assert_eq!(codes.len(), 2, "{mail}");
    let line = format!("take the lower card, cards {} and {}", codes[0], codes[1]);
    let raw = reply("<lower@example.org>", &email(seat), &to, &line);
    let printed = receive_by_pipe(&rig, &to, raw.as_bytes(), &[]);
    assert!(printed.starts_with("Done("), "{line}: {printed}");
    let said: String = sqlx::query_scalar(
        "SELECT outcome FROM inbound_mail WHERE game_id = $1 AND message_key LIKE '%lower@example.org%'",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap();
    assert!(said.starts_with("Take the lower card"), "{said}");
    rig.stop().await;
}
