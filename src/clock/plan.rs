//! The clock's part in a move written in one statement: it reads the game's settings, pause
//! and every seat's wait, simulates the entries' waits in memory (end the waits of seats no
//! longer awaited, start those of seats newly awaited), and hands the store each changed
//! seat's final row. A seat's own move after its deadline is refused here and, however the
//! timing falls, by a guard inside the writing statement.

use super::waits::{Wait, bank_after, started};
use crate::domain::ClockSettings;
use crate::engine::record::Mark;
use crate::notices::plan::DEADLINES;
use crate::store::game::effects::{Appended, EffectError};
use crate::store::game::plan::{Arg, MovePlan, Sql};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::Value;

/// What the clock reads for a move (`$1`: the game's id).
pub const READS: &str = "SELECT jsonb_build_object('clock', g.clock, 'paused', \
    g.paused_at IS NOT NULL, 'seats', (SELECT coalesce(jsonb_agg(jsonb_build_object(\
    'seat', s.seat, 'bot', s.bot IS NOT NULL, 'away', EXISTS (SELECT 1 FROM vacations v WHERE v.email = lower(s.email) \
    AND v.ended_at IS NULL), 'bank', c.bank_secs, 'awaited', c.awaited_seq, \
    'allowance', c.allowance_secs, 'spent', c.spent_secs, 'stretch', c.stretch_start, \
    'due', c.due_at) ORDER BY s.seat), '[]') FROM seats s LEFT JOIN seat_clocks c \
    ON c.game_id = s.game_id AND c.seat = s.seat WHERE s.game_id = $1)) \
    FROM games g WHERE g.id = $1";

/// The changed waits, one row each, whatever they were.
const WRITE: &str = "INSERT INTO seat_clocks (game_id, seat, bank_secs, awaited_seq, \
    waiting_since, allowance_secs, spent_secs, stretch_start, due_at, remind_at, reminders, \
    lease_until) SELECT $1, u.seat, u.bank, u.awaited, u.since, u.allowance, 0, u.stretch, \
    u.due, u.remind, 0, NULL FROM head, unnest($2::int[], $3::bigint[], $4::bigint[], \
    $5::timestamptz[], $6::bigint[], $7::timestamptz[], $8::timestamptz[], \
    $9::timestamptz[]) AS u(seat, bank, awaited, since, allowance, stretch, due, remind) \
    ON CONFLICT (game_id, seat) DO UPDATE SET bank_secs = excluded.bank_secs, \
    awaited_seq = excluded.awaited_seq, waiting_since = excluded.waiting_since, \
    allowance_secs = excluded.allowance_secs, spent_secs = 0, \
    stretch_start = excluded.stretch_start, due_at = excluded.due_at, \
    remind_at = excluded.remind_at, reminders = 0, lease_until = NULL";

/// The mover's deadline has not passed at the move's time, as the database holds it when the
/// move is written.
const IN_TIME: &str = "NOT EXISTS (SELECT 1 FROM seat_clocks WHERE game_id = $1 AND seat = $2 \
    AND awaited_seq IS NOT NULL AND due_at <= $3)";

/// The game's pause is as read (a pause between the read and the write would not stop the
/// waits this move starts).
const PAUSE_AS_READ: &str = "(paused_at IS NOT NULL) = $1";

#[derive(Deserialize)]
struct Read {
    clock: Option<Value>,
    paused: bool,
    seats: Vec<SeatRead>,
}

#[derive(Deserialize, Clone)]
struct SeatRead {
    seat: i32,
    /// A practice bot plays it: it never has a wait (docs/BOTS.md).
    bot: bool,
    away: bool,
    bank: Option<i64>,
    awaited: Option<i64>,
    allowance: Option<i64>,
    spent: Option<i64>,
    stretch: Option<DateTime<Utc>>,
    due: Option<DateTime<Utc>>,
}

/// A seat's wait as planned.
#[derive(Clone)]
struct State {
    read: SeatRead,
    since: Option<DateTime<Utc>>,
    remind: Option<DateTime<Utc>>,
    changed: bool,
}

/// Plans the clock's rows for `entries`; false for what only the transaction does (the
/// clock's own moves, the organiser's cancellation).
pub fn plan(
    read: &Value,
    entries: &[Appended<'_>],
    plan: &mut MovePlan,
) -> Result<bool, EffectError> {
    if entries.iter().any(|e| e.by_clock() || e.by_organiser()) {
        return Ok(false);
    }
    let Some(first) = entries.first() else {
        return Ok(true);
    };
    let read: Read = serde_json::from_value(read.clone())
        .map_err(|e| EffectError::Refused(format!("the clock's read: {e}")))?;
    let settings: ClockSettings = read
        .clock
        .and_then(|c| serde_json::from_value(c).ok())
        .unwrap_or_default();
    let game_id = first.row.id;
    let mut seats: Vec<State> = read
        .seats
        .into_iter()
        .map(|r| State {
            read: r,
            since: None,
            remind: None,
            changed: false,
        })
        .collect();
    plan.guards.push(Sql {
        text: PAUSE_AS_READ,
        args: vec![Arg::Bool(read.paused)],
    });
    for entry in entries {
        let mover = entry.seat;
        if settings.times_out() && matches!(entry.by, None | Some(Mark::Undo)) {
            let late = seats
                .get(mover)
                .filter(|s| s.read.awaited.is_some())
                .and_then(|s| s.read.due)
                .filter(|due| *due <= entry.at);
            if let Some(due) = late {
                return Err(EffectError::Refused(format!(
                    "your time ran out at {} UTC: the clock moves for you",
                    due.format("%Y-%m-%d %H:%M:%S")
                )));
            }
            if entry.seq == first.seq {
                plan.guards.push(Sql {
                    text: IN_TIME,
                    args: vec![
                        Arg::I64(game_id),
                        Arg::I64(mover as i64),
                        Arg::Time(entry.at),
                    ],
                });
            }
        }
        let after = if entry.game.outcome().is_some() {
            Vec::new()
        } else {
            entry.game.active()
        };
        for &seat in entry.before {
            if after.contains(&seat) {
                continue;
            }
            let Some(state) = seats.get_mut(seat) else {
                continue;
            };
            if state.read.awaited.is_none() {
                continue;
            }
            let wait = Wait {
                allowance: Duration::seconds(state.read.allowance.unwrap_or(0)),
                spent: Duration::seconds(state.read.spent.unwrap_or(0)),
                stretch_start: state.read.stretch,
                due_at: state.read.due,
                reminders: 0,
            };
            let bank = bank_after(&settings, &wait, entry.at, seat == mover);
            *state = State {
                read: SeatRead {
                    bank: Some(bank),
                    awaited: None,
                    allowance: None,
                    spent: Some(0),
                    stretch: None,
                    due: None,
                    ..state.read.clone()
                },
                since: None,
                remind: None,
                changed: true,
            };
        }
        for &seat in &after {
            if entry.before.contains(&seat) {
                continue;
            }
            let Some(state) = seats.get_mut(seat).filter(|s| !s.read.bot) else {
                continue;
            };
            let bank = state
                .read
                .bank
                .unwrap_or_else(|| settings.first_allowance().num_seconds());
            let away = read.paused || (settings.vacation && state.read.away);
            let (stretch, due, remind) = started(&settings, bank, entry.at, away);
            *state = State {
                read: SeatRead {
                    bank: Some(bank),
                    awaited: Some(entry.seq),
                    allowance: Some(bank),
                    spent: Some(0),
                    stretch,
                    due,
                    ..state.read.clone()
                },
                since: Some(entry.at),
                remind,
                changed: true,
            };
        }
    }
    let changed: Vec<&State> = seats.iter().filter(|s| s.changed).collect();
    let deadlines: serde_json::Map<String, Value> = changed
        .iter()
        .map(|s| (s.read.seat.to_string(), serde_json::json!(s.read.due)))
        .collect();
    plan.notes
        .insert(DEADLINES.to_string(), Value::Object(deadlines));
    plan.writes.push(Sql {
        text: WRITE,
        args: vec![
            Arg::I64(game_id),
            Arg::I32s(changed.iter().map(|s| s.read.seat).collect()),
            Arg::I64s(changed.iter().map(|s| s.read.bank).collect()),
            Arg::I64s(changed.iter().map(|s| s.read.awaited).collect()),
            Arg::Times(changed.iter().map(|s| s.since).collect()),
            Arg::I64s(changed.iter().map(|s| s.read.allowance).collect()),
            Arg::Times(changed.iter().map(|s| s.read.stretch).collect()),
            Arg::Times(changed.iter().map(|s| s.read.due).collect()),
            Arg::Times(changed.iter().map(|s| s.remind).collect()),
        ],
    });
    Ok(true)
}
