//! The periodic pruning of inbound mail, run by the clock's scheduler in `serve` and
//! `worker`: reply addresses whose game ended more than a week ago, and stored mail for no
//! reply address of ours older than a week.

use crate::notices::reply::address;
use crate::replies::ledger;
use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Rows one statement deletes at most; a prune repeats it until nothing is left.
const BATCH: i64 = 1000;

/// What one prune deleted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Reply addresses that ended.
    pub reply_addresses: u64,
    /// Stored messages for no seat.
    pub unknown_mail: u64,
}

/// Deletes what ended by `now`, in batches.
pub async fn prune(pool: &PgPool, now: DateTime<Utc>) -> Result<Pruned, sqlx::Error> {
    let mut pruned = Pruned::default();
    loop {
        let n = address::prune(pool, now, BATCH).await?;
        pruned.reply_addresses += n;
        if n < BATCH as u64 {
            break;
        }
    }
    loop {
        let n = ledger::prune_unknown(pool, now, BATCH).await?;
        pruned.unknown_mail += n;
        if n < BATCH as u64 {
            break;
        }
    }
    Ok(pruned)
}
