//! A pg_auto_failover formation on this machine: a monitor and two data nodes, each a
//! `pg_autoctl` keeper in a process group of its own (killed whole with its PostgreSQL's
//! processes: [`Keeper::kill_whole`]), under a temporary folder owned by the `postgres` user
//! when the test runs as root.

use crate::common::ports::free_port;
use sqlx::ConnectOptions;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// How long the formation has to come up (initdb, a base backup, the monitor's states).
const SETUP: Duration = Duration::from_secs(120);

/// The monitor's health checks, tightened for a test so a dead node is noticed within a few
/// seconds (deploy/high-availability.md gives the values for real machines).
const MONITOR_SETTINGS: &[(&str, &str)] = &[
    ("pgautofailover.health_check_period", "1000"),
    ("pgautofailover.health_check_timeout", "1000"),
    ("pgautofailover.health_check_max_retries", "1"),
    ("pgautofailover.health_check_retry_delay", "500"),
    ("pgautofailover.node_considered_unhealthy_timeout", "2000"),
    ("pgautofailover.primary_demote_timeout", "5000"),
];

/// The PostgreSQL the `postgresql-15-auto-failover` extension is built for.
const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// One keeper: its process (group leader) and where it listens.
pub struct Keeper {
    /// `node1`, `node2` or `monitor`.
    pub name: String,
    /// The PostgreSQL port.
    pub port: u16,
    child: Child,
}

impl Keeper {
    /// Kills the keeper's process group (the keeper and its PostgreSQL) and PostgreSQL's own
    /// processes with SIGKILL, and reaps the keeper; false when the group was already gone.
    /// PostgreSQL makes each of its processes the leader of a session of its own, so the
    /// group's signal reaches the postmaster but not them: most follow the postmaster out, but
    /// the monitor's health-check worker does not, and its logger waits for it. So the group is
    /// stopped first, its members' children are read from /proc while none can fork, and they
    /// are killed with it.
    fn kill_whole(&mut self) -> bool {
        let group = self.child.id() as i32;
        // SAFETY: kill(2) with a negative pid signals the group the keeper leads.
        if unsafe { libc::kill(-group, libc::SIGSTOP) } != 0 {
            let _ = self.child.wait();
            return false;
        }
        let processes = processes();
        let members: Vec<i32> = processes
            .iter()
            .filter(|p| p.group == group)
            .map(|p| p.pid)
            .collect();
        for child in processes.iter().filter(|p| members.contains(&p.parent)) {
            // SAFETY: a child of the stopped group: should it have exited, its parent cannot
            // reap it yet, so its pid is not another process's.
            unsafe { libc::kill(child.pid, libc::SIGKILL) };
        }
        // SAFETY: as above.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.child.wait();
        true
    }
}

/// A process as /proc/PID/stat tells it.
struct Process {
    pid: i32,
    parent: i32,
    group: i32,
}

/// Every process on the machine.
fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
            let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(1);
            Some(Process {
                pid,
                parent: fields.next()?.parse().ok()?,
                group: fields.next()?.parse().ok()?,
            })
        })
        .collect()
}

/// The running formation; dropping it kills every keeper's group and removes the folder.
pub struct Formation {
    dir: PathBuf,
    run_as: Option<(u32, u32)>,
    bin_dir: PathBuf,
    /// The monitor, then the data nodes.
    pub keepers: Vec<Keeper>,
}

fn postgres_ids() -> Option<(u32, u32)> {
    let id = |flag: &str| -> Option<u32> {
        let out = Command::new("id").args([flag, "postgres"]).output().ok()?;
        String::from_utf8(out.stdout).ok()?.trim().parse().ok()
    };
    let me = Command::new("id").arg("-u").output().ok()?;
    (String::from_utf8_lossy(&me.stdout).trim() == "0").then_some((id("-u")?, id("-g")?))
}

/// Connection options for `database` on a local port as the `postgres` user.
pub fn local(port: u16, database: &str) -> PgConnectOptions {
    PgConnectOptions::new()
        .host("127.0.0.1")
        .port(port)
        .username("postgres")
        .database(database)
}

impl Formation {
    /// Starts the monitor and the two data nodes and waits until node 1 is the primary and
    /// node 2 its synchronous secondary.
    pub async fn start() -> Formation {
        let mut random = [0u8; 6];
        getrandom::fill(&mut random).unwrap();
        let dir = std::env::temp_dir().join(format!("postplay-failover-{}", hex::encode(random)));
        std::fs::create_dir_all(dir.join("run")).unwrap();
        let run_as = postgres_ids();
        if let Some((uid, gid)) = run_as {
            for d in [&dir, &dir.join("run")] {
                std::os::unix::fs::chown(d, Some(uid), Some(gid)).unwrap();
            }
        }
        let mut formation = Formation {
            dir,
            run_as,
            bin_dir: PathBuf::from(PG_BIN),
            keepers: Vec::new(),
        };
        let monitor_port = free_port();
        formation.spawn(
            "monitor",
            monitor_port,
            &[
                "create",
                "monitor",
                "--hostname",
                "127.0.0.1",
                "--auth",
                "trust",
                "--no-ssl",
            ],
        );
        let mut monitor = formation
            .until_connects(monitor_port, "pg_auto_failover")
            .await;
        formation.until_states(&mut monitor, &[]).await;
        for (name, value) in MONITOR_SETTINGS {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "ALTER SYSTEM SET {name} = {value}"
            )))
            .execute(&mut monitor)
            .await
            .unwrap();
        }
        sqlx::query("SELECT pg_reload_conf()")
            .execute(&mut monitor)
            .await
            .unwrap();
        let monitor_url = format!(
            "postgres://autoctl_node@127.0.0.1:{monitor_port}/pg_auto_failover?sslmode=disable"
        );
        for n in 1..=2 {
            let name = format!("node{n}");
            let node_args = [
                "create",
                "postgres",
                "--hostname",
                "127.0.0.1",
                "--name",
                &name,
                "--auth",
                "trust",
                "--no-ssl",
                "--dbname",
                "postplay",
                "--monitor",
                &monitor_url,
            ];
            formation.spawn(&name, free_port(), &node_args);
            let want: &[(&str, &str)] = if n == 1 {
                &[("node1", "single")]
            } else {
                &[("node1", "primary"), ("node2", "secondary")]
            };
            formation.until_states(&mut monitor, want).await;
        }
        formation
    }

    /// Spawns `pg_autoctl <args> --pgdata DIR/<name> --pgport <port> --run` in a process group
    /// of its own, as the postgres user when root, its output in DIR/<name>.log.
    fn spawn(&mut self, name: &str, port: u16, args: &[&str]) {
        let log = std::fs::File::create(self.dir.join(format!("{name}.log"))).unwrap();
        let path = format!(
            "{}:{}",
            self.bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = Command::new("pg_autoctl");
        command
            .args(args)
            .arg("--pgdata")
            .arg(self.dir.join(name))
            .arg("--pgport")
            .arg(port.to_string())
            .arg("--pgctl")
            .arg(self.bin_dir.join("pg_ctl"))
            .arg("--run")
            .env("PATH", path)
            .env("HOME", &self.dir)
            .env("XDG_CONFIG_HOME", self.dir.join("config"))
            .env("XDG_DATA_HOME", self.dir.join("data"))
            .env("XDG_RUNTIME_DIR", self.dir.join("run"))
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        if let Some((uid, gid)) = self.run_as {
            command.uid(uid).gid(gid);
        }
        let child = command.spawn().expect(
            "pg_autoctl starts (apt-get install pg-auto-failover-cli postgresql-15-auto-failover)",
        );
        self.keepers.push(Keeper {
            name: name.to_string(),
            port,
            child,
        });
    }

    /// A connection to `database` on `port` once the server there takes one.
    async fn until_connects(&self, port: u16, database: &str) -> PgConnection {
        let options = local(port, database);
        let began = std::time::Instant::now();
        loop {
            match options.connect().await {
                Ok(c) => return c,
                Err(e) if began.elapsed() < SETUP => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!(
                    "waited {SETUP:?} for PostgreSQL on port {port}: {e}; logs in {}",
                    self.dir.display()
                ),
            }
        }
    }

    /// Waits until the monitor reports each named node in the given state (reported and
    /// assigned alike). While a standby is being made, the primary is asked for a checkpoint
    /// at each look: the base backup waits for one.
    async fn until_states(&self, monitor: &mut PgConnection, want: &[(&str, &str)]) {
        let began = std::time::Instant::now();
        loop {
            // Until the monitor has made its extension, the table is not there: nothing yet.
            let states: Vec<(String, String, String)> = sqlx::query_as(
                "SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid",
            )
            .fetch_all(&mut *monitor)
            .await
            .unwrap_or_default();
            let reached = (!want.is_empty() || self.monitor_ready(monitor).await)
                && want.iter().all(|(node, state)| {
                    states
                        .iter()
                        .any(|(n, r, g)| n == node && r == state && g == state)
                });
            if reached {
                return;
            }
            assert!(
                began.elapsed() < SETUP,
                "waited {SETUP:?} for the formation to reach {want:?}; the monitor says {states:?}; logs in {}",
                self.dir.display()
            );
            if let Some(primary) = self.keepers.iter().find(|k| k.name == "node1")
                && let Ok(mut c) = local(primary.port, "postgres").connect().await
            {
                let _ = sqlx::query("CHECKPOINT").execute(&mut c).await;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// True once the monitor's extension is in place.
    async fn monitor_ready(&self, monitor: &mut PgConnection) -> bool {
        sqlx::query("SELECT 1 FROM pgautofailover.node LIMIT 0")
            .execute(monitor)
            .await
            .is_ok()
    }

    /// The keeper named `name`.
    pub fn keeper(&self, name: &str) -> &Keeper {
        self.keepers.iter().find(|k| k.name == name).unwrap()
    }

    /// Kills a keeper's whole process group (the keeper and its PostgreSQL) with SIGKILL and
    /// waits until its port refuses connections: processes take a few milliseconds to die,
    /// and until then the node may still commit. Returns when the signal was sent.
    pub async fn kill(&mut self, name: &str) -> std::time::Instant {
        let keeper = self.keepers.iter_mut().find(|k| k.name == name).unwrap();
        let port = keeper.port;
        let sent = std::time::Instant::now();
        assert!(keeper.kill_whole(), "kill the process group of {name}");
        loop {
            match tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => return sent,
                seen => assert!(
                    sent.elapsed() < Duration::from_secs(10),
                    "{name} still takes connections 10 s after SIGKILL: {seen:?}"
                ),
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The folder with every node's data and log.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Formation {
    fn drop(&mut self) {
        for keeper in &mut self.keepers {
            // A keeper already killed: its group is gone, which is fine.
            keeper.kill_whole();
        }
        if std::env::var_os("POSTPLAY_FAILOVER_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
