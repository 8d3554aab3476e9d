//! Notices: what players, organisers and club members are told, and how it reaches them. Each
//! builder (`turn`, `clock`, `invite`, `table`, `thread`, `club`, `league`, `seat_change`,
//! `sign_in`, `links`, `chat`) words one kind of news and queues it in the one outbox
//! ([`outbox`]) inside the transaction that made the news; the outbox's worker sends each row
//! through its channel: mail ([`mail`]: rendering, threading, SMTP or the dev mailbox) or a
//! chat webhook ([`webhook`]). The outbox never calls a builder back. [`reply`] is what a
//! notice offers to be answered with (reply lines, reply addresses); replies themselves are
//! [`crate::replies`].

pub mod chat;
pub mod clock;
pub mod club;
pub mod effects;
pub mod invite;
pub mod league;
pub mod links;
pub mod mail;
pub mod notice;
pub mod outbox;
pub mod plan;
pub mod reply;
pub mod review;
pub mod seat_change;
pub mod sign_in;
pub mod table;
pub mod thread;
pub mod turn;
pub mod webhook;

pub use crate::domain::{EmailAddress, InvalidEmail};
pub use mail::compose::{Envelope, Sender, compose};
pub use mail::mailbox::DevMailbox;
pub use mail::render::{MailContext, Rendered, render};
pub use mail::transport::{SendError, SmtpConfig, Transport};
pub use notice::Notice;
