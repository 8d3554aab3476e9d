//! The public log a command writes: one or more lines in plain words.
//!
//! Lines name seats with [`who`] placeholders, replaced by display names when shown
//! ([`render`]). Lines are built only when someone reads them: replay for verification passes a
//! disabled log and pays nothing for formatting.

use super::Seat;

/// Collects the public lines one command produces.
#[derive(Debug, Default)]
pub struct Log {
    enabled: bool,
    lines: Vec<String>,
}

impl Log {
    /// A log that keeps lines.
    pub fn recording() -> Log {
        Log {
            enabled: true,
            lines: Vec::new(),
        }
    }

    /// A log that drops lines without formatting them.
    pub fn silent() -> Log {
        Log::default()
    }

    /// Adds a line; `line` runs only when the log records.
    pub fn push(&mut self, line: impl FnOnce() -> String) {
        if self.enabled {
            self.lines.push(line());
        }
    }

    /// The lines so far, emptying the log.
    pub fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.lines)
    }

    /// The lines so far.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }
}

/// A count with its noun, singular for one: "1 card", "3 cards", "0 points".
pub fn count(n: impl Into<i64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The placeholder for a seat in a log line: `{s2}`.
pub fn who(seat: Seat) -> String {
    format!("{{s{seat}}}")
}

/// Replaces every `{sN}` placeholder by the N-th name (unknown seats are left as they are) and
/// starts the line with a capital, as a sentence.
pub fn render(line: &str, names: &[String]) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    let mut rest = line;
    while let Some(start) = rest.find("{s") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let seat = after[..digits].parse::<usize>().ok();
        match (seat, after[digits..].starts_with('}')) {
            (Some(seat), true) if seat < names.len() => {
                out.push_str(&names[seat]);
                rest = &after[digits + 1..];
            }
            _ => {
                out.push_str("{s");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    capitalized(out)
}

fn capitalized(line: String) -> String {
    match line.chars().next() {
        Some(first) if first.is_lowercase() => {
            let mut out: String = first.to_uppercase().collect();
            out.push_str(&line[first.len_utf8()..]);
            out
        }
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_placeholders() {
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        let line = format!("{} bids 270, {} passes, {{s9}} stays", who(0), who(1));
        assert_eq!(render(&line, &names), "Ann bids 270, Bo passes, {s9} stays");
    }

    #[test]
    fn a_line_reads_as_a_sentence() {
        let names = vec!["ann".to_string()];
        assert_eq!(
            render("game over: a tie", &names),
            "Game over: a tie",
            "a line starts with a capital"
        );
        assert_eq!(render(&who(0), &names), "Ann");
        assert_eq!(render("", &names), "");
    }

    #[test]
    fn silent_log_skips_formatting() {
        let mut log = Log::silent();
        log.push(|| panic!("must not be called"));
        assert!(log.lines().is_empty());
    }
}
