//! The reviews' worker: in `serve` and `worker` beside the bots, it claims a finished game's
//! pending review (`FOR UPDATE SKIP LOCKED`, a lease), works it out at the configured budget
//! with the process's search permits (shared with the bots: at most `POSTPLAY_BOT_SEARCHES`
//! searches at once in a process, bots and reviews together) and stores it.

use super::{Budget, compute, stored};
use crate::store::Store;
use chrono::Duration;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// How often an idle worker looks for a review to work out.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a worker holds a review it claimed before another may take it: far above a
/// review's time at the default budget, so only a stalled process's claim runs out.
const LEASE: Duration = Duration::minutes(15);

/// Works out the reviews of finished games.
pub struct ReviewWorker {
    store: Arc<Store>,
    searches: Arc<Semaphore>,
    budget: Budget,
}

impl ReviewWorker {
    /// A worker over `store` spending `budget` a review, each search holding one of
    /// `searches`' permits (the bots' worker's: [`crate::bots::BotWorker::searches`]).
    pub fn new(store: Arc<Store>, searches: Arc<Semaphore>, budget: Budget) -> ReviewWorker {
        ReviewWorker {
            store,
            searches,
            budget,
        }
    }

    /// Works out reviews every `every` (at once again after one was made) until `stop` turns
    /// true.
    pub async fn run(
        &self,
        every: std::time::Duration,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) {
        loop {
            let busy = match self.pass().await {
                Ok(done) => done.is_some(),
                Err(e) => {
                    tracing::error!(error = %e, "the reviews' pass failed");
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

    /// One pass: claims one pending review and works it out; the game's id, if one was
    /// claimed. A review that cannot be made (a game's defect) is recorded as failed; one the
    /// store failed for is tried again later ([`stored::later`]).
    pub async fn pass(&self) -> Result<Option<i64>, sqlx::Error> {
        let Some(id) = stored::claim(self.store.pool(), LEASE).await? else {
            return Ok(None);
        };
        let started = std::time::Instant::now();
        match compute::work_out(&self.store, id, self.budget, &self.searches).await {
            Ok(review) => {
                stored::save(self.store.pool(), &review).await?;
                tracing::info!(
                    game = id,
                    playouts = review.playouts,
                    took_ms = started.elapsed().as_millis() as u64,
                    "review worked out"
                );
            }
            Err(compute::Unmade::Store(e)) => {
                let error = e.to_string();
                match stored::later(self.store.pool(), id, &error).await? {
                    Some(next) => tracing::warn!(
                        game = id, %error, next = %next,
                        "a review could not be worked out for now: tried again later"
                    ),
                    None => tracing::error!(
                        game = id, %error,
                        "a review could not be worked out, the store failing every try"
                    ),
                }
            }
            Err(compute::Unmade::Defect(e)) => {
                tracing::error!(game = id, error = %e, "a review could not be worked out");
                stored::failed(self.store.pool(), id, &e).await?;
            }
        }
        Ok(Some(id))
    }
}
