//! A game's correspondence clock, as chosen at creation: the time control, the weekend pause
//! in the game's time zone, what a timeout does, whether vacations stop it. Parsed once (from
//! the create form or the stored JSON) and described for pages and mail.

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Utc, Weekday};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

/// The most days any clock setting may name.
pub const MAX_DAYS: u32 = 60;

/// How much time a seat has.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControl {
    /// No limit; after `safety_days` without a move the organiser is asked to act.
    None {
        /// Days before the organiser is asked.
        safety_days: u32,
    },
    /// The same time for every move.
    PerMove {
        /// Days a move.
        days: u32,
    },
    /// A bank that starts at `initial_days`, gains `increment_days` after each move, and
    /// never holds more than `cap_days`.
    Fischer {
        /// The bank at the start.
        initial_days: u32,
        /// Added after each move.
        increment_days: u32,
        /// The most the bank holds.
        cap_days: u32,
    },
}

/// What happens when a seat's time runs out.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// The game's own cautious move is played for the seat.
    #[default]
    Move,
    /// The seat forfeits and the game ends.
    Forfeit,
}

/// A game's clock settings.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ClockSettings {
    /// The time control.
    pub control: TimeControl,
    /// Saturdays and Sundays (in `time_zone`) do not count.
    #[serde(default)]
    pub weekend_pause: bool,
    /// The game's time zone (IANA name), for the weekend pause and pages' default.
    #[serde(default = "utc")]
    pub time_zone: String,
    /// What a timeout does.
    #[serde(default)]
    pub on_timeout: OnTimeout,
    /// Whether a seat's vacation stops its clock in this game.
    #[serde(default = "yes")]
    pub vacation: bool,
}

fn utc() -> String {
    "UTC".into()
}

fn yes() -> bool {
    true
}

impl Default for ClockSettings {
    fn default() -> ClockSettings {
        ClockSettings {
            control: TimeControl::None { safety_days: 21 },
            weekend_pause: false,
            time_zone: utc(),
            on_timeout: OnTimeout::Move,
            vacation: true,
        }
    }
}

/// Why clock settings are refused; the message is for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidClock(pub String);

impl ClockSettings {
    /// Checks settings made by a form or read from JSON.
    pub fn checked(self) -> Result<ClockSettings, InvalidClock> {
        let days = match self.control {
            TimeControl::None { safety_days } => vec![safety_days],
            TimeControl::PerMove { days } => vec![days],
            TimeControl::Fischer {
                initial_days,
                increment_days,
                cap_days,
            } => {
                if cap_days < initial_days {
                    return Err(InvalidClock(
                        "the cap must be at least the initial time".into(),
                    ));
                }
                vec![initial_days, increment_days.max(1), cap_days]
            }
        };
        if days.iter().any(|&d| d == 0 || d > MAX_DAYS) {
            return Err(InvalidClock(format!(
                "clock times are 1 to {MAX_DAYS} days"
            )));
        }
        self.zone()?;
        Ok(self)
    }

    /// The settings a create form chose (`field` looks a form field up): `clock` is `none`,
    /// `move:N` (days), `fischer:I:N:C` (days) or `custom` (then `clock_initial`,
    /// `clock_increment`, `clock_cap`); `weekend_pause`, `time_zone`, `on_timeout`
    /// (`move`/`forfeit`), `vacation` (a checkbox).
    pub fn from_form<'a>(
        field: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<ClockSettings, InvalidClock> {
        let number = |name: &str| -> Result<u32, InvalidClock> {
            field(name).unwrap_or("").trim().parse().map_err(|_| {
                let words = match name {
                    "clock_initial" => "the days at the start",
                    "clock_increment" => "the days added a move",
                    _ => "the most days",
                };
                InvalidClock(format!("{words}: a whole number of days, please"))
            })
        };
        let choice = field("clock").unwrap_or("none");
        let parts: Vec<&str> = choice.split(':').collect();
        let parse = |s: &str| {
            s.parse::<u32>()
                .map_err(|_| InvalidClock(format!("{choice:?} is no time control")))
        };
        let control = match parts.as_slice() {
            ["none"] => TimeControl::None { safety_days: 21 },
            ["move", days] => TimeControl::PerMove { days: parse(days)? },
            ["fischer", i, n, c] => TimeControl::Fischer {
                initial_days: parse(i)?,
                increment_days: parse(n)?,
                cap_days: parse(c)?,
            },
            ["custom"] => TimeControl::Fischer {
                initial_days: number("clock_initial")?,
                increment_days: number("clock_increment")?,
                cap_days: number("clock_cap")?,
            },
            _ => return Err(InvalidClock(format!("{choice:?} is no time control"))),
        };
        ClockSettings {
            control,
            weekend_pause: field("weekend_pause") == Some("true"),
            time_zone: field("time_zone")
                .map(str::trim)
                .filter(|z| !z.is_empty())
                .unwrap_or("UTC")
                .to_string(),
            on_timeout: match field("on_timeout") {
                Some("forfeit") => OnTimeout::Forfeit,
                _ => OnTimeout::Move,
            },
            vacation: field("vacation") == Some("true"),
        }
        .checked()
    }

    /// The settings stored with a game (`{"clock": …}`), or the default for a game without.
    pub fn of_game(settings: &serde_json::Value) -> ClockSettings {
        serde_json::from_value(settings["clock"].clone()).unwrap_or_default()
    }

    /// The time zone.
    pub fn zone(&self) -> Result<Tz, InvalidClock> {
        self.time_zone
            .parse()
            .map_err(|_| InvalidClock(format!("{:?} is not a time zone", self.time_zone)))
    }

    /// True when timeouts apply (not the "no limit" control).
    pub fn times_out(&self) -> bool {
        !matches!(self.control, TimeControl::None { .. })
    }

    /// The clock time a seat has when it is first awaited.
    pub fn first_allowance(&self) -> Duration {
        match self.control {
            TimeControl::None { safety_days } => Duration::days(safety_days.into()),
            TimeControl::PerMove { days } => Duration::days(days.into()),
            TimeControl::Fischer { initial_days, .. } => Duration::days(initial_days.into()),
        }
    }

    /// The bank after a move that left `left` of the allowance.
    pub fn bank_after_move(&self, left: Duration) -> Duration {
        match self.control {
            TimeControl::Fischer {
                increment_days,
                cap_days,
                ..
            } => {
                (left + Duration::days(increment_days.into())).min(Duration::days(cap_days.into()))
            }
            _ => self.first_allowance(),
        }
    }

    /// The time control alone, short enough for a list: "3 days a move", "2 days + 1 day a
    /// move, at most 5 days", "no time limit".
    pub fn control_words(&self) -> String {
        let days = |n: u32| format!("{n} day{}", if n == 1 { "" } else { "s" });
        match self.control {
            TimeControl::None { .. } => "no time limit".to_string(),
            TimeControl::PerMove { days: d } => format!("{} a move", days(d)),
            TimeControl::Fischer {
                initial_days,
                increment_days,
                cap_days,
            } => format!(
                "{} + {} a move, at most {}",
                days(initial_days),
                days(increment_days),
                days(cap_days)
            ),
        }
    }

    /// One line for pages and invitations: "3 days a move, weekends paused (Europe/Paris)".
    pub fn describe(&self) -> String {
        let days = |n: u32| format!("{n} day{}", if n == 1 { "" } else { "s" });
        let mut text = match self.control {
            TimeControl::None { safety_days } => format!(
                "no time limit (the organiser is asked after {} without a move)",
                days(safety_days)
            ),
            _ => self.control_words(),
        };
        if self.weekend_pause {
            text.push_str(&format!(", weekends paused ({})", self.time_zone));
        }
        if self.times_out() {
            text.push_str(match self.on_timeout {
                OnTimeout::Move => "; when time runs out, a cautious move is played",
                OnTimeout::Forfeit => "; when time runs out, that player forfeits",
            });
        }
        text
    }

    /// When `allowance` of clock time, starting at `start`, runs out.
    pub fn deadline(&self, start: DateTime<Utc>, allowance: Duration) -> DateTime<Utc> {
        match self.weekend_zone() {
            None => start + allowance,
            Some(zone) => {
                let (mut at, mut left) = (start, allowance);
                loop {
                    at = skip_weekend(at, zone);
                    let weekend = next_weekend(at, zone);
                    if at + left <= weekend {
                        return at + left;
                    }
                    left -= weekend - at;
                    at = weekend;
                }
            }
        }
    }

    /// The clock time between `start` and `end` (weekends not counted when paused).
    pub fn used(&self, start: DateTime<Utc>, end: DateTime<Utc>) -> Duration {
        match self.weekend_zone() {
            None => end - start,
            Some(zone) => {
                let (mut at, mut used) = (start, Duration::zero());
                while at < end {
                    at = skip_weekend(at, zone);
                    if at >= end {
                        break;
                    }
                    let weekend = next_weekend(at, zone).min(end);
                    used += weekend - at;
                    at = weekend;
                }
                used
            }
        }
    }

    fn weekend_zone(&self) -> Option<Tz> {
        self.weekend_pause.then(|| self.zone().unwrap_or(Tz::UTC))
    }
}

/// Midnight at the start of `date` in `zone`, as UTC (the earlier instant if ambiguous; the
/// first instant after the gap if it does not exist).
fn local_midnight(zone: Tz, date: chrono::NaiveDate) -> DateTime<Utc> {
    let mut time = date.and_time(NaiveTime::MIN);
    loop {
        if let Some(at) = zone.from_local_datetime(&time).earliest() {
            return at.with_timezone(&Utc);
        }
        time += Duration::minutes(30);
    }
}

/// `at`, or the Monday after if `at` falls on a weekend in `zone`.
fn skip_weekend(at: DateTime<Utc>, zone: Tz) -> DateTime<Utc> {
    let local = at.with_timezone(&zone).date_naive();
    match local.weekday() {
        Weekday::Sat => local_midnight(zone, local + Duration::days(2)),
        Weekday::Sun => local_midnight(zone, local + Duration::days(1)),
        _ => at,
    }
}

/// The start of the next Saturday in `zone`, after a weekday `at`.
fn next_weekend(at: DateTime<Utc>, zone: Tz) -> DateTime<Utc> {
    let local = at.with_timezone(&zone).date_naive();
    let until = (Weekday::Sat.num_days_from_monday() as i64)
        - (local.weekday().num_days_from_monday() as i64);
    local_midnight(zone, local + Duration::days(until.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn paused(zone: &str) -> ClockSettings {
        ClockSettings {
            control: TimeControl::PerMove { days: 2 },
            weekend_pause: true,
            time_zone: zone.into(),
            ..ClockSettings::default()
        }
    }

    #[test]
    fn without_the_pause_a_deadline_is_plain_addition() {
        let s = ClockSettings {
            control: TimeControl::PerMove { days: 3 },
            ..ClockSettings::default()
        };
        let start = at("2026-11-27T10:00:00Z");
        assert_eq!(
            s.deadline(start, Duration::days(3)),
            at("2026-11-30T10:00:00Z")
        );
    }

    #[test]
    fn weekends_do_not_count() {
        let s = paused("UTC");
        // Thursday 10:00 + 2 days: 38 hours to Saturday, the weekend skipped, the other 10
        // on Monday.
        let start = at("2026-11-26T10:00:00Z");
        assert_eq!(
            s.deadline(start, Duration::days(2)),
            at("2026-11-30T10:00:00Z")
        );
        // A wait started on Saturday starts counting on Monday.
        assert_eq!(
            s.deadline(at("2026-11-28T15:00:00Z"), Duration::days(1)),
            at("2026-12-01T00:00:00Z")
        );
        assert_eq!(
            s.used(at("2026-11-27T12:00:00Z"), at("2026-11-30T12:00:00Z")),
            Duration::hours(24)
        );
    }

    #[test]
    fn the_weekend_follows_the_local_clock_across_daylight_saving() {
        // Europe/Paris leaves summer time on Sunday 25 October 2026: the weekend there runs
        // from Friday 22:00 UTC to Sunday 23:00 UTC (49 hours).
        let s = paused("Europe/Paris");
        let friday_noon = at("2026-10-23T10:00:00Z");
        let deadline = s.deadline(friday_noon, Duration::hours(24));
        // 12 h on Friday (10:00 → 22:00 UTC), the rest from Monday 00:00 Paris = Sunday
        // 23:00 UTC.
        assert_eq!(deadline, at("2026-10-26T11:00:00Z"));
        assert_eq!(s.used(friday_noon, deadline), Duration::hours(24));
        // And into summer time (29 March 2026): the weekend is 47 hours, Friday 23:00 UTC to
        // Sunday 22:00 UTC.
        let friday = at("2026-03-27T11:00:00Z");
        assert_eq!(
            s.deadline(friday, Duration::hours(14)),
            at("2026-03-30T00:00:00Z")
        );
    }

    #[test]
    fn fischer_banks_grow_to_the_cap() {
        let s = ClockSettings {
            control: TimeControl::Fischer {
                initial_days: 3,
                increment_days: 1,
                cap_days: 7,
            },
            ..ClockSettings::default()
        };
        assert_eq!(s.first_allowance(), Duration::days(3));
        assert_eq!(s.bank_after_move(Duration::days(2)), Duration::days(3));
        assert_eq!(s.bank_after_move(Duration::days(7)), Duration::days(7));
    }

    #[test]
    fn bad_settings_are_refused() {
        for bad in [
            ClockSettings {
                control: TimeControl::PerMove { days: 0 },
                ..ClockSettings::default()
            },
            ClockSettings {
                control: TimeControl::Fischer {
                    initial_days: 5,
                    increment_days: 1,
                    cap_days: 3,
                },
                ..ClockSettings::default()
            },
            ClockSettings {
                time_zone: "Mars/Olympus".into(),
                ..ClockSettings::default()
            },
        ] {
            assert!(bad.checked().is_err());
        }
    }
}
