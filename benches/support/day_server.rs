//! The server of the day: the real `postplay serve` in a process of its own (its web server,
//! its clock's scheduler and its outbox worker wired as a club host runs them), mailing to
//! the bench's SMTP sink; its memory read from /proc.

use crate::common::TestDb;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `postplay serve`.
pub struct Server {
    child: Child,
    /// Its base URL.
    pub base: String,
    /// Where its log (warnings and errors) goes.
    pub log: std::path::PathBuf,
}

/// The environment `serve` and the reply path share: the sender and the reply domain.
pub const MAIL_FROM: &str = "postplay <games@pp.example>";
/// The server's overload settings passed through from the bench's environment.
const OVERLOAD_SETTINGS: &[&str] = &[
    "POSTPLAY_MOVES_IN_FLIGHT",
    "POSTPLAY_PAGES_IN_FLIGHT",
    "POSTPLAY_QUEUE_WAIT_MS",
    "POSTPLAY_MOVES_WAITING",
    "POSTPLAY_PAGES_WAITING",
    "POSTPLAY_RETRY_AFTER_SECS",
    "POSTPLAY_DB_CONNECTIONS",
    "POSTPLAY_DB_WAIT_MS",
    "POSTPLAY_BACKGROUND_CONNECTIONS",
];

/// The reply addresses' domain.
pub const REPLY_DOMAIN: &str = "pp.example";

impl Server {
    /// Starts `postplay serve` on a free loopback port against `db`, mailing by SMTP to
    /// `smtp_port`; `tick` sets POSTPLAY_CLOCK_TICK_SECS when given. Waits until /healthz
    /// answers.
    pub async fn start(db: &TestDb, smtp_port: u16, tick: Option<u64>) -> Server {
        let port = crate::common::ports::free_port();
        let base = format!("http://127.0.0.1:{port}");
        let log = std::env::temp_dir().join(format!("postplay-club-day-{}.log", db.name));
        let mut command = Command::new(env!("CARGO_BIN_EXE_postplay"));
        command
            .arg("serve")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("POSTPLAY_METRICS_BIND", "off")
            .env("DATABASE_URL", db.url())
            .env("POSTPLAY_BIND", format!("127.0.0.1:{port}"))
            .env("POSTPLAY_BASE_URL", &base)
            .env("POSTPLAY_MAIL", "smtp")
            .env("POSTPLAY_SMTP_HOST", "127.0.0.1")
            .env("POSTPLAY_SMTP_PORT", smtp_port.to_string())
            .env("POSTPLAY_SMTP_SECURITY", "none")
            .env("POSTPLAY_MAIL_FROM", MAIL_FROM)
            .env("POSTPLAY_REPLY_DOMAIN", REPLY_DOMAIN)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap());
        if let Some(tick) = tick {
            command.env("POSTPLAY_CLOCK_TICK_SECS", tick.to_string());
        }
        // The overload bounds, as set for the bench (the server's defaults otherwise).
        for key in OVERLOAD_SETTINGS {
            if let Ok(value) = std::env::var(key) {
                command.env(key, value);
            }
        }
        let child = command.spawn().expect("postplay serve starts");
        let server = Server { child, base, log };
        server.ready().await;
        server
    }

    async fn ready(&self) {
        let client = awc::Client::builder()
            .timeout(Duration::from_secs(2))
            .finish();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = String::from("no answer");
        while Instant::now() < deadline {
            match client.get(format!("{}/healthz", self.base)).send().await {
                Ok(res) if res.status().is_success() => return,
                Ok(res) => seen = format!("status {}", res.status()),
                Err(e) => seen = e.to_string(),
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "postplay serve did not answer /healthz within 60 s; last seen: {seen}; log: {}",
            self.log.display()
        );
    }

    /// The server process's resident memory (VmRSS), in kB.
    pub fn rss_kb(&self) -> u64 {
        status_kb(self.child.id(), "VmRSS:")
    }

    /// The most it was resident at once (VmHWM), in kB.
    pub fn peak_kb(&self) -> u64 {
        status_kb(self.child.id(), "VmHWM:")
    }

    /// Stops it with SIGTERM, as a service manager does, and waits (at most 30 s) until it
    /// has exited; returns its exit status.
    pub async fn stop(mut self) -> std::process::ExitStatus {
        // The id is our own child's.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!("postplay serve did not stop within 30 s of SIGTERM");
            }
            actix_web::rt::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}
