//! `postplay backup`: the whole database, as it stood at one instant, to one file (pg_dump's
//! custom format) that `postplay restore` puts back (deploy/backups.md).

use crate::config::Config;
use crate::pg::PrivateCluster;
use crate::pg::tools::{self, Target};
use crate::store::Store;
use crate::store::game::census::census;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `postplay backup`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The file to write (it holds players' addresses and running games' seeds: it is made
    /// readable by its owner only).
    file: PathBuf,
    /// Replace the file if it exists (the new backup takes its place only once complete).
    #[arg(long)]
    overwrite: bool,
}

/// The configured database: its store, and where the client tools connect to it.
pub(super) struct Opened {
    /// The store on it.
    pub store: Store,
    /// The tools' connection (no password shown).
    pub target: Target,
    cluster: Option<PrivateCluster>,
}

impl Opened {
    /// Connects to DATABASE_URL, or starts (or finds) the private cluster and its database.
    pub async fn open(config: &Config) -> Result<Opened, String> {
        let (store, cluster) = crate::startup::connect(config).await?;
        let url = match (&config.database_url, &cluster) {
            (Some(url), _) => url.clone(),
            (None, Some(cluster)) => cluster.url("postplay"),
            (None, None) => return Err("no database configured".into()),
        };
        Ok(Opened {
            store,
            target: Target::from_url(&url)?,
            cluster,
        })
    }

    /// Closes the pool, and stops the private cluster if this process started it.
    pub async fn close(self) -> Result<(), String> {
        self.store.pool().close().await;
        if let Some(cluster) = self.cluster.filter(|c| c.started_here) {
            cluster.stop().map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The database, named for a message.
    pub fn describe(&self) -> String {
        match &self.cluster {
            Some(cluster) => format!("the private PostgreSQL in {}", cluster.data_dir().display()),
            None => self.target.shown().to_string(),
        }
    }
}

/// Reads the configuration, runs `work` on a runtime, reports its error as `verb: …`.
pub(super) fn run_verb(
    verb: &str,
    work: impl AsyncFnOnce(Config) -> Result<(), Failure>,
) -> ExitCode {
    crate::logging::init();
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("configuration: {e}");
            return ExitCode::from(REFUSED);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime starts");
    match runtime.block_on(work(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { code, message }) => {
            eprintln!("postplay {verb}: {message}");
            ExitCode::from(code)
        }
    }
}

/// Exit code of a verb that did its work but found something wrong (a record that fails).
pub(super) const FAILED: u8 = 1;
/// Exit code of a verb that refused or could not start: nothing was changed.
pub(super) const REFUSED: u8 = 2;

/// Why a verb stopped, with its exit code.
pub(super) struct Failure {
    /// [`FAILED`] or [`REFUSED`].
    pub code: u8,
    /// What to tell the host.
    pub message: String,
}

/// A [`REFUSED`] failure.
pub(super) fn refused(message: impl Into<String>) -> Failure {
    Failure {
        code: REFUSED,
        message: message.into(),
    }
}

/// Writes the backup: the census and the dump both read one exported snapshot, so the counts
/// printed are the file's.
pub fn run(args: Args) -> ExitCode {
    run_verb("backup", async |config| {
        if args.file.exists() && !args.overwrite {
            return Err(refused(format!(
                "{} exists: name a new file, or give --overwrite to replace it",
                args.file.display()
            )));
        }
        let began = Instant::now();
        let opened = Opened::open(&config).await.map_err(refused)?;
        let result = write(&opened, &args.file).await;
        opened.close().await.map_err(refused)?;
        let counts = result?;
        let size = std::fs::metadata(&args.file).map(|m| m.len()).unwrap_or(0);
        println!(
            "backed up {counts} to {} ({:.1} MB) in {:.1} s",
            args.file.display(),
            size as f64 / 1e6,
            began.elapsed().as_secs_f64()
        );
        Ok(())
    })
}

/// The dump, written beside `file` and moved over it once complete and readable.
async fn write(
    opened: &Opened,
    file: &Path,
) -> Result<crate::store::game::census::Census, Failure> {
    let dir = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = file
        .file_name()
        .ok_or_else(|| refused(format!("{} is not a file name", file.display())))?;
    let partial = dir.join(format!(
        ".{}.{}.partial",
        name.to_string_lossy(),
        std::process::id()
    ));
    let out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)
        .map_err(|e| refused(format!("{}: {e}", partial.display())))?;
    let written = dump(opened, out.try_clone().map_err(|e| refused(e.to_string()))?).await;
    let finished = written.and_then(|counts| {
        out.sync_all().map_err(|e| e.to_string())?;
        tools::contents(&partial)
            .map_err(|e| format!("the dump written does not read back: {e}"))?;
        std::fs::rename(&partial, file).map_err(|e| format!("{}: {e}", file.display()))?;
        std::fs::File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(counts)
    });
    if finished.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    finished.map_err(|message| Failure {
        code: REFUSED,
        message,
    })
}

/// Counts and dumps the database in one exported snapshot, held open until pg_dump is done.
async fn dump(
    opened: &Opened,
    out: std::fs::File,
) -> Result<crate::store::game::census::Census, String> {
    let mut conn = opened
        .store
        .pool()
        .acquire()
        .await
        .map_err(|e| format!("database: {e}"))?;
    sqlx::query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *conn)
        .await
        .map_err(|e| e.to_string())?;
    let snapshot: String = sqlx::query_scalar("SELECT pg_export_snapshot()")
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| e.to_string())?;
    let counts = census(&mut conn).await.map_err(|e| {
        format!(
            "{} does not look like postplay's database ({e})",
            opened.describe()
        )
    })?;
    let dumped = tools::dump(&opened.target, &snapshot, out).await;
    sqlx::query("COMMIT")
        .execute(&mut *conn)
        .await
        .map_err(|e| e.to_string())?;
    dumped.map(|()| counts)
}
