//! Forced moves play themselves (issue 31): against a real PostgreSQL, whole games through the
//! store. A move everyone can see is forced is played at once, as its own entry marked
//! `"by": "auto"`; a move forced by a seat's hidden cards only for a seat that asked; the record
//! verifies, and replays to the same end with the marks taken off; no mail asks the question
//! that was skipped; standing orders play as the seat's own moves until cancelled.

use crate::common;

use common::TestDb;
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::record::Mark;
use postplay::engine::{Record, RecordedCommand, Seed, Viewer};
use postplay::notices::EmailAddress;
use postplay::store::{NewSeat, PlayerName};
use serde_json::{Value, json};

fn seats(count: usize) -> Vec<NewSeat> {
    ["Ann", "Bo", "Cy", "Di"][..count]
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(EmailAddress::parse(&format!("{}@example.org", n.to_lowercase())).unwrap()),
            bot: None,
        })
        .collect()
}

/// What a whole random game showed: how often an awaited seat faced a forced move, by kind.
#[derive(Default, Debug)]
struct Seen {
    /// An awaited seat whose one move was public: must never happen.
    public: usize,
    /// An awaited seat forced by its hidden cards, by seat.
    private: Vec<usize>,
}

/// Plays game `id` to its end with the random bot through the store, checking before each move
/// what the awaited seats face.
async fn play_out(db: &TestDb, id: i64, seed: Seed) -> Seen {
    let mut rng = bot_rng(&seed);
    let mut seen = Seen::default();
    loop {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return seen;
        }
        seen.private.resize(loaded.game.seats(), 0);
        for &seat in &loaded.game.active() {
            if loaded.game.forced(seat).is_some() {
                if loaded.game.forced_in_public(seat) {
                    seen.public += 1;
                } else {
                    seen.private[seat] += 1;
                }
            }
        }
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        let head = db
            .store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        assert!(
            head > loaded.row.head_seq,
            "the answer names the final head"
        );
    }
}

#[tokio::test]
async fn public_forced_moves_play_themselves_and_the_record_verifies_either_way() {
    let db = TestDb::new().await;
    let seed = Seed::from_number(31);
    let created = db
        .store
        .create_game("whitehouse", &json!({}), &seats(4), seed)
        .await
        .unwrap();
    let seen = play_out(&db, created.id, seed).await;
    assert_eq!(
        seen.public, 0,
        "no seat is awaited with a public forced move"
    );
    assert!(
        seen.private.iter().sum::<usize>() > 0,
        "seats that did not ask are asked even when their cards force them: {seen:?}"
    );
    let entries = db.store.commands(created.id, 0).await.unwrap();
    let auto = entries
        .iter()
        .filter(|e| e.mark == Some(Mark::Auto))
        .count();
    assert!(auto >= 4, "the last trick of a hand at least: {auto}");
    let record = db
        .store
        .export(created.id, Viewer::Spectator)
        .await
        .unwrap();
    assert_eq!(
        record
            .commands
            .iter()
            .filter(|c| c.by.as_deref() == Some("auto"))
            .count(),
        auto
    );
    let verified = postplay::engine::audit::verify(
        postplay::games::ALL,
        &record,
        record.chain_head.as_deref(),
    )
    .unwrap();
    // The same commands chosen by hand (no marks) reach the same end.
    let by_hand = Record {
        commands: record
            .commands
            .iter()
            .map(|c| RecordedCommand::new(c.seat, c.command.clone()))
            .collect(),
        chain_head: None,
        commitment: None,
        deal: None,
        ..record.clone()
    };
    let replayed = by_hand.replay(postplay::games::ALL).unwrap();
    assert_eq!(replayed.state_hash(), verified.final_state_hash);
    // An entry marked auto that was a real decision does not verify.
    let mut forged = by_hand.clone();
    let decision = entries
        .iter()
        .position(|e| e.mark.is_none() && e.seq > 1)
        .unwrap();
    forged.commands[decision].by = Some("auto".into());
    forged.final_state_hash = None;
    assert!(
        forged.replay(postplay::games::ALL).is_err(),
        "a chosen move marked auto is refused"
    );
    db.drop().await;
}

#[tokio::test]
async fn a_seat_that_asks_has_its_hidden_forced_moves_played_and_is_never_mailed_them() {
    let db = TestDb::new().await;
    let seed = Seed::from_number(32);
    let created = db
        .store
        .create_game("whitehouse", &json!({}), &seats(4), seed)
        .await
        .unwrap();
    let id = created.id;
    db.store.set_play_forced(id, 2, Some(true)).await.unwrap();
    assert_eq!(
        db.store.play_forced(id, 2).await.unwrap(),
        (Some(true), true)
    );
    assert_eq!(db.store.play_forced(id, 1).await.unwrap(), (None, false));
    let seen = play_out(&db, id, seed).await;
    assert_eq!(seen.public, 0);
    assert_eq!(
        seen.private[2], 0,
        "the seat that asked is never asked: {seen:?}"
    );
    assert!(
        seen.private[0] + seen.private[1] + seen.private[3] > 0,
        "the others are: {seen:?}"
    );
    // No your-turn mail asked a question that was played for its seat: entry n played for
    // seat s means no mail "turn:{n-1}" to s.
    let entries = db.store.commands(id, 0).await.unwrap();
    let turns: Vec<(i32, String)> =
        sqlx::query_as("SELECT seat, event FROM outbox WHERE game_id = $1 AND kind = 'turn'")
            .bind(id)
            .fetch_all(db.store.pool())
            .await
            .unwrap();
    let mut skipped = 0;
    for entry in entries.iter().filter(|e| e.mark == Some(Mark::Auto)) {
        let asked = format!("turn:{}", entry.seq - 1);
        assert!(
            !turns
                .iter()
                .any(|(s, e)| *s as usize == entry.seat && *e == asked),
            "entry {} was played for seat {}, yet it was mailed the question",
            entry.seq,
            entry.seat
        );
        skipped += 1;
    }
    assert!(skipped > 0);
    assert!(
        turns.len() > 20,
        "real questions were mailed: {}",
        turns.len()
    );
    db.drop().await;
}

/// Plays Votes for Women until `seat` is awaited at a Strategy commitment, with `orders` given.
async fn standing_game(db: &TestDb, seed: u64) -> (i64, Seed) {
    let seed = Seed::from_number(seed);
    let created = db
        .store
        .create_game("votes-for-women", &Value::Null, &seats(2), seed)
        .await
        .unwrap();
    (created.id, seed)
}

#[tokio::test]
async fn standing_orders_play_as_the_seats_own_moves_until_cancelled() {
    let db = TestDb::new().await;
    let (id, seed) = standing_game(&db, 33).await;
    let loaded = db.store.load(id).await.unwrap();
    let offered = loaded.game.standing_orders();
    assert!(matches!(
        db.store.give_order(id, 0, offered, "no-such-order").await,
        Err(postplay::store::OrderError::Unknown(_))
    ));
    db.store
        .give_order(id, 0, offered, "commit-none")
        .await
        .unwrap();
    db.store
        .give_order(id, 0, offered, "commit-none")
        .await
        .unwrap();
    assert_eq!(
        db.store.standing_orders(id, 0).await.unwrap(),
        ["commit-none"]
    );
    let mut rng = bot_rng(&seed);
    let mut commitments = 0;
    let mut cancelled = false;
    loop {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let faces_commit = loaded
            .game
            .choices(seat)
            .iter()
            .any(|c| c.command.get("type") == Some(&json!("commit")));
        if faces_commit {
            assert!(
                cancelled,
                "with the order standing, Suffragist is never asked to commit"
            );
        }
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        let entries = db.store.commands(id, loaded.row.head_seq).await.unwrap();
        for entry in entries.iter().filter(|e| e.mark == Some(Mark::Standing)) {
            assert_eq!(entry.seat, 0);
            assert_eq!(entry.command, json!({"type": "commit", "buttons": 0}));
            commitments += 1;
        }
        if commitments >= 2 && !cancelled {
            assert!(db.store.cancel_order(id, 0, "commit-none").await.unwrap());
            cancelled = true;
        }
    }
    assert!(commitments >= 2, "the order played: {commitments}");
    let record = db.store.export(id, Viewer::Spectator).await.unwrap();
    postplay::engine::audit::verify(postplay::games::ALL, &record, record.chain_head.as_deref())
        .unwrap();
    db.drop().await;
}

#[actix_web::test]
async fn a_person_gives_and_cancels_orders_on_the_seat_page_and_sets_forced_moves_on_the_mail_page()
{
    let db = TestDb::new().await;
    let base = common::spawn_app(&db);
    let (id, _) = standing_game(&db, 34).await;
    let tokens = db.store.relink_seat(id, 0).await.unwrap().unwrap();
    let visitor = common::visitor::Visitor::new(&base);
    let page = format!("/play/{}", tokens.token);
    let shown = visitor.get(&page).await;
    assert!(shown.body.contains("Settled ahead"), "{}", shown.body);
    assert!(
        shown
            .body
            .contains("Commit no buttons in every Strategy phase")
    );
    assert!(
        !shown.body.contains("Defer to the Suffragist"),
        "the Opposition's order is not offered to the Suffragist"
    );
    let given = visitor
        .post_from(
            &page,
            &format!("{page}/orders"),
            &[("order", "commit-none"), ("action", "give")],
        )
        .await;
    assert_eq!(given.status, 303, "{given:?}");
    assert_eq!(
        db.store.standing_orders(id, 0).await.unwrap(),
        ["commit-none"]
    );
    let shown = visitor.get(&page).await;
    assert!(
        shown.body.contains("Standing: Commit no buttons"),
        "{}",
        shown.body
    );
    // Bad input changes nothing.
    let refused = visitor
        .post_from(
            &page,
            &format!("{page}/orders"),
            &[("order", "always-defer"), ("action", "give")],
        )
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        db.store.standing_orders(id, 0).await.unwrap(),
        ["commit-none"]
    );
    let cancelled = visitor
        .post_from(
            &page,
            &format!("{page}/orders"),
            &[("order", "commit-none"), ("action", "cancel")],
        )
        .await;
    assert_eq!(cancelled.status, 303);
    assert!(db.store.standing_orders(id, 0).await.unwrap().is_empty());
    // The mail page: forced moves, with the warning where it is offered.
    let mail = format!("/mail/unsubscribe/{}", tokens.token);
    let shown = visitor.get(&mail).await;
    assert!(
        shown
            .body
            .contains("tells the other players you had no choice")
    );
    let set = visitor.post(&mail, &[("forced", "on")]).await;
    assert_eq!(set.status, 200, "{set:?}");
    assert_eq!(
        db.store.play_forced(id, 0).await.unwrap(),
        (Some(true), true)
    );
    let bad = visitor.post(&mail, &[("forced", "sometimes")]).await;
    assert_eq!(bad.status, 400);
    assert_eq!(
        db.store.play_forced(id, 0).await.unwrap(),
        (Some(true), true)
    );
    visitor.post(&mail, &[("forced", "default")]).await;
    assert_eq!(db.store.play_forced(id, 0).await.unwrap(), (None, false));
    // A new holder of the seat does not inherit what the last one settled.
    db.store.set_play_forced(id, 0, Some(true)).await.unwrap();
    let offered = db.store.load(id).await.unwrap().game.standing_orders();
    db.store
        .give_order(id, 0, offered, "keep-rolls")
        .await
        .unwrap();
    db.store.relink_seat(id, 0).await.unwrap();
    assert_eq!(db.store.play_forced(id, 0).await.unwrap(), (None, false));
    assert!(db.store.standing_orders(id, 0).await.unwrap().is_empty());
    db.drop().await;
}

#[actix_web::test]
async fn a_standing_order_is_given_and_cancelled_by_replying_through_postplay_receive() {
    use common::replyrig::{Rig, email, receive_by_pipe, reply, reply_address, text};
    let mut rig = Rig::new().await;
    let id = rig.game("votes-for-women", Value::Null, 2, 35).await;
    let asked = common::wait::until(
        "a mail to the Suffragist that lists her standing orders",
        common::wait::PATIENCE,
        async || {
            rig.settle()
                .await
                .into_iter()
                .filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(&email(0))))
                .find(|m| text(m).contains("commit-none"))
                .ok_or("no such mail yet")
        },
    )
    .await;
    let body = text(&asked);
    assert!(body.contains("standing: CODE"), "{body}");
    assert!(!body.contains("always-defer"), "{body}");
    let to = reply_address(&asked);
    let said = |line: &str, rig: &mut Rig| {
        let raw = reply(&rig.message_id(), &email(0), &to, line);
        receive_by_pipe(rig, &to, raw.as_bytes(), &[])
    };
    said("Standing: commit-none", &mut rig);
    assert_eq!(
        rig.db.store.standing_orders(id, 0).await.unwrap(),
        ["commit-none"]
    );
    common::wait::until(
        "the answer saying the order is given",
        common::wait::PATIENCE,
        async || {
            rig.settle()
                .await
                .into_iter()
                .find(|m| text(m).contains("standing order given: Commit no buttons"))
                .ok_or("no such answer yet")
        },
    )
    .await;
    said("standing: bid everything", &mut rig);
    assert_eq!(
        rig.db.store.standing_orders(id, 0).await.unwrap(),
        ["commit-none"]
    );
    common::wait::until(
        "the refusal naming the orders there are",
        common::wait::PATIENCE,
        async || {
            rig.settle()
                .await
                .into_iter()
                .find(|m| text(m).contains("names none of your standing orders"))
                .ok_or("no such answer yet")
        },
    )
    .await;
    said("cancel standing: commit no buttons", &mut rig);
    assert!(
        rig.db
            .store
            .standing_orders(id, 0)
            .await
            .unwrap()
            .is_empty()
    );
    rig.stop().await;
}
