//! Signing in by a mailed link, and signing out. Asking for a link answers the same whether an
//! account exists or not; opening the link shows a button (mail scanners fetch links, so a GET
//! must not sign in); pressing it uses the link once, drops the session the browser came with
//! and starts a new one (no session fixation).

use super::client::client_addr;
use super::pages::{field, html, parse_form};
use super::session::{self, MaybeSignedIn, SignedIn};
use super::{AppState, WebError, csrf};
use crate::domain::{EmailAddress, LocalPath, PlayerName};
use crate::mail::sign_in::queue_sign_in;
use crate::store::{LinkProblem, SIGN_IN_MINUTES};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

#[derive(Template)]
#[template(path = "signin.html")]
struct SignInForm {
    csrf: String,
    next: String,
    email: String,
    error: Option<String>,
    signed_in_as: Option<String>,
    minutes: i64,
}

#[derive(Template)]
#[template(path = "signin_sent.html")]
struct SignInSent {
    email: String,
    next_encoded: String,
    minutes: i64,
}

#[derive(Template)]
#[template(path = "signin_confirm.html")]
struct SignInConfirm {
    csrf: String,
    token: String,
    email: String,
    new_account: bool,
    name: String,
    error: Option<String>,
}

/// The `next` of a query string, if it is a path of this site.
fn next_of(req: &HttpRequest) -> LocalPath {
    let next = form_urlencoded::parse(req.query_string().as_bytes())
        .find(|(k, _)| k == "next")
        .map(|(_, v)| v.into_owned());
    LocalPath::or_home(next.as_deref())
}

/// `GET /signin`: the form asking for an address.
pub async fn form(req: HttpRequest, who: MaybeSignedIn) -> Result<HttpResponse, WebError> {
    let (csrf_token, cookie) = csrf::token_for(&req);
    let mut response = html(
        StatusCode::OK,
        SignInForm {
            csrf: csrf_token,
            next: next_of(&req).as_str().to_string(),
            email: String::new(),
            error: None,
            signed_in_as: who.0.map(|a| a.name),
            minutes: SIGN_IN_MINUTES,
        },
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /signin`: mails a sign-in link to the address (at its pace, within the client's
/// limit), and answers in the same words whether the address has an account or not and
/// whether a mail went out now or one went lately.
pub async fn ask(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let next = LocalPath::or_home(field(&fields, "next"));
    let typed = field(&fields, "email").unwrap_or_default();
    let email = match EmailAddress::parse(typed) {
        Ok(email) => email,
        Err(e) => {
            let (csrf_token, _) = csrf::token_for(&req);
            return html(
                StatusCode::BAD_REQUEST,
                SignInForm {
                    csrf: csrf_token,
                    next: next.as_str().to_string(),
                    email: typed.chars().take(254).collect(),
                    error: Some(e.to_string()),
                    signed_in_as: None,
                    minutes: SIGN_IN_MINUTES,
                },
            );
        }
    };
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    state
        .limits
        .sign_in_by_client(client)
        .map_err(WebError::TooMany)?;
    // Past the address's own pace no mail goes out, and the answer is the same: whoever asks
    // learns neither whether the address is known nor whether a mail went now.
    if let Err(paced) = queue_sign_in(state.store.pool(), &email, &next, state.store.now()).await? {
        tracing::info!(
            next_in_secs = paced.retry_after.num_seconds(),
            "sign-in link not mailed: the address had its links lately"
        );
    }
    html(
        StatusCode::OK,
        SignInSent {
            email: email.to_string(),
            next_encoded: form_urlencoded::byte_serialize(next.as_str().as_bytes()).collect(),
            minutes: SIGN_IN_MINUTES,
        },
    )
}

/// The error a link that signs nobody in answers with.
fn problem(p: LinkProblem) -> WebError {
    match p {
        LinkProblem::Unknown => WebError::NotFound,
        LinkProblem::Used => WebError::Gone(
            "this sign-in link was used already: each works once. Ask for a new one at /signin"
                .into(),
        ),
        LinkProblem::Expired => WebError::Gone(format!(
            "this sign-in link has expired (they last {SIGN_IN_MINUTES} minutes). Ask for a new one at /signin"
        )),
    }
}

/// `GET /signin/{token}`: who the link signs in, and the button that does it.
pub async fn confirm(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let pending = state
        .store
        .pending_sign_in(&token)
        .await?
        .map_err(problem)?;
    let (csrf_token, cookie) = csrf::token_for(&req);
    let mut response = html(
        StatusCode::OK,
        SignInConfirm {
            csrf: csrf_token,
            token: token.into_inner(),
            email: pending.email,
            new_account: pending.account.is_none(),
            name: pending.suggested_name,
            error: None,
        },
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /signin/{token}`: uses the link, ends the browser's old session, starts a new one and
/// goes where the person was going.
pub async fn sign_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let name = match field(&fields, "name").filter(|n| !n.trim().is_empty()) {
        None => None,
        Some(typed) => match PlayerName::parse(typed) {
            Ok(name) => Some(name),
            Err(e) => {
                let pending = state
                    .store
                    .pending_sign_in(&token)
                    .await?
                    .map_err(problem)?;
                let (csrf_token, _) = csrf::token_for(&req);
                return html(
                    StatusCode::BAD_REQUEST,
                    SignInConfirm {
                        csrf: csrf_token,
                        token: token.into_inner(),
                        email: pending.email,
                        new_account: pending.account.is_none(),
                        name: typed.chars().take(80).collect(),
                        error: Some(e.to_string()),
                    },
                );
            }
        },
    };
    let (account, next) = state
        .store
        .use_sign_in_link(&token, name.as_ref())
        .await?
        .map_err(problem)?;
    if let Some(old) = session::token(&req) {
        state.store.end_session(&old).await?;
    }
    let fresh = state.store.start_session(account.id).await?;
    let mut response = HttpResponse::SeeOther()
        .insert_header(("Location", next.as_str().to_string()))
        .finish();
    response
        .add_cookie(&session::cookie(&fresh, state.secure_cookies))
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// A redirect home that removes the session cookie.
fn signed_out(secure: bool) -> Result<HttpResponse, WebError> {
    let mut response = HttpResponse::SeeOther()
        .insert_header(("Location", "/"))
        .finish();
    response
        .add_cookie(&session::removal(secure))
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// `POST /signout`: ends this browser's session.
pub async fn sign_out(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    if let Some(token) = session::token(&req) {
        state.store.end_session(&token).await?;
    }
    signed_out(state.secure_cookies)
}

/// `POST /signout/everywhere`: ends every session of the account (API tokens stay).
pub async fn sign_out_everywhere(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    state.store.end_all_sessions(who.0.id).await?;
    signed_out(state.secure_cookies)
}
