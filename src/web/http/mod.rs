//! The plumbing every capability shares: who the client is, the CSRF check, rate limits,
//! admission under overload, security headers and static files, errors, and answering with a page.

pub mod admission;
pub mod client;
pub(in crate::web) mod csrf;
pub mod error;
pub mod limits;
pub(in crate::web) mod page;
pub(in crate::web) mod protect;

use crate::web::AppState;
use actix_web::{HttpResponse, guard, web};
use std::time::Duration;

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
pub(in crate::web) fn get() -> actix_web::Route {
    web::route().guard(guard::Any(guard::Get()).or(guard::Head()))
}

/// Registers the health check and the static files.
pub(in crate::web) fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/healthz", get().to(healthz))
        .route("/static/{file}", get().to(protect::asset))
        .route("/favicon.ico", get().to(protect::favicon));
}
