//! Seats change hands in the open (issue 45, DESIGN.md "Seats change hands in the open"), over
//! real HTTP with mail through a real SMTP server: an organiser who gives a seat another address
//! is seen by every player at once and the old address is told, can write to the players and
//! take the seat back within a day; a renewed handover, a handover taken up and a club admin's
//! change are shown the same way.

use crate::common;
use crate::desk::{create, csrf_pair, get, mails_to, post, spawn, text};

use awc::Client;
use common::TestDb;
use common::mailrig::{expect_mail, play_token, quick, spawn_worker};
use common::mime::header;
use postplay::config::WebSettings;
use postplay::notices::mail::sink::{Received, SmtpSink};
use postplay::store::{Changer, CreatedGame};

/// The link to a seat change's page in a mail's text.
fn change_link(text: &str) -> String {
    text.split_whitespace()
        .find(|w| w.contains("/seat-change/"))
        .map(|w| w.trim_end_matches(['.', ',']).to_string())
        .unwrap_or_else(|| panic!("no seat-change link in {text}"))
}

/// A page's text with askama's escaped apostrophes and quotes read back.
async fn read(client: &Client, url: &str) -> (u16, String) {
    let (status, page) = get(client, url).await;
    (
        status,
        page.replace("&#x27;", "'")
            .replace("&#39;", "'")
            .replace("&#x22;", "\""),
    )
}

/// The CSRF token of a page and the cookie it set.
async fn page_csrf(client: &Client, url: &str) -> (String, String) {
    csrf_pair(client, url).await
}

/// A game of Ann and Bo (both with addresses) whose organiser has given Bo's seat the address
/// mallory@example.net at the desk, over HTTP; the five mails sent so far.
async fn bo_given_another_address(
    db: &TestDb,
    base: &str,
    sink: &SmtpSink,
    client: &Client,
    seed: u64,
) -> (CreatedGame, Vec<Received>) {
    let game = create(db, "electoral-combat", 2, 2, seed).await;
    expect_mail(sink, 3, 10).await;
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(client, &desk).await;
    let (status, _, _) = post(
        client,
        &format!("{desk}/address/1"),
        &cookie,
        &[("csrf", &csrf), ("email", "mallory@example.net")],
    )
    .await;
    assert_eq!(status, 303);
    let mails = expect_mail(sink, 5, 10).await;
    (game, mails)
}

#[actix_web::test]
async fn an_address_changed_at_the_desk_is_seen_by_every_player_and_the_old_address_takes_it_back()
{
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let client = Client::builder().disable_redirects().finish();
    // The organiser gives Bo's seat an address they read.
    let (game, mails) = bo_given_another_address(&db, &base, &sink, &client, 45).await;
    let ann_page = format!("{base}/play/{}", game.seat_tokens[0]);
    let desk = format!("{base}/manage/{}", game.organiser_token);

    // Every player sees it at once: Ann's page, the public page and log, the desk.
    let said = "The organiser gave Bo's seat a new address";
    let public = format!("{base}/games/{}", game.id);
    for url in [
        ann_page.clone(),
        public.clone(),
        format!("{public}/log"),
        desk.clone(),
    ] {
        let (status, page) = read(&client, &url).await;
        assert_eq!(status, 200, "{url}");
        assert!(
            page.contains("Who holds the seats") && page.contains(said),
            "{url}: {page}"
        );
        if url != desk {
            assert!(
                !page.contains("mallory"),
                "no address on a player's page: {url}"
            );
        }
    }

    // The JSON API says it too.
    let mut res = client
        .get(format!("{base}/api/play/{}/view", game.seat_tokens[0]))
        .send()
        .await
        .unwrap();
    let view: serde_json::Value = res.json().limit(1 << 22).await.unwrap();
    assert_eq!(view["seat_changes"][0]["kind"], "address", "{view}");
    assert!(
        view["seat_changes"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with(said)
    );

    // The old address is told at once, with where the seat goes (masked) and a link.
    let told = mails_to(&mails, "bo@example.org");
    assert_eq!(told.len(), 2, "the invitation, then the news");
    let news = text(told[1]);
    assert!(
        header(&told[1].data, "Subject")
            .unwrap()
            .contains("your seat now goes to another address"),
        "{}",
        told[1].data
    );
    assert!(
        news.contains("the organiser gave your seat") && news.contains("m…@e…"),
        "{news}"
    );
    assert!(news.contains("take the seat back until"), "{news}");
    let invitation = text(mails_to(&mails, "mallory@example.net")[0]);
    let mallory = play_token(&invitation).unwrap();
    let link = change_link(&news);
    let (status, page) = get(&client, &link).await;
    assert_eq!(status, 200);
    assert!(page.contains("Take my seat back") && page.contains("Tell the other players"));

    // Bo tells the other players; the organiser cannot hide it.
    let (csrf, cookie) = page_csrf(&client, &link).await;
    let (status, _, _) = post(
        &client,
        &format!("{link}/message"),
        &cookie,
        &[
            ("csrf", &csrf),
            ("text", "I did not ask for this: it is Bo."),
        ],
    )
    .await;
    assert_eq!(status, 303);
    let (_, page) = read(&client, &ann_page).await;
    assert!(page.contains("Bo's previous address"), "{page}");
    assert!(page.contains("I did not ask for this"), "{page}");
    let message: i64 = sqlx::query_scalar("SELECT id FROM game_messages WHERE game_id = $1")
        .bind(game.id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert!(
        !db.store
            .hide_message(game.id, message, "organiser")
            .await
            .unwrap(),
        "a previous address's warning cannot be hidden"
    );
    // A bad message changes nothing and keeps what was typed.
    let (status, page, _) = post(
        &client,
        &format!("{link}/message"),
        &cookie,
        &[("csrf", &csrf), ("text", "   ")],
    )
    .await;
    assert_eq!(status, 400, "{page}");

    // Bo takes the seat back: the new link goes to Bo, Mallory's ends, everyone sees it.
    let (status, _, _) = post(
        &client,
        &format!("{link}/reclaim"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 303);
    let email: Option<String> =
        sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = 1")
            .bind(game.id)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(email.as_deref(), Some("bo@example.org"));
    let (status, _) = get(&client, &format!("{base}/play/{mallory}")).await;
    assert_eq!(status, 404, "the taker's link ends with the reclaim");
    let mails = expect_mail(&sink, 7, 10).await;
    let back = mails_to(&mails, "bo@example.org");
    assert_eq!(back.len(), 3, "the reclaim mails Bo a new invitation");
    let bo = play_token(&text(back[2])).unwrap();
    let (status, _) = get(&client, &format!("{base}/play/{bo}")).await;
    assert_eq!(status, 200, "Bo's new link opens the seat");
    let lost = mails_to(&mails, "mallory@example.net");
    assert_eq!(lost.len(), 2, "the address that lost the seat is told too");
    assert!(
        !text(lost[1]).contains("take the seat back"),
        "a reclaim cannot be reclaimed: {}",
        text(lost[1])
    );
    let (_, page) = read(&client, &ann_page).await;
    assert!(page.contains("Bo's seat was taken back"), "{page}");

    // The link takes the seat back once.
    let (status, page, _) = post(
        &client,
        &format!("{link}/reclaim"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 409, "{page}");
    assert!(page.contains("taken back with this link already"), "{page}");
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn a_day_after_the_change_the_seat_can_no_longer_be_taken_back() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let sink = SmtpSink::start().await.unwrap();
    let worker = spawn_worker(&db, &base, sink.port(), quick());
    let client = Client::builder().disable_redirects().finish();
    let (game, mails) = bo_given_another_address(&db, &base, &sink, &client, 46).await;
    let link = change_link(&text(mails_to(&mails, "bo@example.org")[1]));
    // A day passes.
    sqlx::query("UPDATE seat_changes SET reclaim_until = now() - interval '1 minute'")
        .execute(db.store.pool())
        .await
        .unwrap();
    let (status, page) = get(&client, &link).await;
    assert_eq!(status, 200);
    assert!(!page.contains("Take my seat back"), "{page}");
    let (csrf, cookie) = page_csrf(&client, &link).await;
    let (status, page, _) = post(
        &client,
        &format!("{link}/reclaim"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 409);
    assert!(page.contains("can no longer be taken back"), "{page}");
    let email: Option<String> =
        sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = 1")
            .bind(game.id)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(
        email.as_deref(),
        Some("mallory@example.net"),
        "nothing changed"
    );
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn a_renewed_handover_and_its_take_up_are_shown_to_every_player() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let client = Client::builder().disable_redirects().finish();
    // Ann has an address; Bo's seat has none and is handed over by link.
    let game = create(&db, "electoral-combat", 2, 1, 47).await;
    let ann_page = format!("{base}/play/{}", game.seat_tokens[0]);
    let desk = format!("{base}/manage/{}", game.organiser_token);
    let (csrf, cookie) = csrf_pair(&client, &desk).await;
    let (status, _, set) = post(
        &client,
        &format!("{desk}/relink/1"),
        &cookie,
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(status, 303);
    let flash = set
        .iter()
        .find(|c| c.starts_with("pp_relinked="))
        .expect("the relink's note for the desk")
        .clone();
    let (_, page) = read(&client, &ann_page).await;
    assert!(
        page.contains("The organiser made a new handover link for Bo's seat"),
        "{page}"
    );
    let mut res = client
        .get(&desk)
        .insert_header(("Cookie", format!("{cookie}; {flash}")))
        .send()
        .await
        .unwrap();
    let desk_page = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
    let handover = desk_page
        .split("/take/")
        .nth(1)
        .and_then(|rest| rest.split(['"', '<', ' ']).next())
        .expect("the desk shows the new handover link")
        .to_string();
    let take = format!("{base}/take/{handover}");
    let (csrf, cookie) = page_csrf(&client, &take).await;
    let (status, _, _) = post(&client, &take, &cookie, &[("csrf", &csrf)]).await;
    assert_eq!(status, 200);
    let (_, page) = read(&client, &format!("{base}/games/{}/log", game.id)).await;
    assert!(
        page.contains("seat was taken up by its handover link"),
        "{page}"
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_club_admins_change_names_the_admin() {
    let db = TestDb::new().await;
    let base = spawn(&db, WebSettings::default());
    let client = Client::builder().disable_redirects().finish();
    let game = create(&db, "electoral-combat", 2, 2, 48).await;
    let mut tx = db.store.pool().begin().await.unwrap();
    let new = postplay::notices::EmailAddress::parse("dana@example.net").unwrap();
    db.store
        .rekey_seat_in(
            &mut tx,
            game.id,
            1,
            Some(&new),
            &Changer::ClubAdmin("Dana".into()),
        )
        .await
        .unwrap()
        .unwrap();
    tx.commit().await.unwrap();
    let (_, page) = read(&client, &format!("{base}/play/{}", game.seat_tokens[0])).await;
    assert!(
        page.contains("Dana, an admin of the club, gave Bo") && page.contains("seat a new address"),
        "{page}"
    );
    let told: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND recipient = 'bo@example.org' \
         AND kind = 'seat_change'",
    )
    .bind(game.id)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(told, 1, "the old address is told");
    db.drop().await;
}
