//! What people do to the clock: the organiser extends a seat's deadline or pauses and resumes
//! the game; a player starts and ends a vacation, which stops their clocks in every game they
//! play with that address. Each is recorded (`clock_events`) and told to the players. Also
//! what pages and the API show: each awaited seat's deadline.

use super::waits::{self, GameClock};
use crate::domain::ClockSettings;
use crate::notices::clock::{News, Readers, enqueue_clock};
use crate::store::Store;
use crate::time::in_words;
use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use serde::Serialize;
use sqlx::{PgConnection, Row};

/// An awaited seat's deadline, for pages and the API.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SeatDeadline {
    /// The seat.
    pub seat: usize,
    /// Since when it has been awaited.
    pub waiting_since: DateTime<Utc>,
    /// When its time runs out; `None` while the clock stands (pause, vacation) or without a
    /// time limit.
    pub due_at: Option<DateTime<Utc>>,
    /// The clock time left, in words ("2 days 4 hours").
    pub left: Option<String>,
    /// Why the clock stands, if it does.
    pub stopped: Option<&'static str>,
}

/// The deadlines of a game's awaited seats, and its clock settings.
pub async fn deadlines(
    store: &Store,
    game_id: i64,
) -> Result<(ClockSettings, Vec<SeatDeadline>), sqlx::Error> {
    let now = store.now();
    // Two reads on one connection, no transaction: each sees the latest committed state, as
    // it would inside a READ COMMITTED one, without its BEGIN and COMMIT.
    let mut conn = store.pool().acquire().await?;
    let clock = waits::game_clock(&mut conn, game_id).await?;
    let rows = sqlx::query(
        "SELECT seat, waiting_since, allowance_secs, spent_secs, stretch_start, due_at \
         FROM seat_clocks WHERE game_id = $1 AND awaited_seq IS NOT NULL ORDER BY seat",
    )
    .bind(game_id)
    .fetch_all(&mut *conn)
    .await?;
    let mut out = Vec::new();
    for r in rows {
        let seat: i32 = r.try_get("seat")?;
        let due: Option<DateTime<Utc>> = r.try_get("due_at")?;
        let running = r
            .try_get::<Option<DateTime<Utc>>, _>("stretch_start")?
            .is_some();
        let stopped = if clock.paused {
            Some("the game is paused")
        } else if !running {
            Some("on vacation")
        } else {
            None
        };
        let timed = clock.settings.times_out();
        out.push(SeatDeadline {
            seat: seat as usize,
            waiting_since: r.try_get("waiting_since")?,
            due_at: due.filter(|_| timed),
            left: due.filter(|_| timed).map(|d| in_words(d - now)),
            stopped,
        });
    }
    Ok((clock.settings, out))
}

async fn record(
    tx: &mut PgConnection,
    game_id: i64,
    at: DateTime<Utc>,
    what: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO clock_events (game_id, at, what) VALUES ($1, $2, $3)")
        .bind(game_id)
        .bind(at)
        .bind(what)
        .execute(tx)
        .await?;
    Ok(())
}

async fn game_name(tx: &mut PgConnection, game_id: i64) -> Result<String, sqlx::Error> {
    let kind: String = sqlx::query_scalar("SELECT kind FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_one(tx)
        .await?;
    Ok(crate::games::find_game(&kind).map_or(kind, |g| g.name().to_string()))
}

async fn awaited(tx: &mut PgConnection, game_id: i64) -> Result<Vec<i32>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT seat FROM seat_clocks WHERE game_id = $1 AND awaited_seq IS NOT NULL",
    )
    .bind(game_id)
    .fetch_all(tx)
    .await
}

async fn seat_name(tx: &mut PgConnection, game_id: i64, seat: i32) -> Result<String, sqlx::Error> {
    sqlx::query_scalar("SELECT name FROM seats WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat)
        .fetch_one(tx)
        .await
}

/// Why an organiser's or a player's clock action was refused.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    /// Not possible now; the message says why.
    #[error("{0}")]
    Refused(String),
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

/// The organiser gives `seat` `days` more days on its current deadline.
pub async fn extend(store: &Store, game_id: i64, seat: i32, days: u32) -> Result<(), ControlError> {
    if !(1..=30).contains(&days) {
        return Err(ControlError::Refused("an extension is 1 to 30 days".into()));
    }
    let now = store.now();
    let mut tx = store.pool().begin().await?;
    let clock = waits::game_clock(&mut tx, game_id).await?;
    let Some(wait) = waits::wait(&mut tx, game_id, seat).await? else {
        return Err(ControlError::Refused("that seat is not to move".into()));
    };
    let extra = Duration::days(days.into());
    if wait.stretch_start.is_some() {
        waits::resume(&mut tx, &clock, game_id, seat, now, extra).await?;
    } else {
        sqlx::query("UPDATE seat_clocks SET allowance_secs = allowance_secs + $3 WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(seat)
            .bind(extra.num_seconds())
            .execute(&mut *tx)
            .await?;
    }
    let name = seat_name(&mut tx, game_id, seat).await?;
    let what = format!(
        "The organiser gave {name} {days} more day{} to move.",
        if days == 1 { "" } else { "s" }
    );
    record(&mut tx, game_id, now, &what).await?;
    let title = game_name(&mut tx, game_id).await?;
    enqueue_clock(
        &mut tx,
        game_id,
        &title,
        Readers::Everyone,
        News {
            event: format!("extend:{}", now.timestamp_micros()),
            headline: &format!("{name} has more time"),
            lines: vec![what],
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The organiser stops every clock of the game (`pause`) or starts them again.
pub async fn set_paused(store: &Store, game_id: i64, pause: bool) -> Result<(), ControlError> {
    let now = store.now();
    let mut tx = store.pool().begin().await?;
    let clock = waits::game_clock(&mut tx, game_id).await?;
    if clock.paused == pause {
        return Err(ControlError::Refused(
            if pause {
                "the game is paused already"
            } else {
                "the game is not paused"
            }
            .into(),
        ));
    }
    sqlx::query("UPDATE games SET paused_at = $2 WHERE id = $1")
        .bind(game_id)
        .bind(pause.then_some(now))
        .execute(&mut *tx)
        .await?;
    let clock = GameClock {
        paused: pause,
        ..clock
    };
    for seat in awaited(&mut tx, game_id).await? {
        if pause {
            waits::suspend(&mut tx, &clock, game_id, seat, now).await?;
        } else if !waits::on_vacation(&mut tx, &clock, game_id, seat).await? {
            waits::resume(&mut tx, &clock, game_id, seat, now, Duration::zero()).await?;
        }
    }
    let what = if pause {
        "The organiser paused the game: every clock stands until it is resumed."
    } else {
        "The organiser resumed the game: the clocks run again."
    };
    record(&mut tx, game_id, now, what).await?;
    let title = game_name(&mut tx, game_id).await?;
    enqueue_clock(
        &mut tx,
        game_id,
        &title,
        Readers::Everyone,
        News {
            event: format!(
                "{}:{}",
                if pause { "pause" } else { "resume" },
                now.timestamp_micros()
            ),
            headline: if pause {
                "the game is paused"
            } else {
                "the game goes on"
            },
            lines: vec![what.to_string()],
        },
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The vacation days an address has left this calendar year (UTC), of `per_year`.
pub async fn vacation_days_left(
    store: &Store,
    email: &str,
    per_year: u32,
) -> Result<i64, sqlx::Error> {
    let now = store.now();
    let year_start = Utc
        .with_ymd_and_hms(now.year(), 1, 1, 0, 0, 0)
        .single()
        .unwrap_or(now);
    let used: f64 = sqlx::query_scalar(
        "SELECT COALESCE(sum(EXTRACT(EPOCH FROM (LEAST(COALESCE(ended_at, ends_at), $3) - GREATEST(started_at, $2)))), 0)::float8 \
         FROM vacations WHERE email = $1 AND COALESCE(ended_at, ends_at) > $2 AND started_at < $3",
    )
    .bind(email.to_lowercase())
    .bind(year_start)
    .bind(now.max(year_start) + Duration::days(366))
    .fetch_one(store.pool())
    .await?;
    Ok(i64::from(per_year) - (used / 86_400.0).ceil() as i64)
}

/// Whether an address is on vacation now, and until when.
pub async fn vacation_of(store: &Store, email: &str) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
    sqlx::query_scalar("SELECT ends_at FROM vacations WHERE email = $1 AND ended_at IS NULL")
        .bind(email.to_lowercase())
        .fetch_optional(store.pool())
        .await
}

/// The seats (game, seat) of running games played with this address.
async fn seats_of(tx: &mut PgConnection, email: &str) -> Result<Vec<(i64, i32)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT s.game_id, s.seat FROM seats s JOIN games g ON g.id = s.game_id \
         WHERE lower(s.email) = $1 AND g.status = 'running'",
    )
    .bind(email)
    .fetch_all(tx)
    .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("game_id")?, r.try_get("seat")?)))
        .collect()
}

/// Starts a vacation of `days` for an address: its clocks stop in every game that allows it.
pub async fn start_vacation(
    store: &Store,
    email: &str,
    days: u32,
    per_year: u32,
) -> Result<DateTime<Utc>, ControlError> {
    let email = email.to_lowercase();
    let left = vacation_days_left(store, &email, per_year).await?;
    if days == 0 || i64::from(days) > left {
        return Err(ControlError::Refused(format!(
            "you have {} vacation days left this year",
            left.max(0)
        )));
    }
    if vacation_of(store, &email).await?.is_some() {
        return Err(ControlError::Refused(
            "your vacation has already begun".into(),
        ));
    }
    let now = store.now();
    let ends = now + Duration::days(days.into());
    let mut tx = store.pool().begin().await?;
    // One running vacation per address is the database's rule (a unique index): of two
    // starts at once, the second fails here instead of running beside the first.
    let inserted =
        sqlx::query("INSERT INTO vacations (email, started_at, ends_at) VALUES ($1, $2, $3)")
            .bind(&email)
            .bind(now)
            .bind(ends)
            .execute(&mut *tx)
            .await;
    match inserted {
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
            return Err(ControlError::Refused(
                "your vacation has already begun".into(),
            ));
        }
        other => other?,
    };
    for (game, seat) in seats_of(&mut tx, &email).await? {
        let clock = waits::game_clock(&mut tx, game).await?;
        if !clock.settings.vacation {
            continue;
        }
        // A wait already past its deadline is not suspended: that seat's timeout stands.
        let overdue = waits::wait(&mut tx, game, seat)
            .await?
            .and_then(|w| w.due_at)
            .is_some_and(|due| due <= now);
        if overdue {
            continue;
        }
        waits::suspend(&mut tx, &clock, game, seat, now).await?;
        let name = seat_name(&mut tx, game, seat).await?;
        record(
            &mut tx,
            game,
            now,
            &format!("{name} is on vacation until {}.", ends.format("%Y-%m-%d")),
        )
        .await?;
    }
    tx.commit().await?;
    Ok(ends)
}

/// Ends an address's vacation now: its clocks run again (where the game is not paused).
pub async fn end_vacation(store: &Store, email: &str) -> Result<(), ControlError> {
    let email = email.to_lowercase();
    let now = store.now();
    let mut tx = store.pool().begin().await?;
    let ended =
        sqlx::query("UPDATE vacations SET ended_at = $2 WHERE email = $1 AND ended_at IS NULL")
            .bind(&email)
            .bind(now)
            .execute(&mut *tx)
            .await?;
    if ended.rows_affected() == 0 {
        return Err(ControlError::Refused("you are not on vacation".into()));
    }
    resume_address(&mut tx, &email, now).await?;
    tx.commit().await?;
    Ok(())
}

async fn resume_address(
    tx: &mut PgConnection,
    email: &str,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    for (game, seat) in seats_of(tx, email).await? {
        let clock = waits::game_clock(tx, game).await?;
        // Only waits the vacation suspended: one left running (it was overdue) keeps its
        // deadline.
        let suspended = waits::wait(tx, game, seat)
            .await?
            .is_some_and(|w| w.stretch_start.is_none());
        if clock.settings.vacation && !clock.paused && suspended {
            waits::resume(tx, &clock, game, seat, now, Duration::zero()).await?;
        }
    }
    Ok(())
}

/// Ends the vacations whose days are over; how many.
pub async fn end_due_vacations(store: &Store, now: DateTime<Utc>) -> Result<usize, sqlx::Error> {
    let mut tx = store.pool().begin().await?;
    let emails: Vec<String> = sqlx::query_scalar(
        "UPDATE vacations SET ended_at = ends_at WHERE ended_at IS NULL AND ends_at <= $1 RETURNING email",
    )
    .bind(now)
    .fetch_all(&mut *tx)
    .await?;
    for email in &emails {
        resume_address(&mut tx, email, now).await?;
    }
    tx.commit().await?;
    Ok(emails.len())
}
