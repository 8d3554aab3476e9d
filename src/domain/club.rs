//! What a club's founder types: its name and its short description, parsed once at the edge,
//! and what a member is in a club.

use super::names::{is_bidi_control, is_hidden_format, is_invisible};
use std::fmt;

/// The most characters a club's name may have (as the database checks).
pub const MAX_CLUB_NAME_CHARS: usize = 80;

/// The most characters a club's description may have (as the database checks).
pub const MAX_CLUB_DESCRIPTION_CHARS: usize = 500;

/// A text typed for a club that is not acceptable; the message is meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidClubText(String);

/// Refuses what no one-line text shown on pages and in mail may hold.
fn one_line(text: &str, what: &str) -> Result<(), InvalidClubText> {
    let refuse = |reason: String| Err(InvalidClubText(reason));
    if text.chars().any(char::is_control) {
        return refuse(format!(
            "{what} is one line: no line breaks or control characters"
        ));
    }
    if text.chars().any(is_bidi_control) {
        return refuse(format!(
            "{what} cannot hold characters that reverse the text around it"
        ));
    }
    if text.chars().any(is_hidden_format) {
        return refuse(format!(
            "{what} cannot hold line separators or hidden characters"
        ));
    }
    Ok(())
}

/// A club's name: trimmed, 1 to 80 characters with at least one visible, one line, no
/// characters that reverse or hide text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClubName(String);

impl ClubName {
    /// Parses a name typed by the club's founder; surrounding spaces are dropped.
    pub fn parse(text: &str) -> Result<ClubName, InvalidClubText> {
        let trimmed = text.trim();
        one_line(text, "a club's name")?;
        if trimmed.chars().all(is_invisible) {
            return Err(InvalidClubText("give the club a name".into()));
        }
        if trimmed.chars().count() > MAX_CLUB_NAME_CHARS {
            return Err(InvalidClubText(format!(
                "a club's name is at most {MAX_CLUB_NAME_CHARS} characters"
            )));
        }
        Ok(ClubName(trimmed.to_string()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ClubName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A club's short description: trimmed, at most 500 characters (none at all is fine), one
/// line, no characters that reverse or hide text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClubDescription(String);

impl ClubDescription {
    /// Parses a description typed by the club's founder; surrounding spaces are dropped.
    pub fn parse(text: &str) -> Result<ClubDescription, InvalidClubText> {
        let trimmed = text.trim();
        one_line(text, "a club's description")?;
        if trimmed.chars().count() > MAX_CLUB_DESCRIPTION_CHARS {
            return Err(InvalidClubText(format!(
                "a club's description is at most {MAX_CLUB_DESCRIPTION_CHARS} characters"
            )));
        }
        Ok(ClubDescription(trimmed.to_string()))
    }

    /// The description as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a member is in a club.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClubRole {
    /// Plays the club's games, opens and joins its tables.
    Member,
    /// Also invites, makes admins, removes members, closes the club.
    Admin,
}

/// A role that is neither `member` nor `admin`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a role is \"member\" or \"admin\"")]
pub struct InvalidRole;

impl ClubRole {
    /// Parses `member` or `admin` (as stored and as sent by the forms).
    pub fn parse(text: &str) -> Result<ClubRole, InvalidRole> {
        match text {
            "member" => Ok(ClubRole::Member),
            "admin" => Ok(ClubRole::Admin),
            _ => Err(InvalidRole),
        }
    }

    /// `member` or `admin`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClubRole::Member => "member",
            ClubRole::Admin => "admin",
        }
    }
}

/// A league's name: as a club's, trimmed, 1 to 80 characters with at least one visible, one
/// line, no characters that reverse or hide text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeagueName(String);

impl LeagueName {
    /// Parses a name typed by the club's admin; surrounding spaces are dropped.
    pub fn parse(text: &str) -> Result<LeagueName, InvalidClubText> {
        let trimmed = text.trim();
        one_line(text, "a league's name")?;
        if trimmed.chars().all(is_invisible) {
            return Err(InvalidClubText("give the league a name".into()));
        }
        if trimmed.chars().count() > MAX_CLUB_NAME_CHARS {
            return Err(InvalidClubText(format!(
                "a league's name is at most {MAX_CLUB_NAME_CHARS} characters"
            )));
        }
        Ok(LeagueName(trimmed.to_string()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_visible_line_of_at_most_80_characters() {
        assert_eq!(
            ClubName::parse("  Chess Club  ").unwrap().as_str(),
            "Chess Club"
        );
        assert!(ClubName::parse("").is_err());
        assert!(ClubName::parse(" \u{200B} ").is_err());
        assert!(ClubName::parse("a\nb").is_err());
        assert!(ClubName::parse("evil\u{202E}txt").is_err());
        assert!(ClubName::parse(&"x".repeat(80)).is_ok());
        assert!(ClubName::parse(&"x".repeat(81)).is_err());
        assert_eq!(LeagueName::parse(" Spring ").unwrap().as_str(), "Spring");
        assert!(LeagueName::parse(&"x".repeat(81)).is_err());
        assert!(LeagueName::parse("a\u{2028}b").is_err());
    }

    #[test]
    fn descriptions_may_be_empty_and_are_at_most_500_characters() {
        assert_eq!(ClubDescription::parse(" ").unwrap().as_str(), "");
        assert!(ClubDescription::parse(&"é".repeat(500)).is_ok());
        assert!(ClubDescription::parse(&"é".repeat(501)).is_err());
        assert!(ClubDescription::parse("one\rtwo").is_err());
    }

    #[test]
    fn roles_parse_from_their_stored_words() {
        for role in [ClubRole::Member, ClubRole::Admin] {
            assert_eq!(ClubRole::parse(role.as_str()), Ok(role));
        }
        assert_eq!(ClubRole::parse("owner"), Err(InvalidRole));
    }
}
