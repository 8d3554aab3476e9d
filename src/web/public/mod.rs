//! What anyone may read: the front page, the rules of each game, the fairness commitments, and a public game's whole log
//! and replay.

pub(in crate::web) mod fairness;
pub(in crate::web) mod game;
pub(in crate::web) mod history;
pub(in crate::web) mod home;
pub(in crate::web) mod review;
pub(in crate::web) mod rules;

use crate::web::http::get;
use actix_web::web;

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", get().to(home::home))
        .route("/fairness", get().to(fairness::page))
        .route("/fairness.json", get().to(fairness::json))
        .route("/rules/{kind}", get().to(rules::rules))
        .route("/games/{id}/log", get().to(history::public_log))
        .route("/games/{id}/replay", get().to(history::replay))
        .route("/watch/{watch}/log", get().to(history::public_log))
        .route("/watch/{watch}/replay", get().to(history::replay))
        .route("/api/games/{id}/review", get().to(review::api))
        .route("/api/watch/{watch}/review", get().to(review::api));
}
