//! The text of an HTML reply, as far as a reply line needs it: block elements end lines,
//! quoted parts (`<blockquote>`, a mail client's quote container) are left out, tags are
//! dropped and the common entities decoded.

/// Tags that end a line.
const BLOCKS: [&str; 9] = ["br", "p", "div", "li", "tr", "h1", "h2", "h3", "table"];

/// Class names mail clients give the quoted part of a reply.
const QUOTES: [&str; 3] = ["gmail_quote", "moz-cite-prefix", "divrplyfwdmsg"];

fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" | "#39" => Some('\''),
        "nbsp" | "#160" => Some(' '),
        _ => name
            .strip_prefix("#x")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
            .and_then(char::from_u32),
    }
}

/// The text of `html`, one line per block, quoted parts left out.
pub fn text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    // Depth inside quoted parts (and <head>, <style>, <script>), counted by element name.
    let mut skipping: Vec<String> = Vec::new();
    while let Some(open) = rest.find(['<', '&']) {
        if skipping.is_empty() {
            out.push_str(&rest[..open]);
        }
        rest = &rest[open..];
        if rest.starts_with('&') {
            let end = rest[1..].find(';').filter(|&e| e <= 8);
            match end.and_then(|e| entity(&rest[1..=e]).map(|c| (c, e))) {
                Some((c, e)) => {
                    if skipping.is_empty() {
                        out.push(c);
                    }
                    rest = &rest[e + 2..];
                }
                None => {
                    if skipping.is_empty() {
                        out.push('&');
                    }
                    rest = &rest[1..];
                }
            }
            continue;
        }
        let Some(close) = rest.find('>') else { break };
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let lower = tag.to_ascii_lowercase();
        if closing {
            if skipping.last() == Some(&name) {
                skipping.pop();
            }
        } else if !skipping.is_empty() {
            if skipping.last() == Some(&name) && !lower.ends_with('/') {
                skipping.push(name.clone());
            }
        } else if name == "blockquote"
            || ["head", "style", "script", "title"].contains(&name.as_str())
            || QUOTES.iter().any(|q| lower.contains(q))
        {
            skipping.push(name.clone());
        }
        if BLOCKS.contains(&name.as_str()) {
            out.push('\n');
        }
    }
    if skipping.is_empty() {
        out.push_str(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_make_lines_and_quotes_vanish() {
        let html = "<html><head><title>x</title></head><body><div>Play &amp; <b>QH</b></div>\
            <div class=\"gmail_quote\">On Monday postplay wrote:<blockquote><div>1 Pass</div>\
            </blockquote></div><p>bye&nbsp;now</p></body></html>";
        let all = text(html);
        let lines: Vec<&str> = all.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines, vec!["Play & QH", "bye now"]);
    }

    #[test]
    fn nested_quotes_are_left_out_whole() {
        let html = "<blockquote><blockquote>a</blockquote>b</blockquote>c<br>d";
        assert_eq!(text(html).trim(), "c\nd");
    }
}
