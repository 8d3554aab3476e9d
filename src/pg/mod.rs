//! The private PostgreSQL: when no `DATABASE_URL` is given, `postplay serve` and the tests run
//! their own cluster from the installed server binaries, in a data directory of their own,
//! listening only on a Unix socket inside it.
//!
//! PostgreSQL refuses to run as root, so as root the cluster's processes run as the
//! unprivileged `postgres` user and the data directory belongs to it.
//!
//! Ownership: the process that starts the server (or adopts one whose starter is gone) writes
//! itself into `postplay.owner` — its pid, its start time, the boot and a random nonce — and
//! only a process that still finds itself there stops the server. Starting, adopting and
//! stopping happen under a lock on `postplay.lock`, so an old `serve` on its way out cannot
//! stop the server a new one has just started; a start waits a while for an old owner still
//! alive to finish before it starts a server of its own.
//!
//! While `serve` runs it starts the server again when its postmaster dies ([`watch`]).

pub mod primary;
pub mod tools;
pub mod watch;

use sqlx::postgres::PgConnectOptions;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a start waits for an old owner, still alive while its server is not running, to
/// finish (systemd gives a stopping `serve` 30 seconds).
pub const OLD_OWNER_WAIT: Duration = Duration::from_secs(30);

/// How long a start retries while the processes of a killed server are still going away.
const START_RETRIES: Duration = Duration::from_secs(15);

/// Why the private cluster could not be started.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// No `initdb`/`pg_ctl` on PATH nor in /usr/lib/postgresql/*/bin.
    #[error(
        "no PostgreSQL server binaries found (initdb, pg_ctl): install them (Debian/Ubuntu: \
         apt-get install postgresql) or set DATABASE_URL to a server of your own"
    )]
    NoBinaries,
    /// Running as root without an unprivileged `postgres` user to run the server as.
    #[error(
        "running as root, and there is no 'postgres' user to run PostgreSQL as: create one or set DATABASE_URL"
    )]
    NoPostgresUser,
    /// A step failed; the text has the tool's own words.
    #[error("{step} failed: {detail}")]
    Step { step: String, detail: String },
}

/// A cluster in a data directory, started (or found running) by [`PrivateCluster::ensure`].
#[derive(Debug, Clone)]
pub struct PrivateCluster {
    data_dir: PathBuf,
    bin_dir: PathBuf,
    run_as: Option<(u32, u32)>,
    /// This process's entry in the owner file, if it started or adopted the server.
    owner: Option<Owner>,
    /// True if this process started or adopted the server (and so stops it, if it still owns
    /// it then).
    pub started_here: bool,
}

/// Who owns a running server: a process, told apart from a later one with the same pid by its
/// start time and the boot, and one [`PrivateCluster`] of it from another by a random nonce.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Owner {
    pid: u32,
    started: u64,
    boot: String,
    nonce: String,
}

impl Owner {
    /// A new owner entry for this process.
    fn this_process() -> Owner {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).expect("the system's random numbers");
        let pid = std::process::id();
        Owner {
            pid,
            started: process_start(pid).unwrap_or(0),
            boot: boot_id(),
            nonce: hex::encode(nonce),
        }
    }

    fn to_line(&self) -> String {
        format!(
            "pid={} started={} boot={} nonce={}\n",
            self.pid, self.started, self.boot, self.nonce
        )
    }

    fn parse(text: &str) -> Option<Owner> {
        let field = |name: &str| {
            text.split_whitespace()
                .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        };
        Some(Owner {
            pid: field("pid")?.parse().ok()?,
            started: field("started")?.parse().ok()?,
            boot: field("boot")?.to_string(),
            nonce: field("nonce")?.to_string(),
        })
    }

    /// True if the owning process still runs (the same process, not a later one with its pid).
    fn is_alive(&self) -> bool {
        self.boot == boot_id() && process_start(self.pid) == Some(self.started)
    }
}

/// When a process started (clock ticks after boot, from /proc), if it exists.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// This boot's id (empty where the kernel does not say).
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The folder with `initdb` and `pg_ctl`: PATH first, then the newest
/// `/usr/lib/postgresql/<version>/bin`.
pub fn find_binaries() -> Result<PathBuf, PgError> {
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if dir.join("initdb").is_file() && dir.join("pg_ctl").is_file() {
                return Ok(dir);
            }
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .ok_or(PgError::NoBinaries)
}

fn id_of(flag: &str) -> Option<u32> {
    let out = Command::new("id").args([flag, "postgres"]).output().ok()?;
    String::from_utf8(out.stdout).ok()?.trim().parse().ok()
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .is_some_and(|s| s.trim() == "0")
}

impl PrivateCluster {
    /// Initialises the cluster if the data directory is new, starts it unless it runs already
    /// (waiting up to [`OLD_OWNER_WAIT`] for an old owner to finish first).
    pub fn ensure(data_dir: &Path) -> Result<PrivateCluster, PgError> {
        PrivateCluster::ensure_waiting(data_dir, OLD_OWNER_WAIT)
    }

    /// [`PrivateCluster::ensure`], waiting at most `old_owner_wait` for a process that owned a
    /// server no longer running (its postmaster was killed) to finish before starting one:
    /// after that, the new server is this process's and the old owner leaves it alone.
    pub fn ensure_waiting(
        data_dir: &Path,
        old_owner_wait: Duration,
    ) -> Result<PrivateCluster, PgError> {
        let bin_dir = find_binaries()?;
        let run_as = if running_as_root() {
            Some((
                id_of("-u").ok_or(PgError::NoPostgresUser)?,
                id_of("-g").ok_or(PgError::NoPostgresUser)?,
            ))
        } else {
            None
        };
        std::fs::create_dir_all(data_dir).map_err(|e| step("create data directory", e))?;
        let data_dir = data_dir
            .canonicalize()
            .map_err(|e| step("find data directory", e))?;
        let mut cluster = PrivateCluster {
            data_dir,
            bin_dir,
            run_as,
            owner: None,
            started_here: false,
        };
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&cluster.data_dir, Some(uid), Some(gid))
                .map_err(|e| step("give the data directory to the postgres user", e))?;
        }
        if !cluster.data_dir.join("PG_VERSION").exists() {
            tracing::info!(dir = %cluster.data_dir.display(), "initialising a private PostgreSQL cluster");
            cluster.run(
                "initdb",
                &[
                    "-D",
                    cluster.dir_str(),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-locale",
                ],
            )?;
        }
        let waiting_since = Instant::now();
        loop {
            let lock = cluster.lock()?;
            let owner = cluster.read_owner();
            let owner_alive = owner.as_ref().is_some_and(Owner::is_alive);
            if cluster.is_running() {
                if owner_alive {
                    tracing::info!(dir = %cluster.data_dir.display(), "reusing the running private PostgreSQL");
                } else {
                    // Started by a postplay that is gone: ours now, stopped when we stop.
                    cluster.claim()?;
                    tracing::info!(dir = %cluster.data_dir.display(), "adopted the private PostgreSQL a stopped postplay left running");
                }
                drop(lock);
                return Ok(cluster);
            }
            // Another process's server went down under it: let that process finish first.
            let old_owner_alive =
                owner_alive && owner.as_ref().is_some_and(|o| o.pid != std::process::id());
            if old_owner_alive && waiting_since.elapsed() < old_owner_wait {
                drop(lock);
                if waiting_since.elapsed() < Duration::from_millis(300) {
                    tracing::info!(
                        pid = owner.as_ref().map_or(0, |o| o.pid),
                        "the private PostgreSQL is down and the postplay that ran it still runs: waiting for it to finish"
                    );
                }
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
            if old_owner_alive {
                tracing::warn!(
                    pid = owner.as_ref().map_or(0, |o| o.pid),
                    "the postplay that ran the private PostgreSQL did not finish: starting a new server, which it will leave alone"
                );
            }
            cluster.start()?;
            cluster.claim()?;
            tracing::info!(dir = %cluster.data_dir.display(), "started a private PostgreSQL");
            drop(lock);
            return Ok(cluster);
        }
    }

    /// Starts the server, retrying a while if the processes of a killed one still hold its
    /// shared memory.
    fn start(&self) -> Result<(), PgError> {
        let log = self.data_dir.join("server.log");
        let options = format!(
            "-k {} -c listen_addresses='' -c max_connections=200 -c shared_buffers=128MB",
            self.dir_str()
        );
        let began = Instant::now();
        loop {
            let started = self.run(
                "pg_ctl",
                &[
                    "start",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    self.dir_str(),
                    "-l",
                    log.to_str().unwrap_or("server.log"),
                    "-o",
                    &options,
                ],
            );
            match started {
                Err(e) if began.elapsed() < START_RETRIES => {
                    tracing::warn!(error = %e, "the private PostgreSQL did not start yet: retrying");
                    std::thread::sleep(Duration::from_millis(500));
                }
                other => return other.map(|_| ()),
            }
        }
    }

    /// The lock every start, adoption and stop of this data directory's server holds.
    fn lock(&self) -> Result<std::fs::File, PgError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.data_dir.join("postplay.lock"))
            .map_err(|e| step("open the private PostgreSQL's lock", e))?;
        file.lock()
            .map_err(|e| step("lock the private PostgreSQL", e))?;
        Ok(file)
    }

    /// The file naming the process that started (or adopted) the running server.
    fn owner_file(&self) -> PathBuf {
        self.data_dir.join("postplay.owner")
    }

    /// The owner the file names, if it names one.
    fn read_owner(&self) -> Option<Owner> {
        Owner::parse(&std::fs::read_to_string(self.owner_file()).ok()?)
    }

    /// Writes this process (a new nonce) as the running server's owner.
    fn claim(&mut self) -> Result<(), PgError> {
        let owner = Owner::this_process();
        std::fs::write(self.owner_file(), owner.to_line())
            .map_err(|e| step("record the private PostgreSQL's owner", e))?;
        self.owner = Some(owner);
        self.started_here = true;
        Ok(())
    }

    /// True if the owner file still names this cluster handle (no other process or handle
    /// started or adopted the server since).
    pub fn owns(&self) -> bool {
        self.owner.is_some() && self.read_owner() == self.owner
    }

    fn dir_str(&self) -> &str {
        self.data_dir
            .to_str()
            .expect("data directory path is UTF-8")
    }

    fn run(&self, tool: &str, args: &[&str]) -> Result<String, PgError> {
        let mut command = Command::new(self.bin_dir.join(tool));
        command.args(args).current_dir(&self.data_dir);
        if let Some((uid, gid)) = self.run_as {
            command.uid(uid).gid(gid);
        }
        let out = command.output().map_err(|e| step(tool, e))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(PgError::Step {
                step: tool.to_string(),
                detail: format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ),
            })
        }
    }

    /// True if a server runs on this data directory.
    pub fn is_running(&self) -> bool {
        self.run("pg_ctl", &["status", "-D", self.dir_str()])
            .is_ok()
    }

    /// Stops the server (fast shutdown: running transactions roll back, committed data stays)
    /// if this handle still owns it; a server another process started or adopted since is left
    /// running.
    pub fn stop(&self) -> Result<(), PgError> {
        let lock = self.lock()?;
        if !self.owns() {
            tracing::info!(dir = %self.data_dir.display(),
                "the private PostgreSQL now belongs to another postplay: left running");
            return Ok(());
        }
        self.run(
            "pg_ctl",
            &["stop", "-w", "-m", "fast", "-D", self.dir_str()],
        )?;
        let _ = std::fs::remove_file(self.owner_file());
        drop(lock);
        tracing::info!(dir = %self.data_dir.display(), "stopped the private PostgreSQL");
        Ok(())
    }

    /// Connection options for a database of this cluster, over its Unix socket.
    pub fn connect_options(&self, database: &str) -> PgConnectOptions {
        PgConnectOptions::new()
            .socket(&self.data_dir)
            .port(5432)
            .username("postgres")
            .database(database)
    }

    /// The data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// A `DATABASE_URL` for this cluster's database (for child processes and tools).
    pub fn url(&self, database: &str) -> String {
        format!(
            "postgres://postgres@localhost/{database}?host={}",
            self.dir_str()
        )
    }
}

fn step(what: &str, e: std::io::Error) -> PgError {
    PgError::Step {
        step: what.to_string(),
        detail: e.to_string(),
    }
}
