//! What rating a club game costs its last move, side by side: the same game (same seed, same
//! moves) brought to one move before its end six times, and that last move timed three ways
//! in the store itself and the same three ways as a player makes it (over HTTP, through the
//! JSON API): a club game without the ratings' effect at all (the baseline), with it for a game of no club
//! (nothing read: the game's row names no club), and with it for a club game (rated: the
//! seats' moves counted and two rating rows locked in one statement, two rating rows and two
//! history rows written in another). The arms are timed one after another for each seed, in
//! rotating order, so the machine's load falls on all alike.
//!
//! `cargo bench --profile dev --bench ratings` (the tests' private PostgreSQL, or
//! DATABASE_URL). Optional: `POSTPLAY_RATING_GAMES` (seeds, default 80; the first 10 warm up);
//! `POSTPLAY_RATING_KEEP=1` keeps the database (its name is printed) to read plans with psql.

#[path = "../tests/common/mod.rs"]
mod common;

use common::TestDb;
use postplay::clock::ClockEffects;
use postplay::domain::{EmailAddress, PlayerName};
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::engine::{Log, Seat, Seed};
use postplay::notices::effects::NoticeEffects;
use postplay::store::{NewSeat, Store};
use postplay::time::SystemClock;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Seeds played and timed first but not counted.
const WARM_UP: u64 = 10;

/// Members of the club; each game seats two of them, so ratings rows already exist.
const MEMBERS: usize = 12;

fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn email(i: usize) -> EmailAddress {
    EmailAddress::parse(&format!("m{i}@example.org")).unwrap()
}

/// An Electoral Combat game for members `a` and `b`, in `club` if given, played to one
/// move before its end; the last move: (game, seat, command, head).
async fn before_the_end(
    store: &Store,
    club: Option<i64>,
    a: usize,
    b: usize,
    seed: u64,
) -> Option<(i64, Seat, Value, i64, String)> {
    let seats: Vec<NewSeat> = [a, b]
        .iter()
        .map(|&i| NewSeat {
            name: PlayerName::parse(&format!("M{i}")).unwrap(),
            email: Some(email(i)),
            bot: None,
        })
        .collect();
    let created = store
        .create_game(
            "electoral-combat",
            &json!({}),
            &seats,
            Seed::from_number(seed),
        )
        .await
        .unwrap();
    let id = created.id;
    sqlx::query("UPDATE games SET club_id = $2 WHERE id = $1")
        .bind(id)
        .bind(club)
        .execute(store.pool())
        .await
        .unwrap();
    let mut rng = bot_rng(&Seed::from_number(seed));
    loop {
        let loaded = store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return None;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        let mut trial = loaded.game.clone_box();
        trial
            .apply_json(seat, &command, &mut Log::recording())
            .unwrap();
        if trial.outcome().is_some() {
            let token = created.seat_tokens[seat].clone();
            return Some((id, seat, command, loaded.row.head_seq, token));
        }
        store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

/// Prints an arm's figures; returns its median and mean in ms.
fn summary(name: &str, times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = times.iter().map(|&d| ms(d)).sum::<f64>() / times.len() as f64;
    let median = ms(times[times.len() / 2]);
    let p90 = ms(times[times.len() * 9 / 10]);
    println!(
        "{name:<34} n={:>3}  median {median:7.2} ms  mean {mean:7.2} ms  p90 {p90:7.2} ms",
        times.len()
    );
    (median, mean)
}

#[actix_web::main]
async fn main() {
    let seeds = env_number("POSTPLAY_RATING_GAMES", 80);
    let db = TestDb::new().await;
    // A small pool, as a web process has per core: every statement is soon prepared on every
    // connection, as in a server that has run a while; the first seeds warm it up.
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(4)
        .connect_with(db.options.clone())
        .await
        .unwrap();
    let baseline = Store::from_pool(pool.clone())
        .with_clock(Arc::new(SystemClock))
        .with_effect(Arc::new(ClockEffects))
        .with_effect(Arc::new(NoticeEffects));
    let rated = postplay::startup::store_on(pool.clone(), Arc::new(SystemClock));
    let mut accounts = Vec::new();
    for i in 0..MEMBERS {
        let name = PlayerName::parse(&format!("M{i}")).unwrap();
        accounts.push(rated.account_for_email(&email(i), &name).await.unwrap().id);
    }
    let club: i64 = sqlx::query_scalar(
        "INSERT INTO clubs (name, private, created_by, created_at) \
         VALUES ('Bench club', false, $1, now()) RETURNING id",
    )
    .bind(accounts[0])
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO club_members (club_id, account_id, role, joined_at) \
         SELECT $1, a, 'member', now() FROM unnest($2::bigint[]) a",
    )
    .bind(club)
    .bind(&accounts)
    .execute(&pool)
    .await
    .unwrap();
    // The same three arms again as a player makes the move: over HTTP, through the JSON API
    // with the seat's token, each store behind a server of its own.
    let baseline = Arc::new(baseline);
    let rated = Arc::new(rated);
    let serve = |store: &Arc<Store>| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let server = postplay::web::start(store.clone(), base.clone(), listener).unwrap();
        actix_web::rt::spawn(server);
        base
    };
    let (baseline_at, rated_at) = (serve(&baseline), serve(&rated));
    let client = awc::Client::default();
    let arms: [(&str, &Store, Option<i64>, Option<&str>); 6] = [
        (
            "store: no ratings effect (baseline)",
            &baseline,
            Some(club),
            None,
        ),
        ("store: ratings effect, no club", &rated, None, None),
        (
            "store: ratings effect, club (rated)",
            &rated,
            Some(club),
            None,
        ),
        (
            "HTTP: no ratings effect (baseline)",
            &baseline,
            None,
            Some(&baseline_at),
        ),
        (
            "HTTP: ratings effect, no club",
            &rated,
            None,
            Some(&rated_at),
        ),
        (
            "HTTP: ratings effect, club (rated)",
            &rated,
            Some(club),
            Some(&rated_at),
        ),
    ];
    let mut times: [Vec<Duration>; 6] = Default::default();
    let mut used = 0;
    let mut skipped = 0;
    for seed in 0..seeds {
        let (a, b) = ((seed as usize) % MEMBERS, (seed as usize * 7 + 1) % MEMBERS);
        if a == b {
            continue;
        }
        let mut last = Vec::new();
        for (_, store, club, _) in &arms {
            last.push(before_the_end(store, *club, a, b, seed).await);
        }
        if last.iter().any(Option::is_none) {
            continue;
        }
        for k in 0..arms.len() {
            let arm = (seed as usize + k) % arms.len();
            let (id, seat, command, head, token) = last[arm].as_ref().unwrap();
            let started = Instant::now();
            match arms[arm].3 {
                None => {
                    arms[arm]
                        .1
                        .submit(*id, *seat, command, Some(*head))
                        .await
                        .unwrap();
                }
                Some(base) => {
                    let body = json!({"command": command, "expected_seq": head}).to_string();
                    let mut res = client
                        .post(format!("{base}/api/games/{id}/commands"))
                        .bearer_auth(token)
                        .insert_header(("Content-Type", "application/json"))
                        .send_body(body)
                        .await
                        .expect("the server answers");
                    let _ = res.body().await;
                    assert_eq!(res.status().as_u16(), 201);
                }
            }
            times[arm].push(started.elapsed());
        }
        // A game where a seat only ever had its forced moves played is not rated: its
        // figures would not measure a rating, so the seed is left out of every arm.
        let rated: i64 = sqlx::query_scalar(
            "SELECT count(DISTINCT game_id) FROM rating_changes WHERE game_id = ANY($1)",
        )
        .bind([last[2].as_ref().unwrap().0, last[5].as_ref().unwrap().0])
        .fetch_one(&pool)
        .await
        .unwrap();
        if seed < WARM_UP {
            for arm in &mut times {
                arm.pop();
            }
        } else if rated < 2 {
            skipped += 1;
            for arm in &mut times {
                arm.pop();
            }
        } else {
            used += 1;
        }
    }
    println!("{used} games' last moves, each arm ({skipped} seeds left out: not rated):");
    let figures: Vec<(f64, f64)> = arms
        .iter()
        .zip(times.iter_mut())
        .map(|((name, _, _, _), t)| summary(name, t))
        .collect();
    let change = |arm: usize, base: usize| {
        (
            (figures[arm].0 / figures[base].0 - 1.0) * 100.0,
            (figures[arm].1 / figures[base].1 - 1.0) * 100.0,
        )
    };
    for (arm, base, name) in [
        (1, 0, "store, no club"),
        (2, 0, "store, rated"),
        (4, 3, "HTTP, no club"),
        (5, 3, "HTTP, rated"),
    ] {
        let (median, mean) = change(arm, base);
        println!("{name} against baseline: median {median:+.1} %, mean {mean:+.1} %");
    }
    pool.close().await;
    if std::env::var("POSTPLAY_RATING_KEEP").is_ok_and(|v| v == "1") {
        println!("database kept: {}", db.name);
    } else {
        db.drop().await;
    }
}
