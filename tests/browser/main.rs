//! A real browser: headless Chromium, driven over the W3C WebDriver protocol (chromedriver),
//! plays as a first-time player would: opens a play link, moves by clicking, plays a whole
//! Whitehouse hand by tapping cards at phone size, reads the trick's cards, sees a refused
//! kitty keep its ticks, creates a game and reloads, and meets error pages. Screenshots are
//! saved in the build's target folder (browser-*.png).

mod accessibility;
#[path = "../common/mod.rs"]
mod common;
mod first_hour;
mod first_hour_vfw;
mod hints;
mod keyboard;
mod review;

use awc::Client;
use base64::Engine;
use common::{TestDb, create_game, spawn_app, wait};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Driver {
    _turn: tokio::sync::MutexGuard<'static, ()>,
    process: Child,
    /// Chromium's profile folder, removed when the driver is dropped.
    _profile: common::scratch::Scratch,
    base: String,
    session: String,
    client: Client,
}

/// The port chromedriver says it listens on ("ChromeDriver was started successfully on port
/// N."), read from its standard output; the rest of the output is read and dropped on a
/// thread of its own so that chromedriver never waits on a full pipe.
async fn started_on(process: &mut Child) -> u16 {
    use std::io::BufRead;
    let stdout = process
        .stdout
        .take()
        .expect("chromedriver's stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(stdout).lines();
        let mut seen = Vec::new();
        for line in lines.by_ref().map_while(Result::ok) {
            let port = line
                .split_once("started successfully on port ")
                .and_then(|(_, rest)| rest.trim_end_matches('.').trim().parse::<u16>().ok());
            if let Some(port) = port {
                let _ = tx.send(Ok(port));
                lines.for_each(drop);
                return;
            }
            seen.push(line);
        }
        let _ = tx.send(Err(seen.join("\n")));
    });
    wait::until(
        "chromedriver to say its port",
        wait::PATIENCE,
        async || match rx.try_recv() {
            Ok(Ok(port)) => Ok(port),
            Ok(Err(output)) => panic!("chromedriver ended without a port: {output}"),
            Err(e) => Err(e.to_string()),
        },
    )
    .await
}

/// One browser at a time: Chromium instances started together on a small machine may fail to
/// start, and each test's timings are its own.
static ONE_BROWSER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Driver {
    async fn start() -> Driver {
        Driver::start_with(true).await
    }

    /// A browser whose pages run no JavaScript when `javascript` is false (a player who turned
    /// it off): only the server's HTML and plain forms.
    async fn start_with(javascript: bool) -> Driver {
        let turn = ONE_BROWSER.lock().await;
        // chromedriver picks its own port and says which: a port picked here and let go
        // before chromedriver binds it can be taken meanwhile by a server another test starts.
        let mut process = Command::new("chromedriver")
            .arg("--port=0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver runs (Debian package chromium-driver)");
        let port = started_on(&mut process).await;
        let base = format!("http://127.0.0.1:{port}");
        let client = Client::builder().timeout(Duration::from_secs(60)).finish();
        wait::until("chromedriver to be ready", wait::PATIENCE, async || {
            let mut res = client
                .get(format!("{base}/status"))
                .send()
                .await
                .map_err(|e| e.to_string())?;
            let status: Value =
                serde_json::from_slice(&res.body().await.map_err(|e| e.to_string())?)
                    .unwrap_or_default();
            if status["value"]["ready"] == true {
                Ok(())
            } else {
                Err(status.to_string())
            }
        })
        .await;
        let profile = common::scratch::Scratch::new("chromium");
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--no-first-run", "--disable-quic", "--window-size=800,1200",
                         format!("--user-data-dir={}", profile.display())],
                "prefs": if javascript { json!({}) } else {
                    json!({"profile.managed_default_content_settings.javascript": 2})
                }
            }
        }}});
        let mut driver = Driver {
            _turn: turn,
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

    /// Opens `url` and waits until the browser shows that address's document, fully loaded:
    /// a read right after is a read of that page, never of the one before.
    async fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url }))).await;
        let wanted = url.to_string();
        wait::until(&format!("the page {url}"), wait::PATIENCE, async || {
            let at = self
                .script("return [location.href, document.readyState];")
                .await;
            if at[0] == wanted.as_str() && at[1] == "complete" {
                Ok(())
            } else {
                Err(format!("{at}"))
            }
        })
        .await;
    }

    /// Waits until the page's source satisfies `test`; the source. On failure the panic says
    /// `what` was awaited and shows the page as it was.
    async fn wait_source(&self, what: &str, test: impl Fn(&str) -> bool) -> String {
        wait::until_some(
            what,
            wait::PATIENCE,
            async || Some(self.source().await).filter(|page| test(page)),
            async || self.seen().await,
        )
        .await
    }

    /// Waits until `script` (a function body) returns something other than `null`; that.
    async fn wait_script(&self, what: &str, script: &str) -> Value {
        wait::until_some(
            what,
            wait::PATIENCE,
            async || Some(self.script(script).await).filter(|found| !found.is_null()),
            async || self.seen().await,
        )
        .await
    }

    /// Where the browser is and the text it shows, for a failure's message.
    async fn seen(&self) -> String {
        let page = self.source().await;
        format!("{}\n{}", self.address().await, visible_text(&page))
    }

    /// The browser's address now.
    async fn address(&self) -> String {
        self.call("GET", "/url", None)
            .await
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// Runs `script` (a function body) in the page and returns what it returns.
    async fn script(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
        .await
    }

    /// Taps the element `css` finds, scrolled to the middle of the screen first, as a person
    /// scrolls before tapping: the driver scrolls only an element out of view, and one near the
    /// bottom may lie under a sticky bar (a placement's submit button).
    async fn click(&self, css: &str) {
        let element = self.find(css).await;
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({
                "script": "arguments[0].scrollIntoView({block: 'center', inline: 'nearest'});",
                "args": [{(ELEMENT): element}],
            })),
        )
        .await;
        self.call("POST", &format!("/element/{element}/click"), None)
            .await;
    }

    /// Sets the size of the page's viewport (the window is made to fit it).
    async fn viewport(&self, width: i64, height: i64) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        )
        .await;
        let inner = self
            .script("return [window.innerWidth, window.innerHeight];")
            .await;
        let (w, h) = (inner[0].as_i64().unwrap(), inner[1].as_i64().unwrap());
        self.call(
            "POST",
            "/window/rect",
            Some(json!({"width": 2 * width - w, "height": 2 * height - h})),
        )
        .await;
    }

    /// Saves a screenshot as target/browser-{name}.png.
    async fn screenshot(&self, name: &str) {
        let png = self.call("GET", "/screenshot", None).await;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/browser-{name}.png"));
        // The build may use a target folder elsewhere (CARGO_TARGET_DIR): make this one.
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
    }

    async fn stop(mut self) {
        self.call("DELETE", "", None).await;
        self.process.kill().ok();
        self.process.wait().ok();
    }

    async fn source(&self) -> String {
        self.call("GET", "/source", None)
            .await
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The text of a page without its markup, shortened: what a failure message shows of it.
fn visible_text(page: &str) -> String {
    let body = page.split("<body").nth(1).unwrap_or(page);
    let mut text = String::new();
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ");
    joined.chars().take(1500).collect()
}

#[actix_web::test]
async fn a_player_moves_by_clicking_and_sees_the_board_update() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 31).await;
    let seat = db.store.load(id).await.unwrap().game.active()[0];
    let names = ["Ann", "Bo", "Cy", "Di"];
    let driver = Driver::start().await;
    driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
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
    driver.click("form.choice button").await;
    let passes = format!("{} passes", names[seat]);
    let after = driver
        .wait_source("the log to show the pass", |page| page.contains(&passes))
        .await;
    assert!(
        after.contains("Waiting for"),
        "the page now waits for the next player: {after}"
    );
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);
    driver.screenshot("play").await;
    // One step of the replay viewer, and a step forward with the arrow key.
    driver.goto(&format!("{base}/games/{id}/replay?at=0")).await;
    driver
        .wait_source("the replay at move 0", |page| {
            page.contains("Move <b>0</b> of 1")
        })
        .await;
    let body = driver.find("body").await;
    driver
        .call(
            "POST",
            &format!("/element/{body}/value"),
            Some(json!({"text": "\u{E014}"})),
        )
        .await;
    driver
        .wait_source("the right arrow to step forward", |page| {
            page.contains("Move <b>1</b> of 1")
        })
        .await;
    driver.screenshot("replay").await;
    driver.stop().await;
    db.drop().await;
}

fn spectator_view(loaded: &postplay::store::Loaded) -> Value {
    loaded.game.view(postplay::engine::Viewer::Spectator)
}

/// Waits until game `id` has moved past `head` after the browser made a move.
async fn wait_moved_past(db: &TestDb, driver: &Driver, id: i64, head: i64) {
    wait::until_some(
        &format!("game {id} to move past {head}"),
        wait::PATIENCE,
        async || (db.store.game(id).await.unwrap().unwrap().head_seq > head).then_some(()),
        async || {
            let now = db.store.game(id).await.unwrap().unwrap().head_seq;
            format!("head {now}; {}", driver.seen().await)
        },
    )
    .await
}

/// Every card on the table must be readable: each text's colour differs from the colour of
/// the nearest background behind it.
const UNREADABLE_CARD_TEXT: &str = r#"
const background = (el) => {
  for (; el; el = el.parentElement) {
    const bg = getComputedStyle(el).backgroundColor;
    if (bg && bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
  }
  return 'rgb(255, 255, 255)';
};
const bad = [];
for (const text of document.querySelectorAll('.board .table .card b, .board .table .card .state, .board .table .card i')) {
  if (getComputedStyle(text).color === background(text)) bad.push(text.textContent);
}
return bad;
"#;

/// A first-time player at a phone: every seat's page in turn, at 390×844, shows the move's
/// controls on the first screen; the hand is drawn once, its legal cards the buttons; the
/// cards of the trick are readable; a whole hand of twelve tricks is played by tapping.
#[actix_web::test]
async fn a_whole_whitehouse_hand_is_played_by_tapping_cards_at_phone_size() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let names = ["Ann", "Bo", "Cy", "Di"];
    let (id, tokens) = create_game(&db, "whitehouse", &names, 52).await;
    common::play_until(&db, id, 52, |loaded| {
        spectator_view(loaded)["phase"] == "play"
    })
    .await;
    let start = db.store.load(id).await.unwrap();
    let hand = spectator_view(&start)["hand_number"].clone();
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let mut taps = 0;
    let mut trick_checked = 0;
    loop {
        let loaded = db.store.load(id).await.unwrap();
        let view = spectator_view(&loaded);
        if view["hand_number"] != hand || loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let legal = match &loaded.game.choices(seat)[0].params[0].kind {
            postplay::engine::ParamKind::One { options } => options.len(),
            other => panic!("a card to play, not {other:?}"),
        };
        let held = loaded.game.view(postplay::engine::Viewer::Seat(seat))["hands"][seat]
            .as_array()
            .unwrap()
            .clone();
        driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
        let page = driver
            .script(
                "const tap = document.querySelector('button.tap');
                 return {
                   taps: document.querySelectorAll('button.tap').length,
                   inHand: document.querySelectorAll('form.hand .card').length,
                   firstScreen: tap ? tap.getBoundingClientRect().bottom <= window.innerHeight : false,
                   you: document.querySelector('.board .at-south b').textContent,
                   partner: document.querySelector('.board .at-north').textContent,
                   cards: [...document.querySelectorAll('[data-card]')].map(c => c.dataset.card),
                 };",
            )
            .await;
        assert_eq!(page["taps"], legal, "a button for each legal card");
        assert_eq!(page["inHand"], held.len(), "the whole hand, once");
        if page["firstScreen"] != true {
            driver.screenshot("phone-first-screen").await;
        }
        assert_eq!(
            page["firstScreen"], true,
            "the move's controls on the first screen of a phone"
        );
        assert_eq!(page["you"], names[seat], "the viewer sits at the bottom");
        let partner = page["partner"].as_str().unwrap();
        assert!(
            partner.contains(names[(seat + 2) % 4]) && partner.contains("your partner"),
            "the partner sits opposite, named: {partner}"
        );
        for card in &held {
            let shown = page["cards"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| *c == card)
                .count();
            assert_eq!(shown, 1, "{card} is drawn once");
        }
        if !view["trick"].as_array().unwrap().is_empty() {
            let unreadable = driver.script(UNREADABLE_CARD_TEXT).await;
            assert_eq!(
                unreadable,
                json!([]),
                "card text the colour of its background"
            );
            trick_checked += 1;
        }
        if taps == 5 {
            driver.screenshot("phone-tap").await;
        }
        driver.click("button.tap").await;
        wait_moved_past(&db, &driver, id, loaded.row.head_seq).await;
        taps += 1;
    }
    assert_eq!(
        taps, 44,
        "eleven tricks of four cards, each played by a tap; the last trick plays itself"
    );
    let played_at_once = db
        .store
        .commands(id, start.row.head_seq)
        .await
        .unwrap()
        .iter()
        .filter(|c| c.by() == Some("auto"))
        .count();
    assert_eq!(
        played_at_once, 4,
        "every seat's last card, forced in public"
    );
    assert!(
        trick_checked >= 33,
        "the trick was read at {trick_checked} taps"
    );
    let log = db.store.load(id).await.unwrap();
    assert!(log.log.iter().any(|(_, _, lines)| {
        lines
            .iter()
            .any(|l| l.contains("deals hand 2") || l.contains("game over"))
    }));
    driver.stop().await;
    db.drop().await;
}

/// The kitty laid back with one card too few: the page says so in words and keeps the ticks.
#[actix_web::test]
async fn a_refused_kitty_keeps_its_ticks_in_the_browser() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 53).await;
    common::play_until(&db, id, 53, |loaded| {
        spectator_view(loaded)["phase"] == "kitty"
    })
    .await;
    let loaded = db.store.load(id).await.unwrap();
    let seat = loaded.game.active()[0];
    let driver = Driver::start().await;
    driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
    let ticked = driver
        .script(
            "const boxes = [...document.querySelectorAll('form.hand input[type=checkbox]')];
             boxes.slice(0, 5).forEach(b => b.click());
             return boxes.length;",
        )
        .await;
    assert_eq!(ticked, 18, "the hand and the kitty, ticked on the hand");
    driver.click("form.hand button.primary").await;
    let answer = driver
        .wait_script(
            "the refusal of the kitty",
            "const alert = document.querySelector('[role=alert]');
             return alert ? {
               alert: alert.textContent,
               checked: document.querySelectorAll('form.hand input:checked').length,
             } : null;",
        )
        .await;
    assert!(
        answer["alert"]
            .as_str()
            .is_some_and(|a| a.contains("Choose 6; you chose 5.")),
        "{answer}"
    );
    assert_eq!(answer["checked"], 5, "the five ticks are kept");
    driver.screenshot("kitty-refused").await;
    assert_eq!(
        db.store.game(id).await.unwrap().unwrap().head_seq,
        loaded.row.head_seq
    );
    driver.stop().await;
    db.drop().await;
}

/// An organiser creates a game in the browser and reloads the page that shows its links: one
/// game, one invitation a player; from the desk sends an invitation again and cancels the game,
/// which the players' pages then show. A wrong link and a missing game answer with pages.
#[actix_web::test]
async fn creating_then_reloading_makes_one_game_and_errors_are_pages() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.goto(&format!("{base}/new/whitehouse")).await;
    driver.screenshot("new").await;
    driver
        .script(
            "['Ann', 'Bo', 'Cy', 'Di'].forEach((name, i) => {
               document.querySelector(`[name=name${i}]`).value = name;
               document.querySelector(`[name=email${i}]`).value = `${name.toLowerCase()}@example.org`;
             });",
        )
        .await;
    driver.click("form button.primary").await;
    let created = driver
        .wait_source("the page of the new game's links", |page| {
            page.contains("/manage/")
        })
        .await;
    assert!(
        !created.contains("/play/") && created.contains("invitation on its way to b…@e…"),
        "the organiser is shown no seat's link: {created}"
    );
    driver.script("window.beforeReload = true;").await;
    driver.call("POST", "/refresh", None).await;
    driver
        .wait_script(
            "the links again after reloading",
            "return !window.beforeReload && document.readyState === 'complete'
                && document.body.innerHTML.includes('/manage/') ? true : null;",
        )
        .await;
    let count = |sql: &'static str| {
        let pool = db.store.pool().clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(count("SELECT count(*) FROM games").await, 1);
    assert_eq!(
        count("SELECT count(*) FROM outbox WHERE kind = 'invite'").await,
        4,
        "one invitation a player"
    );
    // The organiser's desk: send Bo's invitation again, then cancel the game with a reason.
    let links = driver
        .script(
            "return [...document.querySelectorAll('a')].map(a => a.href)
               .filter(h => h.includes('/manage/'));",
        )
        .await;
    let links: Vec<String> = serde_json::from_value(links).unwrap();
    let desk = links[0].clone();
    let id: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let play = format!("{base}/games/{id}");
    driver.goto(&desk).await;
    driver.click("form[action$='/invite/1'] button").await;
    driver
        .wait_source("the desk to say the invitation went again", |page| {
            page.contains("Invitation sent again")
        })
        .await;
    assert_eq!(
        count("SELECT count(*) FROM outbox WHERE kind = 'invite'").await,
        5,
        "the invitation went again"
    );
    driver
        .script(
            "document.querySelector('[name=reason]').value = 'Bo moved away';
             document.querySelector('[name=confirm]').checked = true;",
        )
        .await;
    driver.click("form[action$='/cancel'] button").await;
    driver
        .wait_source("the desk to say the game is cancelled", |page| {
            page.contains("The game is cancelled")
        })
        .await;
    assert_eq!(
        count("SELECT count(*) FROM games WHERE status = 'over'").await,
        1,
        "the game is cancelled"
    );
    driver.goto(&play).await;
    let banner = driver
        .script("return document.querySelector('.ending').textContent;")
        .await;
    assert!(
        banner
            .as_str()
            .is_some_and(|b| b.contains("Cancelled by the organiser: Bo moved away")),
        "{banner}"
    );
    let marked = driver
        .script("return document.querySelectorAll('.board .turn, .board .waiting').length;")
        .await;
    assert_eq!(marked, 0, "nobody is marked to move in a game that is over");
    driver.screenshot("cancelled").await;
    for path in ["/play/not-a-link", "/games/999999", "/no/such/page"] {
        driver.goto(&format!("{base}{path}")).await;
        let page = driver
            .script("return [document.contentType, document.querySelector('h1') && document.querySelector('h1').textContent];")
            .await;
        assert_eq!(page[0], "text/html", "{path}");
        assert!(page[1].is_string(), "{path}: a heading");
    }
    driver.stop().await;
    db.drop().await;
}

/// At phone size a seat to move reaches its move's controls at once, by the status line's
/// "Your move" link, in every game, at several points of a game; the board is shown whole,
/// never a scroll box.
#[actix_web::test]
async fn every_game_shows_the_move_on_a_phones_first_screen() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let names = ["Ann", "Bo", "Cy", "Di"];
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    for (kind, seats, seed) in [
        ("whitehouse", 4, 71),
        ("statehood", 3, 72),
        ("electoral-combat", 2, 73),
        ("nationhood", 2, 74),
        ("votes-for-women", 2, 75),
    ] {
        let (id, tokens) = create_game(&db, kind, &names[..seats], seed).await;
        for step in [0, 7, 25, 60] {
            common::play_until(&db, id, seed, |loaded| loaded.row.head_seq >= step).await;
            let loaded = db.store.load(id).await.unwrap();
            if loaded.game.outcome().is_some() {
                break;
            }
            let seat = loaded.game.active()[0];
            let head = loaded.row.head_seq;
            driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
            let first = wait::until(
                &format!("{kind}: seat {seat}'s page at move {head} with its move"),
                wait::PATIENCE,
                async || {
                    let page = driver
                        .script(
                            "const link = document.querySelector('.status.yours a[href=\"#choices\"]');
                             if (link) link.click();
                             const c = document.querySelector('#choices button, #choices input:not([type=hidden])');
                             const box = getComputedStyle(document.querySelector('.table-panel')).overflowY;
                             if (box === 'auto' || box === 'scroll') return [false, 'the board scrolls in a box'];
                             return [c ? link !== null && c.getBoundingClientRect().top < window.innerHeight : null,
                                     document.getElementById('live').dataset.head];",
                        )
                        .await;
                    if page[0].is_null() {
                        Err(format!("no control on a page at head {}", page[1]))
                    } else {
                        Ok(page[0].clone())
                    }
                },
            )
            .await;
            if first != true {
                driver.screenshot(&format!("phone-{kind}-{step}")).await;
            }
            assert_eq!(
                first, true,
                "{kind} at move {}: the first control on the first screen",
                loaded.row.head_seq
            );
        }
    }
    driver.stop().await;
    db.drop().await;
}

/// Puts the browser in the session `token` (a session it signed in to earlier by mail):
/// one browser plays three people, each of whom keeps their own session cookie.
async fn use_session(driver: &Driver, base: &str, token: &str) {
    driver.goto(&format!("{base}/lobby")).await;
    driver.call("DELETE", "/cookie", None).await;
    driver
        .call(
            "POST",
            "/cookie",
            Some(json!({"cookie": {"name": "pp_session", "value": token, "path": "/", "httpOnly": true}})),
        )
        .await;
}

/// Waits until the browser's address contains `part` and its page is loaded; the address.
async fn wait_for_url(driver: &Driver, part: &str) -> String {
    wait::until(
        &format!("the browser to reach {part}"),
        wait::PATIENCE,
        async || {
            let at = driver
                .script("return [location.href, document.readyState];")
                .await;
            match at[0].as_str() {
                Some(url) if url.contains(part) && at[1] == "complete" => Ok(url.to_string()),
                _ => Err(at.to_string()),
            }
        },
    )
    .await
}

/// Signs in as a new player would: types the address on /signin, follows the link of the mail
/// that arrives over SMTP, gives a name and signs in. The session cookie it got.
async fn sign_in_by_mail(
    driver: &Driver,
    base: &str,
    sink: &postplay::notices::mail::sink::SmtpSink,
    email: &str,
    name: &str,
) -> String {
    driver.goto(&format!("{base}/lobby")).await;
    driver.call("DELETE", "/cookie", None).await;
    driver.goto(&format!("{base}/signin?next=%2Flobby")).await;
    driver
        .script(&format!(
            "document.querySelector('input[name=email]').value = '{email}';"
        ))
        .await;
    driver.click("form button.primary").await;
    let token = wait::until(
        &format!("the sign-in mail to {email}"),
        wait::PATIENCE,
        async || {
            let mails = sink.received();
            mails
                .iter()
                .filter(|m| m.to == vec![email.to_string()])
                .find_map(|m| {
                    m.data
                        .split_whitespace()
                        .find_map(|w| w.split("/signin/").nth(1))
                        .map(|t| t.chars().take(40).collect::<String>())
                })
                .ok_or_else(|| format!("{} mails, none to {email} with a link", mails.len()))
        },
    )
    .await;
    driver.goto(&format!("{base}/signin/{token}")).await;
    driver
        .script(&format!(
            "document.querySelector('input[name=name]').value = '{name}';"
        ))
        .await;
    driver.click("form button.primary").await;
    wait_for_url(driver, "/lobby").await;
    driver.call("GET", "/cookie/pp_session", None).await["value"]
        .as_str()
        .expect("a session cookie after signing in")
        .to_string()
}

/// Waits until the move the browser just sent is made (true) or refused on the page (false).
async fn made_or_refused(db: &TestDb, driver: &Driver, id: i64, head: i64) -> bool {
    wait::until_some(
        "the move to be made or refused",
        wait::PATIENCE,
        async || {
            if db.store.game(id).await.unwrap().unwrap().head_seq > head {
                return Some(true);
            }
            let refused = driver
                .script(
                    "return document.readyState === 'complete'
                        && document.querySelector('[role=alert]') ? true : null;",
                )
                .await;
            (refused == true).then_some(false)
        },
        async || format!("head {head}; {}", driver.seen().await),
    )
    .await
}

/// Makes the page's move as a player would, for the choice numbered `arguments[0]`: a tap on
/// one of its cards (`arguments[1]` picks which), or its button with its radio buttons and the
/// fewest boxes it asks for ticked. Returns how it moved.
const MAKE_A_MOVE: &str = r#"
const [choice, pick] = arguments;
for (const form of document.querySelectorAll('#choices form.choice')) {
  if (form.querySelector('input[name=choice]').value !== String(choice)) continue;
  const taps = form.querySelectorAll('button.tap');
  if (taps.length) { taps[pick % taps.length].click(); return 'tap'; }
  for (const fs of form.querySelectorAll('fieldset')) {
    const radios = fs.querySelectorAll('input[type=radio]');
    if (radios.length && ![...radios].some(r => r.checked)) radios[pick % radios.length].checked = true;
    const boxes = [...fs.querySelectorAll('input[type=checkbox]')];
    const m = /Pick (\d+)/.exec(fs.textContent);
    let n = boxes.filter(b => b.checked).length;
    for (const b of boxes) { if (!m || n >= +m[1]) break; if (!b.checked) { b.checked = true; n++; } }
  }
  const button = form.querySelector('button.primary');
  if (button) { button.click(); return 'form'; }
}
return 'none';
"#;

/// Plays game `id` to its end as its players would: for each move, the seat's holder (by
/// name, with `sessions` in the same order as `names`) opens the seat from "my games" and
/// clicks a choice picked by a seeded draw. A choice the simple clicker cannot fill (a pick
/// with a rule, refused on the page) is the bot's move, made through the store. Ends on the
/// last mover's page; returns (moves clicked, moves made through the store).
async fn play_by_clicking(
    db: &TestDb,
    driver: &Driver,
    base: &str,
    id: i64,
    names: &[&str],
    sessions: &[String],
    seed: u64,
) -> (usize, usize) {
    let owners: Vec<String> = sqlx::query_scalar(
        "SELECT a.name FROM seats s JOIN accounts a ON a.id = s.account_id \
         WHERE s.game_id = $1 ORDER BY s.seat",
    )
    .bind(id)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    let seats = db.store.game(id).await.unwrap().unwrap().seat_count as usize;
    assert_eq!(owners.len(), seats, "every seat is its player's");
    let open_seat = async |seat: usize| {
        let at = names.iter().position(|n| *n == owners[seat]).unwrap();
        use_session(driver, base, &sessions[at]).await;
        driver.goto(&format!("{base}/me")).await;
        driver
            .click(&format!("form[action='/me/games/{id}/{seat}'] button"))
            .await;
        wait_for_url(driver, "/play/").await;
    };
    let (mut clicked, mut by_hand) = (0, 0);
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    let mut last = 0;
    for _ in 0..600 {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        last = seat;
        open_seat(seat).await;
        let choices = loaded.game.choices(seat);
        let choice = rng.index(choices.len());
        let how = driver
            .call(
                "POST",
                "/execute/sync",
                Some(json!({"script": MAKE_A_MOVE, "args": [choice, rng.index(64)]})),
            )
            .await;
        if how != "none" && made_or_refused(db, driver, id, loaded.row.head_seq).await {
            clicked += 1;
            continue;
        }
        let command = postplay::engine::bot::fill_at_random(&choices[choice], &mut rng);
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        by_hand += 1;
    }
    let end = db.store.load(id).await.unwrap();
    assert!(end.game.outcome().is_some(), "the game ended");
    open_seat(last).await;
    (clicked, by_hand)
}

/// Issue 17: a game opened with open seats, filled from the lobby by three signed-in players
/// in the browser, then played to its end through the seats' pages in the browser.
#[actix_web::test]
async fn a_table_opened_in_the_lobby_fills_with_three_players_and_is_played_to_its_end() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = postplay::notices::mail::sink::SmtpSink::start()
        .await
        .unwrap();
    let worker = common::mailrig::spawn_worker(&db, &base, sink.port(), common::mailrig::quick());
    let driver = Driver::start().await;
    let mut sessions = Vec::new();
    for name in ["Ann", "Bo", "Cy"] {
        let email = format!("{}@example.org", name.to_lowercase());
        sessions.push(sign_in_by_mail(&driver, &base, &sink, &email, name).await);
    }
    use_session(&driver, &base, &sessions[0]).await;
    driver.goto(&format!("{base}/lobby/new/statehood")).await;
    driver
        .script(
            "document.querySelector('select[name=players]').value = '3';
             document.querySelector('input[name=opt_target]').value = '1';
             document.querySelector('select[name=clock]').value = 'none';",
        )
        .await;
    driver.click("form button.primary").await;
    let table: i64 = wait::until("the new table's page", wait::PATIENCE, async || {
        let at = driver
            .script("return [location.pathname, document.readyState];")
            .await;
        at[0]
            .as_str()
            .and_then(|path| path.strip_prefix("/lobby/"))
            .and_then(|id| id.parse().ok())
            .filter(|_| at[1] == "complete")
            .ok_or_else(|| at.to_string())
    })
    .await;
    for session in &sessions[1..] {
        use_session(&driver, &base, session).await;
        driver.goto(&format!("{base}/lobby")).await;
        driver.click(&format!("a[href='/lobby/{table}']")).await;
        wait_for_url(&driver, &format!("/lobby/{table}")).await;
        driver.click("#join").await;
        driver
            .wait_source("the table to seat the player", |page| {
                page.contains("You have a seat") || page.contains("has started")
            })
            .await;
    }
    let page = driver.source().await;
    assert!(page.contains("its game has started"), "{page}");
    driver.screenshot("lobby-started").await;
    let id: i64 = sqlx::query_scalar("SELECT game_id FROM open_tables WHERE id = $1")
        .bind(table)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let (clicked, by_hand) =
        play_by_clicking(&db, &driver, &base, id, &["Ann", "Bo", "Cy"], &sessions, 17).await;
    println!("moves clicked in the browser: {clicked}; played through the store: {by_hand}");
    assert!(
        clicked > by_hand,
        "most moves are made in the browser ({clicked} clicked, {by_hand} not)"
    );
    assert!(driver.source().await.contains("Game over"));
    let mails = sink.received();
    for name in ["ann", "bo", "cy"] {
        let to = vec![format!("{name}@example.org")];
        assert!(
            mails
                .iter()
                .any(|m| m.to == to && m.data.contains("/play/")),
            "{name} was mailed a link to their seat"
        );
    }
    driver.stop().await;
    worker.stop().await;
    db.drop().await;
}

/// A Suffragist at phone size taps "Make it standing" on her seat's page: the order stands,
/// the next Strategy phase is never put to her, and a tap cancels it.
#[actix_web::test]
async fn a_standing_order_is_given_and_cancelled_by_tapping_at_phone_size() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], 61).await;
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let page = format!("{base}/play/{}", tokens[0]);
    driver.goto(&page).await;
    let shown = driver
        .wait_source("the seat's standing orders", |p| {
            p.contains("Settled ahead")
        })
        .await;
    assert!(shown.contains("Commit no buttons in every Strategy phase"));
    assert!(
        !shown.contains("Defer to the Suffragist"),
        "only her own orders"
    );
    driver.click("#settled > summary").await;
    driver
        .click("#settled form:has(input[value=\"commit-none\"]) button")
        .await;
    driver
        .wait_source("the order shown as standing", |p| {
            p.contains("Standing: Commit no buttons in every Strategy phase")
        })
        .await;
    driver
        .script("document.getElementById('settled').scrollIntoView(); return true;")
        .await;
    driver.screenshot("standing-order").await;
    assert_eq!(
        db.store.standing_orders(id, 0).await.unwrap(),
        ["commit-none"]
    );
    // The game goes on: her commitment is made for her, never asked.
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(61));
    let standing = loop {
        let loaded = db.store.load(id).await.unwrap();
        assert!(
            loaded.game.outcome().is_none(),
            "a Strategy phase comes first"
        );
        let seat = loaded.game.active()[0];
        assert!(
            !(seat == 0
                && loaded
                    .game
                    .choices(0)
                    .iter()
                    .any(|c| c.command.get("type") == Some(&json!("commit")))),
            "the Suffragist is asked to commit"
        );
        let command =
            postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        let made = db.store.commands(id, loaded.row.head_seq).await.unwrap();
        if let Some(entry) = made.iter().find(|e| e.by() == Some("standing")) {
            break entry.seq;
        }
    };
    driver.goto(&format!("{base}/games/{id}/log")).await;
    driver
        .wait_source("the game's log to say the order made the move", |p| {
            p.contains("(by their standing order)")
        })
        .await;
    driver.goto(&page).await;
    driver
        .wait_source("the seat's page to say the order made the move", |p| {
            p.contains("(by their standing order)")
        })
        .await;
    driver
        .click("#settled form:has(input[value=\"commit-none\"]) button")
        .await;
    driver
        .wait_source("the order offered again", |p| {
            p.contains("Commit no buttons in every Strategy phase. <button")
        })
        .await;
    assert!(db.store.standing_orders(id, 0).await.unwrap().is_empty());
    assert!(standing > 0);
    driver.stop().await;
    db.drop().await;
}

// --- rough edges ---

/// The created game's page on a phone: nothing runs off the screen, each link has a copy
/// button, and once the mail server has taken the invitations the page says they were mailed.
#[actix_web::test]
async fn the_created_page_fits_a_phone_copies_links_and_says_the_invitations_went() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = postplay::notices::mail::sink::SmtpSink::start()
        .await
        .unwrap();
    let worker = common::mailrig::spawn_worker(&db, &base, sink.port(), common::mailrig::quick());
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/new/whitehouse")).await;
    driver
        .script(
            "['Ann', 'Bo', 'Cy', 'Di'].forEach((name, i) => {
               document.querySelector(`[name=name${i}]`).value = name;
               if (i < 3) document.querySelector(`[name=email${i}]`).value = `${name.toLowerCase()}@example.org`;
             });",
        )
        .await;
    driver.click("form button.primary").await;
    driver
        .wait_source("the page of the new game's links", |p| {
            p.contains("/manage/")
        })
        .await;
    common::mailrig::drain(&db, 30).await;
    driver.call("POST", "/refresh", None).await;
    let page = driver
        .wait_source("the invitations said to be mailed", |p| {
            p.contains("The 3 invitations have already been mailed")
        })
        .await;
    assert_eq!(page.matches("invitation mailed to").count(), 3, "{page}");
    let fits = driver
        .script(
            "return [document.documentElement.scrollWidth, window.innerWidth,
               [...document.querySelectorAll('button.copy')].filter(b => !b.hidden && b.offsetWidth > 0).length];",
        )
        .await;
    driver.screenshot("created-phone").await;
    assert!(
        fits[0].as_i64().unwrap() <= fits[1].as_i64().unwrap(),
        "nothing runs off the screen: {fits}"
    );
    assert_eq!(
        fits[2], 2,
        "a copy button for the organiser link and the handover link"
    );
    driver.stop().await;
    worker.stop().await;
    db.drop().await;
}

// --- Votes for Women on the map ---

/// Taps the open states of the map's placement, pass after pass, until its submit button is
/// enabled (a complete placement), and sends it; `false` if no placement is on the page.
async fn place_by_tapping(driver: &Driver) -> bool {
    let open = driver
        .script("return [...document.querySelectorAll('form.place svg g.st.open')].map(g => g.dataset.st);")
        .await;
    let Some(open) = open.as_array().filter(|o| !o.is_empty()).cloned() else {
        return false;
    };
    let complete = "return !document.querySelector('form.place button[type=submit]').disabled;";
    'passes: for _ in 0..6 {
        for st in &open {
            if driver.script(complete).await == true {
                break 'passes;
            }
            let css = format!(
                "form.place svg g.st.open[data-st='{}']",
                st.as_str().unwrap()
            );
            // A tap where the player sees the state: clear of the sticky send bar.
            driver
                .script(&format!(
                    "document.querySelector(\"{css}\").scrollIntoView({{block: 'center'}}); return true;"
                ))
                .await;
            driver.click(&css).await;
        }
    }
    let tally = driver
        .script("return [...document.querySelectorAll('form.place .count')].map(c => c.textContent).join('; ');")
        .await;
    assert_eq!(
        driver.script(complete).await,
        true,
        "the placement is complete after tapping: {tally}"
    );
    driver.click("form.place button[type=submit]").await;
    true
}

/// Plays a seeded Votes for Women game in the browser at `width`×`height`: each seat's hand
/// plays are made by tapping a use on a card, each placement by tapping the map (other moves
/// are made for it through the store), until both sides have done both. Every page on the
/// way is under 2,500 px tall and its HTML under 60 KB.
async fn a_votes_for_women_turn_by_tapping(width: i64, height: i64, name: &str) {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(width, height).await;
    let seed = 91;
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], seed).await;
    let mut played = [0; 2];
    let mut placed = [0; 2];
    let mut tallest = 0;
    let mut shot_ways = false;
    for _ in 0..400 {
        if played.iter().chain(&placed).all(|&n| n > 0) {
            break;
        }
        let loaded = db.store.load(id).await.unwrap();
        assert!(loaded.game.outcome().is_none(), "the game ended first");
        let seat = loaded.game.active()[0];
        let head = loaded.row.head_seq;
        driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
        let size = driver
            .script("return [document.documentElement.scrollHeight, document.documentElement.outerHTML.length];")
            .await;
        let (tall, bytes) = (size[0].as_i64().unwrap(), size[1].as_i64().unwrap());
        tallest = tallest.max(tall);
        if tall >= 2500 {
            std::fs::write(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("target/{name}-tall.html")),
                driver.source().await,
            )
            .unwrap();
            driver.viewport(width, tall).await;
            driver.screenshot(&format!("{name}-tall")).await;
        }
        assert!(tall < 2500, "move {head}: the page is {tall} px tall");
        assert!(
            bytes < 60_000,
            "move {head}: the page's HTML is {bytes} bytes"
        );
        // The ways to hand out the dice, for a person to look at: a row a way, a column a
        // campaigner.
        let ways = driver
            .script("const t = document.querySelector('table.ways'); if (!t) return 0; t.scrollIntoView(); return t.rows.length;")
            .await;
        if ways.as_i64().unwrap_or(0) > 2 && !shot_ways {
            driver.screenshot(&format!("{name}-ways")).await;
            shot_ways = true;
        }
        if place_by_tapping(&driver).await {
            if placed[seat] == 0 {
                driver.screenshot(&format!("{name}-placed-{seat}")).await;
            }
            placed[seat] += 1;
            wait_moved_past(&db, &driver, id, head).await;
            continue;
        }
        let uses = driver
            .script("return document.querySelectorAll('#choices .uses button').length;")
            .await;
        if uses.as_i64().unwrap_or(0) > 0 {
            if played[seat] == 0 {
                driver.screenshot(&format!("{name}-hand-{seat}")).await;
            }
            // Campaigning when open (it leads to the map), else the first use offered.
            let campaign = driver
                .script("const b = [...document.querySelectorAll('#choices .uses button')].find(b => b.textContent === 'Campaigning'); if (b) b.setAttribute('data-pick', '1'); return !!b;")
                .await;
            if campaign == true {
                driver.click("#choices .uses button[data-pick]").await;
            } else {
                driver.click("#choices .uses button").await;
            }
            played[seat] += 1;
            wait_moved_past(&db, &driver, id, head).await;
            continue;
        }
        common::play_until(&db, id, seed + head as u64, |l| l.row.head_seq > head).await;
    }
    assert!(
        played.iter().chain(&placed).all(|&n| n > 0),
        "played by tapping {played:?}, placed on the map {placed:?}"
    );
    eprintln!("{name}: tallest page {tallest} px");
    driver.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn a_votes_for_women_turn_for_both_sides_is_tapped_on_the_map_at_phone_size() {
    a_votes_for_women_turn_by_tapping(390, 844, "vfw-phone").await;
}

#[actix_web::test]
async fn a_votes_for_women_turn_for_both_sides_is_tapped_on_the_map_at_desktop_size() {
    a_votes_for_women_turn_by_tapping(1280, 900, "vfw-desktop").await;
}

// --- undo within one's turn ---

/// Plays random moves through the store until `stop` holds after a move (given the game
/// before and after it and the mover); panics if the game ends first.
async fn play_until_after(
    db: &TestDb,
    id: i64,
    rng: &mut postplay::engine::GameRng,
    mut stop: impl FnMut(&postplay::store::Loaded, &postplay::store::Loaded, usize, &Value) -> bool,
) -> usize {
    loop {
        let before = db.store.load(id).await.unwrap();
        assert!(
            before.game.outcome().is_none(),
            "the case comes before the end"
        );
        let seat = before.game.active()[0];
        let command =
            postplay::engine::bot::random_command(before.game.as_ref(), seat, rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(before.row.head_seq))
            .await
            .unwrap();
        let after = db.store.load(id).await.unwrap();
        if stop(&before, &after, seat, &command) {
            return seat;
        }
    }
}

/// At phone size, a Votes for Women player takes back a placement with "Undo my last move",
/// everyone's log says so, and she places again by tapping the map; the button is not offered
/// after a die roll, nor once the other side has moved.
#[actix_web::test]
async fn a_placement_is_taken_back_and_made_again_by_tapping_at_phone_size() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    // The first seed whose random game has a placement that may be taken back.
    let seed = (32..)
        .find(|&n| {
            let seed = postplay::engine::Seed::from_number(n);
            let kind = postplay::games::find_game("votes-for-women").unwrap();
            let mut game = kind.new_match(&json!({}), 2, seed).unwrap();
            let mut rng = postplay::engine::bot::bot_rng(&seed);
            while game.outcome().is_none() {
                let seat = game.active()[0];
                let command =
                    postplay::engine::bot::random_command(game.as_ref(), seat, &mut rng).unwrap();
                let log = &mut postplay::engine::Log::silent();
                game.apply_json(seat, &command, log).unwrap();
                if command["type"] == "place" && game.can_undo(seat) {
                    return true;
                }
            }
            false
        })
        .unwrap();
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], seed).await;
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    let last_type =
        |loaded: &postplay::store::Loaded| loaded.game.state_json()["last_roll"].clone();
    // The move to take back is a placement.
    let seat = play_until_after(&db, id, &mut rng, |_, after, seat, command| {
        after.game.can_undo(seat) && command["type"] == "place"
    })
    .await;
    let head = db.store.load(id).await.unwrap().row.head_seq;
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let page = format!("{base}/play/{}", tokens[seat]);
    driver.goto(&page).await;
    driver
        .wait_source("the undo button", |p| p.contains("Undo my last move"))
        .await;
    driver.screenshot("undo-offered").await;
    driver.click("form.undo button").await;
    driver
        .wait_source("the log to say the move was taken back", |p| {
            p.contains("takes back")
        })
        .await;
    wait::until("the undo entry", wait::PATIENCE, async || {
        let now = db.store.load(id).await.map_err(|e| e.to_string())?;
        if now.row.head_seq == head + 1 {
            Ok(())
        } else {
            Err(format!("head {}", now.row.head_seq))
        }
    })
    .await;
    let marks = db.store.marks(id, head).await.unwrap();
    assert_eq!(
        marks,
        vec![(head + 1, postplay::engine::record::Mark::Undo)]
    );
    // She places again, by tapping the map.
    driver.goto(&page).await;
    driver
        .wait_source("the placement offered again", |p| {
            p.contains("place your cubes")
        })
        .await;
    assert!(place_by_tapping(&driver).await, "a placement on the page");
    wait::until("the new placement", wait::PATIENCE, async || {
        let now = db.store.load(id).await.map_err(|e| e.to_string())?;
        if now.row.head_seq > head + 1 {
            Ok(())
        } else {
            Err(format!("head {}", now.row.head_seq))
        }
    })
    .await;
    let placed = db.store.commands(id, head + 1).await.unwrap();
    assert_eq!((placed[0].seat, placed[0].by()), (seat, None));

    // After a die roll the seat still decides, but may not take the roll back.
    let rolled = play_until_after(&db, id, &mut rng, |before, after, seat, _| {
        after.game.active().contains(&seat) && last_type(before) != last_type(after)
    })
    .await;
    driver
        .goto(&format!("{base}/play/{}", tokens[rolled]))
        .await;
    let shown = driver
        .wait_source("the seat's page after the roll", |p| {
            p.contains("Votes for Women")
        })
        .await;
    assert!(!shown.contains("Undo my last move"), "no undo after a roll");
    // Once the other side moves, nothing is offered to take back.
    let mover = play_until_after(&db, id, &mut rng, |before, after, seat, _| {
        before.game.active().contains(&seat) && !after.game.active().contains(&seat)
    })
    .await;
    driver.goto(&format!("{base}/play/{}", tokens[mover])).await;
    let shown = driver
        .wait_source("the seat's page after its turn", |p| {
            p.contains("Votes for Women")
        })
        .await;
    assert!(
        !shown.contains("Undo my last move"),
        "no undo after the turn passed"
    );
    driver.stop().await;
    db.drop().await;
}

/// Without JavaScript, a Votes for Women placement is made through the labelled rows: each
/// state's row names it and its region, with a count per colour; the counts typed in are sent
/// by the plain form, and the engine plays exactly that placement.
#[actix_web::test]
async fn a_placement_is_made_through_the_labelled_rows_without_javascript() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], 33).await;
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(33));
    // Play until a seat's only decision is a placement of cubes.
    let (seat, choice) = loop {
        let loaded = db.store.load(id).await.unwrap();
        assert!(loaded.game.outcome().is_none(), "a placement comes first");
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        if let Some(i) = choices.iter().position(|c| c.command["type"] == "place") {
            break (seat, i);
        }
        let command =
            postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    };
    let loaded = db.store.load(id).await.unwrap();
    let head = loaded.row.head_seq;
    let command =
        postplay::engine::bot::fill_at_random(&loaded.game.choices(seat)[choice], &mut rng);
    let counts: Vec<u64> = command["cubes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    let driver = Driver::start_with(false).await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
    let page = driver
        .wait_source("the placement's rows", |p| p.contains("class=\"strow\""))
        .await;
    assert!(page.contains("(Northeast)") || page.contains("(South)") || page.contains("(West)"));
    for (j, n) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
        let input = driver
            .find(&format!("form.place input[name='p0_{j}']"))
            .await;
        let path = |what: &str| format!("/element/{input}/{what}");
        driver.call("POST", &path("clear"), Some(json!({}))).await;
        driver
            .call("POST", &path("value"), Some(json!({"text": n.to_string()})))
            .await;
    }
    driver.screenshot("vfw-rows-no-js").await;
    driver.click("form.place button[type=submit]").await;
    wait::until(
        "the placement made by the plain form",
        wait::PATIENCE,
        async || {
            let now = db
                .store
                .commands(id, head)
                .await
                .map_err(|e| e.to_string())?;
            match now.first() {
                Some(entry) => Ok(entry.command.clone()),
                None => Err("no entry yet".to_string()),
            }
        },
    )
    .await;
    let made = db.store.commands(id, head).await.unwrap();
    assert_eq!(made[0].seat, seat);
    assert_eq!(
        made[0].command,
        loaded.game.canonical(&command).unwrap(),
        "exactly the counts typed in"
    );
    driver.stop().await;
    db.drop().await;
}

// ---- edges32 ----

/// The page's height and the length of its HTML, as the browser has it.
async fn page_size(driver: &Driver) -> (i64, i64) {
    let size = driver
        .script("return [document.documentElement.scrollHeight, document.documentElement.outerHTML.length];")
        .await;
    (size[0].as_i64().unwrap(), size[1].as_i64().unwrap())
}

/// How the Votes for Women map reads at phone size: a tile's and its postal code's size on the
/// screen, the map box's width and how far it scrolls, and whether the page itself is wider
/// than the screen.
const MAP_ON_SCREEN: &str = r#"
const tile = document.querySelector('svg.vfw-map g.st rect.t').getBoundingClientRect();
const code = document.querySelector('svg.vfw-map g.st text.code').getBoundingClientRect();
const box = document.querySelector('.vfw .mapbox');
const map = document.querySelector('svg.vfw-map').getBoundingClientRect();
return {tile: tile.width, code: code.height, map_height: map.height,
        box_right: box.getBoundingClientRect().right, scrolls: box.scrollWidth - box.clientWidth,
        page_wide: document.documentElement.scrollWidth, screen: window.innerWidth};
"#;

/// At 390×844 the whole map fits the screen, its tiles above the 24 px a tap target needs and
/// their postal codes readable: neither the page nor the map scrolls sideways, and a tap on
/// the state at the map's far right places a cube; the page stays under 2,500 px.
#[actix_web::test]
async fn the_votes_for_women_map_reads_and_taps_at_phone_size() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let seed = 91;
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], seed).await;
    let mut checked_placement = false;
    for step in 0..120 {
        let loaded = db.store.load(id).await.unwrap();
        assert!(loaded.game.outcome().is_none(), "the game ended first");
        let seat = loaded.game.active()[0];
        let head = loaded.row.head_seq;
        driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
        let on_screen = driver.script(MAP_ON_SCREEN).await;
        let get = |k: &str| on_screen[k].as_f64().unwrap();
        assert!(get("tile") >= 24.0, "step {step}: {on_screen}");
        assert!(get("code") >= 11.0, "step {step}: {on_screen}");
        assert!(get("map_height") <= 300.0, "step {step}: {on_screen}");
        assert!(
            get("scrolls") <= 0.0,
            "the map box never scrolls: {on_screen}"
        );
        assert!(
            get("page_wide") <= get("screen") && get("box_right") <= get("screen"),
            "the page is no wider than the screen: {on_screen}"
        );
        let (tall, _) = page_size(&driver).await;
        assert!(tall < 2500, "step {step}: the page is {tall} px tall");
        let open = driver
            .script("return [...document.querySelectorAll('form.place svg g.st.open')].map(g => [g.dataset.st, g.getBoundingClientRect().left]);")
            .await;
        let open = open.as_array().cloned().unwrap_or_default();
        if let Some(far) = open
            .iter()
            .max_by(|a, b| a[1].as_f64().unwrap().total_cmp(&b[1].as_f64().unwrap()))
            .filter(|far| far[1].as_f64().unwrap() > 300.0)
        {
            // The state lies at the map's right edge, within the screen.
            let st = far[0].as_str().unwrap();
            let css = format!("form.place svg g.st.open[data-st='{st}']");
            driver
                .script(&format!(
                    "document.querySelector(\"{css}\").scrollIntoView({{block: 'center', inline: 'center'}}); return true;"
                ))
                .await;
            let moved = driver
                .script(
                    "return [window.scrollX, document.querySelector('.vfw .mapbox').scrollLeft];",
                )
                .await;
            assert_eq!(moved[0], 0, "the page did not scroll sideways: {moved}");
            assert_eq!(moved[1], 0, "nor did the map: {moved}");
            let sum = format!(
                "return [...document.querySelectorAll(\".rows .strow[data-st='{st}'] input\")].reduce((a, i) => a + Number(i.value), 0);"
            );
            assert_eq!(driver.script(&sum).await, 0);
            driver.click(&css).await;
            assert_eq!(driver.script(&sum).await, 1, "a tap on {st} placed a cube");
            driver.screenshot("vfw-phone-map-far-right").await;
            checked_placement = true;
            break;
        }
        common::play_until(&db, id, seed + head as u64, |l| l.row.head_seq > head).await;
    }
    assert!(
        checked_placement,
        "a placement reaching the far side of the map came up"
    );
    driver.stop().await;
    db.drop().await;
}

/// A whole Votes for Women game played by random legal commands through the store; every fifth
/// command and at the end, both seats' pages at 390×844 are under 2,500 px tall and their HTML
/// under 60 KB. Prints the tallest and largest seen.
#[actix_web::test]
async fn every_fifth_position_of_a_whole_votes_for_women_game_fits_a_phone() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let seed = 33;
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], seed).await;
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    let started = std::time::Instant::now();
    let (mut tallest, mut largest) = ((0, 0, 0), (0, 0, 0));
    let mut looked = 0;
    let mut over = Vec::new();
    let commands = loop {
        let loaded = db.store.load(id).await.unwrap();
        let head = loaded.row.head_seq;
        let ended = loaded.game.outcome().is_some();
        if head % 5 == 0 || ended {
            for (seat, token) in tokens.iter().enumerate() {
                driver.goto(&format!("{base}/play/{token}")).await;
                let (tall, bytes) = page_size(&driver).await;
                tallest = tallest.max((tall, head, seat));
                largest = largest.max((bytes, head, seat));
                looked += 1;
                if tall >= 2500 || bytes >= 60_000 {
                    driver.viewport(390, tall).await;
                    driver
                        .screenshot(&format!("vfw-whole-game-{head}-{seat}"))
                        .await;
                    driver.viewport(390, 844).await;
                    over.push((head, seat, tall, bytes));
                }
            }
        }
        if ended {
            break head;
        }
        assert!(head < 1000, "a random game ends well within 1,000 commands");
        let seat = loaded.game.active()[0];
        let command =
            postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(head))
            .await
            .unwrap();
    };
    eprintln!(
        "whole game of {commands} commands: {looked} pages in {:?}; tallest {} px (command {}, seat {}), largest HTML {} chars (command {}, seat {})",
        started.elapsed(),
        tallest.0,
        tallest.1,
        tallest.2,
        largest.0,
        largest.1,
        largest.2
    );
    assert!(looked > 20, "{looked} pages looked at");
    assert!(
        over.is_empty(),
        "pages 2,500 px tall or more, or of 60 KB or more (command, seat, px, chars): {over:?}"
    );
    driver.stop().await;
    db.drop().await;
}

/// Change In Plans reads "See opponent's hand": its player's page, at phone size, shows the
/// other's whole hand (campaigner cards too) under its own heading while the card to discard
/// is chosen, and the page fits the screen's width. Random games through the store find one.
#[actix_web::test]
async fn change_in_plans_shows_the_opposing_hand_on_a_phone() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let mut found = None;
    'games: for seed in 40..200 {
        let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], seed).await;
        let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
        loop {
            let loaded = db.store.load(id).await.unwrap();
            if loaded.game.outcome().is_some() {
                continue 'games;
            }
            let seat = loaded.game.active()[0];
            let view = loaded.game.view(postplay::engine::Viewer::Seat(seat));
            let shown = view["resolving"]
                .as_array()
                .into_iter()
                .flatten()
                .find_map(|f| f["shown"].as_array().cloned());
            if let Some(shown) = shown {
                found = Some((id, tokens[seat].clone(), seat, shown));
                break 'games;
            }
            let command =
                postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng)
                    .unwrap();
            db.store
                .submit(id, seat, &command, Some(loaded.row.head_seq))
                .await
                .unwrap();
        }
    }
    let (_, token, seat, shown) = found.expect("a random game reaches Change In Plans");
    let other = ["Ann", "Bo"][1 - seat];
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/play/{token}")).await;
    let page = driver.source().await;
    let heading = format!("{other}'s hand, which Change In Plans lets you see");
    let headings = driver
        .script("return [...document.querySelectorAll('h2')].map(h => h.textContent);")
        .await;
    assert!(
        headings
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h.as_str() == Some(heading.as_str())),
        "{heading} among {headings}"
    );
    for card in &shown {
        assert!(
            page.contains(&format!("data-card=\"{}\"", card["id"])),
            "card {} of the shown hand",
            card["name"]
        );
    }
    let fits = driver
        .script("return [document.documentElement.scrollWidth, window.innerWidth];")
        .await;
    assert!(
        fits[0].as_i64().unwrap() <= fits[1].as_i64().unwrap(),
        "nothing runs off the screen: {fits}"
    );
    driver
        .script("[...document.querySelectorAll('h2')].find(h => h.textContent.includes('Change In Plans')).scrollIntoView(); return null;")
        .await;
    driver.screenshot("vfw-change-in-plans-phone").await;
    driver.stop().await;
    db.drop().await;
}

/// Waits for the mail to `email` carrying a link with `marker` (as `/clubs/invite/`); the
/// link's token.
async fn mailed_token(
    sink: &postplay::notices::mail::sink::SmtpSink,
    email: &str,
    marker: &str,
) -> String {
    wait::until(
        &format!("a mail to {email} with a {marker} link"),
        wait::PATIENCE,
        async || {
            let mails = sink.received();
            mails
                .iter()
                .filter(|m| m.to == vec![email.to_string()])
                .find_map(|m| {
                    // Undo quoted-printable's soft line breaks, which may cut a long link.
                    m.data
                        .replace("=\r\n", "")
                        .split_whitespace()
                        .find_map(|w| w.split(marker).nth(1))
                        .map(|t| t.chars().take(40).collect::<String>())
                })
                .ok_or_else(|| format!("{} mails, none to {email} with {marker}", mails.len()))
        },
    )
    .await
}

/// The number after `prefix` in the browser's path, once its page has loaded.
async fn id_in_path(driver: &Driver, prefix: &str) -> i64 {
    wait::until(
        &format!("a page at {prefix}N"),
        wait::PATIENCE,
        async || {
            let at = driver
                .script("return [location.pathname, document.readyState];")
                .await;
            at[0]
                .as_str()
                .and_then(|path| path.strip_prefix(prefix))
                .and_then(|id| id.parse().ok())
                .filter(|_| at[1] == "complete")
                .ok_or_else(|| at.to_string())
        },
    )
    .await
}

/// Issue 33: a club as its admin and members use it, at phone size. Ann signs in by mail,
/// makes a private club and invites Bo and Cy by address; they open the mailed invitation,
/// sign in by the link it mails to their address, and join. Ann opens a league by its form and
/// all three sign up on the club's page; Ann opens a club table, Bo and Cy join it, and its
/// game is played by clicking. The league's games are played through the store (to keep
/// within CI's time) and its table read in the browser. The club's page then shows the standings and a member's chart, the archive
/// filtered by the league its games with their replays; a signed-in stranger gets the answer
/// of a club that does not exist.
#[actix_web::test]
async fn a_private_club_is_made_its_members_join_by_mail_and_play_and_see_the_standings() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = postplay::notices::mail::sink::SmtpSink::start()
        .await
        .unwrap();
    let worker = common::mailrig::spawn_worker(&db, &base, sink.port(), common::mailrig::quick());
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let ann = sign_in_by_mail(&driver, &base, &sink, "ann@example.org", "Ann").await;
    driver.goto(&format!("{base}/clubs/new")).await;
    driver
        .script(
            "document.querySelector('input[name=name]').value = 'Thursday Club';
             document.querySelector('input[name=privacy][value=private]').checked = true;",
        )
        .await;
    driver.click("form button.primary").await;
    let club = id_in_path(&driver, "/clubs/").await;
    // One address mistyped: refused, and the box keeps every address to mend the one (issue 47).
    driver
        .script(
            "document.querySelector('textarea[name=addresses]').value = \
             'bo@example.org, cy@example';",
        )
        .await;
    driver
        .click(&format!("form[action='/clubs/{club}/invite'] button"))
        .await;
    driver
        .wait_source("the invitations refused", |page| {
            page.contains("aria-invalid=\"true\">bo@example.org, cy@example</textarea>")
        })
        .await;
    driver
        .script(
            "document.querySelector('textarea[name=addresses]').value = \
             'bo@example.org, cy@example.org';",
        )
        .await;
    driver
        .click(&format!("form[action='/clubs/{club}/invite'] button"))
        .await;
    driver
        .wait_source("the invitations to be listed", |page| {
            page.contains("bo@example.org") && page.contains("cy@example.org")
        })
        .await;
    let mut sessions = vec![ann];
    for (email, name) in [("bo@example.org", "Bo"), ("cy@example.org", "Cy")] {
        let token = mailed_token(&sink, email, "/clubs/invite/").await;
        driver.call("DELETE", "/cookie", None).await;
        driver.goto(&format!("{base}/clubs/invite/{token}")).await;
        // The invitation alone signs nobody in: its page mails a sign-in link to the invited
        // address, which leads back to the invitation.
        driver.click("#sign-in-to-join").await;
        driver
            .wait_source("the sign-in link to be on its way", |page| {
                page.contains("A sign-in link is on its way")
            })
            .await;
        let signin = mailed_token(&sink, email, "/signin/").await;
        driver.goto(&format!("{base}/signin/{signin}")).await;
        driver
            .script(&format!(
                "document.querySelector('input[name=name]').value = '{name}';"
            ))
            .await;
        driver.click("form button.primary").await;
        wait_for_url(&driver, &format!("/clubs/invite/{token}")).await;
        driver.click("#join-club").await;
        assert_eq!(id_in_path(&driver, "/clubs/").await, club);
        driver
            .wait_source("the club's page as a member", |page| {
                page.contains("you are a member")
            })
            .await;
        sessions.push(
            driver.call("GET", "/cookie/pp_session", None).await["value"]
                .as_str()
                .expect("the sign-in by mail gave a session")
                .to_string(),
        );
    }
    driver.screenshot("club-joined").await;

    // Ann starts a game at once with Bo, in which she plays: she lands on her own seat.
    use_session(&driver, &base, &sessions[0]).await;
    driver
        .goto(&format!("{base}/clubs/{club}/new/electoral-combat"))
        .await;
    let ids: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM accounts WHERE email IN ('ann@example.org', 'bo@example.org') \
         ORDER BY email",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    driver
        .script(&format!(
            "document.querySelector('select[name=seat0]').value = '{}';
             document.querySelector('select[name=seat1]').value = '{}';",
            ids[0], ids[1]
        ))
        .await;
    driver.click("form button.primary").await;
    wait_for_url(&driver, "/play/").await;
    let own = visible_text(&driver.source().await);
    assert!(own.contains("Your move") || own.contains("Ann"), "{own}");
    let chosen: i64 = sqlx::query_scalar("SELECT max(id) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    db.store
        .cancel(
            chosen,
            &postplay::domain::CancelReason::parse("a try only").unwrap(),
        )
        .await
        .unwrap();

    // Ann opens a league from the club's page; the three sign up by the club page's button.
    use_session(&driver, &base, &sessions[0]).await;
    driver.goto(&format!("{base}/clubs/{club}")).await;
    driver
        .click(&format!(
            "a[href='/clubs/{club}/leagues/new/electoral-combat']"
        ))
        .await;
    wait_for_url(&driver, "/leagues/new/electoral-combat").await;
    let closes = (chrono::Utc::now() + chrono::Duration::hours(1))
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    driver
        .script(&format!(
            "document.querySelector('input[name=name]').value = 'Winter league';
             document.querySelector('input[name=closes]').value = '{closes}';
             document.querySelector('input[name=mode][value=all_at_once]').checked = true;
             document.querySelector('select[name=clock]').value = 'none';"
        ))
        .await;
    driver.click("form button.primary").await;
    let league = id_in_path(&driver, &format!("/clubs/{club}/leagues/")).await;
    for session in &sessions {
        use_session(&driver, &base, session).await;
        driver.goto(&format!("{base}/clubs/{club}")).await;
        driver
            .click(&format!(
                "form[action='/clubs/{club}/leagues/{league}/signup'] button"
            ))
            .await;
        driver
            .wait_source("the sign-up to be taken", |page| {
                page.contains(&format!("/clubs/{club}/leagues/{league}/withdraw"))
            })
            .await;
    }
    driver.screenshot("club-league-signed-up").await;

    use_session(&driver, &base, &sessions[0]).await;
    driver.goto(&format!("{base}/clubs/{club}")).await;
    driver
        .click(&format!("a[href='/lobby/new/statehood?club={club}']"))
        .await;
    wait_for_url(&driver, "/lobby/new/statehood").await;
    driver
        .script(
            "document.querySelector('select[name=players]').value = '3';
             document.querySelector('input[name=opt_target]').value = '1';
             document.querySelector('select[name=clock]').value = 'none';",
        )
        .await;
    driver.click("form button.primary").await;
    let table = id_in_path(&driver, "/lobby/").await;
    for session in &sessions[1..] {
        use_session(&driver, &base, session).await;
        driver.goto(&format!("{base}/clubs/{club}")).await;
        driver.click(&format!("a[href='/lobby/{table}']")).await;
        wait_for_url(&driver, &format!("/lobby/{table}")).await;
        driver.click("#join").await;
        driver
            .wait_source("the table to seat the player", |page| {
                page.contains("You have a seat") || page.contains("has started")
            })
            .await;
    }
    let id: i64 = sqlx::query_scalar("SELECT game_id FROM open_tables WHERE id = $1")
        .bind(table)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let (clicked, by_hand) =
        play_by_clicking(&db, &driver, &base, id, &["Ann", "Bo", "Cy"], &sessions, 33).await;
    println!("club game: {clicked} moves clicked, {by_hand} through the store");
    assert!(clicked > by_hand, "{clicked} clicked, {by_hand} not");

    // Sign-up closes (the scheduler's pass, an hour and a half later): the league's three
    // games start at once; they are played through the store, the league then finishes.
    let later = postplay::clock::Scheduler::new(std::sync::Arc::new(postplay::startup::store_on(
        db.store.pool().clone(),
        std::sync::Arc::new(postplay::time::ManualClock::at(
            chrono::Utc::now() + chrono::Duration::minutes(90),
        )),
    )));
    later.tick().await.unwrap();
    let games: Vec<i64> = sqlx::query_scalar(
        "SELECT game_id FROM league_games WHERE league_id = $1 AND game_id IS NOT NULL \
         ORDER BY number",
    )
    .bind(league)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    assert_eq!(games.len(), 3, "three entrants meet once each, all at once");
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(34));
    for &game in &games {
        loop {
            let loaded = db.store.load(game).await.unwrap();
            if loaded.game.outcome().is_some() {
                break;
            }
            let seat = loaded.game.active()[0];
            let choices = loaded.game.choices(seat);
            let command =
                postplay::engine::bot::fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            db.store
                .submit(game, seat, &command, Some(loaded.row.head_seq))
                .await
                .unwrap();
        }
    }
    let now = postplay::clock::Scheduler::new(std::sync::Arc::new(db.store.clone_handle()));
    wait::until("the league to finish", wait::PATIENCE, async || {
        now.tick().await.unwrap();
        let status: String = sqlx::query_scalar("SELECT status FROM leagues WHERE id = $1")
            .bind(league)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
        if status == "finished" {
            Ok(())
        } else {
            Err(status)
        }
    })
    .await;
    driver
        .goto(&format!("{base}/clubs/{club}/leagues/{league}"))
        .await;
    let table = driver
        .wait_source("the league's table", |page| page.contains("league-table"))
        .await;
    let text = visible_text(&table);
    assert!(text.contains("finished"), "{text}");
    for name in ["Ann", "Bo", "Cy"] {
        assert!(text.contains(name), "{name} in the league's table: {text}");
    }
    // The first hour (issue 47): the winner named; the games by their numbers.
    assert!(text.contains("wins the league."), "{text}");
    for game in &games {
        let named = format!("Electoral College Combat #{game}");
        assert!(text.contains(&named), "{named}: {text}");
    }
    driver.screenshot("club-league-table").await;
    let wide = driver
        .script(
            "return [document.documentElement.scrollWidth, window.innerWidth,
               [...document.querySelectorAll('body *')]
                 .filter(e => e.getBoundingClientRect().right > window.innerWidth)
                 .slice(0, 3).map(e => e.outerHTML.slice(0, 120))];",
        )
        .await;
    assert!(
        wide[0].as_i64() <= wide[1].as_i64(),
        "the league's page fits a phone's width (its table scrolls in its box): {wide}"
    );

    // The club's page: the finished game with its replay, and the standings.
    use_session(&driver, &base, &sessions[1]).await;
    driver.goto(&format!("{base}/clubs/{club}")).await;
    let page = driver
        .wait_source("the club's standings", |page| page.contains("Standings"))
        .await;
    assert!(page.contains(&format!("/games/{id}/replay")), "{page}");
    let text = visible_text(&page);
    for name in ["Ann", "Bo", "Cy"] {
        assert!(text.contains(name), "{name} in the standings: {text}");
    }
    driver.screenshot("club-standings").await;
    let bo: i64 = sqlx::query_scalar("SELECT id FROM accounts WHERE name = 'Bo'")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let link = format!("/clubs/{club}/ratings/statehood/{bo}");
    driver
        .wait_source("Bo's Statehood rating linked from the standings", |page| {
            page.contains(&format!("href=\"{link}\""))
        })
        .await;
    driver.click(&format!("a[href='{link}']")).await;
    let chart = driver
        .wait_source("Bo's rating chart", |page| page.contains("<svg"))
        .await;
    assert!(chart.contains(&format!("/games/{id}/replay")), "{chart}");
    driver.screenshot("club-chart").await;
    let wide = driver
        .script(
            "return [document.documentElement.scrollWidth, window.innerWidth,
               [...document.querySelectorAll('body *')]
                 .filter(e => e.getBoundingClientRect().right > window.innerWidth)
                 .slice(0, 3).map(e => e.outerHTML.slice(0, 120))];",
        )
        .await;
    assert!(
        wide[0].as_i64() <= wide[1].as_i64(),
        "the chart page fits a phone's width: {wide}"
    );

    // The archive, filtered by the league: its three games and not the table's, each with its
    // replay.
    driver.goto(&format!("{base}/clubs/{club}")).await;
    driver
        .click(&format!("a[href='/clubs/{club}/archive']"))
        .await;
    wait_for_url(&driver, "/archive").await;
    driver
        .script(&format!(
            "document.querySelector('select[name=league]').value = '{league}';"
        ))
        .await;
    driver
        .click(&format!("form[action='/clubs/{club}/archive'] button"))
        .await;
    let archive = driver
        .wait_source("the league's games in the archive", |page| {
            page.contains("every finished game")
        })
        .await;
    for game in &games {
        assert!(
            archive.contains(&format!("/games/{game}/replay")),
            "league game {game} in the archive: {archive}"
        );
    }
    assert!(
        !archive.contains(&format!("/games/{id}/replay")),
        "the club table's game is not the league's"
    );
    driver.screenshot("club-archive").await;
    let wide = driver
        .script(
            "return [document.documentElement.scrollWidth, window.innerWidth,
               [...document.querySelectorAll('body *')]
                 .filter(e => e.getBoundingClientRect().right > window.innerWidth)
                 .slice(0, 3).map(e => e.outerHTML.slice(0, 120))];",
        )
        .await;
    assert!(
        wide[0].as_i64() <= wide[1].as_i64(),
        "the archive fits a phone's width: {wide}"
    );
    driver
        .click(&format!("a[href='/games/{}/replay']", games[0]))
        .await;
    wait_for_url(&driver, &format!("/games/{}/replay", games[0])).await;

    // A signed-in stranger sees nothing of the club: its page, its game.
    sign_in_by_mail(&driver, &base, &sink, "dee@example.org", "Dee").await;
    for path in [format!("/clubs/{club}"), format!("/games/{id}")] {
        driver.goto(&format!("{base}{path}")).await;
        let page = driver.source().await;
        assert!(!page.contains("Thursday Club"), "{path}: {page}");
        assert!(!page.contains("Bo"), "{path} names no member: {page}");
    }
    driver.stop().await;
    worker.stop().await;
    db.drop().await;
}

// --- Practice bots ---

/// Issue 35: at phone size, a player makes a game against a medium bot from the create form,
/// takes up her seat by its one-time link, taps her moves, and sees the bot answer on the same
/// page (live refresh, no reload), the page saying the game is unrated.
#[actix_web::test]
async fn a_game_against_a_bot_is_made_and_played_by_tapping_at_phone_size() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (stop_bots, stopped) = tokio::sync::watch::channel(false);
    let bots = postplay::bots::BotWorker::new(std::sync::Arc::new(db.store.clone_handle()), 1);
    actix_web::rt::spawn(async move { bots.run(postplay::bots::TICK, stopped).await });
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/new/electoral-combat")).await;
    driver
        .script(
            "document.querySelector('[name=name0]').value = 'Ann';
             document.querySelector('[name=bot1]').value = 'medium';
             document.querySelector('[name=order][value=fixed]').checked = true;",
        )
        .await;
    driver.screenshot("bot-new-phone").await;
    let fits = driver
        .script(
            "return [document.documentElement.scrollWidth, window.innerWidth,
               [...document.querySelectorAll('body *')]
                 .filter(e => e.getBoundingClientRect().right > window.innerWidth)
                 .slice(0, 3).map(e => e.outerHTML.slice(0, 120))];",
        )
        .await;
    assert!(
        fits[0].as_i64().unwrap() <= fits[1].as_i64().unwrap(),
        "the create form fits the phone's width: {fits}"
    );
    driver.click("form button.primary").await;
    driver
        .wait_source("the created page naming the bot", |p| {
            p.contains("a practice bot plays this seat")
        })
        .await;
    // Ann plays alone against the bot: one tap opens her own seat (issue 47).
    driver.screenshot("bot-created-phone").await;
    driver.click("#your-seat button").await;
    wait_for_url(&driver, "/play/").await;
    let id: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let page = driver.source().await;
    assert!(
        page.contains("a practice game with bots: unrated"),
        "{}",
        visible_text(&page)
    );
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(35));
    let (mut tapped, mut answered) = (0, 0);
    // Three taps, and on until the bot has made a move of its own: a deal can leave the bot
    // only forced moves (written by postplay, `auto`) for a while.
    while tapped < 3 || answered == 0 {
        // Ann's turn, shown on her page: after the bot's answer, by the live refresh alone.
        let loaded = wait::until("Ann's turn or the end", wait::PATIENCE, async || {
            let loaded = db.store.load(id).await.unwrap();
            let over = loaded.game.outcome().is_some();
            let page = driver.source().await;
            let shown = page.contains(&format!("data-head=\"{}\"", loaded.row.head_seq));
            // Both seats are awaited in a simultaneous step: Ann moves once the bot has sealed.
            let awaited = loaded.game.active();
            let hers = awaited.contains(&0) && !awaited.contains(&1);
            if over || (hers && shown && page.contains("Your move")) {
                Ok(loaded)
            } else {
                Err(format!(
                    "head {}, awaited {:?}\n{}",
                    loaded.row.head_seq,
                    loaded.game.active(),
                    visible_text(&page)
                ))
            }
        })
        .await;
        if loaded.game.outcome().is_some() {
            break;
        }
        let bot_moves: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM commands WHERE game_id = $1 AND made_by = 'bot'",
        )
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
        answered = bot_moves;
        let choices = loaded.game.choices(0);
        let choice = rng.index(choices.len());
        let how = driver
            .call(
                "POST",
                "/execute/sync",
                Some(json!({"script": MAKE_A_MOVE, "args": [choice, rng.index(64)]})),
            )
            .await;
        if how != "none" && made_or_refused(&db, &driver, id, loaded.row.head_seq).await {
            tapped += 1;
        } else {
            let command = postplay::engine::bot::fill_at_random(&choices[choice], &mut rng);
            db.store
                .submit(id, 0, &command, Some(loaded.row.head_seq))
                .await
                .unwrap();
        }
    }
    assert!(
        tapped >= 1 && answered >= 1,
        "tapped {tapped}, bot moves {answered}"
    );
    let page = driver.source().await;
    assert!(page.contains("Bot (medium)"), "{}", visible_text(&page));
    driver.screenshot("bot-game-phone").await;
    let _ = stop_bots.send(true);
    driver.stop().await;
    db.drop().await;
}

/// Issue 45: a seat taken over by a new address is seen and undone, at phone size. The
/// organiser (who plays Ann) gives Bo's seat an address they read, through the desk's form;
/// Ann's page shows who did it at once; Bo's old address gets the news by mail, opens its
/// link, writes to the players and taps "Take my seat back"; Ann's page then shows the message
/// and the seat taken back, and the taker's link no longer opens the seat.
#[actix_web::test]
async fn a_seat_given_another_address_is_seen_by_every_player_and_taken_back_at_phone_size() {
    use postplay::store::{EmailAddress, NewSeat, PlayerName};
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = postplay::notices::mail::sink::SmtpSink::start()
        .await
        .unwrap();
    let worker = common::mailrig::spawn_worker(&db, &base, sink.port(), common::mailrig::quick());
    let seats: Vec<NewSeat> = ["Ann", "Bo"]
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(EmailAddress::parse(&format!("{}@example.org", n.to_lowercase())).unwrap()),
            bot: None,
        })
        .collect();
    let game = db
        .store
        .create_game_with(
            "electoral-combat",
            &json!({}),
            &seats,
            postplay::engine::Seed::from_number(45),
            Some(&EmailAddress::parse("ann@example.org").unwrap()),
            &json!({}),
        )
        .await
        .unwrap();
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver
        .goto(&format!("{base}/manage/{}", game.organiser_token))
        .await;
    driver
        .script(
            "document.querySelector(\"form[action$='/address/1'] input[name=email]\").value = 'mallory@example.net'; return true;",
        )
        .await;
    driver
        .click("form[action$='/address/1'] button[type=submit]")
        .await;
    driver
        .wait_source("the desk's note", |s| s.contains("New address for Bo"))
        .await;

    let ann = format!("{base}/play/{}", game.seat_tokens[0]);
    driver.goto(&ann).await;
    let panel = driver
        .wait_script(
            "the change on Ann's page",
            "const p = document.querySelector('#seat-changes'); return p ? p.innerText : null;",
        )
        .await;
    let panel = panel.as_str().unwrap_or_default().to_string();
    assert!(
        panel.contains("The organiser gave Bo's seat a new address"),
        "{panel}"
    );
    driver.screenshot("seat-change-seen-phone").await;

    let change = mailed_token(&sink, "bo@example.org", "/seat-change/").await;
    let mallory = mailed_token(&sink, "mallory@example.net", "/play/").await;
    driver.goto(&format!("{base}/seat-change/{change}")).await;
    driver.screenshot("seat-change-link-phone").await;
    driver
        .script("document.querySelector('textarea[name=text]').value = 'This is Bo: I did not ask for this.'; return true;")
        .await;
    driver
        .click("form[action$='/message'] button[type=submit]")
        .await;
    driver
        .wait_source("the message sent", |s| {
            s.contains("Your message is in the game")
        })
        .await;
    driver
        .click("form[action$='/reclaim'] button[type=submit]")
        .await;
    driver
        .wait_source("the seat taken back", |s| {
            s.contains("The seat is yours again")
        })
        .await;

    driver.goto(&ann).await;
    let text = driver
        .script("return document.body.innerText;")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("Bo's seat was taken back"), "{text}");
    assert!(
        text.contains("Bo's previous address") && text.contains("I did not ask for this"),
        "{text}"
    );
    let width = driver
        .script("return document.documentElement.scrollWidth;")
        .await;
    assert!(
        width.as_i64().unwrap() <= 390,
        "the page fits the phone: {width}"
    );
    driver.screenshot("seat-change-taken-back-phone").await;
    let status = Client::default()
        .get(format!("{base}/play/{mallory}"))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 404, "the taker's link ends");
    driver.stop().await;
    worker.stop().await;
    db.drop().await;
}
