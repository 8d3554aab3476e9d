//! Mail pages: a seat's mail preference (the one-click unsubscribe endpoint of RFC 8058 is its
//! POST), and the dev mailbox (only when mail goes to the dev mailbox folder).
//!
//! The unsubscribe forms carry no CSRF token: the private link token in the URL is itself the
//! secret, and mail providers' one-click POSTs cannot carry one.

use crate::games::find_game;
use crate::notices::mail::mailbox::MailboxEntry;
use crate::notices::outbox::{MailPref, mail_pref, set_mail_pref};
use crate::web::http::page::html;
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

#[derive(Template)]
#[template(path = "accounts/mail_prefs.html")]
struct Prefs {
    title: String,
    name: String,
    current: &'static str,
    saved: Option<&'static str>,
    action: String,
    play: String,
    each_message: bool,
    /// Whether every answer to the seat's replies is mailed on its own.
    every_answer: bool,
    /// The seat's own "play my forced moves" (`None`: the account's default applies).
    forced_own: Option<bool>,
    /// Whether its forced moves are played for it now.
    forced_applies: bool,
}

fn describe(pref: MailPref) -> &'static str {
    match pref {
        MailPref::Every => "a message each time it is your turn",
        MailPref::Digest => "at most one message a day",
        MailPref::Off => "no mail",
    }
}

async fn prefs_page(
    state: &AppState,
    token: &str,
    saved: Option<&'static str>,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = state
        .store
        .seat_for_mail_settings(token)
        .await?
        .ok_or(WebError::NotFound)?;
    let row = state.store.game(id).await?.ok_or(WebError::NotFound)?;
    let name = state
        .store
        .seats(id)
        .await?
        .into_iter()
        .find(|s| s.seat == seat)
        .map(|s| s.name)
        .unwrap_or_default();
    let current = mail_pref(state.store.pool(), id, seat).await?;
    let (forced_own, forced_applies) = state.store.play_forced(id, seat).await?;
    let game_name = find_game(&row.kind).map_or(row.kind.clone(), |g| g.name().to_string());
    html(
        StatusCode::OK,
        Prefs {
            title: format!("{game_name} #{id}"),
            name,
            current: describe(current),
            saved,
            each_message: crate::notices::thread::mail_each_message(state.store.pool(), id, seat)
                .await?,
            every_answer: {
                let mut conn = state.store.pool().acquire().await?;
                crate::notices::outbox::fold::every_answer(&mut conn, id, seat).await?
            },
            forced_own,
            forced_applies,
            action: format!("/mail/unsubscribe/{token}"),
            play: format!("/play/{token}"),
        },
    )
}

/// `GET /mail/unsubscribe/{token}`: the seat's mail preference, to change with a POST.
pub async fn preferences(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    prefs_page(&state, &token, None).await
}

/// `POST /mail/unsubscribe/{token}`: `List-Unsubscribe=One-Click` (RFC 8058) turns mail off;
/// `pref=every|digest|off` from the page sets that.
pub async fn set_preference(
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = state
        .store
        .seat_for_mail_settings(&token)
        .await?
        .ok_or(WebError::NotFound)?;
    let fields: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
    if let Some((_, forced)) = fields.iter().find(|(k, _)| k == "forced") {
        let on = match forced.as_str() {
            "on" => Some(true),
            "off" => Some(false),
            "default" => None,
            other => {
                return Err(WebError::BadRequest(format!(
                    "{other:?}: choose on, off or default"
                )));
            }
        };
        state.store.set_play_forced(id, seat, on).await?;
        tracing::info!(game = id, seat, ?on, "forced-move setting set");
        let saved = match on {
            Some(true) => "your only possible moves are played for you",
            Some(false) => "you are asked even when you have only one possible move",
            None => "your account's default decides whether your forced moves are played",
        };
        return prefs_page(&state, &token, Some(saved)).await;
    }
    if let Some((_, answers)) = fields.iter().find(|(k, _)| k == "answers") {
        let every = match answers.as_str() {
            "every" => true,
            "folded" => false,
            other => {
                return Err(WebError::BadRequest(format!(
                    "{other:?}: choose every or folded"
                )));
            }
        };
        crate::notices::outbox::fold::set_every_answer(state.store.pool(), id, seat, every).await?;
        tracing::info!(game = id, seat, every, "answers mail preference set");
        let saved = if every {
            "every reply confirmed by a mail of its own"
        } else {
            "answers to your replies only when they tell something; otherwise in your next mail"
        };
        return prefs_page(&state, &token, Some(saved)).await;
    }
    if let Some((_, each)) = fields.iter().find(|(k, _)| k == "messages") {
        let each = match each.as_str() {
            "each" => true,
            "with_turns" => false,
            other => {
                return Err(WebError::BadRequest(format!(
                    "{other:?}: choose each or with_turns"
                )));
            }
        };
        crate::notices::thread::set_mail_each_message(state.store.pool(), id, seat, each).await?;
        tracing::info!(game = id, seat, each, "message mail preference set");
        let saved = if each {
            "a message each time someone writes in the game"
        } else {
            "messages only with your turns and digests"
        };
        return prefs_page(&state, &token, Some(saved)).await;
    }
    let pref = match fields.iter().find(|(k, _)| k == "pref") {
        Some((_, v)) => MailPref::parse(v)
            .ok_or_else(|| WebError::BadRequest(format!("{v:?}: choose every, digest or off")))?,
        None => MailPref::Off,
    };
    set_mail_pref(state.store.pool(), id, seat, pref).await?;
    tracing::info!(game = id, seat, pref = pref.as_str(), "mail preference set");
    prefs_page(&state, &token, Some(describe(pref))).await
}

struct Listed {
    key: String,
    when: String,
    to: String,
    subject: String,
    links: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "accounts/mailbox/list.html")]
struct Mailbox {
    dir: String,
    messages: Vec<Listed>,
}

fn when(entry: &MailboxEntry) -> String {
    entry.stored_at.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

fn link_label(link: &str) -> String {
    if link.contains("/play/") {
        "play".into()
    } else if link.contains("/mail/unsubscribe/") {
        "mail settings".into()
    } else if link.contains("/replay") {
        "replay".into()
    } else {
        "link".into()
    }
}

/// The dev mailbox, for a client allowed to read it: it holds every seat's private link, so
/// only a client on this machine may, unless the settings open it to all.
fn mailbox<'a>(
    state: &'a AppState,
    req: &HttpRequest,
) -> Result<&'a crate::notices::DevMailbox, WebError> {
    let mailbox = state.mailbox.as_ref().ok_or(WebError::NotFound)?;
    if !state.settings.mailbox_public && !crate::web::http::client::is_local(req.head()) {
        return Err(WebError::Forbidden(
            "the dev mailbox holds every seat's private link, so it opens only on the server's \
             own machine (or with POSTPLAY_MAILBOX_PUBLIC=true)"
                .into(),
        ));
    }
    Ok(mailbox)
}

/// `GET /dev/mailbox`: every message in the dev mailbox, newest first, with its links.
pub async fn list(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, WebError> {
    let mailbox = mailbox(&state, &req)?;
    let entries = mailbox
        .list()
        .map_err(|e| WebError::Internal(e.to_string()))?;
    html(
        StatusCode::OK,
        Mailbox {
            dir: mailbox.dir().display().to_string(),
            messages: entries
                .iter()
                .map(|e| Listed {
                    key: e.key.clone(),
                    when: when(e),
                    to: e.to.clone(),
                    subject: e.subject.clone(),
                    links: e.links.iter().map(|l| (l.clone(), link_label(l))).collect(),
                })
                .collect(),
        },
    )
}

#[derive(Template)]
#[template(path = "accounts/mailbox/message.html")]
struct Message {
    key: String,
    subject: String,
    to: String,
    when: String,
    message_id: String,
    text: String,
    links: Vec<(String,)>,
}

/// `GET /dev/mailbox/{key}`: one message's text and links.
pub async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    key: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let mailbox = mailbox(&state, &req)?;
    let entry = mailbox
        .list()
        .map_err(|e| WebError::Internal(e.to_string()))?
        .into_iter()
        .find(|e| e.key == *key)
        .ok_or(WebError::NotFound)?;
    html(
        StatusCode::OK,
        Message {
            when: when(&entry),
            key: entry.key,
            subject: entry.subject,
            to: entry.to,
            message_id: entry.message_id,
            text: entry.text,
            links: entry.links.into_iter().map(|l| (l,)).collect(),
        },
    )
}

/// `GET /dev/mailbox/{key}/raw`: the message as it would have been sent.
pub async fn raw(
    req: HttpRequest,
    state: web::Data<AppState>,
    key: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let bytes = mailbox(&state, &req)?
        .raw(&key)
        .map_err(|e| WebError::Internal(e.to_string()))?
        .ok_or(WebError::NotFound)?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(bytes))
}
