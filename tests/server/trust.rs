//! Trust inside a game (issue 30): nobody but a seat's current holder reads that seat or moves
//! for it. An organiser (who plays or not), a lobby table's creator, an account that claimed a
//! leaked link, a former holder of a link, a reply address or a claim, and a stranger are each
//! held to what they may see and do, route by route, over real HTTP against the real server,
//! and through the real `postplay receive` for replies.

use crate::common;

use common::replyrig::{Rig, receive_by_pipe, reply, reply_address};
use common::visitor::Visitor;
use common::{TestDb, spawn_app};
use postplay::store::{EmailAddress, NewSeat, PlayerName};
use serde_json::json;
use std::collections::BTreeSet;

/// Every 40-hex-digit run in a text: whatever token a page could hand out.
fn tokens_in(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        if run == 40 {
            found.insert(chars[i..i + 40].iter().collect());
        }
        i += run.max(1);
    }
    found
}

/// What a token opens as a seat: the status of its view in the API.
async fn seat_view_status(v: &Visitor, token: &str) -> u16 {
    v.get(&format!("/api/play/{token}/view")).await.status
}

/// No token on a page an organiser sees opens any seat.
async fn assert_no_seat_token(v: &Visitor, what: &str, page: &str) {
    for token in tokens_in(page) {
        assert_eq!(
            seat_view_status(v, &token).await,
            401,
            "{what} hands out a token that opens a seat"
        );
    }
}

/// The four seats of a Whitehouse game made on the create form: Ann, Cy and Di with an
/// address, Bo without; the organiser gives an address too.
const FORM: [(&str, &str); 9] = [
    ("name0", "Ann"),
    ("email0", "ann@example.org"),
    ("name1", "Bo"),
    ("email1", ""),
    ("name2", "Cy"),
    ("email2", "cy@example.org"),
    ("name3", "Di"),
    ("email3", "di@example.org"),
    ("organiser_email", "org@example.org"),
];

/// Issue 30, F1: the created page and every desk action answer with no seat's link; a seat
/// with an address gets its link by mail only, a seat without one through a one-time
/// handover link that the first opener takes up.
#[actix_web::test]
async fn an_organiser_never_holds_a_seat_link_and_a_handover_is_taken_up_once() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let org = Visitor::new(&base);
    let made = org
        .post_from("/new/whitehouse", "/new/whitehouse", &FORM)
        .await;
    assert_eq!(made.status, 303, "{}", made.body);
    let created = org.get(made.location.as_deref().unwrap()).await;
    assert_eq!(created.status, 200);
    let page = &created.body;
    assert!(!page.contains("/play/"), "no seat link on the created page");
    for to in ["a…@e…", "c…@e…", "d…@e…"] {
        assert!(
            page.contains(&format!("invitation mailed to {to}"))
                || page.contains(&format!("invitation on its way to {to}")),
            "{page}"
        );
    }
    assert_eq!(
        page.matches("/take/").count(),
        4,
        "Bo's handover link, once (its \"this seat is mine\" button, its address, its text and \
         its copy button)"
    );
    assert_no_seat_token(&org, "the created page", page).await;
    let desk = page
        .split("/manage/")
        .nth(1)
        .map(|rest| format!("/manage/{}", &rest[..40]))
        .unwrap();
    let handover = page
        .split("/take/")
        .nth(1)
        .map(|rest| rest[..40].to_string())
        .unwrap();
    let id: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();

    // Bo takes his seat up; opening the link first changes nothing.
    let bo = Visitor::new(&base);
    let offer = bo.get(&format!("/take/{handover}")).await;
    assert_eq!(offer.status, 200);
    assert!(
        offer.body.contains("I am Bo: take up my seat"),
        "{}",
        offer.body
    );
    let taken = bo
        .post_from(
            &format!("/take/{handover}"),
            &format!("/take/{handover}"),
            &[],
        )
        .await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let bos_link = taken
        .body
        .split("/play/")
        .nth(1)
        .map(|rest| rest[..40].to_string())
        .unwrap();
    let choices = bo.get(&format!("/api/play/{bos_link}/choices")).await;
    assert_eq!(choices.status, 200);
    let choices: serde_json::Value = serde_json::from_str(&choices.body).unwrap();
    assert_eq!(choices["seat"], 1, "the link opens Bo's seat");
    assert!(
        bo.cookie(&format!("pp_seat_{id}")).is_some(),
        "the browser keeps it"
    );
    let spectate = bo.get(&format!("/games/{id}")).await;
    assert!(
        spectate.body.contains(&format!("/play/{bos_link}")),
        "the game's page leads this browser back to its seat"
    );
    // Anyone later (the organiser too) is told the seat was taken up, and gets nothing.
    let late = Visitor::new(&base);
    let again = late.get(&format!("/take/{handover}")).await;
    assert_eq!(again.status, 410);
    assert!(again.body.contains("already taken up"), "{}", again.body);
    let again = late
        .post_from("/new/whitehouse", &format!("/take/{handover}"), &[])
        .await;
    assert_eq!(again.status, 410);
    assert_no_seat_token(&late, "a spent handover", &again.body).await;
    let shown = org.get(&desk).await;
    assert!(
        shown.body.contains("handover link taken up"),
        "{}",
        shown.body
    );

    // Every desk action: the answers and the desk after them hold no seat's token.
    for seat in 0..4 {
        let relinked = org
            .post_from(&desk, &format!("{desk}/relink/{seat}"), &[])
            .await;
        assert_eq!(relinked.status, 303);
        let after = org.get(&desk).await;
        assert_eq!(after.status, 200);
        if seat == 1 {
            assert!(
                after.body.contains("New handover link for"),
                "{}",
                after.body
            );
            assert!(after.body.contains("/take/"));
        } else {
            assert!(
                after.body.contains("mailed to ") && !after.body.contains("/play/"),
                "{}",
                after.body
            );
        }
        assert_no_seat_token(&org, "the desk after a new link", &after.body).await;
    }
    assert_eq!(
        seat_view_status(&bo, &bos_link).await,
        401,
        "a new handover link ends the link Bo was given"
    );
    let invited = org.post_from(&desk, &format!("{desk}/invite/2"), &[]).await;
    assert_eq!(invited.status, 303);
    let readdressed = org
        .post_from(
            &desk,
            &format!("{desk}/address/3"),
            &[("email", "dee@example.org")],
        )
        .await;
    assert_eq!(readdressed.status, 303);
    let after = org.get(&desk).await;
    assert!(after.body.contains("mailed to d…@e…"), "{}", after.body);
    assert_no_seat_token(&org, "the desk after an address change", &after.body).await;
    db.drop().await;
}

/// Issue 30, F2 and F3: a relink ends the seat's link, its mailed links, the reply addresses
/// of earlier mail (a reply through `postplay receive` moves nothing) and an account's claim
/// (the claimer cannot mint a link again); the seat then belongs to its address's account.
#[actix_web::test]
async fn a_relink_ends_every_credential_of_the_seat_at_once() {
    let mut rig = Rig::new().await;
    let base = spawn_app(&rig.db);
    let game = rig.game("nationhood", json!({}), 2, 301).await;
    let seat = rig.db.store.load(game).await.unwrap().game.active()[0];
    let ask = rig.latest_ask(seat).await;
    let old_reply = reply_address(&ask);
    let mailed = common::mailrig::play_token(&common::replyrig::text(&ask)).unwrap();
    // A stranger with the leaked link claims the seat into her account.
    let eve = Visitor::new(&base);
    let account = rig
        .db
        .store
        .account_for_email(
            &EmailAddress::parse("eve@example.org").unwrap(),
            &PlayerName::parse("Eve").unwrap(),
        )
        .await
        .unwrap();
    eve.set_cookie(
        "pp_session",
        &rig.db.store.start_session(account.id).await.unwrap(),
    );
    let claimed = eve
        .post_from(
            &format!("/play/{mailed}"),
            &format!("/play/{mailed}/claim"),
            &[],
        )
        .await;
    assert_eq!(claimed.status, 303, "{}", claimed.body);
    // Before the relink the seat is hers: she could mint a link of her own.
    let owned = rig.db.store.seat_owner(game, seat).await.unwrap();
    // (Nationhood's seats have addresses with no account, so the claim took.)
    assert_eq!(owned, Some(account.id));
    rig.db.store.relink_seat(game, seat).await.unwrap().unwrap();
    assert_eq!(rig.db.store.seat_owner(game, seat).await.unwrap(), None);
    let mint = eve
        .post_from("/me", &format!("/me/games/{game}/{seat}"), &[])
        .await;
    assert_ne!(mint.status, 303, "the claim ended with the relink");
    assert_eq!(seat_view_status(&eve, &mailed).await, 401);
    // The old reply address moves nothing, even from the seat's own address.
    let head = rig.db.store.game(game).await.unwrap().unwrap().head_seq;
    let id = rig.message_id();
    let raw = reply(&id, &common::replyrig::email(seat), &old_reply, "1");
    receive_by_pipe(&rig, &old_reply, raw.as_bytes(), &[]);
    assert_eq!(
        rig.db.store.game(game).await.unwrap().unwrap().head_seq,
        head,
        "a reply address of mail before the relink moves nothing"
    );
    rig.stop().await;
}

/// Who may do what, for every organiser and seat route: the organiser who plays, the
/// organiser who does not, a lobby table's creator, a claimer after a relink, a former link
/// holder, a stranger. Each row names a person, a route and what they must get.
#[actix_web::test]
async fn every_organiser_and_seat_route_answers_only_its_holder() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let seats: Vec<NewSeat> = ["Ann", "Bo"]
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(EmailAddress::parse(&format!("{}@example.org", n.to_lowercase())).unwrap()),
            bot: None,
        })
        .collect();
    let created = db
        .store
        .create_game_with(
            "nationhood",
            &json!({}),
            &seats,
            postplay::engine::Seed::from_number(302),
            Some(&EmailAddress::parse("ann@example.org").unwrap()),
            &json!(null),
        )
        .await
        .unwrap();
    let id = created.id;
    let manage = format!("/manage/{}", created.organiser_token);
    let old_bo = created.seat_tokens[1].clone();
    let bo_now = db.store.relink_seat(id, 1).await.unwrap().unwrap().token;
    let organiser_mails: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND event = 'organiser'",
    )
    .bind(id)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(
        organiser_mails, 1,
        "the organiser of a game made here has a desk"
    );

    let ann = Visitor::new(&base); // organiser who plays seat 0
    let org = Visitor::new(&base); // organiser who does not play
    let former = Visitor::new(&base); // held Bo's link before the relink
    let stranger = Visitor::new(&base);
    let bo = Visitor::new(&base);
    let ann_link = created.seat_tokens[0].clone();
    // (who, route, expected status)
    let rows: Vec<(&str, &Visitor, String, u16)> = vec![
        (
            "organiser who plays: own seat",
            &ann,
            format!("/api/play/{ann_link}/view"),
            200,
        ),
        ("organiser who plays: desk", &ann, manage.clone(), 200),
        (
            "organiser who does not play: desk",
            &org,
            manage.clone(),
            200,
        ),
        (
            "organiser: Bo's old link",
            &org,
            format!("/api/play/{old_bo}/view"),
            401,
        ),
        (
            "former holder: view",
            &former,
            format!("/api/play/{old_bo}/view"),
            401,
        ),
        (
            "former holder: choices",
            &former,
            format!("/api/play/{old_bo}/choices"),
            401,
        ),
        (
            "former holder: page",
            &former,
            format!("/play/{old_bo}"),
            404,
        ),
        (
            "former holder: messages",
            &former,
            format!("/api/play/{old_bo}/messages"),
            401,
        ),
        (
            "stranger: desk of a guess",
            &stranger,
            format!("/manage/{}", "0".repeat(40)),
            404,
        ),
        (
            "stranger: a seat of a guess",
            &stranger,
            format!("/api/play/{}/view", "1".repeat(40)),
            401,
        ),
        (
            "Bo: his new link",
            &bo,
            format!("/api/play/{bo_now}/view"),
            200,
        ),
    ];
    for (who, visitor, route, status) in &rows {
        let got = visitor.get(route).await;
        assert_eq!(got.status, *status, "{who}: GET {route}: {}", got.body);
        if *status == 200 && route.starts_with("/manage/") {
            assert_no_seat_token(visitor, who, &got.body).await;
        }
    }
    // Every desk action, tried with what each non-organiser holds in place of the organiser's
    // link (a seat's link, a former link, a guess): 404, and nothing changes.
    let head_before = db.store.game(id).await.unwrap().unwrap().head_seq;
    let prober = Visitor::new(&base);
    let guess = "2".repeat(40);
    for (who, token) in [
        (
            "the organiser who plays, with his seat link",
            ann_link.as_str(),
        ),
        ("a former holder", old_bo.as_str()),
        ("Bo, with his seat link", bo_now.as_str()),
        ("a stranger's guess", guess.as_str()),
    ] {
        for (action, fields) in [
            ("relink/1", vec![]),
            ("release/1", vec![]),
            ("invite/1", vec![]),
            ("address/1", vec![("email", "mallory@example.org")]),
            ("cancel", vec![("reason", "mine now"), ("confirm", "yes")]),
            ("clock", vec![("action", "pause")]),
            ("messages/1/hide", vec![]),
        ] {
            let got = prober
                .post_from(
                    "/new/whitehouse",
                    &format!("/manage/{token}/{action}"),
                    &fields,
                )
                .await;
            assert_eq!(got.status, 404, "{who}: POST /manage/…/{action}");
        }
    }
    // Every seat action, tried with a former link or the organiser's link: 404.
    for (who, token) in [
        ("a former holder", old_bo.as_str()),
        (
            "the organiser's link as a seat's",
            created.organiser_token.as_str(),
        ),
    ] {
        for action in ["", "/vacation", "/messages", "/messages/1/hide"] {
            let got = prober
                .post_from(
                    "/new/whitehouse",
                    &format!("/play/{token}{action}"),
                    &[
                        ("choice", "0"),
                        ("text", "hello"),
                        ("action", "start"),
                        ("days", "3"),
                    ],
                )
                .await;
            assert_eq!(got.status, 404, "{who}: POST /play/…{action}");
        }
    }
    let unchanged: (i64, String, i64) = sqlx::query_as(
        "SELECT g.head_seq, g.status, (SELECT count(*) FROM seats s WHERE s.game_id = g.id \
         AND s.email = 'mallory@example.org') FROM games g WHERE g.id = $1",
    )
    .bind(id)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(
        unchanged,
        (head_before, "running".to_string(), 0),
        "nothing changed"
    );
    // A lobby game: its creator gets no desk and no organiser mail; the seats are the
    // players' accounts'.
    let (lobby, creator, other) = lobby_game(&db).await;
    let lobby_row: (bool, Option<String>) =
        sqlx::query_as("SELECT has_desk, organiser_email FROM games WHERE id = $1")
            .bind(lobby)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(lobby_row, (false, None), "a lobby game has no desk");
    let mailed_desk: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND event = 'organiser'",
    )
    .bind(lobby)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(mailed_desk, 0, "its creator is mailed no organiser link");
    let cy = Visitor::new(&base);
    cy.set_cookie(
        "pp_session",
        &db.store.start_session(creator.id).await.unwrap(),
    );
    let lobby_seats: Vec<Option<i64>> =
        sqlx::query_scalar("SELECT account_id FROM seats WHERE game_id = $1 ORDER BY seat")
            .bind(lobby)
            .fetch_all(db.store.pool())
            .await
            .unwrap();
    let di_seat = lobby_seats
        .iter()
        .position(|a| *a == Some(other.id))
        .unwrap();
    let mint = cy
        .post_from("/me", &format!("/me/games/{lobby}/{di_seat}"), &[])
        .await;
    assert_ne!(mint.status, 303, "the creator opens no other player's seat");
    let own = cy
        .post_from("/me", &format!("/me/games/{lobby}/{}", 1 - di_seat), &[])
        .await;
    assert_eq!(own.status, 303, "but opens their own: {}", own.body);

    // The lobby game's creator asks for a link to Di's seat: it goes to Di's address only.
    let asked = cy
        .post_from(
            &format!("/games/{lobby}"),
            &format!("/games/{lobby}/lost-link"),
            &[("seat", di_seat.to_string().as_str())],
        )
        .await;
    assert_eq!(asked.status, 303, "{}", asked.body);
    let to: String = sqlx::query_scalar(
        "SELECT recipient FROM outbox WHERE game_id = $1 AND event LIKE 'lost:%'",
    )
    .bind(lobby)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(to, "di@example.org");
    let after = cy.get(&format!("/games/{lobby}?mailed=1")).await;
    assert!(
        after.body.contains("A link is on its way"),
        "{}",
        after.body
    );
    assert_no_seat_token(&cy, "the lobby game's page", &after.body).await;
    // Moving for Bo: only his current link.
    let loaded = db.store.load(id).await.unwrap();
    let command = postplay::engine::bot::fill_at_random(
        &loaded.game.choices(loaded.game.active()[0])[0],
        &mut postplay::engine::GameRng::new(&postplay::engine::Seed::from_number(3), 0),
    );
    let body = json!({"command": command, "expected_seq": 0}).to_string();
    for (who, token, allowed) in [
        ("former holder", &old_bo, false),
        ("organiser's token", &created.organiser_token, false),
    ] {
        let res = awc::Client::default()
            .post(format!("{base}/api/play/{token}/commands"))
            .insert_header(("Content-Type", "application/json"))
            .send_body(body.clone())
            .await
            .unwrap();
        assert_eq!(res.status().is_success(), allowed, "{who} moves");
    }
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 0);
    db.drop().await;
}

/// A Nationhood game started from the lobby: Cy opens the table, Di fills it. (game, Cy's
/// account, Di's account).
async fn lobby_game(db: &TestDb) -> (i64, postplay::store::Account, postplay::store::Account) {
    let account = async |email: &str, name: &str| {
        db.store
            .account_for_email(
                &EmailAddress::parse(email).unwrap(),
                &PlayerName::parse(name).unwrap(),
            )
            .await
            .unwrap()
    };
    let creator = account("cy@example.org", "Cy").await;
    let other = account("di@example.org", "Di").await;
    let table = db
        .store
        .open_table(
            &creator,
            &postplay::store::NewTable {
                creator_words: None,
                kind: "nationhood".into(),
                options: json!({}),
                settings: json!({}),
                seat_count: 2,
                seating: postplay::domain::Seating::Random,
                creator_position: Some(0),
                expires_in: postplay::domain::ExpiryDays::parse("7").unwrap(),
                invites: Vec::new(),
                club_id: None,
                bots: Vec::new(),
            },
        )
        .await
        .unwrap();
    let joined = db.store.join_table(table, &other, None).await.unwrap();
    let postplay::store::Joined::Started { game_id } = joined else {
        panic!("the table is full: {joined:?}")
    };
    (game_id, creator, other)
}

/// A game without a desk (started from the lobby): mail that cannot be delivered to one player
/// is told to the others, without the failing address; nobody is an organiser.
#[actix_web::test]
async fn in_a_lobby_game_the_other_players_hear_of_undeliverable_mail() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = postplay::notices::mail::sink::SmtpSink::start()
        .await
        .unwrap();
    sink.refuse("di@example.org");
    let worker = common::mailrig::spawn_worker(
        &db,
        &base,
        sink.port(),
        postplay::notices::outbox::worker::WorkerConfig {
            max_attempts: 1,
            ..common::mailrig::quick()
        },
    );
    let (game, _, _) = lobby_game(&db).await;
    let told = common::wait::until(
        "Cy to hear that mail to Di is undeliverable",
        common::wait::PATIENCE,
        async || {
            let mail = sink.received();
            mail.iter()
                .find(|m| {
                    m.to == ["cy@example.org"]
                        && common::mime::header(&m.data, "Subject")
                            .is_some_and(|s| s.ends_with("mail to Di is undeliverable"))
                })
                .cloned()
                .ok_or_else(|| format!("{} mails", mail.len()))
        },
    )
    .await;
    let text = common::mime::part(&told.data, "text/plain").unwrap();
    assert!(text.contains("could not be delivered."), "{text}");
    assert!(
        !text.contains("di@example.org"),
        "the address is not named: {text}"
    );
    assert!(!text.contains("organiser page"), "{text}");
    let to_organiser: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND recipient_name = 'Organiser'",
    )
    .bind(game)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(to_organiser, 0);
    worker.stop().await;
    db.drop().await;
}
