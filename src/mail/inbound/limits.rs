//! Bounds on replies: per seat and per sender address, each an hourly quota counted with
//! `governor` (GCRA: a burst of the quota, then one more each 1/quota hour), like the web
//! server's limits. A reply over a limit is stored and ignored without an answer, so a flood
//! of mail never turns into a flood of answers.

use crate::engine::Seat;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::num::NonZeroU32;

/// The reply limits of one process.
pub struct ReplyLimits {
    by_seat: Option<DefaultKeyedRateLimiter<(i64, Seat)>>,
    by_sender: Option<DefaultKeyedRateLimiter<String>>,
}

impl ReplyLimits {
    /// `per_hour` replies per seat and per sender (0: no limit).
    pub fn new(per_hour: u32) -> ReplyLimits {
        let quota = NonZeroU32::new(per_hour).map(Quota::per_hour);
        ReplyLimits {
            by_seat: quota.map(RateLimiter::keyed),
            by_sender: quota.map(RateLimiter::keyed),
        }
    }

    /// Counts one reply; false when the seat or the sender is over its limit.
    pub fn allow(&self, game_id: i64, seat: Seat, sender: &str) -> bool {
        let seat_ok = self
            .by_seat
            .as_ref()
            .is_none_or(|l| l.check_key(&(game_id, seat)).is_ok());
        let sender_ok = self
            .by_sender
            .as_ref()
            .is_none_or(|l| l.check_key(&sender.to_string()).is_ok());
        if self.by_seat.as_ref().is_some_and(|l| l.len() > 100_000) {
            self.prune();
        }
        seat_ok && sender_ok
    }

    fn prune(&self) {
        for limiter in self.by_seat.iter() {
            limiter.retain_recent();
        }
        for limiter in self.by_sender.iter() {
            limiter.retain_recent();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_over_its_quota_is_held_back_and_others_are_not() {
        let limits = ReplyLimits::new(3);
        for _ in 0..3 {
            assert!(limits.allow(1, 0, "ann@example.org"));
        }
        assert!(!limits.allow(1, 0, "ann@example.org"));
        assert!(limits.allow(1, 1, "bo@example.org"));
        let open = ReplyLimits::new(0);
        assert!((0..100).all(|_| open.allow(1, 0, "ann@example.org")));
    }
}
