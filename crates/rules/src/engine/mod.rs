//! The game-agnostic core: the rules contract every game implements, the per-command RNG,
//! replay and the type-erased adapter. The registry of hosted games is `crate::games`'s.
//!
//! Rules are pure: no I/O, no clock, no ambient randomness. A game's state is whatever replaying
//! its log from its seed gives.

pub mod audit;
pub mod bot;
pub mod choice;
pub mod deal;
pub mod determinize;
pub mod dynamic;
pub mod game;
pub mod log;
pub mod options;
pub mod present;
pub mod record;
pub mod rng;
pub mod search;
pub mod seat_bot;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
#[cfg(test)]
mod tests;
pub mod version;

pub use choice::{
    Choice, FillError, GroupCap, Json, Param, ParamKind, PickOption, PickRule, Text, forced,
};
pub use determinize::{Determinize, SampleError, Table};
pub use dynamic::{ApplyError, DynGame, DynMatch, game_in};
pub use game::{Match, state_hash};
pub use log::Log;
pub use options::{OptionKind, OptionSpec};
pub use record::{Record, RecordedCommand, RecordedMessage, ReplayError};
pub use rng::{GameRng, Seed};
pub use seat_bot::{BotLevel, DynBot};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt::Debug;

/// A place at the table, numbered from 0 in seating order (clockwise; "left" is `seat + 1`).
pub type Seat = usize;

/// Who is looking at a game: what a [`Rules::view`] may include depends on it.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    /// A player: their own hidden cards, nobody else's.
    Seat(Seat),
    /// Anyone: only public information.
    Spectator,
    /// An auditor of a finished game, or the server itself: everything.
    Auditor,
}

impl Viewer {
    /// True if this viewer may see what is hidden to all but `seat`.
    pub fn sees_seat(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(s) => s == seat,
            Viewer::Spectator => false,
            Viewer::Auditor => true,
        }
    }

    /// True if this viewer may see what is hidden from every player (stock order, kitty).
    pub fn sees_all(self) -> bool {
        self == Viewer::Auditor
    }
}

/// A standing order a game offers: a decision settled ahead, applied as the seat's own
/// command (marked `"by": "standing"`) whenever it settles what the seat faces.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct StandingOrder {
    /// Its id, fixed across versions ("strategy-zero").
    pub id: &'static str,
    /// What it does, in the player's words ("Bid 0 in every Strategy round").
    pub label: &'static str,
    /// What the seat gives up by it, said where it is offered.
    pub note: &'static str,
    /// The seat it is for, where only one seat ever faces its decision.
    pub seat: Option<Seat>,
}

/// How a game ended.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The seats that won: one, a partnership, or several on a shared win. Empty on a draw.
    pub winners: Vec<Seat>,
    /// The final score of every seat, in seat order.
    pub scores: Vec<i64>,
    /// One sentence a player understands: "North and South reach 7 points".
    pub reason: String,
}

/// The name of a seat in a game that gives its seats no names of their own: "Player 2".
pub fn numbered_seat(seat: Seat) -> String {
    format!("Player {}", seat + 1)
}

/// Where a game stands: the period (hand, turn) being played and each side's score so far.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Standing {
    /// The hand or turn being played, from 1.
    pub period: u32,
    /// Each side's score, labelled by a log line's seat placeholders (`{s0}`, `{s0} and
    /// {s2}`) or a side's name ("Suffragist checks").
    pub scores: Vec<(String, i64)>,
}

impl Standing {
    /// Each seat's own score, labelled by its seat placeholder.
    pub fn by_seat(period: u32, scores: &[i64]) -> Standing {
        Standing {
            period,
            scores: scores
                .iter()
                .enumerate()
                .map(|(seat, score)| (log::who(seat), *score))
                .collect(),
        }
    }
}

/// Why a command was refused. The state is unchanged; the message is for the player.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// It is not this seat's move (or the game is over).
    #[error("it is not your turn")]
    NotYourTurn,
    /// The move breaks a rule; the text says which, in a player's words.
    #[error("{0}")]
    Illegal(String),
}

impl RuleError {
    /// An illegal move with a reason.
    pub fn illegal(reason: impl Into<String>) -> RuleError {
        RuleError::Illegal(reason.into())
    }
}

/// Why a game could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// This game is not played by that many.
    #[error("this game is for {min} to {max} players, not {given}")]
    SeatCount {
        min: usize,
        max: usize,
        given: usize,
    },
    /// An option has a value the game does not allow.
    #[error("option {name}: {reason}")]
    BadOption { name: String, reason: String },
    /// No rules version of this game has that number.
    #[error("rules version {found} is not one of 1 to {known}")]
    RulesVersion { found: u32, known: u32 },
}

/// The rules of one game, as pure functions over its state.
///
/// Contract, checked by property tests for every game: `apply` changes nothing when it returns
/// `Err`; `choices` offers only commands `apply` accepts; `view` leaves out whatever the viewer
/// may not see; the same seed and commands always give the same state.
pub trait Rules: 'static {
    /// The game id, fixed across postplay: `"whitehouse"`, `"statehood"`, ...
    const ID: &'static str;
    /// The game's name for people.
    const NAME: &'static str;
    /// Bumped when a change of the rules code would replay an old log differently.
    const RULES_VERSION: u32;

    /// The options chosen at creation.
    type Options: Serialize + DeserializeOwned + Default + Clone + Debug + PartialEq;
    /// The whole state, hidden parts included.
    type State: Serialize + DeserializeOwned + Clone + Debug + PartialEq;
    /// What a seat may send.
    type Command: Serialize + DeserializeOwned + Clone + Debug + PartialEq;
    /// What a viewer is shown.
    type View: Serialize;

    /// Reads a command from JSON. The default is the command's `Deserialize`; a game may read
    /// its common shapes faster, provided it accepts exactly what `Deserialize` accepts, with
    /// the same result, and refuses the rest with `Deserialize`'s error.
    fn decode(command: &Value) -> Result<Self::Command, serde_json::Error> {
        Self::Command::deserialize(command)
    }

    /// A move for `seat` at random, for the random player ([`bot::play_random`]) and the
    /// search's playouts: the default picks one of [`Rules::choices`] uniformly, fills it at
    /// random ([`bot::random_fill`]) and reads it with [`Rules::decode`]; `None` when the seat
    /// has no choice (or, a rules bug, the fill does not read). A game may override it with a
    /// faster typed move that draws from `rng` exactly as the default does (the same calls, in
    /// the same order, with the same ranges) and returns the same command, so a random game
    /// plays the same either way: `testing::check_random_command` checks it.
    fn random_command(state: &Self::State, seat: Seat, rng: &mut GameRng) -> Option<Self::Command> {
        bot::random_fill::<Self>(state, seat, rng).and_then(|json| Self::decode(&json).ok())
    }

    /// True for a game that overrides [`Rules::random_command`]: the random player through
    /// [`DynMatch`] then plays the typed move and writes its JSON for the record, where
    /// otherwise it keeps the fill's JSON rather than write the command out again (a fifth of
    /// a random Whitehouse game).
    const TYPED_RANDOM: bool = false;

    /// How many seats the game takes, fewest and most.
    fn seat_counts() -> (usize, usize);

    /// The options a creator may set, for forms and `postplay games`.
    fn option_specs() -> Vec<OptionSpec>;

    /// Deals and sets up a new game with randomness from stream 0.
    fn setup(
        options: &Self::Options,
        seats: usize,
        rng: &mut GameRng,
    ) -> Result<Self::State, SetupError>;

    /// Sets up a game under rules version `rules_version` (1 to [`Rules::RULES_VERSION`]): a
    /// record or a hosted game replays under the version it began with. A game whose rules
    /// changed keeps the version in its state; one that never bumped it keeps this default.
    fn setup_at(
        options: &Self::Options,
        seats: usize,
        rng: &mut GameRng,
        rules_version: u32,
    ) -> Result<Self::State, SetupError> {
        let _ = rules_version;
        Self::setup(options, seats, rng)
    }

    /// The public log lines of the setup (the draw for the first dealer, say), shown before
    /// the first command as move 0. `state` is the state [`Rules::setup`] returned.
    fn opening(state: &Self::State) -> Vec<String> {
        let _ = state;
        Vec::new()
    }

    /// The seats whose input is awaited now (several for sealed simultaneous choices).
    fn active(state: &Self::State) -> Vec<Seat>;

    /// Whether `seat` is awaited now; a game may answer faster than [`Rules::active`].
    fn is_active(state: &Self::State, seat: Seat) -> bool {
        Self::active(state).contains(&seat)
    }

    /// The decisions open to `seat` now; empty when the seat is not awaited.
    fn choices(state: &Self::State, seat: Seat) -> Vec<Choice>;

    /// Plays `command` for `seat`. On `Err` the state is exactly as before. Public log lines go
    /// to `log`.
    fn apply(
        state: &mut Self::State,
        seat: Seat,
        command: &Self::Command,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError>;

    /// What `viewer` may see. Hidden cards are absent from the data, not merely flagged.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// The position as `view` shows it, in this game's own words for a mail (plain text and
    /// HTML), seat-relative and with the players' names: written by the game's `present`
    /// module, the same code that gives the page's board its words.
    fn position(view: &Self::View, names: &present::Names) -> present::Position;

    /// The result, once the game is over.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// How the game ended, in its own words for its page and its game-over mail: who won and
    /// the final tally, read from the public `view` (any seat may see the end) and the
    /// `outcome` (which may be a forfeit or a cancellation rather than the rules' own end).
    /// Written by the game's `present` module.
    fn ending(view: &Self::View, outcome: &Outcome, names: &present::Names) -> present::Ending;

    /// What the clock plays for an awaited seat whose deadline passed: a legal, cautious move.
    fn on_timeout(state: &Self::State, seat: Seat) -> Self::Command;

    /// What everyone but `seat` may see of `command` while the game runs, given the state
    /// before it: `None` when the whole command is public (a bid, a card played face up), else
    /// its public form, such as `{"type":"discard","cards":4}` for a discard into the kitty or
    /// `{"type":"sealed"}` for a sealed answer. Every path that shows commands (export, API,
    /// logs) goes through this; the full command is shown to others only once the game is over.
    fn redacted(state: &Self::State, seat: Seat, command: &Self::Command) -> Option<Value>;

    /// Whether everyone can tell that `seat`'s one possible command (see [`choice::forced`])
    /// is forced: it follows from what all may see (a seat's last card, the dealer bound to
    /// bid, a hand everyone has seen), so playing it at once tells nobody anything. Asked only
    /// when the seat is forced; `false` (the default) keeps it to seats that ask for it.
    fn forced_in_public(state: &Self::State, seat: Seat) -> bool {
        let _ = (state, seat);
        false
    }

    /// The standing orders a seat of this game may give: decisions a player would make the
    /// same way every time, settled ahead (see the game's RULES.md). None by default.
    fn standing_orders() -> &'static [StandingOrder] {
        &[]
    }

    /// The command the standing order `order` makes for `seat` now, if it settles the decision
    /// the seat faces (it must be a command [`Rules::choices`] offers); `None` when the order
    /// has nothing to say here and the seat is asked as usual.
    fn standing_command(state: &Self::State, seat: Seat, order: &str) -> Option<Self::Command> {
        let _ = (state, seat, order);
        None
    }

    /// Whether `after` keeps every secret of `before`: no card or piece that some seat could
    /// not see moved, turned or came to light between them (a hand, a deck, a kitty, a sealed
    /// choice), so everyone knows as much as before and no more. Asked of a command that drew
    /// no randomness, to know whether its seat may take it back ([`game::Match::undo`]). The
    /// default, `false`, lets no command be taken back; a game opts in by comparing its hidden
    /// parts.
    fn keeps_secrets(before: &Self::State, after: &Self::State) -> bool {
        let _ = (before, after);
        false
    }

    /// What a period of play is called in this game, for the log's breaks ("Hand", "Turn").
    const PERIOD: &'static str = "Hand";

    /// The period being played and each side's score, for the log's breaks, its score table
    /// and chart; `None` for a game that keeps no score between periods.
    fn standing(state: &Self::State) -> Option<Standing> {
        let _ = state;
        None
    }

    /// The seats that win or lose with `seat` (its partners), for a forfeit; none by default.
    fn partners(state: &Self::State, seat: Seat) -> Vec<Seat> {
        let _ = (state, seat);
        Vec::new()
    }

    /// A name for a seat in this game ("North", "Player 2"), used in logs and pages.
    fn seat_name(seat: Seat, seats: usize) -> String {
        let _ = seats;
        numbered_seat(seat)
    }
}
