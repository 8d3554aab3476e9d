//! Tamper evidence: the hash chain over a game's log, and the full verification of an exported
//! record — format, chain, seed commitment, replay, final state — reporting the first failure.
//!
//! Entry `n` (1-based) links as `hash_n = SHA-256(hash_{n-1} || canonical(entry_n))`, where
//! `hash_0` is the 32 bytes of the seed commitment (so the chain is bound to the seed fixed
//! before the first card was dealt) and `canonical(entry)` is the compact JSON object
//! `{"at":…,"command":…,"seat":…,"seq":…}` with keys sorted at every level, plus `"by":"clock"`
//! on an entry the correspondence clock played and `"by":"organiser"` on the organiser's
//! cancellation (absent on a seat's own move, so records made before the clock keep their
//! links).

use super::record::{Record, ReplayError};
use super::{DynGame, Seat, Seed};
use serde::Serialize;
use serde_json::Value;

/// One log entry as the chain sees it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// 1-based position.
    pub seq: u64,
    /// The seat it was played for.
    pub seat: Seat,
    /// The command.
    pub command: &'a Value,
    /// When the server accepted it (chain time format).
    pub at: &'a str,
    /// Who played it when not the seat (`"clock"`, `"organiser"`).
    pub by: Option<&'a str>,
}

/// The canonical bytes of one log entry: compact JSON, keys sorted at every level.
pub fn canonical_entry(entry: Entry<'_>) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(128);
    write_canonical_entry(entry, &mut bytes);
    bytes
}

/// Appends the canonical bytes of one log entry ([`canonical_entry`]) to `out`, written field
/// by field with the keys in sorted order rather than through a JSON object of the entry.
pub fn write_canonical_entry(entry: Entry<'_>, out: &mut Vec<u8>) {
    // serde_json's Value keeps object keys in a BTreeMap (no `preserve_order`), so the
    // command serializes with its keys sorted.
    fn json(out: &mut Vec<u8>, value: &impl Serialize) {
        serde_json::to_writer(out, value).expect("JSON values serialize");
    }
    out.extend_from_slice(b"{\"at\":");
    json(out, &entry.at);
    if let Some(by) = entry.by {
        out.extend_from_slice(b",\"by\":");
        json(out, &by);
    }
    out.extend_from_slice(b",\"command\":");
    json(out, entry.command);
    out.extend_from_slice(b",\"seat\":");
    json(out, &entry.seat);
    out.extend_from_slice(b",\"seq\":");
    json(out, &entry.seq);
    out.push(b'}');
}

/// The chain link of an entry, given the previous link.
pub fn link(previous: &[u8; 32], entry: Entry<'_>) -> [u8; 32] {
    link_with(previous, entry, &mut Vec::with_capacity(128))
}

/// [`link`], writing the message into `scratch` (emptied first): a walk along a chain reuses
/// one buffer. The previous link and the entry's bytes are written once, padded as SHA-256 pads
/// (FIPS 180-4, 5.1.1) and compressed where they lie, rather than copied again piece by piece
/// into a hasher's block buffer; `a_link_is_sha256_of_its_message` holds it to sha2's `Sha256`.
fn link_with(previous: &[u8; 32], entry: Entry<'_>, scratch: &mut Vec<u8>) -> [u8; 32] {
    scratch.clear();
    scratch.extend_from_slice(previous);
    write_canonical_entry(entry, scratch);
    sha256_in_place(scratch)
}

/// SHA-256's initial hash value (FIPS 180-4, 5.3.3).
const SHA256_INITIAL: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// The SHA-256 digest of `message`, padding it in place (it grows by 9 to 72 bytes).
fn sha256_in_place(message: &mut Vec<u8>) -> [u8; 32] {
    let bits = (message.len() as u64) * 8;
    message.push(0x80);
    let padded = (message.len() + 8).next_multiple_of(64);
    message.resize(padded - 8, 0);
    message.extend_from_slice(&bits.to_be_bytes());
    let (blocks, rest) = message.as_chunks::<64>();
    debug_assert!(rest.is_empty());
    let mut state = SHA256_INITIAL;
    sha2::block_api::compress256(&mut state, blocks);
    let mut digest = [0u8; 32];
    for (bytes, word) in digest.chunks_exact_mut(4).zip(state) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    digest
}

/// The 32 bytes a link's published form spells in 64 lowercase hex digits (how links are
/// written), or `None` for anything else. A table and no branch per digit: the digits of a
/// hash are random, so a branch on each would be mispredicted half the time.
fn link_from_hex(text: &str) -> Option<[u8; 32]> {
    /// Each byte's value as a lowercase hex digit, or 0x10 (a bit no digit has) if it is none.
    const DIGITS: [u8; 256] = {
        let mut table = [0x10; 256];
        let mut c = 0;
        while c < 16 {
            let digit = if c < 10 { b'0' + c } else { b'a' + c - 10 };
            table[digit as usize] = c;
            c += 1;
        }
        table
    };
    let (pairs, rest) = text.as_bytes().as_chunks::<2>();
    if pairs.len() != 32 || !rest.is_empty() {
        return None;
    }
    let mut bytes = [0u8; 32];
    let mut invalid = 0;
    for (byte, [high, low]) in bytes.iter_mut().zip(pairs) {
        let (high, low) = (DIGITS[*high as usize], DIGITS[*low as usize]);
        invalid |= high | low;
        *byte = (high << 4) | (low & 0x0f);
    }
    (invalid & 0x10 == 0).then_some(bytes)
}

/// The link before the first entry: the commitment's bytes.
pub fn genesis(commitment_hex: &str) -> Option<[u8; 32]> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(commitment_hex, &mut bytes).ok()?;
    Some(bytes)
}

/// The first thing wrong with a record, in the order verification checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// A field needed for verification is missing or malformed.
    #[error("format: {0}")]
    Format(String),
    /// An entry's hash is not the link of the chain.
    #[error("entry {0}: hash mismatch")]
    HashMismatch(usize),
    /// The record's chain head is not the last entry's hash.
    #[error(
        "chain head {claimed} is not the hash of the last entry ({actual}): entries are missing or added"
    )]
    HeadMismatch { claimed: String, actual: String },
    /// SHA-256(seed) differs from the published commitment.
    #[error("seed does not match commitment")]
    SeedMismatch,
    /// The seed is not revealed (the game runs): the chain is intact where it can be checked,
    /// but the game cannot be replayed yet.
    #[error(
        "the chain is intact ({checked} links checked{}), but the seed is not revealed yet, so the moves cannot be replayed",
        hidden_note(.hidden)
    )]
    SeedHidden { checked: usize, hidden: usize },
    /// The deal's derivation does not hold (docs/FAIRNESS.md).
    #[error("deal: {0}")]
    Deal(#[from] super::deal::DealError),
    /// Replay refused an entry.
    #[error("entry {number}: {reason}")]
    Illegal { number: usize, reason: String },
    /// Replay failed otherwise (unknown game, bad options, newer rules).
    #[error("{0}")]
    Replay(String),
    /// The replayed final state differs from the recorded hash.
    #[error("final state hash {actual} differs from the recorded {recorded}")]
    FinalState { recorded: String, actual: String },
}

fn hidden_note(hidden: &usize) -> String {
    match hidden {
        0 => String::new(),
        n => format!("; {n} hidden commands are checked once the game is over"),
    }
}

/// What a successful verification established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Entries checked.
    pub entries: usize,
    /// The chain head (hex).
    pub chain_head: String,
    /// The final state hash after replay.
    pub final_state_hash: String,
    /// The outcome's reason, if the game is over.
    pub outcome: Option<String>,
}

/// What checking a record's chain established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The chain head (hex): the last entry's link.
    pub head: String,
    /// Entries whose link was recomputed and matched.
    pub checked: usize,
    /// Redacted entries, whose published link is taken as given until the full record is out.
    pub hidden: usize,
}

/// The chain head a record's entries produce, or the first entry whose hash is wrong. A
/// redacted entry's link cannot be recomputed: its published hash is taken as given and the
/// next entry's link is checked against it.
pub fn check_chain(record: &Record) -> Result<Chain, VerifyError> {
    let commitment = record
        .commitment
        .as_deref()
        .ok_or_else(|| VerifyError::Format("no seed commitment".into()))?;
    let mut previous = genesis(commitment)
        .ok_or_else(|| VerifyError::Format("commitment is not 64 hex digits".into()))?;
    let mut hidden = 0;
    let mut scratch = Vec::with_capacity(256);
    for (i, entry) in record.commands.iter().enumerate() {
        let number = i + 1;
        let at = entry
            .at
            .as_deref()
            .ok_or_else(|| VerifyError::Format(format!("entry {number}: no time")))?;
        let claimed = entry
            .hash
            .as_deref()
            .ok_or_else(|| VerifyError::Format(format!("entry {number}: no hash")))?;
        if entry.redacted {
            hidden += 1;
            previous = genesis(claimed)
                .ok_or_else(|| VerifyError::Format(format!("entry {number}: hash is not hex")))?;
            continue;
        }
        let actual = link_with(
            &previous,
            Entry {
                seq: number as u64,
                seat: entry.seat,
                command: &entry.command,
                at,
                by: entry.by.as_deref(),
            },
            &mut scratch,
        );
        if link_from_hex(claimed) != Some(actual) {
            return Err(VerifyError::HashMismatch(number));
        }
        previous = actual;
    }
    Ok(Chain {
        head: hex::encode(previous),
        checked: record.commands.len() - hidden,
        hidden,
    })
}

/// Verifies a record of one of `games` in order: chain, the claimed chain head, commitment,
/// full replay, final state hash.
pub fn verify(
    games: &[&dyn DynGame],
    record: &Record,
    claimed_head: Option<&str>,
) -> Result<Verified, VerifyError> {
    let chain = check_chain(record)?;
    let head = chain.head;
    if let Some(claimed) = claimed_head
        && claimed != head
    {
        return Err(VerifyError::HeadMismatch {
            claimed: claimed.to_string(),
            actual: head,
        });
    }
    let seed: Seed = record.seed.ok_or(VerifyError::SeedHidden {
        checked: chain.checked,
        hidden: chain.hidden,
    })?;
    if chain.hidden > 0 {
        return Err(VerifyError::Format(
            "a record with its seed must show every command in full".into(),
        ));
    }
    if Some(seed.commitment().as_str()) != record.commitment.as_deref() {
        return Err(VerifyError::SeedMismatch);
    }
    if let Some(deal) = &record.deal {
        deal.check(&seed)?;
    }
    let game = record.replay(games).map_err(|e| match e {
        ReplayError::Command { number, reason, .. } => VerifyError::Illegal { number, reason },
        ReplayError::HashMismatch { recorded, actual } => {
            VerifyError::FinalState { recorded, actual }
        }
        other => VerifyError::Replay(other.to_string()),
    })?;
    // Replay compared the state's hash with the recorded one, when the record has one.
    let final_state_hash = match &record.final_state_hash {
        Some(recorded) => recorded.clone(),
        None => game.state_hash(),
    };
    Ok(Verified {
        entries: record.commands.len(),
        chain_head: head,
        final_state_hash,
        outcome: game.outcome().map(|o| o.reason),
    })
}

/// Fills in `at` and `hash` of every entry from the commitment: how a server (or a test)
/// seals a log. Entries' `at` must be set.
pub fn seal(record: &mut Record) -> Option<String> {
    let mut previous = genesis(record.commitment.as_deref()?)?;
    let mut scratch = Vec::with_capacity(256);
    for (i, entry) in record.commands.iter_mut().enumerate() {
        let at = entry.at.as_deref()?;
        previous = link_with(
            &previous,
            Entry {
                seq: i as u64 + 1,
                seat: entry.seat,
                command: &entry.command,
                at,
                by: entry.by.as_deref(),
            },
            &mut scratch,
        );
        entry.hash = Some(hex::encode(previous));
    }
    Some(hex::encode(previous))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_entry_sorts_keys_and_is_compact() {
        let bytes = canonical_entry(Entry {
            seq: 3,
            seat: 1,
            command: &json!({"type": "bid", "amount": 300}),
            at: "2026-11-22T10:00:00.000000Z",
            by: None,
        });
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            r#"{"at":"2026-11-22T10:00:00.000000Z","command":{"amount":300,"type":"bid"},"seat":1,"seq":3}"#
        );
    }

    #[test]
    fn link_is_pinned() {
        // The chain format is part of every exported game: it must never change.
        let genesis = genesis(&Seed::from_number(1).commitment()).unwrap();
        let first = link(
            &genesis,
            Entry {
                seq: 1,
                seat: 0,
                command: &json!({"type": "pass"}),
                at: "2026-01-01T00:00:00.000000Z",
                by: None,
            },
        );
        assert_eq!(hex::encode(first), PINNED_LINK);
    }

    #[test]
    fn a_clock_entry_names_the_clock_inside_the_chain() {
        let bytes = canonical_entry(Entry {
            seq: 9,
            seat: 2,
            command: &json!({"type": "pass"}),
            at: "2026-11-22T10:00:00.000000Z",
            by: Some("clock"),
        });
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            r#"{"at":"2026-11-22T10:00:00.000000Z","by":"clock","command":{"type":"pass"},"seat":2,"seq":9}"#
        );
    }

    #[test]
    fn canonical_entry_is_the_sorted_json_object_of_the_entry() {
        let commands = [
            json!({"type": "discard", "cards": ["CA", "H10"], "z": {"b": 1, "a": [true, null]}}),
            json!({"type": "cancel", "reason": "quote \" slash \\ tab \t nul \u{0} é 🎲"}),
            json!("bare"),
            json!(-3.5),
        ];
        for (i, command) in commands.iter().enumerate() {
            for by in [None, Some("clock"), Some("a \"mark\"")] {
                let entry = Entry {
                    seq: u64::MAX - i as u64,
                    seat: i,
                    command,
                    at: "2026-11-22T10:00:00.000000Z\n",
                    by,
                };
                let mut value = json!({"seq": entry.seq, "seat": entry.seat,
                    "command": entry.command, "at": entry.at});
                if let Some(by) = by {
                    value["by"] = json!(by);
                }
                assert_eq!(
                    String::from_utf8(canonical_entry(entry)).unwrap(),
                    serde_json::to_string(&value).unwrap()
                );
            }
        }
    }

    #[test]
    fn a_link_is_sha256_of_its_message() {
        use sha2::{Digest, Sha256};
        let mut message = Vec::new();
        for len in 0..300 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            message.clear();
            message.extend_from_slice(&bytes);
            let expected: [u8; 32] = Sha256::digest(&bytes).into();
            assert_eq!(sha256_in_place(&mut message), expected, "{len} bytes");
        }
    }

    #[test]
    fn a_published_link_is_64_lowercase_hex_digits() {
        let link: [u8; 32] = std::array::from_fn(|i| (i * 37 + 5) as u8);
        assert_eq!(link_from_hex(&hex::encode(link)), Some(link));
        assert_eq!(link_from_hex(&hex::encode_upper(link)), None);
        assert_eq!(link_from_hex(&hex::encode(&link[..31])), None);
        assert_eq!(link_from_hex(&format!("{}0", hex::encode(link))), None);
        for bad in ["g", "G", " ", "/", ":", "`", "\u{0}"] {
            let text = format!("{bad}{}", &hex::encode(link)[1..]);
            assert_eq!(link_from_hex(&text), None, "{text}");
        }
        assert_eq!(link_from_hex(""), None);
    }

    const PINNED_LINK: &str = "a8c39517e65765fd9b5cd8f76ece81f6dd80afc590335e8cbdead417e615c6cb";
}
