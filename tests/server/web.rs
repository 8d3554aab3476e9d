//! The web app over real HTTP against a real PostgreSQL: a whole game through the JSON API,
//! racing submissions, hidden information on every page, and bad input.

use crate::common;

use awc::Client;
use common::{TestDb, create_game, spawn_app};
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::engine::{Choice, Seed};
use serde_json::{Value, json};

async fn get_json(client: &Client, url: &str, token: Option<&str>) -> (u16, Value) {
    let mut req = client.get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let mut res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

async fn get_text(client: &Client, url: &str) -> (u16, String) {
    let mut res = client.get(url).send().await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().limit(1 << 22).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

async fn post_json(client: &Client, url: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let mut req = client
        .post(url)
        .insert_header(("Content-Type", "application/json"));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let mut res = req.send_body(body.to_string()).await.unwrap();
    let status = res.status().as_u16();
    let body = res.body().await.unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// Every card code in the other seats' hands, from the auditor's state, but an opposing
/// hand that Votes for Women's Change In Plans ("See opponent's hand") shows `seat` now.
async fn others_cards(db: &TestDb, id: i64, seat: usize) -> Vec<String> {
    let loaded = db.store.load(id).await.unwrap();
    let mut hidden = common::hidden::hidden_from(&loaded.game.state_json(), Some(seat));
    let view = loaded.game.view(postplay::engine::Viewer::Seat(seat));
    for frame in view["resolving"].as_array().into_iter().flatten() {
        if let Some(shown) = frame["shown"].as_array() {
            assert_eq!(frame["seat"], seat, "only the card's player sees the hand");
            let shown: Vec<String> = shown.iter().map(|c| c["id"].to_string()).collect();
            hidden.retain(|c| !shown.contains(c));
        }
    }
    hidden
}

#[actix_web::test]
async fn a_whole_game_over_http_replays_to_the_same_hash_and_hides_every_hand() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 12).await;
    let mut rng = bot_rng(&Seed::from_number(12));
    let mut moves = 0;
    loop {
        let (status, view) = get_json(&client, &format!("{base}/api/games/{id}/view"), None).await;
        assert_eq!(status, 200);
        if !view["outcome"].is_null() {
            break;
        }
        let seat = view["active"][0].as_u64().unwrap() as usize;
        let token = &tokens[seat];
        // Hidden information: this seat's page and JSON carry no other seat's cards.
        if moves % 7 == 0 {
            let secret = others_cards(&db, id, seat).await;
            let (_, page) = get_text(&client, &format!("{base}/play/{token}")).await;
            let (_, json) = get_json(&client, &format!("{base}/api/play/{token}/view"), None).await;
            let json = json.to_string();
            let (_, public) = get_text(&client, &format!("{base}/games/{id}")).await;
            for card in &secret {
                assert!(
                    !page.contains(&format!("data-card=\"{card}\"")),
                    "seat {seat} page shows {card}"
                );
                assert!(
                    !json.contains(&format!("\"{card}\"")),
                    "seat {seat} JSON shows {card}"
                );
                assert!(
                    !public.contains(&format!("data-card=\"{card}\"")),
                    "spectator page shows {card}"
                );
            }
        }
        let (status, offered) = get_json(
            &client,
            &format!("{base}/api/games/{id}/choices"),
            Some(token),
        )
        .await;
        assert_eq!(status, 200);
        let choices: Vec<Choice> = serde_json::from_value(offered["choices"].clone()).unwrap();
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        let body = json!({"command": command, "expected_seq": offered["seq"]}).to_string();
        let (status, answer) = post_json(
            &client,
            &format!("{base}/api/games/{id}/commands"),
            Some(token),
            &body,
        )
        .await;
        assert_eq!(status, 201, "{answer}");
        moves += 1;
    }
    let (status, record) = get_json(&client, &format!("{base}/api/games/{id}/export"), None).await;
    assert_eq!(status, 200);
    let record: postplay::engine::Record = serde_json::from_value(record).unwrap();
    assert_eq!(
        record
            .commands
            .iter()
            .filter(|c| c.by.as_deref() != Some("auto"))
            .count(),
        moves,
        "every entry is a move sent, or one forced in public and played at once"
    );
    let replayed = record
        .replay(postplay::games::ALL)
        .expect("the exported log replays");
    let live = db.store.load(id).await.unwrap();
    assert_eq!(replayed.state_hash(), live.game.state_hash());
    assert_eq!(record.final_state_hash, Some(live.game.state_hash()));
    postplay::engine::audit::verify(postplay::games::ALL, &record, Some(&live.row.head_hash))
        .unwrap();
    db.drop().await;
}

#[actix_web::test]
async fn twenty_parallel_submissions_for_one_seq_one_wins() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 13).await;
    let seat = db.store.load(id).await.unwrap().game.active()[0];
    let mut requests = Vec::new();
    for _ in 0..20 {
        let client = Client::default();
        let url = format!("{base}/api/games/{id}/commands");
        let token = tokens[seat].clone();
        requests.push(async move {
            let body = json!({"command": {"type": "pass"}, "expected_seq": 0}).to_string();
            post_json(&client, &url, Some(&token), &body).await.0
        });
    }
    let mut statuses = futures_util::future::join_all(requests).await;
    statuses.sort();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        19,
        "{statuses:?}"
    );
    let seqs: Vec<i64> = db
        .store
        .commands(id, 0)
        .await
        .unwrap()
        .iter()
        .map(|c| c.seq)
        .collect();
    assert_eq!(seqs, vec![1]);
    db.drop().await;
}

#[actix_web::test]
async fn bad_input_gets_the_right_status_and_changes_nothing() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game(
        &db,
        "whitehouse",
        &["<script>alert(1)</script>", "Bo", "Cy", "Di"],
        14,
    )
    .await;
    let active = db.store.load(id).await.unwrap().game.active()[0];
    let idle = (active + 1) % 4;
    let url = format!("{base}/api/games/{id}/commands");
    let t = |s: usize| Some(tokens[s].as_str());
    assert_eq!(
        post_json(&client, &url, t(active), "{not json").await.0,
        400
    );
    assert_eq!(
        post_json(&client, &url, t(active), r#"{"command": {"type": "fly"}}"#)
            .await
            .0,
        400
    );
    let (status, body) = post_json(
        &client,
        &url,
        t(active),
        r#"{"command": {"type": "bid", "amount": 275}}"#,
    )
    .await;
    assert_eq!(status, 422);
    assert_eq!(body["error"], "bids go up in steps of 10");
    assert_eq!(
        post_json(&client, &url, t(idle), r#"{"command": {"type": "pass"}}"#)
            .await
            .0,
        403
    );
    assert_eq!(
        post_json(
            &client,
            &url,
            Some("0123456789abcdef0123456789abcdef01234567"),
            r#"{"command": {"type": "pass"}}"#
        )
        .await
        .0,
        401
    );
    assert_eq!(
        post_json(&client, &url, None, r#"{"command": {"type": "pass"}}"#)
            .await
            .0,
        401
    );
    assert_eq!(
        post_json(
            &client,
            &format!("{base}/api/games/999999/commands"),
            t(active),
            "{}"
        )
        .await
        .0,
        404
    );
    // A token of another game is refused for this one.
    let (other, other_tokens) = create_game(&db, "whitehouse", &["A", "B", "C", "D"], 15).await;
    assert_ne!(other, id);
    assert_eq!(
        post_json(
            &client,
            &url,
            Some(&other_tokens[active]),
            r#"{"command": {"type": "pass"}}"#
        )
        .await
        .0,
        403
    );
    // Who may not move here hears that before anything about the body.
    for (token, status) in [
        (Some(other_tokens[active].as_str()), 403),
        (Some("0123456789abcdef0123456789abcdef01234567"), 401),
        (Some("not a token"), 401),
        (None, 401),
    ] {
        assert_eq!(post_json(&client, &url, token, "{not json").await.0, status);
    }
    assert_eq!(
        get_text(
            &client,
            &format!("{base}/play/0123456789abcdef0123456789abcdef01234567")
        )
        .await
        .0,
        404
    );
    assert_eq!(
        db.store.game(id).await.unwrap().unwrap().head_seq,
        0,
        "nothing was written"
    );

    // A form replayed after the game moved on: 409, nothing written.
    let (status, _) = post_json(
        &client,
        &url,
        t(active),
        r#"{"command": {"type": "pass"}, "expected_seq": 0}"#,
    )
    .await;
    assert_eq!(status, 201);
    let (status, _) = post_json(
        &client,
        &url,
        t((active + 1) % 4),
        r#"{"command": {"type": "pass"}, "expected_seq": 0}"#,
    )
    .await;
    assert_eq!(status, 409);
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);

    // A form post without the CSRF cookie is refused.
    let mut res = client
        .post(format!("{base}/play/{}", tokens[(active + 1) % 4]))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body("csrf=abc&seq=1&choice=0")
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 403);
    let _ = res.body().await;
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);

    // Names are escaped everywhere.
    for page in [
        format!("{base}/games/{id}"),
        format!("{base}/games/{id}/log"),
        format!("{base}/play/{}", tokens[1]),
    ] {
        let (status, html) = get_text(&client, &page).await;
        assert_eq!(status, 200);
        assert!(
            !html.contains("<script>alert(1)</script>"),
            "{page} is not escaped"
        );
    }
    db.drop().await;
}

#[actix_web::test]
async fn a_move_through_the_html_form_redirects_and_shows() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 16).await;
    let seat = db.store.load(id).await.unwrap().game.active()[0];
    let url = format!("{base}/play/{}", tokens[seat]);
    let mut res = client.get(&url).send().await.unwrap();
    let set_cookie = res
        .headers()
        .get("set-cookie")
        .expect("the page sets a CSRF cookie");
    let cookie = set_cookie
        .to_str()
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
    assert_eq!(format!("pp_csrf={csrf}"), cookie);
    // Choice 1 is "Bid" with a number field.
    let form = format!("csrf={csrf}&seq=0&choice=1&p0=300");
    let res = client
        .post(&url)
        .insert_header(("Cookie", cookie.clone()))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body(form.clone())
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 303);
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);
    // The same form again is stale: 409, with the page as it stands now.
    let mut res = client
        .post(&url)
        .insert_header(("Cookie", cookie))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body(form)
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 409);
    let html = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
    assert!(html.contains("moved on"), "{html}");
    assert!(html.contains("Ann bids 300") || html.contains("bids 300"));
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);
    db.drop().await;
}

#[actix_web::test]
async fn open_pages_hear_of_new_moves() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 17).await;
    let (mut events, hello) = open_events(&client, &base, id).await;
    assert!(hello.starts_with(": connected"), "{hello}");
    assert!(
        hello.contains("data: 0\n\n"),
        "the head as it stands: {hello}"
    );
    // The process's listener connects to PostgreSQL on its own schedule: move until an event
    // arrives (the first normally does).
    let mut rng = bot_rng(&Seed::from_number(17));
    for attempt in 1..=5 {
        let loaded = db.store.clone_handle().load(id).await.unwrap();
        let seat = loaded.game.active()[0];
        let command = fill_at_random(&loaded.game.choices(seat)[0], &mut rng);
        let body = json!({"command": command}).to_string();
        let (status, _) = post_json(
            &client,
            &format!("{base}/api/games/{id}/commands"),
            Some(&tokens[seat]),
            &body,
        )
        .await;
        assert_eq!(status, 201);
        let wait = std::time::Duration::from_secs(2);
        if let Ok(Some(Ok(event))) =
            actix_web::rt::time::timeout(wait, futures_util::StreamExt::next(&mut events)).await
        {
            let text = String::from_utf8_lossy(&event).into_owned();
            let seq: usize = text
                .trim()
                .strip_prefix("data: ")
                .and_then(|n| n.parse().ok())
                .expect("data: <seq>");
            assert!((1..=attempt).contains(&seq), "{text}");
            // A page whose stream opens after a move hears the move at once, as the head.
            let (_later, hello) = open_events(&client, &base, id).await;
            let head = db.store.game(id).await.unwrap().unwrap().head_seq;
            assert!(
                head >= 1 && hello.contains(&format!("data: {head}\n\n")),
                "{hello}"
            );
            db.drop().await;
            return;
        }
    }
    panic!("no event for five moves");
}

#[actix_web::test]
async fn a_move_made_while_the_listener_reconnects_still_reaches_open_pages() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, _) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 18).await;
    // Another process, with its own connection, makes the move below.
    let other_pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .min_connections(1)
        .connect_with(db.options.clone())
        .await
        .unwrap();
    let other =
        postplay::startup::store_on(other_pool, std::sync::Arc::new(postplay::time::SystemClock));
    let loaded = other.load(id).await.unwrap();
    let (mut events, hello) = open_events(&client, &base, id).await;
    assert!(hello.contains("data: 0\n\n"), "{hello}");
    let listener = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() \
                    AND query LIKE 'LISTEN%'";
    let pid: i32 = common::wait::until(
        "the server's listener",
        common::wait::PATIENCE,
        async || {
            sqlx::query_scalar::<_, i32>(listener)
                .fetch_optional(db.store.pool())
                .await
                .unwrap()
                .ok_or("not listening yet")
        },
    )
    .await;
    // The server can open no new connection and holds no idle one: its listener, cut off,
    // stays away while the move commits, announced to nobody.
    let pool = db.store.pool();
    let mut admin = sqlx::ConnectOptions::connect(&db.options.clone().database("postgres"))
        .await
        .unwrap();
    let close = format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false", db.name);
    sqlx::query(sqlx::AssertSqlSafe(close))
        .execute(&mut admin)
        .await
        .unwrap();
    let mut held = Vec::new();
    while let Some(conn) = pool.try_acquire() {
        held.push(conn);
    }
    sqlx::query("SELECT pg_terminate_backend($1)")
        .bind(pid)
        .execute(&mut *held[0])
        .await
        .unwrap();
    let gone = "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $1";
    common::wait::holds("the listener's connection gone", async || {
        sqlx::query_scalar::<_, bool>(gone)
            .bind(pid)
            .fetch_one(&mut *held[0])
            .await
            .unwrap()
    })
    .await;
    let seat = loaded.game.active()[0];
    let mut rng = bot_rng(&Seed::from_number(18));
    let command = fill_at_random(&loaded.game.choices(seat)[0], &mut rng);
    other.submit(id, seat, &command, Some(0)).await.unwrap();
    let head = other.game(id).await.unwrap().unwrap().head_seq;
    let open = format!("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true", db.name);
    sqlx::query(sqlx::AssertSqlSafe(open))
        .execute(&mut admin)
        .await
        .unwrap();
    drop(held);
    // Listening again, the server has the stream look the head up: the page hears the move.
    let heard = async {
        loop {
            let event = futures_util::StreamExt::next(&mut events)
                .await
                .unwrap()
                .unwrap();
            let text = String::from_utf8_lossy(&event).into_owned();
            if !text.starts_with(": keep-alive") {
                return text;
            }
        }
    };
    let text = actix_web::rt::time::timeout(common::wait::PATIENCE, heard)
        .await
        .expect("an event within the patience");
    assert_eq!(text, format!("data: {head}\n\n"));
    other.pool().close().await;
    db.drop().await;
}

/// Opens game `id`'s live-refresh stream and reads its first chunk (the hello and the head).
async fn open_events(
    client: &Client,
    base: &str,
    id: i64,
) -> (
    awc::ClientResponse<
        impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>,
    >,
    String,
) {
    let mut events = client
        .get(format!("{base}/games/{id}/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        events.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    let hello = futures_util::StreamExt::next(&mut events)
        .await
        .unwrap()
        .unwrap();
    (events, String::from_utf8_lossy(&hello).into_owned())
}

/// The form fields a browser sends for `choice` (number `index`) filled with `command`.
fn form_for(choice: &Choice, index: usize, command: &Value) -> Vec<(String, String)> {
    use postplay::engine::ParamKind;
    let mut fields = vec![("choice".to_string(), index.to_string())];
    for (i, param) in choice.params.iter().enumerate() {
        let value = &command[param.field.as_ref()];
        let name = format!("p{i}");
        match &param.kind {
            ParamKind::One { options } => {
                let at = options.iter().position(|o| *o.value == *value).unwrap();
                fields.push((name, at.to_string()));
            }
            ParamKind::Pick { options, .. } => {
                for picked in value.as_array().unwrap() {
                    let at = options.iter().position(|o| *o.value == *picked).unwrap();
                    fields.push((name.clone(), at.to_string()));
                }
            }
            ParamKind::Number { .. } => fields.push((name, value.to_string())),
            ParamKind::Distribute { .. } | ParamKind::Allot { .. } => {
                for (j, count) in value.as_array().unwrap().iter().enumerate() {
                    fields.push((format!("{name}_{j}"), count.to_string()));
                }
            }
        }
    }
    fields
}

#[actix_web::test]
async fn a_whole_game_through_the_html_forms_hiding_every_hand_from_every_seat() {
    whole_game_through_forms("whitehouse", 4, 18).await;
}

#[actix_web::test]
async fn a_whole_four_player_statehood_game_through_the_html_forms() {
    whole_game_through_forms("statehood", 4, 19).await;
}

#[actix_web::test]
async fn a_whole_electoral_college_combat_game_through_the_html_forms() {
    whole_game_through_forms("electoral-combat", 2, 20).await;
}

#[actix_web::test]
async fn a_whole_nationhood_game_through_the_html_forms() {
    whole_game_through_forms("nationhood", 2, 21).await;
}

#[actix_web::test]
async fn a_whole_votes_for_women_game_through_the_html_forms() {
    whole_game_through_forms("votes-for-women", 2, 22).await;
}

async fn whole_game_through_forms(kind: &str, seats: usize, seed: u64) {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let (id, tokens) = create_game(&db, kind, &["Ann", "Bo", "Cy", "Di"][..seats], seed).await;
    let mut rng = bot_rng(&Seed::from_number(seed));
    let mut cookies = Vec::new();
    for token in &tokens {
        let res = client
            .get(format!("{base}/play/{token}"))
            .send()
            .await
            .unwrap();
        let set = res.headers().get("set-cookie").unwrap().to_str().unwrap();
        cookies.push(set.split(';').next().unwrap().to_string());
    }
    let mut moves = 0;
    loop {
        let loaded = db.store.clone_handle().load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        if moves % 3 == 0 {
            for (seat, token) in tokens.iter().enumerate() {
                let secret = others_cards(&db, id, seat).await;
                let (_, page) = get_text(&client, &format!("{base}/play/{token}")).await;
                for card in &secret {
                    assert!(
                        !page.contains(&format!("data-card=\"{card}\"")),
                        "seat {seat} sees {card}"
                    );
                }
            }
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let index = rng.index(choices.len());
        let command = fill_at_random(&choices[index], &mut rng);
        let csrf = cookies[seat].trim_start_matches("pp_csrf=").to_string();
        let mut fields = form_for(&choices[index], index, &command);
        fields.push(("csrf".into(), csrf));
        fields.push(("seq".into(), loaded.row.head_seq.to_string()));
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&fields)
            .finish();
        let mut res = client
            .post(format!("{base}/play/{}", tokens[seat]))
            .insert_header(("Cookie", cookies[seat].clone()))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
            .send_body(body)
            .await
            .unwrap();
        let status = res.status().as_u16();
        let page = res.body().limit(1 << 22).await.unwrap();
        assert_eq!(status, 303, "{command}: {}", String::from_utf8_lossy(&page));
        moves += 1;
    }
    let (_, page) = get_text(&client, &format!("{base}/play/{}", tokens[0])).await;
    assert!(page.contains("Game over."), "the end is shown");
    let sent = db
        .store
        .commands(id, 0)
        .await
        .unwrap()
        .iter()
        .filter(|c| c.by() != Some("auto"))
        .count();
    assert_eq!(sent as i64, moves, "every other entry was forced in public");
    db.drop().await;
}

// --- rough edges (plain HTTP) ---

#[actix_web::test]
async fn a_favicon_answers_and_every_page_links_it() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let mut res = client
        .get(format!("{base}/favicon.ico"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.headers().get("content-type").unwrap(), "image/svg+xml");
    let body = res.body().await.unwrap();
    assert!(String::from_utf8_lossy(&body).starts_with("<svg"), "an SVG");
    let (_, home) = get_text(&client, &format!("{base}/")).await;
    let icon = home
        .split("<link rel=\"icon\" href=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the page links an icon");
    let (status, _) = get_text(&client, &format!("{base}{icon}")).await;
    assert_eq!(status, 200, "{icon}");
    db.drop().await;
}

#[actix_web::test]
async fn the_create_form_says_which_rows_need_a_name() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (_, fixed) = get_text(&client, &format!("{base}/new/votes-for-women")).await;
    assert!(
        fixed
            .contains("Every row needs a name or a bot: Votes for Women is for exactly 2 players."),
        "{fixed}"
    );
    assert!(!fixed.contains("empty"), "{fixed}");
    let (_, ranged) = get_text(&client, &format!("{base}/new/statehood")).await;
    assert!(ranged.contains("leave the others empty"), "{ranged}");
    db.drop().await;
}

/// The card codes of the hand the seat's page draws, in the page's order.
fn hand_on_page(page: &str) -> Vec<String> {
    page.rsplit("<h2>Your hand</h2>")
        .next()
        .and_then(|h| h.split("</div>").next())
        .unwrap_or_default()
        .split("data-card=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .map(str::to_string)
        .collect()
}

#[actix_web::test]
async fn a_nationhood_hand_is_drawn_by_suit_and_rank() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game(&db, "nationhood", &["Ann", "Bo"], 19).await;
    let loaded = db.store.load(id).await.unwrap();
    for (seat, token) in tokens.iter().enumerate() {
        let view = loaded.game.view(postplay::engine::Viewer::Seat(seat));
        let held: Vec<postplay::cards::Card> = view["hands"][seat]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| serde_json::from_value(c.clone()).unwrap())
            .collect();
        let want: Vec<String> = postplay::games::pack::by_suit(&held)
            .iter()
            .map(|c| c.code().to_string())
            .collect();
        let (_, page) = get_text(&client, &format!("{base}/play/{token}")).await;
        assert_eq!(hand_on_page(&page), want, "seat {seat}");
    }
    db.drop().await;
}

#[actix_web::test]
async fn a_choice_with_a_question_names_itself_before_the_question() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game(&db, "statehood", &["Ann", "Bo", "Cy"], 5).await;
    let loaded = db.store.load(id).await.unwrap();
    let seat = loaded.game.active()[0];
    let take = loaded
        .game
        .choices(seat)
        .into_iter()
        .find(|c| c.label.starts_with("Take"))
        .expect("the discard pile can be taken");
    let (_, page) = get_text(&client, &format!("{base}/play/{}", tokens[seat])).await;
    let label = format!("<p class=\"choice-label\"><b>{}</b></p>", take.label);
    let at = page.find(&label).expect("the choice named first");
    let question = page
        .find("Which card do you discard?")
        .expect("its question");
    assert!(at < question, "take first, then the discard");
    db.drop().await;
}

#[actix_web::test]
async fn a_sealed_sign_sent_from_a_page_shown_before_the_other_sealed_is_taken() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, tokens) = common::game_at_sealed_signs(&db).await;
    let ann = common::visitor::Visitor::new(&base);
    let page = ann.get(&format!("/play/{}", tokens[0])).await;
    assert_eq!(page.status, 200);
    let shown = db.store.game(id).await.unwrap().unwrap().head_seq;
    assert!(
        page.body
            .contains(&format!("name=\"seq\" value=\"{shown}\""))
    );
    let choice = db
        .store
        .load(id)
        .await
        .unwrap()
        .game
        .choices(0)
        .iter()
        .position(|c| c.command["sign"] == "scissors")
        .expect("scissors is offered");
    // Bo seals his sign while Ann's page is open.
    db.store
        .submit(id, 1, &json!({"type": "rps", "sign": "rock"}), None)
        .await
        .unwrap();
    let csrf = common::visitor::csrf_of(&page.body).unwrap();
    let sent = ann
        .post(
            &format!("/play/{}", tokens[0]),
            &[
                ("csrf", &csrf),
                ("seq", &shown.to_string()),
                ("choice", &choice.to_string()),
            ],
        )
        .await;
    assert_eq!(sent.status, 303, "{}", sent.body);
    let commands = db.store.commands(id, shown).await.unwrap();
    assert_eq!(commands[1].seat, 0);
    assert_eq!(
        commands[1].command,
        json!({"type": "rps", "sign": "scissors"})
    );
    // The same form once more: the signs are resolved and Ann's own sign came since.
    let again = ann
        .post(
            &format!("/play/{}", tokens[0]),
            &[
                ("csrf", &csrf),
                ("seq", &shown.to_string()),
                ("choice", &choice.to_string()),
            ],
        )
        .await;
    assert_eq!(again.status, 409, "{}", again.body);
    assert!(again.body.contains("moved on"), "{}", again.body);
    db.drop().await;
}
