//! Live refresh: PostgreSQL NOTIFY on every appended command, fanned out to open pages as
//! server-sent events.

use super::AppState;
use crate::store::MOVES_CHANNEL;
use actix_web::{HttpResponse, web};
use futures_util::stream;
use sqlx::postgres::{PgListener, PgPool};
use std::time::Duration;
use tokio::sync::broadcast;

/// Listens for moves of every game (in this and other processes) and broadcasts their game
/// ids. Reconnects after a failure.
pub fn spawn_listener(pool: PgPool, moves: broadcast::Sender<(i64, i64)>) {
    tokio::spawn(async move {
        loop {
            match listen(&pool, &moves).await {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "move listener lost its connection; retrying");
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
            }
        }
    });
}

async fn listen(pool: &PgPool, moves: &broadcast::Sender<(i64, i64)>) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(MOVES_CHANNEL).await?;
    loop {
        let note = listener.recv().await?;
        let mut parts = note.payload().split(':');
        let id = parts.next().and_then(|p| p.parse::<i64>().ok());
        let seq = parts
            .next()
            .and_then(|p| p.parse::<i64>().ok())
            .unwrap_or(0);
        if let Some(id) = id {
            let _ = moves.send((id, seq));
        }
    }
}

/// `GET /games/{id}/events`: an event (`data: <seq>`) each time the game moves.
pub async fn events(state: web::Data<AppState>, id: web::Path<i64>) -> HttpResponse {
    let id = *id;
    let receiver = state.moves.subscribe();
    let updates = stream::unfold(receiver, move |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok((game, seq)) if game == id => {
                    let event = web::Bytes::from(format!("data: {seq}\n\n"));
                    return Some((Ok::<_, actix_web::Error>(event), receiver));
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    let hello = stream::once(async {
        Ok::<_, actix_web::Error>(web::Bytes::from_static(b": connected\n\n"))
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(futures_util::StreamExt::chain(hello, updates))
}
