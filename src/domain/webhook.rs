//! A chat webhook as a person types it (docs/WEBHOOKS.md): its kind, and its URL, parsed once
//! into a type that holds only an `https` URL whose host is a name or a public address (an
//! `http` URL to a loopback address only when the development setting allows it). The same
//! address filter is applied again to every address a name resolves to when a notice is sent.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The longest URL accepted (Discord's and Slack's are about 120 characters).
pub const MAX_WEBHOOK_URL_CHARS: usize = 500;

/// The shape of the JSON a webhook is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookKind {
    /// A Discord incoming webhook: `{"content": ...}`.
    Discord,
    /// A Slack incoming webhook (and Mattermost's, Rocket.Chat's): `{"text": ...}`.
    Slack,
    /// Our own JSON, signed with HMAC-SHA256 under a secret shown once.
    Generic,
}

impl WebhookKind {
    /// Every kind, in the order a form offers them.
    pub const ALL: [WebhookKind; 3] = [
        WebhookKind::Discord,
        WebhookKind::Slack,
        WebhookKind::Generic,
    ];

    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookKind::Discord => "discord",
            WebhookKind::Slack => "slack",
            WebhookKind::Generic => "generic",
        }
    }

    /// From the stored word, or a form's value.
    pub fn parse(text: &str) -> Option<WebhookKind> {
        WebhookKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The kind in words, for pages.
    pub fn label(self) -> &'static str {
        match self {
            WebhookKind::Discord => "Discord",
            WebhookKind::Slack => "Slack",
            WebhookKind::Generic => "JSON, signed",
        }
    }
}

/// Why an address may not be reached, in words (`None`: it may).
///
/// Refused: unspecified, loopback (unless `loopback_ok`), private (10/8, 172.16/12,
/// 192.168/16), carrier-grade NAT (100.64/10), link-local (169.254/16, fe80::/10), unique
/// local (fc00::/7), multicast, broadcast, documentation and benchmarking ranges, the
/// IETF-reserved 0/8, 192.0.0/24 and 240/4, IPv4-translated (::ffff:0:0:0/96) and local-use
/// NAT64 (64:ff9b:1::/48) whole, and IPv6 forms that carry an IPv4 address (mapped,
/// compatible, well-known NAT64, 6to4), which are judged by that address.
pub fn refused_address(ip: IpAddr, loopback_ok: bool) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4, loopback_ok),
        IpAddr::V6(v6) => refused_v6(v6, loopback_ok),
    }
}

fn refused_v4(ip: Ipv4Addr, loopback_ok: bool) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip.is_loopback() {
        return (!loopback_ok).then_some("a loopback address");
    }
    let reason = match (a, b, c) {
        (0, _, _) => "an unspecified or reserved address",
        (10, _, _) => "a private address",
        (100, 64..=127, _) => "a carrier-grade NAT address",
        (169, 254, _) => "a link-local address",
        (172, 16..=31, _) => "a private address",
        (192, 168, _) => "a private address",
        (192, 0, 0) => "a reserved address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking address",
        (224..=239, _, _) => "a multicast address",
        (240..=255, _, _) => "a reserved or broadcast address",
        _ => return None,
    };
    Some(reason)
}

fn refused_v6(ip: Ipv6Addr, loopback_ok: bool) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refused_v4(v4, loopback_ok);
    }
    if ip.is_loopback() {
        return (!loopback_ok).then_some("a loopback address");
    }
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    let s = ip.segments();
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from(((hi as u32) << 16) | lo as u32);
    match s {
        // ::a.b.c.d (deprecated IPv4-compatible) and 64:ff9b::a.b.c.d (NAT64).
        [0, 0, 0, 0, 0, 0, hi, lo] | [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => {
            refused_v4(embedded(hi, lo), false)
        }
        // ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765): a translator's address, never a
        // public host's, whatever it carries.
        [0, 0, 0, 0, 0xffff, 0, _, _] => Some("an IPv4-translated address"),
        // 64:ff9b:1::/48 (local-use NAT64, RFC 8215): a network's own translator.
        [0x64, 0xff9b, 1, ..] => Some("a local-use NAT64 address"),
        // 6to4: 2002:a.b.c.d::/48.
        [0x2002, hi, lo, ..] => refused_v4(embedded(hi, lo), false),
        [first, ..] if first & 0xfe00 == 0xfc00 => Some("a unique-local address"),
        [first, ..] if first & 0xffc0 == 0xfe80 => Some("a link-local address"),
        [first, ..] if first & 0xffc0 == 0xfec0 => Some("a site-local address"),
        [first, ..] if first & 0xff00 == 0xff00 => Some("a multicast address"),
        [0x2001, 0xdb8, ..] => Some("a documentation address"),
        [0x100, 0, 0, 0, ..] => Some("a discard-only address"),
        _ => None,
    }
}

/// Why a typed text is not a webhook URL we will send to; the message is meant for a form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidWebhookUrl(pub String);

/// A webhook's URL: `https` to a host name or a public address, no user name or password, at
/// most [`MAX_WEBHOOK_URL_CHARS`]; or `http` to a loopback address when allowed. A secret: its
/// `Debug` and `Display` show only [`masked_url`].
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookUrl(url::Url);

impl WebhookUrl {
    /// Parses a URL typed by a person (surrounding spaces ignored). `loopback_http` is the
    /// development setting that lets `http` reach a loopback address (and only that).
    pub fn parse(text: &str, loopback_http: bool) -> Result<WebhookUrl, InvalidWebhookUrl> {
        let text = text.trim();
        let refuse = |why: &str| Err(InvalidWebhookUrl(why.to_string()));
        if text.is_empty() {
            return refuse("paste the webhook's URL");
        }
        if text.chars().count() > MAX_WEBHOOK_URL_CHARS {
            return refuse(&format!(
                "a webhook URL has at most {MAX_WEBHOOK_URL_CHARS} characters"
            ));
        }
        let Ok(url) = url::Url::parse(text) else {
            return refuse(
                "this is not a URL: it should look like https://discord.com/api/webhooks/…",
            );
        };
        if !url.username().is_empty() || url.password().is_some() {
            return refuse("a webhook URL with a user name or password in it is not accepted");
        }
        let http = match url.scheme() {
            "https" => false,
            "http" if loopback_http => true,
            _ => return refuse("only https URLs are accepted"),
        };
        let loopback_host = match url.host() {
            None => return refuse("the URL names no host"),
            Some(url::Host::Domain(_)) => false,
            Some(url::Host::Ipv4(v4)) => check_literal(IpAddr::V4(v4), loopback_http)?,
            Some(url::Host::Ipv6(v6)) => check_literal(IpAddr::V6(v6), loopback_http)?,
        };
        if http && !loopback_host {
            return refuse(
                "an http URL is allowed only to a loopback address (127.0.0.1, [::1]); use https",
            );
        }
        Ok(WebhookUrl(url))
    }

    /// The full URL, for sending and storing only.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The parsed URL, for the HTTP client.
    pub fn url(&self) -> &url::Url {
        &self.0
    }
}

/// True when the literal address is a loopback one that `loopback_http` allows; an error when
/// it is refused.
fn check_literal(ip: IpAddr, loopback_http: bool) -> Result<bool, InvalidWebhookUrl> {
    match refused_address(ip, loopback_http) {
        Some(why) => Err(InvalidWebhookUrl(format!(
            "{ip} is {why}: a webhook must be reachable on the public internet"
        ))),
        None => Ok(match ip {
            IpAddr::V4(v4) => v4.is_loopback(),
            IpAddr::V6(v6) => {
                v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
            }
        }),
    }
}

/// What a page shows of a stored webhook URL: its host and its last four characters
/// (`discord.com …f00d`), never the secret path whole.
pub fn masked_url(url: &str) -> String {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    let chars: Vec<char> = url.chars().collect();
    let tail: String = chars[chars.len().saturating_sub(4)..].iter().collect();
    format!("{host} …{tail}")
}

impl fmt::Debug for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WebhookUrl({})", masked_url(self.0.as_str()))
    }
}

impl fmt::Display for WebhookUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&masked_url(self.0.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        refused_address(text.parse().unwrap(), false).is_some()
    }

    #[test]
    fn the_address_filter_refuses_every_non_public_range() {
        for bad in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.8.9.10",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:10.0.0.1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:0a00:0001::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "100::1",
            "::ffff:0:a00:1",
            "::ffff:0:808:808",
            "::ffff:0:7f00:1",
            "64:ff9b:1::1",
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
            "64:ff9b:1::a9fe:a9fe",
        ] {
            assert!(refused(bad), "{bad} must be refused");
        }
        for good in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.167.1.1",
            "162.159.128.233",
            "2606:4700::6810:84e5",
            "::ffff:8.8.8.8",
            "2002:0808:0808::1",
            "64:ff9b::808:808",
            "64:ff9b:2::1",
            "::fffe:0:808:808",
        ] {
            assert!(!refused(good), "{good} is public");
        }
    }

    #[test]
    fn loopback_passes_the_filter_only_when_allowed() {
        for lo in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            let ip: IpAddr = lo.parse().unwrap();
            assert!(refused_address(ip, false).is_some(), "{lo}");
            assert_eq!(refused_address(ip, true), None, "{lo}");
        }
        // The development setting opens loopback only, never the private ranges.
        assert!(refused_address("10.0.0.1".parse().unwrap(), true).is_some());
        assert!(refused_address("169.254.169.254".parse().unwrap(), true).is_some());
    }

    #[test]
    fn urls_are_https_to_a_name_or_a_public_address() {
        let ok = WebhookUrl::parse(" https://discord.com/api/webhooks/123/abcdef ", false).unwrap();
        assert_eq!(ok.as_str(), "https://discord.com/api/webhooks/123/abcdef");
        assert!(WebhookUrl::parse("https://1.1.1.1/hook", false).is_ok());
        assert!(WebhookUrl::parse("https://[2606:4700::1]/hook", false).is_ok());
        for (bad, says) in [
            ("", "paste"),
            ("discord.com/api/webhooks/1", "not a URL"),
            ("http://hooks.slack.com/services/x", "only https"),
            ("ftp://example.org/x", "only https"),
            ("https://user:pw@example.org/x", "user name or password"),
            ("https://10.0.0.1/x", "private"),
            ("https://169.254.169.254/latest/meta-data", "link-local"),
            ("https://127.0.0.1/x", "loopback"),
            ("https://2130706433/x", "loopback"),
            ("https://0x7f.1/x", "loopback"),
            ("https://[::1]/x", "loopback"),
            ("https://[::ffff:a00:1]/x", "private"),
            ("https://[fd00::1]/x", "unique-local"),
            ("https://[::ffff:0:808:808]/x", "IPv4-translated"),
            ("https://[64:ff9b:1::808:808]/x", "local-use NAT64"),
            ("https://100.64.1.1/x", "carrier-grade"),
            ("https://0.0.0.0/x", "unspecified"),
            ("https://224.0.0.1/x", "multicast"),
        ] {
            let e = WebhookUrl::parse(bad, false).unwrap_err();
            assert!(e.0.contains(says), "{bad}: {e}");
        }
        let long = format!("https://example.org/{}", "a".repeat(MAX_WEBHOOK_URL_CHARS));
        assert!(WebhookUrl::parse(&long, false).is_err());
    }

    #[test]
    fn http_reaches_loopback_only_with_the_development_setting() {
        assert!(WebhookUrl::parse("http://127.0.0.1:9000/hook", true).is_ok());
        assert!(WebhookUrl::parse("http://[::1]:9000/hook", true).is_ok());
        assert!(WebhookUrl::parse("http://127.0.0.1:9000/hook", false).is_err());
        assert!(WebhookUrl::parse("http://localhost:9000/hook", true).is_err());
        assert!(WebhookUrl::parse("http://example.org/hook", true).is_err());
        assert!(WebhookUrl::parse("http://10.0.0.1/hook", true).is_err());
        assert!(WebhookUrl::parse("https://127.0.0.1:9000/hook", true).is_ok());
    }

    #[test]
    fn pages_see_the_host_and_four_characters() {
        let url = "https://discord.com/api/webhooks/123/secretf00d";
        assert_eq!(masked_url(url), "discord.com …f00d");
        let parsed = WebhookUrl::parse(url, false).unwrap();
        assert!(!format!("{parsed:?} {parsed}").contains("secret"));
        assert_eq!(WebhookKind::parse("slack"), Some(WebhookKind::Slack));
        assert_eq!(WebhookKind::parse("irc"), None);
    }
}
