//! Audit against the database: export → import → verify on a fresh database (library and
//! CLI), tampered imports refused, and the replay viewer over every step of a game.

use crate::common;

use awc::Client;
use common::{TestDb, create_game, spawn_app};
use postplay::engine::audit::verify;
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{Record, Seed, Viewer};
use std::process::Command;

async fn play_to_the_end(db: &TestDb, id: i64, seed: u64) {
    let mut rng = bot_rng(&Seed::from_number(seed));
    loop {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return;
        }
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

fn postplay(args: &[&str], database_url: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[actix_web::test]
async fn export_import_verify_round_trip_on_a_fresh_database() {
    let source = TestDb::new().await;
    let (id, _) = create_game(&source, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 41).await;
    play_to_the_end(&source, id, 41).await;
    let exported = source.store.export(id, Viewer::Spectator).await.unwrap();
    assert!(
        verify(
            postplay::games::ALL,
            &exported,
            exported.chain_head.as_deref()
        )
        .is_ok()
    );

    let target = TestDb::new().await;
    let imported = target.store.import(&exported).await.unwrap();
    let again = target
        .store
        .export(imported.id, Viewer::Spectator)
        .await
        .unwrap();
    assert_eq!(
        again.commands, exported.commands,
        "times and hashes survive the move"
    );
    assert_eq!(again.chain_head, exported.chain_head);
    assert_eq!(again.seat_names, exported.seat_names);
    assert_eq!(again.final_state_hash, exported.final_state_hash);

    // The same through the command line.
    let dir = common::scratch::Scratch::new("audit-db");
    let file = dir.join("export.json");
    let out = postplay(
        &["export", &id.to_string(), "--out", file.to_str().unwrap()],
        &source.url(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = postplay(&["verify", file.to_str().unwrap()], &source.url());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains("token") && !text.contains('@'),
        "no tokens or emails in an export"
    );
    let out = postplay(&["import", file.to_str().unwrap()], &target.url());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("imported as game "));

    // A tampered record is refused and nothing is stored.
    let mut forged: Record = exported.clone();
    forged.commands[3].seat = (forged.commands[3].seat + 1) % 4;
    let before: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(target.store.pool())
        .await
        .unwrap();
    let refused = target.store.import(&forged).await.unwrap_err();
    assert!(
        refused.to_string().contains("entry 4: hash mismatch"),
        "{refused}"
    );
    let after: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(target.store.pool())
        .await
        .unwrap();
    assert_eq!(before, after);
    let forged_file = dir.join("forged.json");
    std::fs::write(&forged_file, serde_json::to_string(&forged).unwrap()).unwrap();
    let out = postplay(&["import", forged_file.to_str().unwrap()], &target.url());
    assert!(!out.status.success());
    source.drop().await;
    target.drop().await;
}

#[actix_web::test]
async fn the_replay_viewer_renders_every_step() {
    replay_viewer_renders_every_step("whitehouse", &["Ann", "Bo", "Cy", "Di"]).await;
}

#[actix_web::test]
async fn the_replay_viewer_renders_every_step_of_nationhood() {
    replay_viewer_renders_every_step("nationhood", &["Ann", "Bo"]).await;
}

#[actix_web::test]
async fn the_replay_viewer_renders_every_step_of_votes_for_women() {
    replay_viewer_renders_every_step("votes-for-women", &["Ann", "Bo"]).await;
}

async fn replay_viewer_renders_every_step(kind: &str, names: &[&str]) {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, _) = create_game(&db, kind, names, 42).await;
    // While running: the public view only.
    let mut rng = bot_rng(&Seed::from_number(42));
    for _ in 0..5 {
        let loaded = db.store.load(id).await.unwrap();
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store.submit(id, seat, &command, None).await.unwrap();
    }
    let mut res = client
        .get(format!("{base}/games/{id}/replay?at=3&open=1"))
        .send()
        .await
        .unwrap();
    let page = String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
    assert!(
        !page.contains("all cards open"),
        "no open cards while the game runs"
    );
    let hands = db.store.load(id).await.unwrap().game.state_json()["hands"].clone();
    for card in hands
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h.as_array().unwrap())
    {
        assert!(
            !page.contains(&format!("data-card={card}")),
            "hidden {card} in a running game's replay"
        );
    }
    play_to_the_end(&db, id, 43).await;
    let head = db.store.game(id).await.unwrap().unwrap().head_seq;
    for at in 0..=head {
        for open in ["", "&open=1"] {
            let mut res = client
                .get(format!("{base}/games/{id}/replay?at={at}{open}"))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status().as_u16(), 200, "step {at}");
            let page =
                String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
            assert!(
                page.contains(&format!("Move <b>{at}</b> of {head}")),
                "step {at}"
            );
        }
    }
    let mut res = client
        .get(format!("{base}/games/{id}/replay?at=1&open=1"))
        .send()
        .await
        .unwrap();
    let page = String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
    assert!(
        page.contains("all cards open") && page.contains("hand</h2>"),
        "a finished game opens its cards"
    );
    db.drop().await;
}
