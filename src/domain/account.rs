//! What a person types about their account, parsed once: a time zone, and the page to go back
//! to after signing in (a path of this site only, so a link cannot send anyone elsewhere).

use chrono_tz::Tz;
use std::fmt;

/// An IANA time zone name ("Europe/Paris") that chrono-tz knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeZoneName(Tz);

/// Why a text is not a time zone or a path; the message is meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidAccountField(pub String);

impl TimeZoneName {
    /// Parses a zone name; surrounding spaces are ignored, letter case is not.
    pub fn parse(text: &str) -> Result<TimeZoneName, InvalidAccountField> {
        let trimmed = text.trim();
        trimmed.parse::<Tz>().map(TimeZoneName).map_err(|_| {
            InvalidAccountField(format!(
                "{:?} is not a time zone: use a name like Europe/Paris or America/New_York",
                trimmed.chars().take(60).collect::<String>()
            ))
        })
    }

    /// The zone, for converting times.
    pub fn zone(&self) -> Tz {
        self.0
    }

    /// The zone's name.
    pub fn as_str(&self) -> &'static str {
        self.0.name()
    }
}

impl fmt::Display for TimeZoneName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The most characters a path to return to may have.
const MAX_PATH_CHARS: usize = 200;

/// A path on this site to go to after signing in: starts with one `/`, no scheme, no host, no
/// backslash, no control characters. Anything else becomes `/me`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalPath(String);

impl LocalPath {
    /// Where a signed-in person lands when nothing else was asked.
    pub fn home() -> LocalPath {
        LocalPath("/me".into())
    }

    /// The path, if `text` is one of this site's; `None` otherwise.
    pub fn parse(text: &str) -> Option<LocalPath> {
        let ok = text.starts_with('/')
            && !text.starts_with("//")
            && !text.contains('\\')
            && text.chars().count() <= MAX_PATH_CHARS
            && !text.chars().any(|c| c.is_control() || c.is_whitespace());
        ok.then(|| LocalPath(text.to_string()))
    }

    /// The path, or `/me` when `text` is not one of this site's.
    pub fn or_home(text: Option<&str>) -> LocalPath {
        text.and_then(LocalPath::parse)
            .unwrap_or_else(LocalPath::home)
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The label a person gives a personal API token ("my bot"): the rules of a player's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenLabel(String);

impl TokenLabel {
    /// Parses a label typed by a person.
    pub fn parse(text: &str) -> Result<TokenLabel, InvalidAccountField> {
        super::PlayerName::parse(text)
            .map(|n| TokenLabel(n.as_str().to_string()))
            .map_err(|e| InvalidAccountField(format!("the label: {e}")))
    }

    /// The label as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_zones_are_iana_names() {
        assert_eq!(
            TimeZoneName::parse(" Europe/Paris ").unwrap().as_str(),
            "Europe/Paris"
        );
        assert!(TimeZoneName::parse("Mars/Olympus").is_err());
        assert!(TimeZoneName::parse("").is_err());
    }

    #[test]
    fn only_paths_of_this_site_are_returned_to() {
        assert_eq!(LocalPath::or_home(Some("/play/abc")).as_str(), "/play/abc");
        for bad in [
            "https://evil.example/",
            "//evil.example/",
            "/\\evil.example",
            "me",
            "/a b",
            "/a\nb",
            "",
        ] {
            assert_eq!(LocalPath::or_home(Some(bad)), LocalPath::home(), "{bad:?}");
        }
        assert_eq!(LocalPath::or_home(None), LocalPath::home());
    }
}
