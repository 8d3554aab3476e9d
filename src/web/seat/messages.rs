//! A game's message thread on the web: shown beside the board (seat page and public page), in
//! the replay at the step it was written, on the whole log and the organiser's desk; written by
//! a seat-link holder, by a signed-in account that owns a seat (as that seat), and by a
//! signed-in spectator where the creator allowed it. Every form POST checks CSRF; the JSON API
//! is under the seat's token like the other `/api/play/{token}` routes.

use crate::domain::MessageText;
use crate::store::{Author, Message, PostError};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::http::csrf;
use crate::web::http::limits::Limited;
use crate::web::http::page::{field, parse_form};
use crate::web::seat::page::seat_of;
use crate::web::{AppState, WebError};
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use serde_json::json;

/// A message as pages show it: a hidden one says who hid it and when, without its text.
pub struct ThreadLine {
    /// The message's id (the desk's hide button names it).
    pub id: i64,
    /// The author's display name when written.
    pub author: String,
    /// True when a spectator (no seat) wrote it.
    pub spectator: bool,
    /// True when a seat's previous address wrote it: nobody may hide it.
    pub former: bool,
    /// "Tue 24 Nov, 10:04 UTC".
    pub when: String,
    /// The move after which it was written.
    pub head: i64,
    /// The text; `None` once hidden.
    pub text: Option<String>,
    /// "hidden by the organiser on Tue 24 Nov, 11:00 UTC", when hidden.
    pub hidden: Option<String>,
    /// The seat that wrote it, if a player did.
    pub seat: Option<usize>,
    /// True on the page of the seat that wrote it: its writer may hide it.
    pub mine: bool,
}

fn when(at: &DateTime<Utc>) -> String {
    at.format("%a %-d %b, %H:%M UTC").to_string()
}

/// The lines of a thread for a page.
pub fn thread_lines(messages: &[Message]) -> Vec<ThreadLine> {
    messages
        .iter()
        .map(|m| ThreadLine {
            id: m.id,
            author: m.author.clone(),
            spectator: m.seat.is_none() && m.former_seat.is_none(),
            former: m.former_seat.is_some(),
            when: when(&m.at),
            head: m.head,
            text: m.visible_text().map(str::to_string),
            hidden: m
                .hidden
                .as_ref()
                .map(|(at, by)| format!("a message hidden by the {by} on {}", when(at))),
            seat: m.seat,
            mine: false,
        })
        .collect()
}

/// What a page's thread panel shows besides the messages: the form's action, or why the
/// reader cannot write.
pub struct ThreadPanel {
    /// The messages, oldest first.
    pub lines: Vec<ThreadLine>,
    /// Where the form posts, when the reader may write.
    pub action: Option<String>,
    /// Why there is no form.
    pub note: Option<String>,
    /// False when the reader may not read this game's messages at all.
    pub readable: bool,
    /// On a seat's page, where its own messages' hide buttons post (`…/messages`).
    pub hide_action: Option<String>,
    /// A message that was refused, shown again in the form to send later.
    pub draft: String,
    /// Why it was refused, and when it may be sent.
    pub draft_refused: Option<String>,
}

impl ThreadPanel {
    /// The panel for a reader who may not read the thread.
    pub fn closed() -> ThreadPanel {
        ThreadPanel {
            lines: Vec::new(),
            action: None,
            note: Some(CLOSED_TO_SPECTATORS.into()),
            readable: false,
            hide_action: None,
            draft: String::new(),
            draft_refused: None,
        }
    }
}

/// Why a spectator sees no messages.
const CLOSED_TO_SPECTATORS: &str = "The players' messages are for the players: the game's creator did not open messages to spectators.";

/// Whether a reader of the game's public pages (replay, whole log, export) may read its
/// messages: anyone where the creator opened them to spectators, else a signed-in player.
pub async fn reads_thread(
    state: &AppState,
    game_id: i64,
    account: Option<&crate::store::Account>,
) -> Result<bool, WebError> {
    if state.store.spectators_may_write(game_id).await? {
        return Ok(true);
    }
    Ok(match account {
        Some(account) => state.store.owned_seat(game_id, account.id).await?.is_some(),
        None => false,
    })
}

/// Who the public page's reader may write as: their seat, a spectator, or (`Err`) why not.
pub async fn public_writer(
    state: &AppState,
    game_id: i64,
    account: Option<&crate::store::Account>,
) -> Result<Result<Author, String>, WebError> {
    let Some(account) = account else {
        return Ok(Err(
            "Players write from their seat's page; sign in to write here.".into(),
        ));
    };
    if let Some(seat) = state.store.owned_seat(game_id, account.id).await? {
        return Ok(Ok(Author::Seat(seat)));
    }
    if state.store.spectators_may_write(game_id).await? {
        Ok(Ok(Author::Spectator(account.id)))
    } else {
        Ok(Err(
            "Only the players write in this game: its creator did not open messages to spectators."
                .into(),
        ))
    }
}

fn refused(e: PostError) -> WebError {
    match e {
        PostError::NotFound => WebError::NotFound,
        PostError::Closed(m) => WebError::Conflict(m),
        PostError::TooMany { retry_after, .. } => WebError::TooMany(Limited {
            what: "write messages",
            retry_after: retry_after.to_std().unwrap_or_default(),
        }),
        PostError::Effect(m) => WebError::Conflict(m),
        PostError::Db(e) => e.into(),
    }
}

async fn post(
    state: &AppState,
    game_id: i64,
    author: Author,
    spectator_name: &str,
    text: &str,
) -> Result<Message, WebError> {
    let text = MessageText::parse(text).map_err(|e| WebError::BadRequest(e.to_string()))?;
    state
        .store
        .post_message(game_id, author, spectator_name, &text)
        .await
        .map_err(refused)
}

fn back_to(location: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header(("Location", format!("{location}#messages")))
        .finish()
}

/// `POST /play/{token}/messages` (`text`, `csrf`): a message from the seat; 303 back to its
/// page.
pub async fn post_as_seat(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = seat_of(&state, &token).await?;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let text = field(&fields, "text").unwrap_or("");
    match post(&state, id, Author::Seat(seat), "", text).await {
        Ok(_) => Ok(back_to(format!("/play/{token}"))),
        // A message refused (too long, too many, the game over) is shown again to be sent
        // later, never lost.
        Err(e @ (WebError::BadRequest(_) | WebError::TooMany(_) | WebError::Conflict(_))) => {
            crate::web::seat::page::refused_message(&req, &state, &token, text, &e).await
        }
        Err(e) => Err(e),
    }
}

/// `POST /play/{token}/messages/{message}/hide`: the seat hides a message it wrote; it stays
/// stored, marked hidden by its writer, and is shown, mailed and exported no more.
pub async fn hide_own(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (token, message) = path.into_inner();
    let (id, seat) = seat_of(&state, &token).await?;
    csrf::check(&req, field(&parse_form(&body)?, "csrf"))?;
    if !state.store.hide_own_message(id, message, seat).await? {
        return Err(WebError::NotFound);
    }
    tracing::info!(game = id, message, "message hidden by its writer");
    Ok(back_to(format!("/play/{token}")))
}

/// `POST /games/{id}/messages` (or `/watch/{token}/messages`; `text`, `csrf`): a message from the signed-in account, as its
/// seat if it owns one, else as a spectator where the creator allowed it; 303 back to the
/// public page.
pub async fn post_signed_in(
    req: HttpRequest,
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
    who: MaybeSignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    // The game first, then the reader: a game the reader may not reach answers 404 whether
    // they are signed in or not (extractors finish in no fixed order).
    let account = who.0.ok_or(WebError::Unauthorized)?;
    let id = public.id;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let author = public_writer(&state, id, Some(&account))
        .await?
        .map_err(WebError::Forbidden)?;
    post(
        &state,
        id,
        author,
        &account.name,
        field(&fields, "text").unwrap_or(""),
    )
    .await?;
    Ok(back_to(public.base))
}

/// A message in the JSON API (a hidden one without its text).
fn message_json(m: &Message) -> serde_json::Value {
    json!({
        "id": m.id,
        "seat": m.seat,
        "author": m.author,
        "at": crate::store::chain_time(&m.at),
        "after_move": m.head,
        "text": m.visible_text(),
        "hidden": m.hidden.is_some(),
    })
}

/// `GET /api/play/{token}/messages`: the game's thread, oldest first.
pub async fn api_list(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let (id, _) = state
        .store
        .seat_by_token(&token)
        .await?
        .ok_or(WebError::Unauthorized)?;
    let messages = state.store.messages(id).await?;
    Ok(HttpResponse::Ok().json(json!({
        "game": id,
        "messages": messages.iter().map(message_json).collect::<Vec<_>>(),
    })))
}

/// The body of a message sent through the API.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NewMessage {
    text: String,
}

/// `POST /api/play/{token}/messages` (`{"text": "…"}`): a message from the seat; 201 with it.
pub async fn api_post(
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = state
        .store
        .seat_by_token(&token)
        .await?
        .ok_or(WebError::Unauthorized)?;
    let new: NewMessage = crate::web::api::json::from_body(&body)
        .map_err(|e| WebError::BadRequest(format!("expected {{\"text\": \"…\"}}: {e}")))?;
    let message = post(&state, id, Author::Seat(seat), "", &new.text).await?;
    Ok(HttpResponse::Created().json(message_json(&message)))
}
