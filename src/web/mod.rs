//! The web app (actix-web + askama): server-rendered pages that work without JavaScript and on
//! a phone, a JSON API, live refresh, and `serve` itself.

mod api;
mod boards;
mod csrf;
mod events;
mod mail;
mod pages;
pub mod render;

use crate::config::Config;
use crate::pg::PrivateCluster;
use crate::store::{Store, StoreError, SubmitError};
use actix_web::http::StatusCode;
use actix_web::middleware::Logger;
use actix_web::{App, HttpResponse, HttpServer, ResponseError, web};
use serde_json::json;
use std::sync::Arc;
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
    pub mailbox: Option<crate::mail::DevMailbox>,
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
    /// 500.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<sqlx::Error> for WebError {
    fn from(e: sqlx::Error) -> WebError {
        WebError::Internal(e.to_string())
    }
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> WebError {
        match e {
            StoreError::NotFound => WebError::NotFound,
            StoreError::Invalid(m) => WebError::BadRequest(m),
            other => WebError::Internal(other.to_string()),
        }
    }
}

impl From<SubmitError> for WebError {
    fn from(e: SubmitError) -> WebError {
        match e {
            SubmitError::NotFound => WebError::NotFound,
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
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let WebError::Internal(detail) = self {
            tracing::error!(%detail, "request failed");
        }
        let message = match self {
            WebError::Internal(_) => "something went wrong on the server".to_string(),
            other => other.to_string(),
        };
        HttpResponse::build(self.status_code()).json(json!({"error": message}))
    }
}

async fn healthz(state: web::Data<AppState>) -> HttpResponse {
    match sqlx::query("SELECT 1").execute(state.store.pool()).await {
        Ok(_) => HttpResponse::Ok().body("ok"),
        Err(e) => HttpResponse::ServiceUnavailable().body(format!("database: {e}")),
    }
}

/// Registers every route.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(pages::home))
        .route("/healthz", web::get().to(healthz))
        .route("/new/{kind}", web::get().to(pages::new_game))
        .route("/new/{kind}", web::post().to(pages::create_game))
        .route("/manage/{token}", web::get().to(pages::manage))
        .route(
            "/manage/{token}/relink/{seat}",
            web::post().to(pages::relink),
        )
        .route(
            "/mail/unsubscribe/{token}",
            web::get().to(mail::preferences),
        )
        .route(
            "/mail/unsubscribe/{token}",
            web::post().to(mail::set_preference),
        )
        .route("/dev/mailbox", web::get().to(mail::list))
        .route("/dev/mailbox/{key}", web::get().to(mail::show))
        .route("/dev/mailbox/{key}/raw", web::get().to(mail::raw))
        .route("/play/{token}", web::get().to(pages::play))
        .route("/play/{token}", web::post().to(pages::play_move))
        .route("/games/{id}", web::get().to(pages::spectate))
        .route("/games/{id}/log", web::get().to(pages::public_log))
        .route("/games/{id}/replay", web::get().to(pages::replay))
        .route("/games/{id}/events", web::get().to(events::events))
        .route("/api/games/{id}/view", web::get().to(api::view_by_id))
        .route("/api/games/{id}/choices", web::get().to(api::choices_by_id))
        .route(
            "/api/games/{id}/commands",
            web::post().to(api::submit_by_id),
        )
        .route("/api/games/{id}/export", web::get().to(api::export))
        .route("/api/play/{token}/view", web::get().to(api::view_by_token))
        .route(
            "/api/play/{token}/choices",
            web::get().to(api::choices_by_token),
        )
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
    start_with_mailbox(store, base_url, listener, None)
}

/// [`start`], with the dev mailbox's pages when mail goes to that folder.
pub fn start_with_mailbox(
    store: Arc<Store>,
    base_url: String,
    listener: std::net::TcpListener,
    mailbox: Option<crate::mail::DevMailbox>,
) -> std::io::Result<actix_web::dev::Server> {
    let (moves, _) = broadcast::channel(1024);
    events::spawn_listener(store.pool().clone(), moves.clone());
    let state = web::Data::new(AppState {
        store,
        base_url,
        moves,
        mailbox,
    });
    let server = HttpServer::new(move || {
        App::new()
            .wrap(Logger::new("%r %s %Dms"))
            .app_data(state.clone())
            .app_data(web::PayloadConfig::new(64 * 1024))
            .configure(routes)
    })
    // Open live-refresh streams never finish by themselves: give requests in flight five
    // seconds on shutdown, then stop (and with that, the private PostgreSQL).
    .shutdown_timeout(5)
    .listen(listener)?
    .run();
    Ok(server)
}

/// `postplay serve`: the private PostgreSQL (unless DATABASE_URL), migrations, the web app;
/// stops the private cluster on shutdown.
pub async fn serve(config: Config) -> Result<(), String> {
    let (store, cluster) = connect(&config).await?;
    store
        .migrate()
        .await
        .map_err(|e| format!("migrations: {e}"))?;
    let listener = std::net::TcpListener::bind(&config.bind)
        .map_err(|e| format!("bind {}: {e}", config.bind))?;
    tracing::info!(bind = %config.bind, base_url = %config.base_url, "postplay is listening");
    let (stop_worker, stopped) = tokio::sync::watch::channel(false);
    let worker =
        crate::mail::settings::worker(&config.mail, store.pool().clone(), &config.base_url)?;
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
    }
    let server = start_with_mailbox(Arc::new(store), config.base_url.clone(), listener, mailbox)
        .map_err(|e| e.to_string())?;
    let result = server.await.map_err(|e| e.to_string());
    let _ = stop_worker.send(true);
    if let Some(worker) = worker {
        let _ = worker.await;
    }
    if let Some(cluster) = cluster.filter(|c| c.started_here) {
        cluster.stop().map_err(|e| e.to_string())?;
    }
    result
}

/// The store of the configured database: DATABASE_URL, or the private cluster (started here
/// if it is not running).
pub async fn connect(config: &Config) -> Result<(Store, Option<PrivateCluster>), String> {
    match &config.database_url {
        Some(url) => {
            let options: sqlx::postgres::PgConnectOptions =
                url.parse().map_err(|e| format!("DATABASE_URL: {e}"))?;
            Ok((
                Store::connect(options)
                    .await
                    .map_err(|e| format!("database: {e}"))?,
                None,
            ))
        }
        None => {
            let cluster = PrivateCluster::ensure(&config.data_dir).map_err(|e| e.to_string())?;
            let admin = Store::connect(cluster.connect_options("postgres"))
                .await
                .map_err(|e| format!("private PostgreSQL: {e}"))?;
            let exists: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'postplay')",
            )
            .fetch_one(admin.pool())
            .await
            .map_err(|e| e.to_string())?;
            if !exists {
                sqlx::query("CREATE DATABASE postplay")
                    .execute(admin.pool())
                    .await
                    .map_err(|e| e.to_string())?;
            }
            admin.pool().close().await;
            let store = Store::connect(cluster.connect_options("postplay"))
                .await
                .map_err(|e| format!("private PostgreSQL: {e}"))?;
            Ok((store, Some(cluster)))
        }
    }
}
