//! Just enough MIME reading for the mail tests: header fields (unfolded) and the decoded
//! text/plain and text/html parts of a multipart/alternative message.
#![allow(dead_code)]

/// The header fields of a message, in order, with folded lines joined.
pub fn headers(data: &str) -> Vec<(String, String)> {
    let head = data.split("\r\n\r\n").next().unwrap_or("");
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in head.split("\r\n") {
        if line.starts_with(' ') || line.starts_with('\t') {
            if let Some(last) = fields.last_mut() {
                last.1.push_str(line);
            }
        } else if let Some((name, value)) = line.split_once(':') {
            fields.push((name.to_string(), value.trim().to_string()));
        } else {
            fields.push((line.to_string(), String::new()));
        }
    }
    fields
}

/// The value of the one header of this name (case-insensitive); panics if there are several.
pub fn header(data: &str, name: &str) -> Option<String> {
    let found: Vec<String> = headers(data)
        .into_iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
        .collect();
    assert!(found.len() <= 1, "{name} appears {} times", found.len());
    found.into_iter().next()
}

/// The decoded body of the part with this content type (`text/plain`).
pub fn part(data: &str, content_type: &str) -> Option<String> {
    let content = header(data, "Content-Type")?;
    let boundary = content
        .split("boundary=")
        .nth(1)?
        .trim_matches('"')
        .to_string();
    let marker = format!("--{boundary}");
    for section in data.split(&marker).skip(1) {
        let Some((head, body)) = section.split_once("\r\n\r\n") else {
            continue;
        };
        if !head.to_ascii_lowercase().contains(content_type) {
            continue;
        }
        let body = body.trim_end_matches("\r\n");
        let decoded = quoted_printable::decode(body, quoted_printable::ParseMode::Robust).ok()?;
        return Some(String::from_utf8(decoded).ok()?.replace("\r\n", "\n"));
    }
    None
}
