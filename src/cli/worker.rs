//! `postplay worker`: the outbox worker, the clock's scheduler and the practice bots (as inside
//! `serve`), for running mail, deadlines and bots in processes of their own.

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
    let worker = crate::config::mail::worker(&config.mail, store.pool().clone(), &config.base_url)?;
    if let Some(metrics) = &config.metrics_bind {
        crate::telemetry::endpoint::serve_from(metrics, store.pool())?;
    }
    if worker.is_none() && config.bot_searches == 0 {
        return Err(
            "mail is off (POSTPLAY_MAIL=off) and so are the bots (POSTPLAY_BOT_SEARCHES=0): \
             there is nothing for a worker to do"
                .into(),
        );
    }
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
    let scheduler = crate::clock::Scheduler::new(store.clone()).with_replies(std::sync::Arc::new(
        crate::replies::Inbox::new(
            store.clone_handle(),
            config.mail.from.address.clone(),
            config.mail.inbound.clone(),
        ),
    ));
    let bots = crate::bots::BotWorker::new(store.clone(), config.bot_searches);
    let mail = async {
        if let Some(worker) = worker {
            worker.run(stopped.clone()).await;
        }
    };
    let reviews = crate::review::worker::ReviewWorker::new(
        store.clone(),
        bots.searches(),
        config.review_budget,
    );
    let play = async {
        if config.bot_searches > 0 {
            tokio::join!(
                bots.run(crate::bots::TICK, stopped.clone()),
                reviews.run(crate::review::worker::TICK, stopped.clone())
            );
        }
    };
    tokio::join!(
        mail,
        play,
        scheduler.run(config.clock_tick, stopped.clone())
    );
    if let Some(cluster) = cluster.filter(|c| c.started_here) {
        cluster.stop().map_err(|e| e.to_string())?;
    }
    Ok(())
}
