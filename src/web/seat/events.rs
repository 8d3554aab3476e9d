//! Live refresh: PostgreSQL NOTIFY on every appended command, fanned out to open pages as
//! server-sent events. Streams are bounded: only for games that exist, at most so many per
//! client address and in all, each with a keep-alive comment that finds a closed client
//! within seconds, and each ended after an hour (the browser reconnects by itself).

use crate::store::MOVES_CHANNEL;
use crate::web::http::client::client_addr;
use crate::web::{AppState, WebError};
use actix_web::{HttpRequest, HttpResponse, web};
use futures_util::stream;
use sqlx::postgres::{PgListener, PgPool};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio::time::{Instant, MissedTickBehavior};

/// How long one stream lives before the server ends it.
const STREAM_LIFETIME: Duration = Duration::from_secs(3600);

/// Listens for moves of every game (in this and other processes) and broadcasts their game
/// ids. Reconnects after a failure, and then has every stream look its game's head up again,
/// since moves committed while nobody listened were announced to nobody.
pub fn spawn_listener(pool: PgPool, moves: broadcast::Sender<(i64, i64)>) {
    tokio::spawn(async move {
        loop {
            match listen(&pool, &moves).await {
                Ok(()) => tracing::info!("move listener lost its connection; listening again"),
                Err(sqlx::Error::PoolClosed) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "move listener could not listen; retrying");
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
            }
        }
    });
}

/// The message a (re)connected listener broadcasts: moves may have gone unheard while it was
/// away, so every stream looks its game's head up again.
const MAYBE_MISSED: (i64, i64) = (-1, -1);

/// Listens until the connection is lost (`Ok`) or cannot be made (`Err`).
async fn listen(pool: &PgPool, moves: &broadcast::Sender<(i64, i64)>) -> Result<(), sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(MOVES_CHANNEL).await?;
    let _ = moves.send(MAYBE_MISSED);
    while let Some(note) = listener.try_recv().await? {
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
    Ok(())
}

/// The open streams, counted per client address and in all.
pub struct StreamSlots {
    per_client: usize,
    total: usize,
    open: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// One open stream's place; dropping it (when the stream ends or its client goes) frees it.
pub struct StreamSlot {
    slots: Arc<StreamSlots>,
    client: IpAddr,
}

impl StreamSlots {
    /// Room for `per_client` streams per address and `total` in all.
    pub fn new(per_client: usize, total: usize) -> Arc<StreamSlots> {
        Arc::new(StreamSlots {
            per_client,
            total,
            open: Mutex::new((0, HashMap::new())),
        })
    }

    /// A place for one more stream of `client`, if there is room.
    pub fn acquire(self: &Arc<Self>, client: IpAddr) -> Option<StreamSlot> {
        let mut open = self.open.lock().expect("stream slots lock");
        let (total, by_client) = &mut *open;
        let mine = by_client.entry(client).or_insert(0);
        if *total >= self.total || *mine >= self.per_client {
            if *mine == 0 {
                by_client.remove(&client);
            }
            return None;
        }
        *mine += 1;
        *total += 1;
        Some(StreamSlot {
            slots: self.clone(),
            client,
        })
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.open.lock().expect("stream slots lock").0
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().expect("stream slots lock");
        let (total, by_client) = &mut *open;
        *total -= 1;
        if let Some(mine) = by_client.get_mut(&self.client) {
            *mine -= 1;
            if *mine == 0 {
                by_client.remove(&self.client);
            }
        }
    }
}

/// What a stream holds between events.
struct Open {
    receiver: broadcast::Receiver<(i64, i64)>,
    keepalive: tokio::time::Interval,
    ends: Instant,
    /// The latest head this stream has told of.
    told: i64,
    _slot: StreamSlot,
}

/// `GET /games/{id}/events` (or `/watch/{token}/events`): first the game's head as it stands
/// (`data: <seq>`, so a page older than its stream reloads), then an event each time the game
/// moves, a comment line every keep-alive interval. 404 for a game that does not exist; 503 with Retry-After when
/// the client or the server has as many streams open as allowed.
pub async fn events(
    req: HttpRequest,
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
) -> Result<HttpResponse, WebError> {
    let id = public.id;
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    let slot = state.streams.acquire(client).ok_or(WebError::Busy {
        message: "too many live-refresh streams are open: the page refreshes by itself instead"
            .into(),
        retry_after: Duration::from_secs(30),
    })?;
    let mut keepalive = tokio::time::interval_at(
        Instant::now() + state.settings.stream_keepalive,
        state.settings.stream_keepalive,
    );
    keepalive.set_missed_tick_behavior(MissedTickBehavior::Delay);
    // Subscribed before the head is read: a move made while this page was on its way to the
    // browser is either in the head or heard on the stream, never lost between the two.
    let receiver = state.moves.subscribe();
    let head = state
        .store
        .game(id)
        .await?
        .ok_or(WebError::NotFound)?
        .head_seq;
    let open = Open {
        receiver,
        keepalive,
        ends: Instant::now() + STREAM_LIFETIME,
        told: head,
        _slot: slot,
    };
    let store = state.store.clone();
    let updates = stream::unfold(open, move |mut open| {
        let store = store.clone();
        async move {
            loop {
                tokio::select! {
                    received = open.receiver.recv() => match received {
                        Ok((game, seq)) if game == id => {
                            open.told = open.told.max(seq);
                            let event = web::Bytes::from(format!("data: {seq}\n\n"));
                            return Some((Ok::<_, actix_web::Error>(event), open));
                        }
                        Ok(MAYBE_MISSED) | Err(broadcast::error::RecvError::Lagged(_)) => {
                            let Ok(Some(row)) = store.game(id).await else { continue };
                            if row.head_seq <= open.told {
                                continue;
                            }
                            open.told = row.head_seq;
                            let event = web::Bytes::from(format!("data: {}\n\n", row.head_seq));
                            return Some((Ok(event), open));
                        }
                        Ok(_) => continue,
                        Err(broadcast::error::RecvError::Closed) => return None,
                    },
                    _ = open.keepalive.tick() => {
                        return Some((Ok(web::Bytes::from_static(b": keep-alive\n\n")), open));
                    }
                    _ = tokio::time::sleep_until(open.ends) => return None,
                }
            }
        }
    });
    let hello = stream::once(async move {
        let hello = format!(": connected\n\ndata: {head}\n\n");
        Ok::<_, actix_web::Error>(web::Bytes::from(hello))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .streaming(futures_util::StreamExt::chain(hello, updates)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_capped_per_client_and_in_all_and_freed_on_drop() {
        let slots = StreamSlots::new(2, 3);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let a1 = slots.acquire(a).unwrap();
        let _a2 = slots.acquire(a).unwrap();
        assert!(slots.acquire(a).is_none(), "two per client");
        let _b1 = slots.acquire(b).unwrap();
        assert!(slots.acquire(b).is_none(), "three in all");
        drop(a1);
        assert_eq!(slots.open(), 2);
        assert!(slots.acquire(b).is_some(), "a freed place is free again");
    }
}
