//! Starting the web app on a listener, and `postplay serve`: the whole server with its worker,
//! clock, bots and private PostgreSQL.

use crate::config::{Config, WebSettings};
use crate::store::Store;
use actix_web::middleware::{Logger, from_fn};
use actix_web::{App, HttpServer, web};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

use crate::web::http::{admission, limits, protect};
use crate::web::seat::events;
use crate::web::{AppState, routes};

/// Starts the app on a listener already bound, with the listener for live refresh; returns
/// the server to await or stop.
pub fn start(
    store: Arc<Store>,
    base_url: String,
    listener: std::net::TcpListener,
) -> std::io::Result<actix_web::dev::Server> {
    start_with(store, base_url, listener, None, WebSettings::default())
}

/// [`start`], with the dev mailbox's pages when mail goes to that folder.
pub fn start_with_mailbox(
    store: Arc<Store>,
    base_url: String,
    listener: std::net::TcpListener,
    mailbox: Option<crate::notices::DevMailbox>,
) -> std::io::Result<actix_web::dev::Server> {
    start_with(store, base_url, listener, mailbox, WebSettings::default())
}

/// How often the rate limiters forget clients whose allowance is whole again.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// [`start`], with the mailbox and the web settings given.
pub fn start_with(
    store: Arc<Store>,
    base_url: String,
    listener: std::net::TcpListener,
    mailbox: Option<crate::notices::DevMailbox>,
    settings: WebSettings,
) -> std::io::Result<actix_web::dev::Server> {
    let (moves, _) = broadcast::channel(1024);
    events::spawn_listener(store.pool().clone(), moves.clone());
    let request_timeout = settings.request_timeout;
    let state = web::Data::new(AppState {
        store,
        secure_cookies: base_url.starts_with("https://"),
        base_url,
        moves,
        mailbox,
        limits: limits::Limits::new(&settings),
        admission: admission::Admission::new(&settings),
        streams: events::StreamSlots::new(settings.streams_per_client, settings.streams_total),
        settings,
    });
    let pruned = state.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PRUNE_EVERY);
        loop {
            every.tick().await;
            pruned.limits.prune();
        }
    });
    let server = HttpServer::new(move || {
        App::new()
            .wrap(from_fn(admission::admit))
            .wrap(from_fn(protect::protect))
            .wrap(from_fn(crate::telemetry::requests::timed))
            .wrap(Logger::new("%r %s %Dms"))
            .app_data(state.clone())
            .app_data(web::PayloadConfig::new(64 * 1024))
            .configure(routes)
            .default_service(web::to(protect::not_found))
    })
    .client_request_timeout(request_timeout)
    .client_disconnect_timeout(Duration::from_secs(2))
    // Open live-refresh streams never finish by themselves: give requests in flight five
    // seconds on shutdown, then stop (and with that, the private PostgreSQL).
    .shutdown_timeout(5)
    .listen(listener)?
    .run();
    Ok(server)
}

/// `postplay serve`: the private PostgreSQL (unless DATABASE_URL), started again whenever its
/// postmaster dies, migrations, the web app on its bounded pool, the clock and the outbox
/// worker on a pool of their own; stops the private cluster on shutdown.
pub async fn serve(config: Config) -> Result<(), String> {
    let open_files = crate::fds::raise_open_files();
    let (store, cluster) = crate::startup::connect(&config).await?;
    store
        .migrate()
        .await
        .map_err(|e| format!("migrations: {e}"))?;
    let listener = std::net::TcpListener::bind(&config.bind)
        .map_err(|e| format!("bind {}: {e}", config.bind))?;
    let metrics = config.metrics_bind.as_deref();
    crate::telemetry::endpoint::serve_from(
        metrics.unwrap_or(crate::telemetry::endpoint::DEFAULT_BIND),
        store.pool(),
    )?;
    tracing::info!(bind = %config.bind, base_url = %config.base_url, "postplay is listening");
    let (stop_worker, stopped) = tokio::sync::watch::channel(false);
    // The clock and the outbox worker on connections of their own: requests never take them.
    let background = Arc::new(crate::startup::connect_background(&config, &store).await?);
    let store = Arc::new(store);
    let scheduler = {
        let scheduler = crate::clock::Scheduler::new(background.clone()).with_replies(
            std::sync::Arc::new(crate::replies::Inbox::new(
                background.clone_handle(),
                config.mail.from.address.clone(),
                config.mail.inbound.clone(),
            )),
        );
        let stopped = stopped.clone();
        let every = config.clock_tick;
        actix_web::rt::spawn(async move { scheduler.run(every, stopped).await })
    };
    let bots = (config.bot_searches > 0).then(|| {
        let bots = crate::bots::BotWorker::new(store.clone(), config.bot_searches);
        let reviews = crate::review::worker::ReviewWorker::new(
            store.clone(),
            bots.searches(),
            config.review_budget,
        );
        let stopped_too = stopped.clone();
        actix_web::rt::spawn(
            async move { reviews.run(crate::review::worker::TICK, stopped_too).await },
        );
        let stopped = stopped.clone();
        actix_web::rt::spawn(async move { bots.run(crate::bots::TICK, stopped).await })
    });
    let watcher = cluster.clone().map(|cluster| {
        let stopped = stopped.clone();
        actix_web::rt::spawn(crate::pg::watch::watch(cluster, stopped))
    });
    let worker =
        crate::config::mail::worker(&config.mail, background.pool().clone(), &config.base_url)?;
    let worker = match worker {
        Some(worker) => Some(actix_web::rt::spawn(
            async move { worker.run(stopped).await },
        )),
        None => {
            tracing::warn!("mail is off (POSTPLAY_MAIL=off): notices stay queued");
            None
        }
    };
    let mailbox = config.mail.mailbox();
    if let Some(m) = &mailbox {
        tracing::info!(dir = %m.dir().display(), url = %format!("{}/dev/mailbox", config.base_url),
            "mail goes to the dev mailbox");
        let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
        if !loopback {
            tracing::warn!(bind = %config.bind, public = config.web.mailbox_public,
                "the dev mailbox is on and the server listens beyond this machine: set POSTPLAY_MAIL=smtp for real mail{}",
                if config.web.mailbox_public { "; POSTPLAY_MAILBOX_PUBLIC shows every seat's link to anyone" } else { "; its links show only to loopback clients" });
        }
    }
    let mut web = config.web.clone();
    web.streams_total = crate::fds::stream_cap(config.web.streams_total, open_files);
    tracing::info!(
        open_files = %open_files.map_or("unknown".to_string(), |n| n.to_string()),
        streams_total = web.streams_total,
        configured = config.web.streams_total,
        reserved = crate::fds::RESERVED_FILES,
        "live-refresh streams sized below the limit on open files"
    );
    if web.streams_total < config.web.streams_total {
        tracing::warn!(
            "the limit on open files allows fewer live-refresh streams than configured: raise it (LimitNOFILE=65536 in the systemd unit)"
        );
    }
    let server = start_with(store, config.base_url.clone(), listener, mailbox, web)
        .map_err(|e| e.to_string())?;
    let result = server.await.map_err(|e| e.to_string());
    let _ = stop_worker.send(true);
    if let Some(worker) = worker {
        let _ = worker.await;
    }
    let _ = scheduler.await;
    if let Some(bots) = bots {
        let _ = bots.await;
    }
    // The watcher's handle owns what it started again; the first one is left if it failed.
    let cluster = match watcher {
        Some(watcher) => watcher.await.ok().or(cluster),
        None => cluster,
    };
    if let Some(cluster) = cluster.filter(|c| c.started_here) {
        cluster.stop().map_err(|e| e.to_string())?;
    }
    result
}
