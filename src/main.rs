//! The `postplay` command: see `postplay --help`.

/// mimalloc: the rules and JSON paths allocate many small objects; it is markedly faster here
/// than the system allocator (docs/PERFORMANCE.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    postplay::cli::run()
}
