//! The account's own data (docs/ACCOUNTS.md, "Your data"): `/me/export` downloads it without a
//! secret or a hidden card, and `/me/close` closes the account — over real HTTP against the real
//! server and a real PostgreSQL.

use crate::common;
use crate::me::signed_in;

use common::visitor::Visitor;
use common::{TestDb, create_game_for, play_until, spawn_app};
use postplay::domain::{MessageText, WebhookKind, WebhookUrl};
use postplay::store::{Author, EmailAddress, PlayerName};

const ANN: &str = "ann@example.org";
const HOOK_PATH: &str = "g3nericPathE";

/// Ann's world: a finished game (Ann, Bo), a running one (Cy, Ann, Bo, Di) with a message
/// from her seat, an API token and a generic webhook; Ann signed in. Gives (finished, running
/// game with its seat tokens, Ann's visitor, her API token, the webhook's key).
struct World {
    finished: i64,
    running: i64,
    tokens: Vec<String>,
    ann: Visitor,
    api_token: String,
    hook_key: String,
}

async fn world(db: &TestDb, base: &str) -> World {
    let (finished, _) = create_game_for(db, "statehood", &["Ann", "Bo"], true, 31).await;
    play_until(db, finished, 31, |_| false).await;
    let (running, tokens) =
        create_game_for(db, "whitehouse", &["Cy", "Ann", "Bo", "Di"], true, 32).await;
    play_until(db, running, 32, |l| l.row.head_seq >= 2).await;
    db.store
        .post_message(
            running,
            Author::Seat(1),
            "",
            &MessageText::parse("good luck, all").unwrap(),
        )
        .await
        .unwrap();
    let ann = signed_in(base, db, ANN).await;
    let made = ann
        .post_from("/me/tokens", "/me/tokens", &[("label", "my bot")])
        .await;
    assert_eq!(made.status, 200);
    let at = made.body.find("<code>").unwrap() + 6;
    let api_token = made.body[at..at + 40].to_string();
    let account = db
        .store
        .account_for_email(
            &EmailAddress::parse(ANN).unwrap(),
            &PlayerName::parse("Ann").unwrap(),
        )
        .await
        .unwrap();
    let url =
        WebhookUrl::parse(&format!("https://hooks.example.net/in/{HOOK_PATH}"), false).unwrap();
    let (_, key) = db
        .store
        .add_webhook(account.id, WebhookKind::Generic, &url)
        .await
        .unwrap()
        .unwrap();
    World {
        finished,
        running,
        tokens,
        ann,
        api_token,
        hook_key: key.unwrap(),
    }
}

#[actix_web::test]
async fn the_export_holds_the_accounts_data_and_no_secret_nor_hidden_card() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let w = world(&db, &base).await;
    let got = w.ann.get("/me/export").await;
    assert_eq!(got.status, 200, "{}", got.body);
    let export: serde_json::Value = serde_json::from_str(&got.body).unwrap();
    assert_eq!(export["account"]["email"], ANN);
    assert_eq!(export["account"]["name"], "Ann");
    let games = export["games"].as_array().unwrap();
    let ids: Vec<i64> = games
        .iter()
        .map(|g| g["game_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![w.running, w.finished], "newest first");
    let running = &games[0];
    assert_eq!(running["seat"], 1);
    assert_eq!(running["status"], "running");
    assert_eq!(
        running["links"]["record"],
        format!("{base}/api/games/{}/export", w.running)
    );
    assert_eq!(games[1]["status"], "over");
    // Each link answers.
    for link in ["page", "log", "replay", "record"] {
        let url = running["links"][link].as_str().unwrap();
        let path = url.strip_prefix(&base).unwrap();
        assert_eq!(Visitor::new(&base).get(path).await.status, 200, "{link}");
    }
    let messages = export["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["body"], "good luck, all");
    assert_eq!(export["api_tokens"][0]["label"], "my bot");
    assert_eq!(export["webhooks"][0]["kind"], "generic");
    // No secret: not the API token, not the webhook's URL nor its key.
    for secret in [&w.api_token, &w.hook_key, &HOOK_PATH.to_string()] {
        assert!(
            !got.body.contains(secret.as_str()),
            "{secret} in {}",
            got.body
        );
    }
    // No card Ann's seats may not see.
    let state = db.store.load(w.running).await.unwrap().game.state_json();
    for card in common::hidden::hidden_from(&state, Some(1)) {
        assert!(
            !got.body.contains(&format!("\"{card}\"")),
            "hidden card {card} in {}",
            got.body
        );
    }
    db.drop().await;
}

/// Every place the database keeps text that holds `needle` (table.column).
async fn kept_anywhere(db: &TestDb, needle: &str) -> Vec<String> {
    let columns: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text, data_type::text \
         FROM information_schema.columns WHERE table_schema = 'public' \
         AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea')",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    let mut found = Vec::new();
    for (table, column, kind) in columns {
        let value = if kind == "bytea" {
            format!("encode(\"{column}\", 'escape')")
        } else {
            format!("\"{column}\"::text")
        };
        let sql = format!(
            "SELECT count(*) FROM \"{table}\" WHERE lower({value}) LIKE '%' || $1::text || '%'"
        );
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(needle)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
        if n > 0 {
            found.push(format!("{table}.{column}"));
        }
    }
    found
}

#[actix_web::test]
async fn closing_ends_every_key_forgets_the_address_and_tells_the_running_game() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let w = world(&db, &base).await;
    let other_device = signed_in(&base, &db, ANN).await;
    let page = w.ann.get("/me/close").await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("1 running game"), "{}", page.body);

    // A forged form, and one without its confirmation, close nothing.
    let forged = w
        .ann
        .post(
            "/me/close",
            &[("csrf", "forged"), ("names", "former"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(forged.status, 403);
    let unconfirmed = w
        .ann
        .post_from("/me/close", "/me/close", &[("names", "former")])
        .await;
    assert_eq!(unconfirmed.status, 400);
    assert!(unconfirmed.body.contains("Nothing was closed"));
    assert_eq!(other_device.get("/me/settings").await.status, 200);
    assert!(!kept_anywhere(&db, ANN).await.is_empty());

    let closed = w
        .ann
        .post_from(
            "/me/close",
            "/me/close",
            &[("names", "former"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(closed.status, 200, "{}", closed.body);
    assert!(
        closed.body.contains("Your account is closed"),
        "{}",
        closed.body
    );

    // Sign-in, tokens and webhooks have ended.
    assert_eq!(w.ann.get("/me/settings").await.status, 401);
    assert_eq!(other_device.get("/me/settings").await.status, 401);
    let bearer = format!("Bearer {}", w.api_token);
    assert_eq!(
        Visitor::new(&base)
            .get_bare("/api/me/games", &[("Authorization", &bearer)])
            .await
            .status,
        401
    );
    let hooks: i64 = sqlx::query_scalar("SELECT count(*) FROM webhooks")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(hooks, 0);
    // The address is nowhere in the database.
    assert_eq!(kept_anywhere(&db, ANN).await, Vec::<String>::new());

    // The finished game shows "a former player" where Ann was.
    let seats = db.store.seats(w.finished).await.unwrap();
    assert_eq!(seats[0].name, "a former player");
    let log = Visitor::new(&base)
        .get(&format!("/games/{}/log", w.finished))
        .await;
    assert!(log.body.contains("a former player"), "{}", log.body);

    // The running game's others are told, on their pages; Ann's link opens nothing now.
    let bo = Visitor::new(&base)
        .get(&format!("/play/{}", w.tokens[2]))
        .await;
    assert_eq!(bo.status, 200);
    assert!(
        bo.body
            .contains("player closed their account and left the game"),
        "{}",
        bo.body
    );
    assert!(
        bo.body.contains("I have closed my postplay account"),
        "{}",
        bo.body
    );
    let gone = Visitor::new(&base)
        .get(&format!("/play/{}", w.tokens[1]))
        .await;
    assert_ne!(gone.status, 200);
    let (email, owner): (Option<String>, Option<i64>) =
        sqlx::query_as("SELECT email, account_id FROM seats WHERE game_id = $1 AND seat = 1")
            .bind(w.running)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(
        (email, owner),
        (None, None),
        "the seat waits for a new address"
    );
    db.drop().await;
}

#[actix_web::test]
async fn closing_can_keep_the_name_in_finished_games() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let w = world(&db, &base).await;
    let closed = w
        .ann
        .post_from(
            "/me/close",
            "/me/close",
            &[("names", "keep"), ("confirm", "yes")],
        )
        .await;
    assert_eq!(closed.status, 200, "{}", closed.body);
    let seats = db.store.seats(w.finished).await.unwrap();
    assert_eq!(seats[0].name, "Ann");
    assert_eq!(kept_anywhere(&db, ANN).await, Vec::<String>::new());
    db.drop().await;
}
