//! `/fairness`: the published commitments to future deals (docs/FAIRNESS.md), as a page and
//! as JSON anyone can archive.

use crate::engine::deal::{Archive, MIX_VERSION, PublishedBatch};
use crate::web::http::page::html;
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;

#[derive(Template)]
#[template(path = "public/fairness.html")]
struct Fairness {
    batches: Vec<PublishedBatch>,
}

/// `GET /fairness`: every batch's root, size and publication time, the places games took and
/// any gap.
pub async fn page(state: web::Data<AppState>) -> Result<HttpResponse, WebError> {
    let batches = state.store.published_batches().await?;
    html(StatusCode::OK, Fairness { batches })
}

/// `GET /fairness.json`: the same, for archiving.
pub async fn json(state: web::Data<AppState>) -> Result<HttpResponse, WebError> {
    let batches = state.store.published_batches().await?;
    Ok(HttpResponse::Ok().json(Archive {
        mix: MIX_VERSION,
        batches,
    }))
}
