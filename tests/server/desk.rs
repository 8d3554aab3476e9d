//! The organiser's desk over real HTTP against a real PostgreSQL, with mail sent over TCP to a
//! real SMTP server: an invitation sent again (and the bound on it), a player's address
//! changed, the game cancelled with a reason (mailed to everyone, shown on every page,
//! recorded in a chain that still verifies), the desk's per-seat figures, CSRF, and what an
//! invitation says.

use crate::common;

use awc::Client;
use common::mailrig::{drain, expect_mail, play_token, quick, spawn_worker};
use common::mime::{header, part};
use common::{TestDb, scratch::Scratch};
use postplay::config::WebSettings;
use postplay::domain::{ClockSettings, TimeControl};
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{Seed, Viewer};
use postplay::notices::EmailAddress;
use postplay::notices::mail::sink::{Received, SmtpSink};
use postplay::store::{CreatedGame, NewSeat, PlayerName};
use serde_json::{Value, json};
use std::sync::Arc;

const NAMES: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

pub(crate) fn address(name: &str) -> String {
    format!("{}@example.org", name.to_lowercase())
}

/// The app with these web settings; its base URL.
pub(crate) fn spawn(db: &TestDb, settings: WebSettings) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let store = Arc::new(db.store.clone_handle());
    let server = postplay::web::start_with(store, base.clone(), listener, None, settings).unwrap();
    actix_web::rt::spawn(server);
    base
}

/// A game whose first `with_mail` seats have addresses, with a clock of 3 days a move.
pub(crate) async fn create(
    db: &TestDb,
    kind: &str,
    seats: usize,
    with_mail: usize,
    seed: u64,
) -> CreatedGame {
    let seats: Vec<NewSeat> = NAMES[..seats]
        .iter()
        .enumerate()
        .map(|(i, n)| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: (i < with_mail).then(|| EmailAddress::parse(&address(n)).unwrap()),
            bot: None,
        })
        .collect();
    let clock = ClockSettings {
        control: TimeControl::PerMove { days: 3 },
        ..ClockSettings::default()
    };
    db.store
        .create_game_with(
            kind,
            &json!({}),
            &seats,
            Seed::from_number(seed),
            Some(&EmailAddress::parse("org@example.org").unwrap()),
            &json!({ "clock": clock }),
        )
        .await
        .unwrap()
}

pub(crate) async fn get(client: &Client, url: &str) -> (u16, String) {
    let mut res = client.get(url).send().await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// The desk's CSRF token and the cookie that goes with it.
pub(crate) async fn csrf_pair(client: &Client, desk: &str) -> (String, String) {
    let mut res = client.get(desk).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
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
    let html = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
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

/// A form POST with the cookie: (status, body, the cookies it set as `name=value`).
pub(crate) async fn post(
    client: &Client,
    url: &str,
    cookie: &str,
    fields: &[(&str, &str)],
) -> (u16, String, Vec<String>) {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let mut res = client
        .post(url)
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .insert_header(("Cookie", cookie))
        .send_body(body)
        .await
        .unwrap();
    let status = res.status().as_u16();
    let cookies = res
        .headers()
        .get_all("set-cookie")
        .filter_map(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").to_string())
        .collect();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned(), cookies)
}

async fn outbox_rows(db: &TestDb, id: i64) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbox WHERE game_id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

pub(crate) fn text(mail: &Received) -> String {
    part(&mail.data, "text/plain").unwrap()
}

pub(crate) fn mails_to<'a>(mails: &'a [Received], to: &str) -> Vec<&'a Received> {
    mails
        .iter()
        .filter(|m| m.to.iter().any(|t| t == to))
        .collect()
}

async fn random_moves(db: &TestDb, id: i64, seed: u64, count: usize) {
    let mut rng = bot_rng(&Seed::from_number(seed));
    for _ in 0..count {
        let loaded = db.store.load(id).await.unwrap();
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

#[actix_web::test]
async fn an_invitation_names_the_options_the_partner_and_the_rules() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    create(&db, "whitehouse", 4, 4, 61).await;
    let mails = expect_mail(&sink, 5, 10).await;
    let ann = text(mails_to(&mails, "ann@example.org")[0]);
    for says in [
        "as North",
        "- North: you\n",
        "- East: Bo\n",
        "- South: Cy, your partner\n",
        "- West: Di\n",
        "- Partnerships (North–South against East–West); off: individual play: yes\n",
        "- Points to win: 7 points\n",
        "- Team Red / Team Blue: each partnership always bids its colour as trump: off\n",
        &format!("How to play: {base}/rules/whitehouse\n"),
    ] {
        assert!(ann.contains(says), "{says:?} missing from:\n{ann}");
    }
    let bo = text(mails_to(&mails, "bo@example.org")[0]);
    assert!(bo.contains("- West: Di, your partner\n"), "{bo}");
    assert!(!bo.contains("Cy, your partner"), "{bo}");
    let html = part(
        mails_to(&mails, "cy@example.org")[0].data.as_str(),
        "text/html",
    )
    .unwrap();
    assert!(html.contains("North: Ann, <b>your partner</b>"), "{html}");
    assert!(html.contains(&format!("href=\"{base}/rules/whitehouse\"")));
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn an_individual_game_names_no_partner() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let seats: Vec<NewSeat> = NAMES
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(EmailAddress::parse(&address(n)).unwrap()),
            bot: None,
        })
        .collect();
    db.store
        .create_game_with(
            "whitehouse",
            &json!({"partnership": false}),
            &seats,
            Seed::from_number(62),
            None,
            &Value::Null,
        )
        .await
        .unwrap();
    let mails = expect_mail(&sink, 4, 10).await;
    for mail in &mails {
        let text = text(mail);
        assert!(
            !text.contains("partner,") && !text.contains("your partner"),
            "{text}"
        );
        assert!(text.contains("individual play: no\n"), "{text}");
    }
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn an_invitation_sent_again_carries_a_working_link_and_is_bounded() {
    let db = TestDb::new().await;
    let base = spawn(
        &db,
        WebSettings {
            mails_per_hour: 2,
            ..WebSettings::default()
        },
    );
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "nationhood", 2, 2, 63).await;
    expect_mail(&sink, 3, 10).await;
    random_moves(&db, game.id, 63, 1).await;
    let seat = db.store.load(game.id).await.unwrap().game.active()[0];
    let (name, to) = (NAMES[seat], address(NAMES[seat]));
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(&client, &desk).await;

    let (status, _, cookies) = post(
        &client,
        &format!("{desk}/invite/{seat}"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 303);
    let note = cookies
        .iter()
        .find(|c| c.starts_with("pp_desk_note="))
        .expect("a note for the desk");
    let (page, removed) = {
        let mut res = client
            .get(&desk)
            .insert_header(("Cookie", format!("{cookie}; {note}")))
            .send()
            .await
            .unwrap();
        let removed = res
            .headers()
            .get_all("set-cookie")
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.starts_with("pp_desk_note=;") && v.contains("Max-Age=0"));
        let body = res.body().await.unwrap();
        (String::from_utf8_lossy(&body).into_owned(), removed)
    };
    assert!(removed, "the note is shown once");
    assert!(
        page.contains(&format!(
            "Invitation sent again to {name}, mailed to {}",
            postplay::domain::masked(&to)
        )),
        "{page}"
    );
    drain(&db, 10).await;
    let again: Vec<Received> = sink
        .received()
        .into_iter()
        .filter(|m| m.to == [to.clone()])
        .collect();
    assert_eq!(again.len(), 2, "the first invitation and the second");
    let second = text(&again[1]);
    assert!(
        second.contains("The game is under way: 1 move so far."),
        "{second}"
    );
    assert!(second.contains("It is your move."), "{second}");
    assert_eq!(
        header(&again[1].data, "Subject").as_deref(),
        Some(&*format!("Nationhood #{}: you are invited", game.id))
    );
    let token = play_token(&second).unwrap();
    assert_ne!(
        token, game.seat_tokens[seat],
        "a fresh link, not the seat's own"
    );
    let (status, page) = get(&client, &format!("{base}/play/{token}")).await;
    assert_eq!(status, 200);
    assert!(page.contains(name));

    // Two an hour in this game: the third is refused and queues nothing.
    let (status, _, _) = post(
        &client,
        &format!("{desk}/invite/0"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 303);
    let rows = outbox_rows(&db, game.id).await;
    let (status, page, _) = post(
        &client,
        &format!("{desk}/invite/0"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 429, "{page}");
    assert!(page.contains("too often"), "{page}");
    assert_eq!(outbox_rows(&db, game.id).await, rows);
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn a_seat_without_an_address_or_mail_cannot_be_invited_again() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "nationhood", 2, 1, 64).await;
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(&client, &desk).await;
    let rows = outbox_rows(&db, game.id).await;
    let (status, page, _) = post(
        &client,
        &format!("{desk}/invite/1"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 409);
    assert!(page.contains("Nothing was changed") && page.contains("no email address"));
    postplay::notices::outbox::set_mail_pref(
        db.store.pool(),
        game.id,
        0,
        postplay::notices::outbox::MailPref::Off,
    )
    .await
    .unwrap();
    let (status, page, _) = post(
        &client,
        &format!("{desk}/invite/0"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 409);
    assert!(page.contains("turned mail off"), "{page}");
    let (status, _, _) = post(
        &client,
        &format!("{desk}/invite/7"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 404, "no such seat");
    assert_eq!(outbox_rows(&db, game.id).await, rows);
    db.drop().await;
}

#[actix_web::test]
async fn a_new_address_gets_the_invitation_and_a_bad_one_changes_nothing() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "nationhood", 2, 2, 65).await;
    expect_mail(&sink, 3, 10).await;
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(&client, &desk).await;
    let email_of = async |seat: i32| -> (Option<String>, String) {
        let row: (Option<String>, String) =
            sqlx::query_as("SELECT email, mail_pref FROM seats WHERE game_id = $1 AND seat = $2")
                .bind(game.id)
                .bind(seat)
                .fetch_one(db.store.pool())
                .await
                .unwrap();
        row
    };
    // Bo's old address had turned mail off.
    postplay::notices::outbox::set_mail_pref(
        db.store.pool(),
        game.id,
        1,
        postplay::notices::outbox::MailPref::Off,
    )
    .await
    .unwrap();
    let rows = outbox_rows(&db, game.id).await;
    for (bad, says) in [
        ("not an address", "the new address"),
        ("bo@", "the new address"),
        ("", "the new address"),
        ("bo@example.org", "already the seat"),
    ] {
        let (status, page, _) = post(
            &client,
            &format!("{desk}/address/1"),
            &cookie,
            &[("csrf", &csrf), ("email", bad)],
        )
        .await;
        assert_eq!(status, 422, "{bad:?}");
        assert!(
            page.contains("Nothing was changed") && page.contains(says),
            "{bad:?}: {page}"
        );
        assert_eq!(
            email_of(1).await,
            (Some("bo@example.org".into()), "off".into())
        );
        assert_eq!(outbox_rows(&db, game.id).await, rows);
    }

    let (status, _, _) = post(
        &client,
        &format!("{desk}/address/1"),
        &cookie,
        &[("csrf", &csrf), ("email", " bo.new@example.net ")],
    )
    .await;
    assert_eq!(status, 303);
    assert_eq!(
        email_of(1).await,
        (Some("bo.new@example.net".into()), "every".into()),
        "the old address's choice of no mail does not carry over to the new one"
    );
    let mails = expect_mail(&sink, 5, 10).await;
    let new = mails_to(&mails, "bo.new@example.net");
    assert_eq!(new.len(), 1);
    let invitation = text(new[0]);
    assert!(invitation.contains("Hello Bo,"), "{invitation}");
    let token = play_token(&invitation).unwrap();
    let (status, _) = get(&client, &format!("{base}/play/{token}")).await;
    assert_eq!(status, 200, "the new address's link opens the seat");
    let told = mails_to(&mails, "bo@example.org");
    assert_eq!(
        told.len(),
        2,
        "the old address is told at once, whatever mail it chose (DESIGN.md \"Seats change hands in the open\")"
    );
    assert!(text(told[1]).contains("b…@e…"), "{}", text(told[1]));
    let (status, _) = get(&client, &format!("{base}/play/{}", game.seat_tokens[1])).await;
    assert_eq!(
        status, 404,
        "a new address ends every older link of the seat (issue 30)"
    );
    // Ann's next notices go to her address; a move by Bo's seat needs no other change.
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn without_the_csrf_token_nothing_changes() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "nationhood", 2, 2, 66).await;
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(&client, &desk).await;
    let rows = outbox_rows(&db, game.id).await;
    let wrong = "0".repeat(csrf.len());
    for (path, fields) in [
        ("invite/0", vec![]),
        ("address/0", vec![("email", "ann.new@example.org")]),
        (
            "cancel",
            vec![("reason", "we stop here"), ("confirm", "yes")],
        ),
        ("relink/0", vec![]),
    ] {
        for token in [None, Some(wrong.as_str())] {
            let mut all = fields.clone();
            if let Some(t) = token {
                all.push(("csrf", t));
            }
            let (status, page, _) = post(&client, &format!("{desk}/{path}"), &cookie, &all).await;
            assert_eq!(status, 403, "{path} with {token:?}: {page}");
        }
    }
    let row = db.store.game(game.id).await.unwrap().unwrap();
    assert_eq!((row.status.as_str(), row.head_seq), ("running", 0));
    assert_eq!(outbox_rows(&db, game.id).await, rows);
    let email: Option<String> =
        sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = 0")
            .bind(game.id)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(email.as_deref(), Some("ann@example.org"));
    let (status, _) = get(&client, &format!("{base}/play/{}", game.seat_tokens[0])).await;
    assert_eq!(status, 200, "no relink happened");
    // With the token the same cancel goes through.
    let (status, _, _) = post(
        &client,
        &format!("{desk}/cancel"),
        &cookie,
        &[
            ("csrf", &csrf),
            ("reason", "we stop here"),
            ("confirm", "yes"),
        ],
    )
    .await;
    assert_eq!(status, 303);
    db.drop().await;
}

#[actix_web::test]
async fn a_cancelled_game_is_over_for_everyone_and_its_record_verifies() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "whitehouse", 4, 4, 67).await;
    expect_mail(&sink, 5, 10).await;
    random_moves(&db, game.id, 67, 3).await;
    drain(&db, 10).await;
    let before = sink.received().len();
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(&client, &desk).await;
    let cancel = format!("{desk}/cancel");

    for (fields, says) in [
        (vec![("reason", "   "), ("confirm", "yes")], "give a reason"),
        (
            vec![("reason", "one\ntwo"), ("confirm", "yes")],
            "no line breaks",
        ),
        (
            vec![("reason", &*"x".repeat(501)), ("confirm", "yes")],
            "at most 500",
        ),
        (vec![("reason", "Bo moved away")], "tick the box"),
    ] {
        let mut all = fields.clone();
        all.push(("csrf", &csrf));
        let (status, page, _) = post(&client, &cancel, &cookie, &all).await;
        assert_eq!(status, 422, "{fields:?}");
        assert!(page.contains(says), "{says}: {page}");
        if says == "tick the box" {
            // The reason typed is kept, to tick the box and send again (issue 47).
            assert!(
                page.contains("name=\"reason\" value=\"Bo moved away\""),
                "{page}"
            );
        }
        let row = db.store.game(game.id).await.unwrap().unwrap();
        assert_eq!((row.status.as_str(), row.head_seq), ("running", 3));
    }

    let reason = "Bo moved away & the club <closes>";
    let (status, _, _) = post(
        &client,
        &cancel,
        &cookie,
        &[("csrf", &csrf), ("reason", reason), ("confirm", "yes")],
    )
    .await;
    assert_eq!(status, 303);
    let row = db.store.game(game.id).await.unwrap().unwrap();
    assert_eq!((row.status.as_str(), row.head_seq), ("over", 4));
    let said = format!("Cancelled by the organiser: {reason}");

    // Every player is told why, the seed with it.
    let mails = expect_mail(&sink, before + 4, 10).await;
    for name in NAMES {
        let told: Vec<String> = mails_to(&mails[before..], &address(name))
            .iter()
            .map(|m| text(m))
            .collect();
        assert_eq!(told.len(), 1, "{name}");
        assert!(
            told[0].contains("is cancelled.") && told[0].contains(&said),
            "{}",
            told[0]
        );
        assert!(told[0].contains(&row.seed.to_hex()), "the seed is revealed");
        assert!(!told[0].contains("Final scores"));
    }
    assert!(
        mails[before..]
            .iter()
            .all(|m| header(&m.data, "Subject").unwrap().ends_with(": cancelled"))
    );

    // The play, spectator, log and desk pages show it as over, with the reason.
    let escaped = "Cancelled by the organiser: Bo moved away &amp; the club &lt;closes&gt;";
    let escaped_alt = "Cancelled by the organiser: Bo moved away &#38; the club &#60;closes&#62;";
    for url in [
        format!("{base}/play/{}", game.seat_tokens[2]),
        format!("{base}/games/{}", game.id),
        format!("{base}/games/{}/log", game.id),
        desk.clone(),
    ] {
        let (status, page) = get(&client, &url).await;
        assert_eq!(status, 200, "{url}");
        assert!(
            page.contains(escaped) || page.contains(escaped_alt),
            "{url}: {page}"
        );
        assert!(!page.contains("<closes>"), "{url}");
    }
    let (_, page) = get(&client, &format!("{base}/games/{}", game.id)).await;
    assert!(page.contains("Game over."), "{page}");
    let (_, page) = get(&client, &desk).await;
    assert!(page.contains(&row.seed.to_hex()), "the desk shows the seed");
    assert!(!page.contains("/cancel\""), "no cancel form once over");

    // No more moves, and no second cancellation.
    let loaded = db.store.load(game.id).await.unwrap();
    assert!(loaded.game.active().is_empty());
    let mut res = client
        .post(format!("{base}/api/play/{}/commands", game.seat_tokens[0]))
        .insert_header(("Content-Type", "application/json"))
        .send_body(json!({"command": {"type": "pass"}}).to_string())
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 403);
    let body: Value = serde_json::from_slice(&res.body().await.unwrap()).unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("the game is over"),
        "{body}"
    );
    let (status, page, _) = post(
        &client,
        &cancel,
        &cookie,
        &[("csrf", &csrf), ("reason", "again"), ("confirm", "yes")],
    )
    .await;
    assert_eq!(status, 409);
    assert!(page.contains("the game is over"), "{page}");
    for path in ["invite/0", "address/0"] {
        let (status, page, _) = post(
            &client,
            &format!("{desk}/{path}"),
            &cookie,
            &[("csrf", &csrf), ("email", "ann.new@example.org")],
        )
        .await;
        assert_eq!(status, 409, "{path}");
        assert!(page.contains("nothing to invite to"), "{page}");
    }
    assert_eq!(db.store.game(game.id).await.unwrap().unwrap().head_seq, 4);

    // The clock stands for every seat.
    let running: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM seat_clocks WHERE game_id = $1 AND due_at IS NOT NULL",
    )
    .bind(game.id)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(running, 0);

    // The record marks the end, reveals the seed, and verifies (library and `postplay verify`).
    let record = db.store.export(game.id, Viewer::Spectator).await.unwrap();
    assert_eq!(record.seed, Some(row.seed));
    let last = record.commands.last().unwrap();
    assert_eq!(last.by.as_deref(), Some("organiser"));
    assert_eq!(last.command, json!({"type": "cancel", "reason": reason}));
    let verified = postplay::engine::audit::verify(
        postplay::games::ALL,
        &record,
        Some(row.head_hash.as_str()),
    )
    .unwrap();
    assert_eq!(verified.outcome.as_deref(), Some(said.as_str()));
    let dir = Scratch::new("desk-cancel");
    let file = dir.join("cancelled.json");
    std::fs::write(&file, serde_json::to_vec_pretty(&record).unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(["verify", "--head", &row.head_hash, file.to_str().unwrap()])
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Tampering with the reason breaks the chain; the organiser's mark cannot be dropped.
    let mut forged = record.clone();
    forged.commands.last_mut().unwrap().command = json!({"type": "cancel", "reason": "other"});
    assert!(postplay::engine::audit::verify(postplay::games::ALL, &forged, None).is_err());
    let mut unmarked = record.clone();
    unmarked.commands.last_mut().unwrap().by = None;
    assert!(postplay::engine::audit::verify(postplay::games::ALL, &unmarked, None).is_err());
    // A record moved to another server keeps the cancellation.
    let imported = db.store.import(&record).await.unwrap();
    let again = db
        .store
        .export(imported.id, Viewer::Spectator)
        .await
        .unwrap();
    assert_eq!(again.commands, record.commands);
    assert_eq!(
        db.store
            .load(imported.id)
            .await
            .unwrap()
            .game
            .outcome()
            .unwrap()
            .reason,
        said
    );
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn the_desk_shows_each_seats_last_move_and_mail() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    sink.refuse("bo@example.org");
    let worker = spawn_worker(
        &db,
        &base,
        sink.port(),
        postplay::notices::outbox::worker::WorkerConfig {
            max_attempts: 1,
            ..quick()
        },
    );
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "nationhood", 2, 2, 68).await;
    let loaded = db.store.load(game.id).await.unwrap();
    let mover = loaded.game.active()[0];
    random_moves(&db, game.id, 68, 1).await;
    drain(&db, 10).await;
    let at: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT created_at FROM commands WHERE game_id = $1 AND seq = 1")
            .bind(game.id)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    let (status, page) = get(&client, &format!("{base}/manage/{}", game.organiser_token)).await;
    assert_eq!(status, 200);
    let row_of = |seat: usize| -> String {
        page.split(&format!("<tr class=\"seat-{seat}\">"))
            .nth(1)
            .unwrap()
            .split("</tr>")
            .next()
            .unwrap()
            .to_string()
    };
    let moved = row_of(mover);
    let waiting = row_of(1 - mover);
    assert!(
        moved.contains(&at.format("%a %-d %b %Y, %H:%M UTC").to_string()),
        "{moved}"
    );
    assert!(
        waiting.contains("<td class=\"last-move\">not yet</td>"),
        "{waiting}"
    );
    let sent: Vec<(i32, String, String)> = sqlx::query_as(
        "SELECT seat, kind, status FROM outbox WHERE game_id = $1 AND seat IS NOT NULL ORDER BY id",
    )
    .bind(game.id)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    let count = |seat: i32, status: &str| {
        sent.iter()
            .filter(|(s, _, st)| *s == seat && st == status)
            .count()
    };
    assert_eq!(count(1, "sent"), 0, "{sent:?}");
    assert!(count(1, "failed") >= 1, "{sent:?}");
    assert!(count(0, "sent") >= 1, "{sent:?}");
    assert!(
        row_of(0).contains(&format!(
            "<td class=\"mail-count\">{} sent</td>",
            count(0, "sent")
        )),
        "{}",
        row_of(0)
    );
    assert!(
        row_of(1).contains(&format!(
            "<td class=\"mail-count\">0 sent, <b>{} undeliverable</b></td>",
            count(1, "failed")
        )),
        "{}",
        row_of(1)
    );
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn the_desk_shows_each_seats_deadline_and_confirms_an_extension() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "nationhood", 2, 0, 71).await;
    let mover = db.store.load(game.id).await.unwrap().game.active()[0];
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (_, page) = get(&client, &desk).await;
    let cell = |page: &str, seat: usize| -> String {
        page.split(&format!("<tr class=\"seat-{seat}\">"))
            .nth(1)
            .and_then(|row| row.split("<td class=\"deadline\">").nth(1))
            .and_then(|c| c.split("</td>").next())
            .unwrap_or_default()
            .to_string()
    };
    let due = cell(&page, mover);
    assert!(due.contains("left (until"), "{due}: {page}");
    assert_eq!(cell(&page, 1 - mover), "—");
    let (csrf, cookie) = csrf_pair(&client, &desk).await;
    let seat = mover.to_string();
    let (status, _, set) = post(
        &client,
        &format!("{desk}/clock"),
        &cookie,
        &[
            ("csrf", &csrf),
            ("action", "extend"),
            ("seat", &seat),
            ("days", "2"),
        ],
    )
    .await;
    assert_eq!(status, 303);
    let note = set
        .iter()
        .find(|c| c.starts_with("pp_desk_note="))
        .expect("a note for the desk");
    let mut res = client
        .get(&desk)
        .insert_header(("Cookie", format!("{cookie}; {note}")))
        .send()
        .await
        .unwrap();
    let page = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
    let name = NAMES[mover];
    assert!(
        page.contains(&format!("Extended: {name} has 2 days more to move: 4 days")),
        "{page}"
    );
    assert!(
        cell(&page, mover).starts_with("4 days"),
        "{}",
        cell(&page, mover)
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_cancelled_game_shows_nobody_to_move() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let client = Client::builder().disable_redirects().finish();
    for (kind, waiting) in [
        ("nationhood", "s turn: draw"),
        ("votes-for-women", "awaiting"),
    ] {
        let game = create(&db, kind, 2, 0, 72).await;
        let seat_page = format!("{base}/play/{}", game.seat_tokens[0]);
        let (_, before) = get(&client, &seat_page).await;
        assert!(before.contains(waiting), "{before}");
        let desk = format!("{base}/manage/{}", game.organiser_token);
        let (csrf, cookie) = csrf_pair(&client, &desk).await;
        let (status, _, _) = post(
            &client,
            &format!("{desk}/cancel"),
            &cookie,
            &[
                ("csrf", &csrf),
                ("reason", "the club closes"),
                ("confirm", "yes"),
            ],
        )
        .await;
        assert_eq!(status, 303);
        for url in [seat_page, format!("{base}/games/{}", game.id)] {
            let (_, page) = get(&client, &url).await;
            assert!(page.contains("Nobody wins."), "{url}: {page}");
            assert!(page.contains("the game is over"), "{url}: {page}");
            for turn in ["s turn", "to move", "Your move", "Waiting for", "awaiting"] {
                assert!(!page.contains(turn), "{kind} {url} says {turn:?}: {page}");
            }
        }
    }
    db.drop().await;
}
