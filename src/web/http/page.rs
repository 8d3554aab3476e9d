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
