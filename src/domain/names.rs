//! Player names, parsed once at the edge into a type that cannot hold anything a page, a mail
//! header or a log line could be tricked by.

use std::fmt;

/// The most visible characters a name may have.
pub const MAX_NAME_CHARS: usize = 40;

/// A display name: trimmed, 1 to 40 visible characters, no control characters (so no line
/// breaks and no NUL), no bidirectional overrides, no line or paragraph separators, annotation
/// or tag characters, not only invisible characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlayerName(String);

/// Why a text is not a name; the message is meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct InvalidName {
    /// What is wrong, in words.
    pub reason: String,
}

/// Characters that change the direction of the text around them or hide in it: bidi
/// embeddings, overrides and isolates, and the directional marks.
pub(super) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that break or hide text without looking like it: the line and paragraph
/// separators (a line break a reader does not expect), the interlinear annotation characters
/// (they hide the text between them) and the tag characters (invisible, they smuggle text).
pub(super) fn is_hidden_format(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E007F}')
}

/// Characters that take no room on the page.
pub(super) fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
                | '\u{180E}' | '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        )
}

impl PlayerName {
    /// Parses a name typed by a person; surrounding spaces are dropped.
    pub fn parse(text: &str) -> Result<PlayerName, InvalidName> {
        let refuse = |reason: &str| {
            Err(InvalidName {
                reason: reason.to_string(),
            })
        };
        let trimmed = text.trim_matches(|c: char| c.is_whitespace());
        if trimmed.chars().any(char::is_control) {
            return refuse("a name cannot hold line breaks or control characters");
        }
        if trimmed.chars().any(is_bidi_control) {
            return refuse("a name cannot hold characters that reverse the text around it");
        }
        if text.chars().any(is_hidden_format) {
            return refuse("a name cannot hold line separators or hidden characters");
        }
        let visible = trimmed.chars().filter(|&c| !is_invisible(c)).count();
        if visible == 0 {
            return refuse("a name needs at least one visible character");
        }
        if trimmed.chars().count() > MAX_NAME_CHARS {
            return refuse("a name is at most 40 characters");
        }
        Ok(PlayerName(trimmed.to_string()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_pass_trimmed() {
        assert_eq!(PlayerName::parse("  Ann Lee ").unwrap().as_str(), "Ann Lee");
        assert_eq!(PlayerName::parse("Zoë 🂡").unwrap().as_str(), "Zoë 🂡");
        assert!(PlayerName::parse(&"x".repeat(40)).is_ok());
    }

    #[test]
    fn tricks_are_refused() {
        for bad in [
            "",
            "   ",
            "Bob\nBcc: eve@example.org",
            "Bo\rb",
            "a\0b",
            "\u{202E}evil",
            "ok\u{2066}",
            "\u{200B}\u{200B}",
            "\u{3164}",
            "Ann\u{2028}Bcc",
            "Ann\u{2029}",
            "\u{2028}Ann",
            "A\u{FFF9}nn\u{FFFA}x\u{FFFB}",
            "Ann\u{E0041}\u{E007F}",
            "\u{E0001}Ann",
            &"x".repeat(41),
        ] {
            assert!(PlayerName::parse(bad).is_err(), "{bad:?} must be refused");
        }
    }
}
