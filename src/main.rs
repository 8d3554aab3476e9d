//! The `postplay` command: see `postplay --help`.

fn main() -> std::process::ExitCode {
    postplay::cli::run()
}
