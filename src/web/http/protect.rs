//! What every response gets and every request is held to: security headers, `no-store` and
//! `no-referrer` where a URL carries a secret, a deadline for the request body, HTML error
//! pages for people and JSON ones for programs, and the small static files the pages use.

use crate::web::WebError;
use actix_web::HttpMessage;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::{ConnectionType, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use futures_util::StreamExt;
use std::time::Duration;

/// Only our own scripts and styles, no framing, no plugins, forms only to us.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; \
     base-uri 'none'";

/// Paths whose URL holds a secret token (or pages showing such links).
fn holds_secret(path: &str) -> bool {
    [
        "/play/",
        "/manage/",
        "/mail/unsubscribe/",
        "/api/play/",
        "/dev/mailbox",
        "/signin/",
        "/me",
        "/lobby/invite/",
        "/take/",
        "/watch/",
        "/api/watch/",
    ]
    .iter()
    .any(|prefix| path.starts_with(prefix))
        || (path.starts_with("/new/") && path.contains("/created/"))
}

/// True for the JSON API's paths, whose errors stay JSON.
pub(in crate::web) fn is_api(path: &str) -> bool {
    path.starts_with("/api/")
}

/// The request body as a stream that fails once `deadline` has passed: a client that stalls
/// its body cannot hold a connection.
fn with_deadline(payload: Payload, deadline: tokio::time::Instant) -> Payload {
    let stream = futures_util::stream::unfold(Some(payload), move |state| async move {
        let mut payload = state?;
        match tokio::time::timeout_at(deadline, payload.next()).await {
            Ok(Some(item)) => Some((item, Some(payload))),
            Ok(None) => None,
            Err(_) => Some((
                Err(PayloadError::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the request body took too long",
                ))),
                None,
            )),
        }
    });
    let boxed: std::pin::Pin<
        Box<dyn futures_util::Stream<Item = Result<web::Bytes, PayloadError>>>,
    > = Box::pin(stream);
    Payload::from(boxed)
}

/// The middleware: body deadline on the way in; headers and HTML errors on the way out.
pub async fn protect(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let timeout = req
        .app_data::<web::Data<crate::web::AppState>>()
        .map_or(Duration::from_secs(10), |s| s.settings.request_timeout);
    let payload = req.take_payload();
    req.set_payload(with_deadline(
        payload,
        tokio::time::Instant::now() + timeout,
    ));
    let path = req.path().to_string();
    let signed_in = req.cookie(crate::web::accounts::session::COOKIE).is_some();
    crate::web::http::page::with_sign_in_hint(signed_in, answer(req, next, path, signed_in)).await
}

/// The request answered, with the error page, headers and caching rule on the way out.
async fn answer(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    path: String,
    signed_in: bool,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let mut res = next.call(req).await?.map_into_boxed_body();
    if !is_api(&path)
        && res.status().is_client_error() | res.status().is_server_error()
        && let Some(error) = res
            .response()
            .error()
            .and_then(|e| e.as_error::<WebError>())
    {
        let page = error_page(error);
        res = res.into_response(page);
    }
    let headers = res.headers_mut();
    let set = |headers: &mut header::HeaderMap, name, value: &'static str| {
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    };
    set(headers, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(headers, header::X_FRAME_OPTIONS, "DENY");
    set(headers, header::REFERRER_POLICY, "no-referrer");
    set(
        headers,
        header::CONTENT_SECURITY_POLICY,
        CONTENT_SECURITY_POLICY,
    );
    // A seat link, a session or a seat's view is never kept by a cache: the paths that carry
    // or show links, the whole API (a bearer sees its seat's view), anything answered to a
    // session, and any response setting a cookie.
    if holds_secret(&path) || is_api(&path) || signed_in || headers.contains_key(header::SET_COOKIE)
    {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    // "Busy, come back later" closes the connection, so that a client told to wait holds
    // nothing of the server's (a kept-alive connection's buffers) while it waits.
    if headers.contains_key(header::RETRY_AFTER) && res.status() == StatusCode::SERVICE_UNAVAILABLE
    {
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    Ok(res)
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    heading: &'a str,
    message: String,
}

/// An error as a page for a person, with the same status and Retry-After as the JSON form.
fn error_page(error: &WebError) -> HttpResponse {
    let json = actix_web::ResponseError::error_response(error);
    let status = json.status();
    let heading = match status {
        _ if matches!(error, WebError::DatabaseDown(_) | WebError::NoConnection) => {
            "Not available just now"
        }
        StatusCode::NOT_FOUND => "Not found",
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => "Not allowed",
        StatusCode::TOO_MANY_REQUESTS => "Too many requests",
        StatusCode::SERVICE_UNAVAILABLE => "Busy",
        s if s.is_server_error() => "Something went wrong",
        _ => "That did not work",
    };
    let message = match error {
        WebError::NotFound => {
            "There is nothing here. If you followed a link to a seat, it may have been replaced \
             by a newer one: ask the organiser."
                .to_string()
        }
        WebError::Internal(_) => "Something went wrong on the server; try again later.".into(),
        other => other.to_string(),
    };
    let body = ErrorPage { heading, message }
        .render()
        .unwrap_or_else(|_| heading.to_string());
    let mut page = HttpResponse::build(status);
    if let Some(retry) = json.headers().get(header::RETRY_AFTER) {
        page.insert_header((header::RETRY_AFTER, retry.clone()));
    }
    page.content_type("text/html; charset=utf-8").body(body)
}

/// Anything no route answers: 404, as a page or as JSON by the path.
pub async fn not_found(req: HttpRequest) -> HttpResponse {
    if is_api(req.path()) {
        actix_web::ResponseError::error_response(&WebError::NotFound)
    } else {
        error_page(&WebError::NotFound)
    }
}

/// The favicon's media type: it is an SVG, wherever it is asked for.
const FAVICON_TYPE: &str = "image/svg+xml";

/// `GET /favicon.ico`: the small SVG icon (browsers ask for this path unprompted; the pages
/// also link it).
pub async fn favicon() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(FAVICON_TYPE)
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .body(include_str!("../../../static/favicon.svg"))
}

/// `GET /static/{file}`: the style sheet, the icon and the small scripts, cached for a day.
pub async fn asset(file: web::Path<String>) -> Result<HttpResponse, WebError> {
    let (body, content_type) = match file.as_str() {
        "app.css" => (
            include_str!("../../../static/app.css"),
            "text/css; charset=utf-8",
        ),
        "live.js" => (
            include_str!("../../../static/live.js"),
            "text/javascript; charset=utf-8",
        ),
        "map.js" => (
            include_str!("../../../static/map.js"),
            "text/javascript; charset=utf-8",
        ),
        "replay.js" => (
            include_str!("../../../static/replay.js"),
            "text/javascript; charset=utf-8",
        ),
        "zone.js" => (
            include_str!("../../../static/zone.js"),
            "text/javascript; charset=utf-8",
        ),
        "copy.js" => (
            include_str!("../../../static/copy.js"),
            "text/javascript; charset=utf-8",
        ),
        "deal.js" => (
            include_str!("../../../static/deal.js"),
            "text/javascript; charset=utf-8",
        ),
        "favicon.svg" => (include_str!("../../../static/favicon.svg"), FAVICON_TYPE),
        _ => return Err(WebError::NotFound),
    };
    Ok(HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .body(body))
}
