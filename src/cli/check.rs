//! Every game a database holds, verified as `postplay verify` verifies one record: each game's
//! full record (as an auditor exports it, seed included) checked for its hash chain against the
//! head the database holds, its seed commitment, a full replay and its final state. What
//! `postplay restore` runs after a restore and `postplay verify --database` on demand.

use crate::engine::Viewer;
use crate::engine::audit::verify;
use crate::store::Store;

/// How many failures a report names; the rest are counted.
const NAMED_FAILURES: usize = 20;

/// What verifying every game found.
#[derive(Debug, Default)]
pub struct Checked {
    /// Games whose record verified.
    pub valid: u64,
    /// Of those, games over.
    pub over: u64,
    /// Log entries in the games that verified.
    pub entries: u64,
    /// Games that failed.
    pub failed: u64,
    /// The first failures: the game's id and what was wrong.
    pub failures: Vec<(i64, String)>,
}

impl Checked {
    fn fail(&mut self, id: i64, reason: String) {
        self.failed += 1;
        if self.failures.len() < NAMED_FAILURES {
            self.failures.push((id, reason));
        }
    }

    /// Prints the summary to standard output and each failure to standard error.
    pub fn report(&self) {
        println!(
            "verified {} games ({} running, {} over), {} log entries: hash chain, seed commitment, full replay and final state{}",
            self.valid,
            self.valid - self.over,
            self.over,
            self.entries,
            if self.failed == 0 {
                String::new()
            } else {
                format!("; {} games FAILED", self.failed)
            }
        );
        for (id, reason) in &self.failures {
            eprintln!("game {id}: {reason}");
        }
        if self.failed > self.failures.len() as u64 {
            eprintln!("… and {} more", self.failed - self.failures.len() as u64);
        }
    }
}

/// Verifies every game in `store`'s database, a page of ids at a time.
pub async fn every_game(store: &Store) -> Result<Checked, String> {
    let mut checked = Checked::default();
    let mut after = 0;
    loop {
        let ids = store
            .game_ids_after(after)
            .await
            .map_err(|e| format!("listing the games: {e}"))?;
        let Some(&last) = ids.last() else {
            return Ok(checked);
        };
        after = last;
        for id in ids {
            let record = match store.export(id, Viewer::Auditor).await {
                Ok(record) => record,
                Err(e) => {
                    checked.fail(id, format!("cannot be read: {e}"));
                    continue;
                }
            };
            match verify(crate::games::ALL, &record, record.chain_head.as_deref()) {
                Ok(v) => {
                    checked.valid += 1;
                    checked.entries += v.entries as u64;
                    if v.outcome.is_some() {
                        checked.over += 1;
                    }
                }
                Err(e) => checked.fail(id, e.to_string()),
            }
        }
    }
}
