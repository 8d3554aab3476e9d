//! A club game's desk for the club's admins (issue 33 item 3): a club's game has no organiser
//! link, so its admins act on it from the club's pages with their session, with the
//! organiser's powers and no more. Every route here is the organiser's desk
//! ([`crate::web::desk::manage`]) reached another way: the same page and the same `*_at` actions, under
//! `/clubs/{club}/games/{game}/desk`. A private club's routes answer a non-member as a club
//! that does not exist; a member who is no admin is refused (403) with the club's page; a
//! signed-out reader signs in first. A closed club's admins still act on its games.

use crate::store::{Account, ClubError};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::clubs::admin::{done, signed_form};
use crate::web::clubs::club::{club_error, sign_in_first};
use crate::web::desk::manage::{self as desk, DeskAt};
use crate::web::{AppState, WebError};
use actix_web::{HttpRequest, HttpResponse, web};

/// The club's desk of `game` for `account`, or the answer of a refusal: 404 for a club the
/// reader may not see or a game not the club's, the club's page with the reason (403) for a
/// reader who is no admin.
async fn desk_for(
    req: &HttpRequest,
    state: &AppState,
    account: &Account,
    club: i64,
    game: i64,
) -> Result<Result<DeskAt, HttpResponse>, WebError> {
    match state.store.club_game_admin(club, game, account.id).await {
        Ok(()) => {}
        Err(e @ ClubError::NotAllowed(_)) => {
            let back = format!("/clubs/{club}");
            return Ok(Err(done(req, state, club, account, Err(e), back).await?));
        }
        Err(e) => return Err(club_error(e)),
    }
    let name = state
        .store
        .club_for(club, Some(account.id))
        .await?
        .map(|(c, _)| c.name)
        .unwrap_or_default();
    Ok(Ok(DeskAt {
        game,
        base: format!("/clubs/{club}/games/{game}/desk"),
        club: Some((club, name)),
        by: crate::store::Changer::ClubAdmin(account.name.clone()),
    }))
}

/// The admin's desk and the form's fields for a POST: after sign-in, the CSRF token and the
/// admin's rights are checked; otherwise the answer to give.
async fn admin_form(
    req: &HttpRequest,
    state: &AppState,
    who: MaybeSignedIn,
    club: i64,
    game: i64,
    body: &[u8],
) -> Result<Result<(DeskAt, Vec<(String, String)>), HttpResponse>, WebError> {
    let (account, fields) = match signed_form(req, who, body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(Err(redirect)),
    };
    Ok(desk_for(req, state, &account, club, game)
        .await?
        .map(|at| (at, fields)))
}

/// Unwraps [`admin_form`], answering at once when it refused.
macro_rules! admin_form {
    ($req:expr, $state:expr, $who:expr, $club:expr, $game:expr, $body:expr) => {
        match admin_form(&$req, &$state, $who, $club, $game, &$body).await? {
            Ok(form) => form,
            Err(answer) => return Ok(answer),
        }
    };
}

/// `GET /clubs/{club}/games/{game}/desk`: the game's desk, for the club's admins.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, WebError> {
    let (club, game) = path.into_inner();
    let Some(account) = who.0 else {
        return Ok(sign_in_first(req.path()));
    };
    match desk_for(&req, &state, &account, club, game).await? {
        Ok(at) => desk::show(&req, &state, &at).await,
        Err(answer) => Ok(answer),
    }
}

/// `POST /clubs/{club}/games/{game}/desk/relink/{seat}`: the seat's new link, mailed to its
/// holder; never shown.
pub async fn relink(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game, seat) = path.into_inner();
    let (at, _) = admin_form!(req, state, who, club, game, body);
    desk::relink_at(&state, &at, seat).await
}

/// `POST /clubs/{club}/games/{game}/desk/release/{seat}`: the seat is no account's any more.
pub async fn release(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game, seat) = path.into_inner();
    let (at, _) = admin_form!(req, state, who, club, game, body);
    desk::release_at(&req, &state, &at, seat).await
}

/// `POST /clubs/{club}/games/{game}/desk/invite/{seat}`: the seat's invitation again.
pub async fn invite(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game, seat) = path.into_inner();
    let (at, _) = admin_form!(req, state, who, club, game, body);
    desk::invite_at(&req, &state, &at, seat).await
}

/// `POST /clubs/{club}/games/{game}/desk/address/{seat}` with `email`: the seat's new address.
pub async fn address(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game, seat) = path.into_inner();
    let (at, fields) = admin_form!(req, state, who, club, game, body);
    desk::address_at(&req, &state, &at, seat, &fields).await
}

/// `POST /clubs/{club}/games/{game}/desk/cancel` with `reason` and `confirm=yes`.
pub async fn cancel(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game) = path.into_inner();
    let (at, fields) = admin_form!(req, state, who, club, game, body);
    desk::cancel_at(&req, &state, &at, &fields).await
}

/// `POST /clubs/{club}/games/{game}/desk/clock`: pause, resume or extend.
pub async fn clock(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game) = path.into_inner();
    let (at, fields) = admin_form!(req, state, who, club, game, body);
    desk::clock_at(&state, &at, &fields).await
}

/// `POST /clubs/{club}/games/{game}/desk/messages/{message}/hide`: hides a message.
pub async fn hide_message(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, game, message) = path.into_inner();
    let (at, _) = admin_form!(req, state, who, club, game, body);
    desk::hide_at(&req, &state, &at, message).await
}
