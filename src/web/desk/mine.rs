//! The desk of a game its creator made while signed in, reached from their own page with their
//! session (`/me/organised/{game}`) on any device: the organiser's desk
//! ([`crate::web::desk::manage`]) reached another way, with the same page and the same `*_at`
//! actions. The organiser link keeps working. Any other reader gets the answer for a game
//! that is not there (404), so nobody learns who organises what.

use crate::store::{Account, Changer};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::clubs::club::sign_in_first;
use crate::web::desk::manage::{self as desk, DeskAt};
use crate::web::http::csrf;
use crate::web::http::page::{field, parse_form};
use crate::web::{AppState, WebError};
use actix_web::{HttpRequest, HttpResponse, web};

/// The desk of `game` for `account`; 404 unless the account organises it.
async fn desk_for(state: &AppState, account: &Account, game: i64) -> Result<DeskAt, WebError> {
    if !state.store.organises(account.id, game).await? {
        return Err(WebError::NotFound);
    }
    Ok(DeskAt {
        game,
        base: format!("/me/organised/{game}"),
        club: None,
        by: Changer::Organiser,
    })
}

/// The desk and the form's fields for a POST, once signed in and the CSRF token checks.
async fn signed_form(
    req: &HttpRequest,
    state: &AppState,
    who: MaybeSignedIn,
    game: i64,
    body: &[u8],
) -> Result<Result<(DeskAt, Vec<(String, String)>), HttpResponse>, WebError> {
    let Some(account) = who.0 else {
        return Ok(Err(sign_in_first(&format!("/me/organised/{game}"))));
    };
    let fields = parse_form(body)?;
    csrf::check(req, field(&fields, "csrf"))?;
    Ok(Ok((desk_for(state, &account, game).await?, fields)))
}

/// Unwraps [`signed_form`], answering at once when it refused.
macro_rules! signed_form {
    ($req:expr, $state:expr, $who:expr, $game:expr, $body:expr) => {
        match signed_form(&$req, &$state, $who, $game, &$body).await? {
            Ok(form) => form,
            Err(answer) => return Ok(answer),
        }
    };
}

/// `GET /me/organised/{game}`: the desk of a game the reader organises.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    game: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let Some(account) = who.0 else {
        return Ok(sign_in_first(req.path()));
    };
    let at = desk_for(&state, &account, *game).await?;
    desk::show(&req, &state, &at).await
}

/// `POST /me/organised/{game}/relink/{seat}`: new keys for a seat.
pub async fn relink(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (game, seat) = path.into_inner();
    let (at, _) = signed_form!(req, state, who, game, body);
    desk::relink_at(&state, &at, seat).await
}

/// `POST /me/organised/{game}/release/{seat}`: the seat is no account's any more.
pub async fn release(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (game, seat) = path.into_inner();
    let (at, _) = signed_form!(req, state, who, game, body);
    desk::release_at(&req, &state, &at, seat).await
}

/// `POST /me/organised/{game}/invite/{seat}`: the seat's invitation again.
pub async fn invite(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (game, seat) = path.into_inner();
    let (at, _) = signed_form!(req, state, who, game, body);
    desk::invite_at(&req, &state, &at, seat).await
}

/// `POST /me/organised/{game}/address/{seat}` with `email`: the seat's new address.
pub async fn address(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (game, seat) = path.into_inner();
    let (at, fields) = signed_form!(req, state, who, game, body);
    desk::address_at(&req, &state, &at, seat, &fields).await
}

/// `POST /me/organised/{game}/cancel` with `reason` and `confirm=yes`.
pub async fn cancel(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    game: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (at, fields) = signed_form!(req, state, who, *game, body);
    desk::cancel_at(&req, &state, &at, &fields).await
}

/// `POST /me/organised/{game}/clock`: pause, resume or extend.
pub async fn clock(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    game: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (at, fields) = signed_form!(req, state, who, *game, body);
    desk::clock_at(&state, &at, &fields).await
}

/// `POST /me/organised/{game}/messages/{message}/hide`: hides a message of the thread.
pub async fn hide_message(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (game, message) = path.into_inner();
    let (at, _) = signed_form!(req, state, who, game, body);
    desk::hide_at(&req, &state, &at, message).await
}
