//! The organiser's side of a game: creating it from its form, and the desk its private link
//! opens (invitations, addresses, links, the clock, cancelling), also reached by a signed-in
//! creator from their own page.

pub(in crate::web) mod create;
pub(in crate::web) mod manage;
pub(in crate::web) mod mine;

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
    )
    .route("/me/organised/{game}", get().to(mine::page))
    .service(
        web::resource("/me/organised/{game}/relink/{seat}")
            .route(web::post().to(mine::relink))
            .wrap(crate::web::http::limits::PerClient::Relinks),
    )
    .route(
        "/me/organised/{game}/release/{seat}",
        web::post().to(mine::release),
    )
    .route(
        "/me/organised/{game}/invite/{seat}",
        web::post().to(mine::invite),
    )
    .route(
        "/me/organised/{game}/address/{seat}",
        web::post().to(mine::address),
    )
    .route("/me/organised/{game}/cancel", web::post().to(mine::cancel))
    .route("/me/organised/{game}/clock", web::post().to(mine::clock))
    .route(
        "/me/organised/{game}/messages/{message}/hide",
        web::post().to(mine::hide_message),
    );
}
