//! Hints in practice games (issue 49): over real HTTP, a seat of a game with a bot gets the
//! medium bot's move from its own view, in JSON and on its page; games without a bot and club
//! (rated) games refuse with 403 and never offer the button; over the bound a seat gets 429
//! with when the next is allowed; a refused request counts nothing.

use crate::common;

use common::visitor::Visitor;
use common::wait::{PATIENCE, until};
use common::{TestDb, create_game, spawn_app};
use postplay::bots::{BotWorker, TICK};
use postplay::engine::{BotLevel, Seed};
use postplay::store::{NewSeat, PlayerName};
use serde_json::{Value, json};
use std::sync::Arc;

/// Starts a bots' worker over the test's database; dropping the sender stops it.
fn start_bots(db: &TestDb) -> tokio::sync::watch::Sender<bool> {
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let worker = BotWorker::new(Arc::new(db.store.clone_handle()), 1);
    actix_web::rt::spawn(async move { worker.run(TICK, stopped).await });
    stop
}

/// The real app with `hints` hints a seat an hour; its base URL.
fn spawn_with_hints(db: &TestDb, hints: u32) -> String {
    let settings = postplay::config::WebSettings {
        hints_per_hour: hints,
        ..postplay::config::WebSettings::default()
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let store = Arc::new(db.store.clone_handle());
    let server = postplay::web::start_with(store, base.clone(), listener, None, settings).unwrap();
    actix_web::rt::spawn(server);
    base
}

/// An Electoral College Combat game of Ann against a medium bot: (game id, Ann's token).
async fn practice_game(db: &TestDb) -> (i64, String) {
    let seats = vec![
        NewSeat {
            name: PlayerName::parse("Ann").unwrap(),
            email: None,
            bot: None,
        },
        NewSeat {
            name: PlayerName::parse("Bot").unwrap(),
            email: None,
            bot: Some(BotLevel::Medium),
        },
    ];
    let created = db
        .store
        .create_game("electoral-combat", &json!({}), &seats, Seed::from_number(5))
        .await
        .unwrap();
    (created.id, created.seat_tokens[0].clone())
}

/// Waits until Ann's seat has a move (the bot answers first when it is to move).
async fn anns_turn(base: &str, token: &str) {
    let ann = Visitor::new(base);
    until("Ann to have a move", PATIENCE, async || {
        let answer = ann.get(&format!("/api/play/{token}/choices")).await;
        let body: Value = serde_json::from_str(&answer.body).map_err(|e| e.to_string())?;
        match body["choices"].as_array() {
            Some(c) if !c.is_empty() => Ok(()),
            _ => Err(answer.body),
        }
    })
    .await;
}

async fn hints_counted(db: &TestDb) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM hints")
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

/// A club of Ann and Bo, and a game of theirs in it (a club's game is rated): (id, tokens).
async fn club_game(db: &TestDb) -> (i64, Vec<String>) {
    let (id, tokens) = create_game(db, "electoral-combat", &["Ann", "Bo"], 6).await;
    let ann = db
        .store
        .account_for_email(
            &postplay::store::EmailAddress::parse("ann@example.org").unwrap(),
            &PlayerName::parse("Ann").unwrap(),
        )
        .await
        .unwrap()
        .id;
    let club: i64 = sqlx::query_scalar(
        "INSERT INTO clubs (name, private, created_by, created_at) \
         VALUES ('Tuesday club', true, $1, now()) RETURNING id",
    )
    .bind(ann)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    sqlx::query("UPDATE games SET club_id = $2 WHERE id = $1")
        .bind(id)
        .bind(club)
        .execute(db.store.pool())
        .await
        .unwrap();
    (id, tokens)
}

#[actix_web::test]
async fn a_seat_against_a_bot_gets_the_medium_bots_move_in_json_and_may_play_it() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let _bots = start_bots(&db);
    let (_, token) = practice_game(&db).await;
    anns_turn(&base, &token).await;
    let ann = Visitor::new(&base);
    let answer = ann.get(&format!("/api/play/{token}/hint")).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let hint: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(hint["bot"], "medium");
    let words = hint["words"].as_str().unwrap();
    assert!(
        words.starts_with("The medium bot, looking only at what you can see, would play: "),
        "{words}"
    );
    assert!(words.contains(hint["move"].as_str().unwrap()), "{words}");
    let playouts = hint["playouts"].as_u64().unwrap();
    if hint["candidates"].as_u64().unwrap() > 1 {
        assert_eq!(playouts, 300, "{hint}");
        let chance = hint["win_chance"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&chance), "{hint}");
        assert!(
            words.contains(&format!("about {}%", (chance * 100.0).round() as i64)),
            "{words}"
        );
    }
    assert_eq!(hint["hints_left"], 19, "the default bound is 20 an hour");
    assert_eq!(hints_counted(&db).await, 1);
    // The hinted move is one the seat may play, as it is.
    let mut played = awc::Client::default()
        .post(format!("{base}/api/play/{token}/commands"))
        .insert_header(("Content-Type", "application/json"))
        .send_body(json!({"command": hint["command"], "expected_seq": hint["seq"]}).to_string())
        .await
        .unwrap();
    let body = played.body().await.unwrap();
    assert!(
        played.status().is_success(),
        "{}",
        String::from_utf8_lossy(&body)
    );
}

#[actix_web::test]
async fn a_game_without_a_bot_and_a_club_game_refuse_hints_and_count_nothing() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let visitor = Visitor::new(&base);
    let (_, people) = create_game(&db, "electoral-combat", &["Cy", "Di"], 7).await;
    let (_, rated) = club_game(&db).await;
    for (tokens, reason) in [
        (&people, "no bot plays in this game"),
        (&rated, "a club's game, which is rated"),
    ] {
        for token in tokens {
            let answer = visitor.get(&format!("/api/play/{token}/hint")).await;
            assert_eq!(answer.status, 403, "{}", answer.body);
            let body: Value = serde_json::from_str(&answer.body).unwrap();
            let error = body["error"].as_str().unwrap();
            assert!(
                error.starts_with("hints are given only in practice games with a bot")
                    && error.contains(reason),
                "{error}"
            );
            let page = visitor.get(&format!("/play/{token}")).await;
            assert_eq!(page.status, 200);
            assert!(
                !page.body.contains("What would the bot do?"),
                "no hint is offered: {}",
                page.body
            );
            let posted = visitor
                .post_from(
                    &format!("/play/{token}"),
                    &format!("/play/{token}/hint"),
                    &[],
                )
                .await;
            assert_eq!(posted.status, 403, "{}", posted.body);
            assert!(posted.body.contains("No hint: hints are given only"));
        }
    }
    let unknown = visitor
        .get(&format!("/api/play/{}/hint", "0".repeat(40)))
        .await;
    assert_eq!(unknown.status, 401);
    assert_eq!(
        hints_counted(&db).await,
        0,
        "a refused request counts nothing"
    );
}

#[actix_web::test]
async fn over_the_bound_a_seat_is_told_when_its_next_hint_is_allowed() {
    let db = TestDb::new().await;
    let base = spawn_with_hints(&db, 2);
    let _bots = start_bots(&db);
    let (_, token) = practice_game(&db).await;
    anns_turn(&base, &token).await;
    let ann = Visitor::new(&base);
    let page = ann.get(&format!("/play/{token}")).await;
    assert!(
        page.body.contains("What would the bot do?") && page.body.contains("2 hints an hour"),
        "{}",
        page.body
    );
    let first = ann.get(&format!("/api/play/{token}/hint")).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let second = ann
        .post_from(
            &format!("/play/{token}"),
            &format!("/play/{token}/hint"),
            &[],
        )
        .await;
    assert_eq!(second.status, 200, "{}", second.body);
    assert!(
        second.body.contains("would play: ")
            && second.body.contains("That was your last hint this hour."),
        "{}",
        second.body
    );
    let asked: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT min(asked_at) FROM hints")
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    let third = ann.get(&format!("/api/play/{token}/hint")).await;
    assert_eq!(third.status, 429, "{}", third.body);
    let body: Value = serde_json::from_str(&third.body).unwrap();
    let next = asked + chrono::Duration::hours(1);
    assert_eq!(
        body["next_hint_at"].as_str().unwrap(),
        next.to_rfc3339(),
        "the next fits when the first leaves the hour"
    );
    let error = body["error"].as_str().unwrap();
    assert!(
        error.starts_with("you have had 2 hints for this seat this hour")
            && error.contains(&format!(
                "the next is allowed at {}",
                next.format("%H:%M UTC on %A %-d %B %Y")
            ))
            && error.contains("(in 1 hour)"),
        "{error}"
    );
    let on_page = ann
        .post_from(
            &format!("/play/{token}"),
            &format!("/play/{token}/hint"),
            &[],
        )
        .await;
    assert_eq!(on_page.status, 429);
    assert!(on_page.body.contains("No hint: you have had 2 hints"));
    assert_eq!(
        hints_counted(&db).await,
        2,
        "the refused ones count nothing"
    );
}
