//! The lobby: open tables anyone may see, opened and joined by signed-in players; a table's
//! page with its places and what the reader may do there; invitations by address.

pub(in crate::web) mod tables;

use crate::web::http::get;
use actix_web::web;

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/lobby", get().to(tables::lobby))
        .service(
            web::resource("/lobby/new/{kind}")
                .route(get().to(tables::new_table))
                .route(web::post().to(tables::open_table))
                .wrap(crate::web::http::limits::PerClient::Games),
        )
        .route("/lobby/invite/{token}", get().to(tables::invitation))
        .route("/lobby/invite/{token}", web::post().to(tables::accept))
        .route("/lobby/{id}", get().to(tables::table))
        .route("/lobby/{id}/join", web::post().to(tables::join))
        .route("/lobby/{id}/leave", web::post().to(tables::leave))
        .route("/lobby/{id}/cancel", web::post().to(tables::cancel))
        .route(
            "/lobby/{id}/withdraw/{position}",
            web::post().to(tables::withdraw),
        );
}
