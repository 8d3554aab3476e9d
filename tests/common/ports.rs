//! Loopback ports for servers a test starts as processes of their own (`postplay serve`,
//! pg_auto_failover's nodes), which must be told their port before they bind it.
//!
//! A port the kernel hands out for `bind(…:0)`, let go for the child to bind, can meanwhile be
//! handed out again to any other `bind(…:0)`: the servers the tests start in-process,
//! chromedriver, another test's child. Taken so, the child fails to bind and the test talks
//! to a stranger (a browser test once waited 30 s on another test's server). So these ports
//! come from just below the kernel's ephemeral range, which it never hands out on its own,
//! picked at random and checked free; two tests would have to pick the same one of thousands
//! within the same moment to meet.

use std::hash::{BuildHasher, Hasher};
use std::net::TcpListener;

/// How many ports below the ephemeral range they are picked from.
const SPAN: u16 = 12_000;

/// The first port of the kernel's ephemeral range (Linux's default when it does not say).
fn ephemeral_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

/// A loopback port free now, outside the range `bind(…:0)` draws from.
pub fn free_port() -> u16 {
    let end = ephemeral_start();
    let start = end.saturating_sub(SPAN).max(1_024);
    let mut random = std::collections::hash_map::RandomState::new().build_hasher();
    random.write_u32(std::process::id());
    for attempt in 0u32.. {
        random.write_u32(attempt);
        let port = start + (random.finish() % u64::from(end - start)) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
        assert!(attempt < 1_000, "no free port in {start}..{end}");
    }
    unreachable!()
}
