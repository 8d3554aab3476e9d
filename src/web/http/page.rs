//! Answering with a page, and reading a submitted form.

use crate::web::WebError;
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use askama::Template;

/// Renders a page with a status.
pub(in crate::web) fn html(
    status: StatusCode,
    page: impl Template,
) -> Result<HttpResponse, WebError> {
    let body = page
        .render()
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(body))
}

/// The fields of a submitted form; a NUL anywhere is refused (no text of ours holds one, and
/// the database would refuse it).
pub(in crate::web) fn parse_form(body: &[u8]) -> Result<Vec<(String, String)>, WebError> {
    let fields: Vec<(String, String)> = form_urlencoded::parse(body).into_owned().collect();
    if fields
        .iter()
        .any(|(k, v)| k.contains('\0') || v.contains('\0'))
    {
        return Err(WebError::BadRequest(
            "a form field holds a NUL character".into(),
        ));
    }
    Ok(fields)
}

/// The first value of a form field.
pub(in crate::web) fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

tokio::task_local! {
    /// Whether the request being answered carries a session cookie (set by the protection
    /// middleware around every request).
    static SIGNED_IN: bool;
}

/// Runs `answer` knowing whether its request carries a session cookie, for the page header.
pub(in crate::web) async fn with_sign_in_hint<F: Future>(signed_in: bool, answer: F) -> F::Output {
    SIGNED_IN.scope(signed_in, answer).await
}

/// Whether the page being rendered answers a browser with a session cookie: the header offers
/// "Sign in" to the others. Only the cookie's presence is read (no query): a lapsed session's
/// reader is sent to sign in again by the page behind the link.
pub fn signed_in_hint() -> bool {
    SIGNED_IN.try_with(|s| *s).unwrap_or(false)
}

/// What a form sent, to show it again after a refusal: every value as typed, and the fields
/// at fault marked. A form shown for the first time has nothing sent and shows its defaults.
#[derive(Default)]
pub struct FormEcho {
    sent: Option<Vec<(String, String)>>,
    faults: Vec<String>,
}

impl FormEcho {
    /// A form shown for the first time: every field at its default.
    pub fn blank() -> FormEcho {
        FormEcho::default()
    }

    /// A form shown again with what was sent.
    pub fn sent(fields: &[(String, String)]) -> FormEcho {
        FormEcho {
            sent: Some(
                fields
                    .iter()
                    .filter(|(k, _)| k != "csrf")
                    .cloned()
                    .collect(),
            ),
            faults: Vec::new(),
        }
    }

    /// The same, with `field` marked as the one at fault.
    pub fn at_fault(mut self, field: &str) -> FormEcho {
        self.faults.push(field.to_string());
        self
    }

    /// A text field's value: what was sent, or `default` on a first showing.
    pub fn value<'a>(&'a self, name: &str, default: &'a str) -> &'a str {
        match &self.sent {
            Some(fields) => field(fields, name).unwrap_or(""),
            None => default,
        }
    }

    /// Whether a choice (an option, a radio button, a checkbox) is chosen: as sent, or
    /// `default` on a first showing.
    pub fn chosen(&self, name: &str, value: &str, default: bool) -> bool {
        match &self.sent {
            Some(fields) => fields.iter().any(|(k, v)| k == name && v == value),
            None => default,
        }
    }

    /// Whether the form is shown again after it was sent.
    pub fn was_sent(&self) -> bool {
        self.sent.is_some()
    }

    /// Whether the refusal was about `name`: its field is marked (`aria-invalid`).
    pub fn fault(&self, name: &str) -> bool {
        self.faults.iter().any(|f| f == name)
    }
}
