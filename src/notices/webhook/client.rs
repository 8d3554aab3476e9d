//! The outbound HTTP client of webhooks: reqwest over rustls, no proxy, no redirects followed,
//! short time limits, at most [`MAX_RESPONSE_BYTES`] of an answer read, and a resolver that
//! drops every address a name resolves to that is not public ([`refused_address`]), so a
//! request never reaches a private, loopback or link-local address however the name resolves
//! at the moment of connecting (DNS rebinding). Addresses written in the URL are checked when
//! it is parsed ([`WebhookUrl::parse`], again at every delivery). No error names the URL.

use crate::domain::{WebhookUrl, refused_address};
use crate::notices::SendError;
use crate::notices::webhook::body::HookRequest;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The most of an answer's body read (for the error shown to the webhook's owner).
pub const MAX_RESPONSE_BYTES: usize = 1024;

/// Time to connect (resolution and TLS included).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Time for the whole request, answer included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Every address a name resolved to was refused.
#[derive(Debug, thiserror::Error)]
#[error("the webhook's host resolves only to addresses that may not be reached ({0})")]
pub struct RefusedHost(String);

/// A resolver that keeps only the addresses we may reach.
struct PublicOnly {
    loopback_ok: bool,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let loopback_ok = self.loopback_ok;
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            // Boxed as itself, so that `describe` finds it among the error's causes.
            let kept = public_only(&found, loopback_ok)?;
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// The addresses of `found` that may be reached; an error when none may.
pub fn public_only(
    found: &[SocketAddr],
    loopback_ok: bool,
) -> Result<Vec<SocketAddr>, RefusedHost> {
    let kept: Vec<SocketAddr> = found
        .iter()
        .filter(|a| refused_address(a.ip(), loopback_ok).is_none())
        .copied()
        .collect();
    if kept.is_empty() {
        let why = found
            .first()
            .and_then(|a| refused_address(a.ip(), loopback_ok))
            .unwrap_or("no address");
        return Err(RefusedHost(why.to_string()));
    }
    Ok(kept)
}

/// The client the outbox worker sends webhook notices with.
#[derive(Clone)]
pub struct HookClient {
    client: reqwest::Client,
    loopback_ok: bool,
}

fn tls() -> rustls::ClientConfig {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring supports the default TLS versions")
        .with_root_certificates(roots)
        .with_no_client_auth()
}

impl HookClient {
    /// A client; `loopback_ok` is the development setting that lets webhooks reach loopback
    /// addresses (and `http` URLs to them).
    pub fn new(loopback_ok: bool) -> HookClient {
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(tls())
            .dns_resolver(Arc::new(PublicOnly { loopback_ok }))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .pool_max_idle_per_host(2)
            .user_agent(concat!("postplay-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("the webhook client builds");
        HookClient {
            client,
            loopback_ok,
        }
    }

    /// Posts `request` to `url`. A refused address, a URL no longer accepted, a redirect or a
    /// 4xx answer (but 408 and 429) is permanent; anything else is tried again.
    pub async fn post(&self, url: &str, request: HookRequest) -> Result<(), SendError> {
        let permanent = |message: String| SendError {
            permanent: true,
            message,
        };
        let url = WebhookUrl::parse(url, self.loopback_ok)
            .map_err(|e| permanent(format!("the webhook's URL is not accepted: {e}")))?;
        let mut builder = self
            .client
            .post(url.url().clone())
            .header("Content-Type", "application/json");
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        let mut answer = builder.body(request.body).send().await.map_err(describe)?;
        let status = answer.status();
        let mut read = Vec::new();
        while read.len() < MAX_RESPONSE_BYTES {
            match answer.chunk().await {
                Ok(Some(chunk)) => read.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        read.truncate(MAX_RESPONSE_BYTES);
        if status.is_success() {
            return Ok(());
        }
        let said: String = String::from_utf8_lossy(&read)
            .chars()
            .filter(|c| !c.is_control())
            .take(200)
            .collect();
        let message = if said.trim().is_empty() {
            format!("the webhook answered {status}")
        } else {
            format!("the webhook answered {status}: {}", said.trim())
        };
        let retry = status.is_server_error()
            || status == reqwest::StatusCode::TOO_MANY_REQUESTS
            || status == reqwest::StatusCode::REQUEST_TIMEOUT;
        if status.is_redirection() {
            return Err(permanent(format!(
                "{message} (a redirect, which is not followed)"
            )));
        }
        Err(SendError {
            permanent: !retry,
            message,
        })
    }
}

/// A failed request in words, without its URL; permanent when the address was refused.
fn describe(error: reqwest::Error) -> SendError {
    let error = error.without_url();
    let mut refused = false;
    let mut message = if error.is_timeout() {
        "the webhook did not answer in time".to_string()
    } else if error.is_connect() {
        "could not connect to the webhook".to_string()
    } else {
        "the request to the webhook failed".to_string()
    };
    let mut source = std::error::Error::source(&error);
    let mut last = String::new();
    while let Some(cause) = source {
        if let Some(r) = cause.downcast_ref::<RefusedHost>() {
            refused = true;
            last = r.to_string();
            break;
        }
        last = cause.to_string();
        source = cause.source();
    }
    if !last.is_empty() {
        message.push_str(": ");
        message.push_str(&last);
    }
    SendError {
        permanent: refused,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resolver_keeps_public_addresses_only() {
        let addr = |s: &str| -> SocketAddr { s.parse().unwrap() };
        let mixed = [
            addr("10.0.0.1:0"),
            addr("93.184.215.14:0"),
            addr("[fe80::1]:0"),
        ];
        assert_eq!(
            public_only(&mixed, false).unwrap(),
            vec![addr("93.184.215.14:0")]
        );
        let rebinding = [addr("127.0.0.1:0"), addr("[::1]:0")];
        let e = public_only(&rebinding, false).unwrap_err();
        assert!(e.to_string().contains("loopback"), "{e}");
        assert_eq!(public_only(&rebinding, true).unwrap().len(), 2);
        assert!(public_only(&[addr("169.254.169.254:0")], true).is_err());
        assert!(public_only(&[], false).is_err());
    }
}
