//! The JSON API, for bots and other clients: the same token as the play link, in
//! `Authorization: Bearer` (`/api/games/{id}/…`) or in the path (`/api/play/{token}/…`).
//!
//! Status codes: 200/201 fine; 400 malformed; 401 no or unknown token; 403 a token of another
//! game, or not this seat's turn; 404 unknown game; 409 someone moved first (or a stale
//! `expected_seq`); 422 an illegal move, with the rule's reason.

use crate::web::http::get;
pub(in crate::web) mod json;

use crate::engine::{RuleError, Seat, Viewer};
use crate::store::{Mover, SubmitError};
use crate::web::{AppState, WebError};
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

/// The token in `Authorization: Bearer`, if any.
pub(in crate::web) fn bearer(req: &HttpRequest) -> Option<&str> {
    req.headers()
        .get("Authorization")?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// The seat a token holds in game `id`: 401 for no or an unknown token, 403 for another game's.
async fn seat_in(state: &AppState, id: i64, token: Option<&str>) -> Result<Option<Seat>, WebError> {
    let Some(token) = token else { return Ok(None) };
    match state.store.seat_by_token(token).await? {
        Some((game, seat)) if game == id => Ok(Some(seat)),
        Some(_) => Err(WebError::Forbidden(
            "this token belongs to another game".into(),
        )),
        None => Err(WebError::Unauthorized),
    }
}

/// 404 unless the request may reach the game by its id (an unlisted game answers no
/// id-keyed route; a private club's game answers its members and its seats only).
async fn game_exists(req: &HttpRequest, state: &AppState, id: i64) -> Result<(), WebError> {
    if crate::web::public::game::may_reach(req, state, id).await? {
        Ok(())
    } else {
        Err(WebError::NotFound)
    }
}

/// The seat the bearer holds in game `id`. A seat's holder may always reach its game, so its
/// token is read first and the game's gate only when it is not one of the game's: then, as
/// before, 404 for a game the request may not reach, else 401 (no or an unknown token) or 403
/// (another game's).
async fn bearer_seat(req: &HttpRequest, state: &AppState, id: i64) -> Result<Seat, WebError> {
    let token = bearer(req);
    let held = match token {
        Some(token) => state.store.seat_by_token(token).await?,
        None => None,
    };
    match held {
        Some((game, seat)) if game == id => Ok(seat),
        Some(_) => {
            game_exists(req, state, id).await?;
            Err(WebError::Forbidden(
                "this token belongs to another game".into(),
            ))
        }
        None => {
            game_exists(req, state, id).await?;
            Err(WebError::Unauthorized)
        }
    }
}

async fn view(state: &AppState, id: i64, seat: Option<Seat>) -> Result<HttpResponse, WebError> {
    let loaded = state.store.load(id).await?;
    let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
    let (clock, deadlines) = crate::clock::deadlines(&state.store, id).await?;
    let names: Vec<String> = state
        .store
        .seats(id)
        .await?
        .into_iter()
        .map(|s| s.name)
        .collect();
    let seat_changes: Vec<serde_json::Value> = state
        .store
        .seat_changes(id)
        .await?
        .iter()
        .map(|c| {
            let name = names.get(c.seat).map_or("", String::as_str);
            json!({"seat": c.seat, "kind": c.kind.name(), "at": c.at, "text": c.sentence(name)})
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({
        "clock": clock.describe(),
        "seat_changes": seat_changes,
        "deadlines": deadlines,
        "game": id,
        "kind": loaded.row.kind,
        "seq": loaded.row.head_seq,
        "status": loaded.row.status,
        "active": loaded.game.active(),
        "view": loaded.game.view(viewer),
        "outcome": loaded.game.outcome(),
    })))
}

async fn choices(state: &AppState, id: i64, seat: Seat) -> Result<HttpResponse, WebError> {
    let loaded = state.store.load(id).await?;
    Ok(HttpResponse::Ok().json(json!({
        "seq": loaded.row.head_seq,
        "seat": seat,
        "choices": loaded.game.choices(seat),
        "can_undo": loaded.game.can_undo(seat),
    })))
}

/// The body of a command submission.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Submission {
    /// The move; absent when `undo` is set.
    #[serde(default)]
    command: Option<Value>,
    /// Take back the seat's last move instead ([`crate::engine::Match::undo`]).
    #[serde(default)]
    undo: bool,
    #[serde(default)]
    expected_seq: Option<i64>,
}

/// A submission's request, once its body has parsed.
enum Request {
    Command(Value),
    Undo,
}

/// Parses a submission's body: 400 with what was expected.
fn parse_submission(body: &[u8]) -> Result<(Request, Option<i64>), WebError> {
    let submission: Submission = crate::web::api::json::from_body(body).map_err(|e| {
        WebError::BadRequest(format!(
            "expected {{\"command\": …, \"expected_seq\": n}} or {{\"undo\": true, \"expected_seq\": n}}: {e}"
        ))
    })?;
    let request = match (submission.command, submission.undo) {
        (Some(command), false) => Request::Command(command),
        (None, true) => Request::Undo,
        _ => {
            return Err(WebError::BadRequest(
                "send either a command or \"undo\": true".into(),
            ));
        }
    };
    Ok((request, submission.expected_seq))
}

/// Makes the move or undo for `mover`, with the store's answer as it stands.
async fn play(
    state: &AppState,
    id: i64,
    mover: Mover<'_>,
    (request, expected): &(Request, Option<i64>),
) -> Result<i64, SubmitError> {
    match request {
        Request::Command(command) => state.store.submit_as(id, mover, command, *expected).await,
        Request::Undo => state.store.undo_as(id, mover, *expected).await,
    }
}

/// The answer to a submission the store has answered.
fn answer(submitted: Result<i64, SubmitError>) -> Result<HttpResponse, WebError> {
    match submitted {
        Ok(seq) => Ok(HttpResponse::Created().json(json!({"seq": seq}))),
        Err(SubmitError::NotFound) => Err(WebError::NotFound),
        Err(SubmitError::Conflict { head }) => Ok(HttpResponse::Conflict().json(json!({
            "error": format!("the game has moved on (now at move {head}): reload and decide again"),
            "seq": head,
        }))),
        Err(SubmitError::Malformed(m)) => Err(WebError::BadRequest(format!(
            "not a command of this game: {m}"
        ))),
        Err(SubmitError::TooLarge(m)) => Err(WebError::TooLarge(m)),
        Err(SubmitError::Refused(m)) => Err(WebError::Forbidden(m)),
        Err(SubmitError::Rule(RuleError::NotYourTurn)) => {
            Err(WebError::Forbidden("it is not your turn".into()))
        }
        Err(SubmitError::Rule(RuleError::Illegal(reason))) => {
            Ok(HttpResponse::UnprocessableEntity().json(json!({"error": reason})))
        }
        Err(e) => Err(e.into()),
    }
}

/// `GET /api/games/{id}/view` (or `/api/watch/{token}/view`): the bearer's view, or the
/// public one without a token.
pub async fn view_by_id(
    req: HttpRequest,
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
) -> Result<HttpResponse, WebError> {
    let seat = seat_in(&state, public.id, bearer(&req)).await?;
    view(&state, public.id, seat).await
}

/// `GET /api/games/{id}/choices`: the bearer's choices.
pub async fn choices_by_id(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let seat = bearer_seat(&req, &state, *id).await?;
    choices(&state, *id, seat).await
}

/// `POST /api/games/{id}/commands`: a move for the bearer's seat.
pub async fn submit_by_id(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let id = *id;
    let parsed = parse_submission(&body);
    // The bearer's seat is found in the move's own read. A token that opens no seat of this
    // game, or a body that does not parse, gets the answers it always got, in their order:
    // 404 for a game the request may not reach, 401 or 403, then 400.
    if let (Some(token), Ok(request)) = (bearer(&req), &parsed) {
        match play(&state, id, Mover::Holder(token), request).await {
            Err(SubmitError::NotHolder) => {}
            submitted => return answer(submitted),
        }
    }
    let seat = bearer_seat(&req, &state, id).await?;
    answer(play(&state, id, Mover::Seat(seat), &parsed?).await)
}

async fn by_token(state: &AppState, token: &str) -> Result<(i64, Seat), WebError> {
    state
        .store
        .seat_by_token(token)
        .await?
        .ok_or(WebError::Unauthorized)
}

/// `GET /api/play/{token}/view`.
pub async fn view_by_token(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = by_token(&state, &token).await?;
    view(&state, id, Some(seat)).await
}

/// `GET /api/play/{token}/choices`.
pub async fn choices_by_token(
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = by_token(&state, &token).await?;
    choices(&state, id, seat).await
}

/// `POST /api/play/{token}/commands`.
pub async fn submit_by_token(
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = by_token(&state, &token).await?;
    answer(play(&state, id, Mover::Seat(seat), &parse_submission(&body)?).await)
}

/// `GET /api/games/{id}/export` (or `/api/watch/{token}/export`): the record. While the game runs, as the bearer's seat (or a
/// spectator, without a token) may see it: no seed, others' hidden commands in their public
/// form; once it is over, everything.
pub async fn export(
    req: HttpRequest,
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
) -> Result<HttpResponse, WebError> {
    let id = public.id;
    let seat = seat_in(&state, id, bearer(&req)).await?;
    let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
    let mut record = state.store.export(id, viewer).await?;
    if seat.is_none() && !state.store.spectators_may_write(id).await? {
        // The players' messages are theirs unless the creator opened them to spectators.
        record.messages.clear();
    }
    Ok(HttpResponse::Ok().json(record))
}

/// Registers this capability's routes.
pub(in crate::web) fn routes(cfg: &mut actix_web::web::ServiceConfig) {
    cfg.route("/api/games/{id}/view", get().to(view_by_id))
        .route("/api/games/{id}/choices", get().to(choices_by_id))
        .route("/api/games/{id}/commands", web::post().to(submit_by_id))
        .route("/api/games/{id}/export", get().to(export))
        .route("/api/watch/{watch}/view", get().to(view_by_id))
        .route("/api/watch/{watch}/export", get().to(export))
        .route("/api/play/{token}/view", get().to(view_by_token))
        .route("/api/play/{token}/choices", get().to(choices_by_token))
        .route(
            "/api/play/{token}/commands",
            web::post().to(submit_by_token),
        );
}
