//! A bot in a seat of a stored game: the level a seat's bot plays at, and the game's bot
//! behind the dynamic face the store holds games by ([`DynMatch`]).
//!
//! The one place that sees the state is [`BotAdapter::decide`], and it uses it for exactly
//! what the seat's page uses it for: the seat's view. The search is handed that view and the
//! public [`Table`], nothing else (see [`super::search::decide`]).

use super::bot::{bot_rng, random_command};
use super::determinize::{Determinize, Table};
use super::search::{BotError, Decision, Level, decide};
use super::{DynMatch, Match, Seat, Seed, Viewer};
use std::marker::PhantomData;

/// How a seat's bot plays: at random among its legal moves, or by the search at a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// A uniformly random legal move: the yardstick, not a teacher.
    Random,
    /// The search with [`Level::Easy`]'s budget.
    Easy,
    /// The search with [`Level::Medium`]'s budget.
    Medium,
    /// The search with [`Level::Hard`]'s budget.
    Hard,
}

impl BotLevel {
    /// Every level, weakest first, as forms list them.
    pub const ALL: [BotLevel; 4] = [
        BotLevel::Random,
        BotLevel::Easy,
        BotLevel::Medium,
        BotLevel::Hard,
    ];

    /// Its name in forms, the database and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BotLevel::Random => "random",
            BotLevel::Easy => "easy",
            BotLevel::Medium => "medium",
            BotLevel::Hard => "hard",
        }
    }

    /// The level named `word` ("random", "easy", "medium", "hard").
    pub fn parse(word: &str) -> Option<BotLevel> {
        BotLevel::ALL.into_iter().find(|l| l.name() == word)
    }

    /// The search's level; `None` for the random player.
    pub fn search(self) -> Option<Level> {
        match self {
            BotLevel::Random => None,
            BotLevel::Easy => Some(Level::Easy),
            BotLevel::Medium => Some(Level::Medium),
            BotLevel::Hard => Some(Level::Hard),
        }
    }

    /// The name a bot's seat is shown by: "Bot (medium)".
    pub fn seat_name(self) -> String {
        format!("Bot ({})", self.name())
    }
}

/// A game's bot for a stored match: decides a seat's move at a level.
pub trait DynBot: Sync {
    /// The game it plays ([`super::Rules::ID`]).
    fn game_id(&self) -> &'static str;

    /// `seat`'s move in `game` at `level`, every random draw from `seed` (the seat's bot seed
    /// and the command's number: [`super::search::decision_seed`]). `rules_version` is the one
    /// the game began with. The same arguments give the same move.
    fn decide(
        &self,
        game: &dyn DynMatch,
        seat: Seat,
        rules_version: u32,
        level: BotLevel,
        seed: &Seed,
    ) -> Result<Decision, BotError>;
}

/// Wraps a game that has a sampler ([`Determinize`]) as a [`DynBot`].
pub struct BotAdapter<R>(PhantomData<fn() -> R>);

impl<R> BotAdapter<R> {
    /// The adapter value (zero-sized).
    pub const NEW: BotAdapter<R> = BotAdapter(PhantomData);
}

impl<R: Determinize> DynBot for BotAdapter<R>
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    fn game_id(&self) -> &'static str {
        R::ID
    }

    fn decide(
        &self,
        game: &dyn DynMatch,
        seat: Seat,
        rules_version: u32,
        level: BotLevel,
        seed: &Seed,
    ) -> Result<Decision, BotError> {
        let Some(search) = level.search() else {
            let command =
                random_command(game, seat, &mut bot_rng(seed)).ok_or(BotError::NoChoice(seat))?;
            return Ok(Decision {
                command,
                candidates: game.choices(seat).len(),
                playouts: 0,
                cut_short: 0,
            });
        };
        let game = game
            .as_any()
            .downcast_ref::<Match<R>>()
            .ok_or_else(|| BotError::Decode(format!("a {} bot was handed another game", R::ID)))?;
        let view = R::view(&game.state, Viewer::Seat(seat));
        let table = Table {
            options: game.options.clone(),
            seats: game.seats,
            rules_version,
        };
        decide::<R>(&view, seat, &table, search.playouts(), seed)
    }
}

/// The bot of the game `id`, if the game has one.
pub fn find_bot(id: &str) -> Option<&'static dyn DynBot> {
    crate::games::BOTS
        .iter()
        .copied()
        .find(|b| b.game_id() == id)
}
