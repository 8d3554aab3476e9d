//! A failing test must fail alone. When a test's body panics inside its runtime, the runtime
//! is dropped while unwinding and its tasks with it; a task that still holds a database
//! connection or a LISTEN (a worker the test started) returns it by spawning onto "the
//! current runtime" — which is gone, so sqlx panics again and the panic inside a drop aborts
//! the whole test binary, hiding every other result. The hook here makes a spare runtime the
//! current one on the panicking thread first; those last spawns land there and end quietly.

use std::sync::{Once, OnceLock};

static SPARE: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
static HOOK: Once = Once::new();

/// Installs the hook (once per test binary), keeping the default report of the panic.
pub fn keep_a_panic_to_its_test() {
    HOOK.call_once(|| {
        let spare = SPARE.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("spare-after-panic")
                .enable_all()
                .build()
                .expect("a spare runtime")
        });
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            report(info);
            // Left current for the rest of this thread's unwinding (the test's thread ends
            // with it). Tokio lets a guard entered later stay when the runtime's own guard
            // is dropped out of order during a panic.
            std::mem::forget(spare.enter());
        }));
    });
}
