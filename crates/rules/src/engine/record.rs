//! The record of a game (docs/record-format.md) and its replay through the rules.

use super::{ApplyError, DynGame, DynMatch, Log, Seat, Seed, SetupError, game_in};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Everything needed to replay a game: the export format.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The game id (`"whitehouse"`).
    pub game: String,
    /// The rules version the game began with.
    pub rules_version: u32,
    /// The options, as the game's options JSON.
    pub options: Value,
    /// How many seats play.
    pub seats: usize,
    /// Display names by seat, if known; pages and the replayed log use them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_names: Vec<String>,
    /// The seed, which fixes every shuffle. Absent from the export of a game still running:
    /// the seed stays secret until the end, and only `commitment` is published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// SHA-256 of the seed (hex), published when the game was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commitment: Option<String>,
    /// How the seed was derived from a seed committed ahead of time and the players'
    /// contributions (docs/FAIRNESS.md); with the seed, once the game is over. Absent from
    /// records of games made before fair deals, and of games made with a chosen seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal: Option<super::deal::Deal>,
    /// The commands in order.
    pub commands: Vec<RecordedCommand>,
    /// The hash-chain link of the last entry (hex), as the game page published it; in exports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_head: Option<String>,
    /// The state hash after the last command, as written by the recorder; replay checks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_state_hash: Option<String>,
    /// What the players said to each other, in the order written. Not commands: outside the
    /// hash chain, ignored by replay and verification.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<RecordedMessage>,
}

/// A message of the game's thread in a record.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordedMessage {
    /// The author's seat; absent for a spectator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    /// The author's display name when it was written.
    pub author: String,
    /// When it was written (RFC 3339, UTC).
    pub at: String,
    /// How many commands the log held when it was written.
    pub after: i64,
    /// The text; absent when the message was hidden.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True when the organiser hid the message (its text is then left out).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

/// One logged command.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordedCommand {
    /// The seat that sent it.
    pub seat: Seat,
    /// The command JSON.
    pub command: Value,
    /// When the server accepted it (RFC 3339, UTC, microseconds), in exports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The hash-chain link of this entry (hex), in exports; see [`crate::engine::audit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// True when `command` is only the public form of a command whose rest is hidden from the
    /// reader while the game runs (a discard into the kitty, a sealed sign): its chain link can
    /// be checked once the game is over and the full record is published.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
    /// Who made it when not the seat by its own hand ([`Mark`]): `"clock"` for the
    /// correspondence clock (the seat's time ran out), `"organiser"` for the organiser's
    /// cancellation, `"auto"` for a seat's only possible move played for it, `"standing"` for
    /// a move one of the seat's standing orders made, `"bot"` for a practice bot's move. Part
    /// of the hash chain when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// The command the clock logs when a seat forfeits on time: the game ends there.
pub fn forfeit_command() -> Value {
    serde_json::json!({"type": "forfeit"})
}

/// Who a clock entry names in `by`.
pub const BY_CLOCK: &str = "clock";

/// Who the organiser's entry names in `by`.
pub const BY_ORGANISER: &str = "organiser";

/// Who the entry of a forced move, played for its seat, names in `by`.
pub const BY_AUTO: &str = "auto";

/// Who the entry a seat's standing order made names in `by`.
pub const BY_STANDING: &str = "standing";

/// What an undo entry names in `by`: the seat took back its last command.
pub const BY_UNDO: &str = "undo";

/// Who the entry of a practice bot's move names in `by`: the seat is the bot's.
pub const BY_BOT: &str = "bot";

/// The command of an undo entry (marked [`Mark::Undo`]).
pub fn undo_command() -> Value {
    serde_json::json!({"type": "undo"})
}

/// Who made an entry when not its seat by its own hand, or what kind of entry it is: the
/// record's `by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The correspondence clock: the seat's time ran out (its timeout move, or a forfeit).
    Clock,
    /// The organiser: the game's cancellation.
    Organiser,
    /// postplay, for the seat: its only possible move.
    Auto,
    /// One of the seat's standing orders.
    Standing,
    /// The seat itself, taking back its last command (see [`crate::engine::Match::undo`]):
    /// the entry's command is [`undo_command`]. Not a move of the game.
    Undo,
    /// A practice bot, whose seat it is (docs/BOTS.md): nobody holds a bot's seat.
    Bot,
}

impl Mark {
    /// Every mark.
    pub const ALL: [Mark; 6] = [
        Mark::Clock,
        Mark::Organiser,
        Mark::Auto,
        Mark::Standing,
        Mark::Undo,
        Mark::Bot,
    ];

    /// The mark as the record and the database write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Clock => BY_CLOCK,
            Mark::Organiser => BY_ORGANISER,
            Mark::Auto => BY_AUTO,
            Mark::Standing => BY_STANDING,
            Mark::Undo => BY_UNDO,
            Mark::Bot => BY_BOT,
        }
    }

    /// The mark a record names; `None` for a word that is no mark.
    pub fn parse(word: &str) -> Option<Mark> {
        Mark::ALL.into_iter().find(|m| m.as_str() == word)
    }

    /// Whether the entry is the seat's own move, though not made by its hand: it ends the
    /// seat's wait like any move and counts as its last move.
    pub fn is_seats_own(self) -> bool {
        matches!(self, Mark::Auto | Mark::Standing | Mark::Bot)
    }
}

/// The command the organiser's cancellation logs: the game ends there, unfinished.
pub fn cancel_command(reason: &str) -> Value {
    serde_json::json!({"type": "cancel", "reason": reason})
}

/// An entry that ends the game by the server's hand rather than through the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending<'a> {
    /// The clock's forfeit of the entry's seat.
    Forfeit,
    /// The organiser's cancellation, with its reason.
    Cancel(&'a str),
}

/// What an entry played `by` someone other than its seat ends, if anything; `Err` for an
/// organiser's entry that is no cancellation (the organiser plays no moves).
pub fn ending<'a>(by: Option<&str>, command: &'a Value) -> Result<Option<Ending<'a>>, String> {
    match by {
        Some(BY_CLOCK) if *command == forfeit_command() => Ok(Some(Ending::Forfeit)),
        Some(BY_ORGANISER) => match command.as_object() {
            Some(fields)
                if fields.len() == 2 && fields.get("type") == Some(&Value::from("cancel")) =>
            {
                match fields.get("reason").and_then(Value::as_str) {
                    Some(reason) => Ok(Some(Ending::Cancel(reason))),
                    None => Err("a cancellation without a reason".into()),
                }
            }
            _ => Err("the organiser's entry is not a cancellation".into()),
        },
        _ => Ok(None),
    }
}

/// Applies an entry the way the log stands: the clock's forfeit, the organiser's cancellation,
/// or the seat's command through the rules.
pub fn apply_entry(
    game: &mut dyn DynMatch,
    seat: Seat,
    by: Option<&str>,
    command: &Value,
    log: &mut Log,
) -> Result<(), ApplyError> {
    match ending(by, command).map_err(ApplyError::Malformed)? {
        Some(Ending::Forfeit) => {
            if game.outcome().is_some() {
                return Err(super::RuleError::illegal("the game is already over").into());
            }
            let outcome = game.forfeit(seat);
            log.push(|| outcome.reason);
            Ok(())
        }
        Some(Ending::Cancel(reason)) => {
            let outcome = game.cancel(reason)?;
            log.push(|| outcome.reason);
            Ok(())
        }
        None => {
            let mark = match by {
                None => None,
                Some(word) => Some(Mark::parse(word).ok_or_else(|| {
                    ApplyError::Malformed(format!("{word:?} is no mark of an entry"))
                })?),
            };
            match mark {
                Some(Mark::Undo) if *command != undo_command() => {
                    return Err(ApplyError::Malformed(
                        "an entry marked undo holds only the undo command".into(),
                    ));
                }
                Some(Mark::Undo) => return Ok(game.undo(seat, log)?),
                Some(Mark::Auto) if game.forced(seat).as_ref() != Some(command) => {
                    return Err(super::RuleError::illegal(
                        "an entry marked auto must be the seat's only possible move",
                    )
                    .into());
                }
                _ => {}
            }
            game.apply_json(seat, command, log)?;
            if mark.is_some() {
                // Only what a seat played by its own hand may be taken back.
                game.seal();
            }
            Ok(())
        }
    }
}

impl RecordedCommand {
    /// A command as played, without time or hash.
    pub fn new(seat: Seat, command: Value) -> RecordedCommand {
        RecordedCommand {
            seat,
            command,
            at: None,
            hash: None,
            redacted: false,
            by: None,
        }
    }
}

/// Why a record does not replay.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// No hosted game has that id.
    #[error("unknown game {0:?}")]
    UnknownGame(String),
    /// The record needs newer rules code than this binary has.
    #[error("record uses rules version {found} of {game}; this postplay knows up to {known}")]
    RulesVersion {
        game: String,
        found: u32,
        known: u32,
    },
    /// The record does not reveal its seed (the game is still running).
    #[error("the seed is not revealed yet: a running game cannot be replayed")]
    SeedHidden,
    /// Some commands are shown only in their public form (the game is still running).
    #[error("some commands are hidden until the game is over: a running game cannot be replayed")]
    Redacted,
    /// The setup failed.
    #[error("setup: {0}")]
    Setup(#[from] SetupError),
    /// Command `number` (1-based) was refused.
    #[error("command {number} (seat {seat}): {reason}")]
    Command {
        number: usize,
        seat: Seat,
        reason: String,
    },
    /// The replayed state differs from the hash the record claims.
    #[error("final state hash {actual} differs from the recorded {recorded}")]
    HashMismatch { recorded: String, actual: String },
}

/// One step of a replay: the command number (1-based) and the public lines it wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// 1-based command number.
    pub number: usize,
    /// The seat that moved.
    pub seat: Seat,
    /// The public log lines.
    pub lines: Vec<String>,
}

impl Record {
    /// The record of a game just played: its seed revealed, its final state hash, no names,
    /// times or chain.
    pub fn of_play(game: &dyn DynMatch, seed: Seed, commands: Vec<RecordedCommand>) -> Record {
        Record {
            game: game.game_id().to_string(),
            rules_version: game.rules_version(),
            options: game.options(),
            seats: game.seats(),
            seat_names: Vec::new(),
            seed: Some(seed),
            commitment: Some(seed.commitment()),
            deal: None,
            chain_head: None,
            commands,
            final_state_hash: Some(game.state_hash()),
            messages: Vec::new(),
        }
    }

    /// Sets up the record's game, found among `games`, from its seed, before any command.
    pub fn start(&self, games: &[&dyn DynGame]) -> Result<Box<dyn DynMatch>, ReplayError> {
        let game = game_in(games, &self.game)
            .ok_or_else(|| ReplayError::UnknownGame(self.game.clone()))?;
        if self.rules_version > game.rules_version() {
            return Err(ReplayError::RulesVersion {
                game: self.game.clone(),
                found: self.rules_version,
                known: game.rules_version(),
            });
        }
        let seed = self.seed.ok_or(ReplayError::SeedHidden)?;
        if self.commands.iter().any(|c| c.redacted) {
            return Err(ReplayError::Redacted);
        }
        Ok(game.new_match_at(&self.options, self.seats, seed, self.rules_version)?)
    }

    /// Replays every command, calling `each` after every step; checks the final hash if the
    /// record has one. Lines are formatted only if `with_log`.
    pub fn replay_with(
        &self,
        games: &[&dyn DynGame],
        with_log: bool,
        mut each: impl FnMut(&Step, &dyn DynMatch),
    ) -> Result<Box<dyn DynMatch>, ReplayError> {
        let mut game = self.start(games)?;
        game.track_takebacks(
            self.commands
                .iter()
                .any(|c| c.by.as_deref() == Some(BY_UNDO)),
        );
        let mut log = if with_log {
            Log::recording()
        } else {
            Log::silent()
        };
        for (i, entry) in self.commands.iter().enumerate() {
            apply_entry(
                game.as_mut(),
                entry.seat,
                entry.by.as_deref(),
                &entry.command,
                &mut log,
            )
            .map_err(|e| ReplayError::Command {
                number: i + 1,
                seat: entry.seat,
                reason: match e {
                    ApplyError::Malformed(m) => format!("malformed: {m}"),
                    e @ ApplyError::TooLarge(_) => format!("malformed: {e}"),
                    ApplyError::Rule(r) => format!("illegal: {r}"),
                },
            })?;
            let step = Step {
                number: i + 1,
                seat: entry.seat,
                lines: log.take(),
            };
            each(&step, game.as_ref());
        }
        if let Some(recorded) = &self.final_state_hash {
            let actual = game.state_hash();
            if &actual != recorded {
                return Err(ReplayError::HashMismatch {
                    recorded: recorded.clone(),
                    actual,
                });
            }
        }
        Ok(game)
    }

    /// Replays every command without formatting the log.
    pub fn replay(&self, games: &[&dyn DynGame]) -> Result<Box<dyn DynMatch>, ReplayError> {
        self.replay_with(games, false, |_, _| {})
    }
}
