//! The seat and its table: a player's page (the position, the hand, the move form), its moves
//! and standing orders, hints in practice games, the game's messages, live refresh, handing a seat over, and the news of
//! a seat that changed hands. A spectator sees the same table without a hand.

pub(in crate::web) mod boards;
pub(in crate::web) mod changes;
pub mod events;
pub(in crate::web) mod hand;
pub(in crate::web) mod handover;
pub(in crate::web) mod hint;
pub(in crate::web) mod messages;
pub(in crate::web) mod orders;
pub mod page;
pub mod render;

use crate::web::http::get;
use actix_web::web;

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/play/{token}", get().to(page::play))
        .route("/play/{token}", web::post().to(page::play_move))
        .route("/play/{token}/vacation", web::post().to(page::vacation))
        .route("/play/{token}/orders", web::post().to(orders::set_order))
        .route("/play/{token}/hint", web::post().to(hint::page))
        .route("/api/play/{token}/hint", get().to(hint::api))
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
        .route("/games/{id}", get().to(page::spectate))
        .route("/seat-change/{token}", get().to(changes::show))
        .route(
            "/seat-change/{token}/reclaim",
            web::post().to(changes::reclaim),
        )
        .route(
            "/seat-change/{token}/message",
            web::post().to(changes::message),
        )
        .route("/take/{token}", get().to(handover::offer))
        .route("/take/{token}", web::post().to(handover::take))
        .route("/games/{id}/lost-link", web::post().to(handover::lost_link))
        .route("/games/{id}/events", get().to(events::events))
        .route("/watch/{watch}", get().to(page::spectate))
        .route("/watch/{watch}/events", get().to(events::events))
        .route(
            "/watch/{watch}/lost-link",
            web::post().to(handover::lost_link),
        )
        .route(
            "/watch/{watch}/messages",
            web::post().to(messages::post_signed_in),
        );
}
