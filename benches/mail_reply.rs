//! Moves by reply against moves through the JSON API, in one process and one run: inbound
//! messages handled per second end to end (parse, read the line against the choices, the
//! move's transaction, the answer in the outbox) and JSON API moves per second over loopback
//! HTTP, both on Whitehouse games whose seats have addresses (so both write your-turn mail).
//!
//! `cargo bench --bench mail_reply` (the tests' private PostgreSQL, or DATABASE_URL).
//! Optional: `POSTPLAY_LOAD_SECONDS` (default 10), `POSTPLAY_LOAD_CLIENTS` (default 8).

#[path = "../tests/common/mod.rs"]
mod common;

use awc::Client;
use common::{TestDb, spawn_app};
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::engine::{GameRng, ParamKind, Seed};
use postplay::notices::EmailAddress;
use postplay::replies::{InboundSettings, Inbox, Outcome};
use postplay::store::{NewSeat, PlayerName};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn address(seat: usize) -> String {
    format!("p{seat}@example.org")
}

/// Whitehouse games with an address per seat: (id, seat tokens).
async fn games(db: &TestDb, count: usize, first_seed: u64) -> Vec<(i64, Vec<String>)> {
    let mut out = Vec::new();
    for n in 0..count {
        let seats: Vec<NewSeat> = (0..4)
            .map(|i| NewSeat {
                name: PlayerName::parse(&format!("P{i}")).unwrap(),
                email: Some(EmailAddress::parse(&address(i)).unwrap()),
                bot: None,
            })
            .collect();
        let created = db
            .store
            .create_game_with(
                "whitehouse",
                &json!({}),
                &seats,
                Seed::from_number(first_seed + n as u64),
                None,
                &Value::Null,
            )
            .await
            .unwrap();
        out.push((created.id, created.seat_tokens));
    }
    out
}

/// A random legal reply line for the seat's choices: the choice's number, then its values
/// as the mail lists them (codes, numbers).
fn random_line(choices: &[postplay::engine::Choice], rng: &mut GameRng) -> String {
    let index = rng.index(choices.len());
    let choice = &choices[index];
    let command = fill_at_random(choice, rng);
    let mut line = (index + 1).to_string();
    for param in &choice.params {
        let value = &command[param.field.as_ref()];
        let words: Vec<String> = match (&param.kind, value) {
            (ParamKind::Pick { .. } | ParamKind::Distribute { .. }, Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect(),
            (_, Value::String(s)) => vec![s.clone()],
            (_, other) => vec![other.to_string()],
        };
        line.push(' ');
        line.push_str(&words.join(" "));
    }
    line
}

/// The newest reply secret queued for a seat.
async fn secret_for(pool: &sqlx::PgPool, game: i64, seat: usize) -> Option<String> {
    sqlx::query_scalar(
        "SELECT payload->'ask'->>'reply' FROM outbox WHERE game_id = $1 AND seat = $2 \
         AND payload->'ask'->>'reply' IS NOT NULL ORDER BY id DESC LIMIT 1",
    )
    .bind(game)
    .bind(seat as i32)
    .fetch_optional(pool)
    .await
    .unwrap()
    .flatten()
}

async fn by_mail(
    db: &TestDb,
    games: Vec<(i64, Vec<String>)>,
    clients: usize,
    seconds: u64,
) -> (usize, usize, Duration) {
    let inbox = Arc::new(Inbox::new(
        db.store.clone_handle(),
        EmailAddress::parse("games@pp.example").unwrap(),
        InboundSettings {
            reply_domain: Some("pp.example".into()),
            max_bytes: 256 * 1024,
            per_hour: 0,
            ..InboundSettings::default()
        },
    ));
    let mut shares: Vec<Vec<i64>> = (0..clients).map(|_| Vec::new()).collect();
    for (i, (id, _)) in games.into_iter().enumerate() {
        shares[i % clients].push(id);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let tasks: Vec<_> = shares
        .into_iter()
        .enumerate()
        .map(|(c, mine)| {
            let inbox = inbox.clone();
            let store = db.store.clone_handle();
            actix_web::rt::spawn(async move {
                let mut rng = bot_rng(&Seed::from_number(100 + c as u64));
                let (mut done, mut handled, mut turn) = (0, 0, 0usize);
                while Instant::now() < deadline {
                    let game = mine[turn % mine.len()];
                    turn += 1;
                    let loaded = store.load(game).await.unwrap();
                    let Some(&seat) = loaded.game.active().first() else { continue };
                    let secret = secret_for(store.pool(), game, seat).await.expect("a reply address");
                    let line = random_line(&loaded.game.choices(seat), &mut rng);
                    let raw = format!(
                        "From: <{}>\r\nTo: <play+{secret}@pp.example>\r\nSubject: Re: your turn\r\n\
                         Message-ID: <b{c}.{turn}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
                         {line}\r\n\r\nOn Monday postplay wrote:\r\n> your turn\r\n",
                        address(seat)
                    );
                    let outcome = inbox.receive(raw.as_bytes(), &[]).await.unwrap();
                    handled += 1;
                    if matches!(outcome, Outcome::Done(_)) {
                        done += 1;
                    }
                }
                (done, handled)
            })
        })
        .collect();
    let (mut done, mut handled) = (0, 0);
    for task in tasks {
        let (d, h) = task.await.unwrap();
        done += d;
        handled += h;
    }
    (done, handled, start.elapsed())
}

async fn by_api(
    base: &str,
    db: &TestDb,
    games: Vec<(i64, Vec<String>)>,
    clients: usize,
    seconds: u64,
) -> (usize, Duration) {
    let mut shares: Vec<Vec<(i64, Vec<String>)>> = (0..clients).map(|_| Vec::new()).collect();
    for (i, game) in games.into_iter().enumerate() {
        shares[i % clients].push(game);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let tasks: Vec<_> = shares
        .into_iter()
        .enumerate()
        .map(|(c, mine)| {
            let base = base.to_string();
            let store = db.store.clone_handle();
            actix_web::rt::spawn(async move {
                let client = Client::builder().timeout(Duration::from_secs(30)).finish();
                let mut rng = bot_rng(&Seed::from_number(c as u64));
                let (mut moves, mut turn) = (0, 0usize);
                while Instant::now() < deadline {
                    let (game, tokens) = &mine[turn % mine.len()];
                    turn += 1;
                    let loaded = store.load(*game).await.unwrap();
                    let Some(&seat) = loaded.game.active().first() else {
                        continue;
                    };
                    let command =
                        postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng)
                            .unwrap();
                    let body = json!({"command": command, "expected_seq": loaded.row.head_seq})
                        .to_string();
                    let mut res = client
                        .post(format!("{base}/api/games/{game}/commands"))
                        .bearer_auth(&tokens[seat])
                        .insert_header(("Content-Type", "application/json"))
                        .send_body(body)
                        .await
                        .expect("the server answers");
                    let _ = res.body().await;
                    assert_eq!(res.status().as_u16(), 201);
                    moves += 1;
                }
                moves
            })
        })
        .collect();
    let mut moves = 0;
    for task in tasks {
        moves += task.await.unwrap();
    }
    (moves, start.elapsed())
}

fn main() {
    actix_web::rt::System::new().block_on(async {
        let seconds = env_number("POSTPLAY_LOAD_SECONDS", 10);
        let clients = env_number("POSTPLAY_LOAD_CLIENTS", 8) as usize;
        let db = TestDb::new().await;
        let base = spawn_app(&db);
        let api_games = games(&db, 64, 1).await;
        let (moves, elapsed) = by_api(&base, &db, api_games, clients, seconds).await;
        let api = moves as f64 / elapsed.as_secs_f64();
        println!("JSON API, {clients} clients, 64 games: {api:.0} moves/s");
        let mail_games = games(&db, 64, 10_000).await;
        let (done, handled, elapsed) = by_mail(&db, mail_games, clients, seconds).await;
        let mail = handled as f64 / elapsed.as_secs_f64();
        println!(
            "replies by mail, {clients} clients, 64 games: {mail:.0} messages/s ({:.0} moves/s; {done} of {handled} played, the rest refused and answered); {:.0}% of the JSON API",
            done as f64 / elapsed.as_secs_f64(),
            100.0 * mail / api
        );
        db.drop().await;
    });
}
