//! Undo within one's turn (issue 32), against a real PostgreSQL and the real web app: a seat
//! takes back a Votes for Women placement through the JSON API; the state is again as before
//! it, everyone reads "takes back" in the log, no mail went out for the position taken back,
//! the record (with its `undo` entry) verifies; an undo is refused after a die roll and once
//! the other side has moved, and a refused undo changes nothing.

use crate::common;

use awc::Client;
use common::{TestDb, create_game_for, spawn_app};
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::record::BY_UNDO;
use postplay::engine::{Seat, Seed, Viewer};
use serde_json::{Value, json};

async fn post_json(client: &Client, url: &str, body: Value) -> (u16, Value) {
    let mut res = client
        .post(url)
        .insert_header(("content-type", "application/json"))
        .send_body(body.to_string())
        .await
        .unwrap();
    let bytes = res.body().await.unwrap();
    (
        res.status().as_u16(),
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

async fn outbox_count(db: &TestDb, id: i64) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbox WHERE game_id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

/// What one random move did: the seat, the state hash before it, whether it drew dice.
struct Step {
    seat: Seat,
    before: String,
    rolled: bool,
}

/// Plays one random move for the first awaited seat; `None` once the game is over.
async fn step(db: &TestDb, id: i64, rng: &mut postplay::engine::GameRng) -> Option<Step> {
    let loaded = db.store.load(id).await.unwrap();
    if loaded.game.outcome().is_some() {
        return None;
    }
    let seat = loaded.game.active()[0];
    let roll = |game: &dyn postplay::engine::DynMatch| game.state_json()["last_roll"].clone();
    let (before, rolled_before) = (loaded.game.state_hash(), roll(loaded.game.as_ref()));
    let command = random_command(loaded.game.as_ref(), seat, rng).unwrap();
    db.store
        .submit(id, seat, &command, Some(loaded.row.head_seq))
        .await
        .unwrap();
    let after = db.store.load(id).await.unwrap();
    Some(Step {
        seat,
        before,
        rolled: roll(after.game.as_ref()) != rolled_before,
    })
}

#[actix_web::test]
async fn a_placement_is_taken_back_and_undo_is_refused_after_dice_and_after_the_other_side() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game_for(&db, "votes-for-women", &["Ann", "Bo"], true, 32).await;
    let mut rng = bot_rng(&Seed::from_number(32));
    let api = |seat: Seat| format!("{base}/api/play/{}/commands", tokens[seat]);

    // Play until a seat may take its last move back.
    let mut mails = outbox_count(&db, id).await;
    let taken = loop {
        let step = step(&db, id, &mut rng)
            .await
            .expect("an undoable move comes");
        let now = db.store.load(id).await.unwrap();
        let mailed = outbox_count(&db, id).await;
        if now.game.can_undo(step.seat) {
            assert_eq!(mailed, mails, "a move that may be taken back mails nobody");
            assert!(
                !step.rolled,
                "a move that rolled dice may not be taken back"
            );
            break step;
        }
        mails = mailed;
    };
    let loaded = db.store.load(id).await.unwrap();
    let head = loaded.row.head_seq;
    let other = 1 - taken.seat;

    // The other seat cannot take it back; a stale head is a conflict; neither changes a thing.
    let (status, _) = post_json(
        &client,
        &api(other),
        json!({"undo": true, "expected_seq": head}),
    )
    .await;
    assert!(
        status == 403 || status == 422,
        "the other seat's undo: {status}"
    );
    let (status, _) = post_json(
        &client,
        &api(taken.seat),
        json!({"undo": true, "expected_seq": head - 1}),
    )
    .await;
    assert_eq!(status, 409);
    let (status, body) = post_json(
        &client,
        &api(taken.seat),
        json!({"undo": true, "command": {"type": "end_turn"}, "expected_seq": head}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(db.store.load(id).await.unwrap().row.head_seq, head);

    // The seat takes it back: the state is as before the move, the log says so, nobody is
    // mailed.
    let (status, body) = post_json(
        &client,
        &api(taken.seat),
        json!({"undo": true, "expected_seq": head}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["seq"], head + 1);
    let after = db.store.load(id).await.unwrap();
    assert_eq!(
        after.game.state_hash(),
        taken.before,
        "the undo restores the state"
    );
    let (_, _, lines) = after.log.last().unwrap();
    assert!(
        lines.iter().any(|l| l.contains("takes back")),
        "the log says it: {lines:?}"
    );
    assert_eq!(outbox_count(&db, id).await, mails, "an undo mails nobody");

    // Everyone's record shows the entry; the full record verifies.
    let export = db.store.export(id, Viewer::Spectator).await.unwrap();
    let last = export.commands.last().unwrap();
    assert_eq!(last.by.as_deref(), Some(BY_UNDO));
    assert_eq!(last.command, json!({"type": "undo"}));
    let full = db.store.export(id, Viewer::Auditor).await.unwrap();
    postplay::engine::audit::verify(postplay::games::ALL, &full, Some(&after.row.head_hash))
        .unwrap();

    // Play on: an undo right after dice were rolled is refused, as is one once the other side
    // has moved.
    let (mut saw_roll, mut saw_other) = (false, false);
    while !(saw_roll && saw_other) {
        let Some(step) = step(&db, id, &mut rng).await else {
            break;
        };
        let now = db.store.load(id).await.unwrap();
        let head = now.row.head_seq;
        let still = now.game.active().contains(&step.seat);
        let refused = if step.rolled && still && !saw_roll {
            saw_roll = true;
            Some(step.seat)
        } else if !still && !saw_other {
            saw_other = true;
            Some(step.seat)
        } else {
            None
        };
        if let Some(seat) = refused {
            let (status, body) = post_json(
                &client,
                &api(seat),
                json!({"undo": true, "expected_seq": head}),
            )
            .await;
            assert!(status == 422 || status == 403, "{status} {body}");
            let again = db.store.load(id).await.unwrap();
            assert_eq!(again.row.head_seq, head, "a refused undo writes nothing");
            assert_eq!(again.game.state_hash(), now.game.state_hash());
        }
    }
    assert!(saw_roll && saw_other, "the game showed both cases");
    db.drop().await;
}
