//! Fair deals (issue 50, docs/FAIRNESS.md) through the real server and the real `postplay
//! verify`: a lobby game's deal drawn from a published batch and mixed with a player's words,
//! hidden while it runs, verified at the end; altered derivations refused; a skipped seed
//! shown as a gap on /fairness.

use crate::common::{self, TestDb, scratch::Scratch, spawn_app};
use awc::Client;
use postplay::engine::{Record, Seed, Viewer};
use postplay::store::{EmailAddress, NewSeat, PlayerName, new_token};
use serde_json::Value;
use std::process::{Command, Output};

struct Http {
    client: Client,
    base: String,
    csrf: String,
}

impl Http {
    async fn send(
        &self,
        path: &str,
        session: &str,
        form: Option<&[(&str, &str)]>,
    ) -> (u16, String) {
        let cookie = format!("pp_csrf={}; pp_session={session}", self.csrf);
        let url = format!("{}{path}", self.base);
        let mut res = match form {
            None => {
                self.client
                    .get(url)
                    .insert_header(("Cookie", cookie))
                    .send()
                    .await
            }
            Some(fields) => {
                let mut all = vec![("csrf", self.csrf.as_str())];
                all.extend_from_slice(fields);
                let body: String = form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(all)
                    .finish();
                self.client
                    .post(url)
                    .insert_header(("Cookie", cookie))
                    .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
                    .send_body(body)
                    .await
            }
        }
        .unwrap();
        let body = res.body().limit(4 << 20).await.unwrap();
        (
            res.status().as_u16(),
            String::from_utf8_lossy(&body).into_owned(),
        )
    }
}

async fn session(db: &TestDb, name: &str) -> String {
    let email = EmailAddress::parse(&format!("{}@example.org", name.to_lowercase())).unwrap();
    let account = db
        .store
        .account_for_email(&email, &PlayerName::parse(name).unwrap())
        .await
        .unwrap();
    db.store.start_session(account.id).await.unwrap()
}

fn verify(dir: &Scratch, name: &str, record: &Record) -> Output {
    verify_with(dir, name, record, &[])
}

/// `postplay verify` of `record` with `extra` arguments (`--fairness FILE`).
fn verify_with(dir: &Scratch, name: &str, record: &Record, extra: &[&str]) -> Output {
    let file = dir.join(name);
    std::fs::write(&file, serde_json::to_vec_pretty(record).unwrap()).unwrap();
    Command::new(env!("CARGO_BIN_EXE_postplay"))
        .args(["verify", file.to_str().unwrap()])
        .args(extra)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[actix_web::test]
async fn a_lobby_game_is_dealt_from_the_published_batch_and_its_record_verifies() {
    let db = TestDb::new().await;
    let http = Http {
        client: Client::builder().disable_redirects().finish(),
        base: spawn_app(&db),
        csrf: new_token(),
    };
    let (ann, bo) = (session(&db, "Ann").await, session(&db, "Bo").await);
    let (status, body) = http
        .send(
            "/lobby/new/statehood",
            &ann,
            Some(&[
                ("players", "2"),
                ("sit", "true"),
                ("seating", "random"),
                ("opt_target", "1"),
                ("clock", "none"),
            ]),
        )
        .await;
    assert_eq!(status, 303, "{body}");
    let table: i64 = sqlx::query_scalar("SELECT max(id) FROM open_tables")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let (_, page) = http.send(&format!("/lobby/{table}"), &bo, None).await;
    assert!(page.contains("Nobody chooses the deal"), "{page}");
    assert!(page.contains("name=\"contribution\""), "{page}");
    let (status, body) = http
        .send(
            &format!("/lobby/{table}/join"),
            &bo,
            Some(&[("contribution", "  blue kettle at dawn ")]),
        )
        .await;
    assert_eq!(status, 303, "{body}");
    let game: i64 = sqlx::query_scalar("SELECT game_id FROM open_tables WHERE id = $1")
        .bind(table)
        .fetch_one(db.store.pool())
        .await
        .unwrap();

    // Published: the batch's root, its first seed taken by this game, no gap; never a seed.
    let (status, json) = http.send("/fairness.json", &ann, None).await;
    assert_eq!(status, 200);
    let published: Value = serde_json::from_str(&json).unwrap();
    let batch = &published["batches"][0];
    let root = batch["root"].as_str().unwrap().to_string();
    assert_eq!(batch["size"], 1024);
    assert_eq!(
        batch["used"],
        serde_json::json!([{"index": 0, "game": game}])
    );
    assert_eq!(batch["gaps"], serde_json::json!([]));
    let row = db.store.load(game).await.unwrap().row;
    let committed: Vec<u8> = sqlx::query_scalar("SELECT seed FROM batch_seeds WHERE idx = 0")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    for secret in [row.seed.to_hex(), hex::encode(&committed)] {
        assert!(!json.contains(&secret), "/fairness shows no seed");
    }

    // While it runs, no record shows the deal or a seed.
    for viewer in [Viewer::Spectator, Viewer::Seat(0), Viewer::Seat(1)] {
        let record = db.store.export(game, viewer).await.unwrap();
        assert!(record.deal.is_none() && record.seed.is_none(), "{viewer:?}");
    }

    common::play_until(&db, game, 3, |_| false).await;
    let record = db.store.export(game, Viewer::Spectator).await.unwrap();
    let deal = record
        .deal
        .clone()
        .expect("a finished game's record carries its deal");
    assert_eq!(deal.batch_root, root);
    assert_eq!(deal.index, 0);
    assert_eq!(deal.committed_seed.0.to_vec(), committed);
    assert_eq!(deal.contributions.len(), 1);
    assert_eq!(deal.contributions[0].from, "Bo");
    assert_eq!(deal.contributions[0].value, "blue kettle at dawn");

    let dir = Scratch::new("fairness");
    let out = verify(&dir, "game.json", &record);
    assert!(out.status.success(), "{}", text(&out));
    let line = format!(
        "deal: seed 0 of the batch {root} published {}, mixed with 1 player contribution (Bo)",
        deal.published_at
    );
    assert!(text(&out).contains(&line), "{}", text(&out));

    // Moved to another server, the game keeps how its deal was derived.
    let imported = db.store.import(&record).await.unwrap();
    let again = db
        .store
        .export(imported.id, Viewer::Spectator)
        .await
        .unwrap();
    assert_eq!(again.deal, record.deal, "an import keeps the deal");
    let out = verify(&dir, "imported.json", &again);
    assert!(text(&out).contains(&line), "{}", text(&out));

    // Any altered input is refused, naming why.
    let mut altered = record.clone();
    altered.deal.as_mut().unwrap().contributions[0].value = "red kettle at dawn".into();
    let out = verify(&dir, "altered.json", &altered);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("an input was altered"),
        "{}",
        text(&out)
    );

    let mut moved = record.clone();
    moved.deal.as_mut().unwrap().index = 1;
    let out = verify(&dir, "moved.json", &moved);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("is not seed 1 of the published batch"),
        "{}",
        text(&out)
    );

    let mut other_root = record.clone();
    other_root.deal.as_mut().unwrap().batch_root = Seed::from_number(9).to_hex();
    let out = verify(&dir, "root.json", &other_root);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    db.drop().await;
}

#[actix_web::test]
async fn a_skipped_seed_shows_as_a_gap_on_the_fairness_page() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http {
        client: Client::builder().disable_redirects().finish(),
        base,
        csrf: new_token(),
    };
    let ann = session(&db, "Ann").await;
    let seats = |names: [&str; 2]| {
        names
            .iter()
            .map(|n| NewSeat {
                name: PlayerName::parse(n).unwrap(),
                email: None,
                bot: None,
            })
            .collect::<Vec<_>>()
    };
    let drawn = || postplay::store::DealFrom::Drawn(Vec::new());
    let first = db
        .store
        .create_game(
            "statehood",
            &serde_json::json!({"target": 1}),
            &seats(["Ann", "Bo"]),
            drawn(),
        )
        .await
        .unwrap();
    // A host who takes a seed without a game cannot hide it.
    sqlx::query("UPDATE seed_batches SET next_index = next_index + 1")
        .execute(db.store.pool())
        .await
        .unwrap();
    let third = db
        .store
        .create_game(
            "statehood",
            &serde_json::json!({"target": 1}),
            &seats(["Cy", "Di"]),
            drawn(),
        )
        .await
        .unwrap();
    let (_, json) = http.send("/fairness.json", &ann, None).await;
    let published: Value = serde_json::from_str(&json).unwrap();
    let batch = &published["batches"][0];
    assert_eq!(
        batch["used"],
        serde_json::json!([{"index": 0, "game": first.id}, {"index": 2, "game": third.id}])
    );
    assert_eq!(batch["gaps"], serde_json::json!([1]));
    let (status, page) = http.send("/fairness", &ann, None).await;
    assert_eq!(status, 200);
    assert!(page.contains("Nobody chooses the cards"), "{page}");
    assert!(page.contains("Skipped: 1."), "{page}");

    // A player who archived /fairness.json has `verify` refuse the later game's deal, and
    // confirm the earlier one's.
    let dir = Scratch::new("fairness-gap");
    let archive = dir.join("fairness.json");
    std::fs::write(&archive, &json).unwrap();
    let archive = archive.to_str().unwrap();
    for (game, seed) in [(first.id, 3), (third.id, 4)] {
        common::play_until(&db, game, seed, |_| false).await;
    }
    let record = db.store.export(first.id, Viewer::Spectator).await.unwrap();
    let out = verify_with(&dir, "first.json", &record, &["--fairness", archive]);
    assert!(out.status.success(), "{}", text(&out));
    let line = format!(
        "seed 0 taken by game #{}, with no seed skipped before it",
        first.id
    );
    assert!(text(&out).contains(&line), "{}", text(&out));
    let record = db.store.export(third.id, Viewer::Spectator).await.unwrap();
    let out = verify(&dir, "third.json", &record);
    assert!(
        out.status.success(),
        "alone, the record holds: {}",
        text(&out)
    );
    let out = verify_with(&dir, "third.json", &record, &["--fairness", archive]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("seed 1 of the batch") && text(&out).contains("was skipped"),
        "{}",
        text(&out)
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_game_with_a_chosen_seed_verifies_and_says_its_deal_is_not_recorded() {
    let db = TestDb::new().await;
    let seats: Vec<NewSeat> = ["Ann", "Bo"]
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: None,
            bot: None,
        })
        .collect();
    let game = db
        .store
        .create_game(
            "statehood",
            &serde_json::json!({"target": 1}),
            &seats,
            Seed::from_number(4),
        )
        .await
        .unwrap();
    common::play_until(&db, game.id, 3, |_| false).await;
    let record = db.store.export(game.id, Viewer::Spectator).await.unwrap();
    assert!(record.deal.is_none());
    let dir = Scratch::new("fairness-old");
    let out = verify(&dir, "old.json", &record);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("deal: not recorded"), "{}", text(&out));
    db.drop().await;
}

#[actix_web::test]
async fn an_organisers_words_for_the_shuffle_go_into_the_deal_and_too_many_make_nothing() {
    let db = TestDb::new().await;
    let http = Http {
        client: Client::builder().disable_redirects().finish(),
        base: spawn_app(&db),
        csrf: new_token(),
    };
    let ann = session(&db, "Ann").await;
    let (_, form) = http.send("/new/statehood", &ann, None).await;
    assert!(
        form.contains("name=\"contribution\"") && form.contains("Nobody chooses the deal"),
        "{form}"
    );
    let games = async || -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM games")
            .fetch_one(db.store.pool())
            .await
            .unwrap()
    };
    let long = "w".repeat(201);
    let fields = |words: &'static str| {
        [
            ("name0", "Ann"),
            ("name1", "Bo"),
            ("opt_target", "1"),
            ("clock", "none"),
            ("contribution", words),
        ]
    };
    let long: &'static str = long.leak();
    let (status, page) = http.send("/new/statehood", &ann, Some(&fields(long))).await;
    assert_eq!(status, 422, "{page}");
    assert!(page.contains("at most 200 characters"), "{page}");
    assert!(
        page.contains("value=\"Ann\""),
        "the form keeps what was typed"
    );
    assert_eq!(games().await, 0, "a refused form makes nothing");
    let (status, page) = http
        .send("/new/statehood", &ann, Some(&fields("  tea at four ")))
        .await;
    assert_eq!(status, 303, "to the created page: {page}");
    let mixed: Value = sqlx::query_scalar("SELECT deal_contributions FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(
        mixed,
        serde_json::json!([{"from": "the organiser", "value": "tea at four"}])
    );
    db.drop().await;
}
