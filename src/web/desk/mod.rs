//! The organiser's side of a game: creating it from its form, and the desk its private link
//! opens (invitations, addresses, links, the clock, cancelling).

pub(in crate::web) mod create;
pub(in crate::web) mod manage;

use crate::web::http::get;
use actix_web::web;

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/new/{kind}")
            .route(get().to(create::new_game))
            .route(web::post().to(create::create_game))
            .wrap(crate::web::http::limits::PerClient::Games),
    )
    .route("/new/{kind}/created/{id}", get().to(create::created))
    .route("/manage/{token}", get().to(manage::manage))
    .service(
        web::resource("/manage/{token}/relink/{seat}")
            .route(web::post().to(manage::relink))
            .wrap(crate::web::http::limits::PerClient::Relinks),
    )
    .route(
        "/manage/{token}/invite/{seat}",
        web::post().to(manage::invite),
    )
    .route(
        "/manage/{token}/address/{seat}",
        web::post().to(manage::address),
    )
    .route("/manage/{token}/cancel", web::post().to(manage::cancel))
    .route(
        "/manage/{token}/messages/{message}/hide",
        web::post().to(manage::hide_message),
    )
    .route(
        "/manage/{token}/clock",
        web::post().to(manage::clock_control),
    )
    .route(
        "/manage/{token}/release/{seat}",
        web::post().to(manage::release),
    );
}
