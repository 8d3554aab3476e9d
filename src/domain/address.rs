//! Email addresses, parsed once at the edge (forms, configuration) into a type that cannot
//! hold anything else.

use std::fmt;
use std::str::FromStr;

/// A syntactically valid email address (`local@domain`), at most 254 characters, without
/// whitespace or control characters, so it can never break a header line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EmailAddress(String);

/// Why a text is not an email address; the message is meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not an email address: {reason}")]
pub struct InvalidEmail {
    /// What was typed (cut to 60 characters).
    pub input: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl EmailAddress {
    /// Parses an address typed by a person; surrounding spaces are ignored.
    pub fn parse(text: &str) -> Result<EmailAddress, InvalidEmail> {
        let trimmed = text.trim();
        let refuse = |reason| InvalidEmail {
            input: trimmed.chars().take(60).collect(),
            reason,
        };
        if trimmed.is_empty() {
            return Err(refuse("it is empty"));
        }
        if trimmed.len() > 254 {
            return Err(refuse("it is longer than 254 characters"));
        }
        if trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(refuse("it contains spaces or control characters"));
        }
        let Some((local, domain)) = trimmed.rsplit_once('@') else {
            return Err(refuse("it has no @"));
        };
        if local.is_empty() || domain.is_empty() {
            return Err(refuse("it needs a name before the @ and a domain after it"));
        }
        if domain.starts_with('[') || domain.parse::<std::net::Ipv4Addr>().is_ok() {
            return Err(refuse(
                "the domain after the @ is an IP address, not a name",
            ));
        }
        if !domain.contains('.') && domain != "localhost" {
            return Err(refuse("the domain after the @ has no dot"));
        }
        lettre::Address::from_str(trimmed)
            .map_err(|_| refuse("it has characters an address cannot have"))?;
        Ok(EmailAddress(trimmed.to_string()))
    }

    /// The address as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part after the `@`.
    pub fn domain(&self) -> &str {
        self.0.rsplit_once('@').map_or("", |(_, d)| d)
    }

    /// The address for lettre (always valid: it was checked on parsing).
    pub fn to_lettre(&self) -> lettre::Address {
        lettre::Address::from_str(&self.0).expect("a parsed address is valid")
    }
}

/// An address as the pages show it to anyone but its owner: enough to tell which of the
/// player's addresses the mail went to, not enough to write to it ("b…@e…").
pub fn masked(address: &str) -> String {
    let (local, domain) = address.rsplit_once('@').unwrap_or((address, ""));
    let first = |part: &str| part.chars().next().map(String::from).unwrap_or_default();
    format!("{}…@{}…", first(local), first(domain))
}

impl FromStr for EmailAddress {
    type Err = InvalidEmail;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EmailAddress::parse(s)
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_addresses() {
        for ok in [
            "ann@example.org",
            " bo.smith+games@mail.example.co.uk ",
            "x@localhost",
        ] {
            let parsed = EmailAddress::parse(ok).unwrap();
            assert_eq!(parsed.as_str(), ok.trim());
        }
        assert_eq!(EmailAddress::parse("a@b.org").unwrap().domain(), "b.org");
    }

    #[test]
    fn refuses_what_could_break_a_header_or_is_no_address() {
        let cases = [
            ("", "it is empty"),
            ("ann", "it has no @"),
            ("ann@", "it needs a name before the @ and a domain after it"),
            (
                "@example.org",
                "it needs a name before the @ and a domain after it",
            ),
            ("ann@example", "the domain after the @ has no dot"),
            (
                "ann@exa mple.org",
                "it contains spaces or control characters",
            ),
            (
                "ann@example.org\r\nBcc: eve@evil.org",
                "it contains spaces or control characters",
            ),
            (
                "a<b>@example.org",
                "it has characters an address cannot have",
            ),
            (
                "ann@[127.0.0.1]",
                "the domain after the @ is an IP address, not a name",
            ),
            (
                "ann@10.0.0.1",
                "the domain after the @ is an IP address, not a name",
            ),
            (
                "ann@[IPv6:::1]",
                "the domain after the @ is an IP address, not a name",
            ),
            (
                "ann@exam\0ple.org",
                "it contains spaces or control characters",
            ),
        ];
        for (text, reason) in cases {
            let err = EmailAddress::parse(text).unwrap_err();
            assert_eq!(err.reason, reason, "{text:?}");
            assert!(err.to_string().contains("is not an email address"));
        }
        let long = format!("{}@example.org", "a".repeat(250));
        assert!(EmailAddress::parse(&long).is_err());
    }

    #[test]
    fn a_masked_address_keeps_two_letters() {
        assert_eq!(masked("bo@example.org"), "b…@e…");
        assert_eq!(masked("Ann.Lee@x.io"), "A…@x…");
        assert!(!masked("bo@example.org").contains("example"));
    }
}
