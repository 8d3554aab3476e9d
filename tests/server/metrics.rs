//! `/metrics` (docs/CONFIGURATION.md, "Metrics"): the real `postplay serve` serves Prometheus
//! text on its own address, whose counters move with real moves made over HTTP; the public
//! address has no `/metrics`; a metrics address already taken stops `serve` with a clear word.

use crate::common;

use awc::Client;
use common::ports::free_port;
use common::{TestDb, create_game_for};
use std::process::{Child, Command, Stdio};

fn serve(db: &TestDb, port: u16, metrics: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_postplay"));
    command
        .arg("serve")
        .env("DATABASE_URL", db.url())
        .env("POSTPLAY_BIND", format!("127.0.0.1:{port}"))
        .env("POSTPLAY_METRICS_BIND", metrics)
        .env("POSTPLAY_MAIL", "off")
        .env("POSTPLAY_BOT_SEARCHES", "0")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null());
    command
}

/// A running `serve`, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn get(client: &Client, url: &str) -> Result<(u16, String), String> {
    let mut res = client.get(url).send().await.map_err(|e| e.to_string())?;
    let body = res.body().limit(1 << 22).await.map_err(|e| e.to_string())?;
    Ok((
        res.status().as_u16(),
        String::from_utf8_lossy(&body).into_owned(),
    ))
}

/// The value of the sample named `name` whose labels include every one of `labels`
/// (`key="value"`), summed over the samples that match.
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    let mut found = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
        if metric == name && labels.iter().all(|l| rest.contains(l)) {
            *found.get_or_insert(0.0) += value.parse::<f64>().unwrap();
        }
    }
    found
}

async fn move_once(client: &Client, base: &str, db: &TestDb, id: i64, tokens: &[String]) {
    let loaded = db.store.clone_handle().load(id).await.unwrap();
    let seat = loaded.game.active()[0];
    let command = postplay::engine::bot::fill_at_random(
        &loaded.game.choices(seat)[0],
        &mut postplay::engine::GameRng::new(
            &postplay::engine::Seed::from_number(3),
            loaded.row.head_seq as u64,
        ),
    );
    let body =
        serde_json::json!({"command": command, "expected_seq": loaded.row.head_seq}).to_string();
    let res = client
        .post(format!("{base}/api/games/{id}/commands"))
        .bearer_auth(&tokens[seat])
        .insert_header(("Content-Type", "application/json"))
        .send_body(body)
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
}

#[actix_web::test]
async fn metrics_count_real_moves_on_their_own_address_only() {
    let db = TestDb::new().await;
    let (id, tokens) =
        create_game_for(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], true, 8).await;
    let (port, metrics_port) = (free_port(), free_port());
    let base = format!("http://127.0.0.1:{port}");
    let scrape_url = format!("http://127.0.0.1:{metrics_port}/metrics");
    let _server = Running(
        serve(&db, port, &format!("127.0.0.1:{metrics_port}"))
            .stderr(Stdio::null())
            .spawn()
            .expect("postplay serve starts"),
    );
    let client = Client::default();
    common::wait::until(
        "the metrics address to answer",
        common::wait::PATIENCE,
        async || {
            get(&client, &scrape_url).await.and_then(|(status, _)| {
                (status == 200)
                    .then_some(())
                    .ok_or(format!("status {status}"))
            })
        },
    )
    .await;
    common::wait::until(
        "the public address to answer",
        common::wait::PATIENCE,
        async || get(&client, &format!("{base}/healthz")).await,
    )
    .await;

    let start = db.store.clone_handle().load(id).await.unwrap().row.head_seq;
    for _ in 0..3 {
        move_once(&client, &base, &db, id, &tokens).await;
    }
    // A command that is no command of the game: refused, and counted.
    let refused = client
        .post(format!("{base}/api/games/{id}/commands"))
        .bearer_auth(&tokens[0])
        .insert_header(("Content-Type", "application/json"))
        .send_body(r#"{"command": {"no": "such"}}"#)
        .await
        .unwrap();
    assert!(refused.status().is_client_error(), "{}", refused.status());

    let (status, text) = get(&client, &scrape_url).await.unwrap();
    assert_eq!(status, 200);
    let head = db.store.clone_handle().load(id).await.unwrap().row.head_seq;
    let game = r#"game="whitehouse""#;
    assert_eq!(
        sample(&text, "postplay_moves_total", &[game, r#"mark="seat""#]),
        Some(3.0),
        "{text}"
    );
    // Every entry appended (the seats' and those played for them) was counted once.
    assert_eq!(
        sample(&text, "postplay_moves_total", &[game]),
        Some((head - start) as f64),
        "{text}"
    );
    assert!(
        sample(&text, "postplay_refusals_total", &[]).is_some_and(|n| n >= 1.0),
        "{text}"
    );
    let timed = sample(
        &text,
        "postplay_http_request_duration_seconds_count",
        &[r#"group="api""#, r#"method="POST""#, r#"status="2xx""#],
    );
    assert_eq!(timed, Some(3.0), "{text}");
    // The outbox gauges read PostgreSQL: mail is off, so every notice the moves queued waits.
    let queued: i64 =
        sqlx::query_scalar("SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')")
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert!(queued > 0);
    assert_eq!(
        sample(&text, "postplay_outbox_queued", &[]),
        Some(queued as f64),
        "{text}"
    );
    assert!(sample(&text, "postplay_outbox_oldest_age_seconds", &[]).is_some_and(|s| s >= 0.0));
    assert!(sample(&text, "postplay_pool_connections", &[r#"state="idle""#]).is_some());
    assert!(sample(&text, "postplay_pool_max_connections", &[]).is_some_and(|n| n >= 1.0));

    // The public address never serves it.
    let (status, body) = get(&client, &format!("{base}/metrics")).await.unwrap();
    assert_eq!(status, 404);
    assert!(!body.contains("postplay_moves_total"));
    db.drop().await;
}

#[actix_web::test]
async fn a_metrics_address_in_use_stops_serve_with_a_clear_word() {
    let db = TestDb::new().await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let out = serve(&db, free_port(), &address)
        .stderr(Stdio::piped())
        .output()
        .expect("postplay serve runs");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!(
            "POSTPLAY_METRICS_BIND {address}: the address is already in use"
        )),
        "{said}"
    );
    drop(taken);
    db.drop().await;
}
