//! The front page: the games to start and the recent public games.

use crate::games::{find_game, registry};
use crate::web::http::page::html;
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;

struct GameLink {
    id: &'static str,
    name: &'static str,
    seats: String,
}

struct Recent {
    id: i64,
    name: String,
    moves: i64,
    status: String,
}

#[derive(Template)]
#[template(path = "public/home.html")]
struct Home {
    games: Vec<GameLink>,
    recent: Vec<Recent>,
}

/// `GET /`: the games one can create, and recent games to watch.
pub async fn home(state: web::Data<AppState>) -> Result<HttpResponse, WebError> {
    let games = registry()
        .iter()
        .map(|g| {
            let (min, max) = g.seat_counts();
            GameLink {
                id: g.id(),
                name: g.name(),
                seats: if min == max {
                    format!("{min} players")
                } else {
                    format!("{min}–{max} players")
                },
            }
        })
        .collect();
    let recent = state
        .store
        .recent_games(20)
        .await?
        .into_iter()
        .map(|g| Recent {
            id: g.id,
            name: find_game(&g.kind).map_or(g.kind.clone(), |k| k.name().to_string()),
            moves: g.head_seq,
            status: g.status,
        })
        .collect();
    html(StatusCode::OK, Home { games, recent })
}
