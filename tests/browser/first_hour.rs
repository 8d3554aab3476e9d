//! The first hour of a new organiser (issue 47), at phone size: a refused form keeps every
//! value typed and marks the field at fault; every created page stays on the browser that made
//! the game; a seat of one's own is taken in one tap; a signed-in creator finds each game's
//! desk on their own page; the header leads to Sign in, My games, Clubs and the Lobby.

use super::{Driver, sign_in_by_mail, visible_text, wait_for_url};
use crate::common::{TestDb, mailrig, spawn_app};
use serde_json::Value;

/// Every field of the create form as the browser holds it: `name=value` for text, selects
/// and number fields, `name:checked` for ticked boxes and radio buttons. The words for the
/// shuffle are left out: the browser fills an empty field with random bytes as it sends the
/// form, so they are the browser's, not typed.
async fn form_values(driver: &Driver) -> Vec<String> {
    let values = driver
        .script(
            "return [...document.querySelectorAll('form input, form select, form textarea')]
               .filter(e => e.name && e.name !== 'csrf' && e.name !== 'contribution')
               .map(e => (e.type === 'checkbox' || e.type === 'radio')
                 ? (e.checked ? `${e.name}:${e.value}:checked` : null)
                 : `${e.name}=${e.value}`)
               .filter(v => v !== null);",
        )
        .await;
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// The names of the fields marked at fault.
async fn faults(driver: &Driver) -> Value {
    driver
        .script("return [...document.querySelectorAll('[aria-invalid=true]')].map(e => e.name);")
        .await
}

/// How the custom clock's day fields are shown (`none` while hidden).
async fn shown(driver: &Driver) -> Value {
    driver
        .script("return getComputedStyle(document.querySelector('.custom-clock')).display;")
        .await
}

/// The header's links, by their words.
async fn header_links(driver: &Driver) -> Value {
    driver
        .script("return [...document.querySelectorAll('header a')].map(a => a.textContent.trim());")
        .await
}

#[actix_web::test]
async fn a_refused_create_form_keeps_everything_typed_and_marks_the_field_at_fault() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/new/whitehouse")).await;
    assert_eq!(
        header_links(&driver).await,
        serde_json::json!(["postplay", "My games", "Lobby", "Clubs", "Sign in"]),
        "signed out, the header leads everywhere a newcomer goes"
    );
    assert_eq!(
        shown(&driver).await,
        "none",
        "no custom days unless custom is chosen"
    );
    assert_eq!(
        driver
            .script("return document.querySelector('[name=name1]').maxLength;")
            .await,
        -1,
        "a name is never cut short by the browser without a word"
    );
    let long = "X".repeat(100);
    driver
        .script(&format!(
            "const set = (name, value) => document.querySelector(`[name=${{name}}]`).value = value;
             set('name0', 'Ann'); set('email0', 'ann@example.org');
             set('name1', '{long}'); set('email1', 'bo@example.org');
             set('name2', 'Cy'); set('name3', 'Di');
             set('organiser_email', 'org@example.org');
             set('clock', 'custom');
             set('clock_initial', '5'); set('clock_increment', '2'); set('clock_cap', '9');
             set('time_zone', 'Europe/Paris'); set('on_timeout', 'forfeit');
             document.querySelector('[name=weekend_pause]').checked = true;
             document.querySelector('[name=vacation]').checked = false;
             document.querySelector('[name=order][value=fixed]').checked = true;
             document.querySelector('[name=spectators_write]').checked = true;
             const option = document.querySelector('select[name^=opt_]');
             if (option) option.value = option.options[option.options.length - 1].value;"
        ))
        .await;
    assert_eq!(
        shown(&driver).await,
        "block",
        "custom days once custom is chosen"
    );
    let typed = form_values(&driver).await;
    driver.click("form button.primary").await;
    let page = driver
        .wait_source("the form again, refused", |p| {
            p.contains("Nothing was made yet")
        })
        .await;
    let text = visible_text(&page);
    assert!(
        text.contains("a name is at most 40 characters; this one has 100"),
        "{text}"
    );
    assert_eq!(form_values(&driver).await, typed, "every value as typed");
    assert_eq!(faults(&driver).await, serde_json::json!(["name1"]));
    driver.screenshot("first-hour-form-refused").await;

    // Another refusal, at another field: the first fix kept, the new fault marked.
    driver
        .script(
            "document.querySelector('[name=name1]').value = 'Bo';
             document.querySelector('[name=email2]').value = 'cy@example';",
        )
        .await;
    let typed = form_values(&driver).await;
    driver.click("form button.primary").await;
    driver
        .wait_source("the form refused at the address", |p| {
            p.contains("Nothing was made yet") && p.contains("value=\"cy@example\"")
        })
        .await;
    assert_eq!(form_values(&driver).await, typed);
    assert_eq!(faults(&driver).await, serde_json::json!(["email2"]));

    // No names at all: said in words, the empty seats marked.
    driver
        .script(
            "for (let i = 0; i < 4; i++) {
               document.querySelector(`[name=name${i}]`).value = '';
               document.querySelector(`[name=email${i}]`).value = '';
             }",
        )
        .await;
    driver.click("form button.primary").await;
    let page = driver
        .wait_source("the form refused for want of players", |p| {
            p.contains("give 4 more seats")
        })
        .await;
    assert!(
        visible_text(&page)
            .contains("Whitehouse is for exactly 4 players: give 4 more seats a name or a bot"),
        "{}",
        visible_text(&page)
    );
    assert_eq!(
        faults(&driver).await,
        serde_json::json!(["name0", "name1", "name2", "name3"])
    );
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(games, 0, "no refused form made a game");
    driver.stop().await;
    db.drop().await;
}

/// Makes a game of `kind` from the form with the players `names`, seats in the order given;
/// the created page's address.
async fn make_game(driver: &Driver, base: &str, kind: &str, names: &[&str]) -> String {
    driver.goto(&format!("{base}/new/{kind}")).await;
    for (i, name) in names.iter().enumerate() {
        driver
            .script(&format!(
                "document.querySelector('[name=name{i}]').value = '{name}';"
            ))
            .await;
    }
    driver
        .script("document.querySelector('[name=order][value=fixed]').checked = true;")
        .await;
    driver.click("form button.primary").await;
    wait_for_url(driver, "/created/").await
}

#[actix_web::test]
async fn a_signed_in_creator_keeps_every_created_page_takes_a_seat_in_one_tap_and_finds_the_desks()
{
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = postplay::notices::mail::sink::SmtpSink::start()
        .await
        .unwrap();
    let worker = mailrig::spawn_worker(&db, &base, sink.port(), mailrig::quick());
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    sign_in_by_mail(&driver, &base, &sink, "ann@example.org", "Ann").await;
    assert_eq!(
        header_links(&driver).await,
        serde_json::json!(["postplay", "My games", "Lobby", "Clubs", "Settings"]),
        "signed in, the header offers the settings instead"
    );
    let first = make_game(&driver, &base, "electoral-combat", &["Ann", "Bo"]).await;
    let second = make_game(&driver, &base, "electoral-combat", &["Cy", "Di"]).await;
    let third = make_game(&driver, &base, "electoral-combat", &["Eve", "Fay"]).await;
    assert!(first != second && second != third);

    // Game 1's page, two games later: still there, on this browser.
    driver.goto(&first).await;
    let page = driver
        .wait_source("the first game's created page", |p| p.contains("is ready"))
        .await;
    let text = visible_text(&page);
    assert!(
        text.contains("This seat is mine") && text.contains("do not open it yourself"),
        "it says which link is whose: {text}"
    );
    driver.screenshot("first-hour-created-phone").await;
    let wide = driver
        .script("return [document.documentElement.scrollWidth, window.innerWidth];")
        .await;
    assert!(wide[0].as_i64() <= wide[1].as_i64(), "{wide}");

    // Ann plays in it: one tap on her row opens her seat.
    driver
        .click("li:first-child form[action*='/take/'] button")
        .await;
    wait_for_url(&driver, "/play/").await;
    let seat = driver.source().await;
    assert!(
        visible_text(&seat).contains("Ann"),
        "{}",
        visible_text(&seat)
    );
    driver.goto(&first).await;
    let page = driver
        .wait_source("the created page after the seat was taken", |p| {
            p.contains("the one-time link was taken up")
        })
        .await;
    assert_eq!(
        page.matches("form method=\"post\" action=\"").count(),
        1,
        "only Bo's link is left to give"
    );

    // On My games: the three games Ann organises, each with its desk.
    driver.goto(&format!("{base}/me")).await;
    let me = driver
        .wait_source("My games", |p| p.contains("Games you organise"))
        .await;
    assert_eq!(
        me.matches("/me/organised/").count(),
        3,
        "{}",
        visible_text(&me)
    );
    assert!(
        me.contains("href=\"/clubs\""),
        "My games leads to the clubs"
    );
    let id: i64 = first.rsplit('/').next().unwrap().parse().unwrap();
    driver.click(&format!("a[href='/me/organised/{id}']")).await;
    wait_for_url(&driver, &format!("/me/organised/{id}")).await;
    let desk = driver.source().await;
    assert!(
        visible_text(&desk).contains("Status:"),
        "{}",
        visible_text(&desk)
    );

    // Another account reads no desk of Ann's.
    sign_in_by_mail(&driver, &base, &sink, "bo@example.org", "Bo").await;
    driver.goto(&format!("{base}/me/organised/{id}")).await;
    let other = driver.source().await;
    assert!(
        visible_text(&other).contains("Not found"),
        "{}",
        visible_text(&other)
    );
    driver.stop().await;
    worker.stop().await;
    db.drop().await;
}

/// Plays `id` through the store with random moves until it ends (or `limit` moves).
async fn play_on(db: &TestDb, id: i64, seed: u64, limit: usize) {
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    for _ in 0..limit {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command =
            postplay::engine::bot::fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

#[actix_web::test]
async fn the_small_words_read_right() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    // A game without options shows no empty "Options" box.
    driver.goto(&format!("{base}/new/votes-for-women")).await;
    let headings = driver
        .script("return [...document.querySelectorAll('h2')].map(h => h.textContent);")
        .await;
    assert!(
        !headings.as_array().unwrap().iter().any(|h| h == "Options"),
        "{headings}"
    );
    // One move is "1 move" at the desk (Whitehouse's first move is a bid, never forced).
    let created = make_game(&driver, &base, "whitehouse", &["Ann", "Bo", "Cy", "Di"]).await;
    let id: i64 = created.rsplit('/').next().unwrap().parse().unwrap();
    let desk = driver
        .script("return document.querySelector('a[href*=\"/manage/\"]').href;")
        .await;
    play_on(&db, id, 7, 1).await;
    assert_eq!(db.store.game(id).await.unwrap().unwrap().head_seq, 1);
    driver.goto(desk.as_str().unwrap()).await;
    let text = visible_text(&driver.source().await);
    assert!(text.contains("1 move."), "{text}");
    let created = make_game(&driver, &base, "electoral-combat", &["Ann", "Bo"]).await;
    let id: i64 = created.rsplit('/').next().unwrap().parse().unwrap();
    // At the game's end the hand line says so, never a dot before nothing.
    driver.goto(&created).await;
    driver
        .click("li:first-child form[action*='/take/'] button")
        .await;
    wait_for_url(&driver, "/play/").await;
    play_on(&db, id, 8, 2_000).await;
    driver.call("POST", "/refresh", None).await;
    let page = driver
        .wait_source("the game's end on Ann's page", |p| p.contains("12 of 12"))
        .await;
    assert!(
        page.contains("<dd>12 of 12 · the game is over</dd>"),
        "{}",
        visible_text(&page)
    );
    driver.stop().await;
    db.drop().await;
}
