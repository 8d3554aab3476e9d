//! Waiting for a named condition: every test that acts and then reads waits here, with a
//! bounded deadline, and on failure says what it waited for and what it saw last.

use std::fmt::Display;
use std::time::{Duration, Instant};

/// How long a test waits for something the server or a browser does in the background. Long
/// enough for a loaded 2-core machine; a condition that holds returns at once.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// How often a condition is looked at again.
const POLL: Duration = Duration::from_millis(50);

/// Looks at `check` until it gives `Ok`, for at most `within`; its `Err` describes what it
/// saw. Panics naming `what` and the last thing seen when the time is up.
pub async fn until<T, E: Display>(
    what: &str,
    within: Duration,
    mut check: impl AsyncFnMut() -> Result<T, E>,
) -> T {
    let started = Instant::now();
    loop {
        match check().await {
            Ok(found) => return found,
            Err(seen) if started.elapsed() >= within => {
                panic!("waited {within:?} for {what}; last seen: {seen}")
            }
            Err(_) => actix_web::rt::time::sleep(POLL).await,
        }
    }
}

/// [`until`] for a check whose failure is costly to describe (a browser's whole page, fetched
/// every poll, was most of the browser tests' work): `check` gives `Some` once it holds, and
/// `seen` describes what was seen, once, when the time is up.
pub async fn until_some<T>(
    what: &str,
    within: Duration,
    mut check: impl AsyncFnMut() -> Option<T>,
    seen: impl AsyncFnOnce() -> String,
) -> T {
    let started = Instant::now();
    loop {
        if let Some(found) = check().await {
            return found;
        }
        if started.elapsed() >= within {
            panic!("waited {within:?} for {what}; last seen: {}", seen().await)
        }
        actix_web::rt::time::sleep(POLL).await;
    }
}

/// [`until`] with the usual patience, for a plain yes-or-no condition whose observation is
/// given by `seen` when it fails.
pub async fn holds(what: &str, mut check: impl AsyncFnMut() -> bool) {
    until(what, PATIENCE, async || {
        if check().await {
            Ok(())
        } else {
            Err("not yet")
        }
    })
    .await
}
