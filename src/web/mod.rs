//! The web app (actix-web + askama): server-rendered pages that work without JavaScript and on
//! a phone, a JSON API, live refresh, and `serve` itself. One folder a capability, each
//! registering its own routes; this module only assembles them.

pub mod accounts;
pub mod api;
pub mod clubs;
pub mod desk;
pub mod http;
pub mod lobby;
pub mod public;
pub mod seat;
mod server;

pub use http::error::WebError;
pub use seat::page::seat_page_html;
pub use server::{serve, start, start_with, start_with_mailbox};

use crate::config::WebSettings;
use crate::store::Store;
use actix_web::web;
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
    pub mailbox: Option<crate::notices::DevMailbox>,
    /// Limits, proxies, timeouts.
    pub settings: WebSettings,
    /// Rate limits.
    pub limits: http::limits::Limits,
    /// The places of requests answered at once (overload).
    pub admission: http::admission::Admission,
    /// Open live-refresh streams.
    pub streams: Arc<seat::events::StreamSlots>,
    /// Cookies carry `Secure` (the base URL is https).
    pub secure_cookies: bool,
}

/// Registers every route: each capability's own.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.configure(http::routes)
        .configure(public::routes)
        .configure(desk::routes)
        .configure(lobby::routes)
        .configure(clubs::routes)
        .configure(accounts::routes)
        .configure(seat::routes)
        .configure(api::routes);
}
