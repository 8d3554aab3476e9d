//! Metrics for the host (docs/CONFIGURATION.md, "Metrics"): counters and histograms recorded
//! where things happen, gauges read when `/metrics` is scraped, all in Prometheus text format
//! on an address of their own ([`endpoint`]), never on the public one.
//!
//! Nothing is recorded until [`install`] runs (`serve` and `worker` do): in tests that start
//! the web app in their own process the recording calls do nothing. Counters are per process;
//! gauges that describe shared state (the outbox) are read from PostgreSQL.

pub mod endpoint;
pub mod requests;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Duration;

/// Entries appended to games' logs, labelled `game` (its kind) and `mark` (`seat`, `clock`,
/// `auto`, `standing`, `undo`, `bot`, `organiser`).
pub const MOVES: &str = "postplay_moves_total";
/// Commands refused, labelled `reason` ([`refusal`]).
pub const REFUSALS: &str = "postplay_refusals_total";
/// Seconds to answer a request, labelled `group` ([`requests::group`]) and `status` class.
pub const REQUEST_SECONDS: &str = "postplay_http_request_duration_seconds";
/// Requests refused 503 for overload ([`crate::web::http::admission`]), labelled `group`
/// ([`requests::group`]), `class` (`move`, `page`) and `reason` (`full`: as many requests of
/// its class were waiting for a place as may; `queue`: no place among the requests answered at
/// once in time; `pool`: no database connection in time).
pub const SHED: &str = "postplay_requests_shed_total";
/// Requests of this process waiting for a place among those answered at once, by `class`.
pub const WAITING: &str = "postplay_requests_waiting";
/// Outbox rows this process sent.
pub const OUTBOX_SENT: &str = "postplay_outbox_sent_total";
/// Outbox rows this process failed to send and will try again.
pub const OUTBOX_RETRIED: &str = "postplay_outbox_retried_total";
/// Outbox rows this process gave up.
pub const OUTBOX_FAILED: &str = "postplay_outbox_failed_total";
/// Outbox rows waiting to be sent (pending or sending), read from PostgreSQL.
pub const OUTBOX_QUEUED: &str = "postplay_outbox_queued";
/// Age in seconds of the oldest outbox row waiting, read from PostgreSQL (0 when none).
pub const OUTBOX_OLDEST: &str = "postplay_outbox_oldest_age_seconds";
/// Inbound replies handled, labelled `outcome` (`done`, `refused`, `ignored`, `held`,
/// `duplicate`).
pub const REPLIES: &str = "postplay_inbound_replies_total";
/// What the clock did, labelled `action` (`timeout`, `reminder`, `safety`, `vacation_ended`,
/// `table_expired`, `held_reply_played`).
pub const CLOCK: &str = "postplay_clock_actions_total";
/// Connections of this process's pool, labelled `state` (`in_use`, `idle`).
pub const POOL: &str = "postplay_pool_connections";
/// The most connections this process's pool opens.
pub const POOL_MAX: &str = "postplay_pool_max_connections";
/// Practice bots' decisions, labelled `game` and `result` (`played`, `raced`, `failed`).
pub const BOT_DECISIONS: &str = "postplay_bot_decisions_total";
/// Seconds a practice bot's search took, labelled `game`.
pub const BOT_SECONDS: &str = "postplay_bot_decision_seconds";

/// Buckets of the request latency histograms, in seconds.
const REQUEST_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Buckets of the bots' search times, in seconds.
const BOT_BUCKETS: &[f64] = &[0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

/// Installs this process's recorder once and returns its handle (the same on later calls).
pub fn install() -> Result<PrometheusHandle, String> {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    if let Some(handle) = HANDLE.get() {
        return Ok(handle.clone());
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(REQUEST_SECONDS.into()), REQUEST_BUCKETS)
        .and_then(|b| b.set_buckets_for_metric(Matcher::Full(BOT_SECONDS.into()), BOT_BUCKETS))
        .map_err(|e| format!("metrics: {e}"))?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder)
        .map_err(|e| format!("metrics: a recorder is already installed: {e}"))?;
    describe();
    let _ = HANDLE.set(handle.clone());
    Ok(handle)
}

/// The `# HELP` lines.
fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram};
    describe_counter!(MOVES, "Entries appended to games' logs, by game and mark");
    describe_counter!(REFUSALS, "Commands refused, by reason");
    describe_histogram!(
        REQUEST_SECONDS,
        metrics::Unit::Seconds,
        "Time to answer a request, by route group"
    );
    describe_counter!(
        SHED,
        "Requests refused 503 for overload, by route group, class and reason"
    );
    describe_gauge!(
        WAITING,
        "Requests waiting for a place among those answered at once, by class"
    );
    describe_counter!(OUTBOX_SENT, "Outbox messages this process sent");
    describe_counter!(
        OUTBOX_RETRIED,
        "Outbox messages that failed and will be tried again"
    );
    describe_counter!(OUTBOX_FAILED, "Outbox messages given up");
    describe_gauge!(OUTBOX_QUEUED, "Outbox messages waiting (PostgreSQL)");
    describe_gauge!(
        OUTBOX_OLDEST,
        metrics::Unit::Seconds,
        "Age of the oldest outbox message waiting (PostgreSQL)"
    );
    describe_counter!(REPLIES, "Inbound replies handled, by outcome");
    describe_counter!(CLOCK, "What the clock did, by action");
    describe_gauge!(POOL, "Database connections of this process, by state");
    describe_gauge!(POOL_MAX, "The most database connections this process opens");
    describe_counter!(
        BOT_DECISIONS,
        "Practice bots' decisions, by game and result"
    );
    describe_histogram!(
        BOT_SECONDS,
        metrics::Unit::Seconds,
        "Time a practice bot's search took"
    );
}

/// One entry appended to a game of `kind`, made by `mark` (`seat` for a seat's own move).
pub fn moved(kind: &str, mark: &'static str) {
    counter!(MOVES, "game" => kind.to_string(), "mark" => mark).increment(1);
}

/// A command refused, for `reason`: `rule`, `malformed`, `too_large`, `over`, `conflict`,
/// `not_holder`.
pub fn refusal(reason: &'static str) {
    counter!(REFUSALS, "reason" => reason).increment(1);
}

/// A request of route `group` and `class` refused for overload, for `reason`.
pub fn shed(group: String, class: &'static str, reason: &'static str) {
    counter!(SHED, "group" => group, "class" => class, "reason" => reason).increment(1);
}

/// A request of `class` began (`1.0`) or ended (`-1.0`) waiting for a place.
pub fn waiting(class: &'static str, change: f64) {
    gauge!(WAITING, "class" => class).increment(change);
}

/// What one pass of the outbox worker did.
pub fn outbox(sent: usize, retried: usize, failed: usize) {
    counter!(OUTBOX_SENT).increment(sent as u64);
    counter!(OUTBOX_RETRIED).increment(retried as u64);
    counter!(OUTBOX_FAILED).increment(failed as u64);
}

/// An inbound reply handled, with its `outcome`.
pub fn reply(outcome: &'static str) {
    counter!(REPLIES, "outcome" => outcome).increment(1);
}

/// The clock did `action` `n` times.
pub fn clock(action: &'static str, n: usize) {
    if n > 0 {
        counter!(CLOCK, "action" => action).increment(n as u64);
    }
}

/// A practice bot of game `kind` decided in `took`, with `result`.
pub fn bot_decision(kind: &str, result: &'static str, took: Duration) {
    counter!(BOT_DECISIONS, "game" => kind.to_string(), "result" => result).increment(1);
    histogram!(BOT_SECONDS, "game" => kind.to_string()).record(took.as_secs_f64());
}

#[cfg(test)]
mod tests {
    /// Every metric this process exports.
    const EXPORTED: &[&str] = &[
        super::MOVES,
        super::REFUSALS,
        super::REQUEST_SECONDS,
        super::SHED,
        super::WAITING,
        super::OUTBOX_SENT,
        super::OUTBOX_RETRIED,
        super::OUTBOX_FAILED,
        super::OUTBOX_QUEUED,
        super::OUTBOX_OLDEST,
        super::REPLIES,
        super::CLOCK,
        super::POOL,
        super::POOL_MAX,
        super::BOT_DECISIONS,
        super::BOT_SECONDS,
    ];

    #[test]
    fn the_sample_dashboard_asks_only_for_metrics_the_server_exports() {
        let dashboard = include_str!("../../deploy/grafana-dashboard.json");
        let asked: Vec<&str> = dashboard
            .split("postplay_")
            .skip(1)
            .map(|rest| {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            })
            .collect();
        assert!(asked.len() >= 14, "{asked:?}");
        for name in asked {
            let name = format!("postplay_{name}");
            let series = ["_bucket", "_sum", "_count"]
                .iter()
                .fold(name.as_str(), |n, suffix| {
                    n.strip_suffix(suffix).unwrap_or(n)
                });
            assert!(
                EXPORTED.contains(&series),
                "the dashboard asks for {name}, which the server does not export"
            );
        }
        for name in EXPORTED {
            assert!(dashboard.contains(name), "the dashboard shows no {name}");
        }
    }
}
