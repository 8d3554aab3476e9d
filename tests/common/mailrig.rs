//! A mail test rig: a test database, the web app, a real SMTP server, and an outbox worker
//! sending to it over TCP with lettre's SMTP transport.
#![allow(dead_code)]

use super::TestDb;
use postplay::notices::mail::sink::{Received, SmtpSink};
use postplay::notices::mail::transport::Security;
use postplay::notices::outbox::worker::Worker;
pub use postplay::notices::outbox::worker::WorkerConfig;
use postplay::notices::{EmailAddress, MailContext, Sender, SmtpConfig, Transport};
use std::time::Duration;
use tokio::sync::watch;

/// The sender every test uses.
pub fn sender() -> Sender {
    Sender {
        name: "postplay".into(),
        address: EmailAddress::parse("games@pp.example").unwrap(),
    }
}

/// An SMTP transport to the sink.
pub fn smtp_to(port: u16) -> Transport {
    Transport::smtp(&SmtpConfig {
        host: "127.0.0.1".into(),
        port,
        security: Security::None,
        credentials: None,
        timeout: Duration::from_secs(5),
    })
    .unwrap()
}

/// Fast pacing for tests.
pub fn quick() -> WorkerConfig {
    WorkerConfig {
        max_attempts: 100,
        retry_base: Duration::from_millis(50),
        retry_max: Duration::from_millis(300),
        batch: 16,
        poll: Duration::from_millis(100),
        lease: Duration::from_secs(60),
        digest_every: Duration::from_secs(3600),
        idle_after: None,
    }
}

/// A worker running in the test's runtime.
pub struct RunningWorker {
    stop: watch::Sender<bool>,
    task: actix_web::rt::task::JoinHandle<()>,
}

impl RunningWorker {
    /// Stops the worker and waits until it has let go of its connections.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// A worker on the test database sending to `port`.
pub fn spawn_worker(db: &TestDb, base: &str, port: u16, config: WorkerConfig) -> RunningWorker {
    spawn_worker_with(db, base, smtp_to(port), config)
}

/// A worker on the test database sending through `transport`.
pub fn spawn_worker_with(
    db: &TestDb,
    base: &str,
    transport: Transport,
    config: WorkerConfig,
) -> RunningWorker {
    let worker = Worker::new(
        db.store.pool().clone(),
        transport,
        sender(),
        MailContext {
            base_url: base.to_string(),
            reply_domain: Some("pp.example".into()),
        },
        config,
    );
    let (stop, stopped) = watch::channel(false);
    let task = actix_web::rt::spawn(async move { worker.run(stopped).await });
    RunningWorker { stop, task }
}

/// Waits until the sink holds at least `count` messages, or panics after `secs`.
pub async fn expect_mail(sink: &SmtpSink, count: usize, secs: u64) -> Vec<Received> {
    assert!(
        sink.wait_for(count, Duration::from_secs(secs)).await,
        "expected {count} messages, got {}",
        sink.received().len()
    );
    sink.received()
}

/// Waits until no outbox row is pending or being sent (or panics after `secs`).
pub async fn drain(db: &TestDb, secs: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let open: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending') AND NOT digest \
             AND NOT (fold AND status = 'pending')",
        )
        .fetch_one(db.store.pool())
        .await
        .unwrap();
        if open == 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{open} outbox rows still open"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The link token in a `.../play/{token}` URL of a text.
pub fn play_token(text: &str) -> Option<String> {
    text.split_whitespace()
        .find_map(|w| w.split("/play/").nth(1))
        .map(|t| t.trim_end_matches(['.', ',']).to_string())
}
