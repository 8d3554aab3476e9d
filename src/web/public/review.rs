//! A finished game's review (docs/BOTS.md "Review"): `GET /api/games/{id}/review` (and
//! `/api/watch/{token}/review`) as JSON, and the marks the replay viewer shows. Nothing before
//! the game is over: 404 with the reason, as while it is being worked out (with
//! `"status": "pending"` and a `Retry-After`).

use crate::review::stored::{Status, status};
use crate::web::public::game::PublicGame;
use crate::web::{AppState, WebError};
use actix_web::{HttpResponse, web};
use serde_json::json;

/// A turning point as the replay viewer marks it.
pub(in crate::web) struct Mark {
    /// The move's number.
    pub seq: i64,
    /// The seat's name.
    pub name: String,
    /// The turning point in words.
    pub words: String,
    /// The replay at that move.
    pub url: String,
}

/// What the replay viewer shows of a game's review.
pub(in crate::web) enum Shown {
    /// Nothing: the game is not over, or has no review.
    Nothing,
    /// It is being worked out.
    Pending,
    /// Every seat's turning points, in seat order then by the drop.
    Marks(Vec<Mark>),
}

/// The review of game `id` for its replay viewer (`base`: the public pages' prefix), `open`
/// when the viewer shows all cards.
pub(in crate::web) async fn shown(
    state: &AppState,
    id: i64,
    over: bool,
    base: &str,
    open: bool,
) -> Result<Shown, WebError> {
    if !over {
        return Ok(Shown::Nothing);
    }
    Ok(match status(state.store.pool(), id).await? {
        Status::Pending => Shown::Pending,
        Status::Done(review) => Shown::Marks(
            review
                .seats
                .iter()
                .flat_map(|seat| {
                    seat.turning_points.iter().map(|p| Mark {
                        seq: p.seq,
                        name: seat.name.clone(),
                        words: p.words.clone(),
                        url: format!(
                            "{base}/replay?at={}{}",
                            p.seq,
                            if open { "&open=1" } else { "" }
                        ),
                    })
                })
                .collect(),
        ),
        Status::None | Status::Failed(_) => Shown::Nothing,
    })
}

/// A 404 with why there is no review to show, and where it stands.
fn none(status: &str, error: &str) -> HttpResponse {
    let mut response = HttpResponse::NotFound();
    if status == "pending" {
        response.insert_header(("Retry-After", "30"));
    }
    response.json(json!({"status": status, "error": error}))
}

/// `GET /api/games/{id}/review`: the review of a finished game (`{"game_id", "seats": [{"seat",
/// "name", "decisions", "weighed", "turning_points": [...]}], "playouts_per_decision",
/// "decisions_per_seat", "playouts"}`), or 404 with `status` and `error` (`"running"`,
/// `"pending"`, `"failed"`, `"none"`).
pub async fn api(state: web::Data<AppState>, public: PublicGame) -> Result<HttpResponse, WebError> {
    let row = state
        .store
        .game(public.id)
        .await?
        .ok_or(WebError::NotFound)?;
    if row.status != "over" {
        return Ok(none(
            "running",
            "the game is not over: its review is worked out once it ends",
        ));
    }
    Ok(match status(state.store.pool(), row.id).await? {
        Status::Done(review) => HttpResponse::Ok().json(review),
        Status::Pending => none(
            "pending",
            "the review is being worked out: ask again in a minute",
        ),
        Status::Failed(_) => none("failed", "the review of this game could not be worked out"),
        Status::None => none(
            "none",
            "this game has no review: it was cancelled, or it ended before reviews were made",
        ),
    })
}
