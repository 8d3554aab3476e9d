//! "My games", claiming seats, API tokens and who may use each new route (issue 17), over
//! real HTTP against the real server and a real PostgreSQL.

use crate::common;

use common::visitor::Visitor;
use common::{TestDb, create_game_for, play_until, spawn_app};
use postplay::store::{EmailAddress, PlayerName};

/// A visitor signed in as `email` through a real sign-in link.
pub(crate) async fn signed_in(base: &str, db: &TestDb, email: &str) -> Visitor {
    let v = Visitor::new(base);
    assert_eq!(
        v.post_from("/signin", "/signin", &[("email", email)])
            .await
            .status,
        200
    );
    let token: String = sqlx::query_scalar(
        "SELECT payload->>'token' FROM outbox WHERE kind = 'signin' AND recipient = $1 \
         ORDER BY id DESC LIMIT 1",
    )
    .bind(email)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    let done = v
        .post_from(
            &format!("/signin/{token}"),
            &format!("/signin/{token}"),
            &[],
        )
        .await;
    assert_eq!(done.status, 303);
    v
}

/// The games `/api/me/games` lists: (game id, standing).
fn listed(json: &serde_json::Value) -> Vec<(i64, String)> {
    json["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["game_id"].as_i64().unwrap(),
                g["standing"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[actix_web::test]
async fn my_games_lists_exactly_the_accounts_games_awaiting_me_first_then_waiting_then_finished() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    // Ann plays in four games; a fifth is between others only.
    let (done, _) = create_game_for(&db, "statehood", &["Ann", "Bo"], true, 1).await;
    play_until(&db, done, 1, |_| false).await;
    let (a, _) = create_game_for(&db, "statehood", &["Ann", "Bo"], true, 2).await;
    let (b, _) = create_game_for(&db, "statehood", &["Bo", "Ann"], true, 3).await;
    let (c, _) = create_game_for(&db, "whitehouse", &["Cy", "Ann", "Bo", "Di"], true, 4).await;
    let (others, _) = create_game_for(&db, "statehood", &["Bo", "Cy"], true, 5).await;
    play_until(&db, b, 3, |l| l.row.head_seq >= 3).await;
    let ann = signed_in(&base, &db, "ann@example.org").await;

    // What the rules say about each running game, from a replay (the page reads no replay).
    let mut mine = Vec::new();
    let mut waiting = Vec::new();
    for id in [a, b, c] {
        let loaded = db.store.load(id).await.unwrap();
        let seat = db
            .store
            .seats(id)
            .await
            .unwrap()
            .iter()
            .position(|s| s.name == "Ann")
            .unwrap();
        if loaded.game.active().contains(&seat) {
            mine.push(id);
        } else {
            waiting.push(id);
        }
    }
    assert!(
        !mine.is_empty() && !waiting.is_empty(),
        "{mine:?} {waiting:?}"
    );
    let api = ann.get("/api/me/games").await;
    assert_eq!(api.status, 200, "{}", api.body);
    let json: serde_json::Value = serde_json::from_str(&api.body).unwrap();
    let games = listed(&json);
    let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
    assert!(!ids.contains(&others), "only the account's games");
    assert_eq!(ids.len(), 4);
    let standings: Vec<&str> = games.iter().map(|g| g.1.as_str()).collect();
    let expected: Vec<&str> = std::iter::repeat_n("your_move", mine.len())
        .chain(std::iter::repeat_n("waiting", waiting.len()))
        .chain(["finished"])
        .collect();
    assert_eq!(standings, expected);
    let mut first: Vec<i64> = ids[..mine.len()].to_vec();
    first.sort();
    assert_eq!(first, mine);
    assert_eq!(*ids.last().unwrap(), done);
    let finished = &json["games"][3];
    assert!(
        !finished["result"].as_str().unwrap_or_default().is_empty(),
        "a finished game says how it ended: {finished}"
    );
    for g in json["games"].as_array().unwrap() {
        if g["standing"] == "waiting" {
            assert!(!g["waiting_on"].as_array().unwrap().is_empty(), "{g}");
            assert!(g["waiting_since"].is_string(), "{g}");
        }
    }

    // The page shows the same, in the same order, and opens each seat with one click.
    let page = ann.get("/me").await;
    assert_eq!(page.status, 200);
    let positions: Vec<usize> = ids
        .iter()
        .map(|id| page.body.find(&format!("#{id}<")).expect("listed"))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    let seat_of_ann = db
        .store
        .seats(c)
        .await
        .unwrap()
        .iter()
        .position(|s| s.name == "Ann")
        .unwrap();
    let open = ann
        .post_from("/me", &format!("/me/games/{c}/{seat_of_ann}"), &[])
        .await;
    assert_eq!(open.status, 303);
    let play = ann.get(open.location.as_deref().unwrap()).await;
    assert_eq!(play.status, 200);
    assert!(play.body.contains("This seat is in"));
    // Opening again on the same device replaces that device's link: the old one ends (and,
    // opened by its signed-in owner, leads on to the seat by a fresh link).
    let again = ann
        .post_from("/me", &format!("/me/games/{c}/{seat_of_ann}"), &[])
        .await;
    let stranger = Visitor::new(&base);
    assert_eq!(
        stranger.get(open.location.as_deref().unwrap()).await.status,
        404
    );
    assert_eq!(
        stranger
            .get(again.location.as_deref().unwrap())
            .await
            .status,
        200
    );
    let links: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM seat_links WHERE game_id = $1 AND account_id IS NOT NULL",
    )
    .bind(c)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(links, 1);
    // Another's seat is not opened.
    let refused = ann
        .post_from("/me", &format!("/me/games/{others}/0"), &[])
        .await;
    assert_eq!(refused.status, 404);
    db.drop().await;
}

#[actix_web::test]
async fn a_seat_link_is_claimed_once_and_never_from_another_account() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (game, tokens) = create_game_for(&db, "statehood", &["Ann", "Bo"], false, 7).await;
    let ann = signed_in(&base, &db, "ann@example.org").await;
    let bo = signed_in(&base, &db, "bo@example.org").await;
    let play = format!("/play/{}", tokens[0]);
    assert!(
        ann.get(&play)
            .await
            .body
            .contains("Add this seat to my games")
    );
    let claimed = ann.post_from(&play, &format!("{play}/claim"), &[]).await;
    assert_eq!(claimed.status, 303);
    assert!(ann.get(&play).await.body.contains("This seat is in"));
    assert_eq!(
        listed(&serde_json::from_str(&ann.get("/api/me/games").await.body).unwrap())[0].0,
        game
    );
    assert!(
        bo.get(&play)
            .await
            .body
            .contains("belongs to another account")
    );
    let stolen = bo.post_from(&play, &format!("{play}/claim"), &[]).await;
    assert_eq!(stolen.status, 409);
    let owner: Option<i64> =
        sqlx::query_scalar("SELECT account_id FROM seats WHERE game_id = $1 AND seat = 0")
            .bind(game)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    let ann_id: i64 = sqlx::query_scalar("SELECT id FROM accounts WHERE email = 'ann@example.org'")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(owner, Some(ann_id));
    // The link still works without any account.
    assert_eq!(Visitor::new(&base).get(&play).await.status, 200);
    db.drop().await;
}

#[actix_web::test]
async fn settings_set_every_seats_mail_and_a_new_seat_takes_it() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (g1, _) = create_game_for(&db, "statehood", &["Ann", "Bo"], true, 8).await;
    let ann = signed_in(&base, &db, "ann@example.org").await;
    let bad = ann
        .post_from(
            "/me/settings",
            "/me/settings",
            &[
                ("name", "Ann"),
                ("time_zone", "Mars/Base"),
                ("mail_pref", "off"),
            ],
        )
        .await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("not a time zone"));
    // The form comes back as typed (issue 47).
    for kept in ["value=\"Mars/Base\"", "value=\"off\" checked"] {
        assert!(bad.body.contains(kept), "{kept}: {}", bad.body);
    }
    let saved = ann
        .post_from(
            "/me/settings",
            "/me/settings",
            &[
                ("name", "Ann <b>"),
                ("time_zone", "Europe/Paris"),
                ("mail_pref", "digest"),
            ],
        )
        .await;
    assert_eq!(saved.status, 303);
    let page = ann.get("/me/settings").await.body;
    assert!(page.contains("Ann &#60;b&#62;") || page.contains("Ann &lt;b&gt;"));
    let (g2, _) = create_game_for(&db, "statehood", &["Bo", "Ann"], true, 9).await;
    let prefs: Vec<String> = sqlx::query_scalar(
        "SELECT mail_pref FROM seats WHERE lower(email) = 'ann@example.org' ORDER BY game_id",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    assert_eq!(prefs, vec!["digest", "digest"], "games {g1} and {g2}");
    let me = ann.get("/me").await.body;
    assert!(me.contains("Europe/Paris"));
    db.drop().await;
}

#[actix_web::test]
async fn api_tokens_are_shown_once_bounded_and_revoked() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    create_game_for(&db, "statehood", &["Ann", "Bo"], true, 10).await;
    let ann = signed_in(&base, &db, "ann@example.org").await;
    let made = ann
        .post_from("/me/tokens", "/me/tokens", &[("label", "my bot")])
        .await;
    assert_eq!(made.status, 200);
    let at = made.body.find("<code>").unwrap() + 6;
    let token = made.body[at..at + 40].to_string();
    assert!(
        !ann.get("/me/tokens").await.body.contains(&token),
        "shown once"
    );
    let stored: i64 = sqlx::query_scalar("SELECT count(*) FROM api_tokens WHERE token_hash = $1")
        .bind(postplay::store::token_hash(&token))
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(stored, 1, "kept hashed");
    let anonymous = Visitor::new(&base);
    let bearer = format!("Bearer {token}");
    let used = anonymous
        .get_bare("/api/me/games", &[("Authorization", &bearer)])
        .await;
    assert_eq!(used.status, 200, "{}", used.body);
    assert_eq!(
        listed(&serde_json::from_str(&used.body).unwrap()),
        listed(&serde_json::from_str(&ann.get("/api/me/games").await.body).unwrap())
    );
    let wrong = format!("Bearer {}", "a".repeat(40));
    for header in [wrong.as_str(), "Bearer nonsense", "Basic abc"] {
        assert_eq!(
            anonymous
                .get_bare("/api/me/games", &[("Authorization", header)])
                .await
                .status,
            401
        );
    }
    // The bound.
    for i in 1..postplay::store::MAX_API_TOKENS {
        let label = format!("t{i}");
        assert_eq!(
            ann.post_from("/me/tokens", "/me/tokens", &[("label", &label)])
                .await
                .status,
            200
        );
    }
    let over = ann
        .post_from("/me/tokens", "/me/tokens", &[("label", "one more")])
        .await;
    assert_eq!(over.status, 409);
    // Revoked: 401 at once.
    let id: i64 = sqlx::query_scalar("SELECT id FROM api_tokens WHERE token_hash = $1")
        .bind(postplay::store::token_hash(&token))
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let bo = signed_in(&base, &db, "bo@example.org").await;
    let foreign = bo
        .post_from("/me/tokens", &format!("/me/tokens/{id}/revoke"), &[])
        .await;
    assert_eq!(foreign.status, 404, "only the owner revokes");
    let revoked = ann
        .post_from("/me/tokens", &format!("/me/tokens/{id}/revoke"), &[])
        .await;
    assert_eq!(revoked.status, 303);
    assert_eq!(
        anonymous
            .get_bare("/api/me/games", &[("Authorization", &bearer)])
            .await
            .status,
        401
    );
    db.drop().await;
}

#[actix_web::test]
async fn authorization_table_of_every_account_route() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (game, tokens) = create_game_for(&db, "statehood", &["Ann", "Bo"], true, 11).await;
    db.store
        .account_for_email(
            &EmailAddress::parse("ann@example.org").unwrap(),
            &PlayerName::parse("Ann").unwrap(),
        )
        .await
        .unwrap();
    let anonymous = Visitor::new(&base);
    let link_holder = Visitor::new(&base);
    link_holder.get(&format!("/play/{}", tokens[0])).await;
    let owner = signed_in(&base, &db, "ann@example.org").await;
    let stranger = signed_in(&base, &db, "zed@example.org").await;
    let play = format!("/play/{}", tokens[0]);
    let who = [
        ("anonymous", &anonymous),
        ("seat link holder", &link_holder),
        ("signed-in owner", &owner),
        ("signed-in stranger", &stranger),
    ];
    // (method, path, expected status for each of the four, in order).
    let table: Vec<(&str, String, [u16; 4])> = vec![
        ("GET", "/me".into(), [303, 303, 200, 200]),
        ("GET", "/me/settings".into(), [401, 401, 200, 200]),
        ("GET", "/me/tokens".into(), [401, 401, 200, 200]),
        ("GET", "/api/me/games".into(), [401, 401, 200, 200]),
        ("GET", "/me/export".into(), [401, 401, 200, 200]),
        ("GET", "/me/close".into(), [401, 401, 200, 200]),
        // Without its confirmation the form closes nothing.
        ("POST", "/me/close".into(), [401, 401, 400, 400]),
        ("POST", format!("/me/games/{game}/0"), [401, 401, 303, 404]),
        ("POST", format!("{play}/claim"), [401, 401, 303, 409]),
        (
            "POST",
            "/me/tokens/999999/revoke".into(),
            [401, 401, 404, 404],
        ),
        ("GET", "/signin".into(), [200, 200, 200, 200]),
        ("POST", "/signout/everywhere".into(), [401, 401, 303, 303]),
        // Last: the rows above end the sessions.
        ("POST", "/signout".into(), [303, 303, 303, 303]),
    ];
    for (method, path, expected) in &table {
        for (i, (name, v)) in who.iter().enumerate() {
            let got = if *method == "GET" {
                v.get(path).await.status
            } else {
                v.post_from("/signin", path, &[]).await.status
            };
            assert_eq!(got, expected[i], "{method} {path} as {name}");
        }
    }
    // Every form POST checks CSRF, for the signed-in owner too.
    let owner = signed_in(&base, &db, "ann@example.org").await;
    for path in [
        "/me/settings".to_string(),
        "/me/tokens".into(),
        format!("/me/games/{game}/0"),
        format!("{play}/claim"),
        "/signout".into(),
        "/signout/everywhere".into(),
        "/me/close".into(),
    ] {
        assert_eq!(
            owner.post(&path, &[("csrf", "forged")]).await.status,
            403,
            "{path}"
        );
    }
    db.drop().await;
}

#[actix_web::test]
async fn every_answer_with_a_seat_link_a_session_or_a_seats_view_is_never_stored() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game_for(&db, "statehood", &["Ann", "Bo"], true, 9).await;
    let ann = signed_in(&base, &db, "ann@example.org").await;
    let session = format!(
        "pp_session={}",
        ann.cookie("pp_session").expect("a session cookie")
    );
    let bearer = format!("Bearer {}", tokens[0]);
    let client = awc::Client::builder().disable_redirects().finish();
    for (path, header) in [
        ("/api/me/games".to_string(), ("Cookie", session.as_str())),
        ("/me".to_string(), ("Cookie", session.as_str())),
        ("/me/settings".to_string(), ("Cookie", session.as_str())),
        (format!("/games/{id}"), ("Cookie", session.as_str())),
        ("/".to_string(), ("Cookie", session.as_str())),
        (
            format!("/api/games/{id}/view"),
            ("Authorization", bearer.as_str()),
        ),
        (
            format!("/api/games/{id}/choices"),
            ("Authorization", bearer.as_str()),
        ),
        (format!("/api/play/{}/view", tokens[0]), ("X-None", "")),
        (format!("/play/{}", tokens[0]), ("X-None", "")),
    ] {
        let res = client
            .get(format!("{base}{path}"))
            .insert_header(header)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200, "{path}");
        assert_eq!(
            res.headers()
                .get("cache-control")
                .map(|v| v.to_str().unwrap().to_string()),
            Some("no-store".to_string()),
            "{path} with {}",
            header.0
        );
    }
    db.drop().await;
}

/// Ann's account (made before her game, so her seat is hers), a game with her at seat 0, and
/// a visitor signed in as her on each of `devices` devices (a session each).
async fn ann_on_devices(
    db: &TestDb,
    base: &str,
    devices: usize,
) -> (i64, Vec<String>, Vec<Visitor>) {
    let account = db
        .store
        .account_for_email(
            &EmailAddress::parse("ann@example.org").unwrap(),
            &PlayerName::parse("Ann").unwrap(),
        )
        .await
        .unwrap();
    let (game, tokens) = create_game_for(db, "statehood", &["Ann", "Bo"], true, 77).await;
    assert_eq!(
        db.store.seat_owner(game, 0).await.unwrap(),
        Some(account.id)
    );
    let mut visitors = Vec::new();
    for _ in 0..devices {
        let v = Visitor::new(base);
        v.set_cookie(
            "pp_session",
            &db.store.start_session(account.id).await.unwrap(),
        );
        visitors.push(v);
    }
    (game, tokens, visitors)
}

/// The link "my games" gives this device for seat 0.
async fn open_seat(device: &Visitor, game: i64) -> String {
    let open = device
        .post_from("/me", &format!("/me/games/{game}/0"), &[])
        .await;
    assert_eq!(open.status, 303, "{}", open.body);
    open.location.unwrap()
}

/// What a signed-out visitor gets at a link: 200 while it opens the seat.
async fn status_of(base: &str, link: &str) -> u16 {
    Visitor::new(base).get(link).await.status
}

async fn device_links(db: &TestDb, game: i64) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM seat_links WHERE game_id = $1 AND account_id IS NOT NULL",
    )
    .bind(game)
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

#[actix_web::test]
async fn two_devices_of_one_account_both_keep_their_seat_link() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (game, _, devices) = ann_on_devices(&db, &base, 2).await;
    let phone = open_seat(&devices[0], game).await;
    let laptop = open_seat(&devices[1], game).await;
    assert_ne!(phone, laptop);
    for (device, link) in devices.iter().zip([&phone, &laptop]) {
        let page = device.get(link).await;
        assert_eq!(page.status, 200, "{link}: {}", page.body);
        assert!(page.body.contains("This seat is in"), "{}", page.body);
    }
    // Both keep playing: the game moves (a move each way) and both links still open the seat,
    // in the page and in the API.
    play_until(&db, game, 5, |l| l.row.head_seq >= 2).await;
    for link in [&phone, &laptop] {
        let token = link.trim_start_matches("/play/");
        assert_eq!(status_of(&base, link).await, 200, "{link}");
        let view = Visitor::new(&base)
            .get(&format!("/api/play/{token}/view"))
            .await;
        assert_eq!(view.status, 200, "{}", view.body);
        assert!(view.body.contains("\"seq\":2"), "{}", view.body);
    }
    assert_eq!(device_links(&db, game).await, 2);
    db.drop().await;
}

#[actix_web::test]
async fn the_sixth_device_ends_the_oldest_devices_link() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (game, _, devices) =
        ann_on_devices(&db, &base, postplay::store::MAX_DEVICE_LINKS as usize + 1).await;
    let mut links = Vec::new();
    for device in &devices {
        links.push(open_seat(device, game).await);
        assert!(device_links(&db, game).await <= 5);
    }
    assert_eq!(device_links(&db, game).await, 5);
    assert_eq!(status_of(&base, &links[0]).await, 404, "the oldest ended");
    for link in &links[1..] {
        assert_eq!(status_of(&base, link).await, 200, "{link}");
    }
    // Opening again on a device that has a link replaces its own, ending no other.
    let again = open_seat(&devices[3], game).await;
    assert_eq!(status_of(&base, &links[3]).await, 404);
    for link in [&links[1], &links[2], &links[4], &links[5], &again] {
        assert_eq!(status_of(&base, link).await, 200, "{link}");
    }
    db.drop().await;
}

#[actix_web::test]
async fn a_relink_ends_every_device_link_and_the_signed_in_owner_is_sent_to_the_seat() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (game, tokens, devices) = ann_on_devices(&db, &base, 3).await;
    let mut links = Vec::new();
    for device in &devices {
        links.push(open_seat(device, game).await);
    }
    db.store.relink_seat(game, 0).await.unwrap().unwrap();
    assert_eq!(device_links(&db, game).await, 0);
    let mailed = format!("/play/{}", tokens[0]);
    for link in links.iter().chain([&mailed]) {
        assert_eq!(status_of(&base, link).await, 404, "{link} ended");
    }
    // The seat is still Ann's (its address is hers): on her phone, an ended link of it, her
    // own device's or the first mailed one, sends her to the seat by a fresh link.
    for link in [&links[0], &mailed] {
        let sent = devices[0].get(link).await;
        assert_eq!(sent.status, 303, "{link}: {}", sent.body);
        let to = sent.location.unwrap();
        assert!(to.starts_with("/play/") && &to != link, "{to}");
        let page = devices[0].get(&to).await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains("This seat is in"), "{}", page.body);
    }
    assert_eq!(device_links(&db, game).await, 1, "one device, one link");
    db.drop().await;
}

#[actix_web::test]
async fn an_ended_link_tells_anyone_but_the_seats_owner_nothing() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (game, tokens, devices) = ann_on_devices(&db, &base, 1).await;
    let link = open_seat(&devices[0], game).await;
    db.store.relink_seat(game, 0).await.unwrap().unwrap();
    // Bo, signed in, holds Ann's old link (and his own seat in the game).
    let bo_account = db
        .store
        .account_for_email(
            &EmailAddress::parse("bo@example.org").unwrap(),
            &PlayerName::parse("Bo").unwrap(),
        )
        .await
        .unwrap();
    assert_ne!(
        db.store.claim_seat(bo_account.id, game, 1).await.unwrap(),
        postplay::store::Claim::OwnedByAnother
    );
    let bo = Visitor::new(&base);
    bo.set_cookie(
        "pp_session",
        &db.store.start_session(bo_account.id).await.unwrap(),
    );
    let unknown = bo.get(&format!("/play/{}", "ab".repeat(20))).await;
    assert_eq!(unknown.status, 404);
    for dead in [link.clone(), format!("/play/{}", tokens[0])] {
        let answer = bo.get(&dead).await;
        assert_eq!(answer.status, 404, "{dead}");
        assert_eq!(
            answer.body, unknown.body,
            "the same answer as any unknown link"
        );
        assert_eq!(answer.location, None);
    }
    // Once the organiser releases the seat from Ann's account, her old links lead nowhere.
    let again = open_seat(&devices[0], game).await;
    assert!(
        db.store
            .release_owner(game, 0, &postplay::store::Changer::Organiser)
            .await
            .unwrap()
    );
    assert_eq!(device_links(&db, game).await, 0);
    for dead in [&link, &again] {
        assert_eq!(devices[0].get(dead).await.status, 404, "{dead}");
    }
    // The release is a change of hands: every player sees it, and the account is told.
    let changes = db.store.seat_changes(game).await.unwrap();
    assert_eq!(
        changes.first().map(|c| (c.seat, c.kind)),
        Some((0, postplay::store::ChangeKind::Released))
    );
    let told: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox o JOIN seats s ON s.game_id = o.game_id AND s.seat = 0 \
         WHERE o.game_id = $1 AND o.kind = 'seat_change' AND lower(o.recipient) = lower(s.email)",
    )
    .bind(game)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(told, 1, "the released account's address is told");
    db.drop().await;
}
