//! An inbound message read with `mail-parser`: who sent it, which reply address it was for,
//! whether a machine wrote it, and the first line of its text worth reading.

use crate::notices::EmailAddress;
use crate::notices::reply::{address::secret_in, first_line};
use mail_parser::{HeaderValue, MessageParser, MimeHeaders, PartType};
use sha2::{Digest, Sha256};

/// The longest reply line kept, in characters: room for a dozen cube placements written out
/// in words ("New Hampshire: 1 purple, ..."), still far below the message size bound.
const MAX_LINE_CHARS: usize = 1000;

/// Why a message is no reply of a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Machine {
    /// `Auto-Submitted` other than `no`, or an autoresponder's own header.
    AutoSubmitted,
    /// `Precedence: bulk`, `list`, `junk` or `auto_reply`.
    Bulk,
    /// A mailing list's message (`List-Id`).
    List,
    /// A bounce or an out-of-office notice.
    Bounce,
}

/// One inbound message, parsed.
#[derive(Debug, Clone)]
pub struct Incoming {
    /// The Message-ID, or a digest of the bytes when there is none: what makes a second
    /// delivery of the same message recognisable.
    pub key: String,
    /// The sender (From), if it parses as an address.
    pub from: Option<EmailAddress>,
    /// The reply secret, from the envelope recipient or the recipient headers.
    pub secret: Option<String>,
    /// Why a machine wrote it, if one did.
    pub machine: Option<Machine>,
    /// The first line worth reading, cut short; `None`: no readable text.
    pub line: Option<String>,
    /// The line held control characters (NUL, escapes, line breaks inside it).
    pub controls: bool,
}

fn text(value: &HeaderValue) -> Option<String> {
    match value {
        HeaderValue::Text(t) => Some(t.to_string()),
        HeaderValue::TextList(list) => Some(list.join(" ")),
        _ => None,
    }
}

fn machine(message: &mail_parser::Message) -> Option<Machine> {
    let header = |name: &str| -> Option<String> {
        message
            .header_raw(name)
            .map(|v| v.trim().to_ascii_lowercase())
    };
    if header("Auto-Submitted").is_some_and(|v| !v.starts_with("no"))
        || header("X-Autoreply").is_some()
        || header("X-Autorespond").is_some()
        || header("X-Auto-Response-Suppress")
            .is_some_and(|v| v.contains("all") || v.contains("oof"))
    {
        return Some(Machine::AutoSubmitted);
    }
    if header("Precedence").is_some_and(|v| {
        ["bulk", "list", "junk", "auto_reply"]
            .iter()
            .any(|p| v.starts_with(p))
    }) {
        return Some(Machine::Bulk);
    }
    if header("List-Id").is_some() || header("List-Unsubscribe").is_some() {
        return Some(Machine::List);
    }
    let empty_return_path = header("Return-Path").is_some_and(|v| v == "<>");
    let subject = message.subject().unwrap_or_default().to_ascii_lowercase();
    let oof = [
        "out of office",
        "out of the office",
        "automatic reply",
        "auto:",
        "autoreply",
        "undeliverable",
        "delivery status notification",
        "mail delivery failed",
    ]
    .iter()
    .any(|p| subject.starts_with(p) || subject.contains(&format!(": {p}")));
    (empty_return_path
        || oof
        || message
            .content_type()
            .is_some_and(|ct| ct.c_subtype.as_deref() == Some("report")))
    .then_some(Machine::Bounce)
}

fn secret(message: &mail_parser::Message, envelope: &[String]) -> Option<String> {
    if let Some(found) = envelope.iter().find_map(|a| secret_in(a)) {
        return Some(found);
    }
    for name in ["Delivered-To", "X-Original-To", "Envelope-To"] {
        for value in message.header_values(name) {
            if let Some(found) = text(value).and_then(|t| secret_in(&t)) {
                return Some(found);
            }
        }
    }
    message
        .to()
        .into_iter()
        .chain(message.cc())
        .flat_map(|list| list.iter())
        .find_map(|a| a.address().and_then(secret_in))
}

/// Reads `raw` (already cut to the size limit); `envelope` holds the recipients the mail
/// server gave (LMTP `RCPT TO`, or the pipe's argument), if any.
pub fn parse(raw: &[u8], envelope: &[String]) -> Incoming {
    let digest = || format!("sha256:{}", hex::encode(Sha256::digest(raw)));
    let Some(message) = MessageParser::default().parse(raw) else {
        return Incoming {
            key: digest(),
            from: None,
            secret: envelope.iter().find_map(|a| secret_in(a)),
            machine: None,
            line: None,
            controls: false,
        };
    };
    let key = message
        .message_id()
        .filter(|id| !id.is_empty() && id.len() <= 250)
        .map(|id| format!("mid:{id}"))
        .unwrap_or_else(digest);
    let from = message
        .from()
        .and_then(|list| list.first())
        .and_then(|a| a.address())
        .and_then(|a| EmailAddress::parse(a).ok());
    let body = match message.text_part(0).map(|p| &p.body) {
        Some(PartType::Text(text)) => text.to_string(),
        Some(PartType::Html(html)) => crate::replies::html::text(html),
        _ => String::new(),
    };
    let line = first_line(&body);
    let controls = line.is_some_and(|l| l.chars().any(|c| c.is_control() && c != '\t'));
    Incoming {
        key,
        from,
        secret: secret(&message, envelope),
        machine: machine(&message),
        line: line.map(|l| l.chars().take(MAX_LINE_CHARS).collect()),
        controls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "0123456789abcdef0123456789abcdef01234567";

    fn mail(headers: &str, body: &str) -> Vec<u8> {
        format!(
            "From: Ann <ann@example.org>\r\nTo: play+{SECRET}@pp.example\r\n\
             Message-ID: <m1@example.org>\r\nSubject: Re: Whitehouse #1: your turn\r\n{headers}\r\n{body}"
        )
        .into_bytes()
    }

    #[test]
    fn a_plain_reply_is_read() {
        let m = parse(
            &mail(
                "",
                "bid 300\r\n\r\nOn Monday postplay wrote:\r\n> 1 Pass\r\n",
            ),
            &[],
        );
        assert_eq!(m.key, "mid:m1@example.org");
        assert_eq!(m.from.unwrap().as_str(), "ann@example.org");
        assert_eq!(m.secret.as_deref(), Some(SECRET));
        assert_eq!(m.machine, None);
        assert_eq!(m.line.as_deref(), Some("bid 300"));
        assert!(!m.controls);
    }

    #[test]
    fn html_only_mail_is_read_as_text() {
        let m = parse(
            &mail(
                "MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n",
                "<html><body><div>Play <b>QH</b></div><blockquote>1 Pass</blockquote></body></html>",
            ),
            &[],
        );
        assert_eq!(m.line.as_deref(), Some("Play QH"));
    }

    #[test]
    fn machines_are_recognised() {
        for (headers, expected) in [
            ("Auto-Submitted: auto-replied\r\n", Machine::AutoSubmitted),
            ("Precedence: bulk\r\n", Machine::Bulk),
            ("List-Id: <games.example.org>\r\n", Machine::List),
            ("Return-Path: <>\r\n", Machine::Bounce),
        ] {
            assert_eq!(
                parse(&mail(headers, "x"), &[]).machine,
                Some(expected),
                "{headers}"
            );
        }
        let oof =
            "From: ann@example.org\r\nSubject: Out of Office: back Monday\r\n\r\naway".to_string();
        assert_eq!(parse(oof.as_bytes(), &[]).machine, Some(Machine::Bounce));
        assert_eq!(
            parse(&mail("Auto-Submitted: no\r\n", "x"), &[]).machine,
            None
        );
    }

    #[test]
    fn the_envelope_wins_and_a_missing_id_is_a_digest() {
        let other = "fedcba9876543210fedcba9876543210fedcba98";
        let raw = "From: ann@example.org\r\n\r\npass\r\n".to_string();
        let m = parse(raw.as_bytes(), &[format!("play+{other}@pp.example")]);
        assert_eq!(m.secret.as_deref(), Some(other));
        assert!(m.key.starts_with("sha256:"));
        assert_eq!(m.line.as_deref(), Some("pass"));
    }

    #[test]
    fn control_characters_in_the_line_are_flagged() {
        let m = parse(&mail("", "pass\0 now\r\n"), &[]);
        assert!(m.controls);
    }
}
