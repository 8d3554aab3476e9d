//! Standard output for the verbs that print (`replay`, `selfplay`, `games`, `export`,
//! `import`): when the reader goes away (`postplay replay --trace game.json | head`), printing
//! stops quietly instead of panicking on the broken pipe.

use std::fmt;
use std::io::{self, ErrorKind, StdoutLock, Write};

/// Lines to standard output that stop at the first failed write.
pub struct Out {
    stdout: StdoutLock<'static>,
    closed: bool,
}

impl Out {
    /// Standard output, locked for the verb's lifetime.
    pub fn new() -> Out {
        Out {
            stdout: io::stdout().lock(),
            closed: false,
        }
    }

    /// Writes one line; false once output is gone. A broken pipe is said nowhere; any other
    /// failure once, on standard error.
    pub fn line(&mut self, args: fmt::Arguments) -> bool {
        if self.closed {
            return false;
        }
        if let Err(e) = writeln!(self.stdout, "{args}") {
            self.closed = true;
            if e.kind() != ErrorKind::BrokenPipe {
                eprintln!("cannot write to standard output: {e}");
            }
        }
        !self.closed
    }

    /// True once a write has failed (the reader went away).
    pub fn closed(&self) -> bool {
        self.closed
    }
}
