//! Request latency by route group: an actix middleware timing every request of the public app.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use std::time::Instant;

/// The route group of a matched route pattern: its first literal segment (`play`, `api`,
/// `me`, …; `home` for `/`), `other` for a pattern that starts with a parameter, and
/// `unmatched` when no route matched. Bounded by the route table, never by what clients send.
pub fn group(pattern: Option<&str>) -> String {
    let Some(pattern) = pattern else {
        return "unmatched".into();
    };
    let first = pattern
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("");
    if first.is_empty() {
        "home".into()
    } else if first.contains('{') {
        "other".into()
    } else {
        first.trim_end_matches(".json").to_string()
    }
}

/// The middleware: records [`super::REQUEST_SECONDS`] for each request, labelled with its
/// group, its method (`GET`, `POST`, `other`) and its status class (`2xx`, …).
pub async fn timed(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let group = group(req.match_pattern().as_deref());
    let method = match req.method().as_str() {
        "GET" => "GET",
        "POST" => "POST",
        "HEAD" => "HEAD",
        _ => "other",
    };
    let res = next.call(req).await;
    let status = match &res {
        Ok(res) => match res.status().as_u16() / 100 {
            2 => "2xx",
            3 => "3xx",
            4 => "4xx",
            _ => "5xx",
        },
        Err(_) => "5xx",
    };
    metrics::histogram!(super::REQUEST_SECONDS, "group" => group, "method" => method, "status" => status)
        .record(started.elapsed().as_secs_f64());
    res
}

#[cfg(test)]
mod tests {
    use super::group;

    #[test]
    fn groups_are_the_first_literal_segment() {
        assert_eq!(group(Some("/")), "home");
        assert_eq!(group(Some("/play/{token}")), "play");
        assert_eq!(group(Some("/api/games/{id}/commands")), "api");
        assert_eq!(group(Some("/fairness.json")), "fairness");
        assert_eq!(group(Some("/{anything}")), "other");
        assert_eq!(group(None), "unmatched");
    }
}
