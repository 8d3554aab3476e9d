//! Secret link tokens: 160 random bits, shown once, stored only as SHA-256.

use sha2::{Digest, Sha256};

/// A fresh token from the OS CSPRNG: 40 hex digits (160 bits).
pub fn new_token() -> String {
    let mut bytes = [0u8; 20];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    hex::encode(bytes)
}

/// What the database keeps of a token. Looking a token up by its hash reveals nothing through
/// timing: an attacker cannot steer the hash of a guess towards a stored one.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// True if the text could be a token (so junk never reaches the database).
pub fn looks_like_token(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a seat's device link is keyed by: a hash of the signed-in session's token, distinct
/// from the session's own stored hash.
pub fn device_hash(session_token: &str) -> Vec<u8> {
    Sha256::digest(format!("device:{session_token}").as_bytes()).to_vec()
}
