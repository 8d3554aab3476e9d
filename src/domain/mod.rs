//! Values parsed once at the edge into types that cannot hold anything else: a player's name,
//! an email address, a club's name, a game's clock settings, the organiser's reason for cancelling. Every
//! layer uses them; they use nothing of ours.

mod account;
mod address;
pub mod clock;
mod club;
mod message;
mod names;
mod reason;
mod table;
mod webhook;

pub use account::{InvalidAccountField, LocalPath, TimeZoneName, TokenLabel};
pub use address::{EmailAddress, InvalidEmail, masked};
pub use clock::{ClockSettings, OnTimeout, TimeControl};
pub use club::{
    ClubDescription, ClubName, ClubRole, InvalidClubText, InvalidRole, LeagueName,
    MAX_CLUB_DESCRIPTION_CHARS, MAX_CLUB_NAME_CHARS,
};
pub use message::{InvalidMessage, MAX_MESSAGE_CHARS, MessageText};
pub use names::{InvalidName, MAX_NAME_CHARS, PlayerName, look_alikes};
pub use reason::{CancelReason, InvalidReason, MAX_REASON_CHARS};
pub use table::{
    DEFAULT_EXPIRY_DAYS, ExpiryDays, InvalidExpiry, InvalidSeating, MAX_EXPIRY_DAYS,
    MIN_EXPIRY_DAYS, Seating,
};
pub use webhook::{
    InvalidWebhookUrl, MAX_WEBHOOK_URL_CHARS, WebhookKind, WebhookUrl, masked_url, refused_address,
};
