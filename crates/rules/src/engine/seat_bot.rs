//! A bot in a seat of a stored game: the level a seat's bot plays at, and the game's bot
//! behind the dynamic face the store holds games by ([`DynMatch`]).
//!
//! The one place that sees the state is [`BotAdapter::decide`], and it uses it for exactly
//! what the seat's page uses it for: the seat's view. The search is handed that view and the
//! public [`Table`], nothing else (see [`super::search::decide`]).

use super::bot::{Playout, PlayoutError, bot_rng, random_command};
use super::determinize::{Determinize, Table};
use super::search::{
    BotError, Decision, Level, Pick, Weighing, decide_at, decide_with, decision_seed, weigh,
    weigh_open,
};
use super::{
    DynGame, DynMatch, Log, Match, Record, RecordedCommand, Seat, Seed, Viewer, record::Mark,
};
use serde_json::Value;
use sha2::{Digest, Sha256};
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

/// How a seat plays in a game of bots only ([`play_seats`]): a level, or a search with a
/// budget and pick no level has. The second is for yardsticks in the strength benchmark (the
/// old easy level, "best of 24": 24 playouts, the best move played); players never meet it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatPlayer {
    /// A uniformly random legal move.
    Random,
    /// The search with `budget` playouts, its move taken by `pick`.
    Search {
        /// Playouts a decision.
        budget: u32,
        /// How the move is taken from the search.
        pick: Pick,
    },
}

impl From<BotLevel> for SeatPlayer {
    fn from(level: BotLevel) -> SeatPlayer {
        match level.search() {
            None => SeatPlayer::Random,
            Some(level) => SeatPlayer::Search {
                budget: level.playouts(),
                pick: level.pick(),
            },
        }
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

    /// `seat`'s move in `game` by the search with `budget` playouts, taken by `pick`: what
    /// [`DynBot::decide`] does for a search level, with any budget (the strength benchmark's
    /// yardsticks).
    fn search(
        &self,
        game: &dyn DynMatch,
        seat: Seat,
        rules_version: u32,
        budget: u32,
        pick: Pick,
        seed: &Seed,
    ) -> Result<Decision, BotError>;

    /// Weighs `played`, the move `seat` made in `game`, beside the search's best with `budget`
    /// playouts (a game's review): from the seat's own view, as a hint is worked out, or with
    /// every card known when `open`. `rules_version` is the one the game began with.
    #[allow(clippy::too_many_arguments)]
    fn weigh(
        &self,
        game: &dyn DynMatch,
        seat: Seat,
        rules_version: u32,
        budget: u32,
        played: &Value,
        open: bool,
        seed: &Seed,
    ) -> Result<Weighing, BotError>;
}

/// `game` as the bot's own game's match, or an error naming the mix-up.
fn own_game<R: Determinize>(game: &dyn DynMatch) -> Result<&Match<R>, BotError> {
    game.as_any()
        .downcast_ref::<Match<R>>()
        .ok_or_else(|| BotError::Decode(format!("a {} bot was handed another game", R::ID)))
}

/// What `seat` sees of `game`: all a bot is handed besides the table.
fn own_view<R: Determinize>(game: &Match<R>, seat: Seat) -> R::View {
    R::view(&game.state, Viewer::Seat(seat))
}

/// The public table of `game`, begun under `rules_version`.
fn table<R: Determinize>(game: &Match<R>, rules_version: u32) -> Table<R::Options> {
    Table {
        options: game.options.clone(),
        seats: game.seats,
        rules_version,
    }
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
                estimate: None,
            });
        };
        let game = own_game::<R>(game)?;
        decide_at::<R>(
            &own_view(game, seat),
            seat,
            &table(game, rules_version),
            search,
            seed,
        )
    }

    fn search(
        &self,
        game: &dyn DynMatch,
        seat: Seat,
        rules_version: u32,
        budget: u32,
        pick: Pick,
        seed: &Seed,
    ) -> Result<Decision, BotError> {
        let game = own_game::<R>(game)?;
        decide_with::<R>(
            &own_view(game, seat),
            seat,
            &table(game, rules_version),
            budget,
            pick,
            seed,
        )
    }

    fn weigh(
        &self,
        game: &dyn DynMatch,
        seat: Seat,
        rules_version: u32,
        budget: u32,
        played: &Value,
        open: bool,
        seed: &Seed,
    ) -> Result<Weighing, BotError> {
        let game = own_game::<R>(game)?;
        if open {
            return weigh_open::<R>(&game.state, seat, game.seats, budget, played, seed);
        }
        weigh::<R>(
            &own_view(game, seat),
            seat,
            &table(game, rules_version),
            budget,
            played,
            seed,
        )
    }
}

/// The seed of seat `seat`'s bot in a game played with bots' seed `bots_seed`: each seat's
/// bot has its own stream, and none comes from the game's seed.
pub fn seat_bot_seed(bots_seed: &Seed, seat: Seat) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(b"postplay seat bot");
    hasher.update(bots_seed.0);
    hasher.update((seat as u64).to_le_bytes());
    Seed(hasher.finalize().into())
}

/// Plays a whole game with a bot in every seat, `levels[seat]` each (`postplay selfplay
/// --bots`, the strength benchmark): each decides from its own view, as in a stored game, and
/// each entry of the record is marked `bot`, as a stored game marks a bot's move.
/// Seat `seat`'s bot draws from [`seat_bot_seed`]`(bots_seed, seat)`; `bot` is the game's
/// own bot (`crate::games::find_bot`), without which only random seats can play.
pub fn play_bots(
    game: &dyn DynGame,
    bot: Option<&dyn DynBot>,
    options: &Value,
    levels: &[BotLevel],
    seed: Seed,
    bots_seed: &Seed,
) -> Result<Playout, PlayoutError> {
    let players: Vec<SeatPlayer> = levels.iter().map(|&l| l.into()).collect();
    play_seats(game, bot, options, &players, seed, bots_seed)
}

/// [`play_bots`] with each seat's player given as a [`SeatPlayer`]: a level's search, the
/// random player, or a search at a budget no level has (the strength benchmark's yardsticks).
/// A seat at a level plays exactly as [`play_bots`] plays it.
pub fn play_seats(
    game: &dyn DynGame,
    bot: Option<&dyn DynBot>,
    options: &Value,
    players: &[SeatPlayer],
    seed: Seed,
    bots_seed: &Seed,
) -> Result<Playout, PlayoutError> {
    let seats = players.len();
    let mut live = game.new_match(options, seats, seed)?;
    live.track_takebacks(false);
    let rules_version = game.rules_version();
    let seeds: Vec<Seed> = (0..seats).map(|s| seat_bot_seed(bots_seed, s)).collect();
    let mut log = Log::silent();
    let mut commands = Vec::new();
    let outcome = loop {
        if let Some(outcome) = live.outcome() {
            break outcome;
        }
        if commands.len() >= super::bot::MAX_COMMANDS {
            return Err(PlayoutError::Endless);
        }
        let number = commands.len() + 1;
        let Some(&seat) = live.active().first() else {
            return Err(PlayoutError::Stuck(number));
        };
        let decision_seed = decision_seed(&seeds[seat], number as u64);
        let command = match (players[seat], bot) {
            (SeatPlayer::Search { budget, pick }, Some(bot)) => {
                bot.search(
                    live.as_ref(),
                    seat,
                    rules_version,
                    budget,
                    pick,
                    &decision_seed,
                )
                .map_err(|error| PlayoutError::Bot {
                    number,
                    seat,
                    error,
                })?
                .command
            }
            (SeatPlayer::Random, _) => {
                random_command(live.as_ref(), seat, &mut bot_rng(&decision_seed))
                    .ok_or(PlayoutError::Stuck(number))?
            }
            (_, None) => {
                return Err(PlayoutError::Bot {
                    number,
                    seat,
                    error: BotError::Decode(format!("{} has no bot that searches", game.id())),
                });
            }
        };
        live.apply_json(seat, &command, &mut log)
            .map_err(|error| PlayoutError::Refused {
                number,
                seat,
                command: command.clone(),
                error,
            })?;
        commands.push(RecordedCommand {
            by: Some(Mark::Bot.as_str().to_string()),
            ..RecordedCommand::new(seat, command)
        });
    };
    let record = Record::of_play(live.as_ref(), seed, commands);
    Ok(Playout { record, outcome })
}
