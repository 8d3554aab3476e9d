//! Statehood: a 2–4 player game of declaring statehood for DC, Puerto Rico and the four
//! territories, and challenging others' declarations ("How to Play Statehood", published with
//! the Statehood Playing Cards). Readings of the text: RULES.md.

mod choices;
mod play;
pub mod present;
mod sample;
mod state;
mod view;

#[cfg(test)]
mod tests;

pub use state::{
    Command, Declaration, DeclarationKind, HandEnd, Options, Phase, PrAnswer, PrDeclaration, State,
    WonCard,
};
pub use view::{High, PrView, View};

use crate::cards::Card;
use crate::engine::{
    Choice, GameRng, Log, OptionKind, OptionSpec, Outcome, RuleError, Rules, Seat, SetupError,
    Standing, Viewer,
};
use serde_json::json;

/// The Statehood rules.
pub struct Statehood;

/// The Puerto Rico card.
pub fn puerto_rico() -> Card {
    Card::from_code("PR").expect("the pack has Puerto Rico")
}

/// The DC card.
pub fn dc() -> Card {
    Card::from_code("DC").expect("the pack has DC")
}

impl Rules for Statehood {
    const ID: &'static str = "statehood";
    const NAME: &'static str = "Statehood";
    const RULES_VERSION: u32 = 3;
    type Options = Options;
    type State = State;
    type Command = Command;
    type View = View;

    fn seat_counts() -> (usize, usize) {
        (2, 4)
    }

    fn decode(command: &serde_json::Value) -> Result<Command, serde_json::Error> {
        match state::direct(command) {
            Some(command) => Ok(command),
            None => serde::Deserialize::deserialize(command),
        }
    }

    fn option_specs() -> Vec<OptionSpec> {
        vec![OptionSpec {
            key: "target",
            label: "Points to win",
            kind: OptionKind::Integer { min: 1, max: 500 },
            default: json!(56),
        }]
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
        let dealer = play::draw_for_dealer(seats, rng);
        let mut state = State {
            rules_version,
            options: options.clone(),
            seats,
            hand_number: 0,
            dealer,
            phase: Phase::Turn,
            turn: 0,
            hands: vec![Vec::new(); seats],
            stock: Vec::new(),
            discard: Vec::new(),
            drawn: None,
            declaration: None,
            puerto_rico: None,
            won: vec![Vec::new(); seats],
            scores: vec![0; seats],
            last_hand: None,
            outcome: None,
        };
        play::deal(&mut state, rng, &mut Log::silent());
        Ok(state)
    }

    fn active(state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Over => Vec::new(),
            Phase::PuertoRicoChallenges => state.pr_pending(),
            _ => vec![state.turn],
        }
    }

    fn is_active(state: &State, seat: Seat) -> bool {
        match state.phase {
            Phase::Over => false,
            Phase::PuertoRicoChallenges => state
                .puerto_rico
                .as_ref()
                .is_some_and(|p| matches!(p.answers.get(seat), Some(None))),
            _ => seat == state.turn,
        }
    }

    /// Declaring Puerto Rico when the stock is gone is public, and so is a Puerto Rico
    /// challenge decided by the number of cards a seat holds (its choices rest on that alone).
    /// A pass on a declaration is public when no hand of the seat's size, drawn from the cards
    /// some other seat has not seen, could beat it (an empty hand, California declared as a
    /// wildcard); a pass for want of the cards that would beat it is not.
    fn forced_in_public(state: &State, seat: Seat) -> bool {
        match state.phase {
            Phase::ForcedPuertoRico | Phase::PuertoRicoChallenges => true,
            Phase::Challenges => {
                let Some(declaration) = &state.declaration else {
                    return false;
                };
                let size = state.hands[seat].len();
                (0..state.seats).filter(|&o| o != seat).all(|other| {
                    let seen = view::view(state, Viewer::Seat(other));
                    sample::unseen(&seen, other, &state.hands[other])
                        .is_ok_and(|cards| !choices::could_challenge(declaration, &cards, size))
                })
            }
            _ => false,
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
        match (state.phase, command) {
            (Phase::Turn, Command::TakeDiscard { discard }) => {
                state.take_discard(seat, *discard, rng, log)
            }
            (Phase::Turn, Command::Draw) => state.draw(seat, log),
            (Phase::Turn, Command::DeclareWild { wildcard, defence }) => {
                state.declare_wild(seat, *wildcard, *defence, log)
            }
            (Phase::Turn, Command::DeclareDc { defence }) => state.declare_dc(seat, defence, log),
            (Phase::Turn | Phase::ForcedPuertoRico, Command::DeclarePuertoRico) => {
                state.declare_puerto_rico(seat, log)
            }
            (Phase::Drawn, Command::Discard { card }) => {
                state.discard_after_draw(seat, *card, rng, log)
            }
            (Phase::Challenges, Command::Challenge { cards }) => state.challenge(seat, cards, log),
            (Phase::Challenges, Command::Pass) => {
                state.pass_challenge(seat, log);
                Ok(())
            }
            (Phase::PuertoRicoChallenges, Command::Pass) => {
                if state.v2() && state.hands[seat].len() >= 6 {
                    return Err(RuleError::illegal(
                        "every other player challenges Puerto Rico: lay down six cards",
                    ));
                }
                state.answer_puerto_rico(seat, PrAnswer::Pass, rng, log)
            }
            (Phase::PuertoRicoChallenges, Command::ChallengePuertoRico { cards }) => {
                state.answer_puerto_rico(seat, PrAnswer::Cards(cards.clone()), rng, log)
            }
            (phase, _) => Err(RuleError::illegal(match phase {
                Phase::Turn => "take the discard, draw, or declare statehood",
                Phase::Drawn => "discard a card now",
                Phase::Challenges => "challenge the declaration or pass",
                Phase::ForcedPuertoRico => "the stock is gone: declare Puerto Rico",
                Phase::PuertoRicoChallenges => "challenge Puerto Rico with six cards",
                Phase::Over => "the game is over",
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
    /// Hands, the stock and the card drawn are the secrets.
    fn keeps_secrets(before: &State, after: &State) -> bool {
        before.hands == after.hands && before.stock == after.stock && before.drawn == after.drawn
    }

    fn standing(state: &State) -> Option<Standing> {
        Some(Standing::by_seat(state.hand_number, &state.scores))
    }

    fn on_timeout(state: &State, seat: Seat) -> Command {
        choices::cautious(state, seat)
    }

    /// Answers to Puerto Rico are sealed, a pass as much as a challenge: others learn only that
    /// the seat answered. Everything else is laid face up.
    fn redacted(state: &State, _seat: Seat, _command: &Command) -> Option<serde_json::Value> {
        (state.phase == Phase::PuertoRicoChallenges).then(|| json!({"type": "sealed_answer"}))
    }
}
