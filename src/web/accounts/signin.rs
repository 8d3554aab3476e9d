//! Signing in by a mailed link, and signing out. Asking for a link answers the same whether an
//! account exists or not; opening the link shows a button (mail scanners fetch links, so a GET
//! must not sign in); pressing it uses the link once, drops the session the browser came with
//! and starts a new one (no session fixation), and marks the browser as one that signed in as
//! the address, which then has its own allowance of links (docs/ACCOUNTS.md).

use crate::domain::{EmailAddress, LocalPath, PlayerName};
use crate::notices::sign_in::queue_sign_in;
use crate::store::{DEVICE_DAYS, LinkProblem, SIGN_IN_MINUTES, TooManyLinks};
use crate::time::in_words;
use crate::web::accounts::session::{self, MaybeSignedIn, SignedIn};
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::cookie::{Cookie, SameSite, time};
use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Duration, Timelike, Utc};

#[derive(Template)]
#[template(path = "accounts/signin/form.html")]
struct SignInForm {
    csrf: String,
    next: String,
    email: String,
    error: Option<String>,
    signed_in_as: Option<String>,
    minutes: i64,
}

#[derive(Template)]
#[template(path = "accounts/signin/sent.html")]
struct SignInSent {
    email: String,
    next_encoded: String,
    minutes: i64,
    paced: Option<Paced>,
}

/// Why no link went now, in a person's words.
struct Paced {
    /// When the last link went ("13:50 UTC").
    last_sent: String,
    /// How long ago that was.
    ago: String,
    /// When to ask again ("14:05 UTC").
    next_at: String,
    /// How long until then.
    wait: String,
    /// Whether the asking browser's own allowance is the one spent.
    device: bool,
}

impl Paced {
    fn of(paced: &TooManyLinks, now: DateTime<Utc>) -> Paced {
        let clock = |at: DateTime<Utc>| at.format("%H:%M UTC").to_string();
        // Rounded up, so "ask again at" is never a minute too early.
        let next_at = paced.next_at + Duration::seconds(59);
        Paced {
            last_sent: clock(paced.last_sent),
            ago: if now - paced.last_sent < Duration::minutes(1) {
                "less than a minute".into()
            } else {
                in_words(now - paced.last_sent)
            },
            next_at: clock(next_at - Duration::seconds(i64::from(next_at.second()))),
            wait: in_words(paced.retry_after + Duration::seconds(59)),
            device: paced.device,
        }
    }
}

/// The cookie by which a browser that signed in before is known when it asks for a link (its
/// own allowance, docs/ACCOUNTS.md): sent to the sign-in pages only.
pub const DEVICE_COOKIE: &str = "pp_device";

fn device_cookie(token: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(DEVICE_COOKIE, token.to_string())
        .path("/signin")
        .http_only(true)
        .secure(secure)
        .same_site(SameSite::Lax)
        .max_age(time::Duration::days(DEVICE_DAYS))
        .finish()
}

#[derive(Template)]
#[template(path = "accounts/signin/confirm.html")]
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
/// limit), and answers in the same words whether the address has an account or not. Past the
/// pace (of the address's anonymous allowance, or of this browser's own when it signed in as
/// the address before) no mail goes, and the answer says when the last went and when to ask
/// again (429).
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
    // The pace is the address's whatever it is, so the answer tells nothing of an account.
    let device = req.cookie(DEVICE_COOKIE).map(|c| c.value().to_string());
    let now = state.store.now();
    let sent = queue_sign_in(state.store.pool(), &email, &next, now, device.as_deref()).await?;
    let paced = sent.err();
    if let Some(paced) = &paced {
        tracing::info!(
            next_in_secs = paced.retry_after.num_seconds(),
            device = paced.device,
            "sign-in link not mailed: the allowance had its links lately"
        );
    }
    let mut response = html(
        if paced.is_some() {
            StatusCode::TOO_MANY_REQUESTS
        } else {
            StatusCode::OK
        },
        SignInSent {
            email: email.to_string(),
            next_encoded: form_urlencoded::byte_serialize(next.as_str().as_bytes()).collect(),
            minutes: SIGN_IN_MINUTES,
            paced: paced.as_ref().map(|p| Paced::of(p, now)),
        },
    )?;
    if let Some(paced) = paced {
        let seconds = paced.retry_after.num_seconds().max(1);
        response.headers_mut().insert(
            header::RETRY_AFTER,
            header::HeaderValue::from(seconds as u64),
        );
    }
    Ok(response)
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
    let carried = req.cookie(DEVICE_COOKIE).map(|c| c.value().to_string());
    let device = state
        .store
        .remember_device(&account.email, carried.as_deref())
        .await?;
    let mut response = HttpResponse::SeeOther()
        .insert_header(("Location", next.as_str().to_string()))
        .finish();
    for cookie in [
        session::cookie(&fresh, state.secure_cookies),
        device_cookie(&device, state.secure_cookies),
    ] {
        response
            .add_cookie(&cookie)
            .map_err(|e| WebError::Internal(e.to_string()))?;
    }
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
