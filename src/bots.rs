//! The practice bots' worker (docs/BOTS.md): in `serve` and `worker`, it claims games whose
//! head moved and plays every bot seat they await, through the store like any move, marked
//! `"by": "bot"`. Searches run on blocking threads, at most a few at once in a process, so the
//! web stays responsive while bots think.

use crate::engine::search::decision_seed;
use crate::games::find_bot;
use crate::store::{Store, SubmitError};
use chrono::Duration;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How often an idle worker looks for games awaiting a bot: a bot answers within about this.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// How many games one pass claims at most.
const BATCH: i64 = 20;

/// How long a worker holds a game it claimed before another may take it; renewed before each
/// decision, so only a stalled process's claim runs out.
const LEASE: Duration = Duration::seconds(120);

/// Bot moves one claim plays at most before letting the game go (the next pass takes it up
/// again): a guard against a game whose bots never stop.
const MOVES_PER_CLAIM: usize = 2_000;

/// Searches one process runs at once unless `POSTPLAY_BOT_SEARCHES` says otherwise: one, so
/// on a small machine a core stays free for the web.
pub const DEFAULT_SEARCHES: usize = 1;

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// Games claimed.
    pub games: usize,
    /// Bot moves played.
    pub moves: usize,
    /// Games whose bot failed (logged; retried later).
    pub failures: usize,
}

/// Plays the bots' seats of every game that awaits one.
pub struct BotWorker {
    store: Arc<Store>,
    searches: Arc<Semaphore>,
}

impl BotWorker {
    /// A worker over `store` running at most `searches` searches at once (at least one).
    pub fn new(store: Arc<Store>, searches: usize) -> BotWorker {
        BotWorker {
            store,
            searches: Arc::new(Semaphore::new(searches.max(1))),
        }
    }

    /// The process's search permits, for the reviews' worker to share
    /// ([`crate::review::worker::ReviewWorker`]).
    pub fn searches(&self) -> Arc<Semaphore> {
        self.searches.clone()
    }

    /// Runs passes every `every` (at once again after a pass that played) until `stop` turns
    /// true.
    pub async fn run(
        &self,
        every: std::time::Duration,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) {
        loop {
            let busy = match self.pass().await {
                Ok(p) => {
                    if p.moves > 0 || p.failures > 0 {
                        tracing::info!(?p, "bots moved");
                    }
                    p.games > 0
                }
                Err(e) => {
                    tracing::error!(error = %e, "the bots' pass failed");
                    false
                }
            };
            if !busy {
                tokio::select! {
                    _ = tokio::time::sleep(every) => {}
                    _ = stop.changed() => {}
                }
            }
            if *stop.borrow() {
                return;
            }
        }
    }

    /// One pass: claims the games whose head moved and plays their bots, game after game.
    pub async fn pass(&self) -> Result<Pass, sqlx::Error> {
        let claimed = self.store.claim_bot_games(BATCH, LEASE).await?;
        let mut pass = Pass {
            games: claimed.len(),
            ..Pass::default()
        };
        for id in claimed {
            match self.play_game(id).await {
                Ok(moves) => pass.moves += moves,
                Err(e) => {
                    let retry = self.store.bots_failed(id).await?;
                    tracing::error!(game = id, error = %e, %retry, "a bot could not move");
                    pass.failures += 1;
                }
            }
        }
        Ok(pass)
    }

    /// Plays game `id`'s bots until no bot is awaited; the moves made.
    async fn play_game(&self, id: i64) -> Result<usize, String> {
        let bots = self.store.bot_seats(id).await.map_err(|e| e.to_string())?;
        let mut moves = 0;
        while moves < MOVES_PER_CLAIM {
            let loaded = self.store.load(id).await.map_err(|e| e.to_string())?;
            let head = loaded.row.head_seq;
            let over = loaded.game.outcome().is_some();
            let awaited = loaded.game.active();
            let Some(bot) = bots.iter().find(|b| !over && awaited.contains(&b.seat)) else {
                self.store
                    .bots_done(id, head, over)
                    .await
                    .map_err(|e| e.to_string())?;
                return Ok(moves);
            };
            self.store
                .renew_bot_lease(id, LEASE)
                .await
                .map_err(|e| e.to_string())?;
            let player = find_bot(&loaded.row.kind)
                .ok_or_else(|| format!("{} has no bot", loaded.row.kind))?;
            let (seat, level) = (bot.seat, bot.level);
            let seed = decision_seed(&bot.seed, (head + 1) as u64);
            let rules_version = loaded.row.rules_version as u32;
            let kind = loaded.row.kind.clone();
            let game = loaded.game;
            let permit = self
                .searches
                .clone()
                .acquire_owned()
                .await
                .expect("the bots' semaphore is never closed");
            let searching = std::time::Instant::now();
            let decision = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                player.decide(game.as_ref(), seat, rules_version, level, &seed)
            })
            .await
            .map_err(|e| format!("the search stopped: {e}"))?
            .map_err(|e| e.to_string());
            let took = searching.elapsed();
            let decision = decision.inspect_err(|_| {
                crate::telemetry::bot_decision(&kind, "failed", took);
            })?;
            match self
                .store
                .play_for_bot(id, seat, &decision.command, head)
                .await
            {
                Ok(_) => {
                    crate::telemetry::bot_decision(&kind, "played", took);
                    moves += 1
                }
                // A player moved (or undid) while the bot thought: look again.
                Err(SubmitError::Conflict { .. }) => {
                    crate::telemetry::bot_decision(&kind, "raced", took)
                }
                Err(e) => {
                    crate::telemetry::bot_decision(&kind, "failed", took);
                    return Err(format!("seat {seat}'s {} bot's move: {e}", level.name()));
                }
            }
        }
        self.store
            .bots_done(id, -1, false)
            .await
            .map_err(|e| e.to_string())?;
        Ok(moves)
    }
}
