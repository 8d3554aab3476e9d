//! The account's chat notifications (`/me/webhooks`, docs/WEBHOOKS.md): add a Discord, Slack or
//! signed JSON webhook (its URL never shown again whole, a generic one's secret shown once),
//! see how its notices went, remove it. Forms only, with CSRF, like the other account pages.

use crate::domain::{MAX_WEBHOOK_URL_CHARS, WebhookKind, WebhookUrl, masked_url};
use crate::store::{Account, MAX_WEBHOOKS};
use crate::web::accounts::session::SignedIn;
use crate::web::http::csrf;
use crate::web::http::page::{FormEcho, field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

struct HookRow {
    id: i64,
    kind: &'static str,
    place: String,
    made: String,
    sent: i64,
    waiting: i64,
    failed: i64,
    trouble: Option<String>,
}

#[derive(Template)]
#[template(path = "accounts/webhooks.html")]
struct HooksPage {
    csrf: String,
    hooks: Vec<HookRow>,
    kinds: Vec<(&'static str, &'static str)>,
    added: Option<String>,
    secret: Option<String>,
    error: Option<String>,
    /// The refused form as sent (kind and URL kept), or blank.
    form: FormEcho,
    can_add: bool,
    max: i64,
    max_url: usize,
}

/// What was just added: its masked place and a generic webhook's secret.
type Added = (String, Option<String>);

async fn hooks_page(
    state: &AppState,
    account: &Account,
    csrf: String,
    added: Option<Added>,
    error: Option<String>,
) -> Result<HooksPage, WebError> {
    let zone: chrono_tz::Tz = account.time_zone.parse().unwrap_or(chrono_tz::UTC);
    let when = |at: &chrono::DateTime<chrono::Utc>| {
        at.with_timezone(&zone)
            .format("%-d %b %Y, %H:%M %Z")
            .to_string()
    };
    let hooks: Vec<HookRow> = state
        .store
        .webhooks(account.id)
        .await?
        .into_iter()
        .map(|h| HookRow {
            id: h.id,
            kind: h.kind.label(),
            place: masked_url(&h.url),
            made: when(&h.created_at),
            sent: h.sent,
            waiting: h.waiting,
            failed: h.failed,
            trouble: h.last_error.map(|(at, e)| {
                let outcome = if h.failed > 0 {
                    "given up after its tries"
                } else {
                    "being tried again"
                };
                format!("Last trouble (a notice of {}, {outcome}): {e}", when(&at))
            }),
        })
        .collect();
    let (added, secret) = added.map_or((None, None), |(a, s)| (Some(a), s));
    Ok(HooksPage {
        csrf,
        can_add: (hooks.len() as i64) < MAX_WEBHOOKS,
        hooks,
        kinds: WebhookKind::ALL
            .into_iter()
            .map(|k| (k.as_str(), k.label()))
            .collect(),
        added,
        secret,
        error,
        form: FormEcho::blank(),
        max: MAX_WEBHOOKS,
        max_url: MAX_WEBHOOK_URL_CHARS,
    })
}

/// `GET /me/webhooks`.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
) -> Result<HttpResponse, WebError> {
    let (csrf_token, cookie) = csrf::token_for(&req);
    let page = hooks_page(&state, &who.0, csrf_token, None, None).await?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /me/webhooks`: adds a webhook (400 for a URL refused, 409 past the bound); the page
/// that answers shows its host and last four characters, and a generic one's secret once.
pub async fn add(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let (csrf_token, _) = csrf::token_for(&req);
    let parsed = (|| {
        let kind = field(&fields, "kind")
            .and_then(WebhookKind::parse)
            .ok_or(("kind", "choose Discord, Slack or signed JSON".to_string()))?;
        let url = WebhookUrl::parse(
            field(&fields, "url").unwrap_or_default(),
            state.settings.webhook_loopback_http,
        )
        .map_err(|e| ("url", format!("the URL: {e}")))?;
        Ok::<_, (&str, String)>((kind, url))
    })();
    let (kind, url) = match parsed {
        Ok(parsed) => parsed,
        Err((at, reason)) => {
            let mut page = hooks_page(&state, &who.0, csrf_token, None, Some(reason)).await?;
            page.form = FormEcho::sent(&fields).at_fault(at);
            return html(StatusCode::BAD_REQUEST, page);
        }
    };
    match state.store.add_webhook(who.0.id, kind, &url).await? {
        Ok((_, secret)) => {
            let added = format!("{} webhook to {url}", kind.label());
            let page = hooks_page(&state, &who.0, csrf_token, Some((added, secret)), None).await?;
            html(StatusCode::OK, page)
        }
        Err(_) => {
            let reason = format!(
                "an account holds at most {MAX_WEBHOOKS} webhooks: remove one to add another"
            );
            let page = hooks_page(&state, &who.0, csrf_token, None, Some(reason)).await?;
            html(StatusCode::CONFLICT, page)
        }
    }
}

/// `POST /me/webhooks/{id}/remove`: no more notices go to it, not even those waiting.
pub async fn remove(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    if !state.store.remove_webhook(who.0.id, *id).await? {
        return Err(WebError::NotFound);
    }
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", "/me/webhooks"))
        .finish())
}
