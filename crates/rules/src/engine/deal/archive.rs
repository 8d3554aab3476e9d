//! What `/fairness.json` publishes, and the check a player runs against a copy they archived
//! (`postplay verify --fairness FILE`): the deal's batch was published when the record says,
//! its seed is taken at its place, and no seed before it was skipped.

use super::{Deal, MIX_VERSION};
use serde::{Deserialize, Serialize};

/// The whole of `/fairness.json`: the mix rule and every published batch, newest first.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Archive {
    /// The mix rule's version the server uses.
    pub mix: u32,
    /// The batches, newest first.
    pub batches: Vec<PublishedBatch>,
}

/// One published batch as `/fairness` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PublishedBatch {
    /// The Merkle root (hex).
    pub root: String,
    /// How many seeds it holds.
    pub size: i32,
    /// When it was published (RFC 3339, UTC).
    pub published_at: String,
    /// How many seeds games have taken, in order from 0.
    pub taken: i32,
    /// The taken places and the games that took them, in order.
    pub used: Vec<UsedSeed>,
    /// Taken places no game holds: seeds skipped (should stay empty).
    pub gaps: Vec<i32>,
}

/// A taken seed's place and its game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UsedSeed {
    /// The place in the batch.
    pub index: i32,
    /// The game that took it.
    pub game: i64,
}

/// Why an archived `/fairness.json` does not bear a record's deal out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// The archive uses another mix rule than the deal.
    #[error("the archive names mix rule {archive}, the deal rule {deal}")]
    OtherMix { archive: u32, deal: u32 },
    /// The deal's batch is not in the archive.
    #[error(
        "the deal's batch {0} is not in the archived fairness.json: as far as this archive shows, it was never published"
    )]
    Unpublished(String),
    /// The archive shows the batch published at another time or with another size.
    #[error(
        "the archive shows the batch {root} published {archived} ({archived_size} seeds); the record says {recorded} ({recorded_size} seeds)"
    )]
    OtherPublication {
        root: String,
        archived: String,
        archived_size: i32,
        recorded: String,
        recorded_size: usize,
    },
    /// A seed before the deal's was taken by no game.
    #[error(
        "seed {gap} of the batch {root} was skipped: taken by no game, before this game's seed {index}"
    )]
    Skipped {
        root: String,
        gap: i32,
        index: usize,
    },
    /// The archive shows the deal's place taken by no game although later ones are.
    #[error("the archive shows seed {index} of the batch {root} taken by no game")]
    NotTaken { root: String, index: usize },
}

/// What an archive confirmed about a deal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmed {
    /// Published as recorded, this seed taken by the named game, none skipped before it.
    InOrder { game: i64, taken: i32 },
    /// Published as recorded, but the archive was made before this game took its seed: it
    /// cannot speak to the order.
    ArchivedBefore { taken: i32 },
}

impl Archive {
    /// Checks `deal` against this archive: its batch published at the recorded time, and no
    /// seed of the batch before the deal's skipped.
    pub fn confirm(&self, deal: &Deal) -> Result<Confirmed, ArchiveError> {
        if self.mix != MIX_VERSION || deal.mix != MIX_VERSION {
            return Err(ArchiveError::OtherMix {
                archive: self.mix,
                deal: deal.mix,
            });
        }
        let batch = self
            .batches
            .iter()
            .find(|b| b.root == deal.batch_root)
            .ok_or_else(|| ArchiveError::Unpublished(deal.batch_root.clone()))?;
        if batch.published_at != deal.published_at
            || usize::try_from(batch.size).ok() != Some(deal.batch_size)
        {
            return Err(ArchiveError::OtherPublication {
                root: batch.root.clone(),
                archived: batch.published_at.clone(),
                archived_size: batch.size,
                recorded: deal.published_at.clone(),
                recorded_size: deal.batch_size,
            });
        }
        let index = deal.index as i64;
        if let Some(&gap) = batch.gaps.iter().find(|&&g| i64::from(g) < index) {
            return Err(ArchiveError::Skipped {
                root: batch.root.clone(),
                gap,
                index: deal.index,
            });
        }
        // Recompute the gaps from the places too, in case the archive's list was trimmed.
        for place in 0..index.min(i64::from(batch.taken)) {
            if !batch.used.iter().any(|u| i64::from(u.index) == place) {
                return Err(ArchiveError::Skipped {
                    root: batch.root.clone(),
                    gap: place as i32,
                    index: deal.index,
                });
            }
        }
        if index >= i64::from(batch.taken) {
            return Ok(Confirmed::ArchivedBefore { taken: batch.taken });
        }
        match batch.used.iter().find(|u| i64::from(u.index) == index) {
            Some(used) => Ok(Confirmed::InOrder {
                game: used.game,
                taken: batch.taken,
            }),
            None => Err(ArchiveError::NotTaken {
                root: batch.root.clone(),
                index: deal.index,
            }),
        }
    }
}

impl Confirmed {
    /// The line `postplay verify --fairness` prints.
    pub fn describe(&self, deal: &Deal) -> String {
        match self {
            Confirmed::InOrder { game, taken } => format!(
                "the archive shows the batch published {} and seed {} taken by game #{game}, \
                 with no seed skipped before it ({taken} taken so far)",
                deal.published_at, deal.index
            ),
            Confirmed::ArchivedBefore { taken } => format!(
                "the archive shows the batch published {} with no seed skipped among the first \
                 {taken}; it was archived before this game took seed {}, so archive a newer \
                 copy to check the order up to it",
                deal.published_at, deal.index
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seed;
    use crate::engine::deal::{path, root};

    fn deal_at(index: usize) -> Deal {
        let seeds: Vec<Seed> = (0..8).map(Seed::from_number).collect();
        Deal {
            mix: MIX_VERSION,
            batch_root: root(&seeds),
            batch_size: 8,
            published_at: "2026-11-28T06:00:00Z".into(),
            index,
            committed_seed: seeds[index],
            path: path(&seeds, index),
            contributions: Vec::new(),
        }
    }

    fn archive(taken: i32, games: &[(i32, i64)]) -> Archive {
        let used: Vec<UsedSeed> = games
            .iter()
            .map(|&(index, game)| UsedSeed { index, game })
            .collect();
        let gaps = (0..taken)
            .filter(|i| !used.iter().any(|u| u.index == *i))
            .collect();
        Archive {
            mix: MIX_VERSION,
            batches: vec![PublishedBatch {
                root: deal_at(0).batch_root,
                size: 8,
                published_at: "2026-11-28T06:00:00Z".into(),
                taken,
                used,
                gaps,
            }],
        }
    }

    #[test]
    fn a_seed_taken_in_order_is_confirmed_with_its_game() {
        let a = archive(3, &[(0, 10), (1, 11), (2, 12)]);
        assert_eq!(
            a.confirm(&deal_at(2)),
            Ok(Confirmed::InOrder { game: 12, taken: 3 })
        );
    }

    #[test]
    fn a_skipped_seed_before_the_deals_is_refused() {
        let a = archive(3, &[(0, 10), (2, 12)]);
        assert!(matches!(
            a.confirm(&deal_at(2)),
            Err(ArchiveError::Skipped {
                gap: 1,
                index: 2,
                ..
            })
        ));
        // Even when the archive's list of gaps was left empty by whoever copied it.
        let mut trimmed = a.clone();
        trimmed.batches[0].gaps.clear();
        assert!(matches!(
            trimmed.confirm(&deal_at(2)),
            Err(ArchiveError::Skipped { gap: 1, .. })
        ));
    }

    #[test]
    fn a_batch_the_archive_never_saw_or_saw_at_another_time_is_refused() {
        let mut a = archive(3, &[(0, 10), (1, 11), (2, 12)]);
        a.batches[0].published_at = "2026-11-28T07:00:00Z".into();
        assert!(matches!(
            a.confirm(&deal_at(1)),
            Err(ArchiveError::OtherPublication { .. })
        ));
        a.batches[0].root = "00".repeat(32);
        assert!(matches!(
            a.confirm(&deal_at(1)),
            Err(ArchiveError::Unpublished(_))
        ));
    }

    #[test]
    fn an_archive_older_than_the_game_confirms_the_publication_only() {
        let a = archive(2, &[(0, 10), (1, 11)]);
        assert_eq!(
            a.confirm(&deal_at(5)),
            Ok(Confirmed::ArchivedBefore { taken: 2 })
        );
    }
}
