//! CSRF protection by double submission: a random token in a SameSite=Strict cookie must come
//! back in the form. A page from another site can neither read the cookie nor make the browser
//! send it.

use crate::web::WebError;
use actix_web::HttpRequest;
use actix_web::HttpResponse;
use actix_web::cookie::{Cookie, SameSite};

const COOKIE: &str = "pp_csrf";

/// The visitor's token, and a cookie to set if they had none.
pub fn token_for(req: &HttpRequest) -> (String, Option<Cookie<'static>>) {
    if let Some(c) = req
        .cookie(COOKIE)
        .filter(|c| crate::store::looks_like_token(c.value()))
    {
        return (c.value().to_string(), None);
    }
    let token = crate::store::new_token();
    let secure = req
        .app_data::<actix_web::web::Data<crate::web::AppState>>()
        .is_some_and(|s| s.secure_cookies);
    let cookie = Cookie::build(COOKIE, token.clone())
        .path("/")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Strict)
        .finish();
    (token, Some(cookie))
}

/// Sets the cookie on a response, if one is due.
pub fn attach(response: &mut HttpResponse, cookie: Option<Cookie<'static>>) {
    if let Some(cookie) = cookie {
        let _ = response.add_cookie(&cookie);
    }
}

/// Refuses a form whose token does not match the cookie.
pub fn check(req: &HttpRequest, submitted: Option<&str>) -> Result<(), WebError> {
    let cookie = req.cookie(COOKIE).map(|c| c.value().to_string());
    match (cookie, submitted) {
        (Some(c), Some(s)) if !c.is_empty() && constant_time_eq(c.as_bytes(), s.as_bytes()) => {
            Ok(())
        }
        _ => Err(WebError::Forbidden(
            "this form has expired or did not come from this site: reload the page and try again"
                .into(),
        )),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
