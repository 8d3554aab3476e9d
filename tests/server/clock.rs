//! The correspondence clock against a real PostgreSQL, with time set by the test instead of
//! slept: deadlines per time control, reminders, timeouts applied by the scheduler while
//! nobody visits, racing schedulers, a move racing its deadline, vacations, the organiser's
//! extension and pause.

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::TestDb;
use postplay::clock::Scheduler;
use postplay::domain::{ClockSettings, EmailAddress, OnTimeout, PlayerName, TimeControl};
use postplay::engine::{Seed, Viewer};
use postplay::store::{NewSeat, Store, SubmitError};
use postplay::time::{Clock, ManualClock};
use serde_json::json;
use std::sync::Arc;

/// Monday 23 November 2026, 09:00 UTC.
fn monday() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

struct Rig {
    db: TestDb,
    clock: ManualClock,
    store: Arc<Store>,
}

impl Rig {
    async fn new() -> Rig {
        let db = TestDb::new().await;
        let clock = ManualClock::at(monday());
        let store = Arc::new(postplay::startup::store_on(
            db.store.pool().clone(),
            Arc::new(clock.clone()),
        ));
        Rig { db, clock, store }
    }

    async fn game(&self, kind: &str, names: &[(&str, Option<&str>)], clock: ClockSettings) -> i64 {
        let seats: Vec<NewSeat> = names
            .iter()
            .map(|(n, e)| NewSeat {
                name: PlayerName::parse(n).unwrap(),
                email: e.map(|e| EmailAddress::parse(e).unwrap()),
                bot: None,
            })
            .collect();
        self.store
            .create_game_with(
                kind,
                &json!({}),
                &seats,
                Seed::from_number(77),
                None,
                &json!({ "clock": clock }),
            )
            .await
            .unwrap()
            .id
    }

    async fn due(&self, id: i64, seat: i32) -> Option<DateTime<Utc>> {
        sqlx::query_scalar("SELECT due_at FROM seat_clocks WHERE game_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat)
            .fetch_one(self.db.store.pool())
            .await
            .unwrap()
    }

    async fn events(&self, id: i64, prefix: &str) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT event || ' ' || recipient FROM outbox WHERE game_id = $1 AND event LIKE $2 ORDER BY id",
        )
        .bind(id)
        .bind(format!("{prefix}%"))
        .fetch_all(self.db.store.pool())
        .await
        .unwrap()
    }

    async fn active(&self, id: i64) -> Vec<usize> {
        self.store.load(id).await.unwrap().game.active()
    }

    /// Plays the first offered move for the first awaited seat.
    async fn play(&self, id: i64) -> Result<i64, SubmitError> {
        let loaded = self.store.load(id).await.unwrap();
        let seat = loaded.game.active()[0];
        let choice = &loaded.game.choices(seat)[0];
        let command = postplay::engine::bot::fill_at_random(
            choice,
            &mut postplay::engine::GameRng::new(&Seed::from_number(1), loaded.row.head_seq as u64),
        );
        self.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
    }
}

fn per_move(days: u32) -> ClockSettings {
    ClockSettings {
        control: TimeControl::PerMove { days },
        ..ClockSettings::default()
    }
}

#[actix_web::test]
async fn timeouts_are_applied_unattended_in_every_game_and_the_record_still_verifies() {
    let rig = Rig::new().await;
    let scheduler = Scheduler::new(rig.store.clone());
    for game in postplay::games::registry() {
        let (min, _) = game.seat_counts();
        let names: Vec<(&str, Option<&str>)> = ["Ann", "Bo", "Cy", "Di", "Ed"][..min]
            .iter()
            .map(|n| (*n, None))
            .collect();
        let id = rig.game(game.id(), &names, per_move(1)).await;
        let seat = rig.active(id).await[0];
        let due = rig.due(id, seat as i32).await.expect("a deadline");
        assert_eq!(due, rig.clock.now() + Duration::days(1), "{}", game.id());
        // Nobody visits: the clock plays twenty moves, a day apart.
        for _ in 0..20 {
            rig.clock.advance(Duration::days(1) + Duration::seconds(1));
            let tick = scheduler.tick().await.unwrap();
            if rig.store.load(id).await.unwrap().game.outcome().is_some() {
                break;
            }
            assert!(tick.timeouts >= 1, "{}: {tick:?}", game.id());
        }
        let record = rig.store.export(id, Viewer::Auditor).await.unwrap();
        assert!(
            record.commands.len() >= 20
                || rig.store.load(id).await.unwrap().game.outcome().is_some()
        );
        assert!(
            record
                .commands
                .iter()
                .all(|c| matches!(c.by.as_deref(), Some("clock" | "auto"))),
            "{}: every move was the clock's (or forced and played at once), and says so",
            game.id()
        );
        assert!(
            record
                .commands
                .iter()
                .any(|c| c.by.as_deref() == Some("clock"))
        );
        let chain = postplay::engine::audit::check_chain(&record).unwrap();
        assert_eq!(Some(chain.head), record.chain_head);
        // Replayed from the log (no cache), the game is the same.
        let fresh = rig.store.clone_handle();
        assert_eq!(
            fresh.load(id).await.unwrap().game.state_hash(),
            rig.store.load(id).await.unwrap().game.state_hash()
        );
        let mut finished = record.clone();
        finished.seed = Some(Seed::from_number(77));
        finished.final_state_hash = Some(rig.store.load(id).await.unwrap().game.state_hash());
        postplay::engine::audit::verify(
            postplay::games::ALL,
            &finished,
            finished.chain_head.as_deref(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", game.id()));
    }
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_forfeit_ends_the_game_and_every_player_is_told() {
    let rig = Rig::new().await;
    let id = rig
        .game(
            "nationhood",
            &[
                ("Ann", Some("ann@example.org")),
                ("Bo", Some("bo@example.org")),
            ],
            ClockSettings {
                on_timeout: OnTimeout::Forfeit,
                ..per_move(2)
            },
        )
        .await;
    let seat = rig.active(id).await[0];
    rig.clock.advance(Duration::days(2));
    let tick = Scheduler::new(rig.store.clone()).tick().await.unwrap();
    assert_eq!(tick.timeouts, 1);
    let loaded = rig.store.load(id).await.unwrap();
    let outcome = loaded.game.outcome().expect("the game is over");
    assert_eq!(outcome.winners, vec![1 - seat]);
    assert_eq!(loaded.row.status, "over");
    let told = rig.events(id, "timeout:").await;
    assert_eq!(told.len(), 2, "both players hear of it: {told:?}");
    assert_eq!(rig.events(id, "over").await.len(), 2);
    let mut record = rig.store.export(id, Viewer::Spectator).await.unwrap();
    assert_eq!(record.commands[0].command, json!({"type": "forfeit"}));
    record.final_state_hash = Some(loaded.game.state_hash());
    let verified = postplay::engine::audit::verify(
        postplay::games::ALL,
        &record,
        record.chain_head.as_deref(),
    )
    .unwrap();
    assert!(verified.outcome.unwrap().contains("forfeits"));
    rig.db.drop().await;
}

#[actix_web::test]
async fn fischer_banks_carry_over_and_weekends_do_not_count() {
    let rig = Rig::new().await;
    let fischer = ClockSettings {
        control: TimeControl::Fischer {
            initial_days: 3,
            increment_days: 1,
            cap_days: 4,
        },
        weekend_pause: true,
        time_zone: "Europe/Paris".into(),
        ..ClockSettings::default()
    };
    let id = rig
        .game("electoral-combat", &[("Ann", None), ("Bo", None)], fischer)
        .await;
    let first = rig.active(id).await[0] as i32;
    // Monday 09:00 UTC + 3 days of clock time: Thursday 09:00.
    assert_eq!(
        rig.due(id, first).await.unwrap(),
        monday() + Duration::days(3)
    );
    // The seat moves after one day: 2 left + 1 = 3, capped at 4.
    rig.clock.advance(Duration::days(1));
    let seq = rig.play(id).await.unwrap();
    assert!(seq >= 1);
    let bank: i64 =
        sqlx::query_scalar("SELECT bank_secs FROM seat_clocks WHERE game_id = $1 AND seat = $2")
            .bind(id)
            .bind(first)
            .fetch_one(rig.db.store.pool())
            .await
            .unwrap();
    assert_eq!(bank, Duration::days(3).num_seconds());
    // The next seat, awaited from Tuesday 09:00 with 3 days, is due Friday 09:00; one
    // awaited from Thursday 09:00 runs over the Paris weekend (Friday 23:00 UTC to Sunday
    // 23:00 UTC in November) into Monday.
    let next = rig.active(id).await[0] as i32;
    assert_eq!(
        rig.due(id, next).await.unwrap(),
        monday() + Duration::days(4)
    );
    rig.clock.set(monday() + Duration::days(3));
    let settings = ClockSettings {
        control: TimeControl::PerMove { days: 2 },
        weekend_pause: true,
        time_zone: "Europe/Paris".into(),
        ..ClockSettings::default()
    };
    let thursday = rig
        .game("nationhood", &[("Ann", None), ("Bo", None)], settings)
        .await;
    let seat = rig.active(thursday).await[0] as i32;
    // Thursday 09:00 UTC: 38 hours to Friday 23:00 UTC, then 10 hours from Sunday 23:00 UTC.
    assert_eq!(
        rig.due(thursday, seat).await.unwrap(),
        monday() + Duration::days(7)
    );
    rig.db.drop().await;
}

#[actix_web::test]
async fn reminders_go_once_at_eighty_percent_and_a_day_before() {
    let rig = Rig::new().await;
    let id = rig
        .game(
            "nationhood",
            &[
                ("Ann", Some("ann@example.org")),
                ("Bo", Some("bo@example.org")),
            ],
            per_move(10),
        )
        .await;
    let scheduler = Scheduler::new(rig.store.clone());
    rig.clock.advance(Duration::days(8) - Duration::minutes(1));
    assert_eq!(
        scheduler.tick().await.unwrap().reminders,
        0,
        "not before 80 %"
    );
    rig.clock.advance(Duration::minutes(1));
    assert_eq!(scheduler.tick().await.unwrap().reminders, 1);
    assert_eq!(scheduler.tick().await.unwrap().reminders, 0, "never twice");
    rig.clock.advance(Duration::days(1) - Duration::minutes(1));
    assert_eq!(scheduler.tick().await.unwrap().reminders, 0);
    rig.clock.advance(Duration::minutes(1));
    assert_eq!(scheduler.tick().await.unwrap().reminders, 1, "a day before");
    rig.clock.advance(Duration::hours(12));
    assert_eq!(scheduler.tick().await.unwrap().reminders, 0, "two in all");
    let reminders = rig.events(id, "remind:").await;
    assert_eq!(reminders.len(), 2, "{reminders:?}");
    let seat = rig.active(id).await[0];
    let address = if seat == 0 {
        "ann@example.org"
    } else {
        "bo@example.org"
    };
    assert!(
        reminders.iter().all(|r| r.ends_with(address)),
        "only the seat to move"
    );
    // A seat that has moved gets no reminder for that wait.
    rig.play(id).await.unwrap();
    rig.clock.advance(Duration::hours(1));
    assert_eq!(scheduler.tick().await.unwrap().reminders, 0);
    rig.db.drop().await;
}

#[actix_web::test]
async fn two_schedulers_racing_apply_a_deadline_once() {
    let rig = Rig::new().await;
    let mut ids = Vec::new();
    for _ in 0..10 {
        ids.push(
            rig.game("nationhood", &[("Ann", None), ("Bo", None)], per_move(1))
                .await,
        );
    }
    rig.clock.advance(Duration::days(1));
    let a = Scheduler::new(rig.store.clone());
    let b = Scheduler::new(Arc::new(rig.store.clone_handle()));
    let (ta, tb) = tokio::join!(a.tick(), b.tick());
    let (ta, tb) = (ta.unwrap(), tb.unwrap());
    // The clock plays each late seat's whole turn (a Nationhood turn is a draw and a
    // discard), once: every entry is the clock's, for that one seat, and the other seat is
    // awaited now.
    let mut played = 0;
    for id in ids {
        let commands = rig.store.commands(id, 0).await.unwrap();
        assert!(!commands.is_empty(), "the due deadline was applied");
        assert!(commands.iter().all(|c| c.by() == Some("clock")));
        assert!(commands.iter().all(|c| c.seat == commands[0].seat));
        assert_eq!(
            rig.active(id).await,
            vec![1 - commands[0].seat],
            "one turn, once"
        );
        played += commands.len();
    }
    assert_eq!(ta.timeouts + tb.timeouts, played, "{ta:?} {tb:?}");
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_move_a_second_early_beats_the_clock_and_a_second_late_is_refused() {
    let rig = Rig::new().await;
    let early = rig
        .game("nationhood", &[("Ann", None), ("Bo", None)], per_move(1))
        .await;
    let late = rig
        .game("nationhood", &[("Ann", None), ("Bo", None)], per_move(1))
        .await;
    rig.clock.advance(Duration::days(1) - Duration::seconds(1));
    // The early one plays its whole turn in time (the clock counts turns, not commands).
    let mover = rig.active(early).await[0];
    while rig.active(early).await.contains(&mover) {
        rig.play(early).await.expect("in time");
    }
    rig.clock.advance(Duration::seconds(2));
    match rig.play(late).await {
        Err(SubmitError::Refused(m)) => assert!(m.contains("your time ran out"), "{m}"),
        other => panic!("a late move must be refused: {other:?}"),
    }
    assert_eq!(
        rig.store.commands(late, 0).await.unwrap().len(),
        0,
        "nothing written"
    );
    let tick = Scheduler::new(rig.store.clone()).tick().await.unwrap();
    let by_clock = |commands: Vec<postplay::store::CommandRow>| {
        commands.iter().filter(|c| c.by() == Some("clock")).count()
    };
    assert_eq!(
        tick.timeouts,
        by_clock(rig.store.commands(late, 0).await.unwrap()),
        "the clock moves for the late one only (its whole turn)"
    );
    assert!(tick.timeouts >= 1);
    assert_eq!(by_clock(rig.store.commands(early, 0).await.unwrap()), 0);
    assert_eq!(rig.store.commands(early, 0).await.unwrap()[0].by(), None);
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_vacation_stops_the_clocks_of_two_games_and_never_shortens_a_deadline() {
    let rig = Rig::new().await;
    let ann = "ann@example.org";
    let g1 = rig
        .game(
            "nationhood",
            &[("Ann", Some(ann)), ("Bo", None)],
            per_move(3),
        )
        .await;
    let g2 = rig
        .game(
            "electoral-combat",
            &[("Cy", None), ("Ann", Some(ann))],
            per_move(3),
        )
        .await;
    let ann_seat = |id: i64| if id == g1 { 0 } else { 1 };
    // Make it Ann's move in both games.
    for id in [g1, g2] {
        while !rig.active(id).await.contains(&ann_seat(id)) {
            rig.play(id).await.unwrap();
        }
    }
    let before: Vec<_> = [rig.due(g1, 0).await.unwrap(), rig.due(g2, 1).await.unwrap()].to_vec();
    rig.clock.advance(Duration::days(1));
    postplay::clock::controls::start_vacation(&rig.store, ann, 5, 14)
        .await
        .unwrap();
    assert_eq!(rig.due(g1, 0).await, None);
    assert_eq!(rig.due(g2, 1).await, None);
    assert_eq!(
        postplay::clock::controls::vacation_days_left(&rig.store, ann, 14)
            .await
            .unwrap(),
        9
    );
    rig.clock.advance(Duration::days(4));
    let tick = Scheduler::new(rig.store.clone()).tick().await.unwrap();
    assert_eq!(tick.timeouts, 0, "no clock runs on vacation");
    postplay::clock::controls::end_vacation(&rig.store, ann)
        .await
        .unwrap();
    for (id, seat, old) in [(g1, 0, before[0]), (g2, 1, before[1])] {
        let due = rig.due(id, seat).await.unwrap();
        assert!(
            due >= old + Duration::days(4),
            "four days on vacation push the deadline"
        );
    }
    // A second vacation beyond the days left is refused.
    assert!(
        postplay::clock::controls::start_vacation(&rig.store, ann, 30, 14)
            .await
            .is_err()
    );
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_vacation_begun_after_the_deadline_leaves_that_timeout_standing() {
    let rig = Rig::new().await;
    let ann = "ann@example.org";
    let late = rig
        .game(
            "nationhood",
            &[("Ann", Some(ann)), ("Bo", None)],
            per_move(1),
        )
        .await;
    while !rig.active(late).await.contains(&0) {
        rig.play(late).await.unwrap();
    }
    let due = rig.due(late, 0).await.expect("a deadline");
    // Past the deadline, before the scheduler's tick.
    rig.clock
        .advance(due - rig.clock.now() + Duration::milliseconds(200));
    postplay::clock::controls::start_vacation(&rig.store, ann, 5, 14)
        .await
        .expect("the vacation itself begins");
    assert_eq!(
        rig.due(late, 0).await,
        Some(due),
        "an overdue wait keeps its deadline"
    );
    match rig.play(late).await {
        Err(SubmitError::Refused(m)) => assert!(m.contains("your time ran out"), "{m}"),
        other => panic!("a late move must be refused: {other:?}"),
    }
    let tick = Scheduler::new(rig.store.clone()).tick().await.unwrap();
    assert!(
        tick.timeouts >= 1 && !rig.active(late).await.contains(&0),
        "the scheduler plays the late turn: {tick:?}"
    );
    assert_eq!(
        rig.store
            .commands(late, 0)
            .await
            .unwrap()
            .last()
            .unwrap()
            .by(),
        Some("clock")
    );
    // Ending the vacation leaves the game as the clock left it.
    postplay::clock::controls::end_vacation(&rig.store, ann)
        .await
        .unwrap();
    rig.db.drop().await;
}

#[actix_web::test]
async fn ten_vacations_started_at_once_give_exactly_one() {
    let rig = Rig::new().await;
    let ann = "ann@example.org";
    // Ten requests a millisecond apart, each through its own store and clock, all at once.
    let stores: Vec<Store> = (0..10)
        .map(|i| {
            postplay::startup::store_on(
                rig.db.store.pool().clone(),
                Arc::new(ManualClock::at(monday() + Duration::milliseconds(i))),
            )
        })
        .collect();
    let results = futures_util::future::join_all(
        stores
            .iter()
            .map(|s| postplay::clock::controls::start_vacation(s, ann, 3, 14)),
    )
    .await;
    let begun = results.iter().filter(|r| r.is_ok()).count();
    let refusals: Vec<String> = results
        .iter()
        .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
        .collect();
    assert_eq!(begun, 1, "exactly one starts: {refusals:?}");
    assert!(
        refusals
            .iter()
            .all(|m| m == "your vacation has already begun"),
        "the others are told why: {refusals:?}"
    );
    let running: i64 =
        sqlx::query_scalar("SELECT count(*) FROM vacations WHERE email = $1 AND ended_at IS NULL")
            .bind(ann)
            .fetch_one(rig.db.store.pool())
            .await
            .unwrap();
    assert_eq!(running, 1);
    rig.db.drop().await;
}

#[actix_web::test]
async fn the_migration_ends_duplicate_running_vacations_instead_of_failing() {
    let rig = Rig::new().await;
    let pool = rig.db.store.pool();
    // A database as the race left it: the old, non-unique index and two running vacations.
    for sql in [
        "DROP INDEX vacations_running",
        "CREATE INDEX vacations_running ON vacations (email) WHERE ended_at IS NULL",
        "INSERT INTO vacations (email, started_at, ends_at) VALUES \
         ('bo@example.org', '2026-11-20T09:00:00Z', '2026-11-25T09:00:00Z'), \
         ('bo@example.org', '2026-11-20T09:00:00.2Z', '2026-11-25T09:00:00.2Z')",
        "DELETE FROM _sqlx_migrations WHERE version = 12",
    ] {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(pool)
            .await
            .unwrap();
    }
    rig.db.store.migrate().await.expect("the migration runs");
    let running: Vec<DateTime<Utc>> = sqlx::query_scalar(
        "SELECT started_at FROM vacations WHERE email = 'bo@example.org' AND ended_at IS NULL",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(
        running,
        vec!["2026-11-20T09:00:00Z".parse::<DateTime<Utc>>().unwrap()],
        "the earliest runs on"
    );
    assert_eq!(
        postplay::clock::controls::vacation_days_left(&rig.store, "bo@example.org", 14)
            .await
            .unwrap(),
        9,
        "the ended duplicate counts no days"
    );
    rig.db.drop().await;
}

#[actix_web::test]
async fn the_organiser_extends_and_pauses_and_everyone_is_told() {
    let rig = Rig::new().await;
    let id = rig
        .game(
            "nationhood",
            &[
                ("Ann", Some("ann@example.org")),
                ("Bo", Some("bo@example.org")),
            ],
            per_move(2),
        )
        .await;
    let seat = rig.active(id).await[0] as i32;
    let due = rig.due(id, seat).await.unwrap();
    postplay::clock::controls::extend(&rig.store, id, seat, 3)
        .await
        .unwrap();
    assert_eq!(rig.due(id, seat).await.unwrap(), due + Duration::days(3));
    rig.clock.advance(Duration::days(1));
    postplay::clock::controls::set_paused(&rig.store, id, true)
        .await
        .unwrap();
    assert_eq!(rig.due(id, seat).await, None);
    rig.clock.advance(Duration::days(10));
    assert_eq!(
        Scheduler::new(rig.store.clone())
            .tick()
            .await
            .unwrap()
            .timeouts,
        0
    );
    postplay::clock::controls::set_paused(&rig.store, id, false)
        .await
        .unwrap();
    assert_eq!(
        rig.due(id, seat).await.unwrap(),
        rig.clock.now() + Duration::days(4),
        "the 4 days left when paused"
    );
    let mut told = Vec::new();
    for prefix in ["extend:", "pause:", "resume:"] {
        told.extend(rig.events(id, prefix).await);
    }
    assert_eq!(told.len(), 6, "two players hear of each: {told:?}");
    let recorded: i64 = sqlx::query_scalar("SELECT count(*) FROM clock_events WHERE game_id = $1")
        .bind(id)
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap();
    assert_eq!(recorded, 3);
    rig.db.drop().await;
}

#[actix_web::test]
async fn the_pages_show_the_clock_and_take_a_pause_an_extension_and_a_vacation() {
    let rig = Rig::new().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let server = postplay::web::start(rig.store.clone(), base.clone(), listener).unwrap();
    actix_web::rt::spawn(server);
    let id = rig
        .game(
            "nationhood",
            &[
                ("Ann", Some("ann@example.org")),
                ("Bo", Some("bo@example.org")),
            ],
            per_move(3),
        )
        .await;
    let organiser = postplay::store::new_token();
    let seat = rig.active(id).await[0];
    let player = postplay::store::new_token();
    for (sql, token) in [
        (
            "UPDATE games SET organiser_token_hash = $2 WHERE id = $1",
            &organiser,
        ),
        (
            "UPDATE seats SET token_hash = $2 WHERE game_id = $1 AND seat = $3",
            &player,
        ),
    ] {
        sqlx::query(sql)
            .bind(id)
            .bind(postplay::store::token_hash(token))
            .bind(seat as i32)
            .execute(rig.db.store.pool())
            .await
            .unwrap();
    }
    let client = awc::Client::builder().disable_redirects().finish();
    let page = |url: String| {
        let client = client.clone();
        async move {
            let mut res = client.get(url).send().await.unwrap();
            let cookie = res
                .headers()
                .get("set-cookie")
                .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_string());
            let body = String::from_utf8_lossy(&res.body().await.unwrap()).into_owned();
            (body, cookie)
        }
    };
    let post = |url: String, cookie: String, body: String| {
        let client = client.clone();
        async move {
            client
                .post(url)
                .insert_header(("Cookie", cookie))
                .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
                .send_body(body)
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    let csrf_of = |html: &str| {
        html.split("name=\"csrf\" value=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string()
    };
    let (play, cookie) = page(format!("{base}/play/{player}")).await;
    assert!(
        play.contains("3 days a move") && play.contains("3 days left"),
        "{play}"
    );
    let (csrf, cookie) = (csrf_of(&play), cookie.unwrap());
    // The organiser gives a day more, then pauses.
    let manage = format!("{base}/manage/{organiser}");
    let body = format!("csrf={csrf}&action=extend&seat={seat}&days=1");
    assert_eq!(
        post(format!("{manage}/clock"), cookie.clone(), body).await,
        303
    );
    assert!(
        page(format!("{base}/play/{player}"))
            .await
            .0
            .contains("4 days left")
    );
    let body = format!("csrf={csrf}&action=pause");
    assert_eq!(
        post(format!("{manage}/clock"), cookie.clone(), body).await,
        303
    );
    let (managed, _) = page(manage.clone()).await;
    assert!(managed.contains("The game is paused"), "{managed}");
    let body = format!("csrf={csrf}&action=pause");
    assert_eq!(
        post(format!("{manage}/clock"), cookie.clone(), body).await,
        409
    );
    let body = format!("csrf={csrf}&action=resume");
    assert_eq!(
        post(format!("{manage}/clock"), cookie.clone(), body).await,
        303
    );
    // The player goes on vacation, and comes back.
    let body = format!("csrf={csrf}&action=start&days=3");
    assert_eq!(
        post(
            format!("{base}/play/{player}/vacation"),
            cookie.clone(),
            body
        )
        .await,
        303
    );
    let (play, _) = page(format!("{base}/play/{player}")).await;
    assert!(play.contains("on vacation"), "{play}");
    let body = format!("csrf={csrf}&action=end");
    assert_eq!(
        post(
            format!("{base}/play/{player}/vacation"),
            cookie.clone(),
            body
        )
        .await,
        303
    );
    // The API shows the deadline.
    let mut res = client
        .get(format!("{base}/api/play/{player}/view"))
        .send()
        .await
        .unwrap();
    let view: serde_json::Value = serde_json::from_slice(&res.body().await.unwrap()).unwrap();
    assert_eq!(view["deadlines"][0]["seat"], seat);
    assert!(view["deadlines"][0]["due_at"].is_string());
    rig.db.drop().await;
}

/// The seat's bank of clock time (between its turns).
async fn bank(rig: &Rig, id: i64, seat: i32) -> Duration {
    let secs: i64 =
        sqlx::query_scalar("SELECT bank_secs FROM seat_clocks WHERE game_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat)
            .fetch_one(rig.db.store.pool())
            .await
            .unwrap();
    Duration::seconds(secs)
}

#[actix_web::test]
async fn a_fischer_turn_of_several_commands_earns_one_increment() {
    let rig = Rig::new().await;
    let fischer = ClockSettings {
        control: TimeControl::Fischer {
            initial_days: 3,
            increment_days: 1,
            cap_days: 10,
        },
        ..ClockSettings::default()
    };
    // A Nationhood turn is a draw, then a discard (and any cities between): several commands.
    let id = rig
        .game("nationhood", &[("Ann", None), ("Bo", None)], fischer)
        .await;
    let seat = rig.active(id).await[0];
    let due = rig.due(id, seat as i32).await.unwrap();
    assert_eq!(due, monday() + Duration::days(3));
    rig.clock.advance(Duration::days(1));
    rig.store
        .submit(id, seat, &json!({"type": "draw_stock"}), None)
        .await
        .unwrap();
    assert_eq!(rig.active(id).await, vec![seat], "the turn goes on");
    assert_eq!(
        rig.due(id, seat as i32).await.unwrap(),
        due,
        "a command within the turn neither grants time nor starts a fresh wait"
    );
    rig.clock.advance(Duration::days(1));
    let card = rig
        .store
        .load(id)
        .await
        .unwrap()
        .game
        .view(Viewer::Seat(seat))["hands"][seat][0]
        .clone();
    rig.store
        .submit(id, seat, &json!({"type": "discard", "card": card}), None)
        .await
        .unwrap();
    assert_ne!(
        rig.active(id).await,
        vec![seat],
        "the discard ends the turn"
    );
    assert_eq!(
        bank(&rig, id, seat as i32).await,
        Duration::days(3 - 2 + 1),
        "two days used, one increment for the one turn"
    );
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_command_then_its_undo_leave_the_deadline_where_it_was() {
    let rig = Rig::new().await;
    let fischer = ClockSettings {
        control: TimeControl::Fischer {
            initial_days: 5,
            increment_days: 2,
            cap_days: 10,
        },
        ..ClockSettings::default()
    };
    let id = rig
        .game("votes-for-women", &[("Ann", None), ("Bo", None)], fischer)
        .await;
    // Play until a seat's move may be taken back, an hour a move.
    let mut rng = postplay::engine::bot::bot_rng(&Seed::from_number(5));
    let seat = loop {
        let loaded = rig.store.load(id).await.unwrap();
        assert!(loaded.game.outcome().is_none(), "an undoable move comes");
        let seat = loaded.game.active()[0];
        let command =
            postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        let due = rig.due(id, seat as i32).await;
        rig.clock.advance(Duration::hours(1));
        rig.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        let now = rig.store.load(id).await.unwrap();
        if now.game.active().contains(&seat) {
            assert_eq!(
                rig.due(id, seat as i32).await,
                due,
                "the turn's deadline stands"
            );
        }
        if now.game.can_undo(seat) {
            break seat;
        }
    };
    let due = rig.due(id, seat as i32).await.unwrap();
    for _ in 0..3 {
        rig.clock.advance(Duration::hours(5));
        let head = rig.store.load(id).await.unwrap().row.head_seq;
        rig.store.undo(id, seat, Some(head)).await.unwrap();
        assert_eq!(
            rig.due(id, seat as i32).await.unwrap(),
            due,
            "an undo grants no time"
        );
        if !rig.store.load(id).await.unwrap().game.can_undo(seat) {
            break;
        }
    }
    rig.db.drop().await;
}
