//! Several database hosts, one primary: a `DATABASE_URL` naming more than one host
//! (`postgres://u@h1:5432,h2:5433/db`, as libpq writes it) is a replicated pair or more, and
//! postplay works on whichever host is the primary — not in recovery and not read-only (a
//! standby pg_auto_failover has promoted stays read-only until the old primary is known to be
//! down). [`Primary`] finds it, with a bounded number of tries and backoff; its pool opens
//! connections only there ([`Primary::pool_options`]), and [`Primary::watch`] looks at it every
//! second and, when it is gone, finds the new one and points the pool at it, so the pool, the
//! LISTEN connections (which take their connections from the pool) and the clock's scheduler
//! carry on without a restart.

use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Connection};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The query that tells a primary that takes writes from anything else.
const ROLE_QUERY: &str =
    "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'";

/// How long one host has to answer when it is looked at.
const HOST_TIMEOUT: Duration = Duration::from_secs(2);

/// The first wait between two rounds of a search; doubled after each, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(100);

/// The longest wait between two rounds of a search.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How often [`Primary::watch`] looks at the primary.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// One database host of the list.
#[derive(Debug, Clone)]
pub struct Host {
    /// `host:port`, for logs and errors.
    pub name: String,
    /// How to connect to it.
    pub options: PgConnectOptions,
}

/// Splits a `DATABASE_URL` into one URL per host: `postgres://u:p@h1:5432,h2:5433/db?x=y`
/// gives `postgres://u:p@h1:5432/db?x=y` and `postgres://u:p@h2:5433/db?x=y`. A URL with one
/// host gives itself. libpq's `target_session_attrs` is dropped: postplay looks for the
/// primary itself.
pub fn split_hosts(url: &str) -> Result<Vec<String>, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or("DATABASE_URL: expected postgres://…")?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (userinfo, hosts) = match authority.rfind('@') {
        Some(at) => (&authority[..=at], &authority[at + 1..]),
        None => ("", authority),
    };
    let tail = drop_param(tail, "target_session_attrs");
    let hosts: Vec<&str> = hosts.split(',').map(str::trim).collect();
    if hosts.len() > 1 && hosts.iter().any(|h| h.is_empty()) {
        return Err(format!(
            "DATABASE_URL: an empty host in the list {authority:?}"
        ));
    }
    Ok(hosts
        .iter()
        .map(|host| format!("{scheme}://{userinfo}{host}{tail}"))
        .collect())
}

/// `tail` (`/db?a=1&b=2`) without the query parameter `name`.
fn drop_param(tail: &str, name: &str) -> String {
    let Some((path, query)) = tail.split_once('?') else {
        return tail.to_string();
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| p.split('=').next() != Some(name) && !p.is_empty())
        .collect();
    if kept.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

/// The hosts of a `DATABASE_URL`, each with its connection options.
pub fn parse_hosts(url: &str) -> Result<Vec<Host>, String> {
    split_hosts(url)?
        .into_iter()
        .map(|one| {
            let options = PgConnectOptions::from_str(&one)
                .map_err(|e| format!("DATABASE_URL: {e}"))?
                .application_name("postplay");
            let name = match options.get_socket() {
                Some(dir) => dir.display().to_string(),
                None => format!("{}:{}", options.get_host(), options.get_port()),
            };
            Ok(Host { name, options })
        })
        .collect()
}

/// No host of the list was a primary within the search's time.
#[derive(Debug, Clone)]
pub struct NoPrimary {
    /// Rounds tried.
    pub rounds: u32,
    /// How long the search took.
    pub took: Duration,
    /// What each host said in the last round.
    pub last: Vec<(String, String)>,
}

impl fmt::Display for NoPrimary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no primary database among {} after {} tries in {:.0} s:",
            self.last
                .iter()
                .map(|(h, _)| h.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            self.rounds,
            self.took.as_secs_f64()
        )?;
        for (host, said) in &self.last {
            write!(f, " {host}: {said};")?;
        }
        Ok(())
    }
}

impl std::error::Error for NoPrimary {}

/// The primary among several hosts, and the pool that follows it.
pub struct Primary {
    hosts: Vec<Host>,
    /// How long one search may take before it gives up.
    search_for: Duration,
    current: AtomicUsize,
    /// Counts the moves to another host; caches of what was read keep it to know they are
    /// from before a move (a commit the old primary showed may not have reached the new one).
    epoch: Arc<AtomicU64>,
    /// When the pool was last pointed at another host: connections older are closed.
    switched: Mutex<Instant>,
    /// Wakes [`Primary::watch`] early (a new connection found a standby).
    suspect: Notify,
}

/// What looking at one host found.
enum Role {
    Primary(PgConnection),
    Not(String),
}

impl Primary {
    /// The hosts of `url`, none looked at yet; a search takes at most `search_for`.
    pub fn new(url: &str, search_for: Duration) -> Result<Arc<Primary>, String> {
        let hosts = parse_hosts(url)?;
        Ok(Arc::new(Primary {
            hosts,
            search_for,
            current: AtomicUsize::new(0),
            epoch: Arc::new(AtomicU64::new(0)),
            switched: Mutex::new(Instant::now()),
            suspect: Notify::new(),
        }))
    }

    /// The hosts, in the order given.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The host the pool opens connections to.
    pub fn current(&self) -> &Host {
        &self.hosts[self.current.load(Ordering::Acquire)]
    }

    /// The counter of moves to another host (see [`crate::store::Store::with_epoch`]).
    pub fn epoch(&self) -> Arc<AtomicU64> {
        self.epoch.clone()
    }

    async fn look(host: &Host) -> Role {
        let attempt = async {
            let mut conn = host.options.clone().connect().await?;
            let primary: bool = sqlx::query_scalar(ROLE_QUERY).fetch_one(&mut conn).await?;
            Ok::<_, sqlx::Error>((conn, primary))
        };
        match tokio::time::timeout(HOST_TIMEOUT, attempt).await {
            Ok(Ok((conn, true))) => Role::Primary(conn),
            Ok(Ok((conn, false))) => {
                let _ = conn.close().await;
                Role::Not("a standby, or read-only".into())
            }
            Ok(Err(e)) => Role::Not(e.to_string()),
            Err(_) => Role::Not(format!("no answer in {} s", HOST_TIMEOUT.as_secs())),
        }
    }

    /// Looks at every host, round after round with backoff, until one is the primary or the
    /// search's time is up; returns its index and a connection to it.
    async fn search(&self) -> Result<(usize, PgConnection), NoPrimary> {
        let began = Instant::now();
        let mut backoff = FIRST_BACKOFF;
        let mut rounds = 0;
        loop {
            rounds += 1;
            let mut last = Vec::new();
            for (i, host) in self.hosts.iter().enumerate() {
                match Primary::look(host).await {
                    Role::Primary(conn) => {
                        if rounds > 1 {
                            tracing::info!(host = %host.name, rounds, took_ms = began.elapsed().as_millis() as u64, "found the database primary");
                        }
                        return Ok((i, conn));
                    }
                    Role::Not(said) => last.push((host.name.clone(), said)),
                }
            }
            if began.elapsed() + backoff >= self.search_for {
                return Err(NoPrimary {
                    rounds,
                    took: began.elapsed(),
                    last,
                });
            }
            tracing::warn!(round = rounds, hosts = ?last, retry_in_ms = backoff.as_millis() as u64,
                "no database primary yet: looking again");
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// Finds the primary and makes it the host the pool connects to (a pool built later, or
    /// `pool` when given). Returns a connection to it.
    async fn find(&self, pool: Option<&PgPool>) -> Result<PgConnection, NoPrimary> {
        let (found, conn) = self.search().await?;
        let before = self.current.swap(found, Ordering::AcqRel);
        if before != found {
            *self.switched.lock().expect("switch time") = Instant::now();
            self.epoch.fetch_add(1, Ordering::AcqRel);
            if let Some(pool) = pool {
                pool.set_connect_options(self.hosts[found].options.clone());
                tracing::warn!(from = %self.hosts[before].name, to = %self.hosts[found].name,
                    "the database primary moved: connecting to the new one");
            }
        }
        Ok(conn)
    }

    /// Pool options whose connections are all to the primary: a new connection that finds a
    /// standby is closed (and the pool tries again), and an idle one opened before the pool was
    /// pointed at another host is closed rather than handed out.
    pub fn pool_options(self: &Arc<Self>) -> PgPoolOptions {
        let on_connect = self.clone();
        let on_acquire = self.clone();
        PgPoolOptions::new()
            .after_connect(move |conn, _| {
                let primary = on_connect.clone();
                Box::pin(async move {
                    let is_primary: bool = sqlx::query_scalar(ROLE_QUERY).fetch_one(conn).await?;
                    if is_primary {
                        Ok(())
                    } else {
                        primary.suspect.notify_one();
                        Err(sqlx::Error::Protocol(
                            "connected to a standby or read-only database: looking for the primary"
                                .into(),
                        ))
                    }
                })
            })
            .before_acquire(move |_, meta| {
                let since_switch = on_acquire.switched.lock().expect("switch time").elapsed();
                Box::pin(async move { Ok(meta.age <= since_switch) })
            })
    }

    /// Finds the primary and opens a pool on it with `options` (from [`Primary::pool_options`],
    /// sized by the caller); the pool follows the primary once [`Primary::watch`] runs.
    pub async fn connect(
        self: &Arc<Self>,
        options: PgPoolOptions,
    ) -> Result<(PgPool, PgConnection), String> {
        let conn = self.find(None).await.map_err(|e| e.to_string())?;
        tracing::info!(host = %self.current().name, hosts = self.hosts.len(), "connected to the database primary");
        let pool = options
            .connect_with(self.current().options.clone())
            .await
            .map_err(|e| format!("database {}: {e}", self.current().name))?;
        Ok((pool, conn))
    }

    /// Looks at the primary every [`CHECK_EVERY`] over `conn` and, when it fails to answer as
    /// one, finds the new primary and points `pool` at it. A search that finds none is logged
    /// as an error and started again at the next look. Ends when the pool is closed.
    pub async fn watch(self: Arc<Self>, pool: PgPool, mut conn: Option<PgConnection>) {
        loop {
            tokio::select! {
                _ = tokio::time::sleep(CHECK_EVERY) => {}
                _ = self.suspect.notified() => {}
                _ = pool.close_event() => return,
            }
            if let Some(c) = conn.as_mut() {
                let answer = tokio::time::timeout(
                    HOST_TIMEOUT,
                    sqlx::query_scalar::<_, bool>(ROLE_QUERY).fetch_one(c),
                )
                .await;
                match answer {
                    Ok(Ok(true)) => continue,
                    Ok(Ok(false)) => {
                        tracing::warn!(host = %self.current().name, "the database primary is now a standby or read-only")
                    }
                    Ok(Err(e)) => {
                        tracing::warn!(host = %self.current().name, error = %e, "lost the database primary")
                    }
                    Err(_) => {
                        tracing::warn!(host = %self.current().name, "the database primary does not answer")
                    }
                }
            }
            conn = None;
            match self.find(Some(&pool)).await {
                Ok(found) => conn = Some(found),
                Err(e) => {
                    tracing::error!(error = %e, "no database primary: moves fail until one is back")
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_hosts_gives_one_url_each() {
        assert_eq!(
            split_hosts("postgres://u:p@h1:5432,h2:5433/db?sslmode=require").unwrap(),
            vec![
                "postgres://u:p@h1:5432/db?sslmode=require",
                "postgres://u:p@h2:5433/db?sslmode=require"
            ]
        );
        assert_eq!(
            split_hosts("postgres://h1,h2/db?target_session_attrs=read-write").unwrap(),
            vec!["postgres://h1/db", "postgres://h2/db"]
        );
        assert_eq!(
            split_hosts("postgres://u@h/db").unwrap(),
            vec!["postgres://u@h/db"]
        );
        assert!(split_hosts("postgres://u@h1,,h2/db").is_err());
        assert!(split_hosts("h1,h2").is_err());
    }

    #[test]
    fn each_host_keeps_its_port_and_the_shared_settings() {
        let hosts = parse_hosts("postgres://u@127.0.0.1:6101,127.0.0.1:6102/postplay").unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["127.0.0.1:6101", "127.0.0.1:6102"]);
        assert!(hosts.iter().all(
            |h| h.options.get_database() == Some("postplay") && h.options.get_username() == "u"
        ));
    }

    #[test]
    fn no_primary_names_every_host_and_what_it_said() {
        let e = NoPrimary {
            rounds: 7,
            took: Duration::from_secs(30),
            last: vec![
                ("h1:5432".into(), "connection refused".into()),
                ("h2:5433".into(), "a standby, or read-only".into()),
            ],
        };
        let text = e.to_string();
        assert!(text.contains("after 7 tries in 30 s"), "{text}");
        assert!(text.contains("h1:5432: connection refused"), "{text}");
        assert!(text.contains("h2:5433: a standby"), "{text}");
    }
}
