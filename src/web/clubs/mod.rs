//! Clubs: their pages, members and invitations, the admins' desk and new games, the archive,
//! leagues, and ratings with their charts.

pub(in crate::web) mod admin;
pub(in crate::web) mod archive;
pub(in crate::web) mod club;
pub(in crate::web) mod desk;
pub(in crate::web) mod leagues;
pub(in crate::web) mod new_game;
pub mod rating_chart;
pub mod ratings;

use crate::web::http::get;
use actix_web::web;

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/clubs", get().to(club::list))
        .service(
            web::resource("/clubs/new")
                .route(get().to(club::new_club))
                .route(web::post().to(club::create))
                .wrap(crate::web::http::limits::PerClient::Games),
        )
        .route("/clubs/invite/{token}", get().to(admin::invitation))
        .route("/clubs/invite/{token}", web::post().to(admin::accept))
        .route("/clubs/{club}", get().to(club::page))
        .route("/clubs/{club}/archive", get().to(archive::archive))
        .route(
            "/clubs/{club}/standings/{kind}",
            get().to(ratings::standings_page),
        )
        .route(
            "/clubs/{club}/ratings/{kind}/{account}",
            get().to(ratings::member_rating),
        )
        .route("/clubs/{club}/invite", web::post().to(admin::invite))
        .route(
            "/clubs/{club}/invites/{invite}/withdraw",
            web::post().to(admin::withdraw),
        )
        .route(
            "/clubs/{club}/members/{account}/role",
            web::post().to(admin::set_role),
        )
        .route(
            "/clubs/{club}/members/{account}/remove",
            web::post().to(admin::remove),
        )
        .route("/clubs/{club}/leave", web::post().to(admin::leave))
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
        .route("/clubs/{club}/close", web::post().to(admin::close))
        .service(
            web::resource("/clubs/{club}/new/{kind}")
                .route(get().to(new_game::form))
                .route(web::post().to(new_game::start))
                .wrap(crate::web::http::limits::PerClient::Games),
        )
        .route("/clubs/{club}/games/{game}/desk", get().to(desk::page))
        .service(
            web::resource("/clubs/{club}/games/{game}/desk/relink/{seat}")
                .route(web::post().to(desk::relink))
                .wrap(crate::web::http::limits::PerClient::Relinks),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/release/{seat}",
            web::post().to(desk::release),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/invite/{seat}",
            web::post().to(desk::invite),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/address/{seat}",
            web::post().to(desk::address),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/cancel",
            web::post().to(desk::cancel),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/clock",
            web::post().to(desk::clock),
        )
        .route(
            "/clubs/{club}/games/{game}/desk/messages/{message}/hide",
            web::post().to(desk::hide_message),
        );
}
