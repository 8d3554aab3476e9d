//! One seat's wait, as a row of `seat_clocks`: started when the seat becomes awaited, ended
//! when it moves, suspended by a pause or a vacation and resumed after.

use crate::domain::ClockSettings;
use chrono::{DateTime, Duration, Utc};
use sqlx::{PgConnection, Row};

/// The share of a wait after which the first reminder goes out.
const REMIND_SHARE: f64 = 0.8;

/// The settings and pause of a game, read in the transaction.
pub struct GameClock {
    /// The settings.
    pub settings: ClockSettings,
    /// Set while the organiser has paused the game.
    pub paused: bool,
}

/// Reads a game's clock settings.
pub async fn game_clock(tx: &mut PgConnection, game_id: i64) -> Result<GameClock, sqlx::Error> {
    let row = sqlx::query("SELECT clock, paused_at FROM games WHERE id = $1")
        .bind(game_id)
        .fetch_one(tx)
        .await?;
    let clock: serde_json::Value = row.try_get("clock")?;
    Ok(GameClock {
        settings: serde_json::from_value(clock).unwrap_or_default(),
        paused: row
            .try_get::<Option<DateTime<Utc>>, _>("paused_at")?
            .is_some(),
    })
}

/// True if the seat's address is on vacation now (and the game lets vacations stop clocks).
pub async fn on_vacation(
    tx: &mut PgConnection,
    clock: &GameClock,
    game_id: i64,
    seat: i32,
) -> Result<bool, sqlx::Error> {
    if !clock.settings.vacation {
        return Ok(false);
    }
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM vacations v JOIN seats s ON lower(s.email) = v.email \
         WHERE s.game_id = $1 AND s.seat = $2 AND v.ended_at IS NULL)",
    )
    .bind(game_id)
    .bind(seat)
    .fetch_one(tx)
    .await
}

fn secs(d: Duration) -> i64 {
    d.num_seconds()
}

/// When the first reminder is due for a stretch starting `now` with `spent` of `allowance`
/// already used; `None` when reminders do not apply.
fn first_reminder(
    settings: &ClockSettings,
    now: DateTime<Utc>,
    allowance: Duration,
    spent: Duration,
) -> Option<DateTime<Utc>> {
    if !settings.times_out() {
        return None;
    }
    let share = Duration::seconds((allowance.num_seconds() as f64 * REMIND_SHARE) as i64);
    Some(settings.deadline(now, (share - spent).max(Duration::zero())))
}

/// A running stretch's start, the wait's deadline and its first reminder.
pub type Stretch = (
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

/// A wait starting `now` with a bank of `bank` seconds: its running stretch's start, its
/// deadline and its first reminder (none of them while suspended).
pub fn started(
    settings: &ClockSettings,
    bank: i64,
    now: DateTime<Utc>,
    suspended: bool,
) -> Stretch {
    if suspended {
        return (None, None, None);
    }
    let allowance = Duration::seconds(bank);
    (
        Some(now),
        Some(settings.deadline(now, allowance)),
        first_reminder(settings, now, allowance, Duration::zero()),
    )
}

/// The bank a seat keeps when its wait ends `now`: what was left (with the increment) if it
/// moved, else what the control gives a wait that ended unplayed.
pub fn bank_after(settings: &ClockSettings, wait: &Wait, now: DateTime<Utc>, moved: bool) -> i64 {
    let left = (wait.allowance - wait.used(settings, now)).max(Duration::zero());
    let bank = if moved {
        settings.bank_after_move(left)
    } else {
        match settings.control {
            crate::domain::TimeControl::Fischer { .. } => left,
            _ => settings.first_allowance(),
        }
    };
    secs(bank)
}

/// Starts a wait for `seat` at position `seq`, suspended if `suspended`.
pub async fn start(
    tx: &mut PgConnection,
    clock: &GameClock,
    game_id: i64,
    seat: i32,
    seq: i64,
    now: DateTime<Utc>,
    suspended: bool,
) -> Result<(), sqlx::Error> {
    // Games made before the clock, or imported, get their seats' clocks when first awaited.
    let (bank, bot): (i64, bool) = sqlx::query_as(
        "INSERT INTO seat_clocks (game_id, seat, bank_secs) VALUES ($1, $2, $3) \
         ON CONFLICT (game_id, seat) DO UPDATE SET bank_secs = seat_clocks.bank_secs \
         RETURNING bank_secs, EXISTS (SELECT 1 FROM seats s WHERE s.game_id = $1 \
           AND s.seat = $2 AND s.bot IS NOT NULL)",
    )
    .bind(game_id)
    .bind(seat)
    .bind(clock.settings.first_allowance().num_seconds())
    .fetch_one(&mut *tx)
    .await?;
    // A practice bot's seat has no clock: no wait, no deadline, no reminder, no idle notice.
    if bot {
        return Ok(());
    }
    let (stretch, due, remind) = started(&clock.settings, bank, now, suspended);
    sqlx::query(
        "UPDATE seat_clocks SET awaited_seq = $3, waiting_since = $4, allowance_secs = $5, \
         spent_secs = 0, stretch_start = $6, due_at = $7, remind_at = $8, reminders = 0, \
         lease_until = NULL WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .bind(seq)
    .bind(now)
    .bind(bank)
    .bind(stretch)
    .bind(due)
    .bind(remind)
    .execute(tx)
    .await?;
    Ok(())
}

/// The row of a wait.
pub struct Wait {
    /// Clock time the wait has in all.
    pub allowance: Duration,
    /// Spent before the running stretch.
    pub spent: Duration,
    /// When the running stretch began (`None` while suspended).
    pub stretch_start: Option<DateTime<Utc>>,
    /// When it runs out.
    pub due_at: Option<DateTime<Utc>>,
    /// Reminders sent.
    pub reminders: i32,
}

/// The seat's wait, if it is awaited.
pub async fn wait(
    tx: &mut PgConnection,
    game_id: i64,
    seat: i32,
) -> Result<Option<Wait>, sqlx::Error> {
    let row = sqlx::query(
        "SELECT allowance_secs, spent_secs, stretch_start, due_at, reminders FROM seat_clocks \
         WHERE game_id = $1 AND seat = $2 AND awaited_seq IS NOT NULL FOR UPDATE",
    )
    .bind(game_id)
    .bind(seat)
    .fetch_optional(tx)
    .await?;
    row.map(|r| {
        Ok(Wait {
            allowance: Duration::seconds(
                r.try_get::<Option<i64>, _>("allowance_secs")?.unwrap_or(0),
            ),
            spent: Duration::seconds(r.try_get("spent_secs")?),
            stretch_start: r.try_get("stretch_start")?,
            due_at: r.try_get("due_at")?,
            reminders: r.try_get("reminders")?,
        })
    })
    .transpose()
}

impl Wait {
    /// Clock time used so far.
    pub fn used(&self, settings: &ClockSettings, now: DateTime<Utc>) -> Duration {
        self.spent
            + self
                .stretch_start
                .map_or(Duration::zero(), |s| settings.used(s, now.max(s)))
    }
}

/// Ends the seat's wait; if the seat moved, its bank gets what was left (plus the increment).
pub async fn finish(
    tx: &mut PgConnection,
    clock: &GameClock,
    game_id: i64,
    seat: i32,
    now: DateTime<Utc>,
    moved: bool,
) -> Result<(), sqlx::Error> {
    let Some(wait) = wait(tx, game_id, seat).await? else {
        return Ok(());
    };
    let bank = bank_after(&clock.settings, &wait, now, moved);
    sqlx::query(
        "UPDATE seat_clocks SET bank_secs = $3, awaited_seq = NULL, waiting_since = NULL, \
         allowance_secs = NULL, spent_secs = 0, stretch_start = NULL, due_at = NULL, \
         remind_at = NULL, reminders = 0, lease_until = NULL WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .bind(bank)
    .execute(tx)
    .await?;
    Ok(())
}

/// Makes the seat's running wait due again at `now`, its lease ended: the clock moved for it
/// and it is still to move, so the scheduler's next pass plays its next move too.
pub async fn due_again(
    tx: &mut PgConnection,
    game_id: i64,
    seat: i32,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE seat_clocks SET due_at = $3, remind_at = NULL, lease_until = NULL \
         WHERE game_id = $1 AND seat = $2 AND awaited_seq IS NOT NULL AND due_at IS NOT NULL",
    )
    .bind(game_id)
    .bind(seat)
    .bind(now)
    .execute(tx)
    .await?;
    Ok(())
}

/// Stops the running stretch of the seat's wait (a pause, a vacation); its time stands still.
pub async fn suspend(
    tx: &mut PgConnection,
    clock: &GameClock,
    game_id: i64,
    seat: i32,
    now: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    let Some(wait) = wait(tx, game_id, seat).await? else {
        return Ok(());
    };
    if wait.stretch_start.is_none() {
        return Ok(());
    }
    sqlx::query(
        "UPDATE seat_clocks SET spent_secs = $3, stretch_start = NULL, due_at = NULL, \
         remind_at = NULL WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .bind(secs(wait.used(&clock.settings, now)))
    .execute(tx)
    .await?;
    Ok(())
}

/// Runs the seat's suspended wait again from `now`, or moves its deadline after `extra` more
/// time (an organiser's extension) if it runs.
pub async fn resume(
    tx: &mut PgConnection,
    clock: &GameClock,
    game_id: i64,
    seat: i32,
    now: DateTime<Utc>,
    extra: Duration,
) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
    let Some(wait) = wait(tx, game_id, seat).await? else {
        return Ok(None);
    };
    let allowance = wait.allowance + extra;
    let spent = wait.used(&clock.settings, now);
    let due = clock
        .settings
        .deadline(now, (allowance - spent).max(Duration::zero()));
    let remind = match wait.reminders {
        0 => first_reminder(&clock.settings, now, allowance, spent),
        1 if clock.settings.times_out() => Some((due - Duration::hours(24)).max(now)),
        _ => None,
    };
    sqlx::query(
        "UPDATE seat_clocks SET allowance_secs = $3, spent_secs = $4, stretch_start = $5, \
         due_at = $6, remind_at = $7, lease_until = NULL WHERE game_id = $1 AND seat = $2",
    )
    .bind(game_id)
    .bind(seat)
    .bind(secs(allowance))
    .bind(secs(spent))
    .bind(now)
    .bind(due)
    .bind(remind)
    .execute(tx)
    .await?;
    Ok(Some(due))
}
