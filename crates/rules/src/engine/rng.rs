//! Verifiable randomness: a 32-byte game seed, and one ChaCha20 stream per command.
//!
//! Shuffling and range sampling are written here on top of the raw ChaCha20 output, so that no
//! dependency upgrade can ever change the cards of a past game. `tests::pinned_first_shuffle`
//! pins the output for a fixed seed.

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// The secret 32-byte seed of one game. Every random event of the game derives from it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    /// A seed from a small number: the number in little-endian in the first 8 bytes, zeros after.
    /// Handy for tests and `selfplay --seed N`; real games take their seed from the OS.
    pub fn from_number(n: u64) -> Seed {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&n.to_le_bytes());
        Seed(bytes)
    }

    /// A fresh seed from the operating system's random source: every real game's.
    pub fn random() -> Seed {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("the OS random source works");
        Seed(bytes)
    }

    /// The public commitment to this seed, SHA-256(seed), as lowercase hex.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// Lowercase hex, 64 characters.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seed({})", self.to_hex())
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Why a text could not be read as a seed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a seed is 64 hexadecimal digits (32 bytes) or a decimal number: {0}")]
pub struct SeedParseError(String);

impl FromStr for Seed {
    type Err = SeedParseError;

    /// Accepts 64 hex digits, or a decimal number (see [`Seed::from_number`]).
    fn from_str(s: &str) -> Result<Seed, SeedParseError> {
        let s = s.trim();
        if s.len() == 64 {
            let mut bytes = [0u8; 32];
            hex::decode_to_slice(s, &mut bytes).map_err(|e| SeedParseError(e.to_string()))?;
            return Ok(Seed(bytes));
        }
        s.parse::<u64>()
            .map(Seed::from_number)
            .map_err(|_| SeedParseError(format!("{s:?} is neither")))
    }
}

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Seed, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The random source handed to `setup` (stream 0) and to the n-th command (stream n). A clone
/// goes on drawing what the original would (for tests comparing two ways of drawing).
#[derive(Clone)]
pub struct GameRng {
    seed: Seed,
    stream: u64,
    chacha: Option<ChaCha20Rng>,
}

impl GameRng {
    /// The stream for command number `stream` of the game with this seed; setup is stream 0.
    pub fn new(seed: &Seed, stream: u64) -> GameRng {
        GameRng {
            seed: *seed,
            stream,
            chacha: None,
        }
    }

    /// The next raw 32 bits of the stream.
    pub fn next_u32(&mut self) -> u32 {
        let (seed, stream) = (&self.seed, self.stream);
        self.chacha
            .get_or_insert_with(|| {
                let mut chacha = ChaCha20Rng::from_seed(seed.0);
                chacha.set_stream(stream);
                chacha
            })
            .next_u32()
    }

    /// Whether anything was drawn from the stream: a command that drew revealed chance (a
    /// shuffle, a die) and cannot be taken back.
    pub fn drawn(&self) -> bool {
        self.chacha.is_some()
    }

    /// A uniform integer in `0..n` (n > 0), by rejection sampling on 32-bit words, so every value
    /// is exactly equally likely.
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "below(0) has no value to give");
        let zone = u32::MAX - (u32::MAX % n);
        loop {
            let x = self.next_u32();
            if x < zone {
                return x % n;
            }
        }
    }

    /// A uniform index into a slice of length `len` (len > 0).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(u32::try_from(len).expect("slice longer than u32")) as usize
    }

    /// Fisher–Yates shuffle, from the last element down.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_first_shuffle() {
        // If this test fails, a dependency or our own code changed the randomness of every past
        // game. That must never happen: restore the old output instead of updating this test.
        let mut rng = GameRng::new(&Seed::from_number(1), 0);
        let mut deck: Vec<u8> = (0..20).collect();
        rng.shuffle(&mut deck);
        assert_eq!(
            deck, PINNED_DECK,
            "shuffle output for seed 1 changed: {deck:?}"
        );
        let mut rng = GameRng::new(&Seed::from_number(1), 7);
        let draws: Vec<u32> = (0..8).map(|_| rng.below(52)).collect();
        assert_eq!(draws, PINNED_DRAWS, "range sampling changed: {draws:?}");
    }

    const PINNED_DECK: [u8; 20] = [
        18, 15, 3, 12, 4, 19, 11, 7, 13, 9, 10, 14, 0, 16, 1, 2, 8, 6, 5, 17,
    ];
    const PINNED_DRAWS: [u32; 8] = [6, 3, 24, 15, 15, 40, 33, 40];

    #[test]
    fn raw_stream_is_chacha20() {
        // RFC 7539 / the original ChaCha20 test vector: zero key, zero nonce, first keystream
        // bytes 76 b8 e0 ad a0 f1 3d 90.
        let mut rng = GameRng::new(&Seed([0; 32]), 0);
        assert_eq!(rng.next_u32(), 0xade0_b876);
        assert_eq!(rng.next_u32(), 0x903d_f1a0);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let seed = Seed::from_number(42);
        let a: Vec<u32> = {
            let mut r = GameRng::new(&seed, 3);
            (0..4).map(|_| r.next_u32()).collect()
        };
        let b: Vec<u32> = {
            let mut r = GameRng::new(&seed, 3);
            (0..4).map(|_| r.next_u32()).collect()
        };
        let c: Vec<u32> = {
            let mut r = GameRng::new(&seed, 4);
            (0..4).map(|_| r.next_u32()).collect()
        };
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = GameRng::new(&Seed::from_number(9), 1);
        let mut seen = [false; 7];
        for _ in 0..500 {
            let v = rng.below(7) as usize;
            seen[v] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn seed_parses_hex_and_numbers() {
        let s: Seed = "5".parse().unwrap();
        assert_eq!(s, Seed::from_number(5));
        let hex = s.to_hex();
        assert_eq!(hex.parse::<Seed>().unwrap(), s);
        assert!("zz".parse::<Seed>().is_err());
        assert_eq!(
            Seed([0; 32]).commitment(),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
        );
    }
}
