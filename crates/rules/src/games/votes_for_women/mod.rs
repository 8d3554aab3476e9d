//! Votes for Women: the two-player competitive game of the Nineteenth Amendment (the printed
//! rules of *Votes for Women*, Fort Circle Games), the Suffragist (seat 0) against the Opposition
//! (seat 1). Card effects are primitive ops read from data/votes-for-women/cards.json and run
//! by a small interpreter. Readings of the text: RULES.md.

mod board;
mod choices;
pub mod data;
mod decode;
mod fixed;
mod ops;
pub mod present;
mod random;
mod rules;
mod sample;
mod state;
mod stops;
mod undo;
mod view;

#[cfg(test)]
mod tests;

pub use board::{CHECKS_TO_WIN, SUPPLY, XS_TO_WIN};
pub use choices::first_value;
pub use data::{OPP, Region, SUFF, St};
pub use state::{
    Action, Campaigner, Command, Commitment, Cubes, Frame, Mark, Options, Phase, Script, Source,
    State, Vote,
};
pub use view::{CardView, Resolving, StateView, View, VoteView, shows_opponents_hand};

use crate::engine::log::{count, who};
use crate::engine::{
    Choice, GameRng, Log, OptionSpec, Outcome, RuleError, Rules, Seat, SetupError, Standing,
    StandingOrder, Viewer,
};
use data::{Deck, Era, card};
use stops::{Stop, stop, vote_reroll_open};

const COMMIT_NONE: &str = "commit-none";
const ALWAYS_DEFER: &str = "always-defer";
const KEEP_ROLLS: &str = "keep-rolls";

/// The decisions a Votes for Women player may settle ahead (RULES.md, "Standing orders").
static STANDING_ORDERS: [StandingOrder; 3] = [
    StandingOrder {
        id: COMMIT_NONE,
        label: "Commit no buttons in every Strategy phase",
        note: "The Opposition then decides at once whether to take a Strategy card.",
        seat: Some(SUFF),
    },
    StandingOrder {
        id: ALWAYS_DEFER,
        label: "Defer to the Suffragist in every Strategy phase",
        note: "The Suffragist then pays what she committed and takes a Strategy card; when she committed none, nobody pays and nobody takes one (a match).",
        seat: Some(OPP),
    },
    StandingOrder {
        id: KEEP_ROLLS,
        label: "Keep every roll: never spend a button to reroll",
        note: "Each roll stands as it falls, whatever it gives.",
        seat: None,
    },
];

/// The Votes for Women rules.
pub struct VotesForWomen;

/// Each side's cards of each era, Late first (the bottom of the draw deck), listed once.
static ERAS: std::sync::LazyLock<[Vec<Vec<u8>>; 2]> = std::sync::LazyLock::new(|| {
    [Deck::Suffragist, Deck::Opposition].map(|deck| {
        [Era::Late, Era::Middle, Era::Early]
            .iter()
            .map(|&era| {
                (1..=104)
                    .filter(|&c| card(c).deck == deck && card(c).era == era)
                    .collect()
            })
            .collect()
    })
});

fn deck_for(deck: Deck, rng: &mut GameRng) -> Vec<u8> {
    let eras = match deck {
        Deck::Suffragist => &ERAS[0],
        Deck::Opposition => &ERAS[1],
        _ => unreachable!("only the two sides' decks are dealt"),
    };
    let mut out = Vec::with_capacity(eras.iter().map(Vec::len).sum());
    for era in eras {
        let at = out.len();
        out.extend_from_slice(era);
        rng.shuffle(&mut out[at..]);
    }
    out
}

impl Rules for VotesForWomen {
    const ID: &'static str = "votes-for-women";
    const NAME: &'static str = "Votes for Women";
    const RULES_VERSION: u32 = 3;
    type Options = Options;
    type State = State;
    type Command = Command;
    type View = View;

    fn seat_counts() -> (usize, usize) {
        (2, 2)
    }

    fn option_specs() -> Vec<OptionSpec> {
        Vec::new()
    }

    fn setup(options: &Options, seats: usize, rng: &mut GameRng) -> Result<State, SetupError> {
        Self::setup_at(options, seats, rng, Self::RULES_VERSION)
    }

    fn setup_at(
        _options: &Options,
        _seats: usize,
        rng: &mut GameRng,
        rules_version: u32,
    ) -> Result<State, SetupError> {
        let decks = [
            deck_for(Deck::Suffragist, rng),
            deck_for(Deck::Opposition, rng),
        ];
        let mut state_cards: Vec<u8> = (117..=128).collect();
        rng.shuffle(&mut state_cards);
        let removed = state_cards.split_off(9);
        let mut strategy: Vec<u8> = (105..=116).collect();
        rng.shuffle(&mut strategy);
        let face_up = strategy.split_off(9);
        let mut state = State {
            rules_version,
            turn: 1,
            round: 1,
            phase: Phase::Operations,
            to_play: SUFF,
            hand_done: false,
            claimed_done: false,
            congress: 0,
            amendment_sent: false,
            states: vec![Cubes::default(); data::STATES],
            campaigners: Vec::new(),
            buttons: [0, 0],
            hands: [vec![1], vec![53]],
            decks,
            discards: [Vec::new(), Vec::new()],
            state_cards,
            removed_state_cards: removed,
            strategy_deck: strategy,
            strategy_face_up: face_up,
            claimed: [Vec::new(), Vec::new()],
            spent: Vec::new(),
            rest_of_turn: Vec::new(),
            rest_of_game: Vec::new(),
            final_voting: Vec::new(),
            commitment: None,
            chooser: SUFF,
            vote: None,
            stack: Vec::new(),
            last_roll: None,
            outcome: None,
            awaited: Default::default(),
            red_takes: None,
        };
        state.draw(SUFF, 6);
        state.draw(OPP, 6);
        Ok(state)
    }

    fn active(state: &State) -> Vec<Seat> {
        stops::awaited(state).into_iter().collect()
    }

    fn is_active(state: &State, seat: Seat) -> bool {
        stops::awaited(state) == Some(seat)
    }

    fn choices(state: &State, seat: Seat) -> Vec<Choice> {
        choices::for_seat(state, seat)
    }

    /// The random player's move without building the choices: the same draws, the same
    /// command (`random`).
    fn random_command(state: &State, seat: Seat, rng: &mut GameRng) -> Option<Command> {
        random::random_command(state, seat, rng)
    }

    const TYPED_RANDOM: bool = true;

    /// The Opposition's answer to a commitment is chosen from public things alone (the
    /// buttons committed and held, the rules version), so a lone "match" is one everyone can
    /// tell is forced; every other lone choice may rest on a hidden hand.
    fn forced_in_public(state: &State, seat: Seat) -> bool {
        matches!(stops::awaited_stop(state), Some((awaited, stop)) if awaited == seat && *stop == Stop::Answer)
    }

    fn standing_orders() -> &'static [StandingOrder] {
        &STANDING_ORDERS
    }

    /// The Suffragist's commitment of no buttons, the Opposition's deferral, and keeping a
    /// roll, each where the seat faces that decision and nothing else.
    fn standing_command(state: &State, seat: Seat, order: &str) -> Option<Command> {
        let (awaited, stop) = stops::awaited_stop(state)?;
        if awaited != seat {
            return None;
        }
        match (order, stop.as_ref()) {
            (COMMIT_NONE, Stop::Commit) => Some(Command::Commit {
                buttons: 0,
                card: None,
            }),
            (ALWAYS_DEFER, Stop::Answer) if rules::defer_open(state) => Some(Command::Defer),
            (ALWAYS_DEFER, Stop::Answer) => Some(Command::Match),
            (KEEP_ROLLS, Stop::Reroll) => Some(Command::Accept),
            _ => None,
        }
    }

    fn decode(command: &serde_json::Value) -> Result<Command, serde_json::Error> {
        decode::command(command)
    }

    fn apply(
        state: &mut State,
        seat: Seat,
        command: &Command,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if stops::awaited(state) != Some(seat) {
            return Err(RuleError::NotYourTurn);
        }
        if command.takes().is_some() && seat != OPP {
            return Err(RuleError::Illegal(
                "only the Opposition's red cubes take a colour".into(),
            ));
        }
        if command.takes().is_some() && !state.v3() {
            return Err(RuleError::Illegal(format!(
                "under the rules this game began with (version {}), the Opposition does not \
                 choose which colour its red cubes remove",
                state.rules_version
            )));
        }
        // `flow` and `decide` check everything before they change anything, so a refused
        // command leaves the state as it was without a copy to fall back on.
        state.red_takes = command.takes();
        let decided = if state.stack.is_empty() {
            let (_, stop) = stop(state).expect("an awaited seat has a decision");
            flow(state, seat, &stop, command, rng, log)
        } else {
            ops::decide(state, seat, command, rng, log)
        };
        if decided.is_ok() {
            ops::run(state, rng, log);
        }
        state.red_takes = None;
        decided
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

    fn keeps_secrets(before: &State, after: &State) -> bool {
        undo::keeps_secrets(before, after)
    }

    fn ending(
        view: &View,
        outcome: &Outcome,
        names: &crate::engine::present::Names,
    ) -> crate::engine::present::Ending {
        present::ending(view, outcome, names)
    }

    const PERIOD: &'static str = "Turn";

    /// States ratified (checks) and rejected (X's) so far, by turn.
    fn standing(state: &State) -> Option<Standing> {
        Some(Standing {
            period: u32::from(state.turn),
            scores: vec![
                ("States ratified".to_string(), state.checks() as i64),
                ("States rejected".to_string(), state.xs() as i64),
            ],
        })
    }

    fn on_timeout(state: &State, seat: Seat) -> Command {
        serde_json::from_value(choices::cautious(state, seat)).expect("a cautious command parses")
    }

    /// Everything is played face up except the cards put back on top of one's own draw deck
    /// (Progress, Not Politics; The Winning Plan): others learn only that a card went back.
    fn redacted(state: &State, _seat: Seat, command: &Command) -> Option<serde_json::Value> {
        let arranging = state.stack.last().is_some_and(|f| {
            matches!(stops::ops_of(f).get(f.ip as usize), Some(data::Op::Arrange))
        });
        (arranging && matches!(command, Command::Card { .. }))
            .then(|| serde_json::json!({"type": "card_on_top"}))
    }

    fn seat_name(seat: Seat, _seats: usize) -> String {
        board::side(seat).to_string()
    }
}

fn illegal<T>(why: impl Into<String>) -> Result<T, RuleError> {
    Err(RuleError::illegal(why))
}

/// A decision of the turn's flow (no effect being resolved).
fn flow(
    state: &mut State,
    seat: Seat,
    stop: &Stop,
    command: &Command,
    rng: &mut GameRng,
    log: &mut Log,
) -> Result<(), RuleError> {
    match (stop, command) {
        (Stop::HandCard, Command::Play { card: c, action }) => {
            if !rules::may_play(state, seat, *action, *c) {
                return illegal(
                    format!("you may not play that card for {action:?}").to_lowercase(),
                );
            }
            state.hands[seat].retain(|x| x != c);
            state.hand_done = true;
            let c = *c;
            let name = &card(c).name;
            let script = match action {
                Action::Event => {
                    let extra = rules::extra_cost(state, seat, c);
                    state.buttons[seat] -= extra;
                    log.push(|| format!("{} plays {name} as an event", who(seat)));
                    Script::Card
                }
                Action::Campaign => {
                    if seat == SUFF && state.rest_of_turn.contains(&88) {
                        state.buttons[seat] -= 1;
                    }
                    log.push(|| format!("{} plays {name} for Campaigning", who(seat)));
                    Script::Campaign
                }
                Action::Organize => {
                    log.push(|| format!("{} plays {name} for Organizing", who(seat)));
                    Script::Organize
                }
                Action::Lobby => {
                    log.push(|| format!("{} plays {name} for Lobbying", who(seat)));
                    Script::Lobby
                }
                Action::Discard => {
                    log.push(|| format!("{} discards {name} for no effect", who(seat)));
                    state.discard_card(c);
                    return Ok(());
                }
            };
            state.stack.push(Frame::new(c, script, Source::Hand, seat));
            Ok(())
        }
        (Stop::HandCard | Stop::AfterHand, Command::Claimed { card: c }) => {
            if !rules::may_play_claimed(state, seat, *c) {
                return illegal("you may not play that claimed card now");
            }
            state.claimed[seat].retain(|x| x != c);
            state.claimed_done = true;
            let name = &card(*c).name;
            log.push(|| format!("{} plays the claimed card {name}", who(seat)));
            state
                .stack
                .push(Frame::new(*c, Script::Card, Source::Claimed, seat));
            Ok(())
        }
        (Stop::AfterHand, Command::EndTurn) => {
            log.push(|| format!("{} ends the turn", who(seat)));
            rules::end_part(state, log);
            Ok(())
        }
        (Stop::Commit, Command::Commit { buttons, card: c }) => {
            let opp = state.buttons[OPP];
            if *buttons > rules::max_commit(state) {
                return illegal(format!(
                    "you may commit at most {} buttons",
                    rules::max_commit(state)
                ));
            }
            let n = *buttons;
            log.push(|| format!("{} commits {}", who(seat), count(n, "button")));
            if n > opp {
                let Some(c) = c.filter(|c| state.strategy_face_up.contains(c)) else {
                    return illegal("the Opposition cannot match: name your Strategy card");
                };
                state.buttons[SUFF] -= n;
                log.push(|| format!("{} cannot match", who(OPP)));
                rules::take_strategy(state, SUFF, c, log);
                state.phase = Phase::Operations;
            } else {
                if c.is_some() {
                    return illegal(
                        "the Opposition answers first; name a card only if they cannot match",
                    );
                }
                state.commitment = Some(Commitment { buttons: n });
                state.phase = Phase::StrategyAnswer;
            }
            Ok(())
        }
        (Stop::Answer, Command::Defer | Command::Match | Command::Supersede { .. }) => {
            let n = state.commitment.map_or(0, |c| c.buttons);
            match command {
                Command::Defer => {
                    if !rules::defer_open(state) {
                        return illegal(
                            "nothing was committed: match (nobody pays) or supersede for a button",
                        );
                    }
                    state.buttons[SUFF] -= n;
                    log.push(|| format!("{} defers", who(OPP)));
                    state.phase = Phase::StrategyPick;
                }
                Command::Match => {
                    state.buttons[SUFF] -= n;
                    state.buttons[OPP] -= n;
                    log.push(|| format!("{} matches: no Strategy card", who(OPP)));
                    state.phase = Phase::Operations;
                }
                Command::Supersede { card: c } => {
                    if state.buttons[OPP] <= n {
                        return illegal(format!("superseding costs {} buttons", n + 1));
                    }
                    if !state.strategy_face_up.contains(c) {
                        return illegal("that Strategy card is not face up");
                    }
                    state.buttons[SUFF] -= n;
                    state.buttons[OPP] -= n + 1;
                    log.push(|| format!("{} supersedes", who(OPP)));
                    rules::take_strategy(state, OPP, *c, log);
                    state.phase = Phase::Operations;
                }
                _ => unreachable!("matched above"),
            }
            state.commitment = None;
            Ok(())
        }
        (Stop::Card { options, .. }, Command::Card { card: c })
            if state.phase == Phase::StrategyPick =>
        {
            if !options.contains(c) {
                return illegal("that Strategy card is not face up");
            }
            rules::take_strategy(state, SUFF, *c, log);
            state.phase = Phase::Operations;
            Ok(())
        }
        (
            Stop::State { options, .. },
            Command::State {
                state: st,
                yellow: None,
            },
        ) if state.phase == Phase::FinalVoting => {
            if !options.contains(st) {
                return illegal(format!("{} has voted already", st.name()));
            }
            let sides = [
                if state.final_voting.contains(&41) {
                    8
                } else {
                    6
                },
                if state.final_voting.contains(&98) {
                    8
                } else {
                    6
                },
            ];
            let dice = [
                rng.below(u32::from(sides[0])) as u8 + 1,
                rng.below(u32::from(sides[1])) as u8 + 1,
            ];
            log.push(|| {
                format!(
                    "{} calls {} to vote: the Suffragist rolls {}, the Opposition {}",
                    who(seat),
                    st.name(),
                    dice[0],
                    dice[1]
                )
            });
            state.vote = Some(Vote {
                state: *st,
                dice,
                sides,
            });
            close_vote_if_settled(state, log);
            Ok(())
        }
        (Stop::Reroll, Command::Reroll) if state.phase == Phase::FinalVoting => {
            let mut vote = state.vote.expect("a vote");
            state.buttons[seat] -= 1;
            vote.dice[seat] = rng.below(u32::from(vote.sides[seat])) as u8 + 1;
            let d = vote.dice[seat];
            log.push(|| format!("{} spends a button and rerolls: {d}", who(seat)));
            state.vote = Some(vote);
            close_vote_if_settled(state, log);
            Ok(())
        }
        (Stop::Reroll, Command::Accept) if state.phase == Phase::FinalVoting => {
            close_vote(state, log);
            Ok(())
        }
        _ => illegal(ops::stop_words(stop)),
    }
}

fn close_vote_if_settled(state: &mut State, log: &mut Log) {
    let vote = state.vote.expect("a vote");
    if !vote_reroll_open(state, &vote) {
        close_vote(state, log);
    }
}

fn close_vote(state: &mut State, log: &mut Log) {
    let vote = state.vote.take().expect("a vote");
    let winner = State::other(stops::vote_loser(state, &vote));
    state.states[vote.state.0 as usize].convert_to(winner);
    let st = vote.state;
    log.push(|| {
        format!(
            "{} {} the Amendment",
            st.name(),
            if winner == SUFF {
                "ratifies"
            } else {
                "rejects"
            }
        )
    });
    state.check_victory();
    state.chooser = State::other(state.chooser);
}
