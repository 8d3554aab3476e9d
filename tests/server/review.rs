//! A review after every finished game (issue 49, docs/BOTS.md "Review"): a short game of Ann
//! against an easy bot played to the end over HTTP, the review worked out by the real worker
//! loop, shown on the API and the replay page and summed up in the game-over mail (sent over
//! SMTP, held until the review is ready); and the bound on what one review spends.

use crate::common;

use common::mailrig::{quick, spawn_worker};
use common::mime::{header, part};
use common::wait::{PATIENCE, until};
use common::{TestDb, set_bot_seed};
use postplay::bots::{BotWorker, TICK};
use postplay::engine::bot::random_command;
use postplay::engine::{BotLevel, GameRng, Seed};
use postplay::notices::mail::sink::SmtpSink;
use postplay::review::compute::work_out;
use postplay::review::effects::ReviewEffects;
use postplay::review::stored::{self, Status};
use postplay::review::worker::ReviewWorker;
use postplay::review::{Budget, MIN_DROP, TURNING_POINTS};
use postplay::store::{EmailAddress, NewSeat, PlayerName, Store};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// The test database's store queueing reviews, the game-over mail waiting up to `wait`.
fn reviewing_store(db: &TestDb, wait: Duration) -> Arc<Store> {
    Arc::new(
        postplay::startup::store_on(
            db.store.pool().clone(),
            Arc::new(postplay::time::SystemClock),
        )
        .with_effect(Arc::new(ReviewEffects { mail_wait: wait })),
    )
}

/// The web app on `store`: its base URL.
fn spawn_app_on(store: Arc<Store>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    actix_web::rt::spawn(postplay::web::start(store, base.clone(), listener).unwrap());
    base
}

/// `GET {url}`: the status and the body.
async fn get(url: &str) -> (u16, String, Option<String>) {
    let mut res = awc::Client::default().get(url).send().await.unwrap();
    let retry = res
        .headers()
        .get("Retry-After")
        .map(|v| v.to_str().unwrap().to_string());
    let body = res.body().limit(1 << 22).await.unwrap();
    (
        res.status().as_u16(),
        String::from_utf8_lossy(&body).into_owned(),
        retry,
    )
}

fn seat(name: &str, email: Option<&str>, bot: Option<BotLevel>) -> NewSeat {
    NewSeat {
        name: PlayerName::parse(name).unwrap(),
        email: email.map(|e| EmailAddress::parse(e).unwrap()),
        bot,
    }
}

/// Checks a review's JSON against its budget: per seat at most `TURNING_POINTS`, ordered by
/// the drop, every estimate within 0..1, and no more weighed or spent than the bound.
fn check_shape(review: &Value, seats: usize, budget: Budget) {
    assert_eq!(review["seats"].as_array().unwrap().len(), seats, "{review}");
    assert_eq!(review["playouts_per_decision"], budget.playouts);
    assert_eq!(review["decisions_per_seat"], budget.decisions);
    let mut weighed = 0;
    for seat in review["seats"].as_array().unwrap() {
        let points = seat["turning_points"].as_array().unwrap();
        assert!(points.len() <= TURNING_POINTS, "{seat}");
        let n = seat["weighed"].as_u64().unwrap();
        assert!(n as usize <= budget.decisions && n <= seat["decisions"].as_u64().unwrap());
        weighed += n;
        let drops: Vec<f64> = points.iter().map(|p| p["drop"].as_f64().unwrap()).collect();
        assert!(
            drops.windows(2).all(|w| w[0] >= w[1]),
            "ordered by the drop: {drops:?}"
        );
        for p in points {
            let (before, after) = (p["before"].as_f64().unwrap(), p["after"].as_f64().unwrap());
            assert!(
                (0.0..=1.0).contains(&before) && (0.0..=1.0).contains(&after),
                "{p}"
            );
            assert!((before - after - p["drop"].as_f64().unwrap()).abs() < 1e-9);
            assert!(p["drop"].as_f64().unwrap() > MIN_DROP, "{p}");
            assert_ne!(p["played"], p["best"], "{p}");
            assert!(
                p["played"].is_string() && p["best_command"].is_object(),
                "{p}"
            );
            if let Some(open) = p["open"].as_object() {
                assert_ne!(
                    open["best_command"], p["best_command"],
                    "shown only when it differs"
                );
                let b = open["before"].as_f64().unwrap();
                assert!((0.0..=1.0).contains(&b), "{p}");
            }
        }
    }
    // One search per weighed decision, and one more with everything known per turning point.
    let points: u64 = review["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["turning_points"].as_array().unwrap().len() as u64)
        .sum();
    assert!(
        review["playouts"].as_u64().unwrap() <= (weighed + points) * u64::from(budget.playouts),
        "{review}"
    );
}

#[actix_web::test]
async fn a_finished_bot_game_is_reviewed_on_the_api_the_replay_and_in_the_mail() {
    let db = TestDb::new().await;
    let store = reviewing_store(&db, Duration::from_secs(60));
    let base = spawn_app_on(store.clone());
    let sink = SmtpSink::start().await.unwrap();
    let mail = spawn_worker(&db, &base, sink.port(), quick());
    let budget = Budget {
        playouts: 8,
        decisions: 6,
    };
    let created = store
        .create_game(
            "electoral-combat",
            &json!({}),
            &[
                seat("Ann", Some("ann@example.org"), None),
                seat("Bot", None, Some(BotLevel::Easy)),
            ],
            Seed::from_number(49),
        )
        .await
        .unwrap();
    let (id, link) = (created.id, created.seat_tokens[0].clone());
    // The whole game, and so its review, the same on every run: Ann's moves are drawn from a
    // fixed seed, and so, before the bots start, is the bot's (each game's own is drawn fresh).
    set_bot_seed(&store, id, Seed::from_number(50)).await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let bots = BotWorker::new(store.clone(), 1);
    let searches = bots.searches();
    let reviews = ReviewWorker::new(store.clone(), searches.clone(), budget);
    let stopped_too = stopped.clone();
    actix_web::rt::spawn(async move { bots.run(TICK, stopped).await });
    actix_web::rt::spawn(async move { reviews.run(TICK, stopped_too).await });
    let (status, body, _) = get(&format!("{base}/api/games/{id}/review")).await;
    assert_eq!(status, 404, "no review before the end: {body}");
    assert!(
        body.contains("\"running\"") && body.contains("not over"),
        "{body}"
    );

    // Ann plays at random over HTTP; the bot answers by itself.
    let client = awc::Client::default();
    let mut rng = GameRng::new(&Seed::from_number(49), 0);
    loop {
        let loaded = until("Ann's turn or the game's end", PATIENCE, async || {
            let loaded = store.load(id).await.map_err(|e| e.to_string())?;
            let active = loaded.game.active();
            if loaded.game.outcome().is_some() || (active.contains(&0) && !active.contains(&1)) {
                Ok(loaded)
            } else {
                Err(format!("head {}, awaited {active:?}", loaded.row.head_seq))
            }
        })
        .await;
        if loaded.game.outcome().is_some() {
            break;
        }
        let command = random_command(loaded.game.as_ref(), 0, &mut rng).unwrap();
        let res = client
            .post(format!("{base}/api/play/{link}/commands"))
            .insert_header(("Content-Type", "application/json"))
            .send_body(json!({"command": command, "expected_seq": loaded.row.head_seq}).to_string())
            .await
            .unwrap();
        assert!(res.status().is_success(), "{}", res.status());
    }

    // While it is worked out: 404 saying so; then the review.
    let review: Value = until("the review", PATIENCE, async || {
        let (status, body, retry) = get(&format!("{base}/api/games/{id}/review")).await;
        match status {
            200 => Ok(serde_json::from_str::<Value>(&body).unwrap()),
            404 => {
                assert!(
                    body.contains("\"pending\"") && body.contains("being worked out"),
                    "{body}"
                );
                assert_eq!(retry.as_deref(), Some("30"));
                Err(body)
            }
            _ => panic!("{status} {body}"),
        }
    })
    .await;
    check_shape(&review, 2, budget);
    let ann = &review["seats"][0];
    assert_eq!(ann["name"], "Ann");
    let points = ann["turning_points"].as_array().unwrap();
    assert!(!points.is_empty(), "Ann played at random: {review}");
    // Worked out again, the review is the same: it draws from the game's revealed seed.
    let again = work_out(&store, id, budget, &searches).await.unwrap();
    match stored::status(store.pool(), id).await.unwrap() {
        Status::Done(stored) => assert_eq!(*stored, again, "the same review again"),
        other => panic!("{other:?}"),
    }
    let first = &points[0];
    assert!(
        first["words"].as_str().unwrap().contains("Ann played"),
        "{first}"
    );

    // The replay marks every turning point, and the move shown when it is one.
    let seq = first["seq"].as_i64().unwrap();
    let (status, page, _) = get(&format!("{base}/games/{id}/replay?at={seq}")).await;
    assert_eq!(status, 200);
    assert!(
        page.contains("Turning points")
            && page.contains("Turning point for Ann.")
            && page.contains(&format!(">Move {seq}</a> (Ann)")),
        "{page}"
    );

    // The game-over mail waited for the review and sums up Ann's turning points.
    let over = until("Ann's game-over mail", PATIENCE, async || {
        sink.received()
            .into_iter()
            .find(|m| header(&m.data, "Subject").unwrap().ends_with(": game over"))
            .ok_or(format!("{} mails", sink.received().len()))
    })
    .await;
    let text = part(&over.data, "text/plain").unwrap();
    assert!(
        text.contains("Your turning points")
            && text.contains(&format!("Move {seq}: you played"))
            && text.contains(&format!("{base}/games/{id}/replay")),
        "{text}"
    );
    let _ = stop.send(true);
    mail.stop().await;
    db.drop().await;
}

/// An Electoral College Combat game between Ann and Bo played to its end at random: its id.
async fn finished_game(store: &Store) -> i64 {
    let created = store
        .create_game(
            "electoral-combat",
            &json!({}),
            &[seat("Ann", None, None), seat("Bo", None, None)],
            Seed::from_number(7),
        )
        .await
        .unwrap();
    let id = created.id;
    let mut rng = postplay::engine::bot::bot_rng(&Seed::from_number(7));
    loop {
        let loaded = store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let command = random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
    id
}

#[actix_web::test]
async fn a_review_spends_no_more_than_its_budget() {
    let db = TestDb::new().await;
    let store = reviewing_store(&db, Duration::ZERO);
    let base = spawn_app_on(store.clone());
    let id = finished_game(&store).await;
    let (status, body, retry) = get(&format!("{base}/api/games/{id}/review")).await;
    assert_eq!((status, retry.as_deref()), (404, Some("30")), "{body}");
    assert!(body.contains("\"pending\""), "{body}");

    let budget = Budget {
        playouts: 4,
        decisions: 2,
    };
    let worker = ReviewWorker::new(
        store.clone(),
        Arc::new(tokio::sync::Semaphore::new(1)),
        budget,
    );
    assert_eq!(worker.pass().await.unwrap(), Some(id));
    assert_eq!(worker.pass().await.unwrap(), None, "nothing more to review");
    let (status, body, _) = get(&format!("{base}/api/games/{id}/review")).await;
    assert_eq!(status, 200, "{body}");
    let review: Value = serde_json::from_str(&body).unwrap();
    check_shape(&review, 2, budget);
    for seat in review["seats"].as_array().unwrap() {
        assert!(
            seat["decisions"].as_u64().unwrap() > 2,
            "a whole game has more: {seat}"
        );
        assert_eq!(seat["weighed"], 2, "{seat}");
    }
    assert!(review["playouts"].as_u64().unwrap() <= 2 * (2 + 3) * 4);
    db.drop().await;
}

/// A review the store failed for (here its seats' table away, as the database is a moment in a
/// failover) stays pending and is tried again once its wait is over, not failed for good.
#[actix_web::test]
async fn a_review_the_store_failed_for_is_tried_again_later() {
    let db = TestDb::new().await;
    let store = reviewing_store(&db, Duration::ZERO);
    let base = spawn_app_on(store.clone());
    let id = finished_game(&store).await;
    let budget = Budget {
        playouts: 4,
        decisions: 2,
    };
    let worker = ReviewWorker::new(
        store.clone(),
        Arc::new(tokio::sync::Semaphore::new(1)),
        budget,
    );
    let pool = store.pool();
    sqlx::query("ALTER TABLE seats RENAME TO seats_away")
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(worker.pass().await.unwrap(), Some(id), "claimed, and tried");
    let (status, attempts, waits, error): (String, i32, Option<f64>, String) = sqlx::query_as(
        "SELECT status, attempts, extract(epoch FROM lease_until - now())::float8, error \
         FROM reviews WHERE game_id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!((status.as_str(), attempts), ("pending", 1), "{error}");
    assert!(error.contains("seats"), "why is kept: {error}");
    assert!(
        waits.is_some_and(|w| (20.0..=30.0).contains(&w)),
        "the next try in 30 s: {waits:?}"
    );
    let (code, body, _) = get(&format!("{base}/api/games/{id}/review")).await;
    assert_eq!(code, 404, "{body}");
    assert!(
        body.contains("\"pending\""),
        "still being worked out: {body}"
    );

    sqlx::query("ALTER TABLE seats_away RENAME TO seats")
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(
        worker.pass().await.unwrap(),
        None,
        "not before its wait is over"
    );
    sqlx::query("UPDATE reviews SET lease_until = now() WHERE game_id = $1")
        .bind(id)
        .execute(pool)
        .await
        .unwrap();
    assert_eq!(worker.pass().await.unwrap(), Some(id), "tried again");
    let (code, body, _) = get(&format!("{base}/api/games/{id}/review")).await;
    assert_eq!(code, 200, "{body}");
    check_shape(&serde_json::from_str(&body).unwrap(), 2, budget);
    db.drop().await;
}
