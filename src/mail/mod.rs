//! Email: addresses, the notices players and organisers get, their rendering into multipart
//! messages with threading and unsubscribe headers, and the transports (SMTP; a file-backed
//! dev mailbox for the default local run).

pub mod chat;
pub mod clock;
pub mod club;
pub mod compose;
pub mod effects;
pub mod inbound;
pub mod invite;
pub mod league;
pub mod links;
pub mod mailbox;
pub mod notice;
pub mod outbox;
pub mod plan;
pub mod render;
pub mod reply;
pub mod seat_change;
pub mod settings;
pub mod sign_in;
pub mod sink;
pub mod table;
pub mod thread;
pub mod transport;
pub mod turn;
pub mod webhook;
pub mod worker;

pub use crate::domain::{EmailAddress, InvalidEmail};
pub use compose::{Envelope, Sender, compose};
pub use mailbox::DevMailbox;
pub use notice::Notice;
pub use render::{MailContext, Rendered, render};
pub use transport::{SendError, SmtpConfig, Transport};
