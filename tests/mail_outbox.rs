//! The outbox end to end, against a real PostgreSQL and a real SMTP server over TCP: a whole
//! game played only through the links in the players' mail; the mail server down for a while;
//! an address that never works; two worker processes on one outbox; digests; one-click
//! unsubscribe; and no mail ever shows another seat's hidden cards.

mod common;

use awc::Client;
use common::mailrig::{expect_mail, play_token, quick, spawn_worker};
use common::mime::{header, part};
use common::{TestDb, spawn_app};
use postplay::cards::Card;
use postplay::engine::Choice;
use postplay::engine::Seed;
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::mail::EmailAddress;
use postplay::mail::sink::SmtpSink;
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
            name: NAMES[i].to_string(),
            email: Some(EmailAddress::parse(e).unwrap()),
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
        for line in lines {
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
    let mut turns = 0;
    let mut moves = 0;
    while over.len() < 4 {
        let mail = expect_mail(&sink, seen + 1, 10).await;
        for got in &mail[seen..] {
            assert_eq!(got.to.len(), 1, "one recipient per message");
            let seat = seat_of[&got.to[0]];
            let data = &got.data;
            let subject = header(data, "Subject").unwrap();
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
                for other in NAMES.iter().filter(|n| **n != NAMES[seat]) {
                    assert!(text.contains(&format!("- {other} (")), "{text}");
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
                assert!(text.contains(&format!("{base}/games/{id}/replay")));
                let (status, _) = get(&client, &format!("{base}/games/{id}/replay")).await;
                assert_eq!(status, 200);
                continue;
            }
            if subject.ends_with("your turn") {
                turns += 1;
                // The text has every public line since the seat last moved.
                let loaded = db.store.load(id).await.unwrap();
                let since = last_moved.get(&seat).copied().unwrap_or(0);
                for (seq, _, lines) in loaded.log.iter() {
                    if *seq > since {
                        for line in lines {
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
    assert_eq!(row.head_seq as usize, moves);
    assert_eq!(invitations.len(), 4);
    assert!(turns > 10, "{turns} your-turn notices");
    // Nothing more comes: every notice was for an event, once.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(sink.received().len(), seen);
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM outbox WHERE status = 'sent'")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(rows as usize, seen);
    worker.stop().await;
    db.drop().await;
}
