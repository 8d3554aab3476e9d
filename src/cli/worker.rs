//! `postplay worker`: the outbox worker and the clock's scheduler (as inside `serve`), for
//! running mail and deadlines in processes of their own.

use crate::config::Config;
use std::process::ExitCode;

/// Arguments of `postplay worker`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs the outbox worker until SIGINT/SIGTERM.
pub fn run(_args: Args) -> ExitCode {
    super::serve::init_logging();
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("configuration: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime starts");
    match runtime.block_on(work(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("postplay worker: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn work(config: Config) -> Result<(), String> {
    let (store, cluster) = crate::startup::connect(&config).await?;
    store
        .migrate()
        .await
        .map_err(|e| format!("migrations: {e}"))?;
    let worker =
        crate::mail::settings::worker(&config.mail, store.pool().clone(), &config.base_url)?
            .ok_or("mail is off (POSTPLAY_MAIL=off): there is nothing for a worker to do")?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        let _ = stop.send(true);
    });
    let store = std::sync::Arc::new(store);
    let scheduler = crate::clock::Scheduler::new(store.clone());
    tokio::join!(
        worker.run(stopped.clone()),
        scheduler.run(config.clock_tick, stopped)
    );
    if let Some(cluster) = cluster.filter(|c| c.started_here) {
        cluster.stop().map_err(|e| e.to_string())?;
    }
    Ok(())
}
