//! The club day's morning: accounts in bulk, running games of all five kinds created through
//! the store as the server creates them (clock and mail effects in their transactions), a few
//! random moves into each, and the deadlines that fall due during the day.

use crate::common::TestDb;
use crate::settings::Settings;
use postplay::domain::{ClockSettings, TimeControl};
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{DynMatch, Log, Seed};
use postplay::games::find_game;
use postplay::store::{EmailAddress, NewSeat, PlayerName};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;

/// The five games a club plays.
pub const KINDS: [&str; 5] = [
    "statehood",
    "nationhood",
    "electoral-combat",
    "whitehouse",
    "votes-for-women",
];

/// An account's address: `a{n}@example.org`.
pub fn address(account: usize) -> String {
    format!("a{account}@example.org")
}

/// One running game as its players' clients know it.
pub struct Game {
    /// Its id.
    pub id: i64,
    /// Each seat's link token.
    pub tokens: Vec<String>,
    /// Each seat's account (1-based).
    pub accounts: Vec<usize>,
    /// The position, kept by applying every acknowledged move.
    pub live: Box<dyn DynMatch>,
    /// True while one of the day's moves is in flight for it.
    pub busy: bool,
    /// True for a game whose players are away: the clock plays for them.
    pub timed: bool,
}

/// The day's games, shared by the tasks of the one bench thread.
pub type Games = Rc<RefCell<Vec<Game>>>;

/// Writes `count` accounts `a1@example.org`… in one statement.
pub async fn accounts(db: &TestDb, count: usize) {
    sqlx::query(
        "INSERT INTO accounts (email, name) SELECT 'a' || n || '@example.org', 'Player ' || n \
         FROM generate_series(1, $1) n",
    )
    .bind(count as i64)
    .execute(db.store.pool())
    .await
    .unwrap();
}

/// Creates game number `n` and brings it up to a few random moves, through the store.
async fn one_game(db: &TestDb, settings: &Settings, n: usize) -> Game {
    let kind_id = KINDS[n % KINDS.len()];
    let kind = find_game(kind_id).unwrap();
    let mut rng = bot_rng(&Seed::from_number(500_000 + n as u64));
    let (least, most) = kind.seat_counts();
    let seats = least + rng.index(most - least + 1);
    let mut accounts: Vec<usize> = Vec::new();
    while accounts.len() < seats {
        let a = 1 + rng.index(settings.accounts);
        if !accounts.contains(&a) {
            accounts.push(a);
        }
    }
    let new_seats: Vec<NewSeat> = accounts
        .iter()
        .map(|&a| NewSeat {
            name: PlayerName::parse(&format!("Player {a}")).unwrap(),
            email: Some(EmailAddress::parse(&address(a)).unwrap()),
            bot: None,
        })
        .collect();
    let timed = n < settings.timeouts;
    // A club's slow game: three days a move; the day moves the deadlines of the timed ones.
    let clock = if timed {
        let clock = ClockSettings {
            control: TimeControl::PerMove { days: 3 },
            ..ClockSettings::default()
        };
        json!({ "clock": clock })
    } else {
        Value::Null
    };
    let seed = Seed::from_number(1_000 + n as u64);
    let created = db
        .store
        .create_game_with(kind_id, &json!({}), &new_seats, seed, None, &clock)
        .await
        .unwrap();
    let mut live = kind.new_match(&json!({}), seats, seed).unwrap();
    let opening = rng.index(settings.opening_moves + 1);
    for _ in 0..opening {
        if live.outcome().is_some() {
            break;
        }
        let active = live.active();
        let seat = active[rng.index(active.len())];
        let command = random_command(live.as_ref(), seat, &mut rng).unwrap();
        let head = db
            .store
            .submit(created.id, seat, &command, Some(live.applied() as i64))
            .await
            .unwrap();
        live.apply_json(seat, &command, &mut Log::silent()).unwrap();
        if head as u64 != live.applied() {
            // The server played forced moves after it: read the position back.
            live = db.store.load(created.id).await.unwrap().game;
        }
    }
    Game {
        id: created.id,
        tokens: created.seat_tokens,
        accounts,
        live,
        busy: false,
        timed,
    }
}

/// Creates the day's games, eight at a time.
pub async fn games(db: &TestDb, settings: &Settings) -> Vec<Game> {
    let mut out = Vec::with_capacity(settings.games);
    let mut n = 0;
    while n < settings.games {
        let batch = (settings.games - n).min(8);
        let made =
            futures_util::future::join_all((n..n + batch).map(|i| one_game(db, settings, i))).await;
        out.extend(made);
        n += batch;
    }
    out
}

/// A deadline set to fall due during the day.
pub struct Due {
    /// The game.
    pub game: i64,
    /// The awaited seat.
    pub seat: i32,
    /// When it falls due.
    pub at: chrono::DateTime<chrono::Utc>,
}

/// Moves the deadlines of the timed games' awaited seats to fall due through the day: the
/// i-th of `n` at `(i + 0.5) / n` of the first 90 % of `minutes` from now.
pub async fn deadlines(db: &TestDb, games: &[Game], minutes: f64) -> Vec<Due> {
    let timed: Vec<i64> = games.iter().filter(|g| g.timed).map(|g| g.id).collect();
    let n = timed.len().max(1) as f64;
    let offsets: Vec<f64> = (0..timed.len())
        .map(|i| (i as f64 + 0.5) / n * 0.9 * minutes * 60.0)
        .collect();
    let rows: Vec<(i64, i32, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
        "UPDATE seat_clocks c SET due_at = now() + make_interval(secs => d.secs) \
         FROM UNNEST($1::bigint[], $2::float8[]) AS d(game, secs) \
         WHERE c.game_id = d.game AND c.awaited_seq IS NOT NULL AND c.due_at IS NOT NULL \
         RETURNING c.game_id, c.seat, c.due_at",
    )
    .bind(&timed)
    .bind(&offsets)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    rows.into_iter()
        .map(|(game, seat, at)| Due { game, seat, at })
        .collect()
}

/// Signed-in sessions for the first `count` accounts: their cookies.
pub async fn sessions(db: &TestDb, count: usize) -> Vec<String> {
    let mut cookies = Vec::with_capacity(count);
    for account in 1..=count {
        let token = db.store.start_session(account as i64).await.unwrap();
        cookies.push(format!("pp_session={token}"));
    }
    cookies
}
