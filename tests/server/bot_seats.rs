//! Practice bots in seats (issue 35): a person makes a game against bots from the create
//! form, takes up their seat and plays it to the end over HTTP while the bots' worker answers;
//! bad bot seats are refused and change nothing; several workers share the bots' games.

use crate::common;

use common::visitor::Visitor;
use common::wait::{PATIENCE, until};
use common::{TestDb, spawn_app};
use postplay::bots::{BotWorker, TICK};
use postplay::engine::bot::random_command;
use postplay::engine::{BotLevel, GameRng, Record, Seed};
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

async fn made_by(db: &TestDb, id: i64) -> Vec<(i32, Option<String>)> {
    sqlx::query_as("SELECT seat, made_by FROM commands WHERE game_id = $1 ORDER BY seq")
        .bind(id)
        .fetch_all(db.store.pool())
        .await
        .unwrap()
}

#[actix_web::test]
async fn a_person_plays_a_whole_game_against_a_bot_made_from_the_create_form() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let _bots = start_bots(&db);
    let ann = Visitor::new(&base);
    let form = ann.get("/new/electoral-combat").await;
    assert!(
        form.body.contains("name=\"bot1\"") && form.body.contains("bot, hard"),
        "the create form offers a bot for each seat: {}",
        form.body
    );
    let made = ann
        .post_from(
            "/new/electoral-combat",
            "/new/electoral-combat",
            &[
                ("name0", "Ann"),
                ("name1", ""),
                ("bot1", "easy"),
                ("order", "fixed"),
            ],
        )
        .await;
    assert_eq!(made.status, 303, "{}", made.body);
    let created = ann.get(made.location.as_deref().unwrap()).await;
    assert!(
        created.body.contains("Bot (easy)")
            && created.body.contains("a practice bot plays this seat"),
        "{}",
        created.body
    );
    assert_eq!(
        created.body.matches("/take/").count(),
        5,
        "one handover link, Ann's (the two \"this seat is mine\" buttons, its address, its text \
         and its copy button); none for the bot"
    );
    let handover = created.body.split("/take/").nth(1).unwrap()[..40].to_string();
    // The organiser's desk offers the bot's seat no link or address, and refuses one asked.
    let shown = ann
        .get(&format!(
            "/manage/{}",
            &created.body.split("/manage/").nth(1).unwrap()[..40]
        ))
        .await;
    assert!(
        shown.body.contains("a practice bot: no address, no link")
            && !shown.body.contains("/relink/1\"")
            && shown.body.contains("/relink/0\""),
        "{}",
        shown.body
    );
    let desk = format!(
        "/manage/{}",
        &created.body.split("/manage/").nth(1).unwrap()[..40]
    );
    for (action, fields) in [
        ("relink", vec![]),
        ("address", vec![("email", "eve@example.org")]),
    ] {
        let refused = ann
            .post_from(&desk, &format!("{desk}/{action}/1"), &fields)
            .await;
        assert!(
            (400..500).contains(&refused.status)
                && refused.body.contains("a practice bot plays this seat"),
            "{action}: {} {}",
            refused.status,
            refused.body
        );
    }
    let holders: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM seats WHERE seat = 1 AND (email IS NOT NULL OR handover_hash IS NOT NULL)",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(holders, 0, "the bot's seat stays nobody's");
    let taken = ann
        .post_from(
            &format!("/take/{handover}"),
            &format!("/take/{handover}"),
            &[],
        )
        .await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let link = taken.body.split("/play/").nth(1).unwrap()[..40].to_string();
    let id: i64 = sqlx::query_scalar("SELECT id FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let page = ann.get(&format!("/play/{link}")).await;
    assert!(
        page.body.contains("a practice game with bots: unrated"),
        "{}",
        page.body
    );

    // Ann plays at random; the bot answers by itself. Whenever the bot is awaited, its seat
    // has no clock running.
    let client = awc::Client::default();
    let mut rng = GameRng::new(&Seed::from_number(35), 0);
    let mut ann_moves = 0;
    loop {
        let loaded = until(
            "Ann's turn, the bot's done, or the game's end",
            PATIENCE,
            async || {
                let loaded = db.store.load(id).await.map_err(|e| e.to_string())?;
                let active = loaded.game.active();
                if active.contains(&1) {
                    let clocked: i64 = sqlx::query_scalar(
                        "SELECT count(*) FROM seat_clocks WHERE game_id = $1 AND seat = 1 \
                     AND (awaited_seq IS NOT NULL OR due_at IS NOT NULL)",
                    )
                    .bind(id)
                    .fetch_one(db.store.pool())
                    .await
                    .unwrap();
                    assert_eq!(clocked, 0, "a bot's seat has no clock");
                }
                // In a simultaneous step (Russian Collusion's signs) both seats are awaited: Ann
                // decides once the bot has sealed its sign, so her move answers the head she read.
                if loaded.game.outcome().is_some() || (active.contains(&0) && !active.contains(&1))
                {
                    Ok(loaded)
                } else {
                    Err(format!("head {}, awaited {active:?}", loaded.row.head_seq))
                }
            },
        )
        .await;
        if loaded.game.outcome().is_some() {
            break;
        }
        let command = random_command(loaded.game.as_ref(), 0, &mut rng).unwrap();
        let mut res = client
            .post(format!("{base}/api/play/{link}/commands"))
            .insert_header(("Content-Type", "application/json"))
            .send_body(json!({"command": command, "expected_seq": loaded.row.head_seq}).to_string())
            .await
            .unwrap();
        let body = res.body().await.unwrap();
        assert!(
            res.status().is_success(),
            "{}",
            String::from_utf8_lossy(&body)
        );
        ann_moves += 1;
        assert!(ann_moves < 5_000, "the game ends");
    }

    let entries = made_by(&db, id).await;
    let bot_moves = entries.iter().filter(|(seat, _)| *seat == 1).count();
    assert!(bot_moves > 0 && ann_moves > 0);
    for (seat, by) in &entries {
        match seat {
            // A move that was the seat's only one may be played for it ("auto").
            1 => assert!(
                matches!(by.as_deref(), Some("bot" | "auto")),
                "every bot entry is marked: {by:?}"
            ),
            _ => assert_ne!(by.as_deref(), Some("bot"), "Ann's entries are hers"),
        }
    }
    // The worker's next look takes the finished game off its list (the last move may be Ann's).
    until(
        "the finished game to leave the bots' work list",
        PATIENCE,
        async || {
            let left: i64 = sqlx::query_scalar("SELECT count(*) FROM bot_games")
                .fetch_one(db.store.pool())
                .await
                .unwrap();
            if left == 0 {
                Ok(())
            } else {
                Err(format!("{left} listed"))
            }
        },
    )
    .await;

    // The published record carries the marks in its hash chain and verifies.
    let export = ann.get(&format!("/api/games/{id}/export")).await;
    assert_eq!(export.status, 200, "{}", export.body);
    assert!(export.body.contains("\"by\":\"bot\""), "{}", export.body);
    let record: Record = serde_json::from_str(&export.body).unwrap();
    postplay::engine::audit::verify(postplay::games::ALL, &record, None)
        .expect("the record verifies");
    db.drop().await;
}

#[actix_web::test]
async fn bad_bot_seats_are_refused_and_change_nothing() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let org = Visitor::new(&base);
    let cases: [(&[(&str, &str)], &str); 3] = [
        (
            &[("bot0", "hard"), ("bot1", "easy")],
            "at least one seat must be a player",
        ),
        (&[("name0", "Ann"), ("bot1", "genius")], "no bot plays at"),
        (&[("name0", "Ann")], "seat"),
    ];
    for (fields, why) in cases {
        let answer = org
            .post_from("/new/electoral-combat", "/new/electoral-combat", fields)
            .await;
        assert_eq!(answer.status, 422, "{fields:?}: {}", answer.body);
        assert!(answer.body.contains(why), "{fields:?}: {}", answer.body);
    }
    let games: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(games, 0);

    // In the store: a bot has no address, and a game without a bot has none on its list.
    let bot_with_address = NewSeat {
        name: PlayerName::parse("Bot").unwrap(),
        email: Some(postplay::store::EmailAddress::parse("b@example.org").unwrap()),
        bot: Some(BotLevel::Easy),
    };
    let ann = NewSeat {
        name: PlayerName::parse("Ann").unwrap(),
        email: None,
        bot: None,
    };
    let refused = db
        .store
        .create_game(
            "electoral-combat",
            &Value::Null,
            &[ann.clone(), bot_with_address],
            Seed::from_number(1),
        )
        .await;
    assert!(
        refused
            .unwrap_err()
            .to_string()
            .contains("a bot's seat has no address")
    );
    let bo = NewSeat {
        name: PlayerName::parse("Bo").unwrap(),
        ..ann.clone()
    };
    db.store
        .create_game(
            "electoral-combat",
            &Value::Null,
            &[ann, bo],
            Seed::from_number(2),
        )
        .await
        .unwrap();
    let listed: i64 = sqlx::query_scalar("SELECT count(*) FROM bot_games")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(listed, 0);
    db.drop().await;
}

/// Two workers over one database, as two processes would be: every game is played to its end
/// by its bots and the players' random moves, and no bot move is made twice (the head each
/// bot decided from is named in its write).
#[actix_web::test]
async fn two_workers_share_the_bots_games() {
    let db = TestDb::new().await;
    let mut games = Vec::new();
    for n in 0..4u64 {
        let seats: Vec<NewSeat> = (0..4)
            .map(|seat| NewSeat {
                name: PlayerName::parse(if seat == 0 { "Ann" } else { "Bot" }).unwrap(),
                email: None,
                bot: (seat > 0).then_some(BotLevel::Random),
            })
            .collect();
        let created = db
            .store
            .create_game("whitehouse", &Value::Null, &seats, Seed::from_number(n))
            .await
            .unwrap();
        games.push(created.id);
    }
    let first = BotWorker::new(Arc::new(db.store.clone_handle()), 1);
    let second = BotWorker::new(Arc::new(db.store.clone_handle()), 1);
    let mut rng = GameRng::new(&Seed::from_number(7), 0);
    let mut rounds = 0;
    loop {
        let (a, b) = tokio::join!(first.pass(), second.pass());
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a.failures + b.failures, 0);
        let mut running = 0;
        for &id in &games {
            let loaded = db.store.load(id).await.unwrap();
            if loaded.game.outcome().is_some() {
                continue;
            }
            running += 1;
            if loaded.game.active().contains(&0) {
                let command = random_command(loaded.game.as_ref(), 0, &mut rng).unwrap();
                db.store
                    .submit(id, 0, &command, Some(loaded.row.head_seq))
                    .await
                    .unwrap();
            }
        }
        if running == 0 {
            break;
        }
        rounds += 1;
        assert!(rounds < 20_000, "the games end");
    }
    for id in games {
        let entries = made_by(&db, id).await;
        for (seat, by) in &entries {
            if *seat > 0 {
                assert!(matches!(by.as_deref(), Some("bot" | "auto")), "{by:?}");
            }
        }
        let record = db
            .store
            .export(id, postplay::engine::Viewer::Spectator)
            .await
            .unwrap();
        postplay::engine::audit::verify(postplay::games::ALL, &record, None)
            .expect("every record verifies");
    }
    db.drop().await;
}

/// A lobby table opened with two medium bots: the bots' places are taken from the start, the
/// one player who joins fills the table and its game starts with the bots in their seats; a
/// table of bots only and a club table with bots are refused.
#[actix_web::test]
async fn a_lobby_table_opened_with_bots_starts_when_one_player_joins() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let _bots = start_bots(&db);
    let signed_in = async |name: &str| {
        let email =
            postplay::store::EmailAddress::parse(&format!("{}@example.org", name.to_lowercase()))
                .unwrap();
        let account = db
            .store
            .account_for_email(&email, &PlayerName::parse(name).unwrap())
            .await
            .unwrap();
        let visitor = Visitor::new(&base);
        visitor.set_cookie(
            "pp_session",
            &db.store.start_session(account.id).await.unwrap(),
        );
        visitor
    };
    let cy = signed_in("Cy").await;
    let form = cy.get("/lobby/new/statehood").await;
    assert!(form.body.contains("name=\"bots\""), "{}", form.body);
    let refused = cy
        .post_from(
            "/lobby/new/statehood",
            "/lobby/new/statehood",
            &[("players", "3"), ("bots", "3"), ("bot_level", "easy")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(
        refused.body.contains("at least one seat for a player"),
        "{}",
        refused.body
    );
    let opened = cy
        .post_from(
            "/lobby/new/statehood",
            "/lobby/new/statehood",
            &[
                ("players", "4"),
                ("sit", "true"),
                ("bots", "2"),
                ("bot_level", "medium"),
                ("seating", "random"),
            ],
        )
        .await;
    assert_eq!(opened.status, 303, "{}", opened.body);
    let table = cy.get(opened.location.as_deref().unwrap()).await;
    assert_eq!(
        table.body.matches("Bot (medium)").count(),
        2,
        "{}",
        table.body
    );
    assert!(
        !table.body.contains("withdraw the invitation"),
        "{}",
        table.body
    );
    let id: i64 = sqlx::query_scalar("SELECT id FROM open_tables")
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let di = signed_in("Di").await;
    let joined = di
        .post_from(&format!("/lobby/{id}"), &format!("/lobby/{id}/join"), &[])
        .await;
    assert!(
        joined.status == 303 || joined.status == 200,
        "{}",
        joined.body
    );
    let game: i64 = sqlx::query_scalar("SELECT game_id FROM open_tables WHERE id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let seats = db.store.seats(game).await.unwrap();
    assert_eq!(
        seats
            .iter()
            .filter(|s| s.bot == Some(BotLevel::Medium))
            .count(),
        2
    );
    assert_eq!(seats.iter().filter(|s| s.email.is_some()).count(), 2);
    let listed: i64 = sqlx::query_scalar("SELECT count(*) FROM bot_games WHERE game_id = $1")
        .bind(game)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(listed, 1, "the started game is on the bots' work list");

    // A club's table takes no bots (its games are rated).
    let cy_account = db
        .store
        .account_for_email(
            &postplay::store::EmailAddress::parse("cy@example.org").unwrap(),
            &PlayerName::parse("Cy").unwrap(),
        )
        .await
        .unwrap();
    let club = db
        .store
        .create_club(
            &cy_account,
            &postplay::store::NewClub {
                name: postplay::domain::ClubName::parse("Tuesday club").unwrap(),
                description: postplay::domain::ClubDescription::parse("").unwrap(),
                private: false,
            },
        )
        .await
        .unwrap();
    let refused = db
        .store
        .open_table(
            &cy_account,
            &postplay::store::NewTable {
                creator_words: None,
                kind: "statehood".into(),
                options: json!({}),
                settings: json!({}),
                seat_count: 3,
                seating: postplay::domain::Seating::Random,
                creator_position: Some(0),
                expires_in: postplay::domain::ExpiryDays::parse("7").unwrap(),
                invites: Vec::new(),
                club_id: Some(club),
                bots: vec![BotLevel::Easy],
            },
        )
        .await;
    assert!(
        refused.unwrap_err().to_string().contains("bots sit only"),
        "a club table with bots is refused"
    );
    db.drop().await;
}

/// Every game can be played against bots through the server: a player moving at random and
/// easy bots in every other seat, the worker's passes answering, for a stretch of each game.
#[actix_web::test]
async fn every_game_is_played_against_bots_through_the_worker() {
    let db = TestDb::new().await;
    let worker = BotWorker::new(Arc::new(db.store.clone_handle()), 1);
    let mut rng = GameRng::new(&Seed::from_number(9), 0);
    for game in postplay::games::registry() {
        let seats: Vec<NewSeat> = (0..game.seat_counts().0)
            .map(|seat| NewSeat {
                name: PlayerName::parse(if seat == 0 { "Ann" } else { "Bot" }).unwrap(),
                email: None,
                bot: (seat > 0).then_some(BotLevel::Easy),
            })
            .collect();
        let id = db
            .store
            .create_game(game.id(), &Value::Null, &seats, Seed::from_number(3))
            .await
            .unwrap()
            .id;
        for _ in 0..60 {
            assert_eq!(worker.pass().await.unwrap().failures, 0, "{}", game.id());
            let loaded = db.store.load(id).await.unwrap();
            if loaded.game.outcome().is_some() {
                break;
            }
            let active = loaded.game.active();
            assert!(
                active.contains(&0),
                "{}: after the bots' pass only the player is awaited: {active:?}",
                game.id()
            );
            let command = random_command(loaded.game.as_ref(), 0, &mut rng).unwrap();
            db.store
                .submit(id, 0, &command, Some(loaded.row.head_seq))
                .await
                .unwrap();
        }
        let bots: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM commands WHERE game_id = $1 AND seat > 0 AND made_by = 'bot'",
        )
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
        assert!(bots > 0, "{}: the bots moved", game.id());
    }
    db.drop().await;
}
