//! Who is asking: the client's address, taken from the connection, or from `X-Forwarded-For`
//! only when the connection comes from a reverse proxy the configuration trusts.

use actix_web::dev::RequestHead;
use std::net::{IpAddr, Ipv6Addr};

/// The client's address as limits count it. An IPv6 client is counted by its /64 network,
/// since one host may hold a whole /64 and rotate through it.
pub fn client_addr(head: &RequestHead, trusted: &[IpAddr]) -> IpAddr {
    let peer = head
        .peer_addr
        .map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip());
    let client = if trusted.contains(&peer) {
        forwarded_client(head, trusted).unwrap_or(peer)
    } else {
        peer
    };
    counted(client)
}

/// The nearest address in `X-Forwarded-For` that is not one of our proxies: each proxy appends
/// the address it was reached from, so the rightmost untrusted entry is the one a client
/// cannot forge.
fn forwarded_client(head: &RequestHead, trusted: &[IpAddr]) -> Option<IpAddr> {
    let mut entries: Vec<&str> = Vec::new();
    for value in head.headers().get_all("x-forwarded-for") {
        entries.extend(value.to_str().ok()?.split(','));
    }
    entries
        .iter()
        .rev()
        .map(|e| e.trim().parse::<IpAddr>().ok())
        .find(|ip| ip.is_none_or(|ip| !trusted.contains(&ip)))
        .flatten()
}

fn counted(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// True for a client on this machine: a loopback peer, and no forwarding header naming any
/// other address (a reverse proxy on the same machine connects from loopback too).
pub fn is_local(head: &RequestHead) -> bool {
    let forwarded_elsewhere = head
        .headers()
        .get_all("x-forwarded-for")
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .any(|e| {
            e.trim()
                .parse::<IpAddr>()
                .map_or(true, |ip| !ip.is_loopback())
        });
    head.peer_addr.is_some_and(|a| a.ip().is_loopback())
        && !forwarded_elsewhere
        && !head.headers().contains_key("forwarded")
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn head(peer: &str, forwarded: &[&str]) -> RequestHead {
        let mut req = TestRequest::default().peer_addr(peer.parse().unwrap());
        for f in forwarded {
            req = req.append_header(("X-Forwarded-For", *f));
        }
        req.to_srv_request().head().clone()
    }

    #[test]
    fn the_forwarded_header_counts_only_behind_a_trusted_proxy() {
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        let forged = head("203.0.113.9:5000", &["198.51.100.1"]);
        assert_eq!(
            client_addr(&forged, &[proxy]),
            "203.0.113.9".parse::<IpAddr>().unwrap()
        );
        let proxied = head("10.0.0.2:5000", &["198.51.100.1, 192.0.2.7"]);
        assert_eq!(
            client_addr(&proxied, &[proxy]),
            "192.0.2.7".parse::<IpAddr>().unwrap(),
            "the rightmost entry not added by our proxy"
        );
        assert_eq!(
            client_addr(&proxied, &[]),
            proxy,
            "no proxy trusted: the peer"
        );
    }

    #[test]
    fn ipv6_counts_by_network() {
        let a = head("[2001:db8:1:2:aaaa::1]:5000", &[]);
        let b = head("[2001:db8:1:2:bbbb::9]:5000", &[]);
        assert_eq!(client_addr(&a, &[]), client_addr(&b, &[]));
    }
}
