//! Type erasure: code that knows no game (the CLI, the web app, the bot) drives any game
//! through [`DynGame`] and [`DynMatch`], with commands, choices and views as JSON.

use super::{
    Choice, GameRng, Log, Match, OptionSpec, Outcome, RuleError, Rules, Seat, Seed, SetupError,
    Standing, Viewer,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::marker::PhantomData;

/// A hosted game, by id: its description and a way to start a match.
pub trait DynGame: Sync {
    /// The fixed game id (`"whitehouse"`).
    fn id(&self) -> &'static str;
    /// The name for people.
    fn name(&self) -> &'static str;
    /// The current rules version.
    fn rules_version(&self) -> u32;
    /// Fewest and most seats.
    fn seat_counts(&self) -> (usize, usize);
    /// The options a creator may set.
    fn option_specs(&self) -> Vec<OptionSpec>;
    /// The options JSON when nothing is chosen.
    fn default_options(&self) -> Value;
    /// A seat's name in this game ("North", "Player 2").
    fn seat_name(&self, seat: Seat, seats: usize) -> String;
    /// What a period of play is called in this game ("Hand", "Turn"); see [`Rules::PERIOD`].
    fn period_name(&self) -> &'static str;
    /// The seat's role where the game names its seats ("North", "Suffragist"); `None` where
    /// seats are only numbered, so pages show the player's name alone.
    fn seat_role(&self, seat: Seat, seats: usize) -> Option<String> {
        let name = self.seat_name(seat, seats);
        (name != super::numbered_seat(seat)).then_some(name)
    }
    /// Parses the options and sets up a match from the seed, under the current rules version.
    fn new_match(
        &self,
        options: &Value,
        seats: usize,
        seed: Seed,
    ) -> Result<Box<dyn DynMatch>, SetupError> {
        self.new_match_at(options, seats, seed, self.rules_version())
    }
    /// Like [`DynGame::new_match`], under rules version `rules_version`: how a record or a
    /// stored game resumes under the version it began with.
    fn new_match_at(
        &self,
        options: &Value,
        seats: usize,
        seed: Seed,
        rules_version: u32,
    ) -> Result<Box<dyn DynMatch>, SetupError>;
}

/// The largest command a client may send, in bytes of compact JSON. The longest real command
/// (a Whitehouse kitty of six cards, a Nationhood meld) is well under 200 bytes.
pub const MAX_COMMAND_BYTES: usize = 2048;

/// Why a JSON command was not applied. The match is unchanged either way.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    /// The JSON is not a command of this game.
    #[error("not a command of this game: {0}")]
    Malformed(String),
    /// The JSON is longer than any command of any game ([`MAX_COMMAND_BYTES`]).
    #[error("a command is at most {MAX_COMMAND_BYTES} bytes; this one has {0}")]
    TooLarge(usize),
    /// The rules refuse it.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

/// A match of some game, driven with JSON.
pub trait DynMatch: Send + Sync {
    /// The game id.
    fn game_id(&self) -> &'static str;
    /// The rules version the game began under.
    fn rules_version(&self) -> u32;
    /// The number of seats.
    fn seats(&self) -> usize;
    /// The options, as JSON (defaults filled in).
    fn options(&self) -> Value;
    /// How many commands have been applied.
    fn applied(&self) -> u64;
    /// The public log lines of the setup, for a match that has not moved yet.
    fn opening(&self) -> Vec<String>;
    /// Seats awaited now.
    fn active(&self) -> Vec<Seat>;
    /// Decisions open to a seat now.
    fn choices(&self, seat: Seat) -> Vec<Choice>;
    /// The seat's one possible command in canonical form, when it is awaited and its choices
    /// allow exactly one ([`super::choice::forced`]).
    fn forced(&self, seat: Seat) -> Option<Value>;
    /// The standing orders the game offers.
    fn standing_orders(&self) -> &'static [super::StandingOrder];
    /// The canonical command the standing order `order` makes for `seat` now, if it is
    /// awaited and the order settles its decision (and the choices offer that command).
    fn standing_command(&self, seat: Seat, order: &str) -> Option<Value>;
    /// Whether that the seat is forced is public knowledge ([`Rules::forced_in_public`]).
    fn forced_in_public(&self, seat: Seat) -> bool;
    /// Parses and applies a command; on `Err` nothing changed. Replay uses this as the log
    /// stands; a command from a client goes through [`DynMatch::canonical`] first.
    fn apply_json(&mut self, seat: Seat, command: &Value, log: &mut Log) -> Result<(), ApplyError>;
    /// Plays a random move for `seat` ([`Rules::random_command`]: the random player's,
    /// typed) and gives it as JSON, as a record holds it; `None` when the seat has no choice.
    /// With `Err` (a rules bug: the rules refused their own offer) nothing changed.
    fn apply_random(
        &mut self,
        seat: Seat,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Option<(Value, Result<(), ApplyError>)>;
    /// Whether `seat` may take back its last command now (see [`Match::undo`]).
    fn can_undo(&self, seat: Seat) -> bool;
    /// Takes back `seat`'s last command ([`Match::undo`]); on `Err` nothing changed.
    fn undo(&mut self, seat: Seat, log: &mut Log) -> Result<(), RuleError>;
    /// Makes everything played so far final ([`Match::seal`]).
    fn seal(&mut self);
    /// Keeps takebacks or not ([`Match::track_takebacks`]).
    fn track_takebacks(&mut self, on: bool);
    /// The game's own serialization of a client's command: what is stored and hashed, never the
    /// client's bytes. Refuses unknown fields, NUL characters and anything over
    /// [`MAX_COMMAND_BYTES`].
    fn canonical(&self, command: &Value) -> Result<Value, ApplyError>;
    /// What everyone but `seat` may see of a stored `command` that `seat` is about to play from
    /// this state (see [`Rules::redacted`]); `None` when all of it is public.
    fn redacted(&self, seat: Seat, command: &Value) -> Option<Value>;
    /// What a viewer may see, as JSON.
    fn view(&self, viewer: Viewer) -> Value;
    /// What a viewer may see, in the game's own words (see [`Rules::position`]), the
    /// players named by `names` (by seat).
    fn position(&self, viewer: Viewer, names: &[String]) -> super::present::Position;
    /// The whole state, hidden parts included (for auditors and traces).
    fn state_json(&self) -> Value;
    /// The result, once over.
    fn outcome(&self) -> Option<Outcome>;
    /// How the game ended, in its own words (see [`Rules::ending`]), the players named by
    /// `names`; `None` while it runs.
    fn ending(&self, names: &[String]) -> Option<super::present::Ending>;
    /// The period being played and the scores so far (see [`Rules::standing`]).
    fn standing(&self) -> Option<Standing>;
    /// SHA-256 of the canonical state, hex.
    fn state_hash(&self) -> String;
    /// The command the clock plays for a seat that timed out.
    fn on_timeout(&self, seat: Seat) -> Value;
    /// Ends the game with `seat` forfeiting (its time ran out); returns the result.
    fn forfeit(&mut self, seat: Seat) -> Outcome;
    /// Ends the game unfinished, cancelled by the organiser for `reason`; refused once over.
    fn cancel(&mut self, reason: &str) -> Result<Outcome, RuleError>;
    /// The seats that win or lose with `seat` (its partners); none in a game of individuals.
    fn partners(&self, seat: Seat) -> Vec<Seat>;
    /// A copy, for trying things without touching the original.
    fn clone_box(&self) -> Box<dyn DynMatch>;
    /// The match as its own type, for the one caller that needs the game's types behind the
    /// dynamic face: a seat's bot ([`crate::engine::seat_bot`]), which computes that seat's
    /// view and hands the search nothing else.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Wraps a [`Rules`] implementation as a [`DynGame`].
pub struct Adapter<R>(PhantomData<fn() -> R>);

impl<R> Adapter<R> {
    /// The adapter value (zero-sized).
    pub const NEW: Adapter<R> = Adapter(PhantomData);
}

impl<R: Rules> DynGame for Adapter<R>
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    fn id(&self) -> &'static str {
        R::ID
    }
    fn name(&self) -> &'static str {
        R::NAME
    }
    fn rules_version(&self) -> u32 {
        R::RULES_VERSION
    }
    fn seat_counts(&self) -> (usize, usize) {
        R::seat_counts()
    }
    fn option_specs(&self) -> Vec<OptionSpec> {
        R::option_specs()
    }
    fn default_options(&self) -> Value {
        serde_json::to_value(R::Options::default()).expect("options serialize")
    }
    fn seat_name(&self, seat: Seat, seats: usize) -> String {
        R::seat_name(seat, seats)
    }
    fn period_name(&self) -> &'static str {
        R::PERIOD
    }
    fn new_match_at(
        &self,
        options: &Value,
        seats: usize,
        seed: Seed,
        rules_version: u32,
    ) -> Result<Box<dyn DynMatch>, SetupError> {
        let options = parse_options::<R>(options)?;
        Ok(Box::new(Match::<R>::new_at(
            options,
            seats,
            seed,
            rules_version,
        )?))
    }
}

fn parse_options<R: Rules>(options: &Value) -> Result<R::Options, SetupError> {
    if options.is_null() {
        return Ok(R::Options::default());
    }
    serde_json::from_value(options.clone()).map_err(|e| SetupError::BadOption {
        name: "options".into(),
        reason: e.to_string(),
    })
}

impl<R: Rules> DynMatch for Match<R>
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    fn game_id(&self) -> &'static str {
        R::ID
    }
    fn rules_version(&self) -> u32 {
        self.rules_version
    }
    fn seats(&self) -> usize {
        self.seats
    }
    fn options(&self) -> Value {
        serde_json::to_value(&self.options).expect("options serialize")
    }
    fn applied(&self) -> u64 {
        self.applied
    }
    fn opening(&self) -> Vec<String> {
        R::opening(&self.state)
    }
    fn active(&self) -> Vec<Seat> {
        if self.ended.is_some() {
            return Vec::new();
        }
        R::active(&self.state)
    }
    fn choices(&self, seat: Seat) -> Vec<Choice> {
        if self.ended.is_some() {
            return Vec::new();
        }
        R::choices(&self.state, seat)
    }
    fn forced(&self, seat: Seat) -> Option<Value> {
        if self.ended.is_some() || !R::is_active(&self.state, seat) {
            return None;
        }
        let command = super::choice::forced(&R::choices(&self.state, seat))?;
        canonical::<R>(&command).ok()
    }
    fn standing_orders(&self) -> &'static [super::StandingOrder] {
        R::standing_orders()
    }
    fn standing_command(&self, seat: Seat, order: &str) -> Option<Value> {
        if self.ended.is_some() || !R::is_active(&self.state, seat) {
            return None;
        }
        let command = R::standing_command(&self.state, seat, order)?;
        let value = serde_json::to_value(&command).expect("commands serialize");
        let mut trial = self.state.clone();
        let mut rng = super::GameRng::new(&self.seed, self.applied + 1);
        R::apply(&mut trial, seat, &command, &mut rng, &mut Log::silent())
            .is_ok()
            .then_some(value)
    }
    fn forced_in_public(&self, seat: Seat) -> bool {
        R::forced_in_public(&self.state, seat)
    }
    fn apply_json(&mut self, seat: Seat, command: &Value, log: &mut Log) -> Result<(), ApplyError> {
        let command = R::decode(command).map_err(|e| ApplyError::Malformed(e.to_string()))?;
        Ok(self.apply(seat, &command, log)?)
    }
    fn apply_random(
        &mut self,
        seat: Seat,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Option<(Value, Result<(), ApplyError>)> {
        if self.ended.is_some() {
            return None;
        }
        let (command, json) = if R::TYPED_RANDOM {
            let command = R::random_command(&self.state, seat, rng)?;
            let json = serde_json::to_value(&command).expect("commands serialize");
            (command, json)
        } else {
            let json = super::bot::random_fill::<R>(&self.state, seat, rng)?;
            (R::decode(&json).ok()?, json)
        };
        let applied = self.apply(seat, &command, log).map_err(ApplyError::from);
        Some((json, applied))
    }
    fn can_undo(&self, seat: Seat) -> bool {
        Match::can_undo(self, seat)
    }
    fn undo(&mut self, seat: Seat, log: &mut Log) -> Result<(), RuleError> {
        Match::undo(self, seat, log)
    }
    fn seal(&mut self) {
        Match::seal(self)
    }
    fn track_takebacks(&mut self, on: bool) {
        Match::track_takebacks(self, on)
    }
    fn canonical(&self, command: &Value) -> Result<Value, ApplyError> {
        canonical::<R>(command)
    }
    fn redacted(&self, seat: Seat, command: &Value) -> Option<Value> {
        match R::decode(command) {
            Ok(parsed) => R::redacted(&self.state, seat, &parsed),
            // Not a command of this game: it would not replay either; show nothing of it.
            Err(_) => Some(serde_json::json!({"type": "unreadable"})),
        }
    }
    fn view(&self, viewer: Viewer) -> Value {
        serde_json::to_value(R::view(&self.state, viewer)).expect("views serialize")
    }
    fn position(&self, viewer: Viewer, names: &[String]) -> super::present::Position {
        R::position(
            &R::view(&self.state, viewer),
            &super::present::Names::new(names),
        )
    }
    fn state_json(&self) -> Value {
        serde_json::to_value(&self.state).expect("states serialize")
    }
    fn outcome(&self) -> Option<Outcome> {
        Match::outcome(self)
    }
    fn ending(&self, names: &[String]) -> Option<super::present::Ending> {
        let outcome = Match::outcome(self)?;
        Some(R::ending(
            &R::view(&self.state, Viewer::Spectator),
            &outcome,
            &super::present::Names::new(names),
        ))
    }
    fn standing(&self) -> Option<Standing> {
        R::standing(&self.state)
    }
    fn state_hash(&self) -> String {
        Match::state_hash(self)
    }
    fn on_timeout(&self, seat: Seat) -> Value {
        serde_json::to_value(R::on_timeout(&self.state, seat)).expect("commands serialize")
    }
    fn forfeit(&mut self, seat: Seat) -> Outcome {
        Match::forfeit(self, seat)
    }
    fn cancel(&mut self, reason: &str) -> Result<Outcome, RuleError> {
        Match::cancel(self, reason)
    }
    fn partners(&self, seat: Seat) -> Vec<Seat> {
        Match::partners(self, seat)
    }
    fn clone_box(&self) -> Box<dyn DynMatch> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Parses a client's command and serializes it again: the canonical form.
pub fn canonical<R: Rules>(command: &Value) -> Result<Value, ApplyError> {
    let size = serde_json::to_vec(command).map_or(usize::MAX, |bytes| bytes.len());
    if size > MAX_COMMAND_BYTES {
        return Err(ApplyError::TooLarge(size));
    }
    let parsed = R::decode(command).map_err(|e| ApplyError::Malformed(e.to_string()))?;
    let canonical = serde_json::to_value(&parsed).expect("commands serialize");
    if let Some(path) = unknown_field(command, &canonical, "") {
        return Err(ApplyError::Malformed(format!("unknown field {path}")));
    }
    if serde_json::to_string(&canonical).is_ok_and(|text| text.contains("\\u0000")) {
        return Err(ApplyError::Malformed("a NUL character".into()));
    }
    Ok(canonical)
}

/// The first field of `given` that its canonical form does not have, as a path (`junk`,
/// `cards.2.x`): a field the game does not know, which would otherwise be stored unread.
fn unknown_field(given: &Value, canonical: &Value, path: &str) -> Option<String> {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (given, canonical) {
        (Value::Object(given), Value::Object(canonical)) => {
            given
                .iter()
                .find_map(|(key, value)| match canonical.get(key) {
                    Some(known) => unknown_field(value, known, &join(key)),
                    None => Some(join(key)),
                })
        }
        (Value::Object(given), _) => given.keys().next().map(|key| join(key)),
        (Value::Array(given), Value::Array(canonical)) => given
            .iter()
            .zip(canonical)
            .enumerate()
            .find_map(|(i, (value, known))| unknown_field(value, known, &join(&i.to_string()))),
        _ => None,
    }
}

/// The game with this id among `games` (the hosted ones are `crate::games::ALL`).
pub fn game_in<'a>(games: &[&'a dyn DynGame], id: &str) -> Option<&'a dyn DynGame> {
    games.iter().copied().find(|g| g.id() == id)
}

// Reading a command from JSON without serde's buffering of an internally tagged enum: the
// `type` is looked up first, then each field is read straight from its value. A game's
// `Rules::decode` takes the shapes it knows this way and hands anything else to the command's
// derived `Deserialize`, which defines what is accepted and words the refusal.

/// The `type` of a command object and its fields; `None` for anything else.
pub fn tagged(value: &Value) -> Option<(&str, Fields<'_>)> {
    let map = value.as_object()?;
    Some((map.get("type")?.as_str()?, Fields(map)))
}

/// The fields of a command object.
#[derive(Clone, Copy)]
pub struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    /// `Some` when the object has no field but `type` and `names`.
    pub fn only(&self, names: &[&str]) -> Option<()> {
        self.0
            .keys()
            .all(|key| key == "type" || names.contains(&key.as_str()))
            .then_some(())
    }

    /// A field that must be there, read as its type's `Deserialize` reads it.
    pub fn required<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        T::deserialize(self.0.get(name)?).ok()
    }

    /// A field that must be a string, as a type whose `Deserialize` reads a string and
    /// nothing else would see it (a card's code).
    pub fn str(&self, name: &str) -> Option<&str> {
        self.0.get(name)?.as_str()
    }

    /// A field with a default (`#[serde(default)]`): the default when absent.
    pub fn defaulted<T: DeserializeOwned + Default>(&self, name: &str) -> Option<T> {
        match self.0.get(name) {
            None => Some(T::default()),
            Some(value) => T::deserialize(value).ok(),
        }
    }
}
