//! The game a public route shows: by its id (`/games/{id}`, `/api/games/{id}`) for a listed
//! game only, or by an unlisted game's spectator link (`/watch/{token}`, `/api/watch/{token}`).
//! An unlisted game answers every id-keyed route exactly as a game that does not exist; so does
//! a private club's game to anyone but the club's signed-in members (and its own seats).

use crate::store::Gate;
use crate::web::{AppState, WebError};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;

/// A game reached by a public route, with where its public pages live.
#[derive(Debug, Clone)]
pub struct PublicGame {
    /// The game.
    pub id: i64,
    /// The prefix of its public pages: `/games/{id}` or `/watch/{token}`.
    pub base: String,
    /// The prefix of its public API: `/api/games/{id}` or `/api/watch/{token}`.
    pub api: String,
}

impl PublicGame {
    /// Resolves the route's `{id}` or `{watch}`: 404 for an unknown game, an unlisted game by
    /// id, or an unknown spectator link.
    async fn resolve(req: &HttpRequest) -> Result<PublicGame, WebError> {
        let state = req
            .app_data::<web::Data<AppState>>()
            .ok_or_else(|| WebError::Internal("no app state".into()))?;
        if let Some(watch) = req.match_info().get("watch") {
            let id = state
                .store
                .game_by_spectator(watch)
                .await?
                .ok_or(WebError::NotFound)?;
            return Ok(PublicGame {
                id,
                base: format!("/watch/{watch}"),
                api: format!("/api/watch/{watch}"),
            });
        }
        let id = req
            .match_info()
            .get("id")
            .and_then(|id| id.parse::<i64>().ok())
            .ok_or(WebError::NotFound)?;
        if !may_reach(req, state, id).await? {
            return Err(WebError::NotFound);
        }
        Ok(listed(id))
    }
}

/// Whether the request may reach the game by its id: a listed game, anyone; a private club's
/// game, its signed-in members and a seat of the game by its own key (`Authorization: Bearer`
/// with the seat's link token, as the API takes it); an unlisted or unknown game, nobody.
/// Whoever may not is answered exactly as for a game that does not exist.
pub async fn may_reach(req: &HttpRequest, state: &AppState, id: i64) -> Result<bool, WebError> {
    let club = match state.store.game_gate(id).await? {
        Some(Gate::Open) => return Ok(true),
        Some(Gate::Members(club)) => club,
        Some(Gate::Unlisted) | None => return Ok(false),
    };
    if let Some(token) = crate::web::accounts::session::token(req)
        && let Some(account) = state.store.session_account(&token).await?
        && state.store.is_member(club, account.id).await?
    {
        return Ok(true);
    }
    if let Some(token) = crate::web::api::bearer(req)
        && let Some((game, _)) = state.store.seat_by_token(token).await?
    {
        return Ok(game == id);
    }
    Ok(false)
}

/// Where a listed game's public pages live.
fn listed(id: i64) -> PublicGame {
    PublicGame {
        id,
        base: format!("/games/{id}"),
        api: format!("/api/games/{id}"),
    }
}

/// Where a game's public pages live, whether listed or not: for the pages of its seats and its
/// desk, which show the spectator link of an unlisted game to the people who may share it.
pub async fn public_of(state: &AppState, id: i64) -> Result<PublicGame, WebError> {
    Ok(public_at(
        id,
        state.store.spectator_token(id).await?.as_deref(),
    ))
}

/// Where game `id`'s public pages live, given its spectator link's token (an unlisted game's).
pub fn public_at(id: i64, spectator_token: Option<&str>) -> PublicGame {
    match spectator_token {
        Some(watch) => PublicGame {
            id,
            base: format!("/watch/{watch}"),
            api: format!("/api/watch/{watch}"),
        },
        None => listed(id),
    }
}

impl FromRequest for PublicGame {
    type Error = WebError;
    type Future = LocalBoxFuture<'static, Result<PublicGame, WebError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { PublicGame::resolve(&req).await })
    }
}
