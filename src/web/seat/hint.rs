//! "What would the bot do?" on a seat's page and in the API ([`crate::hints`]): the medium
//! bot's move from the seat's own view, in practice games only, a bounded number a seat an
//! hour.

use crate::hints::{HintError, ask};
use crate::web::http::csrf;
use crate::web::http::page::{field, parse_form};
use crate::web::seat::page::{HintLine, page_with_hint, seat_of};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

/// The status a refusal answers with, and its words; `None` for a failure of the server.
fn refused(error: &HintError) -> Option<(StatusCode, String)> {
    let status = match error {
        HintError::NotHere(_) => StatusCode::FORBIDDEN,
        HintError::NoMove(_) => StatusCode::CONFLICT,
        HintError::Later { .. } => StatusCode::TOO_MANY_REQUESTS,
        HintError::Busy => StatusCode::SERVICE_UNAVAILABLE,
        HintError::Search(_) | HintError::Db(_) | HintError::Load(_) => return None,
    };
    Some((status, error.to_string()))
}

/// The seconds a refusal asks the client to wait, for `Retry-After`.
fn retry_after(error: &HintError) -> Option<i64> {
    match error {
        HintError::Later { wait, .. } => Some(wait.num_seconds().max(1)),
        HintError::Busy => Some(5),
        _ => None,
    }
}

/// A failure of the server as the web answers it.
fn failure(error: HintError) -> WebError {
    match error {
        HintError::Db(e) => e.into(),
        HintError::Load(e) => e.into(),
        other => WebError::Internal(other.to_string()),
    }
}

/// `GET /api/play/{token}/hint`: the hint as JSON ([`crate::hints::Hint`]); 403 in a game
/// without a bot or a club's, 409 when the seat has no move, 429 over the bound (with
/// `next_hint_at` and `Retry-After`), 503 when every turn to search stayed taken.
pub async fn api(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = state
        .store
        .seat_by_token(&token)
        .await?
        .ok_or(WebError::Unauthorized)?;
    let error = match ask(&state.store, id, seat, state.settings.hints_per_hour).await {
        Ok(hint) => return Ok(HttpResponse::Ok().json(hint)),
        Err(error) => error,
    };
    let Some((status, words)) = refused(&error) else {
        return Err(failure(error));
    };
    let mut response = HttpResponse::build(status);
    if let Some(seconds) = retry_after(&error) {
        response.insert_header(("Retry-After", seconds.to_string()));
    }
    Ok(match &error {
        HintError::Later { at, .. } => {
            response.json(json!({"error": words, "next_hint_at": at.to_rfc3339()}))
        }
        _ => response.json(json!({"error": words})),
    })
}

/// `POST /play/{token}/hint`: the seat's page again with the hint (or why none was given) in
/// its hint panel.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = seat_of(&state, &token).await?;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let asked = ask(&state.store, id, seat, state.settings.hints_per_hour).await;
    let wait = asked.as_ref().err().and_then(retry_after);
    let (line, status) = match asked {
        Ok(hint) => {
            let left = match hint.hints_left {
                Some(0) => " That was your last hint this hour.".to_string(),
                Some(1) => " You may ask one more hint this hour.".to_string(),
                Some(n) => format!(" You may ask {n} more hints this hour."),
                None => String::new(),
            };
            (
                HintLine {
                    text: format!("{}{left}", hint.words),
                    refused: false,
                },
                StatusCode::OK,
            )
        }
        Err(error) => match refused(&error) {
            Some((status, words)) => (
                HintLine {
                    text: format!("No hint: {words}."),
                    refused: true,
                },
                status,
            ),
            None => return Err(failure(error)),
        },
    };
    let mut response = page_with_hint(&req, &state, (&token, id, seat), line, status).await?;
    if let Some(seconds) = wait {
        response.headers_mut().insert(
            actix_web::http::header::RETRY_AFTER,
            actix_web::http::header::HeaderValue::from(seconds),
        );
    }
    Ok(response)
}
