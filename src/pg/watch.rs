//! Keeping the private PostgreSQL up while `serve` runs: every [`CHECK_EVERY`] `serve` looks
//! whether the cluster's postmaster still runs and, when it is gone (killed, crashed, stopped
//! by hand), starts the server again the way a boot does. PostgreSQL recovers from its
//! write-ahead log by itself, so every committed (acknowledged) move is there again; meanwhile
//! requests that need the database answer 503 and the pool reconnects once it is back.
//!
//! One restart at a time: [`PrivateCluster::revive`] holds the same lock as a start, an
//! adoption and a stop, and starts nothing if another process brought the server back first.
//! A `postmaster.pid` left by the killed server is PostgreSQL's to clear (it checks the pid);
//! a killed server's processes still holding its shared memory are waited out by the start's
//! retries.

use super::{PgError, PrivateCluster};
use std::time::{Duration, Instant};

/// How often `serve` looks whether its private PostgreSQL still runs.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// What [`PrivateCluster::revive`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revived {
    /// The server was running (or another process had started it again): nothing to do.
    Running,
    /// The server was down and is running again.
    Restarted,
}

impl PrivateCluster {
    /// The pid `postmaster.pid` names, if the file is there and readable.
    pub fn postmaster_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.data_dir.join("postmaster.pid"))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }

    /// True if `postmaster.pid` names a live PostgreSQL process (cheap: no tool run). A pid
    /// the kernel has since given to another program, or a killed postmaster not yet reaped
    /// (a zombie takes no connections), is not one.
    fn postmaster_alive(&self) -> bool {
        let Some(pid) = self.postmaster_pid() else {
            return false;
        };
        let proc = std::path::Path::new("/proc").join(pid.to_string());
        let is_postgres =
            std::fs::read_to_string(proc.join("comm")).is_ok_and(|comm| comm.trim() == "postgres");
        let state = std::fs::read_to_string(proc.join("stat"))
            .ok()
            .and_then(|stat| {
                let after = &stat[stat.rfind(')')? + 1..];
                after.split_whitespace().next().map(str::to_string)
            });
        is_postgres && state.is_some_and(|s| s != "Z")
    }

    /// Starts the server again if no postmaster runs, under the cluster's lock; this handle
    /// then owns it (and stops it when `serve` stops). PostgreSQL itself checks a
    /// `postmaster.pid` left behind and refuses to start while the old server's processes
    /// still hold its shared memory, which the start retries out.
    pub fn revive(&mut self) -> Result<Revived, PgError> {
        let lock = self.lock()?;
        if self.postmaster_alive() {
            return Ok(Revived::Running);
        }
        self.start()?;
        if !self.owns() {
            self.claim()?;
        }
        drop(lock);
        Ok(Revived::Restarted)
    }
}

/// Looks after `cluster` until `stopped` turns true (or its sender is gone), then gives the
/// handle back, owning whatever it restarted, for `serve` to stop.
pub async fn watch(
    mut cluster: PrivateCluster,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> PrivateCluster {
    let mut last_pid = cluster.postmaster_pid();
    loop {
        tokio::select! {
            _ = tokio::time::sleep(CHECK_EVERY) => {}
            changed = stopped.changed() => if changed.is_err() || *stopped.borrow() { return cluster },
        }
        if *stopped.borrow() {
            return cluster;
        }
        if cluster.postmaster_alive() {
            last_pid = cluster.postmaster_pid();
            continue;
        }
        tracing::warn!(
            dir = %cluster.data_dir().display(),
            pid = last_pid.map_or("unknown".to_string(), |p| p.to_string()),
            "the private PostgreSQL's server process is gone: starting it again (it recovers \
             from its write-ahead log); requests needing the database answer 503 until it is back"
        );
        let began = Instant::now();
        let handle = cluster.clone();
        let result = tokio::task::spawn_blocking(move || {
            let mut handle = handle;
            let revived = handle.revive();
            (handle, revived)
        })
        .await;
        match result {
            Ok((handle, Ok(revived))) => {
                cluster = handle;
                last_pid = cluster.postmaster_pid();
                tracing::info!(
                    took_ms = began.elapsed().as_millis() as u64,
                    pid = last_pid.map_or("unknown".to_string(), |p| p.to_string()),
                    restarted_here = revived == Revived::Restarted,
                    "the private PostgreSQL is back"
                );
            }
            Ok((handle, Err(e))) => {
                cluster = handle;
                tracing::error!(error = %e,
                    "the private PostgreSQL did not start again: trying again in a second");
            }
            Err(e) => {
                tracing::error!(error = %e,
                    "starting the private PostgreSQL again failed: trying again in a second");
            }
        }
    }
}
