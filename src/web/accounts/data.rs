//! The account's own data (`/me/export`, docs/ACCOUNTS.md "Your data"): one JSON download of its
//! settings, games (with links to their records), messages, webhooks and API tokens, none of
//! them with a secret; and closing the account (`/me/close`).

use crate::store::{Account, AccountExport, ExportedSeat, FORMER_PLAYER};
use crate::web::accounts::session::{self, SignedIn};
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// Where a game's pages and record are.
#[derive(Debug, Serialize)]
struct Links {
    /// The game's public page.
    page: String,
    /// Its whole log, move by move.
    log: String,
    /// Its replay.
    replay: String,
    /// Its record as JSON (what a spectator may see; a seat's link shows that seat's own).
    record: String,
}

/// A game of the account, with its links.
#[derive(Debug, Serialize)]
struct Game {
    #[serde(flatten)]
    seat: ExportedSeat,
    links: Links,
}

/// The download.
#[derive(Debug, Serialize)]
struct Export {
    exported_at: DateTime<Utc>,
    account: crate::store::ExportedSettings,
    games: Vec<Game>,
    organised: Vec<String>,
    messages: Vec<crate::store::ExportedMessage>,
    webhooks: Vec<crate::store::ExportedWebhook>,
    api_tokens: Vec<crate::store::ExportedToken>,
}

fn with_links(base: &str, data: AccountExport, at: DateTime<Utc>) -> Export {
    Export {
        exported_at: at,
        account: data.settings,
        games: data
            .seats
            .into_iter()
            .map(|seat| {
                let path = &seat.path;
                Game {
                    links: Links {
                        page: format!("{base}{path}"),
                        log: format!("{base}{path}/log"),
                        replay: format!("{base}{path}/replay"),
                        record: format!("{base}/api{path}/export"),
                    },
                    seat,
                }
            })
            .collect(),
        organised: data
            .organised
            .into_iter()
            .map(|id| format!("{base}/me/organised/{id}"))
            .collect(),
        messages: data.messages,
        webhooks: data.webhooks,
        api_tokens: data.api_tokens,
    }
}

/// `GET /me/export`: the signed-in account's data, as a JSON file to keep.
pub async fn export(state: web::Data<AppState>, who: SignedIn) -> Result<HttpResponse, WebError> {
    let data = state
        .store
        .account_export(who.0.id)
        .await?
        .ok_or(WebError::Unauthorized)?;
    let export = with_links(&state.base_url, data, state.store.now());
    Ok(HttpResponse::Ok()
        .insert_header((
            "Content-Disposition",
            "attachment; filename=\"postplay-account.json\"",
        ))
        .insert_header(("Cache-Control", "no-store"))
        .json(export))
}

/// The closing page, or what closing did.
#[derive(Template)]
#[template(path = "accounts/close.html")]
struct ClosePage {
    csrf: String,
    name: String,
    running: i64,
    finished: i64,
    tokens: i64,
    webhooks: i64,
    error: Option<String>,
    done: Option<String>,
}

async fn close_page(
    state: &AppState,
    account: &Account,
    csrf: String,
    error: Option<String>,
) -> Result<ClosePage, WebError> {
    let data = state
        .store
        .account_export(account.id)
        .await?
        .ok_or(WebError::Unauthorized)?;
    let running = data.seats.iter().filter(|s| s.status == "running").count() as i64;
    Ok(ClosePage {
        csrf,
        name: account.name.clone(),
        running,
        finished: data.seats.len() as i64 - running,
        tokens: data.api_tokens.len() as i64,
        webhooks: data.webhooks.len() as i64,
        error,
        done: None,
    })
}

/// `GET /me/close`: what closing does, and the form that does it.
pub async fn close_form(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
) -> Result<HttpResponse, WebError> {
    let (csrf_token, cookie) = csrf::token_for(&req);
    let page = close_page(&state, &who.0, csrf_token, None).await?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /me/close` (CSRF): closes the account once its player confirmed and chose how
/// finished games name them (400 otherwise, nothing changed); the browser's session cookie goes.
pub async fn close(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let keep_name = match field(&fields, "names") {
        Some("keep") => Some(true),
        Some("former") => Some(false),
        _ => None,
    };
    let confirmed = field(&fields, "confirm") == Some("yes");
    let (Some(keep_name), true) = (keep_name, confirmed) else {
        let (csrf_token, _) = csrf::token_for(&req);
        let reason = "Nothing was closed: choose how finished games show you, and tick the box \
                      that says you understand."
            .to_string();
        let page = close_page(&state, &who.0, csrf_token, Some(reason)).await?;
        return html(StatusCode::BAD_REQUEST, page);
    };
    let closed = state
        .store
        .close_account(who.0.id, keep_name)
        .await?
        .ok_or(WebError::Unauthorized)?;
    let shown = if keep_name {
        format!("Finished games keep your name, {}.", who.0.name)
    } else {
        format!("Finished games show you as \"{FORMER_PLAYER}\".")
    };
    let left = match closed.left.len() {
        0 => String::new(),
        1 => " You left 1 running game; its other players were told.".into(),
        n => format!(" You left {n} running games; their other players were told."),
    };
    let page = ClosePage {
        csrf: String::new(),
        name: String::new(),
        running: 0,
        finished: 0,
        tokens: 0,
        webhooks: 0,
        error: None,
        done: Some(format!("{shown}{left}")),
    };
    let mut response = html(StatusCode::OK, page)?;
    let _ = response.add_cookie(&session::removal(state.secure_cookies));
    Ok(response)
}
