//! The account's own pages: settings (name, time zone, mail for all its seats) and personal API
//! tokens (made, shown once, revoked).

use crate::domain::{PlayerName, TimeZoneName, TokenLabel};
use crate::notices::outbox::MailPref;
use crate::store::{Account, MAX_API_TOKENS};
use crate::web::accounts::session::SignedIn;
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

/// Zones offered as suggestions in the form (any IANA name is accepted).
const COMMON_ZONES: [&str; 12] = [
    "UTC",
    "Europe/London",
    "Europe/Paris",
    "Europe/Berlin",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "Australia/Sydney",
    "Pacific/Auckland",
];

#[derive(Template)]
#[template(path = "accounts/settings.html")]
struct SettingsPage {
    csrf: String,
    email: String,
    name: String,
    zone: String,
    zones: &'static [&'static str],
    prefs: Vec<(&'static str, &'static str, bool)>,
    /// The default of "play my forced moves" for the account's seats.
    play_forced: bool,
    saved: bool,
    error: Option<String>,
}

fn settings_page(
    account: &Account,
    play_forced: bool,
    csrf: String,
    saved: bool,
    error: Option<String>,
) -> SettingsPage {
    SettingsPage {
        play_forced,
        csrf,
        email: account.email.clone(),
        name: account.name.clone(),
        zone: account.time_zone.clone(),
        zones: &COMMON_ZONES,
        prefs: [
            ("every", "A message each time it is my turn"),
            ("digest", "At most one message a day"),
            ("off", "No mail"),
        ]
        .into_iter()
        .map(|(value, label)| (value, label, value == account.mail_pref))
        .collect(),
        saved,
        error,
    }
}

/// `GET /me/settings`.
pub async fn settings(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
) -> Result<HttpResponse, WebError> {
    let (csrf_token, cookie) = csrf::token_for(&req);
    let saved = req.query_string() == "saved";
    let play_forced = state.store.account_play_forced(who.0.id).await?;
    let mut response = html(
        StatusCode::OK,
        settings_page(&who.0, play_forced, csrf_token, saved, None),
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /me/settings`: saves all three or none; the mail preference goes to every seat.
pub async fn save_settings(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let parsed = (|| {
        let name = PlayerName::parse(field(&fields, "name").unwrap_or_default())
            .map_err(|e| format!("your name: {e}"))?;
        let zone = TimeZoneName::parse(field(&fields, "time_zone").unwrap_or_default())
            .map_err(|e| e.to_string())?;
        let pref = field(&fields, "mail_pref")
            .and_then(MailPref::parse)
            .ok_or("choose every turn, a daily digest or no mail")?;
        Ok::<_, String>((name, zone, pref))
    })();
    match parsed {
        Ok((name, zone, pref)) => {
            state
                .store
                .save_account_settings(who.0.id, &name, zone, pref.as_str())
                .await?;
            let play_forced = field(&fields, "play_forced") == Some("on");
            state
                .store
                .set_account_play_forced(who.0.id, play_forced)
                .await?;
            Ok(HttpResponse::SeeOther()
                .insert_header(("Location", "/me/settings?saved"))
                .finish())
        }
        Err(reason) => {
            // The form again as typed, to mend the one field (issue 47).
            let (csrf_token, _) = csrf::token_for(&req);
            let play_forced = field(&fields, "play_forced") == Some("on");
            let mut page = settings_page(&who.0, play_forced, csrf_token, false, Some(reason));
            page.name = field(&fields, "name").unwrap_or_default().to_string();
            page.zone = field(&fields, "time_zone").unwrap_or_default().to_string();
            let pref = field(&fields, "mail_pref").unwrap_or_default();
            for (value, _, chosen) in &mut page.prefs {
                *chosen = *value == pref;
            }
            html(StatusCode::BAD_REQUEST, page)
        }
    }
}

struct TokenRow {
    id: i64,
    label: String,
    made: String,
    used: String,
}

#[derive(Template)]
#[template(path = "accounts/api_tokens.html")]
struct TokensPage {
    csrf: String,
    tokens: Vec<TokenRow>,
    new_token: Option<String>,
    error: Option<String>,
    can_make: bool,
    max: i64,
}

async fn tokens_page(
    state: &AppState,
    account: &Account,
    csrf: String,
    new_token: Option<String>,
    error: Option<String>,
) -> Result<TokensPage, WebError> {
    let zone: chrono_tz::Tz = account.time_zone.parse().unwrap_or(chrono_tz::UTC);
    let when = |at: &chrono::DateTime<chrono::Utc>| {
        at.with_timezone(&zone)
            .format("%-d %b %Y, %H:%M %Z")
            .to_string()
    };
    let tokens: Vec<TokenRow> = state
        .store
        .api_tokens(account.id)
        .await?
        .into_iter()
        .map(|t| TokenRow {
            id: t.id,
            made: when(&t.created_at),
            used: t.last_used_at.as_ref().map_or("never".into(), when),
            label: t.label,
        })
        .collect();
    Ok(TokensPage {
        csrf,
        can_make: (tokens.len() as i64) < MAX_API_TOKENS,
        tokens,
        new_token,
        error,
        max: MAX_API_TOKENS,
    })
}

/// `GET /me/tokens`.
pub async fn tokens(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
) -> Result<HttpResponse, WebError> {
    let (csrf_token, cookie) = csrf::token_for(&req);
    let page = tokens_page(&state, &who.0, csrf_token, None, None).await?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /me/tokens`: makes a token and shows it once (409 past the bound).
pub async fn make_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let (csrf_token, _) = csrf::token_for(&req);
    let label = match TokenLabel::parse(field(&fields, "label").unwrap_or_default()) {
        Ok(label) => label,
        Err(e) => {
            let page = tokens_page(&state, &who.0, csrf_token, None, Some(e.to_string())).await?;
            return html(StatusCode::BAD_REQUEST, page);
        }
    };
    match state.store.create_api_token(who.0.id, &label).await? {
        Ok(token) => {
            let page = tokens_page(&state, &who.0, csrf_token, Some(token), None).await?;
            html(StatusCode::OK, page)
        }
        Err(_) => {
            let reason = format!(
                "an account holds at most {MAX_API_TOKENS} tokens: revoke one to make another"
            );
            let page = tokens_page(&state, &who.0, csrf_token, None, Some(reason)).await?;
            html(StatusCode::CONFLICT, page)
        }
    }
}

/// `POST /me/tokens/{id}/revoke`: the token stops working at once.
pub async fn revoke_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    if !state.store.revoke_api_token(who.0.id, *id).await? {
        return Err(WebError::NotFound);
    }
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", "/me/tokens"))
        .finish())
}
