//! Server configuration from the environment, with an optional TOML-free `KEY=value` file.
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `POSTPLAY_BIND` | address to listen on | `127.0.0.1:8080` |
//! | `POSTPLAY_BASE_URL` | the public URL links in pages and mail start with | `http://` + bind |
//! | `DATABASE_URL` | PostgreSQL to use; unset: the private cluster. Several hosts, comma-separated as libpq writes them (`postgres://u@h1:5432,h2:5432/postplay`): a replicated pair (deploy/high-availability.md), postplay works on the primary and follows it when it moves ([`crate::pg::primary`]) | unset |
//! | `POSTPLAY_DATABASE_FAILOVER_SECS` | with several hosts: how long one search for the primary goes on (at start, and after the primary is lost) before it reports that none was found | 60 |
//! | `POSTPLAY_DATA_DIR` | where the private cluster keeps its data | `./var/postgres` |
//! | `POSTPLAY_CONFIG` | a file of `KEY=value` lines read first (the environment wins) | unset |
//! | `POSTPLAY_METRICS_BIND` | the address of `GET /metrics` (Prometheus text, [`crate::telemetry`]), never the public one; `off`: none. `worker` and `receive --listen` serve it only where set | `serve`: `127.0.0.1:9187` |
//!
//! Mail settings: [`crate::config::mail`]. The bounds of the web server ([`WebSettings`]):
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `POSTPLAY_TRUSTED_PROXIES` | comma-separated addresses of reverse proxies whose `X-Forwarded-For` is believed | none |
//! | `POSTPLAY_LIMIT_GAMES_PER_HOUR` | games one client address (and one organiser address) may create an hour; 0: no limit | 20 |
//! | `POSTPLAY_LIMIT_MAILS_PER_HOUR` | invitations one client address (and one organiser address) may cause an hour; 0: no limit | 60 |
//! | `POSTPLAY_LIMIT_RELINKS_PER_HOUR` | new seat links one client address (and one game's organiser) may make an hour; 0: no limit | 20 |
//! | `POSTPLAY_LIMIT_HINTS_PER_HOUR` | hints one seat of a practice game may ask an hour (counted in PostgreSQL); 0: no limit | 20 |
//! | `POSTPLAY_STREAMS_PER_CLIENT` | open live-refresh streams per client address | 16 |
//! | `POSTPLAY_STREAMS_TOTAL` | open live-refresh streams in all (`serve` lowers it to the limit on open files less 200, see [`crate::fds`]) | 2000 |
//! | `POSTPLAY_STREAM_KEEPALIVE_SECS` | a comment on every open stream this often, to find closed ones | 15 |
//! | `POSTPLAY_REQUEST_TIMEOUT_SECS` | time a client has to send a request's headers, and again its body | 10 |
//! | `POSTPLAY_MAILBOX_PUBLIC` | `true`: the dev mailbox shows its links to any client, not only loopback | false |
//! | `POSTPLAY_VACATION_DAYS` | vacation days each address has a year | 14 |
//! | `POSTPLAY_WEBHOOK_LOOPBACK_HTTP` | development only: `true` lets a webhook's URL be `http` to a loopback address (the worker reads it too) | false |
//! | `POSTPLAY_CLOCK_TICK_SECS` | how often `serve` and `worker` look for due deadlines and reminders | 15 |
//!
//! Overload ([`crate::web::http::admission`], docs/CONFIGURATION.md, "Overload"): past these
//! bounds a request is answered 503 with `Retry-After` at once instead of waiting.
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `POSTPLAY_MOVES_IN_FLIGHT` | moves (API commands, the seat page's move form) answered at once by one process | 64 |
//! | `POSTPLAY_PAGES_IN_FLIGHT` | every other request answered at once by one process; kept below `POSTPLAY_DB_CONNECTIONS` so moves always find connections | 24 |
//! | `POSTPLAY_QUEUE_WAIT_MS` | how long a request waits for one of those places before it is refused | 250 |
//! | `POSTPLAY_MOVES_WAITING` | moves that may wait for a place at once; one more is refused at once | 128 |
//! | `POSTPLAY_PAGES_WAITING` | other requests that may wait for a place at once; one more is refused at once | 48 |
//! | `POSTPLAY_RETRY_AFTER_SECS` | the `Retry-After` of a request refused for overload | 2 |
//! | `POSTPLAY_DB_CONNECTIONS` | the database connections of the web's pool (`serve`, one of them kept by live refresh; the one pool of the other verbs) | 32 |
//! | `POSTPLAY_DB_WAIT_MS` | how long a request waits for one of them before it is refused | 1000 |
//! | `POSTPLAY_BACKGROUND_CONNECTIONS` | `serve`: the connections of the clock's and the outbox worker's own pool, which web requests never take | 4 |

pub mod mail;

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The web server's bounds: rate limits, stream caps, time limits, who to believe.
#[derive(Debug, Clone)]
pub struct WebSettings {
    /// Reverse proxies whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Vec<IpAddr>,
    /// Games created per hour, per client address and per organiser address (0: no limit).
    pub games_per_hour: u32,
    /// Invitations caused per hour, per client address and per organiser address (0: no limit).
    pub mails_per_hour: u32,
    /// Seat links remade per hour, per client address and per game (0: no limit).
    pub relinks_per_hour: u32,
    /// Sign-in links asked per hour, per client address (0: no limit); each address has its
    /// own limit besides, kept in the database (`store::LINKS_PER_QUARTER_HOUR`, `LINKS_PER_DAY`).
    pub signins_per_hour: u32,
    /// Hints ("what would the bot do?") one seat of a practice game may ask an hour, counted
    /// in PostgreSQL across processes (0: no limit; docs/BOTS.md, "Hints").
    pub hints_per_hour: u32,
    /// Open live-refresh streams per client address.
    pub streams_per_client: usize,
    /// Open live-refresh streams in all.
    pub streams_total: usize,
    /// How often an open stream gets a keep-alive comment.
    pub stream_keepalive: Duration,
    /// Time to send a request's headers, and again its body.
    pub request_timeout: Duration,
    /// The dev mailbox shows links to non-loopback clients too.
    pub mailbox_public: bool,
    /// Vacation days each address has a year.
    pub vacation_days: u32,
    /// Development only: a webhook's URL may be `http` to a loopback address.
    pub webhook_loopback_http: bool,
    /// Moves answered at once ([`crate::web::http::admission`]).
    pub moves_in_flight: usize,
    /// Other requests answered at once.
    pub pages_in_flight: usize,
    /// How long a request waits for a place among those before it is refused.
    pub queue_wait: Duration,
    /// Moves that may wait for a place at once: past them a move is refused without waiting.
    pub moves_waiting: usize,
    /// Other requests that may wait for a place at once.
    pub pages_waiting: usize,
    /// The `Retry-After` of a request refused for overload.
    pub retry_after: Duration,
}

impl Default for WebSettings {
    fn default() -> WebSettings {
        WebSettings {
            trusted_proxies: Vec::new(),
            games_per_hour: 20,
            mails_per_hour: 60,
            relinks_per_hour: 20,
            signins_per_hour: 20,
            hints_per_hour: 20,
            streams_per_client: 16,
            streams_total: 2000,
            stream_keepalive: Duration::from_secs(15),
            request_timeout: Duration::from_secs(10),
            mailbox_public: false,
            vacation_days: 14,
            webhook_loopback_http: false,
            moves_in_flight: 64,
            pages_in_flight: 24,
            queue_wait: Duration::from_millis(250),
            moves_waiting: 128,
            pages_waiting: 48,
            retry_after: Duration::from_secs(2),
        }
    }
}

/// The database pools of a process: the web's, bounded in size and in how long a request
/// waits for a connection, and (`serve`) the clock's and outbox worker's own.
#[derive(Debug, Clone)]
pub struct PoolSettings {
    /// Connections of the web's pool (the one pool of the verbs other than `serve`).
    pub connections: u32,
    /// How long a request waits for one of them.
    pub wait: Duration,
    /// Connections of the clock's and the outbox worker's pool in `serve`.
    pub background: u32,
}

impl Default for PoolSettings {
    fn default() -> PoolSettings {
        PoolSettings {
            connections: 32,
            wait: Duration::from_millis(1000),
            background: 4,
        }
    }
}

impl PoolSettings {
    /// Reads the settings through `get` (the environment, or the config file).
    pub fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<PoolSettings, String> {
        let d = PoolSettings::default();
        let pools = PoolSettings {
            connections: setting(get, "POSTPLAY_DB_CONNECTIONS", d.connections)?,
            wait: Duration::from_millis(setting(get, "POSTPLAY_DB_WAIT_MS", 1000u64)?.max(1)),
            background: setting(get, "POSTPLAY_BACKGROUND_CONNECTIONS", d.background)?,
        };
        if pools.connections == 0 || pools.background == 0 {
            return Err(
                "POSTPLAY_DB_CONNECTIONS and POSTPLAY_BACKGROUND_CONNECTIONS must be at least 1"
                    .into(),
            );
        }
        Ok(pools)
    }
}

fn setting<T: std::str::FromStr>(
    get: &dyn Fn(&str) -> Option<String>,
    key: &str,
    default: T,
) -> Result<T, String> {
    match get(key) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{key}: {v:?} is not a valid value")),
    }
}

impl WebSettings {
    /// Reads the settings through `get` (the environment, or the config file).
    pub fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<WebSettings, String> {
        let d = WebSettings::default();
        let trusted_proxies = match get("POSTPLAY_TRUSTED_PROXIES") {
            None => Vec::new(),
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| {
                    s.parse().map_err(|_| {
                        format!("POSTPLAY_TRUSTED_PROXIES: {s:?} is not an IP address")
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let streams_per_client = setting(get, "POSTPLAY_STREAMS_PER_CLIENT", d.streams_per_client)?;
        let streams_total = setting(get, "POSTPLAY_STREAMS_TOTAL", d.streams_total)?;
        if streams_per_client == 0 || streams_total == 0 {
            return Err(
                "POSTPLAY_STREAMS_PER_CLIENT and POSTPLAY_STREAMS_TOTAL must be at least 1".into(),
            );
        }
        let moves_in_flight = setting(get, "POSTPLAY_MOVES_IN_FLIGHT", d.moves_in_flight)?;
        let pages_in_flight = setting(get, "POSTPLAY_PAGES_IN_FLIGHT", d.pages_in_flight)?;
        if moves_in_flight == 0 || pages_in_flight == 0 {
            return Err(
                "POSTPLAY_MOVES_IN_FLIGHT and POSTPLAY_PAGES_IN_FLIGHT must be at least 1".into(),
            );
        }
        Ok(WebSettings {
            moves_in_flight,
            pages_in_flight,
            queue_wait: Duration::from_millis(setting(get, "POSTPLAY_QUEUE_WAIT_MS", 250u64)?),
            moves_waiting: setting(get, "POSTPLAY_MOVES_WAITING", d.moves_waiting)?,
            pages_waiting: setting(get, "POSTPLAY_PAGES_WAITING", d.pages_waiting)?,
            retry_after: Duration::from_secs(
                setting(get, "POSTPLAY_RETRY_AFTER_SECS", 2u64)?.max(1),
            ),
            trusted_proxies,
            games_per_hour: setting(get, "POSTPLAY_LIMIT_GAMES_PER_HOUR", d.games_per_hour)?,
            mails_per_hour: setting(get, "POSTPLAY_LIMIT_MAILS_PER_HOUR", d.mails_per_hour)?,
            relinks_per_hour: setting(get, "POSTPLAY_LIMIT_RELINKS_PER_HOUR", d.relinks_per_hour)?,
            signins_per_hour: setting(get, "POSTPLAY_LIMIT_SIGNINS_PER_HOUR", d.signins_per_hour)?,
            hints_per_hour: setting(get, "POSTPLAY_LIMIT_HINTS_PER_HOUR", d.hints_per_hour)?,
            streams_per_client,
            streams_total,
            stream_keepalive: Duration::from_secs(
                setting(get, "POSTPLAY_STREAM_KEEPALIVE_SECS", 15u64)?.max(1),
            ),
            request_timeout: Duration::from_secs(
                setting(get, "POSTPLAY_REQUEST_TIMEOUT_SECS", 10u64)?.max(1),
            ),
            mailbox_public: setting(get, "POSTPLAY_MAILBOX_PUBLIC", d.mailbox_public)?,
            vacation_days: setting(get, "POSTPLAY_VACATION_DAYS", d.vacation_days)?,
            webhook_loopback_http: setting(
                get,
                "POSTPLAY_WEBHOOK_LOOPBACK_HTTP",
                d.webhook_loopback_http,
            )?,
        })
    }
}

/// What `serve` needs to know.
#[derive(Debug, Clone)]
pub struct Config {
    /// Listen address.
    pub bind: String,
    /// Public base URL, without a trailing slash.
    pub base_url: String,
    /// An external PostgreSQL, or `None` for the private cluster.
    pub database_url: Option<String>,
    /// The private cluster's data directory.
    pub data_dir: PathBuf,
    /// With several database hosts: how long one search for the primary may take.
    pub database_failover: Duration,
    /// Mail: transport, sender, worker pacing.
    pub mail: crate::config::mail::MailSettings,
    /// The web server's bounds.
    pub web: WebSettings,
    /// The database pools' sizes and waits.
    pub pools: PoolSettings,
    /// How often the clock's scheduler runs.
    pub clock_tick: Duration,
    /// How many practice bots' searches one process runs at once (`POSTPLAY_BOT_SEARCHES`;
    /// 0 turns the bots' worker off in this process, for a web-only process beside workers).
    pub bot_searches: usize,
    /// What one game's review may spend (`POSTPLAY_REVIEW_PLAYOUTS`,
    /// `POSTPLAY_REVIEW_DECISIONS`; docs/BOTS.md "Review").
    pub review_budget: crate::review::Budget,
    /// How long a game-over mail waits for the game's review (`POSTPLAY_REVIEW_MAIL_WAIT_SECS`;
    /// 0: it goes at once, saying the review will be on the replay page).
    pub review_mail_wait: Duration,
    /// Where `/metrics` is served (`off`: nowhere), as set: `serve` falls back to
    /// [`crate::telemetry::endpoint::DEFAULT_BIND`], `worker` and `receive --listen` serve
    /// metrics only where it is set.
    pub metrics_bind: Option<String>,
}

impl Config {
    /// Reads the configuration: the file named by `POSTPLAY_CONFIG` if any, then the
    /// environment.
    pub fn from_env() -> Result<Config, String> {
        let mut file_values = Vec::new();
        if let Ok(path) = std::env::var("POSTPLAY_CONFIG") {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (key, value) = line
                    .split_once('=')
                    .ok_or_else(|| format!("{path}:{}: expected KEY=value", n + 1))?;
                file_values.push((
                    key.trim().to_string(),
                    value.trim().trim_matches('"').to_string(),
                ));
            }
        }
        let get = |key: &str| {
            std::env::var(key)
                .ok()
                .or_else(|| {
                    file_values
                        .iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.clone())
                })
                .filter(|v| !v.is_empty())
        };
        let bind = get("POSTPLAY_BIND").unwrap_or_else(|| "127.0.0.1:8080".into());
        let base_url = get("POSTPLAY_BASE_URL")
            .unwrap_or_else(|| format!("http://{bind}"))
            .trim_end_matches('/')
            .to_string();
        let mail = crate::config::mail::MailSettings::from_lookup(&get)?;
        Ok(Config {
            web: WebSettings::from_lookup(&get)?,
            pools: PoolSettings::from_lookup(&get)?,
            clock_tick: Duration::from_secs(
                setting(&get, "POSTPLAY_CLOCK_TICK_SECS", 15u64)?.max(1),
            ),
            bot_searches: setting(&get, "POSTPLAY_BOT_SEARCHES", crate::bots::DEFAULT_SEARCHES)?,
            review_budget: crate::review::Budget {
                playouts: setting(
                    &get,
                    "POSTPLAY_REVIEW_PLAYOUTS",
                    crate::review::Budget::default().playouts,
                )?
                .max(1),
                decisions: setting(
                    &get,
                    "POSTPLAY_REVIEW_DECISIONS",
                    crate::review::Budget::default().decisions,
                )?,
            },
            review_mail_wait: Duration::from_secs(setting(
                &get,
                "POSTPLAY_REVIEW_MAIL_WAIT_SECS",
                120u64,
            )?),
            metrics_bind: get("POSTPLAY_METRICS_BIND"),
            mail,
            base_url,
            bind,
            database_url: get("DATABASE_URL"),
            database_failover: Duration::from_secs(
                setting(&get, "POSTPLAY_DATABASE_FAILOVER_SECS", 60u64)?.max(1),
            ),
            data_dir: get("POSTPLAY_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("var/postgres")),
        })
    }
}
