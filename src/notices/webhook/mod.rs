//! Chat notifications (docs/WEBHOOKS.md): a your-turn notice or a game's end, for a seat whose
//! account has webhooks, queued in the outbox in the move's own transaction (one row per
//! webhook, naming it by id, never by URL), and sent by the outbox worker with mail's retries
//! and undeliverable marking. A chat channel is shared, so a webhook notice carries no seat
//! link and nothing of the seat's hidden information: it names the game and points to the
//! account's games behind sign-in (`/me`).

pub mod body;
pub mod client;

use crate::notices::notice::{GameRef, Player};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use client::HookClient;

/// The outbox `kind` of a webhook delivery.
pub const HOOK_KIND: &str = "webhook";

/// What happened, as a webhook hears it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookEvent {
    /// The seat must act.
    Turn,
    /// The game ended (or was cancelled).
    Over,
}

impl HookEvent {
    /// The word in the JSON and the `X-Postplay-Event` header.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::Turn => "turn",
            HookEvent::Over => "over",
        }
    }
}

/// A webhook notice as the outbox stores it: public facts about the game and the seat's own
/// name and role, never a link token or the seat's hidden information.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookNotice {
    /// Turn or game end.
    pub event: HookEvent,
    /// The game.
    pub game: GameRef,
    /// The account's seat in it.
    pub you: Player,
    /// The seat's deadline, on a turn under a clock.
    pub deadline: Option<DateTime<Utc>>,
    /// How the game ended, in the public log's words.
    pub result: Option<String>,
    /// The winners' names.
    pub winners: Vec<String>,
    /// The organiser cancelled the game.
    pub cancelled: bool,
    /// When it happened.
    pub at: DateTime<Utc>,
}
