//! The mail channel of the outbox: a notice rendered into a multipart message (text and
//! HTML, threading and unsubscribe headers), composed, and handed to a transport (SMTP, or the
//! file-backed dev mailbox of the default local run; the sink is a test SMTP server).

pub mod compose;
pub mod mailbox;
pub mod render;
pub mod sink;
pub mod transport;
