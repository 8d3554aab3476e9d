//! Player names, parsed once at the edge into a type that cannot hold anything a page, a mail
//! header or a log line could be tricked by.

use std::fmt;

/// The most visible characters a name may have.
pub const MAX_NAME_CHARS: usize = 40;

/// A display name: trimmed, 1 to 40 visible characters, no control characters (so no line
/// breaks and no NUL), no bidirectional overrides, no line or paragraph separators, annotation
/// or tag characters, no invisible format characters (zero-width space, soft hyphen, word
/// joiner, byte order mark; a zero-width joiner or non-joiner only between two characters of a
/// script or emoji that needs them), not only invisible characters.
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

/// The invisible format characters (Unicode category Cf): they change how text around them is
/// drawn, or nothing at all, so "A\u{200B}nn" looks like "Ann".
pub(super) fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// Whether the zero-width joiner or non-joiner at `i` sits between two characters of a script
/// that shapes by them (Arabic, the Indic scripts and beyond) or emoji: not beside Latin,
/// Greek, Cyrillic or Armenian letters, digits or spaces, where it only hides.
fn joiner_has_work(chars: &[char], i: usize) -> bool {
    let shaped = |c: Option<&char>| c.is_some_and(|&c| c >= '\u{0590}' && !is_format(c));
    matches!(chars[i], '\u{200C}' | '\u{200D}')
        && i > 0
        && shaped(chars.get(i - 1))
        && shaped(chars.get(i + 1))
}

/// The form two names are compared in to tell whether they look alike: NFKC, without the
/// invisible and format characters and variation selectors, spaces run together, lower case.
fn look_alike_key(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut key = String::new();
    for c in text.nfkc().flat_map(char::to_lowercase) {
        if c.is_whitespace() {
            if !key.is_empty() && !key.ends_with(' ') {
                key.push(' ');
            }
        } else if !is_invisible(c) && !is_format(c) {
            key.push(c);
        }
    }
    key.trim_end().to_string()
}

/// The first two names of `names` (by their positions) that a reader could not tell apart
/// ([`PlayerName::looks_like`]).
pub fn look_alikes<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<(usize, usize)> {
    let keys: Vec<String> = names.into_iter().map(look_alike_key).collect();
    (1..keys.len()).find_map(|j| (0..j).find(|&i| keys[i] == keys[j]).map(|i| (i, j)))
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
        let chars: Vec<char> = trimmed.chars().collect();
        if let Some(i) =
            (0..chars.len()).find(|&i| is_format(chars[i]) && !joiner_has_work(&chars, i))
        {
            return refuse(&format!(
                "a name cannot hold invisible characters such as the one at position {} \
                 (U+{:04X}): it would look like a name without it",
                i + 1,
                u32::from(chars[i])
            ));
        }
        let visible = trimmed.chars().filter(|&c| !is_invisible(c)).count();
        if visible == 0 {
            return refuse("a name needs at least one visible character");
        }
        let count = trimmed.chars().count();
        if count > MAX_NAME_CHARS {
            return refuse(&format!(
                "a name is at most {MAX_NAME_CHARS} characters; this one has {count}"
            ));
        }
        Ok(PlayerName(trimmed.to_string()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a reader could not tell this name from `other`: equal after NFKC, without
    /// invisible characters, with spaces run together, ignoring case.
    pub fn looks_like(&self, other: &str) -> bool {
        look_alike_key(&self.0) == look_alike_key(other)
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

    #[test]
    fn invisible_format_characters_are_refused_by_name() {
        for bad in [
            "A\u{200B}nn",
            "A\u{200C}nn",
            "A\u{200D}nn",
            "Ann\u{200D}",
            "\u{200C}Ann",
            "A\u{2060}nn",
            "\u{FEFF}Ann",
            "An\u{00AD}n",
            "Ann\u{180E}",
            "A\u{2064}nn",
            "Ann\u{206A}",
            "\u{0600}Ann",
            "Ann\u{1D173}",
        ] {
            let e = PlayerName::parse(bad).expect_err(bad);
            assert!(e.reason.contains("invisible characters"), "{bad:?}: {e}");
        }
        let e = PlayerName::parse("A\u{200B}nn").unwrap_err();
        assert!(e.reason.contains("position 2 (U+200B)"), "{e}");
    }

    #[test]
    fn joiners_stay_where_a_script_or_emoji_needs_them() {
        for good in ["می\u{200C}خواهم", "क्\u{200D}ष", "👩\u{200D}💻 Ann"] {
            assert_eq!(PlayerName::parse(good).unwrap().as_str(), good);
        }
    }

    #[test]
    fn names_that_look_alike_are_found() {
        let ann = PlayerName::parse("Ann").unwrap();
        for same in ["ann", "ANN", "Ａｎｎ", "Ann\u{FE0F}", "A\u{200B}nn"] {
            assert!(ann.looks_like(same), "{same:?}");
        }
        let lee = PlayerName::parse("Ann Lee").unwrap();
        assert!(lee.looks_like("ann  lee"));
        for other in ["Anne", "An", "Ann Lee", "Bo"] {
            assert!(!ann.looks_like(other), "{other:?}");
        }
        assert_eq!(look_alikes(["Bo", "Ann", "Cy", "ANN"]), Some((1, 3)));
        assert_eq!(look_alikes(["Bo", "Ann", "Cy"]), None);
    }
}
