//! Durability: the real `postplay serve` is killed with SIGKILL mid-game and restarted; every
//! acknowledged move is still there and play continues.

use crate::common;

use awc::Client;
use common::{TestDb, create_game};
use std::process::{Child, Command, Stdio};

fn start_server(db: &TestDb, port: u16) -> Child {
    Command::new(env!("CARGO_BIN_EXE_postplay"))
        .arg("serve")
        .env("POSTPLAY_METRICS_BIND", "off")
        .env("DATABASE_URL", db.url())
        .env("POSTPLAY_BIND", format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("postplay serve starts")
}

async fn wait_healthy(client: &Client, base: &str) {
    common::wait::until(
        "the server to answer /healthz",
        common::wait::PATIENCE,
        async || match client.get(format!("{base}/healthz")).send().await {
            Ok(res) if res.status().is_success() => Ok(()),
            Ok(res) => Err(format!("status {}", res.status())),
            Err(e) => Err(e.to_string()),
        },
    )
    .await
}

async fn move_once(client: &Client, base: &str, id: i64, tokens: &[String], db: &TestDb) -> i64 {
    let loaded = db.store.clone_handle().load(id).await.unwrap();
    let seat = loaded.game.active()[0];
    let command = postplay::engine::bot::fill_at_random(
        &loaded.game.choices(seat)[0],
        &mut postplay::engine::GameRng::new(
            &postplay::engine::Seed::from_number(1),
            loaded.row.head_seq as u64,
        ),
    );
    let body =
        serde_json::json!({"command": command, "expected_seq": loaded.row.head_seq}).to_string();
    let mut res = client
        .post(format!("{base}/api/games/{id}/commands"))
        .bearer_auth(&tokens[seat])
        .insert_header(("Content-Type", "application/json"))
        .send_body(body)
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
    let answer: serde_json::Value = serde_json::from_slice(&res.body().await.unwrap()).unwrap();
    answer["seq"].as_i64().unwrap()
}

#[actix_web::test]
async fn acknowledged_moves_survive_sigkill() {
    let db = TestDb::new().await;
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 21).await;
    let port = crate::common::ports::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let client = Client::default();

    let mut server = start_server(&db, port);
    wait_healthy(&client, &base).await;
    let mut acknowledged = 0;
    for _ in 0..6 {
        acknowledged = move_once(&client, &base, id, &tokens, &db).await;
    }
    server.kill().expect("SIGKILL");
    server.wait().unwrap();

    let mut server = start_server(&db, port);
    wait_healthy(&client, &base).await;
    let row = db.store.game(id).await.unwrap().unwrap();
    assert_eq!(
        row.head_seq, acknowledged,
        "every acknowledged move is there"
    );
    let next = move_once(&client, &base, id, &tokens, &db).await;
    assert_eq!(next, acknowledged + 1, "play continues after the restart");
    server.kill().unwrap();
    server.wait().unwrap();
    db.drop().await;
}
