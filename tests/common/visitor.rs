//! A visitor of the real web app over HTTP that keeps its cookies, like a browser without
//! JavaScript: for sign-in, sessions and forms with their CSRF token.
#![allow(dead_code)]

use std::cell::RefCell;
use std::collections::BTreeMap;

/// One answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The body as text.
    pub body: String,
    /// The Location header, if any.
    pub location: Option<String>,
}

/// A visitor with a cookie jar.
pub struct Visitor {
    base: String,
    client: awc::Client,
    jar: RefCell<BTreeMap<String, String>>,
}

impl Visitor {
    /// A visitor of the app at `base`, with no cookies.
    pub fn new(base: &str) -> Visitor {
        Visitor {
            base: base.to_string(),
            client: awc::Client::builder().disable_redirects().finish(),
            jar: RefCell::new(BTreeMap::new()),
        }
    }

    /// The value of a cookie the visitor holds.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.jar.borrow().get(name).cloned()
    }

    /// Sets a cookie (as if it had been kept from before).
    pub fn set_cookie(&self, name: &str, value: &str) {
        self.jar
            .borrow_mut()
            .insert(name.to_string(), value.to_string());
    }

    fn cookie_header(&self) -> String {
        self.jar
            .borrow()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn finish(
        &self,
        mut res: awc::ClientResponse<
            impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin,
        >,
    ) -> Answer {
        for value in res.headers().get_all("set-cookie") {
            let text = value.to_str().unwrap();
            let pair = text.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            let removed = text.contains("Max-Age=0") || value.is_empty();
            let mut jar = self.jar.borrow_mut();
            if removed {
                jar.remove(name);
            } else {
                jar.insert(name.to_string(), value.to_string());
            }
        }
        let location = res
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_string());
        let body = res.body().limit(8 << 20).await.unwrap();
        Answer {
            status: res.status().as_u16(),
            body: String::from_utf8_lossy(&body).into_owned(),
            location,
        }
    }

    /// GET a path.
    pub async fn get(&self, path: &str) -> Answer {
        let res = self
            .client
            .get(format!("{}{path}", self.base))
            .insert_header(("Cookie", self.cookie_header()))
            .send()
            .await
            .unwrap();
        self.finish(res).await
    }

    /// GET a path with extra headers, and no cookies.
    pub async fn get_bare(&self, path: &str, headers: &[(&str, &str)]) -> Answer {
        let mut req = self.client.get(format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.insert_header((*k, *v));
        }
        let res = req.send().await.unwrap();
        self.finish(res).await
    }

    /// POST a form.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> Answer {
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields)
            .finish();
        let res = self
            .client
            .post(format!("{}{path}", self.base))
            .insert_header(("Cookie", self.cookie_header()))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
            .send_body(body)
            .await
            .unwrap();
        self.finish(res).await
    }

    /// POST a form with the CSRF token of the page at `page` (fetched first).
    pub async fn post_from(&self, page: &str, path: &str, fields: &[(&str, &str)]) -> Answer {
        let shown = self.get(page).await;
        let csrf = csrf_of(&shown.body).unwrap_or_else(|| panic!("{page} has a form: {shown:?}"));
        let mut all = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post(path, &all).await
    }
}

/// The CSRF token in a page's form.
pub fn csrf_of(page: &str) -> Option<String> {
    let at = page.find("name=\"csrf\" value=\"")? + "name=\"csrf\" value=\"".len();
    Some(page[at..].split('"').next()?.to_string())
}
