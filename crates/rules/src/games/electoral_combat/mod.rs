//! Electoral College Combat: a two-player game of the 50 states and DC with five wild cards
//! (the printed rules "Electoral College Combat: Let's Play!", which name no publisher).
//! Readings of the text: RULES.md.

pub mod cards;
mod choices;
mod hand;
pub mod present;
mod sample;
mod state;
mod view;

#[cfg(test)]
mod tests;

pub use cards::{ECard, Wild};
pub use hand::{HANDS, TO_WIN};
pub use state::{
    Command, Guess, HandCard, HandRecord, Options, Phase, Purpose, Reference, Sign, Slot, State,
    WildPlay,
};
pub use view::{SlotView, View};

use crate::engine::{
    Choice, GameRng, Log, OptionKind, OptionSpec, Outcome, RuleError, Rules, Seat, SetupError,
    Standing, Viewer,
};
use serde_json::json;

/// The Electoral College Combat rules.
pub struct ElectoralCombat;

impl Rules for ElectoralCombat {
    const ID: &'static str = "electoral-combat";
    const NAME: &'static str = "Electoral College Combat";
    const RULES_VERSION: u32 = 2;
    type Options = Options;
    type State = State;
    type Command = Command;
    type View = View;

    fn seat_counts() -> (usize, usize) {
        (2, 2)
    }

    fn decode(command: &serde_json::Value) -> Result<Command, serde_json::Error> {
        match state::direct(command) {
            Some(command) => Ok(command),
            None => serde::Deserialize::deserialize(command),
        }
    }

    fn option_specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                key: "apportionment",
                label: "Electoral votes of the cards",
                kind: OptionKind::Select {
                    values: vec![
                        (json!(2024), "2024–2032 apportionment".into()),
                        (json!(2012), "2012–2020 apportionment".into()),
                    ],
                },
                default: json!(2024),
            },
            OptionSpec {
                key: "book_deal",
                label: "Book Deal: playing to lose, fewer than 270 electoral votes wins",
                kind: OptionKind::Bool,
                default: json!(false),
            },
        ]
    }

    fn setup(options: &Options, seats: usize, rng: &mut GameRng) -> Result<State, SetupError> {
        Self::setup_at(options, seats, rng, Self::RULES_VERSION)
    }

    fn setup_at(
        options: &Options,
        seats: usize,
        rng: &mut GameRng,
        rules_version: u32,
    ) -> Result<State, SetupError> {
        options.validate()?;
        debug_assert_eq!(seats, 2);
        Ok(hand::deal(options.clone(), rng, rules_version))
    }

    fn active(state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Over => Vec::new(),
            Phase::Rps => (0..2).filter(|&s| state.signs[s].is_none()).collect(),
            phase => phase.seat().into_iter().collect(),
        }
    }

    fn is_active(state: &State, seat: Seat) -> bool {
        match state.phase {
            Phase::Over => false,
            Phase::Rps => seat < 2 && state.signs[seat].is_none(),
            phase => phase.seat() == Some(seat),
        }
    }

    /// Which cards lie face down on the table is public: a seat left one card to turn over
    /// has no secret choice.
    fn forced_in_public(state: &State, seat: Seat) -> bool {
        let _ = seat;
        matches!(state.phase, Phase::Turn { .. })
    }

    fn choices(state: &State, seat: Seat) -> Vec<Choice> {
        if !Self::is_active(state, seat) {
            return Vec::new();
        }
        choices::for_seat(state, seat)
    }

    fn apply(
        state: &mut State,
        seat: Seat,
        command: &Command,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if !Self::is_active(state, seat) {
            return Err(RuleError::NotYourTurn);
        }
        let no_card =
            |slot: usize| RuleError::illegal(format!("there is no card {} to take", slot + 1));
        match (state.phase, command) {
            (Phase::Rebuild { .. }, Command::Rebuild { card }) => {
                let highest = state
                    .highest_won(seat)
                    .ok_or_else(|| RuleError::illegal("you have won no card to add"))?;
                let index = state.won[seat]
                    .iter()
                    .position(|c| c == card)
                    .ok_or_else(|| {
                        RuleError::illegal(format!("you have not won {}", state.label(*card)))
                    })?;
                if index == highest {
                    return Err(RuleError::illegal(format!(
                        "{} is your highest won card and goes in anyway: choose another",
                        state.label(*card)
                    )));
                }
                state.rebuild(index, rng, log);
                Ok(())
            }
            (Phase::Turn { purpose, .. }, Command::Turn { slot }) => {
                if !state.is_face_down(*slot) {
                    return Err(RuleError::illegal(format!(
                        "card {} is not a face-down card on the table",
                        slot + 1
                    )));
                }
                state.turn(seat, *slot, purpose, log);
                Ok(())
            }
            (Phase::Choose { high, .. }, Command::TakeHigher { with })
            | (Phase::TieHigh { third: high, .. }, Command::TakeHigher { with }) => {
                if *with == high {
                    return Err(RuleError::illegal(
                        "you take the higher card anyway: choose one other card",
                    ));
                }
                if !state.is_live(*with) {
                    return Err(no_card(*with));
                }
                state.take_higher(seat, high, *with, log);
                Ok(())
            }
            (Phase::Choose { low, .. }, Command::TakeLower { face_down }) => {
                let &[a, b] = face_down.as_slice() else {
                    return Err(RuleError::illegal("choose exactly two face-down cards"));
                };
                if a == b {
                    return Err(RuleError::illegal("choose two different face-down cards"));
                }
                for s in [a, b] {
                    if !state.is_face_down(s) {
                        return Err(RuleError::illegal(format!(
                            "card {} is not a face-down card",
                            s + 1
                        )));
                    }
                }
                state.take_lower(seat, low, [a, b], log);
                Ok(())
            }
            (Phase::Guess { reference, .. }, Command::Guess { guess }) => {
                state.guess(seat, reference, *guess, log);
                Ok(())
            }
            (Phase::Rps, Command::Rps { sign }) => {
                state.sign(seat, *sign, log);
                Ok(())
            }
            (Phase::RpsTake { .. }, Command::Take { slot }) => {
                if !state.is_live(*slot) {
                    return Err(no_card(*slot));
                }
                state.rps_take(seat, *slot, log);
                Ok(())
            }
            (phase, _) => Err(RuleError::illegal(phase.expects())),
        }
    }

    fn position(
        view: &View,
        names: &crate::engine::present::Names,
    ) -> crate::engine::present::Position {
        present::position(view, names)
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
    }

    fn ending(
        view: &View,
        outcome: &Outcome,
        names: &crate::engine::present::Names,
    ) -> crate::engine::present::Ending {
        present::ending(view, outcome, names)
    }

    /// Each player's electoral votes won.
    /// The stacks, the hand's face-down cards, the cards added and the sealed signs are the
    /// secrets.
    fn keeps_secrets(before: &State, after: &State) -> bool {
        before.stacks == after.stacks
            && before.table == after.table
            && before.added == after.added
            && before.signs == after.signs
    }

    fn standing(state: &State) -> Option<Standing> {
        let votes = [0, 1].map(|s| i64::from(state.votes(s)));
        Some(Standing::by_seat(u32::from(state.hand), &votes))
    }

    fn on_timeout(state: &State, seat: Seat) -> Command {
        choices::cautious(state, seat)
    }

    /// A Russian Collusion sign is sealed; every other command is public.
    fn redacted(_state: &State, _seat: Seat, command: &Command) -> Option<serde_json::Value> {
        matches!(command, Command::Rps { .. }).then(|| json!({"type": "rps", "sign": "sealed"}))
    }
}
