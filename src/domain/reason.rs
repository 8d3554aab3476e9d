//! The organiser's reason for cancelling a game, parsed once at the edge: it is told to every
//! player and written into the game's record for good.

use std::fmt;

/// The most characters a reason may have.
pub const MAX_REASON_CHARS: usize = 500;

/// A reason: trimmed, 1 to 500 characters, at least one visible, no control characters (so
/// no line breaks and no NUL), no bidirectional overrides, line separators, annotation or tag
/// characters, and no braces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CancelReason(String);

/// Why a text is not a reason; the message is meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidReason(String);

impl CancelReason {
    /// Parses a reason typed by the organiser; surrounding spaces are dropped.
    pub fn parse(text: &str) -> Result<CancelReason, InvalidReason> {
        let refuse = |reason: &str| Err(InvalidReason(reason.to_string()));
        let trimmed = text.trim();
        if trimmed.chars().any(char::is_control) {
            return refuse("a reason is one line: no line breaks or control characters");
        }
        if trimmed.chars().any(super::names::is_bidi_control) {
            return refuse("a reason cannot hold characters that reverse the text around it");
        }
        if text.chars().any(super::names::is_hidden_format) {
            return refuse("a reason is one line: no line separators or hidden characters");
        }
        if trimmed.chars().all(super::names::is_invisible) {
            return refuse("give a reason: the players are told it");
        }
        if trimmed.contains(['{', '}']) {
            // Pages and mail fill `{s1}` in game texts with a player's name.
            return refuse("a reason cannot hold braces { }");
        }
        if trimmed.chars().count() > MAX_REASON_CHARS {
            return refuse("a reason is at most 500 characters");
        }
        Ok(CancelReason(trimmed.to_string()))
    }

    /// The reason as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CancelReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_words_passes_trimmed() {
        assert_eq!(
            CancelReason::parse("  Bo moved away ").unwrap().as_str(),
            "Bo moved away"
        );
        assert!(CancelReason::parse(&"é".repeat(500)).is_ok());
    }

    #[test]
    fn empty_long_and_tricky_reasons_are_refused() {
        for bad in [
            "",
            "  ",
            "\u{200B}",
            "two\nlines",
            "nul\0",
            "\u{202E}reversed",
            "ask {s1}",
            "two\u{2028}lines",
            "hidden\u{E0041}",
            &"x".repeat(501),
        ] {
            assert!(CancelReason::parse(bad).is_err(), "{bad:?} must be refused");
        }
    }
}
