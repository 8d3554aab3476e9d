//! The event store against a real PostgreSQL: append, optimistic concurrency, the hash chain,
//! the append-only trigger, export and verification.

use crate::common;

use common::TestDb;
use postplay::engine::audit::verify;
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{Seed, Viewer};
use postplay::games::find_game;
use postplay::store::{NewSeat, Store, SubmitError};
use serde_json::json;

fn four_seats() -> Vec<NewSeat> {
    ["Ann", "Bo", "Cy", "Di"]
        .iter()
        .map(|n| NewSeat {
            name: postplay::store::PlayerName::parse(n).unwrap(),
            email: None,
            bot: None,
        })
        .collect()
}

#[tokio::test]
async fn a_whole_game_is_stored_and_verifies() {
    let db = TestDb::new().await;
    let store = &db.store;
    let seed = Seed::from_number(77);
    let created = store
        .create_game("whitehouse", &json!({}), &four_seats(), seed)
        .await
        .unwrap();
    let mut rng = bot_rng(&seed);
    loop {
        let loaded = store.load(created.id).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        let seq = store
            .submit(created.id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        assert!(
            seq > loaded.row.head_seq,
            "the answer is the head after the move"
        );
    }
    let row = store.game(created.id).await.unwrap().unwrap();
    assert_eq!(row.status, "over");
    let record = store.export(created.id, Viewer::Spectator).await.unwrap();
    assert_eq!(
        record.seed,
        Some(seed),
        "the seed is revealed once the game is over"
    );
    assert_eq!(record.commands.len() as i64, row.head_seq);
    let verified = verify(postplay::games::ALL, &record, Some(&row.head_hash)).unwrap();
    assert_eq!(verified.chain_head, row.head_hash);
    // Replaying from scratch (no cache) gives the same state as live play.
    let fresh = postplay::store::Store::from_pool(store.pool().clone());
    let replayed = fresh.load(created.id).await.unwrap();
    assert_eq!(replayed.game.state_hash(), record.final_state_hash.unwrap());
    db.drop().await;
}

#[tokio::test]
async fn twenty_racing_submissions_one_wins() {
    let db = TestDb::new().await;
    let store = std::sync::Arc::new(db.store.clone_handle());
    let created = store
        .create_game(
            "whitehouse",
            &json!({}),
            &four_seats(),
            Seed::from_number(3),
        )
        .await
        .unwrap();
    let loaded = store.load(created.id).await.unwrap();
    let seat = loaded.game.active()[0];
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            store
                .submit(created.id, seat, &json!({"type": "pass"}), Some(0))
                .await
        }));
    }
    let mut won = 0;
    let mut conflicts = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(1) => won += 1,
            Err(SubmitError::Conflict { .. }) => conflicts += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!((won, conflicts), (1, 19));
    let commands = store.commands(created.id, 0).await.unwrap();
    assert_eq!(commands.iter().map(|c| c.seq).collect::<Vec<_>>(), vec![1]);
    db.drop().await;
}

#[tokio::test]
async fn the_log_refuses_update_and_delete_and_bad_moves_write_nothing() {
    let db = TestDb::new().await;
    let store = &db.store;
    let created = store
        .create_game(
            "whitehouse",
            &json!({}),
            &four_seats(),
            Seed::from_number(4),
        )
        .await
        .unwrap();
    let seat = store.load(created.id).await.unwrap().game.active()[0];
    store
        .submit(created.id, seat, &json!({"type": "pass"}), None)
        .await
        .unwrap();
    let update = sqlx::query("UPDATE commands SET seat = 3")
        .execute(store.pool())
        .await;
    assert!(update.unwrap_err().to_string().contains("append-only"));
    let delete = sqlx::query("DELETE FROM commands")
        .execute(store.pool())
        .await;
    assert!(delete.unwrap_err().to_string().contains("append-only"));

    let next = store.load(created.id).await.unwrap().game.active()[0];
    let other = (next + 1) % 4;
    assert!(matches!(
        store
            .submit(created.id, other, &json!({"type": "pass"}), None)
            .await,
        Err(SubmitError::Rule(_))
    ));
    assert!(matches!(
        store
            .submit(
                created.id,
                next,
                &json!({"type": "bid", "amount": 275}),
                None
            )
            .await,
        Err(SubmitError::Rule(_))
    ));
    assert!(matches!(
        store
            .submit(created.id, next, &json!({"type": "fly"}), None)
            .await,
        Err(SubmitError::Malformed(_))
    ));
    assert!(matches!(
        store
            .submit(created.id, next, &json!({"type": "pass"}), Some(0))
            .await,
        Err(SubmitError::Conflict { head: 1 })
    ));
    assert!(matches!(
        store
            .submit(999_999, 0, &json!({"type": "pass"}), None)
            .await,
        Err(SubmitError::NotFound)
    ));
    assert_eq!(store.game(created.id).await.unwrap().unwrap().head_seq, 1);
    assert_eq!(store.commands(created.id, 0).await.unwrap().len(), 1);
    let record = store.export(created.id, Viewer::Spectator).await.unwrap();
    assert_eq!(
        record.seed, None,
        "the seed stays secret while the game runs"
    );
    assert!(find_game("whitehouse").is_some());
    db.drop().await;
}

#[tokio::test]
async fn bad_games_are_refused_at_creation() {
    let db = TestDb::new().await;
    let store = &db.store;
    assert!(
        store
            .create_game("chess", &json!({}), &four_seats(), Seed::from_number(1))
            .await
            .is_err()
    );
    assert!(
        store
            .create_game(
                "whitehouse",
                &json!({"target": 4}),
                &four_seats(),
                Seed::from_number(1)
            )
            .await
            .is_err()
    );
    assert!(
        store
            .create_game(
                "whitehouse",
                &json!({}),
                &four_seats()[..3],
                Seed::from_number(1)
            )
            .await
            .is_err()
    );
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(count, 0);
    db.drop().await;
}

/// A move named by a seat token ([`postplay::store::Mover::Holder`]) is made only for the
/// seat that token opens in this game: another game's token, a token that opens nothing and
/// a token a relink ended are refused, and nothing is written.
#[actix_web::test]
async fn a_move_by_token_is_made_only_for_the_seat_it_opens() {
    use postplay::store::Mover;
    let db = TestDb::new().await;
    let store = &db.store;
    let game = store
        .create_game(
            "whitehouse",
            &json!({}),
            &four_seats(),
            Seed::from_number(21),
        )
        .await
        .unwrap();
    let other = store
        .create_game(
            "whitehouse",
            &json!({}),
            &four_seats(),
            Seed::from_number(22),
        )
        .await
        .unwrap();
    let seat = store.load(game.id).await.unwrap().game.active()[0];
    let pass = json!({"type": "pass"});
    for token in [
        other.seat_tokens[seat].as_str(),
        "0123456789abcdef0123456789abcdef01234567",
        "not a token",
    ] {
        let refused = store
            .submit_as(game.id, Mover::Holder(token), &pass, Some(0))
            .await;
        assert!(
            matches!(refused, Err(SubmitError::NotHolder)),
            "{refused:?}"
        );
    }
    // The seat's own token, after a relink ended it.
    let old = game.seat_tokens[seat].clone();
    let fresh = store.relink_seat(game.id, seat).await.unwrap().unwrap();
    let refused = store
        .submit_as(game.id, Mover::Holder(&old), &pass, Some(0))
        .await;
    assert!(
        matches!(refused, Err(SubmitError::NotHolder)),
        "{refused:?}"
    );
    assert_eq!(store.game(game.id).await.unwrap().unwrap().head_seq, 0);
    // Another seat's token moves for that seat, which is not awaited.
    let idle = (seat + 1) % 4;
    let refused = store
        .submit_as(
            game.id,
            Mover::Holder(&game.seat_tokens[idle]),
            &pass,
            Some(0),
        )
        .await;
    assert!(matches!(refused, Err(SubmitError::Rule(_))), "{refused:?}");
    // The new token moves for its seat.
    let head = store
        .submit_as(game.id, Mover::Holder(&fresh.token), &pass, Some(0))
        .await
        .unwrap();
    assert!(head >= 1);
    let log = store.commands(game.id, 0).await.unwrap();
    assert_eq!(log[0].seat, seat);
    db.drop().await;
}

/// Statehood's answers to Puerto Rico are sealed like Russian Collusion's signs: a player who
/// answers on the position shown before the others sealed theirs is taken at the current head;
/// a head before the answers, or once they are revealed, is refused as the game having moved.
#[tokio::test]
async fn an_answer_to_puerto_rico_on_a_head_that_passed_only_by_the_others_answers_is_taken() {
    let db = TestDb::new().await;
    let store = &db.store;
    let (id, _) = common::game_at_puerto_rico_answers(&db).await;
    let shown = store.game(id).await.unwrap().unwrap().head_seq;
    let loaded = store.load(id).await.unwrap();
    let answerers = loaded.game.active();
    let answers: Vec<_> = answerers
        .iter()
        .map(|&seat| {
            let command = random_command(
                loaded.game.as_ref(),
                seat,
                &mut bot_rng(&Seed::from_number(seat as u64)),
            )
            .unwrap();
            (seat, command)
        })
        .collect();
    let (first, second, last) = (&answers[0], &answers[1], &answers[2]);
    store
        .submit(id, first.0, &first.1, Some(shown))
        .await
        .unwrap();
    // A head before the answers is refused: nobody was answering then.
    assert!(matches!(
        store.submit(id, second.0, &second.1, Some(shown - 1)).await,
        Err(SubmitError::Conflict { head }) if head == shown + 1
    ));
    store
        .submit(id, second.0, &second.1, Some(shown))
        .await
        .expect("only another's sealed answer came since");
    let head = store
        .submit(id, last.0, &last.1, Some(shown))
        .await
        .expect("only the others' sealed answers came since");
    assert!(head >= shown + 3);
    let commands = store.commands(id, shown).await.unwrap();
    let seats: Vec<usize> = commands[..3].iter().map(|c| c.seat).collect();
    assert_eq!(seats, vec![first.0, second.0, last.0], "in the order sent");
    for (entry, (_, command)) in commands.iter().zip(&answers) {
        assert_eq!(&entry.command, command);
    }
    verified_and_the_shown_head_refused_again(store, id, shown).await;
    db.drop().await;
}

/// After a simultaneous step resolved: the record verifies, and a move on the head the seats
/// were shown before it (now revealed) is refused again.
async fn verified_and_the_shown_head_refused_again(store: &Store, id: i64, shown: i64) {
    let row = store.game(id).await.unwrap().unwrap();
    let record = store.export(id, Viewer::Auditor).await.unwrap();
    verify(postplay::games::ALL, &record, Some(&row.head_hash)).unwrap();
    let loaded = store.load(id).await.unwrap();
    if let Some(&seat) = loaded.game.active().first() {
        let command = random_command(
            loaded.game.as_ref(),
            seat,
            &mut bot_rng(&Seed::from_number(5)),
        )
        .unwrap();
        assert!(matches!(
            store.submit(id, seat, &command, Some(shown)).await,
            Err(SubmitError::Conflict { .. })
        ));
    }
}

#[tokio::test]
async fn a_move_on_a_head_that_passed_only_by_the_others_sealed_choice_is_taken() {
    let db = TestDb::new().await;
    let store = &db.store;
    let (id, _) = common::game_at_sealed_signs(&db).await;
    let shown = store.game(id).await.unwrap().unwrap().head_seq;
    // Bo seals first; Ann chose on the position she was shown.
    store
        .submit(id, 1, &json!({"type": "rps", "sign": "rock"}), Some(shown))
        .await
        .unwrap();
    // A head before the signs is refused: Ann was not choosing then (or made that move).
    assert!(matches!(
        store
            .submit(id, 0, &json!({"type": "rps", "sign": "paper"}), Some(shown - 1))
            .await,
        Err(SubmitError::Conflict { head }) if head == shown + 1
    ));
    let head = store
        .submit(id, 0, &json!({"type": "rps", "sign": "paper"}), Some(shown))
        .await
        .expect("only Bo's sealed sign came since");
    assert!(head >= shown + 2);
    let commands = store.commands(id, shown).await.unwrap();
    assert_eq!(
        (commands[0].seat, commands[1].seat),
        (1, 0),
        "Bo's sign, then Ann's"
    );
    assert_eq!(commands[1].command, json!({"type": "rps", "sign": "paper"}));
    verified_and_the_shown_head_refused_again(store, id, shown).await;
    db.drop().await;
}
