//! Messages in a game (issue 17) over real HTTP against a real PostgreSQL, with mail sent over
//! TCP to a real SMTP server: escaping on every page and in mail, the text's limits, the rate
//! limit and the per-game cap counted in the database, who may write (an authorization table
//! for every route), messages in the your-turn mail and the digest (never the reader's own),
//! the "each message" choice, hiding, the replay, the export and import outside the chain.

use crate::common;

use awc::Client;
use common::TestDb;
use common::mailrig::{drain, expect_mail, quick, spawn_worker};
use common::mime::part;
use postplay::engine::Viewer;
use postplay::notices::mail::sink::{Received, SmtpSink};
use postplay::store::{
    Account, EmailAddress, MAX_MESSAGES_PER_GAME, MESSAGES_PER_MINUTE, PlayerName,
};
use serde_json::{Value, json};

const NASTY: &str = "<script>alert(1)</script> Tom & Jerry";
const ESCAPED: &str = "&#60;script&#62;alert(1)&#60;/script&#62; Tom &#38; Jerry";

async fn get(client: &Client, url: &str, cookie: &str) -> (u16, String) {
    let mut req = client.get(url);
    if !cookie.is_empty() {
        req = req.insert_header(("Cookie", cookie));
    }
    let mut res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// A CSRF token and its cookie (`pp_csrf=…`), from any page that has a form.
async fn csrf_pair(client: &Client, url: &str) -> (String, String) {
    let mut res = client.get(url).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200, "{url}");
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("pp_csrf="))
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let html = String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
    let csrf = html
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    (csrf, cookie)
}

/// A form POST with these cookies: (status, body, Location).
async fn post(
    client: &Client,
    url: &str,
    cookie: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String) {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let mut req = client
        .post(url)
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"));
    if !cookie.is_empty() {
        req = req.insert_header(("Cookie", cookie));
    }
    let mut res = req.send_body(body).await.unwrap();
    let status = res.status().as_u16();
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = res.body().limit(1 << 22).await.unwrap();
    (
        status,
        String::from_utf8_lossy(&body).into_owned(),
        location,
    )
}

async fn post_json(client: &Client, url: &str, body: Value) -> (u16, Value) {
    let mut res = client.post(url).send_json(&body).await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().await.unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

async fn count(db: &TestDb, game: i64) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM game_messages WHERE game_id = $1")
        .bind(game)
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

/// A signed-in account for `name@example.org` and its session cookie.
async fn signed_in(db: &TestDb, name: &str) -> (Account, String) {
    let account = db
        .store
        .account_for_email(
            &EmailAddress::parse(&format!("{}@example.org", name.to_lowercase())).unwrap(),
            &PlayerName::parse(name).unwrap(),
        )
        .await
        .unwrap();
    let token = db.store.start_session(account.id).await.unwrap();
    (account, format!("pp_session={token}"))
}

fn both(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}; {b}"),
    }
}

#[actix_web::test]
async fn messages_are_escaped_everywhere_limited_and_capped() {
    let db = TestDb::new().await;
    let base = common::spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let created = db
        .store
        .create_game_with(
            "whitehouse",
            &json!({}),
            &["Ann", "Bo", "Cy", "Di"]
                .iter()
                .map(|n| postplay::store::NewSeat {
                    name: PlayerName::parse(n).unwrap(),
                    email: None,
                    bot: None,
                })
                .collect::<Vec<_>>(),
            postplay::engine::Seed::from_number(3),
            None,
            &Value::Null,
        )
        .await
        .unwrap();
    let (id, tokens) = (created.id, created.seat_tokens.clone());
    let (csrf, csrf_cookie) = csrf_pair(&client, &format!("{base}/play/{}", tokens[0])).await;
    let say = |text: &'static str| {
        let url = format!("{base}/play/{}/messages", tokens[0]);
        let (client, cookie, csrf) = (&client, csrf_cookie.clone(), csrf.clone());
        async move { post(client, &url, &cookie, &[("csrf", &csrf), ("text", text)]).await }
    };
    let (status, _, location) = say(NASTY).await;
    assert_eq!(
        (status, location.as_str()),
        (303, &*format!("/play/{}#messages", tokens[0]))
    );
    common::play_until(&db, id, 9, |l| l.row.head_seq >= 2).await;
    // Closed to spectators (the default): the public pages and the public export hold none.
    for page in [
        format!("/games/{id}"),
        format!("/games/{id}/log"),
        format!("/games/{id}/replay?at=1"),
        format!("/api/games/{id}/export"),
    ] {
        let (status, html) = get(&client, &format!("{base}{page}"), "").await;
        assert_eq!(status, 200, "{page}");
        assert!(
            !html.contains("alert(1)"),
            "{page} shows a player's message to anyone"
        );
    }
    db.store.set_spectators_may_write(id, true).await.unwrap();
    for page in [
        format!("/play/{}", tokens[0]),
        format!("/play/{}", tokens[1]),
        format!("/games/{id}"),
        format!("/games/{id}/log"),
        format!("/games/{id}/replay?at=1"),
        format!("/manage/{}", created.organiser_token),
    ] {
        let (status, html) = get(&client, &format!("{base}{page}"), "").await;
        assert_eq!(status, 200, "{page}");
        assert!(html.contains(ESCAPED), "{page} shows the message as text");
        assert!(
            !html.contains("<script>alert(1)"),
            "{page} holds no markup of a message"
        );
        assert!(html.contains("Ann</b>"), "{page} names the author");
    }
    let (_, api) = get(
        &client,
        &format!("{base}/api/play/{}/messages", tokens[2]),
        "",
    )
    .await;
    let api: Value = serde_json::from_str(&api).unwrap();
    assert_eq!(
        api["messages"][0]["text"], NASTY,
        "JSON carries the text as it was written"
    );
    assert_eq!(api["messages"][0]["seat"], 0);
    assert_eq!(api["messages"][0]["after_move"], 0);

    // Bad texts are refused with the reason and store nothing.
    let long = "x".repeat(1001);
    for (text, reason) in [
        ("   \n ", "empty"),
        (long.as_str(), "at most 1000 characters"),
    ] {
        let (status, body, _) = post(
            &client,
            &format!("{base}/play/{}/messages", tokens[0]),
            &csrf_cookie,
            &[("csrf", &csrf), ("text", text)],
        )
        .await;
        assert_eq!(status, 400);
        assert!(body.contains(reason), "{body}");
        // The seat's page again, the text kept in the form (issue 47).
        if text == long {
            assert!(body.contains("Your message was not sent"), "{body}");
            assert!(body.contains(&format!(">{long}</textarea>")), "{body}");
        }
    }
    let (status, body) = post_json(
        &client,
        &format!("{base}/api/play/{}/messages", tokens[1]),
        json!({"text": ""}),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(count(&db, id).await, 1);

    // Without the CSRF token, nothing.
    let (status, _, _) = post(
        &client,
        &format!("{base}/play/{}/messages", tokens[0]),
        "",
        &[("text", "hello")],
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(count(&db, id).await, 1);

    // The rate limit: five a minute from one author, then 429; another author still writes.
    for _ in 1..MESSAGES_PER_MINUTE {
        assert_eq!(say("again").await.0, 303);
    }
    let (status, body, _) = say("one too many").await;
    assert_eq!(status, 429);
    assert!(body.contains("you write messages too often"), "{body}");
    assert!(
        body.contains(">one too many</textarea>"),
        "kept to send later: {body}"
    );
    assert_eq!(count(&db, id).await, MESSAGES_PER_MINUTE);
    let (status, _) = post_json(
        &client,
        &format!("{base}/api/play/{}/messages", tokens[1]),
        json!({"text": "my turn to talk"}),
    )
    .await;
    assert_eq!(status, 201);
    // The hourly limit counts older messages too (written 10 minutes ago here).
    sqlx::query(
        "INSERT INTO game_messages (game_id, seat, author_name, body, head_seq, created_at) \
         SELECT $1, 2, 'Cy', 'old', 0, now() - interval '10 minutes' FROM generate_series(1, 30)",
    )
    .bind(id)
    .execute(db.store.pool())
    .await
    .unwrap();
    let (status, body) = post_json(
        &client,
        &format!("{base}/api/play/{}/messages", tokens[2]),
        json!({"text": "hi"}),
    )
    .await;
    assert_eq!(status, 429, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("minutes"),
        "{body}"
    );

    // The cap: a full thread takes no more (409), from anyone.
    sqlx::query(
        "INSERT INTO game_messages (game_id, seat, author_name, body, head_seq, created_at) \
         SELECT $1, 3, 'Di', 'filler', 0, now() - interval '2 hours' \
         FROM generate_series(1, $2::bigint - (SELECT count(*) FROM game_messages WHERE game_id = $1))",
    )
    .bind(id)
    .bind(MAX_MESSAGES_PER_GAME)
    .execute(db.store.pool())
    .await
    .unwrap();
    let (status, body) = post_json(
        &client,
        &format!("{base}/api/play/{}/messages", tokens[3]),
        json!({"text": "is there room?"}),
    )
    .await;
    assert_eq!(status, 409);
    assert!(body["error"].as_str().unwrap().contains("full"), "{body}");
    assert_eq!(count(&db, id).await, MAX_MESSAGES_PER_GAME);
    db.drop().await;
}

#[actix_web::test]
async fn who_may_write_on_every_route() {
    let db = TestDb::new().await;
    let base = common::spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let (id, tokens) =
        common::create_game_for(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], true, 4).await;
    let organiser: String = {
        let token = postplay::store::new_token();
        sqlx::query("UPDATE games SET organiser_token_hash = $2 WHERE id = $1")
            .bind(id)
            .bind(postplay::store::token_hash(&token))
            .execute(db.store.pool())
            .await
            .unwrap();
        token
    };
    let (_, owner) = signed_in(&db, "Ann").await;
    let (_, stranger) = signed_in(&db, "Zed").await;
    let (csrf, csrf_cookie) = csrf_pair(&client, &format!("{base}/play/{}", tokens[0])).await;
    let bogus = postplay::store::new_token();
    let message = db
        .store
        .post_message(
            id,
            postplay::store::Author::Seat(1),
            "",
            &postplay::domain::MessageText::parse("to hide").unwrap(),
        )
        .await
        .unwrap();

    // (role, link token used, session cookie)
    let roles = [
        ("anonymous", bogus.as_str(), ""),
        ("seat link holder", tokens[0].as_str(), ""),
        ("signed-in owner", bogus.as_str(), owner.as_str()),
        ("signed-in stranger", bogus.as_str(), stranger.as_str()),
    ];
    let expected: [(&str, [u16; 4]); 5] = [
        ("POST /play/{token}/messages", [404, 303, 404, 404]),
        ("POST /games/{id}/messages", [401, 401, 303, 403]),
        ("GET /api/play/{token}/messages", [401, 200, 401, 401]),
        ("POST /api/play/{token}/messages", [401, 201, 401, 401]),
        (
            "POST /manage/{token}/messages/{m}/hide",
            [404, 404, 404, 404],
        ),
    ];
    for (route, statuses) in expected {
        for ((role, token, session), want) in roles.iter().zip(statuses) {
            let cookie = both(&csrf_cookie, session);
            let fields = [("csrf", csrf.as_str()), ("text", "hello")];
            let got = match route {
                "POST /play/{token}/messages" => {
                    post(
                        &client,
                        &format!("{base}/play/{token}/messages"),
                        &cookie,
                        &fields,
                    )
                    .await
                    .0
                }
                "POST /games/{id}/messages" => {
                    post(
                        &client,
                        &format!("{base}/games/{id}/messages"),
                        &cookie,
                        &fields,
                    )
                    .await
                    .0
                }
                "GET /api/play/{token}/messages" => {
                    get(
                        &client,
                        &format!("{base}/api/play/{token}/messages"),
                        session,
                    )
                    .await
                    .0
                }
                "POST /api/play/{token}/messages" => {
                    let mut req = client.post(format!("{base}/api/play/{token}/messages"));
                    if !session.is_empty() {
                        req = req.insert_header(("Cookie", *session));
                    }
                    req.send_json(&json!({"text": "hello"}))
                        .await
                        .unwrap()
                        .status()
                        .as_u16()
                }
                _ => {
                    // A seat's token is no organiser's.
                    post(
                        &client,
                        &format!("{base}/manage/{token}/messages/{}/hide", message.id),
                        &cookie,
                        &fields[..1],
                    )
                    .await
                    .0
                }
            };
            assert_eq!(got, want, "{route} as {role}");
        }
    }
    let (status, _, _) = post(
        &client,
        &format!("{base}/manage/{organiser}/messages/{}/hide", message.id),
        &csrf_cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 303, "the organiser hides");
    // Refusals stored nothing: the first message, one from the link (form and API), one from
    // the owner.
    assert_eq!(count(&db, id).await, 4);
    let authors: Vec<Option<i32>> =
        sqlx::query_scalar("SELECT seat FROM game_messages WHERE game_id = $1 ORDER BY id")
            .bind(id)
            .fetch_all(db.store.pool())
            .await
            .unwrap();
    assert_eq!(
        authors,
        vec![Some(1), Some(0), Some(0), Some(0)],
        "the owner writes as their seat"
    );

    // A game whose creator opened messages to spectators, made through the create form.
    let (csrf_new, new_cookie) = csrf_pair(&client, &format!("{base}/new/whitehouse")).await;
    let (status, _, location) = post(
        &client,
        &format!("{base}/new/whitehouse"),
        &new_cookie,
        &[
            ("csrf", csrf_new.as_str()),
            ("name0", "Ann"),
            ("name1", "Bo"),
            ("name2", "Cy"),
            ("name3", "Di"),
            ("order", "fixed"),
            ("clock", "none"),
            ("spectators_write", "true"),
        ],
    )
    .await;
    assert_eq!(status, 303);
    let open: i64 = location.rsplit('/').next().unwrap().parse().unwrap();
    let (_, page) = get(&client, &format!("{base}/games/{open}"), &stranger).await;
    assert!(
        page.contains(&format!("action=\"/games/{open}/messages\"")),
        "a form for the spectator"
    );
    let (_, page) = get(&client, &format!("{base}/games/{id}"), &stranger).await;
    assert!(
        page.contains("did not open messages to spectators"),
        "and why not where closed"
    );
    for (session, want) in [("", 401), (stranger.as_str(), 303)] {
        let (status, _, _) = post(
            &client,
            &format!("{base}/games/{open}/messages"),
            &both(&csrf_cookie, session),
            &[("csrf", &csrf), ("text", "go Ann!")],
        )
        .await;
        assert_eq!(status, want);
    }
    let (_, page) = get(&client, &format!("{base}/games/{open}"), "").await;
    assert!(
        page.contains("<b>Zed</b> <span class=\"small\">(watching)</span>"),
        "{page}"
    );
    db.drop().await;
}

fn text_of(mail: &Received) -> String {
    part(&mail.data, "text/plain").unwrap()
}

fn html_of(mail: &Received) -> String {
    part(&mail.data, "text/html").unwrap()
}

fn to<'a>(mails: &'a [Received], who: &str) -> Vec<&'a Received> {
    mails
        .iter()
        .filter(|m| m.to.iter().any(|t| t == &format!("{who}@example.org")))
        .collect()
}

/// The first mail to `who` among those received after the first `start`, waited for.
async fn next_mail_to(sink: &SmtpSink, start: usize, who: &str) -> Received {
    common::wait::until(
        &format!("a mail to {who}"),
        common::wait::PATIENCE,
        async || {
            let mail = sink.received();
            to(&mail[start..], who)
                .first()
                .map(|m| (*m).clone())
                .ok_or_else(|| format!("{} mails since, none to {who}", mail.len() - start))
        },
    )
    .await
}

/// Plays random moves until `seat` is to move after the head `after`.
async fn until_to_move(db: &TestDb, id: i64, seat: usize, after: i64, seed: u64) {
    common::play_until(db, id, seed, |l| {
        l.row.head_seq > after && l.game.active() == [seat]
    })
    .await;
    let loaded = db.store.load(id).await.unwrap();
    assert_eq!(
        loaded.game.active(),
        vec![seat],
        "the game reached the seat's turn"
    );
}

async fn say(db: &TestDb, id: i64, seat: usize, text: &str) -> i64 {
    db.store
        .post_message(
            id,
            postplay::store::Author::Seat(seat),
            "",
            &postplay::domain::MessageText::parse(text).unwrap(),
        )
        .await
        .unwrap()
        .id
}

#[actix_web::test]
async fn messages_go_out_with_turns_and_digests_never_alone_unless_asked() {
    let db = TestDb::new().await;
    let base = common::spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let sink = SmtpSink::start().await.unwrap();
    let mut worker = spawn_worker(&db, &base, sink.port(), quick());
    let names = ["Ann", "Bo", "Cy", "Di"];
    let (id, tokens) = common::create_game_for(&db, "whitehouse", &names, true, 21).await;
    drain(&db, 10).await;
    let invites = sink.received().len();
    let first = db.store.load(id).await.unwrap().game.active()[0];
    let second = (first + 1) % 4;
    say(&db, id, first, NASTY).await;
    drain(&db, 10).await;
    assert_eq!(
        sink.received().len(),
        invites,
        "a message alone sends no mail"
    );

    // The next seat's your-turn mail carries it, escaped in the HTML part.
    until_to_move(&db, id, second, 0, 5).await;
    let mails = expect_mail(&sink, invites + 1, 10).await;
    let turn = to(&mails, &names[second].to_lowercase())
        .into_iter()
        .last()
        .unwrap();
    assert!(
        text_of(turn).contains("Messages from the table:"),
        "{}",
        text_of(turn)
    );
    assert!(text_of(turn).contains(NASTY), "{}", text_of(turn));
    assert!(html_of(turn).contains(ESCAPED), "{}", html_of(turn));
    assert!(!html_of(turn).contains("<script>"), "{}", html_of(turn));

    // The author's own next turn mail does not carry their message; another's new one it does.
    say(&db, id, second, "from the second seat").await;
    let before = sink.received().len();
    until_to_move(
        &db,
        id,
        first,
        db.store.load(id).await.unwrap().row.head_seq,
        6,
    )
    .await;
    let own = text_of(&next_mail_to(&sink, before, &names[first].to_lowercase()).await);
    assert!(!own.contains("Tom & Jerry"), "{own}");
    assert!(own.contains("from the second seat"), "{own}");

    // Each message by mail, on the seat's mail page; a hidden one never goes out.
    let third = (first + 2) % 4;
    let (status, page, _) = post(
        &client,
        &format!("{base}/mail/unsubscribe/{}", tokens[third]),
        "",
        &[("messages", "each")],
    )
    .await;
    assert_eq!(status, 200);
    assert!(page.contains("a mail each time someone writes"), "{page}");
    let before = sink.received().len();
    say(&db, id, first, "good luck, all").await;
    let mails = expect_mail(&sink, before + 1, 10).await;
    let news = &mails[before..];
    assert_eq!(news.len(), 1, "only the seat that asked is mailed");
    assert_eq!(to(news, &names[third].to_lowercase()).len(), 1);
    assert!(text_of(&news[0]).contains("good luck, all"));
    worker.stop().await;
    let hidden = say(&db, id, second, "something rude").await;
    assert!(
        db.store
            .hide_message(id, hidden, "organiser")
            .await
            .unwrap()
    );
    worker = spawn_worker(&db, &base, sink.port(), quick());
    drain(&db, 10).await;
    assert_eq!(
        sink.received().len(),
        before + 1,
        "the hidden message's mail is not sent"
    );
    let skipped: String =
        sqlx::query_scalar("SELECT last_error FROM outbox WHERE game_id = $1 AND event = $2")
            .bind(id)
            .bind(format!("message:{hidden}"))
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert!(skipped.contains("hidden"), "{skipped}");

    // The digest: a seat on it gets the messages in its daily mail.
    let fourth = (first + 3) % 4;
    let (status, _, _) = post(
        &client,
        &format!("{base}/mail/unsubscribe/{}", tokens[fourth]),
        "",
        &[("pref", "digest")],
    )
    .await;
    assert_eq!(status, 200);
    say(&db, id, first, "see you in the digest <i>&</i>").await;
    let before = sink.received().len();
    until_to_move(
        &db,
        id,
        fourth,
        db.store.load(id).await.unwrap().row.head_seq,
        7,
    )
    .await;
    let digest = next_mail_to(&sink, before, &names[fourth].to_lowercase()).await;
    let digest_text = text_of(&digest);
    assert!(
        digest_text.contains("see you in the digest"),
        "{digest_text}"
    );
    assert!(!digest_text.contains("something rude"), "{digest_text}");
    assert!(
        html_of(&digest).contains("see you in the digest &#60;i&#62;&#38;&#60;/i&#62;"),
        "escaped in the digest's HTML: {}",
        html_of(&digest)
    );
    for mail in sink.received() {
        assert!(
            !mail.data.contains("something rude"),
            "a hidden message was mailed"
        );
    }
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn the_replay_places_messages_and_the_record_carries_them_outside_the_chain() {
    let db = TestDb::new().await;
    let base = common::spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let created = db
        .store
        .create_game(
            "whitehouse",
            &json!({}),
            &["Ann", "Bo", "Cy", "Di"]
                .iter()
                .map(|n| postplay::store::NewSeat {
                    name: PlayerName::parse(n).unwrap(),
                    email: None,
                    bot: None,
                })
                .collect::<Vec<_>>(),
            postplay::engine::Seed::from_number(8),
        )
        .await
        .unwrap();
    let id = created.id;
    say(&db, id, 0, "before the first move").await;
    common::play_until(&db, id, 3, |l| l.row.head_seq >= 3).await;
    say(&db, id, 1, "after move three").await;
    let rude = say(&db, id, 2, "rude words").await;
    db.store.hide_message(id, rude, "organiser").await.unwrap();

    let (_, closed) = get(&client, &format!("{base}/games/{id}/replay?at=3"), "").await;
    assert!(
        !closed.contains("after move three"),
        "the players' messages stay theirs until the creator opens them"
    );
    db.store.set_spectators_may_write(id, true).await.unwrap();
    let (_, at0) = get(&client, &format!("{base}/games/{id}/replay?at=0"), "").await;
    assert!(at0.contains("before the first move") && !at0.contains("after move three"));
    let (_, at3) = get(&client, &format!("{base}/games/{id}/replay?at=3"), "").await;
    assert!(at3.contains("before the first move") && at3.contains("after move three"));
    for page in [
        format!("/games/{id}/replay?at=3"),
        format!("/games/{id}"),
        format!("/games/{id}/log"),
    ] {
        let (_, html) = get(&client, &format!("{base}{page}"), "").await;
        assert!(!html.contains("rude words"), "{page}");
        assert!(
            html.contains("a message hidden by the organiser on"),
            "{page}"
        );
    }
    let (_, api) = get(
        &client,
        &format!("{base}/api/play/{}/messages", created.seat_tokens[0]),
        "",
    )
    .await;
    assert!(
        !api.contains("rude words") && api.contains("\"hidden\":true"),
        "{api}"
    );

    // Messages after the game ended: a week for a last word, then closed.
    db.store
        .cancel(
            id,
            &postplay::store::CancelReason::parse("we stop here").unwrap(),
        )
        .await
        .unwrap();
    say(&db, id, 3, "good game").await;
    sqlx::query("UPDATE games SET updated_at = now() - interval '8 days' WHERE id = $1")
        .bind(id)
        .execute(db.store.pool())
        .await
        .unwrap();
    let (status, body) = post_json(
        &client,
        &format!("{base}/api/play/{}/messages", created.seat_tokens[0]),
        json!({"text": "too late?"}),
    )
    .await;
    assert_eq!(status, 409, "{body}");

    let (_, exported) = get(&client, &format!("{base}/api/games/{id}/export"), "").await;
    assert!(!exported.contains("rude words"));
    let record: postplay::engine::Record = serde_json::from_str(&exported).unwrap();
    assert_eq!(record.messages.len(), 4);
    assert_eq!(record.messages[1].text.as_deref(), Some("after move three"));
    assert_eq!(record.messages[1].after, 3);
    assert_eq!(record.messages[2].text, None);
    assert!(record.messages[2].hidden);
    postplay::engine::audit::verify(postplay::games::ALL, &record, record.chain_head.as_deref())
        .expect("the record with its messages verifies");
    let mut old: Value = serde_json::from_str(&exported).unwrap();
    old.as_object_mut().unwrap().remove("messages");
    let old: postplay::engine::Record = serde_json::from_value(old).unwrap();
    postplay::engine::audit::verify(postplay::games::ALL, &old, old.chain_head.as_deref())
        .expect("a record from before messages still verifies");
    assert_eq!(old.commands, record.commands, "messages are not in the log");

    let imported = db.store.import(&record).await.unwrap();
    let again = db
        .store
        .export(imported.id, Viewer::Spectator)
        .await
        .unwrap();
    assert_eq!(
        again.messages, record.messages,
        "import keeps the messages, hidden ones hidden"
    );
    db.drop().await;
}
