//! How a game's deal is derived where nobody chooses it (docs/FAIRNESS.md): a seed the server
//! committed to ahead of time, in a batch under a published Merkle root, mixed with what the
//! players contributed. Pure: the store draws and publishes, `postplay verify` checks.

mod archive;

pub use archive::{Archive, ArchiveError, Confirmed, PublishedBatch, UsedSeed};

use super::Seed;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The version of the mix rule ([`mix`]) a record names.
pub const MIX_VERSION: u32 = 1;

/// How many seeds a batch holds: a power of two, so every leaf has a full path.
pub const BATCH_SIZE: usize = 1024;

/// What a player put into the deal: who, and the text they sent (a browser's random bytes in
/// hex, or any words they typed).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Contribution {
    /// The contributor's name as the game shows it.
    pub from: String,
    /// What they contributed.
    pub value: String,
}

/// The longest contribution to a deal a person may send, in characters.
pub const MAX_CONTRIBUTION_CHARS: usize = 200;

/// What a person typed (or their browser filled in) as their words for the shuffle: trimmed,
/// not empty, at most [`MAX_CONTRIBUTION_CHARS`] characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShuffleWords(String);

impl ShuffleWords {
    /// Reads a form's field: `None` when it is absent or blank; refused, with the reason, when
    /// too long.
    pub fn parse(field: Option<&str>) -> Result<Option<ShuffleWords>, String> {
        match field.map(str::trim).filter(|c| !c.is_empty()) {
            None => Ok(None),
            Some(c) if c.chars().count() > MAX_CONTRIBUTION_CHARS => Err(format!(
                "the words for the shuffle are at most {MAX_CONTRIBUTION_CHARS} characters"
            )),
            Some(c) => Ok(Some(ShuffleWords(c.to_string()))),
        }
    }

    /// The words as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The contribution these words make, from `from`.
    pub fn from(self, from: &str) -> Contribution {
        Contribution {
            from: from.to_string(),
            value: self.0,
        }
    }
}

/// How a game's seed was derived: the record's `"deal"` (docs/record-format.md).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    /// The mix rule's version ([`MIX_VERSION`]).
    pub mix: u32,
    /// The Merkle root of the batch, as `/fairness` published it (hex).
    pub batch_root: String,
    /// How many seeds the batch holds.
    pub batch_size: usize,
    /// When the batch was published (RFC 3339, UTC).
    pub published_at: String,
    /// The seed's place in the batch, from 0.
    pub index: usize,
    /// The committed seed, revealed once the game is over.
    pub committed_seed: Seed,
    /// The sibling hashes from the seed's leaf up to the root (hex).
    pub path: Vec<String>,
    /// What the players contributed, in the order mixed.
    #[serde(default)]
    pub contributions: Vec<Contribution>,
}

/// Why a record's deal does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DealError {
    /// The deal names a mix rule this postplay does not know.
    #[error("the deal uses mix rule {0}; this postplay knows rule {MIX_VERSION}")]
    UnknownMix(u32),
    /// A field is malformed.
    #[error("the deal is malformed: {0}")]
    Malformed(String),
    /// The committed seed is not at its place under the published root.
    #[error(
        "the committed seed is not seed {index} of the published batch {root}: the path does not lead to its root"
    )]
    NotUnderRoot { index: usize, root: String },
    /// The game's seed is not the mix of the committed seed and the contributions.
    #[error(
        "the game's seed is not the committed seed mixed with the recorded contributions: an input was altered"
    )]
    MixMismatch,
}

/// The leaf of seed `index` in its batch: SHA-256(0x00, index as 4 bytes big-endian, seed).
pub fn leaf(index: usize, seed: &Seed) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update((index as u32).to_be_bytes());
    h.update(seed.0);
    h.finalize().into()
}

/// An inner node: SHA-256(0x01, left, right).
fn node(left: &[u8; 32], right: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The levels of a batch's tree, leaves first, root last. `seeds.len()` must be a power of two.
fn levels(seeds: &[Seed]) -> Vec<Vec<[u8; 32]>> {
    let mut levels = vec![
        seeds
            .iter()
            .enumerate()
            .map(|(i, s)| leaf(i, s))
            .collect::<Vec<_>>(),
    ];
    while levels.last().map_or(0, Vec::len) > 1 {
        let below = levels.last().expect("a level");
        levels.push(below.chunks(2).map(|p| node(&p[0], &p[1])).collect());
    }
    levels
}

/// The Merkle root over a batch of seeds (hex): what `/fairness` publishes.
pub fn root(seeds: &[Seed]) -> String {
    hex::encode(levels(seeds).last().expect("a root")[0])
}

/// The sibling hashes from seed `index`'s leaf up to the root (hex).
pub fn path(seeds: &[Seed], index: usize) -> Vec<String> {
    let levels = levels(seeds);
    let mut at = index;
    let mut path = Vec::new();
    for level in &levels[..levels.len() - 1] {
        path.push(hex::encode(level[at ^ 1]));
        at /= 2;
    }
    path
}

/// The deal's seed: SHA-256 of the tag `postplay deal v1`, the committed seed, and each
/// contribution's name and value, each preceded by its length (4 bytes big-endian).
pub fn mix(committed: &Seed, contributions: &[Contribution]) -> Seed {
    let mut h = Sha256::new();
    h.update(b"postplay deal v1");
    h.update(committed.0);
    for c in contributions {
        for part in [&c.from, &c.value] {
            h.update((part.len() as u32).to_be_bytes());
            h.update(part.as_bytes());
        }
    }
    Seed(h.finalize().into())
}

impl Deal {
    /// Checks the deal against the game's seed: the mix rule, the committed seed's place
    /// under the batch root, and that mixing it with the contributions gives `seed`.
    pub fn check(&self, seed: &Seed) -> Result<(), DealError> {
        if self.mix != MIX_VERSION {
            return Err(DealError::UnknownMix(self.mix));
        }
        if !self.batch_size.is_power_of_two() || self.index >= self.batch_size {
            return Err(DealError::Malformed(format!(
                "seed {} of a batch of {}",
                self.index, self.batch_size
            )));
        }
        if self.path.len() != self.batch_size.trailing_zeros() as usize {
            return Err(DealError::Malformed(format!(
                "a path of {} hashes in a batch of {}",
                self.path.len(),
                self.batch_size
            )));
        }
        let mut at = self.index;
        let mut hash = leaf(self.index, &self.committed_seed);
        for sibling in &self.path {
            let mut other = [0u8; 32];
            hex::decode_to_slice(sibling, &mut other)
                .map_err(|_| DealError::Malformed("a path hash is not 64 hex digits".into()))?;
            hash = if at.is_multiple_of(2) {
                node(&hash, &other)
            } else {
                node(&other, &hash)
            };
            at /= 2;
        }
        if hex::encode(hash) != self.batch_root {
            return Err(DealError::NotUnderRoot {
                index: self.index,
                root: self.batch_root.clone(),
            });
        }
        if mix(&self.committed_seed, &self.contributions) != *seed {
            return Err(DealError::MixMismatch);
        }
        Ok(())
    }

    /// What the deal was derived from, in a line for people (`postplay verify`'s `deal:`).
    pub fn describe(&self) -> String {
        let from = match self.contributions.len() {
            0 => "no player contributions (the batch's order alone protects it)".to_string(),
            n => format!(
                "{n} player contribution{} ({})",
                if n == 1 { "" } else { "s" },
                self.contributions
                    .iter()
                    .map(|c| c.from.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        format!(
            "seed {} of the batch {} published {}, mixed with {from}",
            self.index, self.batch_root, self.published_at
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(n: u64) -> Vec<Seed> {
        (0..n).map(Seed::from_number).collect()
    }

    fn deal(seeds: &[Seed], index: usize, contributions: Vec<Contribution>) -> (Deal, Seed) {
        let d = Deal {
            mix: MIX_VERSION,
            batch_root: root(seeds),
            batch_size: seeds.len(),
            published_at: "2026-11-28T00:00:00Z".into(),
            index,
            committed_seed: seeds[index],
            path: path(seeds, index),
            contributions,
        };
        let seed = mix(&d.committed_seed, &d.contributions);
        (d, seed)
    }

    fn ada() -> Vec<Contribution> {
        vec![Contribution {
            from: "Ada".into(),
            value: "ab12".into(),
        }]
    }

    #[test]
    fn every_seed_of_a_batch_checks_at_its_place() {
        let seeds = batch(8);
        for i in 0..8 {
            let (d, seed) = deal(&seeds, i, ada());
            assert_eq!(d.check(&seed), Ok(()));
        }
    }

    #[test]
    fn a_seed_at_another_place_is_refused() {
        let seeds = batch(8);
        let (mut d, _) = deal(&seeds, 3, ada());
        d.index = 2;
        let seed = mix(&d.committed_seed, &d.contributions);
        assert!(matches!(
            d.check(&seed),
            Err(DealError::NotUnderRoot { index: 2, .. })
        ));
    }

    #[test]
    fn an_altered_contribution_is_refused() {
        let seeds = batch(8);
        let (mut d, seed) = deal(&seeds, 5, ada());
        d.contributions[0].value = "ab13".into();
        assert_eq!(d.check(&seed), Err(DealError::MixMismatch));
    }

    #[test]
    fn the_mix_and_the_root_are_pinned() {
        // Part of every exported game: they must never change.
        let seeds = batch(4);
        assert_eq!(root(&seeds), PINNED_ROOT);
        assert_eq!(mix(&seeds[1], &ada()).to_hex(), PINNED_MIX);
    }

    const PINNED_ROOT: &str = "3a4b61c2de1d010aee11a0d42d0ed06a687e8d4486c86a93fdbfca29463599ad";
    const PINNED_MIX: &str = "730d1661623a603493a03fbec7781d78a42e6327305ec88a7a3d93d8edc7fd15";
}
