//! Hints in practice games (docs/BOTS.md, "Hints"): "what would the bot do?" answers the move
//! the medium practice bot would play from the seat's own view, with its estimate of the
//! seat's chance, in words and as data. Given only in games with a bot seat that are not a
//! club's (club and league games are rated); at most a bound a seat an hour, counted in
//! PostgreSQL ([`limits`]); each search runs on a blocking thread, at most
//! [`HINTS_AT_ONCE`] in a process, so the web's workers never wait on one.

pub mod limits;
pub mod words;

use crate::engine::search::{BotError, Decision};
use crate::engine::{BotLevel, DynMatch, Seat, Seed};
use crate::games::find_bot;
use crate::store::Store;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The bot whose move a hint gives: the medium one (the same search the bots' seats run,
/// bounded at 300 playouts).
pub const HINT_LEVEL: BotLevel = BotLevel::Medium;

/// Hint searches one process runs at once; more requests wait for a turn.
pub const HINTS_AT_ONCE: usize = 1;

/// How long a request waits for a turn to search before it is answered 503.
pub const TURN_WAIT: Duration = Duration::from_secs(20);

/// The turns to search, shared by every request of the process.
static TURNS: Semaphore = Semaphore::const_new(HINTS_AT_ONCE);

/// A hint given: the API's answer (`GET /api/play/{token}/hint`) and what the seat's page
/// shows.
#[derive(Debug, Clone, Serialize)]
pub struct Hint {
    /// The game's position it was worked out at (the head's number).
    pub seq: i64,
    /// The move the bot would play, as the game's command (it may be sent as it is).
    pub command: Value,
    /// That move as the seat's page words it.
    #[serde(rename = "move")]
    pub move_words: String,
    /// Which bot's move it is: "medium".
    pub bot: &'static str,
    /// The search's estimate of the seat's chance to win after the move, 0 to 1 (a draw
    /// counts half); `null` when it was the only move.
    pub win_chance: Option<f64>,
    /// The games the search played out (0 when the move was the only one).
    pub playouts: u32,
    /// The moves it compared.
    pub candidates: usize,
    /// The whole hint in words.
    pub words: String,
    /// Hints the seat may still ask this hour (`null` without a bound).
    pub hints_left: Option<u32>,
}

/// Why no hint was given; nothing was counted.
#[derive(Debug, thiserror::Error)]
pub enum HintError {
    /// Not a game hints are given in (403).
    #[error("{0}")]
    NotHere(String),
    /// Nothing to hint now: the game is over, or the seat is not to move (409).
    #[error("{0}")]
    NoMove(String),
    /// The seat had its hints for the hour (429).
    #[error("{words}")]
    Later {
        /// When the next hint is allowed.
        at: DateTime<Utc>,
        /// How long until then.
        wait: chrono::Duration,
        /// The refusal in words, with that time.
        words: String,
    },
    /// Every turn to search stayed taken (503).
    #[error("every hint is being worked out for someone else: try again in a few seconds")]
    Busy,
    /// The search failed (a game's defect).
    #[error("the bot could not work out a move: {0}")]
    Search(String),
    /// The database.
    #[error(transparent)]
    Db(#[from] sqlx::Error),
    /// The game could not be loaded.
    #[error(transparent)]
    Load(#[from] crate::store::StoreError),
}

/// Why game `id` gives no hints, if it does not: a club's game (club and league games are
/// rated), or one without a bot seat.
pub async fn refusal(
    store: &Store,
    id: i64,
    club: Option<i64>,
) -> Result<Option<String>, sqlx::Error> {
    if club.is_some() {
        return Ok(Some(
            "hints are given only in practice games with a bot: this is a club's game, which is \
             rated"
                .into(),
        ));
    }
    if store.bot_seats(id).await?.is_empty() {
        return Ok(Some(
            "hints are given only in practice games with a bot: no bot plays in this game, so \
             a hint would be help against people"
                .into(),
        ));
    }
    Ok(None)
}

/// The bot's decision for `seat` in `game` with `seed`: the same search a medium bot's seat
/// runs, handed the seat's view only ([`crate::engine::DynBot::decide`]).
pub fn search(
    game: &dyn DynMatch,
    seat: Seat,
    rules_version: u32,
    seed: &Seed,
) -> Result<Decision, BotError> {
    let bot = find_bot(game.game_id())
        .ok_or_else(|| BotError::Decode(format!("{} has no bot", game.game_id())))?;
    bot.decide(game, seat, rules_version, HINT_LEVEL, seed)
}

/// Gives `seat` of game `id` a hint, counted against `per_hour` hints a seat an hour (0: no
/// bound), or says why not (then nothing is counted).
pub async fn ask(store: &Store, id: i64, seat: Seat, per_hour: u32) -> Result<Hint, HintError> {
    let loaded = store.load(id).await?;
    if let Some(why) = refusal(store, id, loaded.row.club_id).await? {
        return Err(HintError::NotHere(why));
    }
    if loaded.game.outcome().is_some() {
        return Err(HintError::NoMove(
            "the game is over: there is no move to hint".into(),
        ));
    }
    let choices = loaded.game.choices(seat);
    if choices.is_empty() {
        return Err(HintError::NoMove(
            "you have no move to make now: ask when it is your turn".into(),
        ));
    }
    let turn = tokio::time::timeout(TURN_WAIT, TURNS.acquire())
        .await
        .map_err(|_| HintError::Busy)?
        .expect("the hints' semaphore is never closed");
    let now = store.now();
    let (row, left) = match limits::count(store.pool(), (id, seat), per_hour, now).await? {
        limits::Counted::Yes { id, left } => (id, left),
        limits::Counted::NotUntil(at) => {
            let wait = at - now;
            return Err(HintError::Later {
                at,
                wait,
                words: format!(
                    "you have had {per_hour} hints for this seat this hour, as many as an hour \
                     allows: the next is allowed at {} (in {})",
                    at.format("%H:%M UTC on %A %-d %B %Y"),
                    crate::time::in_words(wait + chrono::Duration::seconds(59)),
                ),
            });
        }
    };
    let names: Vec<String> = store.seats(id).await?.into_iter().map(|s| s.name).collect();
    let rules_version = loaded.row.rules_version as u32;
    let seq = loaded.row.head_seq;
    let game = loaded.game;
    let decided = tokio::task::spawn_blocking(move || {
        search(game.as_ref(), seat, rules_version, &Seed::random())
    })
    .await;
    drop(turn);
    let decision = match decided {
        Ok(Ok(decision)) => decision,
        failed => {
            limits::uncount(store.pool(), row).await?;
            return Err(HintError::Search(match failed {
                Ok(Err(e)) => e.to_string(),
                Err(e) => e.to_string(),
                Ok(Ok(_)) => unreachable!("a decision is matched above"),
            }));
        }
    };
    let move_words = words::move_words(&choices, &decision.command, &names);
    let text = format!(
        "The {} bot, looking only at what you can see, would play: {move_words}. {}",
        HINT_LEVEL.name(),
        words::estimate_words(decision.estimate, decision.playouts)
    );
    Ok(Hint {
        seq,
        command: decision.command,
        move_words,
        bot: HINT_LEVEL.name(),
        win_chance: decision.estimate,
        playouts: decision.playouts,
        candidates: decision.candidates,
        words: text,
        hints_left: left,
    })
}

#[cfg(test)]
mod tests;
