//! Issue 49: at phone size, with JavaScript off, a player of a practice game taps "What would
//! the bot do?" on their seat's page and reads the medium bot's move and its chance there.

use super::{Driver, visible_text};
use crate::common::{TestDb, spawn_app, wait};
use postplay::engine::{BotLevel, Seed};
use postplay::store::{NewSeat, PlayerName};
use serde_json::json;

#[actix_web::test]
async fn a_hint_is_asked_and_read_on_the_seats_page_at_phone_size() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (stop_bots, stopped) = tokio::sync::watch::channel(false);
    let bots = postplay::bots::BotWorker::new(std::sync::Arc::new(db.store.clone_handle()), 1);
    actix_web::rt::spawn(async move { bots.run(postplay::bots::TICK, stopped).await });
    let seats = [
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
        .create_game("electoral-combat", &json!({}), &seats, Seed::from_number(8))
        .await
        .unwrap();
    let id = created.id;
    let token = created.seat_tokens[0].clone();
    wait::until("Ann to have a move", wait::PATIENCE, async || {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.choices(0).is_empty() {
            Err(format!("awaited {:?}", loaded.game.active()))
        } else {
            Ok(())
        }
    })
    .await;
    let driver = Driver::start_with(false).await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/play/{token}")).await;
    let page = driver.source().await;
    assert!(
        page.contains("What would the bot do?"),
        "{}",
        visible_text(&page)
    );
    driver.click("#hint button").await;
    let page = driver
        .wait_source("the hint on the seat's page", |p| {
            p.contains("would play: ")
        })
        .await;
    let read = driver
        .script(
            "const p = document.querySelector('#hint p.hint');
             const r = p.getBoundingClientRect();
             return [p.innerText, r.left >= 0 && r.right <= window.innerWidth,
                     document.documentElement.scrollWidth <= window.innerWidth,
                     r.top < window.innerHeight && r.bottom > 0];",
        )
        .await;
    let text = read[0].as_str().unwrap();
    assert!(
        text.starts_with("The medium bot, looking only at what you can see, would play: "),
        "{text}"
    );
    assert!(
        text.contains("% (a draw counts half)") || text.contains("the only move open to you"),
        "{text}"
    );
    assert!(
        text.contains("You may ask 19 more hints this hour."),
        "{text}"
    );
    assert_eq!(
        (&read[1], &read[2], &read[3]),
        (&json!(true), &json!(true), &json!(true)),
        "the hint fits the phone's width and is on the screen after the tap: {}",
        visible_text(&page)
    );
    // The button is there again for the next question.
    assert!(page.contains("What would the bot do?"));
    let counted: i64 = sqlx::query_scalar("SELECT count(*) FROM hints WHERE game_id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(counted, 1);
    driver.screenshot("hint-phone").await;
    let _ = stop_bots.send(true);
    driver.stop().await;
    db.drop().await;
}
