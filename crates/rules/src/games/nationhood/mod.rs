//! Nationhood: a two-player rummy of cities, diplomacy and war, won by a "nation" of seven
//! cards of one suit in sequence ("Nationhood", Matthew Shields, 2005). Readings of the text:
//! RULES.md.

mod choices;
pub mod melds;
mod play;
pub mod present;
mod sample;
mod state;
mod view;
mod war;

#[cfg(test)]
mod tests;

pub use play::{FULL_HAND, pack};
pub use state::{City, Command, HandEnd, HandEndKind, Offer, Options, Phase, State};
pub use view::View;

use crate::engine::{
    Choice, GameRng, Log, OptionKind, OptionSpec, Outcome, RuleError, Rules, Seat, SetupError,
    Standing, Viewer,
};
use serde_json::json;

/// The Nationhood rules.
pub struct Nationhood;

impl Rules for Nationhood {
    const ID: &'static str = "nationhood";
    const NAME: &'static str = "Nationhood";
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
                key: "rubbers",
                label: "Match",
                kind: OptionKind::Select {
                    values: vec![
                        (json!(1), "One rubber".to_string()),
                        (json!(3), "Best of three rubbers".to_string()),
                    ],
                },
                default: json!(1),
            },
            OptionSpec {
                key: "target",
                label: "Points to win a rubber",
                kind: OptionKind::Integer { min: 1, max: 50 },
                default: json!(7),
            },
            OptionSpec {
                key: "draw_after",
                label: "House rule: hands in a row without a nation that draw the match",
                kind: OptionKind::Integer { min: 1, max: 20 },
                default: json!(state::DEFAULT_DRAW_AFTER),
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
        let mut state = State {
            rules_version,
            options: options.clone(),
            rubber: 1,
            rubbers_won: vec![0; seats],
            scores: vec![0; seats],
            hand_number: 0,
            dealer: rng.index(2),
            phase: Phase::Turn,
            turn: 0,
            hands: Vec::new(),
            stock: Vec::new(),
            piles: Vec::new(),
            cities: Vec::new(),
            next_city: 1,
            offer: None,
            war_threats: Vec::new(),
            last_stock_taker: None,
            restocked: false,
            hands_without_winner: 0,
            last_hand: None,
            outcome: None,
        };
        state.deal(rng, &mut Log::silent());
        Ok(state)
    }

    fn active(state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Over => Vec::new(),
            Phase::Answer => vec![State::other(state.turn)],
            _ => vec![state.turn],
        }
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
        use Phase::*;
        match (state.phase, command) {
            (Turn | Response | Rebuild, Command::DrawStock) => state.draw(seat, false, rng, log),
            (Turn | Response | Rebuild, Command::DrawPile) => state.draw(seat, true, rng, log),
            (Melding | Whittle | Response | Rebuild, Command::Meld { cards, jokers }) => {
                state.meld(seat, cards, jokers, rng, log)
            }
            (Melding, Command::LayOff { card, city }) => {
                state.lay_off(seat, *card, *city, rng, log)
            }
            (Melding, Command::Exchange { card, city }) => {
                state.exchange(seat, *card, *city, rng, log)
            }
            (Melding | Whittle, Command::Discard { card }) => state.discard(seat, *card, rng, log),
            (Turn, Command::Offer { give, take }) => state.offer(seat, give, take, log),
            (Answer, Command::Accept) => {
                state.answer(seat, true, rng, log);
                Ok(())
            }
            (Answer, Command::Refuse) => {
                state.answer(seat, false, rng, log);
                Ok(())
            }
            (Turn, Command::DeclareWar) => state.declare_war(seat, rng, log),
            (Response, Command::Retaliate) => state.retaliate(seat, rng, log),
            (phase, _) => Err(RuleError::illegal(match phase {
                Turn => "draw from the stock or your discard pile, offer diplomacy, or declare war",
                Answer => "accept or refuse the trade",
                Melding => "make a city, add to a city, exchange a joker, or discard",
                Whittle => "make cities or discard until seven cards are left",
                Response => "retaliate with the joker, or rebuild by drawing",
                Rebuild => "draw (or make a city) until eight cards are in your hand",
                Over => "the game is over",
            })),
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

    /// Each seat's points.
    /// Hands and the stock are the secrets.
    fn keeps_secrets(before: &State, after: &State) -> bool {
        before.hands == after.hands && before.stock == after.stock
    }

    fn standing(state: &State) -> Option<Standing> {
        Some(Standing::by_seat(state.hand_number, &state.scores))
    }

    fn on_timeout(state: &State, seat: Seat) -> Command {
        choices::cautious(state, seat)
    }

    /// Every command is public: draws name only the pile, melds and discards are face up.
    fn redacted(_state: &State, _seat: Seat, _command: &Command) -> Option<serde_json::Value> {
        None
    }
}
