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

fn mask_tokens(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_hexdigit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            let run = &text[start..i];
            if run.len() == TOKEN_LEN {
                out.push_str(&run[..TOKEN_PREFIX]);
                out.push('…');
            } else {
                out.push_str(run);
            }
        } else {
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            out.push_str(&text[start..i]);
        }
    }
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

/// Structured logs to stderr with secrets masked; `RUST_LOG` filters (default: info). The
/// `log` records of libraries (actix's access log among them) go the same way.
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
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
