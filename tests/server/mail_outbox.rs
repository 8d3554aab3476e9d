//! The outbox end to end, against a real PostgreSQL and a real SMTP server over TCP: a whole
//! game played only through the links in the players' mail; the mail server down for a while;
//! an address that never works; two worker processes on one outbox; digests; one-click
//! unsubscribe; and no mail ever shows another seat's hidden cards.

use crate::common;

use awc::Client;
use common::mailrig::{drain, expect_mail, play_token, quick, spawn_worker};
use common::mime::{header, part};
use common::{TestDb, spawn_app};
use postplay::cards::Card;
use postplay::engine::Choice;
use postplay::engine::Seed;
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::notices::EmailAddress;
use postplay::notices::mail::sink::SmtpSink;
use postplay::store::NewSeat;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

const NAMES: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

fn seats(emails: &[&str]) -> Vec<NewSeat> {
    emails
        .iter()
        .enumerate()
        .map(|(i, e)| NewSeat {
            name: postplay::store::PlayerName::parse(NAMES[i]).unwrap(),
            email: Some(EmailAddress::parse(e).unwrap()),
            bot: None,
        })
        .collect()
}

fn emails() -> Vec<String> {
    NAMES
        .iter()
        .map(|n| format!("{}@example.org", n.to_lowercase()))
        .collect()
}

async fn create(
    db: &TestDb,
    kind: &str,
    options: Value,
    emails: &[String],
    seed: u64,
) -> postplay::store::CreatedGame {
    let refs: Vec<&str> = emails.iter().map(String::as_str).collect();
    db.store
        .create_game_with(
            kind,
            &options,
            &seats(&refs),
            Seed::from_number(seed),
            Some(&EmailAddress::parse("org@example.org").unwrap()),
            &Value::Null,
        )
        .await
        .unwrap()
}

async fn get(client: &Client, url: &str) -> (u16, String) {
    let mut res = client.get(url).send().await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

async fn post(client: &Client, url: &str, content_type: &str, body: String) -> (u16, String) {
    let mut res = client
        .post(url)
        .insert_header(("Content-Type", content_type))
        .send_body(body)
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// Plays every move open to the seat behind `token`, through the JSON API with that token,
/// until it is someone else's turn. Returns the number of moves made.
async fn play_while_my_turn(
    client: &Client,
    base: &str,
    token: &str,
    rng: &mut postplay::engine::GameRng,
) -> usize {
    let mut moves = 0;
    loop {
        let (status, body) = get(client, &format!("{base}/api/play/{token}/choices")).await;
        assert_eq!(status, 200, "{body}");
        let json: Value = serde_json::from_str(&body).unwrap();
        let choices: Vec<Choice> = serde_json::from_value(json["choices"].clone()).unwrap();
        if choices.is_empty() {
            return moves;
        }
        let index = rng.index(choices.len());
        let command = fill_at_random(&choices[index], rng);
        let submission = json!({"command": command, "expected_seq": json["seq"]}).to_string();
        let (status, body) = post(
            client,
            &format!("{base}/api/play/{token}/commands"),
            "application/json",
            submission,
        )
        .await;
        assert_eq!(status, 201, "{body}");
        moves += 1;
    }
}

/// The labels of every card another seat holds (and of the kitty, unless the seat took it).
async fn hidden_labels(db: &TestDb, id: i64, seat: usize) -> Vec<&'static str> {
    let state = db.store.load(id).await.unwrap().game.state_json();
    let mut labels = Vec::new();
    for (s, hand) in state["hands"].as_array().into_iter().flatten().enumerate() {
        if s != seat {
            for code in hand.as_array().unwrap() {
                labels.push(Card::from_code(code.as_str().unwrap()).unwrap().label());
            }
        }
    }
    if let Some(kitty) = state["kitty"].as_array()
        && state["bidder"].as_u64() != Some(seat as u64)
    {
        for code in kitty {
            labels.push(Card::from_code(code.as_str().unwrap()).unwrap().label());
        }
    }
    labels
}

/// No card another seat holds appears in a message, once the public log's lines (which may
/// name a card of an earlier hand dealt again) are taken out. A finished game hides nothing.
async fn assert_hides_other_hands(db: &TestDb, id: i64, seat: usize, text: &str, html: &str) {
    let loaded = db.store.load(id).await.unwrap();
    if loaded.game.outcome().is_some() {
        return;
    }
    let names = NAMES.map(String::from);
    let (mut text, mut html) = (text.to_string(), html.to_string());
    for (_, _, lines) in loaded.log.iter() {
        for line in lines.iter() {
            let line = postplay::engine::log::render(line, &names);
            text = text.replace(&line, "");
            html = html.replace(&line, "");
        }
    }
    for label in hidden_labels(db, id, seat).await {
        assert!(
            !text.contains(label),
            "{} sees {label} in: {text}",
            NAMES[seat]
        );
        assert!(
            !html.contains(label),
            "{} sees {label} in the HTML",
            NAMES[seat]
        );
    }
}

/// A whole Whitehouse game between four seats that know nothing but their mail: each opens
/// the link in its latest message and moves through that link until it is no longer its turn.
#[actix_web::test]
async fn a_whole_game_played_through_the_links_in_the_mail() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let client = Client::builder().disable_redirects().finish();
    let addresses = emails();
    let created = create(&db, "whitehouse", json!({"target": 3}), &addresses, 31).await;
    let id = created.id;
    let seat_of: HashMap<String, usize> = addresses
        .iter()
        .enumerate()
        .map(|(i, a)| (a.clone(), i))
        .collect();
    let mut rng = bot_rng(&Seed::from_number(31));
    let mut invitations: HashMap<usize, String> = HashMap::new();
    let mut over: HashSet<usize> = HashSet::new();
    let mut message_ids = HashSet::new();
    let mut last_moved: HashMap<usize, i64> = HashMap::new();
    let mut seen = 0;
    let mut organiser_mails = 0;
    let mut turns = 0;
    let mut moves = 0;
    while over.len() < 4 {
        let mail = expect_mail(&sink, seen + 1, 10).await;
        for got in &mail[seen..] {
            assert_eq!(got.to.len(), 1, "one recipient per message");
            let data = &got.data;
            let subject = header(data, "Subject").unwrap();
            let Some(&seat) = seat_of.get(&got.to[0]) else {
                assert!(
                    subject.ends_with("your organiser link"),
                    "the organiser gets their link: {subject}"
                );
                organiser_mails += 1;
                continue;
            };
            let id_header = header(data, "Message-ID").unwrap();
            assert!(
                message_ids.insert(id_header.clone()),
                "duplicate {id_header}"
            );
            let text = part(data, "text/plain").unwrap();
            let html = part(data, "text/html").unwrap();
            assert_hides_other_hands(&db, id, seat, &text, &html).await;
            if subject.ends_with("you are invited") {
                assert!(header(data, "In-Reply-To").is_none());
                invitations.insert(seat, id_header.clone());
                let row = db.store.game(id).await.unwrap().unwrap();
                assert!(
                    text.contains(&row.commitment),
                    "the seed's commitment: {text}"
                );
                assert!(!text.contains(&row.seed.to_hex()), "the seed stays secret");
                for part in [&text, &html] {
                    assert!(
                        part.contains("Nobody chose these cards, not even the server")
                            && part.contains("fairness page (/fairness)"),
                        "the invitation says how the deal is fair: {part}"
                    );
                }
                for other in NAMES.iter().filter(|n| **n != NAMES[seat]) {
                    let seated = |l: &str| {
                        l.starts_with("- ")
                            && (l.ends_with(&format!(": {other}"))
                                || l.ends_with(&format!(": {other}, your partner")))
                    };
                    assert!(text.lines().any(seated), "{other} at the table: {text}");
                }
            } else {
                // Every later message threads to the seat's invitation.
                let root = invitations.get(&seat).expect("the invitation came first");
                assert_eq!(&header(data, "In-Reply-To").unwrap(), root);
                assert_eq!(&header(data, "References").unwrap(), root);
            }
            if subject.ends_with("game over") {
                assert!(over.insert(seat), "one game-over message per seat");
                let row = db.store.game(id).await.unwrap().unwrap();
                assert!(text.contains(&row.seed.to_hex()), "the seed is revealed");
                assert!(text.contains(&row.commitment));
                assert!(text.contains(&format!("{base}/games/{id}/replay")));
                let (status, _) = get(&client, &format!("{base}/games/{id}/replay")).await;
                assert_eq!(status, 200);
                continue;
            }
            if subject.ends_with("your turn") {
                turns += 1;
                // The text has every public line since the seat last moved, up to the move
                // the mail is about (its Message-ID names it: `pp.g1.turn.17.s0`); the other
                // seats may have moved on since it was written.
                let at: i64 = header(data, "Message-ID")
                    .and_then(|m| {
                        m.split(".turn.")
                            .nth(1)
                            .and_then(|rest| rest.split('.').next())
                            .and_then(|n| n.parse().ok())
                    })
                    .expect("a turn's Message-ID names its move");
                let loaded = db.store.load(id).await.unwrap();
                let since = last_moved.get(&seat).copied().unwrap_or(0);
                for (seq, _, lines) in loaded.log.iter() {
                    if *seq > since && *seq <= at {
                        for line in lines.iter() {
                            let line =
                                postplay::engine::log::render(line, &NAMES.map(String::from));
                            assert!(text.contains(&line), "{line:?} missing from: {text}");
                        }
                    }
                }
                assert!(header(data, "List-Unsubscribe").is_some());
            }
            // The link works when followed (a GET shows the page and changes nothing)...
            let token = play_token(&text).expect("a play link");
            let head_before = db.store.game(id).await.unwrap().unwrap().head_seq;
            let (status, page) = get(&client, &format!("{base}/play/{token}")).await;
            assert_eq!(status, 200);
            assert!(page.contains(NAMES[seat]));
            assert_eq!(
                db.store.game(id).await.unwrap().unwrap().head_seq,
                head_before
            );
            // ... and the seat plays through it.
            let made = play_while_my_turn(&client, &base, &token, &mut rng).await;
            if made > 0 {
                moves += made;
                last_moved.insert(seat, db.store.game(id).await.unwrap().unwrap().head_seq);
            }
        }
        seen = mail.len();
    }
    let row = db.store.game(id).await.unwrap().unwrap();
    assert_eq!(row.status, "over");
    let played_at_once = db
        .store
        .commands(id, 0)
        .await
        .unwrap()
        .iter()
        .filter(|c| c.by() == Some("auto"))
        .count();
    assert_eq!(
        row.head_seq as usize,
        moves + played_at_once,
        "every entry is a move made through the mail's links, or one forced in public"
    );
    assert_eq!(invitations.len(), 4);
    assert_eq!(organiser_mails, 1, "the organiser's link, once");
    assert!(turns > 10, "{turns} your-turn notices");
    // Nothing more comes: once the outbox is drained, every notice was for an event, once.
    drain(&db, 30).await;
    assert_eq!(sink.received().len(), seen);
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox WHERE status = 'sent'")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(rows as usize, seen);
    worker.stop().await;
    db.drop().await;
}

/// Plays `moves` random moves straight through the store (the seats' own business here).
async fn play_moves(db: &TestDb, id: i64, moves: usize, rng: &mut postplay::engine::GameRng) {
    for _ in 0..moves {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let index = rng.index(choices.len());
        let command = fill_at_random(&choices[index], rng);
        db.store.submit(id, seat, &command, None).await.unwrap();
    }
}

/// Plays until `seat` becomes active after at least one move; false if the game ended first.
async fn play_until_active(
    db: &TestDb,
    id: i64,
    seat: usize,
    rng: &mut postplay::engine::GameRng,
) -> bool {
    let mut first = true;
    loop {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return false;
        }
        let active = loaded.game.active();
        if !first && active.contains(&seat) {
            return true;
        }
        first = false;
        let mover = active[0];
        let choices = loaded.game.choices(mover);
        let index = rng.index(choices.len());
        let command = fill_at_random(&choices[index], rng);
        db.store.submit(id, mover, &command, None).await.unwrap();
    }
}

async fn outbox_count(db: &TestDb, filter: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM outbox WHERE {filter}"
    )))
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

fn message_ids(mail: &[postplay::notices::mail::sink::Received]) -> HashSet<String> {
    mail.iter()
        .map(|m| header(&m.data, "Message-ID").unwrap())
        .collect()
}

#[actix_web::test]
async fn while_the_mail_server_is_down_nothing_is_lost_and_nothing_comes_twice() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let mut sink = SmtpSink::start().await.unwrap();
    sink.stop();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let created = create(&db, "whitehouse", json!({"target": 3}), &emails(), 41).await;
    let mut rng = bot_rng(&Seed::from_number(41));
    play_moves(&db, created.id, 12, &mut rng).await;
    // The worker keeps trying, backing off.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while outbox_count(&db, "attempts >= 3 AND status = 'pending'").await == 0 {
        assert!(std::time::Instant::now() < deadline, "no retries");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(outbox_count(&db, "status = 'sent'").await, 0);
    let client = Client::default();
    let (status, page) = get(
        &client,
        &format!("{base}/manage/{}", created.organiser_token),
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("retrying"), "{page}");
    sink.restart().await.unwrap();
    drain(&db, 20).await;
    let queued = outbox_count(&db, "true").await as usize;
    assert!(queued > 4, "invitations and turn notices: {queued}");
    let mail = expect_mail(&sink, queued, 30).await;
    drain(&db, 30).await;
    let mail_after = sink.received();
    assert_eq!(mail_after.len(), mail.len(), "nothing twice");
    assert_eq!(mail.len(), queued, "nothing lost");
    assert_eq!(message_ids(&mail).len(), queued, "one Message-ID per event");
    assert_eq!(outbox_count(&db, "status = 'sent'").await as usize, queued);
    worker.stop().await;
    db.drop().await;
}

/// A retry comes due without a notification: the worker wakes for it when it is due, not at
/// its next poll (ten minutes here). The same wake sends a row whose lease lapsed after a
/// failover (tests/failover.rs).
#[actix_web::test]
async fn a_retry_goes_out_when_due_not_at_the_next_poll() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let mut sink = SmtpSink::start().await.unwrap();
    sink.stop();
    let config = common::mailrig::WorkerConfig {
        retry_base: Duration::from_secs(2),
        retry_max: Duration::from_secs(2),
        poll: Duration::from_secs(600),
        ..quick()
    };
    let worker = spawn_worker(&db, &base, sink.port(), config);
    create(&db, "whitehouse", json!({"target": 3}), &emails(), 43).await;
    common::wait::holds("a first try to have failed", async || {
        outbox_count(&db, "attempts >= 1 AND status = 'pending'").await > 0
    })
    .await;
    sink.restart().await.unwrap();
    let queued = outbox_count(&db, "true").await as usize;
    let mail = expect_mail(&sink, queued, 30).await;
    assert_eq!(mail.len(), queued, "every retry went out once, when due");
    worker.stop().await;
    db.drop().await;
}

/// A failover in the middle of a pass: the database refuses to record one row's failure, and
/// the rows of the same batch that went out are recorded as sent all the same (they were left
/// `sending` before, and went out a second time when their lease lapsed: CI, 2026-11-29).
#[actix_web::test]
async fn mail_that_went_out_is_recorded_even_when_a_failure_beside_it_cannot_be() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    sink.refuse("bo@example.org");
    // The write that records a failure fails, as a write does while the primary moves.
    sqlx::raw_sql(
        "CREATE FUNCTION refuse_failed() RETURNS trigger LANGUAGE plpgsql AS $$ \
         BEGIN RAISE EXCEPTION 'the database is away'; END $$; \
         CREATE TRIGGER refuse_failed BEFORE UPDATE ON outbox FOR EACH ROW \
         WHEN (NEW.status = 'failed') EXECUTE FUNCTION refuse_failed();",
    )
    .execute(db.store.pool())
    .await
    .unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    create(&db, "whitehouse", json!({}), &emails(), 52).await;
    let others = outbox_count(&db, "recipient <> 'bo@example.org'").await as usize;
    let mail = expect_mail(&sink, others, 10).await;
    common::wait::until(
        "every row but Bo's recorded as sent, within the lease",
        Duration::from_secs(20),
        async || match outbox_count(&db, "recipient <> 'bo@example.org' AND status <> 'sent'").await
        {
            0 => Ok(()),
            open => Err(format!("{open} rows not recorded as sent")),
        },
    )
    .await;
    worker.stop().await;
    assert_eq!(mail.len(), others);
    assert_eq!(message_ids(&mail).len(), others, "each message once");
    db.drop().await;
}

#[actix_web::test]
async fn an_address_that_never_works_ends_undeliverable_and_the_organiser_is_told() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    sink.refuse("bo@example.org");
    let config = common::mailrig::WorkerConfig {
        max_attempts: 3,
        ..quick()
    };
    let worker = spawn_worker(&db, &base, sink.port(), config);
    let created = create(&db, "whitehouse", json!({}), &emails(), 51).await;
    // Three invitations, the organiser's link and the organiser's notice arrive; Bo's
    // invitation does not.
    let mail = expect_mail(&sink, 5, 10).await;
    drain(&db, 10).await;
    let failed: (String, String, i32) = sqlx::query_as(
        "SELECT status, last_error, attempts FROM outbox WHERE recipient = 'bo@example.org'",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(failed.0, "failed");
    assert!(failed.1.contains("550"), "{}", failed.1);
    assert_eq!(failed.2, 1, "a permanent refusal is not retried");
    let to_organiser: Vec<_> = mail
        .iter()
        .filter(|m| m.to == vec!["org@example.org".to_string()])
        .filter(|m| {
            !header(&m.data, "Subject")
                .unwrap()
                .ends_with("your organiser link")
        })
        .collect();
    assert_eq!(to_organiser.len(), 1);
    let notice = &to_organiser[0].data;
    assert!(
        header(notice, "Subject")
            .unwrap()
            .ends_with("mail to Bo is undeliverable")
    );
    let text = part(notice, "text/plain").unwrap();
    assert!(
        text.contains("bo@example.org") && text.contains("(550): 5.1.1 no such mailbox here"),
        "{text}"
    );
    assert!(
        mail.iter()
            .all(|m| m.to != vec!["bo@example.org".to_string()])
    );
    let client = Client::default();
    let (_, page) = get(
        &client,
        &format!("{base}/manage/{}", created.organiser_token),
    )
    .await;
    assert!(page.contains("undeliverable"), "{page}");
    assert!(page.contains("no such mailbox here"), "{page}");
    worker.stop().await;
    db.drop().await;
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Two `postplay worker` processes on one outbox: every message goes out exactly once.
#[actix_web::test]
async fn two_worker_processes_send_each_message_exactly_once() {
    let db = TestDb::new().await;
    let sink = SmtpSink::start().await.unwrap();
    let mut ids = Vec::new();
    for seed in 0..50 {
        ids.push(
            create(&db, "whitehouse", json!({}), &emails(), 100 + seed)
                .await
                .id,
        );
    }
    let dir = common::scratch::Scratch::new(&format!("workers-{}", db.name));
    let spawn = |n: usize| {
        std::process::Command::new(env!("CARGO_BIN_EXE_postplay"))
            .arg("worker")
            .env("DATABASE_URL", db.url())
            .env("POSTPLAY_MAIL", "smtp")
            .env("POSTPLAY_SMTP_HOST", "127.0.0.1")
            .env("POSTPLAY_SMTP_PORT", sink.port().to_string())
            .env("POSTPLAY_SMTP_SECURITY", "none")
            .env("POSTPLAY_MAIL_FROM", "games@pp.example")
            .env("POSTPLAY_MAIL_POLL_SECS", "0.2")
            .env("POSTPLAY_BASE_URL", "http://127.0.0.1:9")
            .env("RUST_LOG", "info")
            .env_remove("POSTPLAY_CONFIG")
            .stderr(std::fs::File::create(dir.join(format!("worker{n}.log"))).unwrap())
            .spawn()
            .unwrap()
    };
    let mut workers = [spawn(0), spawn(1)];
    // More rows arrive while they run (woken by NOTIFY).
    let mut rng = bot_rng(&Seed::from_number(61));
    for id in &ids[..10] {
        play_moves(&db, *id, 6, &mut rng).await;
    }
    let queued = outbox_count(&db, "true").await as usize;
    assert!(queued >= 200);
    let mail = expect_mail(&sink, queued, 60).await;
    drain(&db, 30).await;
    for w in &mut workers {
        let _ = std::process::Command::new("kill")
            .arg(w.id().to_string())
            .status();
        w.wait().unwrap();
    }
    let mail_after = sink.received();
    assert_eq!(mail_after.len(), mail.len());
    assert_eq!(mail.len(), queued, "every message exactly once");
    assert_eq!(message_ids(&mail).len(), queued);
    let mut per_worker = Vec::new();
    for n in 0..2 {
        let log = strip_ansi(&std::fs::read_to_string(dir.join(format!("worker{n}.log"))).unwrap());
        let sent: usize = log
            .lines()
            .filter(|l| l.contains("mail sent"))
            .map(|l| {
                l.split("ids=[")
                    .nth(1)
                    .map_or(0, |ids| ids.split(',').count())
            })
            .sum();
        per_worker.push(sent);
    }
    eprintln!("sent by each worker: {per_worker:?}");
    assert_eq!(per_worker.iter().sum::<usize>(), queued);
    assert!(
        per_worker.iter().all(|&n| n > 0),
        "both workers worked: {per_worker:?}"
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_digest_gathers_a_players_games_and_one_click_unsubscribe_stops_mail() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    let client = Client::default();
    let form = "application/x-www-form-urlencoded";
    let mut rng = bot_rng(&Seed::from_number(71));
    let mut games = Vec::new();
    for seed in [72, 73] {
        let created = create(&db, "whitehouse", json!({}), &emails(), seed).await;
        let (status, page) = post(
            &client,
            &format!("{base}/mail/unsubscribe/{}", created.seat_tokens[0]),
            form,
            "pref=digest".into(),
        )
        .await;
        assert_eq!(status, 200);
        assert!(page.contains("at most one message a day"));
        assert!(play_until_active(&db, created.id, 0, &mut rng).await);
        games.push(created);
    }
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let digest = loop {
        let mail = expect_mail(&sink, sink.received().len() + 1, 10).await;
        if let Some(d) = mail.iter().find(|m| {
            header(&m.data, "Subject")
                .unwrap()
                .starts_with("Your turn in")
        }) {
            break d.clone();
        }
    };
    assert_eq!(digest.to, vec!["ann@example.org".to_string()]);
    assert_eq!(
        header(&digest.data, "Subject").unwrap(),
        "Your turn in 2 games"
    );
    let text = part(&digest.data, "text/plain").unwrap();
    for g in &games {
        assert!(
            text.contains(&format!("== Whitehouse #{} (", g.id)),
            "{text}"
        );
    }
    let links: Vec<&str> = text
        .split_whitespace()
        .filter(|w| w.contains("/play/"))
        .collect();
    assert_eq!(links.len(), 2);
    for link in links {
        let (status, _) = get(&client, link).await;
        assert_eq!(status, 200);
    }
    // Ann is not sent a separate your-turn notice, and the next turn waits for tomorrow.
    let to_ann_before = sink
        .received()
        .iter()
        .filter(|m| m.to[0] == "ann@example.org")
        .count();
    assert!(play_until_active(&db, games[0].id, 0, &mut rng).await);
    drain(&db, 30).await;
    let to_ann_after = sink
        .received()
        .iter()
        .filter(|m| m.to[0] == "ann@example.org")
        .count();
    assert_eq!(to_ann_before, to_ann_after);
    assert_eq!(
        outbox_count(
            &db,
            "recipient = 'ann@example.org' AND digest AND status = 'pending'"
        )
        .await,
        1
    );
    // Bo unsubscribes with one click from the header of his invitation.
    let invitation = sink
        .received()
        .into_iter()
        .find(|m| {
            m.to[0] == "bo@example.org"
                && header(&m.data, "Subject")
                    .unwrap()
                    .contains(&format!("#{}:", games[1].id))
        })
        .unwrap();
    let url = header(&invitation.data, "List-Unsubscribe").unwrap();
    let url = url.trim_start_matches('<').trim_end_matches('>');
    let (status, _) = post(&client, url, form, "List-Unsubscribe=One-Click".into()).await;
    assert_eq!(status, 200);
    let bo_before = outbox_count(&db, "recipient = 'bo@example.org'").await;
    assert!(play_until_active(&db, games[1].id, 1, &mut rng).await);
    assert_eq!(
        outbox_count(&db, "recipient = 'bo@example.org'").await,
        bo_before,
        "no mail for Bo"
    );
    worker.stop().await;
    db.drop().await;
}

/// The default local run: a game created through the web form mails its invitations to the
/// dev mailbox, whose page lists them with links that open each seat's page; the whole game
/// is then played from that page's links.
#[actix_web::test]
async fn the_dev_mailbox_page_lists_the_invitations_and_their_links_open_the_game() {
    let db = TestDb::new().await;
    let dir = common::scratch::Scratch::new(&format!("devmail-{}", db.name));
    let mailbox = postplay::notices::DevMailbox::new(dir.to_path_buf());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = postplay::web::start_with_mailbox(
        std::sync::Arc::new(db.store.clone_handle()),
        base.clone(),
        listener,
        Some(mailbox.clone()),
    )
    .unwrap();
    actix_web::rt::spawn(server);
    let worker = common::mailrig::spawn_worker_with(
        &db,
        &base,
        postplay::notices::Transport::Mailbox(mailbox.clone()),
        quick(),
    );
    let client = Client::builder().disable_redirects().finish();
    let res = client
        .get(format!("{base}/new/whitehouse"))
        .send()
        .await
        .unwrap();
    let cookie = res.headers().get("set-cookie").unwrap().to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_string();
    let csrf = cookie.trim_start_matches("pp_csrf=").to_string();
    let mut fields = vec![
        ("csrf".to_string(), csrf),
        ("order".into(), "fixed".into()),
        ("organiser_email".into(), "org@example.org".into()),
        ("opt_target".into(), "3".into()),
    ];
    for (i, (name, email)) in NAMES.iter().zip(emails()).enumerate() {
        fields.push((format!("name{i}"), name.to_string()));
        fields.push((format!("email{i}"), email));
    }
    let body: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&fields)
        .finish();
    let mut res = client
        .post(format!("{base}/new/whitehouse"))
        .insert_header(("Cookie", cookie.clone()))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body(body)
        .await
        .unwrap();
    let created = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
    assert_eq!(res.status().as_u16(), 303, "{created}");
    // The four invitations (the organiser's link goes out in the same batch).
    common::wait::until(
        "the four invitations in the mailbox",
        common::wait::PATIENCE,
        async || {
            let invited = mailbox
                .list()
                .unwrap()
                .iter()
                .filter(|e| e.subject.ends_with("you are invited"))
                .count();
            if invited == 4 {
                Ok(())
            } else {
                Err(format!("{invited} invitations"))
            }
        },
    )
    .await;
    let (status, page) = get(&client, &format!("{base}/dev/mailbox")).await;
    assert_eq!(status, 200);
    assert_eq!(page.matches("you are invited").count(), 4, "{page}");
    let links: Vec<&str> = page
        .split("href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|l| l.contains("/play/"))
        .collect();
    assert_eq!(links.len(), 4);
    for (seat, link) in links.iter().enumerate() {
        let (status, play) = get(&client, link).await;
        assert_eq!(status, 200, "{link}");
        assert!(NAMES.iter().any(|n| play.contains(n)), "seat {seat}");
    }
    // An invitation (the organiser's link, sent in the same batch, may be stored last).
    let first = mailbox
        .list()
        .unwrap()
        .into_iter()
        .find(|e| e.subject.ends_with("you are invited"))
        .unwrap();
    let (status, shown) = get(&client, &format!("{base}/dev/mailbox/{}", first.key)).await;
    assert_eq!(status, 200);
    assert!(shown.contains("Your private link"), "{shown}");
    // One of the four moves first and is told so.
    let entries = mailbox.list().unwrap();
    assert_eq!(
        entries
            .iter()
            .filter(|e| e.text.contains("You move first"))
            .count(),
        1
    );
    // The whole game, played from the mailbox page alone: each new message's play link is
    // followed and that seat moves while it may.
    let id: i64 = sqlx::query_scalar("SELECT max(id) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let mut rng = bot_rng(&Seed::from_number(41));
    let mut handled: HashSet<String> = HashSet::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while db.store.game(id).await.unwrap().unwrap().status != "over" {
        assert!(std::time::Instant::now() < deadline, "the game did not end");
        let (_, page) = get(&client, &format!("{base}/dev/mailbox")).await;
        let mut rows: Vec<(String, Option<String>)> = page
            .split("<tr>")
            .filter_map(|row| {
                let key = row
                    .split("href=\"/dev/mailbox/")
                    .nth(1)?
                    .split('"')
                    .next()?;
                let link = row
                    .split("href=\"")
                    .filter_map(|s| s.split('"').next())
                    .find(|l| l.contains("/play/"))
                    .map(String::from);
                Some((key.to_string(), link))
            })
            .collect();
        rows.reverse();
        let mut progressed = false;
        for (key, link) in rows {
            if !handled.insert(key) {
                continue;
            }
            progressed = true;
            if let Some(token) = link.as_deref().and_then(|l| l.split("/play/").nth(1)) {
                play_while_my_turn(&client, &base, token, &mut rng).await;
            }
        }
        if !progressed {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    while mailbox
        .list()
        .unwrap()
        .iter()
        .filter(|e| e.subject.ends_with("game over"))
        .count()
        < 4
    {
        assert!(std::time::Instant::now() < deadline, "no game-over mail");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Without the dev mailbox there is no such page.
    let other = spawn_app(&db);
    assert_eq!(get(&client, &format!("{other}/dev/mailbox")).await.0, 404);
    worker.stop().await;
    db.drop().await;
}

/// The organiser hears once of a seat that has not moved for the configured time (however
/// often the workers look), and again when the game has moved on and stalls anew.
#[actix_web::test]
async fn the_organiser_is_told_once_of_a_seat_that_has_not_moved() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    let id = create(&db, "whitehouse", json!({}), &emails(), 71).await.id;
    let config = common::mailrig::WorkerConfig {
        idle_after: Some(Duration::from_millis(300)),
        ..quick()
    };
    let idle_to_organiser = |mail: &[postplay::notices::mail::sink::Received]| -> Vec<String> {
        mail.iter()
            .filter(|m| m.to == ["org@example.org"])
            .map(|m| header(&m.data, "Subject").unwrap())
            .filter(|s| s.ends_with("has not moved"))
            .collect()
    };
    let worker = spawn_worker(&db, &base, sink.port(), config);
    // Four invitations, the organiser's link, and the notice.
    let mail = expect_mail(&sink, 6, 10).await;
    let first = db.store.load(id).await.unwrap().game.active()[0];
    assert_eq!(
        idle_to_organiser(&mail),
        vec![format!("Whitehouse #{id}: {} has not moved", NAMES[first])]
    );
    let idle = mail
        .iter()
        .find(|m| {
            header(&m.data, "Subject")
                .unwrap()
                .ends_with("has not moved")
        })
        .unwrap();
    let text = part(&idle.data, "text/plain").unwrap();
    assert!(text.contains(NAMES[first]), "{text}");
    // More looks, no second notice for the same position: a game made now is noticed idle
    // by a later look, which finds the first game's seat already told of.
    let later = create(&db, "whitehouse", json!({}), &emails(), 72).await.id;
    let later_subject = format!("Whitehouse #{later}: ");
    common::wait::holds(
        "a later look, seen by its notice of another game",
        async || {
            idle_to_organiser(&sink.received())
                .iter()
                .any(|s| s.starts_with(&later_subject))
        },
    )
    .await;
    let of_first = |mail: &[postplay::notices::mail::sink::Received]| -> Vec<String> {
        idle_to_organiser(mail)
            .into_iter()
            .filter(|s| s.starts_with(&format!("Whitehouse #{id}: ")))
            .collect()
    };
    assert_eq!(of_first(&sink.received()).len(), 1);
    // The game moves on (the next seat is told it is its turn) and stalls again.
    let mut rng = bot_rng(&Seed::from_number(71));
    play_moves(&db, id, 1, &mut rng).await;
    let next = db.store.load(id).await.unwrap().game.active()[0];
    common::wait::holds("a second idle notice of the first game", async || {
        of_first(&sink.received()).len() >= 2
    })
    .await;
    assert_eq!(
        of_first(&sink.received())[1],
        format!("Whitehouse #{id}: {} has not moved", NAMES[next])
    );
    let rows = outbox_count(&db, &format!("kind = 'idle' AND game_id = {id}")).await;
    assert_eq!(rows, 2);
    worker.stop().await;
    db.drop().await;
}

/// An address that is no address (or would smuggle a header) is refused on the create form
/// with a clear message, and nothing is created or queued.
#[actix_web::test]
async fn the_create_form_refuses_a_bad_address_and_creates_nothing() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let res = client
        .get(format!("{base}/new/statehood"))
        .send()
        .await
        .unwrap();
    let cookie = res.headers().get("set-cookie").unwrap().to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_string();
    let csrf = cookie.trim_start_matches("pp_csrf=").to_string();
    for (bo, organiser, says) in [
        ("bo at example.org", "", "bo at example.org"),
        (
            "bo@example.org\r\nBcc: eve@example.org",
            "",
            "bo@example.org",
        ),
        ("bo@example.org", "org@@example.org", "organiser"),
    ] {
        let fields = [
            ("csrf", csrf.as_str()),
            ("order", "fixed"),
            ("name0", "Ann"),
            ("email0", "ann@example.org"),
            ("name1", "Bo"),
            ("email1", bo),
            ("organiser_email", organiser),
        ];
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let mut res = client
            .post(format!("{base}/new/statehood"))
            .insert_header(("Cookie", cookie.clone()))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
            .send_body(body)
            .await
            .unwrap();
        let page = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
        assert_eq!(res.status().as_u16(), 422, "{bo:?} {organiser:?}: {page}");
        assert!(page.contains(says), "{says:?} not named in: {page}");
    }
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(games, 0);
    assert_eq!(outbox_count(&db, "true").await, 0);
    db.drop().await;
}

#[actix_web::test]
async fn the_game_over_mail_names_the_winner_and_tallies_the_states() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    let created = create(&db, "votes-for-women", json!({}), &emails()[..2], 53).await;
    let mut rng = bot_rng(&Seed::from_number(53));
    play_moves(&db, created.id, 5000, &mut rng).await;
    let loaded = db.store.load(created.id).await.unwrap();
    let outcome = loaded.game.outcome().expect("the game ended");
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    drain(&db, 60).await;
    let over: Vec<String> = sink
        .received()
        .iter()
        .filter(|m| header(&m.data, "Subject").unwrap().ends_with(": game over"))
        .map(|m| part(&m.data, "text/plain").unwrap())
        .collect();
    assert_eq!(over.len(), 2, "one to each player");
    let winner = NAMES[outcome.winners[0]];
    for text in &over {
        assert!(text.contains(&format!("{winner} (")), "{text}");
        assert!(text.contains(" wins. "), "{text}");
        for row in ["- Ratified: ", "- Rejected: ", "- Undecided: "] {
            assert!(text.contains(row), "{row} missing: {text}");
        }
        assert!(!text.contains("Final scores"), "{text}");
    }
    worker.stop().await;
    db.drop().await;
}
