//! What a player chooses when opening a table in the lobby: how its seats are assigned and how
//! long it waits for players.

use std::fmt;

/// How the players of a table get their seats when its game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seating {
    /// Drawn at random when the last seat is taken.
    Random,
    /// As placed: each player picks a free seat position when joining.
    Placed,
}

/// A seating that is neither `random` nor `placed`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seating is \"random\" or \"placed\"")]
pub struct InvalidSeating;

impl Seating {
    /// Parses `random` or `placed` (as stored and as sent by the form).
    pub fn parse(text: &str) -> Result<Seating, InvalidSeating> {
        match text {
            "random" => Ok(Seating::Random),
            "placed" => Ok(Seating::Placed),
            _ => Err(InvalidSeating),
        }
    }

    /// `random` or `placed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Seating::Random => "random",
            Seating::Placed => "placed",
        }
    }
}

/// The fewest days a table may wait for players.
pub const MIN_EXPIRY_DAYS: i32 = 1;
/// The most days a table may wait for players.
pub const MAX_EXPIRY_DAYS: i32 = 30;
/// How long a table waits when its creator says nothing.
pub const DEFAULT_EXPIRY_DAYS: i32 = 7;

/// How many days an unfilled table waits before it expires: 1 to 30.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpiryDays(i32);

/// Days outside 1 to 30, or no number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a table waits {MIN_EXPIRY_DAYS} to {MAX_EXPIRY_DAYS} days for players")]
pub struct InvalidExpiry;

impl ExpiryDays {
    /// Parses a whole number of days typed in a form.
    pub fn parse(text: &str) -> Result<ExpiryDays, InvalidExpiry> {
        let days: i32 = text.trim().parse().map_err(|_| InvalidExpiry)?;
        if (MIN_EXPIRY_DAYS..=MAX_EXPIRY_DAYS).contains(&days) {
            Ok(ExpiryDays(days))
        } else {
            Err(InvalidExpiry)
        }
    }

    /// The number of days.
    pub fn days(self) -> i32 {
        self.0
    }
}

impl Default for ExpiryDays {
    fn default() -> ExpiryDays {
        ExpiryDays(DEFAULT_EXPIRY_DAYS)
    }
}

impl fmt::Display for ExpiryDays {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} day{}", self.0, if self.0 == 1 { "" } else { "s" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_is_bounded() {
        assert_eq!(ExpiryDays::parse("7").unwrap().days(), 7);
        assert_eq!(ExpiryDays::parse(" 30 ").unwrap().days(), 30);
        assert!(ExpiryDays::parse("0").is_err());
        assert!(ExpiryDays::parse("31").is_err());
        assert!(ExpiryDays::parse("-1").is_err());
        assert!(ExpiryDays::parse("seven").is_err());
        assert_eq!(ExpiryDays::default().days(), DEFAULT_EXPIRY_DAYS);
    }

    #[test]
    fn seating_is_one_of_two() {
        assert_eq!(Seating::parse("random"), Ok(Seating::Random));
        assert_eq!(Seating::parse("placed"), Ok(Seating::Placed));
        assert!(Seating::parse("Random").is_err());
    }
}
