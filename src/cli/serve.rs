//! `postplay serve` and `postplay migrate`.

use crate::config::Config;
use std::process::ExitCode;

/// Arguments of `postplay serve`.
#[derive(clap::Args, Debug)]
pub struct Args {}

fn config() -> Result<Config, ExitCode> {
    Config::from_env().map_err(|e| {
        eprintln!("configuration: {e}");
        ExitCode::from(2)
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().expect("a tokio runtime starts")
}

/// Runs the server until SIGINT/SIGTERM.
pub fn run(_args: Args) -> ExitCode {
    init_logging();
    let config = match config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let system = actix_web::rt::System::new();
    match system.block_on(crate::web::serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("postplay serve: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Applies the migrations to the configured database and exits.
pub fn migrate() -> ExitCode {
    init_logging();
    let config = match config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = runtime().block_on(async {
        let (store, cluster) = crate::startup::connect(&config).await?;
        let migrated = store.migrate().await.map_err(|e| e.to_string());
        if let Some(cluster) = cluster.filter(|c| c.started_here) {
            cluster.stop().map_err(|e| e.to_string())?;
        }
        migrated
    });
    match result {
        Ok(()) => {
            println!("migrations applied");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("postplay migrate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Structured logs to stderr with secrets masked ([`crate::logging`]).
pub fn init_logging() {
    crate::logging::init();
}
