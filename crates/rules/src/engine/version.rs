//! Serde helpers for a game state's rules version: version 1 is left out of the serialized
//! state, so a game recorded before its rules were first versioned hashes as it did then.

/// The version a state without the field began under.
pub fn one() -> u32 {
    1
}

/// True for version 1, which is not serialized.
pub fn is_one(version: &u32) -> bool {
    *version == 1
}
