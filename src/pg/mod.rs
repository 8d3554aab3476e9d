//! The private PostgreSQL: when no `DATABASE_URL` is given, `postplay serve` and the tests run
//! their own cluster from the installed server binaries, in a data directory of their own,
//! listening only on a Unix socket inside it.
//!
//! PostgreSQL refuses to run as root, so as root the cluster's processes run as the
//! unprivileged `postgres` user and the data directory belongs to it.

use sqlx::postgres::PgConnectOptions;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    /// True if this process started the server (and so should stop it).
    pub started_here: bool,
}

/// The folder with `initdb` and `pg_ctl`: PATH first, then the newest
/// /usr/lib/postgresql/<version>/bin.
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
    /// Initialises the cluster if the data directory is new, starts it unless it runs already.
    pub fn ensure(data_dir: &Path) -> Result<PrivateCluster, PgError> {
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
        if cluster.is_running() {
            if cluster.owner_is_gone() {
                // Started by a postplay that was killed: ours now, stopped when we stop.
                cluster.started_here = true;
                cluster.claim();
                tracing::info!(dir = %cluster.data_dir.display(), "adopted the private PostgreSQL a stopped postplay left running");
            } else {
                tracing::info!(dir = %cluster.data_dir.display(), "reusing the running private PostgreSQL");
            }
        } else {
            let log = cluster.data_dir.join("server.log");
            let options = format!(
                "-k {} -c listen_addresses='' -c max_connections=200 -c shared_buffers=128MB",
                cluster.dir_str()
            );
            cluster.run(
                "pg_ctl",
                &[
                    "start",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    cluster.dir_str(),
                    "-l",
                    log.to_str().unwrap_or("server.log"),
                    "-o",
                    &options,
                ],
            )?;
            cluster.started_here = true;
            cluster.claim();
            tracing::info!(dir = %cluster.data_dir.display(), "started a private PostgreSQL");
        }
        Ok(cluster)
    }

    /// The file naming the process that started (or adopted) the running server.
    fn owner_file(&self) -> PathBuf {
        self.data_dir.join("postplay.owner")
    }

    /// Writes this process as the running server's owner.
    fn claim(&self) {
        if let Err(e) = std::fs::write(self.owner_file(), std::process::id().to_string()) {
            tracing::warn!(error = %e, "could not record the private PostgreSQL's owner");
        }
    }

    /// True if the running server was started by a postplay process that no longer exists (it
    /// was killed before it could stop the server).
    fn owner_is_gone(&self) -> bool {
        let Ok(text) = std::fs::read_to_string(self.owner_file()) else {
            return false;
        };
        match text.trim().parse::<u32>() {
            Ok(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
            Err(_) => true,
        }
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

    /// Stops the server (fast shutdown: running transactions roll back, committed data stays).
    pub fn stop(&self) -> Result<(), PgError> {
        self.run(
            "pg_ctl",
            &["stop", "-w", "-m", "fast", "-D", self.dir_str()],
        )?;
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
