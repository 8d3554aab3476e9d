//! Issue 49: after a game against a bot, at phone size, a player reads the replay's "Turning
//! points", taps the first one and lands on that move with its mark beside it.

use super::Driver;
use crate::common::{TestDb, set_bot_seed, wait};
use postplay::bots::{BotWorker, TICK};
use postplay::engine::bot::random_command;
use postplay::engine::{BotLevel, GameRng, Seed};
use postplay::review::Budget;
use postplay::review::effects::ReviewEffects;
use postplay::review::stored::{Status, status};
use postplay::review::worker::ReviewWorker;
use postplay::store::{NewSeat, PlayerName, Store};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

#[actix_web::test]
async fn the_turning_points_are_read_and_tapped_on_the_replay_at_phone_size() {
    let db = TestDb::new().await;
    let store = Arc::new(
        postplay::startup::store_on(
            db.store.pool().clone(),
            Arc::new(postplay::time::SystemClock),
        )
        .with_effect(Arc::new(ReviewEffects {
            mail_wait: Duration::ZERO,
        })),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    actix_web::rt::spawn(postplay::web::start(store.clone(), base.clone(), listener).unwrap());
    let seat = |name: &str, bot| NewSeat {
        name: PlayerName::parse(name).unwrap(),
        email: None,
        bot,
    };
    let created = store
        .create_game(
            "electoral-combat",
            &json!({}),
            &[seat("Ann", None), seat("Bot", Some(BotLevel::Easy))],
            Seed::from_number(49),
        )
        .await
        .unwrap();
    let id = created.id;
    // The game, and so its review, the same on every run (tests/server/review.rs).
    set_bot_seed(&store, id, Seed::from_number(50)).await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let bots = BotWorker::new(store.clone(), 1);
    let budget = Budget {
        playouts: 8,
        decisions: 6,
    };
    let reviews = ReviewWorker::new(store.clone(), bots.searches(), budget);
    let stopped_too = stopped.clone();
    actix_web::rt::spawn(async move { bots.run(TICK, stopped).await });
    actix_web::rt::spawn(async move { reviews.run(TICK, stopped_too).await });
    play_ann_at_random(&store, id).await;
    let first = wait::until(
        "the review's first turning point for Ann",
        wait::PATIENCE,
        async || match status(store.pool(), id).await.map_err(|e| e.to_string())? {
            Status::Done(review) => review.seats[0]
                .turning_points
                .first()
                .map(|p| p.seq)
                .ok_or_else(|| "Ann has no turning point".to_string()),
            other => Err(format!("{other:?}")),
        },
    )
    .await;

    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/games/{id}/replay")).await;
    let panel = driver
        .script(
            "const r = document.querySelector('#review');
             const b = r.getBoundingClientRect();
             return [r.querySelector('h2').innerText, r.querySelectorAll('li').length,
                     b.left >= 0 && b.right <= window.innerWidth,
                     document.documentElement.scrollWidth <= window.innerWidth];",
        )
        .await;
    assert_eq!(panel[0], "Turning points");
    assert!(panel[1].as_u64().unwrap() >= 1, "{panel:?}");
    assert_eq!(panel[2], true, "the panel fits the phone's width");
    assert_eq!(panel[3], true, "no sideways scrolling");

    driver.click("#review li a").await;
    let page = driver
        .wait_source("the replay at the turning point", |p| {
            p.contains(&format!("Move <b>{first}</b> of"))
        })
        .await;
    assert!(page.contains("Turning point for Ann."), "{page}");
    let mark = driver
        .script(
            "const m = document.querySelector('#turning-point-here');
             const b = m.getBoundingClientRect();
             const here = document.querySelector('#review li.here');
             return [m.innerText, b.left >= 0 && b.right <= window.innerWidth,
                     here !== null && here.innerText.startsWith('Move '),
                     document.documentElement.scrollWidth <= window.innerWidth];",
        )
        .await;
    assert!(
        mark[0]
            .as_str()
            .unwrap()
            .starts_with("Turning point for Ann."),
        "{mark:?}"
    );
    assert_eq!(mark[1], true, "the mark fits the phone's width");
    assert_eq!(mark[2], true, "the list marks the move shown");
    assert_eq!(mark[3], true, "no sideways scrolling");
    driver.screenshot("review-phone").await;
    driver.stop().await;
    let _ = stop.send(true);
    db.drop().await;
}

/// Ann moves at random through the store whenever it is her turn; the bot answers by itself.
async fn play_ann_at_random(store: &Store, id: i64) {
    let mut rng = GameRng::new(&Seed::from_number(49), 0);
    loop {
        let loaded = wait::until("Ann's turn or the game's end", wait::PATIENCE, async || {
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
            return;
        }
        let command = random_command(loaded.game.as_ref(), 0, &mut rng).unwrap();
        store
            .submit(id, 0, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}
