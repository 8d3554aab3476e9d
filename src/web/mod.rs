//! The web app (actix-web + askama): server-rendered pages that work without JavaScript and on
//! a phone, a JSON API, live refresh, and `serve` itself.

mod account;
mod api;
mod boards;
pub mod client;
mod club_admin;
mod club_archive;
mod club_desk;
mod club_new_game;
pub mod club_ratings;
mod clubs;
mod csrf;
mod desk;
pub mod events;
mod hand;
mod handover;
mod history;
mod json;
mod leagues;
pub mod limits;
mod lobby;
mod mail;
mod me;
mod messages;
mod orders;
mod pages;
mod protect;
mod public;
pub mod rating_chart;
pub mod render;
mod rules;
mod seat_changes;
pub mod session;
mod signin;
mod webhooks;

pub use pages::seat_page_html;

use crate::config::{Config, WebSettings};
use crate::store::{Store, StoreError, SubmitError};
use actix_web::http::StatusCode;
use actix_web::middleware::{Logger, from_fn};
use actix_web::{App, HttpResponse, HttpServer, ResponseError, guard, web};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// What every handler shares.
pub struct AppState {
    /// The event store.
    pub store: Arc<Store>,
    /// Public base URL for links.
    pub base_url: String,
    /// Moves announced by PostgreSQL: (game id, seq).
    pub moves: broadcast::Sender<(i64, i64)>,
    /// The dev mailbox, when mail goes there (its pages exist only then).
    pub mailbox: Option<crate::notices::DevMailbox>,
    /// Limits, proxies, timeouts.
    pub settings: WebSettings,
    /// Rate limits.
    pub limits: limits::Limits,
    /// Open live-refresh streams.
    pub streams: Arc<events::StreamSlots>,
    /// Cookies carry `Secure` (the base URL is https).
    pub secure_cookies: bool,
}

/// Errors a handler answers with.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// 404.
    #[error("not found")]
    NotFound,
    /// 401.
    #[error("a valid token is needed")]
    Unauthorized,
    /// 403.
    #[error("{0}")]
    Forbidden(String),
    /// 400.
    #[error("{0}")]
    BadRequest(String),
    /// 429: a rate limit.
    #[error("you {} too often: try again in {}", .0.what, wait_words(&.0.retry_after))]
    TooMany(limits::Limited),
    /// 503: a bound of the server is reached for now.
    #[error("{message}")]
    Busy {
        /// What is full, in words.
        message: String,
        /// When to try again.
        retry_after: Duration,
    },
    /// 410: shown once and gone.
    #[error("{0}")]
    Gone(String),
    /// 409: not possible in the game's present state.
    #[error("{0}")]
    Conflict(String),
    /// 413.
    #[error("{0}")]
    TooLarge(String),
    /// 503: the database cannot be reached (it is down or every connection is busy).
    #[error("the database is not reachable, try again shortly")]
    DatabaseDown(String),
    /// 500.
    #[error("internal error: {0}")]
    Internal(String),
}

/// When a client told the database is down should try again.
const DATABASE_RETRY: Duration = Duration::from_secs(5);

impl From<sqlx::Error> for WebError {
    fn from(e: sqlx::Error) -> WebError {
        let unreachable = matches!(
            e,
            sqlx::Error::PoolTimedOut
                | sqlx::Error::PoolClosed
                | sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::WorkerCrashed
        ) || matches!(&e, sqlx::Error::Database(d)
            // admin_shutdown, crash_shutdown, cannot_connect_now: the server is going away.
            if matches!(d.code().as_deref(), Some("57P01" | "57P02" | "57P03")));
        if unreachable {
            WebError::DatabaseDown(e.to_string())
        } else {
            WebError::Internal(e.to_string())
        }
    }
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> WebError {
        match e {
            StoreError::NotFound => WebError::NotFound,
            StoreError::Invalid(m) => WebError::BadRequest(m),
            StoreError::Db(e) => e.into(),
            other => WebError::Internal(other.to_string()),
        }
    }
}

impl From<SubmitError> for WebError {
    fn from(e: SubmitError) -> WebError {
        match e {
            SubmitError::NotFound => WebError::NotFound,
            SubmitError::NotHolder => WebError::Unauthorized,
            SubmitError::Db(e) => e.into(),
            other => WebError::Internal(other.to_string()),
        }
    }
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Unauthorized => StatusCode::UNAUTHORIZED,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::Conflict(_) => StatusCode::CONFLICT,
            WebError::Gone(_) => StatusCode::GONE,
            WebError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            WebError::Busy { .. } | WebError::DatabaseDown(_) => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            WebError::Internal(detail) => tracing::error!(%detail, "request failed"),
            WebError::DatabaseDown(detail) => {
                tracing::warn!(%detail, "request failed: the database is not reachable");
            }
            _ => {}
        }
        let message = match self {
            WebError::Internal(_) => "something went wrong on the server".to_string(),
            other => other.to_string(),
        };
        let mut response = HttpResponse::build(self.status_code());
        let retry_after = match self {
            WebError::TooMany(limited) => Some(limited.retry_after),
            WebError::Busy { retry_after, .. } => Some(*retry_after),
            WebError::DatabaseDown(_) => Some(DATABASE_RETRY),
            _ => None,
        };
        if let Some(wait) = retry_after {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response.insert_header(("Retry-After", seconds.max(1).to_string()));
        }
        response.json(json!({"error": message}))
    }
}

/// "3 minutes", "1 hour": a wait for a person.
fn wait_words(wait: &Duration) -> String {
    let seconds = wait.as_secs().max(1);
    let (n, unit) = match seconds {
        s if s < 120 => (s, "second"),
        s if s < 7200 => (s.div_ceil(60), "minute"),
        s => (s.div_ceil(3600), "hour"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// How long `/healthz` waits for the database.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

async fn healthz(state: web::Data<AppState>) -> HttpResponse {
    let probe = sqlx::query("SELECT 1").execute(state.store.pool());
    match tokio::time::timeout(HEALTH_TIMEOUT, probe).await {
        Ok(Ok(_)) => HttpResponse::Ok().body("ok"),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "health check: the database failed");
            HttpResponse::ServiceUnavailable().body("the database does not answer")
        }
        Err(_) => {
            tracing::warn!("health check: the database did not answer in time");
            HttpResponse::ServiceUnavailable().body("the database does not answer")
        }
    }
}

/// A route for GET that answers HEAD the same way (the server sends no body for HEAD).
fn get() -> actix_web::Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

/// Registers every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", get().to(pages::home))
        .route("/healthz", get().to(healthz))
        .route("/static/{file}", get().to(protect::asset))
        .route("/favicon.ico", get().to(protect::favicon))
        .service(
            web::resource("/new/{kind}")
                .route(get().to(pages::new_game))
                .route(web::post().to(pages::create_game))
                .wrap(limits::PerClient::Games),
        )
        .route("/new/{kind}/created/{id}", get().to(pages::created))
        .route("/lobby", get().to(lobby::lobby))
        .service(
            web::resource("/lobby/new/{kind}")
                .route(get().to(lobby::new_table))
                .route(web::post().to(lobby::open_table))
                .wrap(limits::PerClient::Games),
        )
        .route("/lobby/invite/{token}", get().to(lobby::invitation))
        .route("/lobby/invite/{token}", web::post().to(lobby::accept))
        .route("/lobby/{id}", get().to(lobby::table))
        .route("/lobby/{id}/join", web::post().to(lobby::join))
        .route("/lobby/{id}/leave", web::post().to(lobby::leave))
        .route("/lobby/{id}/cancel", web::post().to(lobby::cancel))
        .route(
            "/lobby/{id}/withdraw/{position}",
            web::post().to(lobby::withdraw),
        )
        .route("/clubs", get().to(clubs::list))
        .service(
            web::resource("/clubs/new")
                .route(get().to(clubs::new_club))
                .route(web::post().to(clubs::create))
                .wrap(limits::PerClient::Games),
        )
        .route("/clubs/invite/{token}", get().to(club_admin::invitation))
        .route("/clubs/invite/{token}", web::post().to(club_admin::accept))
        .route("/clubs/{club}", get().to(clubs::page))
        .route("/clubs/{club}/archive", get().to(club_archive::archive))
        .route(
            "/clubs/{club}/standings/{kind}",
            get().to(club_ratings::standings_page),
        )
        .route(
            "/clubs/{club}/ratings/{kind}/{account}",
            get().to(club_ratings::member_rating),
        )
        .route("/clubs/{club}/invite", web::post().to(club_admin::invite))
        .route(
            "/clubs/{club}/invites/{invite}/withdraw",
            web::post().to(club_admin::withdraw),
        )
        .route(
            "/clubs/{club}/members/{account}/role",
            web::post().to(club_admin::set_role),
        )
        .route(
            "/clubs/{club}/members/{account}/remove",
            web::post().to(club_admin::remove),
        )
        .route("/clubs/{club}/leave", web::post().to(club_admin::leave))
        .route(
            "/clubs/{club}/leagues/new/{kind}",
            get().to(leagues::new_league),
        )
        .route(
            "/clubs/{club}/leagues/new/{kind}",
            web::post().to(leagues::create),
        )
        .route("/clubs/{club}/leagues/{league}", get().to(leagues::page))
        .route(
            "/clubs/{club}/leagues/{league}/signup",
            web::post().to(leagues::sign_up),
        )
        .route(
            "/clubs/{club}/leagues/{league}/withdraw",
            web::post().to(leagues::withdraw),
        )
        .route(
            "/api/clubs/{club}/leagues/{league}",
            get().to(leagues::api_league),
        )
        .route(
            "/api/clubs/{club}/leagues/{league}/signup",
            web::post().to(leagues::api_sign_up),
        )
        .route(
            "/api/clubs/{club}/leagues/{league}/withdraw",
            web::post().to(leagues::api_withdraw),
        )
        .route("/clubs/{club}/close", web::post().to(club_admin::close))
        .service(
            web::resource("/clubs/{club}/new/{kind}")
                .route(get().to(club_new_game::form))
                .route(web::post().to(club_new_game::start))
                .wrap(limits::PerClient::Games),
        )
        .route("/clubs/{club}/games/{game}/desk", get().to(club_desk::page))
        .service(
            web::resource("/clubs/{club}/games/{game}/desk/relink/{seat}")
                .route(web::post().to(club_desk::relink))
                .wrap(limits::PerClient::Relinks),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/release/{seat}",
            web::post().to(club_desk::release),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/invite/{seat}",
            web::post().to(club_desk::invite),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/address/{seat}",
            web::post().to(club_desk::address),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/cancel",
            web::post().to(club_desk::cancel),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/clock",
            web::post().to(club_desk::clock),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/messages/{message}/hide",
            web::post().to(club_desk::hide_message),
        )
        .route("/rules/{kind}", get().to(rules::rules))
        .route("/manage/{token}", get().to(desk::manage))
        .service(
            web::resource("/manage/{token}/relink/{seat}")
                .route(web::post().to(desk::relink))
                .wrap(limits::PerClient::Relinks),
        )
        .route(
            "/manage/{token}/invite/{seat}",
            web::post().to(desk::invite),
        )
        .route(
            "/manage/{token}/address/{seat}",
            web::post().to(desk::address),
        )
        .route("/manage/{token}/cancel", web::post().to(desk::cancel))
        .route("/mail/unsubscribe/{token}", get().to(mail::preferences))
        .route(
            "/mail/unsubscribe/{token}",
            web::post().to(mail::set_preference),
        )
        .route("/dev/mailbox", get().to(mail::list))
        .route("/dev/mailbox/{key}", get().to(mail::show))
        .route("/dev/mailbox/{key}/raw", get().to(mail::raw))
        .route("/play/{token}", get().to(pages::play))
        .route("/play/{token}", web::post().to(pages::play_move))
        .route("/play/{token}/vacation", web::post().to(pages::vacation))
        .route("/play/{token}/orders", web::post().to(orders::set_order))
        .route("/play/{token}/claim", web::post().to(me::claim))
        .route("/signin", get().to(signin::form))
        .route("/signin", web::post().to(signin::ask))
        .route("/signin/{token}", get().to(signin::confirm))
        .route("/signin/{token}", web::post().to(signin::sign_in))
        .route("/signout", web::post().to(signin::sign_out))
        .route(
            "/signout/everywhere",
            web::post().to(signin::sign_out_everywhere),
        )
        .route("/me", get().to(me::page))
        .route("/me/games/{id}/{seat}", web::post().to(me::open))
        .route("/me/settings", get().to(account::settings))
        .route("/me/settings", web::post().to(account::save_settings))
        .route("/me/tokens", get().to(account::tokens))
        .route("/me/tokens", web::post().to(account::make_token))
        .route("/me/webhooks", get().to(webhooks::page))
        .route("/me/webhooks", web::post().to(webhooks::add))
        .route("/me/webhooks/{id}/remove", web::post().to(webhooks::remove))
        .route(
            "/me/tokens/{id}/revoke",
            web::post().to(account::revoke_token),
        )
        .route("/api/me/games", get().to(me::api))
        .route(
            "/play/{token}/messages",
            web::post().to(messages::post_as_seat),
        )
        .route(
            "/play/{token}/messages/{message}/hide",
            web::post().to(messages::hide_own),
        )
        .route(
            "/games/{id}/messages",
            web::post().to(messages::post_signed_in),
        )
        .route("/api/play/{token}/messages", get().to(messages::api_list))
        .route(
            "/api/play/{token}/messages",
            web::post().to(messages::api_post),
        )
        .route(
            "/manage/{token}/messages/{message}/hide",
            web::post().to(desk::hide_message),
        )
        .route("/manage/{token}/clock", web::post().to(desk::clock_control))
        .route("/games/{id}", get().to(pages::spectate))
        .route("/seat-change/{token}", get().to(seat_changes::show))
        .route(
            "/seat-change/{token}/reclaim",
            web::post().to(seat_changes::reclaim),
        )
        .route(
            "/seat-change/{token}/message",
            web::post().to(seat_changes::message),
        )
        .route("/take/{token}", get().to(handover::offer))
        .route("/take/{token}", web::post().to(handover::take))
        .route("/games/{id}/lost-link", web::post().to(handover::lost_link))
        .route(
            "/manage/{token}/release/{seat}",
            web::post().to(desk::release),
        )
        .route("/games/{id}/log", get().to(history::public_log))
        .route("/games/{id}/replay", get().to(history::replay))
        .route("/games/{id}/events", get().to(events::events))
        .route("/api/games/{id}/view", get().to(api::view_by_id))
        .route("/api/games/{id}/choices", get().to(api::choices_by_id))
        .route(
            "/api/games/{id}/commands",
            web::post().to(api::submit_by_id),
        )
        .route("/api/games/{id}/export", get().to(api::export))
        .route("/watch/{watch}", get().to(pages::spectate))
        .route("/watch/{watch}/log", get().to(history::public_log))
        .route("/watch/{watch}/replay", get().to(history::replay))
        .route("/watch/{watch}/events", get().to(events::events))
        .route(
            "/watch/{watch}/lost-link",
            web::post().to(handover::lost_link),
        )
        .route(
            "/watch/{watch}/messages",
            web::post().to(messages::post_signed_in),
        )
        .route("/api/watch/{watch}/view", get().to(api::view_by_id))
        .route("/api/watch/{watch}/export", get().to(api::export))
        .route("/api/play/{token}/view", get().to(api::view_by_token))
        .route("/api/play/{token}/choices", get().to(api::choices_by_token))
        .route(
            "/api/play/{token}/commands",
            web::post().to(api::submit_by_token),
        );
}

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
            .wrap(from_fn(protect::protect))
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
/// postmaster dies, migrations, the web app; stops the private cluster on shutdown.
pub async fn serve(config: Config) -> Result<(), String> {
    let open_files = crate::fds::raise_open_files();
    let (store, cluster) = crate::startup::connect(&config).await?;
    store
        .migrate()
        .await
        .map_err(|e| format!("migrations: {e}"))?;
    let listener = std::net::TcpListener::bind(&config.bind)
        .map_err(|e| format!("bind {}: {e}", config.bind))?;
    tracing::info!(bind = %config.bind, base_url = %config.base_url, "postplay is listening");
    let (stop_worker, stopped) = tokio::sync::watch::channel(false);
    let store = Arc::new(store);
    let scheduler = {
        let scheduler = crate::clock::Scheduler::new(store.clone());
        let stopped = stopped.clone();
        let every = config.clock_tick;
        actix_web::rt::spawn(async move { scheduler.run(every, stopped).await })
    };
    let bots = (config.bot_searches > 0).then(|| {
        let bots = crate::bots::BotWorker::new(store.clone(), config.bot_searches);
        let stopped = stopped.clone();
        actix_web::rt::spawn(async move { bots.run(crate::bots::TICK, stopped).await })
    });
    let watcher = cluster.clone().map(|cluster| {
        let stopped = stopped.clone();
        actix_web::rt::spawn(crate::pg::watch::watch(cluster, stopped))
    });
    let worker = crate::config::mail::worker(&config.mail, store.pool().clone(), &config.base_url)?;
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
