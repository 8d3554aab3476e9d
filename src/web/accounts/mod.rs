//! Accounts: signing in by mail, the session, the account's games and settings, its API
//! tokens and chat webhooks, and a seat's mail preferences (with the dev mailbox's pages).

pub(in crate::web) mod data;
pub(in crate::web) mod mail;
pub(in crate::web) mod me;
pub mod session;
pub(in crate::web) mod settings;
pub(in crate::web) mod signin;
pub(in crate::web) mod webhooks;

use crate::web::http::get;
use actix_web::web;

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/mail/unsubscribe/{token}", get().to(mail::preferences))
        .route(
            "/mail/unsubscribe/{token}",
            web::post().to(mail::set_preference),
        )
        .route("/dev/mailbox", get().to(mail::list))
        .route("/dev/mailbox/{key}", get().to(mail::show))
        .route("/dev/mailbox/{key}/raw", get().to(mail::raw))
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
        .route("/me/export", get().to(data::export))
        .route("/me/close", get().to(data::close_form))
        .route("/me/close", web::post().to(data::close))
        .route("/me/settings", get().to(settings::settings))
        .route("/me/settings", web::post().to(settings::save_settings))
        .route("/me/tokens", get().to(settings::tokens))
        .route("/me/tokens", web::post().to(settings::make_token))
        .route("/me/webhooks", get().to(webhooks::page))
        .route("/me/webhooks", web::post().to(webhooks::add))
        .route("/me/webhooks/{id}/remove", web::post().to(webhooks::remove))
        .route(
            "/me/tokens/{id}/revoke",
            web::post().to(settings::revoke_token),
        )
        .route("/api/me/games", get().to(me::api));
}
