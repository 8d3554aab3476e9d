//! The text of a message in a game's thread, parsed once at the edge.

use super::names::{is_bidi_control, is_hidden_format};
use std::fmt;

/// The most characters a message may have.
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// The most lines a message may have.
pub const MAX_MESSAGE_LINES: usize = 30;

/// Plain text for a game's thread: line breaks as `\n`, trimmed, 1 to
/// [`MAX_MESSAGE_CHARS`] characters in at most `MAX_MESSAGE_LINES` lines, no control
/// characters but line breaks and tabs, no characters that reverse the text around them, no
/// line or paragraph separators, annotation or tag characters.
/// Pages and mail escape it like any other text; it is never markup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageText(String);

/// Why a text is not a message; the words are meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidMessage(pub String);

impl MessageText {
    /// Parses what a person typed: `\r\n` and `\r` become `\n`, surrounding blank space goes.
    pub fn parse(text: &str) -> Result<MessageText, InvalidMessage> {
        let refuse = |reason: &str| Err(InvalidMessage(reason.to_string()));
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return refuse("the message is empty");
        }
        if trimmed
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            return refuse("a message cannot hold control characters");
        }
        if trimmed.chars().any(is_bidi_control) {
            return refuse("a message cannot hold characters that reverse the text around it");
        }
        if text.chars().any(is_hidden_format) {
            return refuse(
                "a message cannot hold line or paragraph separators (use an ordinary line break) or hidden characters",
            );
        }
        let chars = trimmed.chars().count();
        if chars > MAX_MESSAGE_CHARS {
            return Err(InvalidMessage(format!(
                "a message is at most {MAX_MESSAGE_CHARS} characters (this one has {chars})"
            )));
        }
        if trimmed.lines().count() > MAX_MESSAGE_LINES {
            return Err(InvalidMessage(format!(
                "a message is at most {MAX_MESSAGE_LINES} lines"
            )));
        }
        Ok(MessageText(trimmed.to_string()))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MessageText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_kept_trimmed_with_its_line_breaks() {
        let m = MessageText::parse("  Hi <b>&</b>\r\nsee you\r ").unwrap();
        assert_eq!(m.as_str(), "Hi <b>&</b>\nsee you");
    }

    #[test]
    fn empty_long_and_control_texts_are_refused() {
        assert!(MessageText::parse(" \n\t ").is_err());
        assert!(MessageText::parse(&"x".repeat(MAX_MESSAGE_CHARS)).is_ok());
        assert!(MessageText::parse(&"é".repeat(MAX_MESSAGE_CHARS + 1)).is_err());
        assert!(MessageText::parse("a\u{7}b").is_err());
        assert!(MessageText::parse("a\0b").is_err());
        assert!(MessageText::parse("a\u{202E}b").is_err());
        for hidden in [
            '\u{2028}',
            '\u{2029}',
            '\u{FFF9}',
            '\u{FFFA}',
            '\u{FFFB}',
            '\u{E0000}',
            '\u{E0041}',
            '\u{E007F}',
        ] {
            assert!(
                MessageText::parse(&format!("a{hidden}b")).is_err(),
                "{hidden:?}"
            );
            assert!(
                MessageText::parse(&format!("ab{hidden}")).is_err(),
                "{hidden:?} at the end"
            );
        }
        assert!(MessageText::parse(&"a\n".repeat(MAX_MESSAGE_LINES + 1)).is_err());
    }
}
