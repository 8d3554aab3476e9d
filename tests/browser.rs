//! A real browser: headless Chromium, driven over the W3C WebDriver protocol (chromedriver),
//! opens a play link, makes a move by clicking, and sees the board update. The screenshot is
//! saved as target/browser-play.png.

mod common;

use awc::Client;
use base64::Engine;
use common::{TestDb, create_game, spawn_app};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    process: Child,
    /// Chromium's profile folder, removed when the driver is dropped.
    _profile: common::scratch::Scratch,
    base: String,
    session: String,
    client: Client,
}

impl Driver {
    async fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let process = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver runs (Debian package chromium-driver)");
        let base = format!("http://127.0.0.1:{port}");
        let client = Client::builder().timeout(Duration::from_secs(60)).finish();
        for _ in 0..100 {
            if let Ok(mut res) = client.get(format!("{base}/status")).send().await {
                let status: Value =
                    serde_json::from_slice(&res.body().await.unwrap()).unwrap_or_default();
                if status["value"]["ready"] == true {
                    break;
                }
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
        let profile = common::scratch::Scratch::new("chromium");
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--no-first-run", "--disable-quic", "--window-size=800,1200",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let mut driver = Driver {
            process,
            _profile: profile,
            base,
            session: String::new(),
            client,
        };
        let created = driver.call("POST", "/session", Some(capabilities)).await;
        driver.session = created["sessionId"]
            .as_str()
            .expect("a WebDriver session")
            .to_string();
        driver
    }

    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = if path == "/session" {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let request = match method {
            "GET" => self.client.get(url),
            "DELETE" => self.client.delete(url),
            _ => self.client.post(url),
        };
        let mut res = match body {
            Some(body) => request.send_json(&body).await.unwrap(),
            None if method == "POST" => request.send_json(&json!({})).await.unwrap(),
            None => request.send().await.unwrap(),
        };
        let answer: Value =
            serde_json::from_slice(&res.body().limit(1 << 26).await.unwrap()).unwrap();
        assert!(
            answer["value"]["error"].is_null(),
            "WebDriver {path}: {answer}"
        );
        answer["value"].clone()
    }

    async fn find(&self, css: &str) -> String {
        let found = self
            .call(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .await;
        found[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    async fn source(&self) -> String {
        self.call("GET", "/source", None)
            .await
            .as_str()
            .unwrap()
            .to_string()
    }
}

#[actix_web::test]
async fn a_player_moves_by_clicking_and_sees_the_board_update() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 31).await;
    let seat = db.store.load(id).await.unwrap().game.active()[0];
    let names = ["Ann", "Bo", "Cy", "Di"];
    let mut driver = Driver::start().await;
    driver
        .call(
            "POST",
            "/url",
            Some(json!({"url": format!("{base}/play/{}", tokens[seat])})),
        )
        .await;
    let before = driver.source().await;
    assert!(
        before.contains("Your move"),
        "the seat to move sees its choices"
    );
    assert!(
        before.contains("class=\"card"),
        "its hand is drawn as cards"
    );
    // The first choice of the bidding is "Pass": click its button.
    let button = driver.find("form.choice button").await;
    driver
        .call("POST", &format!("/element/{button}/click"), None)
        .await;
    let mut after = String::new();
    for _ in 0..50 {
        after = driver.source().await;
        if after.contains(&format!("{} passes", names[seat])) {
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        after.contains(&format!("{} passes", names[seat])),
        "the log shows the move"
    );
    assert!(
        after.contains("Waiting for"),
        "the page now waits for the next player"
    );
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);
    let png = driver.call("GET", "/screenshot", None).await;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(png.as_str().unwrap())
        .unwrap();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-play.png");
    // The build may use a target folder elsewhere (CARGO_TARGET_DIR): make this one.
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    // One step of the replay viewer, and a step forward with the arrow key.
    driver
        .call(
            "POST",
            "/url",
            Some(json!({"url": format!("{base}/games/{id}/replay?at=0")})),
        )
        .await;
    assert!(driver.source().await.contains("Move <b>0</b> of 1"));
    let body = driver.find("body").await;
    driver
        .call(
            "POST",
            &format!("/element/{body}/value"),
            Some(json!({"text": "\u{E014}"})),
        )
        .await;
    let mut stepped = false;
    for _ in 0..50 {
        if driver.source().await.contains("Move <b>1</b> of 1") {
            stepped = true;
            break;
        }
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(stepped, "the right arrow steps forward");
    let png = driver.call("GET", "/screenshot", None).await;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(png.as_str().unwrap())
        .unwrap();
    std::fs::write(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-replay.png"),
        bytes,
    )
    .unwrap();
    driver.call("DELETE", "", None).await;
    driver.process.kill().ok();
    driver.process.wait().ok();
    driver.process.wait().ok();
    db.drop().await;
}
