//! What a handler answers with when it cannot answer the page: its status, and a JSON body a
//! program reads (the protection layer turns it into a page for people).

use crate::store::{StoreError, SubmitError};
use crate::web::http::limits;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde_json::json;
use std::time::Duration;

/// Errors a handler answers with.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// 404.
    #[error("not found")]
    NotFound,
    /// 401.
    #[error("a valid token is needed")]
    Unauthorized,
    /// 403.
    #[error("{0}")]
    Forbidden(String),
    /// 400.
    #[error("{0}")]
    BadRequest(String),
    /// 429: a rate limit.
    #[error("you {} too often: try again in {}", .0.what, wait_words(&.0.retry_after))]
    TooMany(limits::Limited),
    /// 503: a bound of the server is reached for now.
    #[error("{message}")]
    Busy {
        /// What is full, in words.
        message: String,
        /// When to try again.
        retry_after: Duration,
    },
    /// 503: more requests than this process answers at once, or no database connection free
    /// in time ([`crate::web::http::admission`]); nothing was done.
    #[error("the server is busy just now: nothing was changed; try again in {}", wait_words(.0))]
    Overloaded(Duration),
    /// 503: no database connection came in time. Whether the database is down or every
    /// connection is busy, the admission layer tells apart by the pool's state.
    #[error("the database is not reachable, try again shortly")]
    NoConnection,
    /// 410: shown once and gone.
    #[error("{0}")]
    Gone(String),
    /// 409: not possible in the game's present state.
    #[error("{0}")]
    Conflict(String),
    /// 413.
    #[error("{0}")]
    TooLarge(String),
    /// 503: the database cannot be reached (it is down or every connection is busy).
    #[error("the database is not reachable, try again shortly")]
    DatabaseDown(String),
    /// 500.
    #[error("internal error: {0}")]
    Internal(String),
}

/// When a client told the database is down should try again.
const DATABASE_RETRY: Duration = Duration::from_secs(5);

impl From<sqlx::Error> for WebError {
    fn from(e: sqlx::Error) -> WebError {
        if matches!(e, sqlx::Error::PoolTimedOut) {
            return WebError::NoConnection;
        }
        let unreachable = matches!(
            e,
            sqlx::Error::PoolClosed
                | sqlx::Error::Io(_)
                | sqlx::Error::Tls(_)
                | sqlx::Error::WorkerCrashed
        ) || matches!(&e, sqlx::Error::Database(d)
            // admin_shutdown, crash_shutdown, cannot_connect_now: the server is going away.
            if matches!(d.code().as_deref(), Some("57P01" | "57P02" | "57P03")));
        if unreachable {
            WebError::DatabaseDown(e.to_string())
        } else {
            WebError::Internal(e.to_string())
        }
    }
}

impl From<StoreError> for WebError {
    fn from(e: StoreError) -> WebError {
        match e {
            StoreError::NotFound => WebError::NotFound,
            StoreError::Invalid(m) => WebError::BadRequest(m),
            StoreError::Db(e) => e.into(),
            other => WebError::Internal(other.to_string()),
        }
    }
}

impl From<SubmitError> for WebError {
    fn from(e: SubmitError) -> WebError {
        match e {
            SubmitError::NotFound => WebError::NotFound,
            SubmitError::NotHolder => WebError::Unauthorized,
            SubmitError::Db(e) => e.into(),
            other => WebError::Internal(other.to_string()),
        }
    }
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Unauthorized => StatusCode::UNAUTHORIZED,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::Conflict(_) => StatusCode::CONFLICT,
            WebError::Gone(_) => StatusCode::GONE,
            WebError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            WebError::Busy { .. }
            | WebError::DatabaseDown(_)
            | WebError::Overloaded(_)
            | WebError::NoConnection => StatusCode::SERVICE_UNAVAILABLE,
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            WebError::Internal(detail) => tracing::error!(%detail, "request failed"),
            WebError::DatabaseDown(detail) => {
                tracing::warn!(%detail, "request failed: the database is not reachable");
            }
            // Logged by the admission layer, only when the database is down: under overload
            // it is counted instead (`postplay_requests_shed_total`).
            _ => {}
        }
        let message = match self {
            WebError::Internal(_) => "something went wrong on the server".to_string(),
            other => other.to_string(),
        };
        let mut response = HttpResponse::build(self.status_code());
        let retry_after = match self {
            WebError::TooMany(limited) => Some(limited.retry_after),
            WebError::Busy { retry_after, .. } => Some(*retry_after),
            WebError::DatabaseDown(_) | WebError::NoConnection => Some(DATABASE_RETRY),
            WebError::Overloaded(wait) => Some(*wait),
            _ => None,
        };
        if let Some(wait) = retry_after {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            response.insert_header(("Retry-After", seconds.max(1).to_string()));
        }
        response.json(json!({"error": message}))
    }
}

/// "3 minutes", "1 hour": a wait for a person.
fn wait_words(wait: &Duration) -> String {
    let seconds = wait.as_secs().max(1);
    let (n, unit) = match seconds {
        s if s < 120 => (s, "second"),
        s if s < 7200 => (s.div_ceil(60), "minute"),
        s => (s.div_ceil(3600), "hour"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}
