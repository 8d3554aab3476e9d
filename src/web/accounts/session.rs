//! Who is signed in: the session cookie read into the account it opens. The cookie carries a
//! random token (the database keeps its hash, see `store::accounts`); it is HttpOnly, SameSite=Lax
//! (a link from a mail opens pages signed in; a form from another site is still refused by the
//! CSRF check) and Secure behind https. A new token is issued at every sign-in, never reused.

use crate::store::{Account, SESSION_DAYS};
use crate::web::{AppState, WebError};
use actix_web::cookie::{Cookie, SameSite, time};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;

/// The session cookie's name.
pub const COOKIE: &str = "pp_session";

/// The cookie that carries a new session's token.
pub fn cookie(token: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(COOKIE, token.to_string())
        .path("/")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .max_age(time::Duration::days(i64::from(SESSION_DAYS)))
        .finish()
}

/// The cookie that removes the session's cookie from the browser.
pub fn removal(secure: bool) -> Cookie<'static> {
    let mut gone = cookie("", secure);
    gone.make_removal();
    gone
}

/// The session token the request carries, if any.
pub fn token(req: &HttpRequest) -> Option<String> {
    req.cookie(COOKIE).map(|c| c.value().to_string())
}

async fn signed_in(req: &HttpRequest) -> Result<Option<Account>, WebError> {
    let Some(token) = token(req) else {
        return Ok(None);
    };
    let state = req
        .app_data::<web::Data<AppState>>()
        .ok_or_else(|| WebError::Internal("no app state".into()))?;
    Ok(state.store.session_account(&token).await?)
}

/// The signed-in account; a request without a live session is refused with 401.
#[derive(Debug, Clone)]
pub struct SignedIn(pub Account);

impl FromRequest for SignedIn {
    type Error = WebError;
    type Future = LocalBoxFuture<'static, Result<SignedIn, WebError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            signed_in(&req)
                .await?
                .map(SignedIn)
                .ok_or(WebError::Unauthorized)
        })
    }
}

/// The signed-in account, if there is one: for pages that anyone may see.
#[derive(Debug, Clone)]
pub struct MaybeSignedIn(pub Option<Account>);

impl FromRequest for MaybeSignedIn {
    type Error = WebError;
    type Future = LocalBoxFuture<'static, Result<MaybeSignedIn, WebError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { Ok(MaybeSignedIn(signed_in(&req).await?)) })
    }
}
