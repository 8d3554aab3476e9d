//! Whitehouse: a four-player trick-taking game for partnerships or individuals, played with
//! the Statehood pack ("Whitehouse", the printed rules published with the Statehood Playing
//! Cards). Readings of the text: RULES.md.

mod choices;
mod deal;
pub mod present;
mod sample;
mod scoring;
mod state;
mod tricks;
mod view;

#[cfg(test)]
mod tests;

pub use state::{Command, HandSummary, Options, Phase, State, TeamColors};
pub use view::View;

use crate::cards::Suit;
use crate::engine::log::who;
use crate::engine::{
    Choice, GameRng, Log, OptionKind, OptionSpec, Outcome, RuleError, Rules, Seat, SetupError,
    Standing, Viewer,
};
use serde_json::json;

/// The Whitehouse rules.
pub struct Whitehouse;

/// Seat names in seating order (clockwise).
pub const SEAT_NAMES: [&str; 4] = ["North", "East", "South", "West"];

/// Lowest bid.
pub const MIN_BID: u32 = 270;
/// Highest bid: the electoral votes of the whole pack (538) rounded down to a step of 10.
pub const MAX_BID: u32 = 530;

impl Rules for Whitehouse {
    const ID: &'static str = "whitehouse";
    const NAME: &'static str = "Whitehouse";
    const RULES_VERSION: u32 = 3;
    type Options = Options;
    type State = State;
    type Command = Command;
    type View = View;

    fn seat_counts() -> (usize, usize) {
        (4, 4)
    }

    fn decode(command: &serde_json::Value) -> Result<Command, serde_json::Error> {
        match state::play(command).or_else(|| state::direct(command)) {
            Some(command) => Ok(command),
            None => serde::Deserialize::deserialize(command),
        }
    }

    fn option_specs() -> Vec<OptionSpec> {
        vec![
            OptionSpec {
                key: "partnership",
                label: "Partnerships (North–South against East–West); off: individual play",
                kind: OptionKind::Bool,
                default: json!(true),
            },
            OptionSpec {
                key: "jokers",
                label: "Play with the two jokers (kitty of 6; without: kitty of 4)",
                kind: OptionKind::Bool,
                default: json!(true),
            },
            OptionSpec {
                key: "target",
                label: "Points to win",
                kind: OptionKind::Select {
                    values: [3, 5, 7, 9, 11, 13]
                        .iter()
                        .map(|t| (json!(t), format!("{t} points")))
                        .collect(),
                },
                default: json!(7),
            },
            OptionSpec {
                key: "team_colors",
                label: "Team Red / Team Blue: each partnership always bids its colour as trump",
                kind: OptionKind::Select {
                    values: vec![
                        (json!("off"), "off".into()),
                        (
                            json!("north_south_red"),
                            "North–South Red, East–West Blue".into(),
                        ),
                        (
                            json!("north_south_blue"),
                            "North–South Blue, East–West Red".into(),
                        ),
                    ],
                },
                default: json!("off"),
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
        debug_assert_eq!(seats, 4);
        let (draw, dealer) = deal::draw_for_dealer(rng);
        let mut state = State::new(options.clone(), dealer, draw);
        state.rules_version = rules_version;
        deal::deal_hand(&mut state, rng);
        Ok(state)
    }

    fn opening(state: &State) -> Vec<String> {
        let draw: Vec<String> = state
            .dealer_draw
            .iter()
            .enumerate()
            .map(|(seat, card)| format!("{} {}", who(seat), card.label()))
            .collect();
        vec![format!(
            "the draw for first dealer: {}; {} deals",
            draw.join(", "),
            who(state.dealer)
        )]
    }

    fn active(state: &State) -> Vec<Seat> {
        match state.phase {
            Phase::Over => Vec::new(),
            _ => vec![state.turn],
        }
    }

    fn is_active(state: &State, seat: Seat) -> bool {
        state.phase != Phase::Over && state.turn == seat
    }

    /// The auction is public (the dealer bound to 270, a seat that can bid no higher), and so
    /// is a hand's last card; following suit with the one card of the suit led is not.
    fn forced_in_public(state: &State, seat: Seat) -> bool {
        match state.phase {
            Phase::Bidding => true,
            Phase::Play => state.hands[seat].len() == 1,
            _ => false,
        }
    }

    fn choices(state: &State, seat: Seat) -> Vec<Choice> {
        if state.phase == Phase::Over || seat != state.turn {
            return Vec::new();
        }
        choices::for_turn(state)
    }

    fn apply(
        state: &mut State,
        seat: Seat,
        command: &Command,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if state.phase == Phase::Over || seat != state.turn {
            return Err(RuleError::NotYourTurn);
        }
        match (state.phase, command) {
            (Phase::Bidding, Command::Bid { amount }) => state.bid(seat, *amount, log),
            (Phase::Bidding, Command::Pass) => state.pass(seat, log),
            (Phase::Trump, Command::Trump { suit }) => state.name_trump(seat, *suit, log),
            (Phase::Kitty, Command::Discard { cards }) => state.exchange_kitty(seat, cards, log),
            (Phase::Challenges, Command::Challenge) => state.challenge(seat, true, log),
            (Phase::Challenges, Command::NoChallenge) => state.challenge(seat, false, log),
            (Phase::Play, Command::Play { card }) => {
                state.play(seat, *card, log)?;
                if state.phase == Phase::HandOver {
                    scoring::end_hand(state, log);
                    if state.phase != Phase::Over {
                        deal::deal_hand(state, rng);
                        log.push(|| {
                            format!("{} deals hand {}", who(state.dealer), state.hand_number)
                        });
                    }
                }
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

    /// Scores by partnership ("{s0} and {s2}") or by seat.
    /// Hands and kitty are the secrets: naming trump, say, may be taken back while the
    /// bidder is still to move; a card played or a kitty put back may not.
    fn keeps_secrets(before: &State, after: &State) -> bool {
        before.hands == after.hands && before.kitty == after.kitty
    }

    fn standing(state: &State) -> Option<Standing> {
        let label = |holder: usize| {
            if state.options.partnership {
                format!("{} and {}", who(holder), who(holder + 2))
            } else {
                who(holder)
            }
        };
        Some(Standing {
            period: state.hand_number,
            scores: (0..state.scores.len())
                .map(|h| (label(h), state.scores[h]))
                .collect(),
        })
    }

    fn on_timeout(state: &State, seat: Seat) -> Command {
        choices::cautious(state, seat)
    }

    /// The cards laid back as the kitty are hidden: others learn how many.
    fn redacted(_state: &State, _seat: Seat, command: &Command) -> Option<serde_json::Value> {
        match command {
            Command::Discard { cards } => Some(json!({"type": "discard", "cards": cards.len()})),
            _ => None,
        }
    }

    fn seat_name(seat: Seat, _seats: usize) -> String {
        SEAT_NAMES[seat % 4].to_string()
    }

    /// North–South and East–West, in partnership play.
    fn partners(state: &State, seat: Seat) -> Vec<Seat> {
        if state.options.partnership {
            vec![(seat + 2) % 4]
        } else {
            Vec::new()
        }
    }
}

/// "spades ♠", for logs and labels.
pub fn suit_label(suit: Suit) -> String {
    format!("{} {}", suit.name(), suit.symbol())
}
