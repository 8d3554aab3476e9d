//! The server's log, with no secret in it: every line goes through [`mask_secrets`] on its way
//! to stderr, so a link token or an email address never reaches a log file whole, whichever
//! code (ours, actix's access log, a driver's error) wrote the line.

use std::io::Write;

/// How many characters of a token stay readable: enough to tell two links apart in a log.
const TOKEN_PREFIX: usize = 6;

/// Length of a link token (40 hex digits, see [`crate::store::new_token`]).
const TOKEN_LEN: usize = 40;

/// `text` with every link token cut to its first six characters and "…", and every email
/// address's local part cut to its first character and "…" (`a…@example.org`).
pub fn mask_secrets(text: &str) -> String {
    mask_emails(&mask_tokens(text))
}

/// Length of a SHA-256 hash in hex: a run of exactly this many digits, written out as such, is
/// a hash (a record's chain head), not a token.
const HASH_LEN: usize = 64;

/// The hex digit a percent escape at the start of `bytes` stands for, if it is `%XX` for one.
fn escaped_digit(bytes: &[u8]) -> Option<Option<u8>> {
    match bytes {
        [b'%', h, l, ..] if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
            let value = u8::from_str_radix(std::str::from_utf8(&[*h, *l]).ok()?, 16).ok()?;
            Some(value.is_ascii_hexdigit().then_some(value))
        }
        _ => None,
    }
}

/// Every run of 40 or more hex digits (a link token, or one with something glued to it) cut
/// to its first six digits and "…", whether written out or percent-encoded (`%20` before a
/// token does not join the token's run; `%61` counts as the digit `a`). SHA-256 hashes,
/// written out, stay.
fn mask_tokens(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        // One unit: a literal hex digit, or an escape of one; its length in bytes.
        let unit = |at: usize| -> Option<usize> {
            if bytes[at].is_ascii_hexdigit() {
                Some(1)
            } else if let Some(Some(_)) = escaped_digit(&bytes[at..]) {
                Some(3)
            } else {
                None
            }
        };
        let Some(first) = unit(i) else {
            // Another escape (`%20`) is passed over whole, so its digits start no run.
            i += if escaped_digit(&bytes[i..]).is_some() {
                3
            } else {
                1
            };
            continue;
        };
        let start = i;
        let (mut digits, mut escaped, mut prefix_end) = (0, false, start);
        let mut len = first;
        loop {
            escaped |= len == 3;
            digits += 1;
            i += len;
            if digits == TOKEN_PREFIX {
                prefix_end = i;
            }
            match (i < bytes.len()).then(|| unit(i)).flatten() {
                Some(next) => len = next,
                None => break,
            }
        }
        if digits >= TOKEN_LEN && (digits != HASH_LEN || escaped) {
            out.push_str(&text[copied..prefix_end]);
            out.push('…');
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
    out
}

fn is_local_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._%+-'".contains(c)
}

fn is_domain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '.' || c == '-'
}

fn mask_emails(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        let (before, after) = rest.split_at(at);
        let domain_len = after[1..]
            .find(|c: char| !is_domain_char(c))
            .unwrap_or(after.len() - 1);
        let domain = &after[1..1 + domain_len];
        let local_start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_local_char(c))
            .last()
            .map_or(before.len(), |(i, _)| i);
        let local = &before[local_start..];
        out.push_str(&before[..local_start]);
        if !local.is_empty() && domain.contains('.') {
            out.push_str(&local[..local.chars().next().map_or(0, char::len_utf8)]);
            out.push('…');
        } else {
            out.push_str(local);
        }
        out.push('@');
        out.push_str(domain);
        rest = &after[1 + domain_len..];
    }
    out.push_str(rest);
    out
}

/// Stderr, masking each write (the formatter writes one whole event per call).
struct MaskedStderr;

impl Write for MaskedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(mask_secrets(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// The HTTP client libraries of webhooks, held at `warn` whatever `RUST_LOG` asks: at debug
/// and trace they write hosts, paths and bytes of requests, and a webhook's URL is a secret.
const QUIET: [&str; 4] = [
    "reqwest=warn",
    "hyper=warn",
    "hyper_util=warn",
    "rustls=warn",
];

/// The filter of [`init`]: `RUST_LOG`, or `default` when it is unset, with `QUIET` on top.
pub fn filter(default: &str) -> tracing_subscriber::EnvFilter {
    let mut filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    for directive in QUIET {
        filter = filter.add_directive(directive.parse().expect("a valid directive"));
    }
    filter
}

/// Structured logs to stderr with secrets masked; `RUST_LOG` filters (default: info). The
/// `log` records of libraries (actix's access log among them) go the same way.
pub fn init() {
    let filter = filter("info");
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| MaskedStderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_six_characters() {
        let token = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            mask_secrets(&format!("GET /play/{token} 200")),
            "GET /play/012345… 200"
        );
        assert_eq!(
            mask_secrets(&format!("/manage/{token}/relink/1")),
            "/manage/012345…/relink/1"
        );
    }

    #[test]
    fn tokens_with_something_glued_or_percent_encoded_are_cut() {
        let token = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            mask_secrets(&format!("GET /play/%20{token} HTTP/1.1")),
            "GET /play/%20012345… HTTP/1.1"
        );
        assert_eq!(
            mask_secrets(&format!("GET /play/{token}%0A 404")),
            "GET /play/012345…%0A 404"
        );
        assert_eq!(
            mask_secrets(&format!("/play/7{token}")),
            "/play/701234…",
            "41 digits"
        );
        let encoded: String = token.bytes().map(|b| format!("%{b:02X}")).collect();
        assert_eq!(
            mask_secrets(&format!("/play/{encoded}")),
            "/play/%30%31%32%33%34%35…"
        );
        let mixed = format!("%30{}", &token[1..]);
        assert_eq!(mask_secrets(&mixed), "%3012345…");
        assert!(!mask_secrets(&format!("a{token}é{token}")).contains(token));
    }

    #[test]
    fn hashes_of_other_lengths_stay() {
        let hash = "a".repeat(64);
        assert_eq!(mask_secrets(&hash), hash);
        assert_eq!(mask_secrets("game 12 seq 40"), "game 12 seq 40");
    }

    #[test]
    fn email_local_parts_are_cut() {
        assert_eq!(
            mask_secrets("550 5.1.1 <ann.smith+games@example.org>: no such user"),
            "550 5.1.1 <a…@example.org>: no such user"
        );
        assert_eq!(mask_secrets("a@b and @home"), "a@b and @home");
        assert_eq!(mask_secrets("x@y.z ü@q.de"), "x…@y.z ü@q.de");
    }
}
