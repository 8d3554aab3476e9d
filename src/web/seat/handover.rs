//! How a seat reaches its player without anyone else holding its link (DESIGN.md "Identity"):
//! `GET /take/{token}` shows a one-time handover link's seat and `POST` takes it up (the first
//! person to do so gets a fresh seat link that only they hold); `POST /games/{id}/lost-link`
//! mails a fresh link to a seat's own address for a player who lost theirs.

use crate::games::find_game;
use crate::notices::links::{LostLinkError, enqueue_lost_link};
use crate::store::{Handover, TakeUp};
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::cookie::{Cookie, SameSite, time::Duration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};

/// The cookie, per game, that keeps the seat link a browser was given when it took a seat
/// up, so the game's page can lead back to the seat ("pp_seat_17").
pub(in crate::web) fn seat_cookie_name(game_id: i64) -> String {
    format!("pp_seat_{game_id}")
}

#[derive(Template)]
#[template(path = "seat/take_up.html")]
struct TakeUpPage {
    game: String,
    name: String,
    seat_name: String,
    token: String,
    csrf: String,
}

#[derive(Template)]
#[template(path = "seat/taken_up.html")]
struct TakenUpPage {
    game: String,
    link: String,
}

fn taken_words(at: &DateTime<Utc>) -> String {
    format!(
        "this seat was already taken up on {}: if that was not you, ask the organiser for a new \
         handover link",
        at.format("%a %-d %b %Y, %H:%M UTC")
    )
}

/// "Whitehouse #12".
async fn game_title(state: &AppState, game_id: i64) -> Result<(String, usize), WebError> {
    let row = state.store.game(game_id).await?.ok_or(WebError::NotFound)?;
    let name = find_game(&row.kind).map_or(row.kind.clone(), |g| g.name().to_string());
    Ok((format!("{name} #{game_id}"), row.seat_count as usize))
}

/// `GET /take/{token}`: whose seat a handover link gives, and the button that takes it up.
/// Opening it changes nothing (mail scanners and link previews follow links).
pub async fn offer(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    match state.store.handover(&token).await? {
        None => Err(WebError::NotFound),
        Some(Handover::Taken { at, .. }) => Err(WebError::Gone(taken_words(&at))),
        Some(Handover::Open {
            game_id,
            seat,
            name,
        }) => {
            let (game, seats) = game_title(&state, game_id).await?;
            let row = state.store.game(game_id).await?.ok_or(WebError::NotFound)?;
            let seat_name = find_game(&row.kind).map_or_else(
                || format!("seat {}", seat + 1),
                |g| g.seat_name(seat, seats),
            );
            let (csrf_token, cookie) = csrf::token_for(&req);
            let mut response = html(
                StatusCode::OK,
                TakeUpPage {
                    game,
                    name,
                    seat_name,
                    token: token.into_inner(),
                    csrf: csrf_token,
                },
            )?;
            csrf::attach(&mut response, cookie);
            Ok(response)
        }
    }
}

/// `POST /take/{token}`: takes the seat up. The first caller gets the seat's fresh private
/// link (shown once, to bookmark, and kept in a cookie for the game's page); every later
/// caller is told the seat was already taken up.
pub async fn take(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    // "This seat is mine" on the created page goes straight to the seat.
    let straight_to_seat = field(&fields, "then") == Some("seat");
    match state.store.take_up(&token).await? {
        TakeUp::Unknown => Err(WebError::NotFound),
        TakeUp::AlreadyTaken { at, .. } => Err(WebError::Gone(taken_words(&at))),
        TakeUp::Yours { game_id, token, .. } => {
            let (game, _) = game_title(&state, game_id).await?;
            let cookie = Cookie::build(seat_cookie_name(game_id), token.clone())
                .path("/")
                .http_only(true)
                .secure(state.secure_cookies)
                .same_site(SameSite::Lax)
                .max_age(Duration::days(400))
                .finish();
            if straight_to_seat {
                return Ok(HttpResponse::SeeOther()
                    .insert_header(("Location", format!("/play/{token}")))
                    .cookie(cookie)
                    .finish());
            }
            let mut response = html(
                StatusCode::OK,
                TakenUpPage {
                    game,
                    link: format!("{}/play/{token}", state.base_url),
                },
            )?;
            let _ = response.add_cookie(&cookie);
            Ok(response)
        }
    }
}

/// `POST /games/{id}/lost-link` (or `/watch/{token}/lost-link`) with `seat`: mails a fresh link to that seat's own address
/// (never shown), for a player who lost theirs; 303 back to the game's page with a note.
pub async fn lost_link(
    req: HttpRequest,
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let row = state
        .store
        .game(public.id)
        .await?
        .ok_or(WebError::NotFound)?;
    if row.status != "running" {
        return Err(WebError::Conflict(
            "the game is over: its seats need no new links".into(),
        ));
    }
    let seat = field(&fields, "seat")
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|s| *s < row.seat_count as usize)
        .ok_or_else(|| WebError::BadRequest("which seat?".into()))?;
    let name = find_game(&row.kind).map_or(row.kind.clone(), |g| g.name().to_string());
    match enqueue_lost_link(state.store.pool(), row.id, &name, seat).await {
        Ok(_) => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", format!("{}?mailed=1#seat", public.base)))
            .finish()),
        Err(LostLinkError::Db(e)) => Err(e.into()),
        Err(e @ LostLinkError::NoAddress) => Err(WebError::Conflict(e.to_string())),
        Err(e @ LostLinkError::TooMany) => Err(WebError::Conflict(e.to_string())),
    }
}
