//! Rendered notices into RFC 5322 messages: From/To with display names that cannot inject
//! headers, a stable Message-ID, threading to the game's first message, List-Unsubscribe with
//! one-click POST, and a multipart/alternative body (text first, then HTML), both parts
//! quoted-printable so the text stays readable in the raw message.

use crate::domain::EmailAddress;
use crate::notices::mail::render::Rendered;
use lettre::Message;
use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Body, Mailbox, MultiPart, SinglePart};

/// Who mail comes from.
#[derive(Debug, Clone)]
pub struct Sender {
    /// Display name ("postplay").
    pub name: String,
    /// Address.
    pub address: EmailAddress,
}

impl Sender {
    /// The domain Message-IDs are made in.
    pub fn domain(&self) -> &str {
        self.address.domain()
    }

    /// A Message-ID `<key@domain>` for a key made of letters, digits, dots and dashes.
    pub fn message_id(&self, key: &str) -> String {
        let key: String = key
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            .collect();
        format!("<{key}@{}>", self.domain())
    }
}

/// Everything a message needs besides its words.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// The recipient.
    pub to: EmailAddress,
    /// The recipient's display name (user input: sanitised here).
    pub to_name: String,
    /// This message's Message-ID, `<...@domain>`: stable, so a retry is recognisable.
    pub message_id: String,
    /// The first message of the thread (the recipient's invitation), if this is not it.
    pub thread: Option<String>,
}

/// Why a message could not be built.
#[derive(Debug, thiserror::Error)]
#[error("the message could not be built: {0}")]
pub struct ComposeError(String);

/// Turns any text into one header-safe line: control characters (CR, LF, tabs...) become
/// spaces, runs of spaces shrink to one, and it is cut to `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max));
    let mut space = false;
    for c in text.chars() {
        let c = if c.is_control() || c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c == ' ' {
            if space || out.is_empty() {
                continue;
            }
            space = true;
        } else {
            space = false;
        }
        out.push(c);
        if out.chars().count() >= max {
            break;
        }
    }
    out.trim_end().to_string()
}

fn raw(name: &'static str, value: String) -> HeaderValue {
    HeaderValue::new(HeaderName::new_from_ascii_str(name), value)
}

fn part(content_type: ContentType, text: &str) -> SinglePart {
    let body = Body::new_with_encoding(text.to_string(), ContentTransferEncoding::QuotedPrintable)
        .expect("quoted-printable encodes any text");
    SinglePart::builder().header(content_type).body(body)
}

/// Builds the message.
pub fn compose(
    from: &Sender,
    envelope: &Envelope,
    rendered: &Rendered,
) -> Result<Message, ComposeError> {
    let from_box = Mailbox::new(Some(one_line(&from.name, 60)), from.address.to_lettre());
    let to_box = Mailbox::new(
        Some(one_line(&envelope.to_name, 60)),
        envelope.to.to_lettre(),
    );
    let mut builder = Message::builder()
        .from(from_box)
        .to(to_box)
        .subject(one_line(&rendered.subject, 200))
        .message_id(Some(one_line(&envelope.message_id, 200)))
        .raw_header(raw("Auto-Submitted", "auto-generated".into()));
    if let Some(root) = &envelope.thread {
        let root = one_line(root, 200);
        builder = builder.in_reply_to(root.clone()).references(root);
    }
    if let Some(reply_to) = &rendered.reply_to {
        let address = EmailAddress::parse(reply_to).map_err(|e| ComposeError(e.to_string()))?;
        builder = builder.reply_to(Mailbox::new(
            Some(one_line(&from.name, 60)),
            address.to_lettre(),
        ));
    }
    if let Some(url) = &rendered.unsubscribe {
        builder = builder
            .raw_header(raw("List-Unsubscribe", format!("<{}>", one_line(url, 500))))
            .raw_header(raw(
                "List-Unsubscribe-Post",
                "List-Unsubscribe=One-Click".into(),
            ));
    }
    builder
        .multipart(
            MultiPart::alternative()
                .singlepart(part(ContentType::TEXT_PLAIN, &rendered.text))
                .singlepart(part(ContentType::TEXT_HTML, &rendered.html)),
        )
        .map_err(|e| ComposeError(e.to_string()))
}
