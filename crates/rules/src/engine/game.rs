//! [`Match`]: one game in play, its rules known at compile time — the seed, the options and the
//! state, advanced one command at a time with the right random stream.

use super::{GameRng, Log, Outcome, RuleError, Rules, Seat, Seed, SetupError};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// A game in play: the state plus what is needed to apply the next command reproducibly.
#[derive(Debug)]
pub struct Match<R: Rules> {
    /// The options the game was created with.
    pub options: R::Options,
    /// How many seats play.
    pub seats: usize,
    /// The game's seed; command n draws from stream n.
    pub seed: Seed,
    /// The rules version the game began under (its record names it).
    pub rules_version: u32,
    /// The current state.
    pub state: R::State,
    /// How many commands have been applied.
    pub applied: u64,
    /// Set when the game ended outside its rules (a seat forfeited on time, or the organiser
    /// cancelled it): the game is over with this result.
    pub ended: Option<Outcome>,
    /// The commands the seat now moving may still take back, oldest first: all of one seat,
    /// made by its own hand since its turn began, each revealing nothing ([`Match::undo`]).
    takebacks: Vec<Takeback<R>>,
    /// Whether takebacks are kept at all: on by default; a bulk replay of a record without an
    /// undo entry (verification, the bot's playouts) turns it off and saves a copy of the state
    /// per command.
    tracks_takebacks: bool,
}

/// A command that may be taken back: the state before it and the public lines it wrote.
#[derive(Debug)]
struct Takeback<R: Rules> {
    seat: Seat,
    before: R::State,
    applied: u64,
    lines: Vec<String>,
}

impl<R: Rules> Clone for Takeback<R> {
    fn clone(&self) -> Self {
        Takeback {
            seat: self.seat,
            before: self.before.clone(),
            applied: self.applied,
            lines: self.lines.clone(),
        }
    }
}

/// The most takebacks a match keeps: a turn of more commands than this (none of the games
/// has one) keeps only its latest ones undoable.
const MAX_TAKEBACKS: usize = 64;

impl<R: Rules> Clone for Match<R> {
    fn clone(&self) -> Self {
        Match {
            options: self.options.clone(),
            seats: self.seats,
            seed: self.seed,
            rules_version: self.rules_version,
            state: self.state.clone(),
            applied: self.applied,
            ended: self.ended.clone(),
            takebacks: self.takebacks.clone(),
            tracks_takebacks: self.tracks_takebacks,
        }
    }
}

impl<R: Rules> Match<R> {
    /// Sets up a game from its seed (stream 0) under the current rules version.
    pub fn new(options: R::Options, seats: usize, seed: Seed) -> Result<Match<R>, SetupError> {
        Match::new_at(options, seats, seed, R::RULES_VERSION)
    }

    /// Sets up a game from its seed under rules version `rules_version`, as a game that began
    /// with it replays.
    pub fn new_at(
        options: R::Options,
        seats: usize,
        seed: Seed,
        rules_version: u32,
    ) -> Result<Match<R>, SetupError> {
        if !(1..=R::RULES_VERSION).contains(&rules_version) {
            return Err(SetupError::RulesVersion {
                found: rules_version,
                known: R::RULES_VERSION,
            });
        }
        let (min, max) = R::seat_counts();
        if seats < min || seats > max {
            return Err(SetupError::SeatCount {
                min,
                max,
                given: seats,
            });
        }
        let state = R::setup_at(&options, seats, &mut GameRng::new(&seed, 0), rules_version)?;
        Ok(Match {
            options,
            seats,
            seed,
            rules_version,
            state,
            applied: 0,
            ended: None,
            takebacks: Vec::new(),
            tracks_takebacks: true,
        })
    }

    /// Applies the next command for `seat`. Refuses seats that are not awaited; on `Err` the
    /// match is unchanged.
    pub fn apply(
        &mut self,
        seat: Seat,
        command: &R::Command,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if self.ended.is_some() || !R::is_active(&self.state, seat) {
            return Err(RuleError::NotYourTurn);
        }
        if !self.tracks_takebacks {
            let mut rng = GameRng::new(&self.seed, self.applied + 1);
            R::apply(&mut self.state, seat, command, &mut rng, log)?;
            self.applied += 1;
            return Ok(());
        }
        let before = self.state.clone();
        let written = log.lines().len();
        let mut rng = GameRng::new(&self.seed, self.applied + 1);
        R::apply(&mut self.state, seat, command, &mut rng, log)?;
        self.applied += 1;
        if self.takebacks.last().is_some_and(|t| t.seat != seat) {
            self.takebacks.clear();
        }
        if self.may_take_back(seat, &before, &rng) {
            if self.takebacks.len() == MAX_TAKEBACKS {
                self.takebacks.remove(0);
            }
            self.takebacks.push(Takeback {
                seat,
                before,
                applied: self.applied - 1,
                lines: log.lines()[written..].to_vec(),
            });
        } else {
            self.takebacks.clear();
        }
        Ok(())
    }

    /// Whether the command `seat` just played from `before` may be taken back: it drew no
    /// randomness and revealed nothing, the game goes on, the seat is still to move and nobody
    /// else was newly awaited (so nobody was told of a position that may be taken back).
    fn may_take_back(&self, seat: Seat, before: &R::State, rng: &GameRng) -> bool {
        if rng.drawn() || R::outcome(&self.state).is_some() || !R::is_active(&self.state, seat) {
            return false;
        }
        R::active(&self.state)
            .into_iter()
            .all(|s| R::is_active(before, s))
            && R::keeps_secrets(before, &self.state)
    }

    /// Whether `seat` may take back its last command now ([`Match::undo`]).
    pub fn can_undo(&self, seat: Seat) -> bool {
        self.ended.is_none() && self.takebacks.last().is_some_and(|t| t.seat == seat)
    }

    /// Takes back `seat`'s last command: the state is again exactly as before it. Allowed for
    /// a command the seat made by its own hand since its turn began, while no other seat has
    /// moved, when it drew no randomness and brought no secret to light (see
    /// [`Rules::keeps_secrets`]). Writes "takes back" with the lines of the command taken back.
    pub fn undo(&mut self, seat: Seat, log: &mut Log) -> Result<(), RuleError> {
        if !self.can_undo(seat) {
            return Err(RuleError::illegal(
                "nothing to take back: only your own moves since your turn began, before a \
                 card, a die or a secret was revealed and before anyone else moved",
            ));
        }
        let taken = self.takebacks.pop().expect("can_undo saw one");
        self.state = taken.before;
        self.applied = taken.applied;
        log.push(|| {
            let what = taken.lines.join(" ");
            if what.is_empty() {
                format!(
                    "{} takes back their last move.",
                    crate::engine::log::who(seat)
                )
            } else {
                format!("{} takes back: {what}", crate::engine::log::who(seat))
            }
        });
        Ok(())
    }

    /// Turns the keeping of takebacks on or off (on from the start). Off, nothing can be taken
    /// back: for bulk replays that meet no undo entry.
    pub fn track_takebacks(&mut self, on: bool) {
        self.tracks_takebacks = on;
        if !on {
            self.takebacks.clear();
        }
    }

    /// Makes the commands played so far final: nothing before this point may be taken back
    /// (an entry not made by the seat's own hand, such as the clock's or a standing order's).
    pub fn seal(&mut self) {
        self.takebacks.clear();
    }

    /// The result, once over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.ended.clone().or_else(|| R::outcome(&self.state))
    }

    /// Ends the game: `seat` forfeits. Every seat but it and its partners wins.
    pub fn forfeit(&mut self, seat: Seat) -> Outcome {
        let losers: Vec<Seat> = std::iter::once(seat)
            .chain(R::partners(&self.state, seat))
            .collect();
        let outcome = Outcome {
            winners: (0..self.seats).filter(|s| !losers.contains(s)).collect(),
            scores: vec![0; self.seats],
            reason: format!(
                "{} forfeits: the time to move ran out",
                crate::engine::log::who(seat)
            ),
        };
        self.ended = Some(outcome.clone());
        self.takebacks.clear();
        outcome
    }

    /// Ends the game unfinished: the organiser cancelled it for `reason`. Nobody wins; refused
    /// once the game is over.
    pub fn cancel(&mut self, reason: &str) -> Result<Outcome, RuleError> {
        if self.outcome().is_some() {
            return Err(RuleError::illegal("the game is already over"));
        }
        let outcome = Outcome {
            winners: Vec::new(),
            scores: vec![0; self.seats],
            reason: format!("Cancelled by the organiser: {reason}"),
        };
        self.ended = Some(outcome.clone());
        self.takebacks.clear();
        Ok(outcome)
    }

    /// The seats that win or lose with `seat`.
    pub fn partners(&self, seat: Seat) -> Vec<Seat> {
        R::partners(&self.state, seat)
    }

    /// SHA-256 of the state's canonical serialization, as hex.
    pub fn state_hash(&self) -> String {
        state_hash(&self.state)
    }
}

/// SHA-256 of a value's canonical JSON serialization (struct fields in declaration order; the
/// rules use no hash maps), as lowercase hex.
pub fn state_hash<T: Serialize>(state: &T) -> String {
    let mut bytes = Vec::with_capacity(4096);
    serde_json::to_writer(&mut bytes, state).expect("game states always serialize");
    hex::encode(Sha256::digest(&bytes))
}
