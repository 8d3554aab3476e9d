//! Graceful overload: a bound on the requests one process answers at once, with moves (API
//! commands and the seat page's move form) apart from everything else and given more places,
//! so that pages are refused first; a bound on how many requests wait for a place, so that what
//! waiting holds does not grow with the rate requests come at; and a bound on how long a
//! request waits for a place or for a database connection. Past them a request is answered at
//! once, 503 with `Retry-After` (a page for people, JSON for the API), and nothing is done: a
//! move refused so changes nothing, and one from the seat page comes back with what the player
//! chose, ready to send again (a page built without the database, which is what is short).
//! Each refusal is counted in `postplay_requests_shed_total` (docs/CONFIGURATION.md,
//! "Overload").

use crate::config::WebSettings;
use crate::telemetry::requests::group;
use crate::web::http::page::parse_form;
use crate::web::http::protect::is_api;
use crate::web::{AppState, WebError};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::RETRY_AFTER;
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};
use askama::Template;
use sqlx::PgPool;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The places of the requests one process answers at once: moves', and everything else's.
pub struct Admission {
    moves: Queue,
    pages: Queue,
}

/// One class's places, and the requests waiting for one: at most `most_waiting` of them, so
/// that what the process holds for waiting requests does not grow with the rate they come at.
struct Queue {
    places: Arc<Semaphore>,
    waiting: AtomicUsize,
    most_waiting: usize,
}

/// Why a request was given no place.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NoPlace {
    /// As many requests of its class were waiting already as may.
    Full,
    /// None came within the queue's wait.
    Late,
}

impl NoPlace {
    /// The `reason` label of the shed counter.
    fn label(self) -> &'static str {
        match self {
            NoPlace::Full => "full",
            NoPlace::Late => "queue",
        }
    }
}

/// One waiting request counted in its queue (and the waiting gauge) for as long as it lives,
/// whether it gets a place, times out, or its client goes away.
struct Waiting<'a> {
    queue: &'a Queue,
    class: Class,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.queue.waiting.fetch_sub(1, Ordering::Relaxed);
        crate::telemetry::waiting(self.class.label(), -1.0);
    }
}

impl Queue {
    fn new(places: usize, most_waiting: usize) -> Queue {
        Queue {
            places: Arc::new(Semaphore::new(places.max(1))),
            waiting: AtomicUsize::new(0),
            most_waiting,
        }
    }

    /// A place at once, or after waiting at most `wait` among at most `most_waiting` others.
    async fn place(&self, class: Class, wait: Duration) -> Result<OwnedSemaphorePermit, NoPlace> {
        if let Ok(place) = self.places.clone().try_acquire_owned() {
            return Ok(place);
        }
        if self.waiting.fetch_add(1, Ordering::Relaxed) >= self.most_waiting {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            return Err(NoPlace::Full);
        }
        crate::telemetry::waiting(class.label(), 1.0);
        let _waiting = Waiting { queue: self, class };
        match tokio::time::timeout(wait, self.places.clone().acquire_owned()).await {
            Ok(Ok(place)) => Ok(place),
            _ => Err(NoPlace::Late),
        }
    }
}

impl Admission {
    /// The places the settings give.
    pub fn new(settings: &WebSettings) -> Admission {
        Admission {
            moves: Queue::new(settings.moves_in_flight, settings.moves_waiting),
            pages: Queue::new(settings.pages_in_flight, settings.pages_waiting),
        }
    }

    /// The queue of `class`; `None` for a free request, which needs no place.
    fn queue(&self, class: Class) -> Option<&Queue> {
        match class {
            Class::Move => Some(&self.moves),
            Class::Page => Some(&self.pages),
            Class::Free => None,
        }
    }
}

/// What a request is to admission.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    /// A move: a POST of the API's commands or of the seat page's form.
    Move,
    /// Anything else that may be refused.
    Page,
    /// Never refused: the health check and the static files.
    Free,
}

impl Class {
    /// The `class` label of the shed counter.
    pub fn label(self) -> &'static str {
        match self {
            Class::Move => "move",
            Class::Page => "page",
            Class::Free => "free",
        }
    }
}

/// The routes whose POST is a move.
const MOVE_ROUTES: &[&str] = &[
    "/play/{token}",
    "/api/games/{id}/commands",
    "/api/play/{token}/commands",
];

/// The routes never refused.
const FREE_ROUTES: &[&str] = &["/healthz", "/static/{file}", "/favicon.ico"];

/// The class of a request by its method and matched route pattern.
pub fn class(method: &Method, pattern: Option<&str>) -> Class {
    match pattern {
        Some(p) if FREE_ROUTES.contains(&p) => Class::Free,
        Some(p) if *method == Method::POST && MOVE_ROUTES.contains(&p) => Class::Move,
        _ => Class::Page,
    }
}

/// Every connection of the pool is open and taken: a request that found none was turned away
/// by overload, not by a database that is down.
fn pool_full(pool: &PgPool) -> bool {
    pool.size() >= pool.options().get_max_connections() && pool.num_idle() == 0
}

/// Marks the seat page's move kept for want of a database connection ([`kept_move`]).
struct Kept;

/// The middleware: a place for the request or 503 at once; a request that found no database
/// connection while every one was busy is answered as overload too.
pub async fn admit(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let pattern = req.match_pattern();
    let class = class(req.method(), pattern.as_deref());
    let Some(queue) = state.admission.queue(class) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let group = group(pattern.as_deref());
    let retry_after = state.settings.retry_after;
    let _place = match queue.place(class, state.settings.queue_wait).await {
        Ok(place) => place,
        Err(no_place) => {
            crate::telemetry::shed(group, class.label(), no_place.label());
            return Ok(refuse(req, class, retry_after).await);
        }
    };
    let res = next.call(req).await?.map_into_boxed_body();
    let no_connection = res
        .response()
        .error()
        .and_then(|e| e.as_error::<WebError>())
        .is_some_and(|e| matches!(e, WebError::NoConnection));
    let kept = res.response().extensions().contains::<Kept>();
    if !(no_connection || kept) {
        return Ok(res);
    }
    if !pool_full(state.store.pool()) {
        tracing::warn!(
            path = res.request().path(),
            "request failed: the database is not reachable (no connection came in time)"
        );
        return Ok(res);
    }
    crate::telemetry::shed(group, class.label(), "pool");
    if kept {
        return Ok(res);
    }
    Ok(ServiceResponse::from_err(
        WebError::Overloaded(retry_after),
        res.request().clone(),
    ))
}

/// The answer to a request given no place: the seat page's move with what was chosen, else
/// the 503 error (a page or JSON, by the protection layer).
async fn refuse(mut req: ServiceRequest, class: Class, wait: Duration) -> ServiceResponse {
    if class == Class::Move
        && !is_api(req.path())
        && let Some(token) = req.path().strip_prefix("/play/").map(str::to_string)
        && let Ok(body) = req.extract::<web::Bytes>().await
        && let Ok(fields) = parse_form(&body)
    {
        let page = kept_move(&token, &fields, wait);
        return req.into_response(page);
    }
    req.error_response(WebError::Overloaded(wait))
}

#[derive(Template)]
#[template(path = "seat/kept.html")]
struct KeptMove<'a> {
    action: String,
    fields: &'a [(String, String)],
    shown: Vec<(&'a str, &'a str)>,
    wait: String,
}

/// The seat page's move not sent for overload: 503 with `Retry-After` and a form holding
/// every field the player sent (what they chose shown), to send again as it was.
pub fn kept_move(token: &str, fields: &[(String, String)], wait: Duration) -> HttpResponse {
    let seconds = wait.as_secs().max(1);
    let page = KeptMove {
        action: format!("/play/{token}"),
        fields,
        shown: fields
            .iter()
            .filter(|(k, v)| !matches!(k.as_str(), "csrf" | "seq") && !v.is_empty())
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
        wait: format!("{seconds} second{}", if seconds == 1 { "" } else { "s" }),
    };
    let mut res = HttpResponse::build(StatusCode::SERVICE_UNAVAILABLE);
    res.insert_header((RETRY_AFTER, seconds.to_string()));
    let mut res = match page.render() {
        Ok(body) => res.content_type("text/html; charset=utf-8").body(body),
        Err(e) => res.json(serde_json::json!({"error": e.to_string()})),
    };
    res.extensions_mut().insert(Kept);
    res
}

#[cfg(test)]
mod tests {
    use super::{Class, class};
    use actix_web::http::Method;

    #[test]
    fn moves_are_the_posts_of_commands_and_of_the_seat_form() {
        assert_eq!(class(&Method::POST, Some("/play/{token}")), Class::Move);
        assert_eq!(
            class(&Method::POST, Some("/api/games/{id}/commands")),
            Class::Move
        );
        assert_eq!(
            class(&Method::POST, Some("/api/play/{token}/commands")),
            Class::Move
        );
        assert_eq!(class(&Method::GET, Some("/play/{token}")), Class::Page);
        assert_eq!(class(&Method::POST, Some("/lobby/{id}/join")), Class::Page);
        assert_eq!(class(&Method::GET, None), Class::Page);
        assert_eq!(class(&Method::GET, Some("/healthz")), Class::Free);
        assert_eq!(class(&Method::GET, Some("/static/{file}")), Class::Free);
    }
}
