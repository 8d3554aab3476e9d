//! A failing test must fail alone. When a test's body panics inside its runtime, the runtime
//! is dropped while unwinding and its tasks with it; a task that still holds a database
//! connection or a LISTEN (a worker the test started) returns it by spawning onto "the
//! current runtime" — which is gone, so sqlx panics again and the panic inside a drop aborts
//! the whole test binary, hiding every other result.
//!
//! So when a test's database is dropped while a panic leaves the test (not one the test
//! catches itself), a spare runtime is made current on that thread first; those last spawns
//! land there and end quietly. Tokio lets a guard entered later stay when the runtime's own
//! guard is dropped out of order during a panic; the test's thread ends with it.

use std::sync::OnceLock;

static SPARE: OnceLock<tokio::runtime::Runtime> = OnceLock::new();

/// Makes the spare runtime current on this thread for the rest of its unwinding; only while
/// a panic is leaving the test ([`std::thread::panicking`]).
pub fn spare_runtime_while_unwinding() {
    if !std::thread::panicking() {
        return;
    }
    let spare = SPARE.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("spare-after-panic")
            .enable_all()
            .build()
            .expect("a spare runtime")
    });
    std::mem::forget(spare.enter());
}
