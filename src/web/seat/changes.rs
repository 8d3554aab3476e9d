//! Seats change hands in the open (DESIGN.md "Seats change hands in the open"): the lines every
//! player's page and the game's log show of who changed a seat's hands and when, and the page
//! the previous address reaches from its mail (`/seat-change/{token}`), where it writes to the
//! other players and, within a day of an address change, takes the seat back.

use crate::domain::{EmailAddress, MessageText, masked};
use crate::games::find_game;
use crate::notices::invite::{InviteError, change_address_in};
use crate::store::{Author, ChangeLink, Changer, PostError, SeatChange};
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Duration, Utc};

/// How long a change stays marked as recent on the players' pages.
const RECENT_DAYS: i64 = 7;

/// One change as a page shows it.
pub struct ChangeLine {
    /// "Fri 27 Nov, 21:05 UTC".
    pub when: String,
    /// The change in a sentence.
    pub text: String,
    /// Made within the last week.
    pub recent: bool,
}

fn when(at: &DateTime<Utc>) -> String {
    at.format("%a %-d %b %Y, %H:%M UTC").to_string()
}

/// The game's changes of hands as lines, newest first, the seats named by `names`.
pub fn change_lines(
    changes: &[SeatChange],
    names: &[String],
    now: DateTime<Utc>,
) -> Vec<ChangeLine> {
    changes
        .iter()
        .map(|c| {
            let name = names
                .get(c.seat)
                .cloned()
                .unwrap_or_else(|| format!("seat {}", c.seat + 1));
            ChangeLine {
                when: when(&c.at),
                text: c.sentence(&name),
                recent: now - c.at < Duration::days(RECENT_DAYS),
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "seat/change.html")]
struct ChangePage {
    game: String,
    name: String,
    what: String,
    when: String,
    token: String,
    csrf: String,
    public: String,
    previous: String,
    reclaim_until: Option<String>,
    reclaimed: Option<String>,
    messages_left: i32,
    text: String,
    note: Option<&'static str>,
    error: Option<String>,
}

/// What a form on the page just did.
#[derive(serde::Deserialize)]
pub struct Done {
    done: Option<String>,
}

async fn page(
    req: &HttpRequest,
    state: &AppState,
    token: &str,
    status: StatusCode,
    note: Option<&'static str>,
    error: Option<String>,
    text: String,
) -> Result<HttpResponse, WebError> {
    let link: ChangeLink = state
        .store
        .change_link(token)
        .await?
        .ok_or(WebError::NotFound)?;
    let row = state
        .store
        .game(link.game_id)
        .await?
        .ok_or(WebError::NotFound)?;
    let game_name = find_game(&row.kind).map_or(row.kind.clone(), |g| g.name().to_string());
    let public = crate::web::public::game::public_of(state, link.game_id)
        .await?
        .base;
    let (csrf_token, cookie) = csrf::token_for(req);
    let over = row.status == "over";
    let mut response = html(
        status,
        ChangePage {
            game: format!("{game_name} #{}", link.game_id),
            name: link.seat_name.clone(),
            what: link.change.sentence(&link.seat_name),
            when: when(&link.change.at),
            token: token.to_string(),
            csrf: csrf_token,
            public,
            previous: masked(&link.previous),
            reclaim_until: link
                .reclaim_until
                .filter(|_| link.reclaimed_at.is_none() && !over)
                .map(|t| when(&t)),
            reclaimed: link.reclaimed_at.map(|t| when(&t)),
            messages_left: link.messages_left.max(0),
            text,
            note,
            error,
        },
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `GET /seat-change/{token}`: what changed, and what its previous address can do. Opening it
/// changes nothing.
pub async fn show(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    done: web::Query<Done>,
) -> Result<HttpResponse, WebError> {
    let note = match done.done.as_deref() {
        Some("reclaimed") => Some(
            "The seat is yours again: its new private link was mailed to you, and every player \
             sees that you took it back.",
        ),
        Some("message") => Some("Your message is in the game's thread: every player reads it."),
        _ => None,
    };
    page(
        &req,
        &state,
        &token,
        StatusCode::OK,
        note,
        None,
        String::new(),
    )
    .await
}

fn see(token: &str, done: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header(("Location", format!("/seat-change/{token}?done={done}")))
        .finish()
}

/// `POST /seat-change/{token}/reclaim`: gives the seat back the address it had before the
/// change, within a day of it; the new link goes there and every link given since ends.
pub async fn reclaim(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    csrf::check(&req, field(&parse_form(&body)?, "csrf"))?;
    let mut tx = state.store.pool().begin().await?;
    let (game_id, seat, previous) = match state.store.reclaim_in(&mut tx, &token).await? {
        Ok(found) => found,
        Err(crate::store::ReclaimRefused::Unknown) => return Err(WebError::NotFound),
        Err(refused) => {
            drop(tx);
            let error = Some(refused.to_string());
            return page(
                &req,
                &state,
                &token,
                StatusCode::CONFLICT,
                None,
                error,
                String::new(),
            )
            .await;
        }
    };
    let previous = EmailAddress::parse(&previous)
        .map_err(|e| WebError::Internal(format!("a stored address does not parse: {e}")))?;
    let loaded = state.store.load(game_id).await?;
    let outcome = change_address_in(
        &mut tx,
        &state.store,
        &loaded.row,
        loaded.game.as_ref(),
        seat,
        &previous,
        &Changer::PreviousAddress,
    )
    .await;
    let refused = match outcome {
        Ok(_) => {
            tx.commit().await?;
            tracing::info!(
                game = game_id,
                seat,
                "seat taken back by its previous address"
            );
            return Ok(see(&token, "reclaimed"));
        }
        Err(InviteError::SameAddress) => "the seat already goes to your address",
        Err(InviteError::Over) => "the game is over",
        Err(e) => return Err(WebError::Internal(e.to_string())),
    };
    drop(tx);
    let error = Some(refused.to_string());
    page(
        &req,
        &state,
        &token,
        StatusCode::CONFLICT,
        None,
        error,
        String::new(),
    )
    .await
}

/// `POST /seat-change/{token}/message` with `text`: a message to the game's thread from the
/// seat's previous address (a few per change), which every player reads.
pub async fn message(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let typed = field(&fields, "text").unwrap_or("").to_string();
    let text = match MessageText::parse(&typed) {
        Ok(text) => text,
        Err(e) => {
            let error = Some(format!("your message: {e}"));
            return page(
                &req,
                &state,
                &token,
                StatusCode::BAD_REQUEST,
                None,
                error,
                typed,
            )
            .await;
        }
    };
    let Some((game_id, seat)) = state.store.take_change_message(&token).await? else {
        if state.store.change_link(&token).await?.is_none() {
            return Err(WebError::NotFound);
        }
        let error = Some(format!(
            "this link has written its {} messages",
            crate::store::MESSAGES_PER_CHANGE
        ));
        return page(
            &req,
            &state,
            &token,
            StatusCode::TOO_MANY_REQUESTS,
            None,
            error,
            typed,
        )
        .await;
    };
    match state
        .store
        .post_message(game_id, Author::Former(seat), "", &text)
        .await
    {
        Ok(_) => Ok(see(&token, "message")),
        Err(e) => {
            state.store.give_back_change_message(&token).await?;
            let status = match e {
                PostError::Db(e) => return Err(e.into()),
                PostError::NotFound => return Err(WebError::NotFound),
                PostError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
                PostError::Closed(_) | PostError::Effect(_) => StatusCode::CONFLICT,
            };
            page(
                &req,
                &state,
                &token,
                status,
                None,
                Some(e.to_string()),
                typed,
            )
            .await
        }
    }
}
