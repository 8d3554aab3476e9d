//! Graceful overload (docs/CONFIGURATION.md, "Overload") against the real `postplay serve`
//! with tiny bounds: requests past them are answered 503 with `Retry-After` at once while
//! moves still go through; a move refused so changes nothing and the seat page's form comes
//! back with what was chosen; the clock and the outbox act while every web connection is
//! taken. Requests are held in flight by locks the test takes in PostgreSQL (on the sessions
//! table, which only signed-in requests read, and on a game's row), and every wait is for a
//! condition PostgreSQL or the server shows.

use crate::common;

use awc::Client;
use common::TestDb;
use common::ports::free_port;
use common::wait::{PATIENCE, until};
use postplay::domain::{ClockSettings, EmailAddress, PlayerName, TimeControl};
use postplay::engine::Seed;
use postplay::notices::mail::sink::SmtpSink;
use postplay::store::NewSeat;
use serde_json::json;
use sqlx::{Connection, PgConnection};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `serve`, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `postplay serve` on `db` with the overload bounds in `env`; returns it with its public and
/// metrics base URLs once both answer.
async fn serve(db: &TestDb, env: &[(&str, String)]) -> (Running, String, String) {
    let (port, metrics) = (free_port(), free_port());
    let mut command = Command::new(env!("CARGO_BIN_EXE_postplay"));
    command
        .arg("serve")
        .env("DATABASE_URL", db.url())
        .env("POSTPLAY_BIND", format!("127.0.0.1:{port}"))
        .env("POSTPLAY_METRICS_BIND", format!("127.0.0.1:{metrics}"))
        .env("POSTPLAY_MAIL", "off")
        .env("POSTPLAY_BOT_SEARCHES", "0")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let running = Running(command.spawn().expect("postplay serve starts"));
    let base = format!("http://127.0.0.1:{port}");
    let scrape = format!("http://127.0.0.1:{metrics}/metrics");
    let client = Client::default();
    for url in [format!("{base}/healthz"), scrape.clone()] {
        until("serve to answer", PATIENCE, async || {
            match client.get(&url).send().await {
                Ok(res) if res.status().is_success() => Ok(()),
                Ok(res) => Err(format!("status {}", res.status())),
                Err(e) => Err(e.to_string()),
            }
        })
        .await;
    }
    // Live refresh's listener keeps one of the web's connections for itself.
    until("live refresh to listen", PATIENCE, async || {
        let listening: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 \
             AND query LIKE 'LISTEN%postplay_moves%'",
        )
        .bind(&db.name)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
        if listening == 1 {
            Ok(())
        } else {
            Err(format!("{listening} listening"))
        }
    })
    .await;
    (running, base, scrape)
}

/// An answer: status, `Retry-After`, content type, body, and how long it took.
struct Answer {
    status: u16,
    retry_after: Option<String>,
    content_type: String,
    connection: Option<String>,
    body: String,
    took: Duration,
}

async fn answer(request: awc::ClientRequest, body: Option<String>) -> Answer {
    let started = Instant::now();
    let sent = match body {
        Some(body) => request.send_body(body).await,
        None => request.send().await,
    };
    let mut res = sent.expect("an answer");
    let body = res.body().limit(1 << 22).await.unwrap();
    let header = |name: &str| {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    Answer {
        status: res.status().as_u16(),
        retry_after: header("retry-after"),
        content_type: header("content-type").unwrap_or_default(),
        connection: header("connection"),
        body: String::from_utf8_lossy(&body).into_owned(),
        took: started.elapsed(),
    }
}

/// A move through the API for the first seat to move, answered.
async fn api_move(client: &Client, base: &str, db: &TestDb, id: i64, tokens: &[String]) -> Answer {
    let loaded = db.store.clone_handle().load(id).await.unwrap();
    let seat = loaded.game.active()[0];
    let command = postplay::engine::bot::fill_at_random(
        &loaded.game.choices(seat)[0],
        &mut postplay::engine::GameRng::new(&Seed::from_number(3), loaded.row.head_seq as u64),
    );
    let body = json!({"command": command, "expected_seq": loaded.row.head_seq}).to_string();
    answer(
        client
            .post(format!("{base}/api/games/{id}/commands"))
            .bearer_auth(&tokens[seat])
            .insert_header(("Content-Type", "application/json")),
        Some(body),
    )
    .await
}

/// Backends of `db` waiting for a lock: the requests the test holds in flight.
async fn lock_waiters(db: &TestDb) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
    )
    .bind(&db.name)
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

/// Waits until exactly `n` of the server's requests wait for the test's locks.
async fn held(db: &TestDb, n: i64) {
    until(
        &format!("{n} requests waiting for the test's locks"),
        PATIENCE,
        async || match lock_waiters(db).await {
            found if found == n => Ok(()),
            found => Err(format!("{found} waiting")),
        },
    )
    .await;
}

/// A connection of the test's own holding `sql`'s locks until it is dropped.
async fn lock(db: &TestDb, sql: &str) -> PgConnection {
    let mut conn = PgConnection::connect_with(&db.options).await.unwrap();
    sqlx::raw_sql("BEGIN").execute(&mut conn).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&mut conn)
        .await
        .unwrap();
    conn
}

/// A signed-in session's cookie.
async fn session(db: &TestDb) -> String {
    let account: i64 = sqlx::query_scalar(
        "INSERT INTO accounts (email, name) VALUES ('held@example.org', 'Held') RETURNING id",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    let token = db.store.start_session(account).await.unwrap();
    format!("pp_session={token}")
}

/// `/me` signed in: the request reads the sessions table (held by the test's lock).
fn signed_in(client: &Client, base: &str, cookie: &str) -> actix_web::rt::task::JoinHandle<u16> {
    let request = client
        .get(format!("{base}/me"))
        .insert_header(("Cookie", cookie.to_string()));
    actix_web::rt::spawn(async move { request.send().await.map_or(0, |r| r.status().as_u16()) })
}

/// The value of the samples named `name` whose labels include every one of `labels`, summed.
fn sample(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && labels.iter().all(|l| rest.contains(l)))
                .then(|| value.parse::<f64>().unwrap())
        })
        .sum()
}

async fn scrape(client: &Client, url: &str) -> String {
    answer(client.get(url), None).await.body
}

/// The hidden fields of the first form in `html`, as sent back.
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    html.split("<input type=\"hidden\" name=\"")
        .skip(1)
        .map(|rest| {
            let (name, rest) = rest.split_once('"').unwrap();
            let value = rest
                .split_once("value=\"")
                .unwrap()
                .1
                .split_once('"')
                .unwrap()
                .0;
            (name.to_string(), value.to_string())
        })
        .collect()
}

fn form(fields: &[(String, String)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish()
}

async fn head(db: &TestDb, id: i64) -> i64 {
    db.store.game(id).await.unwrap().unwrap().head_seq
}

fn is_quick_503(a: &Answer, what: &str) {
    assert_eq!(a.status, 503, "{what}: {}", a.body);
    assert_eq!(a.retry_after.as_deref(), Some("3"), "{what}");
    assert_eq!(a.connection.as_deref(), Some("close"), "{what}");
    assert!(a.took < Duration::from_secs(2), "{what} took {:?}", a.took);
}

#[actix_web::test]
async fn past_the_bounds_requests_get_503_at_once_moves_go_through_and_a_shed_move_changes_nothing()
{
    let db = TestDb::new().await;
    let names = ["Ann", "Bo", "Cy", "Di"];
    let (free, free_tokens) = common::create_game(&db, "whitehouse", &names, 31).await;
    let (form_game, form_tokens) = common::create_game(&db, "whitehouse", &names, 32).await;
    let (locked, locked_tokens) = common::create_game(&db, "whitehouse", &names, 33).await;
    let bounds = [
        ("POSTPLAY_PAGES_IN_FLIGHT", "2".to_string()),
        ("POSTPLAY_MOVES_IN_FLIGHT", "2".to_string()),
        ("POSTPLAY_QUEUE_WAIT_MS", "100".to_string()),
        ("POSTPLAY_RETRY_AFTER_SECS", "3".to_string()),
        ("POSTPLAY_DB_CONNECTIONS", "6".to_string()),
    ];
    let (_server, base, metrics) = serve(&db, &bounds).await;
    let client = Client::builder()
        .disable_redirects()
        .timeout(Duration::from_secs(60))
        .finish();

    // The seat page's form, read while nothing is held.
    let seat = db.store.load(form_game).await.unwrap().game.active()[0];
    let seat_url = format!("{base}/play/{}", form_tokens[seat]);
    let mut page = client.get(&seat_url).send().await.unwrap();
    let cookie = page.headers().get("set-cookie").unwrap().to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_string();
    let html = String::from_utf8_lossy(&page.body().await.unwrap()).into_owned();
    let csrf = common::visitor::csrf_of(&html).unwrap();

    // Both places of pages taken by signed-in requests held on the sessions table.
    let cookie_of_me = session(&db).await;
    let sessions = lock(&db, "LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE").await;
    let held_pages = [
        signed_in(&client, &base, &cookie_of_me),
        signed_in(&client, &base, &cookie_of_me),
    ];
    held(&db, 2).await;
    let lobby = answer(client.get(format!("{base}/lobby")), None).await;
    is_quick_503(&lobby, "a page past the bound");
    assert!(
        lobby.content_type.starts_with("text/html"),
        "{}",
        lobby.content_type
    );
    assert!(lobby.body.contains("busy"), "{}", lobby.body);
    let view = answer(client.get(format!("{base}/api/games/{free}/view")), None).await;
    is_quick_503(&view, "an API read past the bound");
    assert!(view.content_type.starts_with("application/json"));
    let said: serde_json::Value = serde_json::from_str(&view.body).unwrap();
    assert!(said["error"].as_str().unwrap().contains("busy"), "{said}");
    // Moves have places of their own.
    let before = head(&db, free).await;
    let moved = api_move(&client, &base, &db, free, &free_tokens).await;
    assert_eq!(moved.status, 201, "{}", moved.body);
    assert!(head(&db, free).await > before);

    // Both places of moves taken by moves held on a game's row.
    let row = lock(
        &db,
        &format!("SELECT id FROM games WHERE id = {locked} FOR UPDATE"),
    )
    .await;
    let held_moves: Vec<_> = (0..2)
        .map(|_| {
            let (client, base, tokens) = (client.clone(), base.clone(), locked_tokens.clone());
            let db_store = db.store.clone_handle();
            actix_web::rt::spawn(async move {
                let loaded = db_store.load(locked).await.unwrap();
                let seat = loaded.game.active()[0];
                let command = postplay::engine::bot::fill_at_random(
                    &loaded.game.choices(seat)[0],
                    &mut postplay::engine::GameRng::new(&Seed::from_number(5), 0),
                );
                let body = json!({"command": command, "expected_seq": 0}).to_string();
                client
                    .post(format!("{base}/api/games/{locked}/commands"))
                    .bearer_auth(&tokens[seat])
                    .insert_header(("Content-Type", "application/json"))
                    .send_body(body)
                    .await
                    .map_or(0, |r| r.status().as_u16())
            })
        })
        .collect();
    held(&db, 4).await;
    let commands = |id: i64| {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM commands WHERE game_id = $1")
            .bind(id)
            .fetch_one(db.store.pool())
    };
    let (head_before, commands_before) = (
        head(&db, form_game).await,
        commands(form_game).await.unwrap(),
    );
    // The seat page's move (choice 1, a bid of 300): refused, kept, nothing changed.
    let typed = vec![
        ("csrf".to_string(), csrf.clone()),
        ("seq".to_string(), head_before.to_string()),
        ("choice".to_string(), "1".to_string()),
        ("p0".to_string(), "300".to_string()),
    ];
    let kept = answer(
        client
            .post(&seat_url)
            .insert_header(("Cookie", cookie.clone()))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded")),
        Some(form(&typed)),
    )
    .await;
    is_quick_503(&kept, "the seat page's move past the bound");
    assert!(kept.content_type.starts_with("text/html"));
    assert!(
        kept.body.contains("your move was not sent"),
        "{}",
        kept.body
    );
    assert!(
        kept.body
            .contains(&format!("action=\"/play/{}\"", form_tokens[seat])),
        "{}",
        kept.body
    );
    assert_eq!(hidden_fields(&kept.body), typed, "{}", kept.body);
    let refused = api_move(&client, &base, &db, form_game, &form_tokens).await;
    is_quick_503(&refused, "an API move past the bound");
    assert!(refused.content_type.starts_with("application/json"));
    assert_eq!(head(&db, form_game).await, head_before);
    assert_eq!(commands(form_game).await.unwrap(), commands_before);

    let text = scrape(&client, &metrics).await;
    let shed = "postplay_requests_shed_total";
    assert!(
        sample(&text, shed, &[r#"class="page""#, r#"reason="queue""#]) >= 2.0,
        "{text}"
    );
    assert!(sample(&text, shed, &[r#"group="lobby""#]) >= 1.0, "{text}");
    assert!(
        sample(&text, shed, &[r#"class="move""#, r#"group="play""#]) >= 1.0,
        "{text}"
    );
    assert!(
        sample(&text, shed, &[r#"class="move""#, r#"group="api""#]) >= 1.0,
        "{text}"
    );

    // Let go: the held requests are answered, and the kept form sent again makes the move.
    drop(sessions);
    drop(row);
    for held in held_pages {
        assert_ne!(held.await.unwrap(), 0, "a held page is answered");
    }
    let mut statuses: Vec<u16> = Vec::new();
    for held in held_moves {
        statuses.push(held.await.unwrap());
    }
    statuses.sort();
    assert_eq!(
        statuses,
        vec![201, 409],
        "one held move lands, the other is stale"
    );
    let again = answer(
        client
            .post(&seat_url)
            .insert_header(("Cookie", cookie))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded")),
        Some(form(&hidden_fields(&kept.body))),
    )
    .await;
    assert_eq!(again.status, 303, "{}", again.body);
    assert_eq!(head(&db, form_game).await, head_before + 1);
    db.drop().await;
}

#[actix_web::test]
async fn past_the_requests_that_may_wait_another_is_refused_at_once_however_long_the_wait() {
    let db = TestDb::new().await;
    let bounds = [
        ("POSTPLAY_PAGES_IN_FLIGHT", "1".to_string()),
        ("POSTPLAY_PAGES_WAITING", "1".to_string()),
        ("POSTPLAY_QUEUE_WAIT_MS", "60000".to_string()),
        ("POSTPLAY_RETRY_AFTER_SECS", "3".to_string()),
    ];
    let (_server, base, metrics) = serve(&db, &bounds).await;
    let client = Client::builder()
        .disable_redirects()
        .timeout(Duration::from_secs(60))
        .finish();
    let waiting = async || {
        let text = scrape(&client, &metrics).await;
        sample(&text, "postplay_requests_waiting", &[r#"class="page""#])
    };

    // The one place taken by a signed-in request held on the sessions table, and the one
    // request that may wait waiting for it.
    let cookie = session(&db).await;
    let sessions = lock(&db, "LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE").await;
    let in_place = signed_in(&client, &base, &cookie);
    held(&db, 1).await;
    let in_queue = signed_in(&client, &base, &cookie);
    until(
        "a page to wait for a place",
        PATIENCE,
        async || match waiting().await {
            1.0 => Ok(()),
            n => Err(format!("{n} waiting")),
        },
    )
    .await;

    // One more is refused at once, though a place may be waited for a minute.
    let lobby = answer(client.get(format!("{base}/lobby")), None).await;
    is_quick_503(&lobby, "a page past the requests that may wait");
    assert!(lobby.body.contains("busy"), "{}", lobby.body);
    let text = scrape(&client, &metrics).await;
    let full = [r#"class="page""#, r#"reason="full""#, r#"group="lobby""#];
    assert_eq!(
        sample(&text, "postplay_requests_shed_total", &full),
        1.0,
        "{text}"
    );

    // Let go: both held requests are answered, and nothing waits any more.
    drop(sessions);
    assert_eq!(in_place.await.unwrap(), 200);
    assert_eq!(in_queue.await.unwrap(), 200);
    until("no page to wait", PATIENCE, async || {
        match waiting().await {
            0.0 => Ok(()),
            n => Err(format!("{n} waiting")),
        }
    })
    .await;
    let lobby = answer(client.get(format!("{base}/lobby")), None).await;
    assert_eq!(lobby.status, 200, "{}", lobby.body);
    db.drop().await;
}

#[actix_web::test]
async fn the_clock_and_the_outbox_act_while_every_web_connection_is_taken() {
    let db = TestDb::new().await;
    let sink = SmtpSink::start().await.unwrap();
    let seats: Vec<NewSeat> = ["Ann", "Bo", "Cy", "Di"]
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(EmailAddress::parse(&format!("{n}@example.org")).unwrap()),
            bot: None,
        })
        .collect();
    let clock = ClockSettings {
        control: TimeControl::PerMove { days: 3 },
        ..ClockSettings::default()
    };
    let game = db
        .store
        .create_game_with(
            "whitehouse",
            &json!({}),
            &seats,
            Seed::from_number(41),
            None,
            &json!({ "clock": clock }),
        )
        .await
        .unwrap()
        .id;
    let env = [
        // Two for requests, one for live refresh's listener.
        ("POSTPLAY_DB_CONNECTIONS", "3".to_string()),
        ("POSTPLAY_DB_WAIT_MS", "300".to_string()),
        ("POSTPLAY_RETRY_AFTER_SECS", "3".to_string()),
        ("POSTPLAY_BACKGROUND_CONNECTIONS", "2".to_string()),
        ("POSTPLAY_CLOCK_TICK_SECS", "1".to_string()),
        ("POSTPLAY_MAIL", "smtp".to_string()),
        ("POSTPLAY_SMTP_HOST", "127.0.0.1".to_string()),
        ("POSTPLAY_SMTP_PORT", sink.port().to_string()),
        ("POSTPLAY_SMTP_SECURITY", "none".to_string()),
        (
            "POSTPLAY_MAIL_FROM",
            "postplay <games@pp.example>".to_string(),
        ),
    ];
    let (_server, base, metrics) = serve(&db, &env).await;
    let client = Client::builder().timeout(Duration::from_secs(60)).finish();

    // Both web connections taken by signed-in requests held on the sessions table.
    let cookie_of_me = session(&db).await;
    let sessions = lock(&db, "LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE").await;
    let held_pages = [
        signed_in(&client, &base, &cookie_of_me),
        signed_in(&client, &base, &cookie_of_me),
    ];
    held(&db, 2).await;
    // A page needing the database waits at most POSTPLAY_DB_WAIT_MS, then 503.
    let page = answer(client.get(format!("{base}/games/{game}")), None).await;
    is_quick_503(&page, "a page with no connection free");
    assert!(page.body.contains("busy"), "{}", page.body);
    let text = scrape(&client, &metrics).await;
    assert!(
        sample(
            &text,
            "postplay_requests_shed_total",
            &[r#"reason="pool""#, r#"class="page""#]
        ) >= 1.0,
        "{text}"
    );

    // A deadline falls due now: the clock acts on it, and its notices are mailed.
    let since: chrono::DateTime<chrono::Utc> = sqlx::query_scalar("SELECT now()")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let due = sqlx::query(
        "UPDATE seat_clocks SET due_at = now() - interval '1 second' \
         WHERE game_id = $1 AND awaited_seq IS NOT NULL AND due_at IS NOT NULL",
    )
    .bind(game)
    .execute(db.store.pool())
    .await
    .unwrap()
    .rows_affected();
    assert!(due >= 1, "a seat is awaited with a deadline");
    until_some(
        &db,
        "the clock to act on the deadline",
        "SELECT count(*) FROM commands WHERE game_id = $1 AND made_by = 'clock'",
        game,
    )
    .await;
    until_some(
        &db,
        "the clock's notices to be mailed",
        "SELECT count(*) FROM outbox WHERE created_at >= $1 AND status = 'sent'",
        since,
    )
    .await;
    assert!(!sink.received().is_empty());
    // All the while, both web connections stayed taken.
    assert_eq!(lock_waiters(&db).await, 2);

    drop(sessions);
    for held in held_pages {
        assert_ne!(held.await.unwrap(), 0, "a held page is answered");
    }
    db.drop().await;
}

/// Waits until the count `sql` makes with its one argument `arg` is above nought.
async fn until_some<A>(db: &TestDb, what: &str, sql: &'static str, arg: A)
where
    A: for<'q> sqlx::Encode<'q, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Clone + Send,
{
    until(what, PATIENCE, async || {
        let n: i64 = sqlx::query_scalar(sql)
            .bind(arg.clone())
            .fetch_one(db.store.pool())
            .await
            .unwrap();
        if n > 0 { Ok(()) } else { Err("none yet") }
    })
    .await;
}
