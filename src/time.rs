//! Time as a dependency: whatever reads "now" takes a [`Clock`], so tests set the time instead
//! of sleeping, and every process agrees on one source.

use chrono::{DateTime, Duration, SubsecRound, Utc};
use std::sync::{Arc, Mutex};

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    /// Now, in UTC, to the microsecond (what PostgreSQL and the hash chain keep).
    fn now(&self) -> DateTime<Utc>;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now().trunc_subsecs(6)
    }
}

/// A clock that stands still until told to move: for tests and benches.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    /// A clock showing `at`.
    pub fn at(at: DateTime<Utc>) -> ManualClock {
        ManualClock(Arc::new(Mutex::new(at.trunc_subsecs(6))))
    }

    /// Moves the clock forward (or back, for a negative duration).
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().expect("clock lock");
        *now += by;
    }

    /// Sets the clock.
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().expect("clock lock") = at.trunc_subsecs(6);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().expect("clock lock")
    }
}

/// "2 days 4 hours", "3 hours 10 minutes", "5 minutes": a duration for a person, to the two
/// largest units.
pub fn in_words(duration: Duration) -> String {
    let total = duration.num_minutes().max(0);
    let (days, hours, minutes) = (total / 1440, total / 60 % 24, total % 60);
    let unit = |n: i64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (days, hours, minutes) {
        (0, 0, m) => unit(m, "minute"),
        (0, h, 0) => unit(h, "hour"),
        (0, h, m) => format!("{} {}", unit(h, "hour"), unit(m, "minute")),
        (d, 0, _) => unit(d, "day"),
        (d, h, _) => format!("{} {}", unit(d, "day"), unit(h, "hour")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(in_words(Duration::minutes(5)), "5 minutes");
        assert_eq!(in_words(Duration::minutes(61)), "1 hour 1 minute");
        assert_eq!(in_words(Duration::hours(52)), "2 days 4 hours");
        assert_eq!(in_words(Duration::days(3)), "3 days");
        assert_eq!(in_words(Duration::seconds(-5)), "0 minutes");
    }

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let start = DateTime::parse_from_rfc3339("2026-03-27T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let clock = ManualClock::at(start);
        assert_eq!(clock.now(), start);
        clock.advance(Duration::hours(1));
        assert_eq!(clock.now(), start + Duration::hours(1));
    }
}
