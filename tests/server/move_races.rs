//! Races a move written in one statement must lose cleanly: the mover's deadline passing
//! between the move's read and its write, and two moves on the same head. The seam is the
//! store's own: an effect whose plan runs after the read and before the write.

use crate::common;

use chrono::{DateTime, Duration, TimeZone, Utc};
use common::TestDb;
use postplay::domain::{ClockSettings, TimeControl};
use postplay::store::game::effects::{Appended, Creation, EffectError, Effects};
use postplay::store::game::plan::MovePlan;
use postplay::store::{NewSeat, PlayerName, Store, SubmitError};
use postplay::time::ManualClock;
use serde_json::{Value, json};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Runs `action` between a move's read and its write, once.
struct Between<F: Fn(&[Appended<'_>]) + Send + Sync> {
    armed: AtomicBool,
    action: F,
}

impl<F: Fn(&[Appended<'_>]) + Send + Sync> Effects for Between<F> {
    fn created<'a>(
        &'a self,
        _tx: &'a mut sqlx::PgConnection,
        _creation: &'a Creation<'a>,
    ) -> futures_util::future::BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }

    fn plan_move(
        &self,
        _read: &Value,
        entries: &[Appended<'_>],
        _plan: &mut MovePlan,
    ) -> Result<bool, EffectError> {
        if self.armed.swap(false, Ordering::SeqCst) {
            (self.action)(entries);
        }
        Ok(true)
    }

    fn appended<'a>(
        &'a self,
        _tx: &'a mut sqlx::PgConnection,
        _entry: &'a Appended<'a>,
    ) -> futures_util::future::BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async { Ok(()) })
    }
}

/// Runs `sql` with `args` on a connection of its own, on a thread of its own (a plan is not
/// async), and waits for it.
fn run_elsewhere(options: PgConnectOptions, sql: &'static str, id: i64, at: DateTime<Utc>) {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let pool = PgPoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await
                .unwrap();
            let changed = sqlx::query(sql)
                .bind(id)
                .bind(at)
                .execute(&pool)
                .await
                .unwrap()
                .rows_affected();
            assert_eq!(changed, 1, "the awaited seat's clock row");
        });
    })
    .join()
    .unwrap();
}

fn monday() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 9, 0, 0).unwrap()
}

async fn game(store: &Store, names: &[&str]) -> i64 {
    let seats: Vec<NewSeat> = names
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(
                postplay::store::EmailAddress::parse(&format!("{}@example.org", n.to_lowercase()))
                    .unwrap(),
            ),
            bot: None,
        })
        .collect();
    let clock = ClockSettings {
        control: TimeControl::PerMove { days: 1 },
        ..ClockSettings::default()
    };
    store
        .create_game_with(
            "nationhood",
            &json!({}),
            &seats,
            postplay::engine::Seed::from_number(3),
            None,
            &json!({ "clock": clock }),
        )
        .await
        .unwrap()
        .id
}

async fn first_choice(store: &Store, id: i64) -> (usize, Value, i64) {
    let loaded = store.load(id).await.unwrap();
    let seat = loaded.game.active()[0];
    let command = postplay::engine::bot::fill_at_random(
        &loaded.game.choices(seat)[0],
        &mut postplay::engine::GameRng::new(
            &postplay::engine::Seed::from_number(1),
            loaded.row.head_seq as u64,
        ),
    );
    (seat, command, loaded.row.head_seq)
}

async fn count(db: &TestDb, sql: &'static str, id: i64) -> i64 {
    sqlx::query_scalar(sql)
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

#[actix_web::test]
async fn a_deadline_passing_between_the_read_and_the_write_refuses_the_move() {
    let db = TestDb::new().await;
    let clock = ManualClock::at(monday());
    let options = db.options.clone();
    let late = Arc::new(Between {
        armed: AtomicBool::new(false),
        action: move |entries: &[Appended<'_>]| {
            // The deadline as the database holds it moves to just before the move's time.
            run_elsewhere(
                options.clone(),
                "UPDATE seat_clocks SET due_at = $2 WHERE game_id = $1 AND awaited_seq IS NOT NULL",
                entries[0].row.id,
                entries[0].at - Duration::seconds(1),
            );
        },
    });
    let store = postplay::startup::store_on(db.store.pool().clone(), Arc::new(clock.clone()))
        .with_effect(late.clone());
    let id = game(&store, &["Ann", "Bo"]).await;
    clock.advance(Duration::hours(23));
    let (seat, command, head) = first_choice(&store, id).await;
    late.armed.store(true, Ordering::SeqCst);
    let outcome = store.submit(id, seat, &command, Some(head)).await;
    assert!(
        !late.armed.load(Ordering::SeqCst),
        "the deadline was moved between the read and the write"
    );
    match outcome {
        Err(SubmitError::Refused(m)) => assert!(m.contains("your time ran out"), "{m}"),
        other => panic!("a move after the deadline must be refused: {other:?}"),
    }
    let written = count(&db, "SELECT count(*) FROM commands WHERE game_id = $1", id).await;
    let mailed = count(
        &db,
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND event LIKE 'turn:%'",
        id,
    )
    .await;
    assert_eq!(
        (written, mailed),
        (0, 0),
        "nothing of the late move is written"
    );
    db.drop().await;
}

/// A barrier that gives up after a while, naming what it waited for.
struct Meet {
    arrived: Mutex<usize>,
    all: Condvar,
}

impl Meet {
    fn wait(&self, of: usize) {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        self.all.notify_all();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while *arrived < of {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            assert!(
                !left.is_zero(),
                "only {} of {of} moves reached their write",
                *arrived
            );
            arrived = self.all.wait_timeout(arrived, left).unwrap().0;
        }
    }
}

#[test]
fn two_moves_on_one_head_make_one_entry_and_one_conflict() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let db = runtime.block_on(TestDb::new());
    let id = runtime.block_on(async {
        let store = postplay::startup::store_on(
            db.store.pool().clone(),
            Arc::new(postplay::time::SystemClock),
        );
        game(&store, &["Ann", "Bo"]).await
    });
    let (seat, command, head) = runtime.block_on(first_choice(&db.store, id));
    let meet = Arc::new(Meet {
        arrived: Mutex::new(0),
        all: Condvar::new(),
    });
    let movers: Vec<_> = (0..2)
        .map(|_| {
            let (options, meet, command) = (db.options.clone(), meet.clone(), command.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async move {
                    let pool = PgPoolOptions::new()
                        .max_connections(2)
                        .connect_with(options)
                        .await
                        .unwrap();
                    // Both have read the same head before either writes.
                    let store =
                        postplay::startup::store_on(pool, Arc::new(postplay::time::SystemClock))
                            .with_effect(Arc::new(Between {
                                armed: AtomicBool::new(true),
                                action: move |_: &[Appended<'_>]| meet.wait(2),
                            }));
                    store.submit(id, seat, &command, Some(head)).await
                })
            })
        })
        .collect();
    let outcomes: Vec<Result<i64, SubmitError>> =
        movers.into_iter().map(|m| m.join().unwrap()).collect();
    let won = outcomes
        .iter()
        .filter(|o| matches!(o, Ok(h) if *h > head))
        .count();
    let lost = outcomes
        .iter()
        .filter(|o| matches!(o, Err(SubmitError::Conflict { head: h }) if *h > head))
        .count();
    assert_eq!((won, lost), (1, 1), "{outcomes:?}");
    runtime.block_on(async {
        let written = count(&db, "SELECT count(*) FROM commands WHERE game_id = $1", id).await;
        let final_head = db.store.load(id).await.unwrap().row.head_seq;
        assert_eq!(written, final_head, "one entry per seq, the winner's");
        db.drop().await;
    });
}
