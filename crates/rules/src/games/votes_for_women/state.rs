//! The state of a Votes for Women game and the commands a seat may send.

use super::data::{BoxKind, Colour, OPP, Region, SUFF, St};
use crate::engine::{Outcome, Seat};
use serde::{Deserialize, Serialize};

/// The options of a game: none yet (the two-player competitive game).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Options {}

/// Where a state stands on the Amendment.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// Ratified (green check).
    Check,
    /// Rejected (red X).
    X,
}

/// One state on the map: its cubes (never of both sides) and its mark.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cubes {
    /// Purple Suffragist cubes.
    pub purple: u8,
    /// Yellow Suffragist cubes.
    pub yellow: u8,
    /// Red Opposition cubes.
    pub red: u8,
    /// Check or X, once decided.
    pub mark: Option<Mark>,
}

impl Cubes {
    /// Cubes off, the side's mark on.
    pub fn convert_to(&mut self, seat: Seat) {
        *self = Cubes {
            mark: Some(if seat == SUFF { Mark::Check } else { Mark::X }),
            ..Cubes::default()
        };
    }

    /// The cubes of `seat`'s side.
    pub fn of(&self, seat: Seat) -> u8 {
        if seat == SUFF {
            self.purple + self.yellow
        } else {
            self.red
        }
    }
}

/// A campaigner on the map.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Campaigner {
    /// Its colour (purple or yellow for the Suffragist, red for the Opposition).
    pub colour: Colour,
    /// The region it stands in.
    pub region: Region,
}

impl Campaigner {
    /// Its side's seat.
    pub fn seat(&self) -> Seat {
        if self.colour == Colour::Red {
            OPP
        } else {
            SUFF
        }
    }
}

/// The stage of a turn.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The Suffragist commits buttons for a Strategy card.
    StrategyCommit,
    /// The Opposition defers, matches or supersedes.
    StrategyAnswer,
    /// The Suffragist, deferred to, takes a Strategy card.
    StrategyPick,
    /// The six rounds of play.
    Operations,
    /// After turn 6, states vote one by one.
    FinalVoting,
    /// The game is over.
    Over,
}

/// What a frame of the effect stack runs.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Script {
    /// A card's effect.
    Card,
    /// A Campaigning action.
    Campaign,
    /// An Organizing action.
    Organize,
    /// A Lobbying action.
    Lobby,
}

/// Where a card of a frame came from, and so where it goes when its effect is done.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Played from the hand: to the discard pile or a box.
    Hand,
    /// A claimed State or Strategy card: removed from the game.
    Claimed,
    /// Drawn or searched by another card: to the discard pile or a box.
    Drawn,
}

/// One effect being resolved: a card's ops or an action, with what its steps keep.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The card played (also for an action: the card played for it).
    pub card: u8,
    /// What runs.
    pub script: Script,
    /// Where the card came from.
    pub source: Source,
    /// Whose effect it is.
    pub seat: Seat,
    /// The next op.
    pub ip: u16,
    /// The current op has begun (rolled its dice, drawn its cards).
    pub entered: bool,
    /// The last roll.
    pub dice: Vec<u8>,
    /// Faces of those dice.
    pub sides: u8,
    /// The last roll may still be rerolled by the op that uses it.
    pub reroll_open: bool,
    /// The state selected by an earlier op.
    pub selected: Option<St>,
    /// Yellow cubes asked for with the selection.
    pub yellow: u8,
    /// The region chosen by Regional Focus.
    pub region: Option<Region>,
    /// Cards drawn and set aside (seen by this frame's seat only).
    pub cards: Vec<u8>,
    /// Cards already put back on top, during an arrangement.
    pub on_top: u8,
    /// Campaigners (by index among the seat's) moved in this Campaigning action.
    pub moved: Vec<bool>,
    /// The box the card goes to when done.
    pub to_box: Option<BoxKind>,
}

impl Frame {
    /// A fresh frame.
    pub fn new(card: u8, script: Script, source: Source, seat: Seat) -> Frame {
        Frame {
            card,
            script,
            source,
            seat,
            ip: 0,
            entered: false,
            dice: Vec::new(),
            sides: 0,
            reroll_open: false,
            selected: None,
            yellow: 0,
            region: None,
            cards: Vec::new(),
            on_top: 0,
            moved: Vec::new(),
            to_box: None,
        }
    }
}

/// The Strategy phase's commitment.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commitment {
    /// Buttons the Suffragist committed.
    pub buttons: u8,
}

/// A state being decided in Final Voting.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vote {
    /// The state.
    pub state: St,
    /// Each side's die.
    pub dice: [u8; 2],
    /// Each side's die size.
    pub sides: [u8; 2],
}

/// The whole game, hidden parts included.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct State {
    /// The rules version the game began with (RULES.md, "Rules versions"); version 1 is left
    /// out of the serialized state, so a game recorded before it hashes as it did.
    #[serde(
        default = "crate::engine::version::one",
        skip_serializing_if = "crate::engine::version::is_one"
    )]
    pub rules_version: u32,
    /// Turn 1..=6.
    pub turn: u8,
    /// Round of the Operations phase, 1..=6.
    pub round: u8,
    /// Stage.
    pub phase: Phase,
    /// The seat to play in this round.
    pub to_play: Seat,
    /// That seat has played its hand card this round.
    pub hand_done: bool,
    /// That seat has played a claimed card this round.
    pub claimed_done: bool,
    /// Congressional markers placed (0..=6).
    pub congress: u8,
    /// The Nineteenth Amendment has been sent to the states.
    pub amendment_sent: bool,
    /// The 48 states, by index.
    pub states: Vec<Cubes>,
    /// Campaigners on the map, in the order they came.
    pub campaigners: Vec<Campaigner>,
    /// Buttons, by seat.
    pub buttons: [u8; 2],
    /// Hands, by seat.
    pub hands: [Vec<u8>; 2],
    /// Draw decks, by seat, top last.
    pub decks: [Vec<u8>; 2],
    /// Discard piles, by seat, top last.
    pub discards: [Vec<u8>; 2],
    /// State cards still to be claimed, face up.
    pub state_cards: Vec<u8>,
    /// The three State cards removed unseen at setup.
    pub removed_state_cards: Vec<u8>,
    /// The Strategy deck, top last.
    pub strategy_deck: Vec<u8>,
    /// Face-up Strategy cards.
    pub strategy_face_up: Vec<u8>,
    /// Claimed State and Strategy cards, by seat.
    pub claimed: [Vec<u8>; 2],
    /// Claimed cards played, out of the game.
    pub spent: Vec<u8>,
    /// The rest-of-turn box.
    pub rest_of_turn: Vec<u8>,
    /// The rest-of-game box.
    pub rest_of_game: Vec<u8>,
    /// The final-voting box.
    pub final_voting: Vec<u8>,
    /// The Strategy phase's commitment, while it is answered.
    pub commitment: Option<Commitment>,
    /// Whose pick it is in Final Voting.
    pub chooser: Seat,
    /// The state being voted on, while a reroll is open.
    pub vote: Option<Vote>,
    /// Effects being resolved, innermost last.
    pub stack: Vec<Frame>,
    /// The last dice rolled, for the board: who, what for, and the faces.
    pub last_roll: Option<(Seat, String, Vec<u8>)>,
    /// The result, once over.
    pub outcome: Option<Outcome>,
    /// The decision the top effect awaits, as worked out at the end of the last command: not
    /// part of the game (never serialized, compared or hashed), only spared working it out
    /// again for the choices and the next command.
    #[serde(skip)]
    pub awaited: super::stops::Awaited,
    /// The colour the command being applied asked the Opposition's red cubes to take first:
    /// set only while a command is applied, never serialized.
    #[serde(skip)]
    pub red_takes: Option<TakeFirst>,
}

impl State {
    /// True under rules version 2 and later: the readings of RULES.md, "Rules versions".
    pub fn v2(&self) -> bool {
        self.rules_version >= 2
    }

    /// True under rules version 3 and later: the Opposition is asked which Suffragist colour
    /// its red cubes take, even where the placement is otherwise forced.
    pub fn v3(&self) -> bool {
        self.rules_version >= 3
    }

    /// The other seat.
    pub fn other(seat: Seat) -> Seat {
        1 - seat
    }

    /// Checks placed.
    pub fn checks(&self) -> usize {
        self.states
            .iter()
            .filter(|c| c.mark == Some(Mark::Check))
            .count()
    }

    /// X's placed.
    pub fn xs(&self) -> usize {
        self.states
            .iter()
            .filter(|c| c.mark == Some(Mark::X))
            .count()
    }

    /// The box holding persistent cards of this kind.
    pub fn boxed(&self, kind: BoxKind) -> &Vec<u8> {
        match kind {
            BoxKind::RestOfTurn => &self.rest_of_turn,
            BoxKind::RestOfGame => &self.rest_of_game,
            BoxKind::FinalVoting => &self.final_voting,
        }
    }

    /// The same, to change.
    pub fn boxed_mut(&mut self, kind: BoxKind) -> &mut Vec<u8> {
        match kind {
            BoxKind::RestOfTurn => &mut self.rest_of_turn,
            BoxKind::RestOfGame => &mut self.rest_of_game,
            BoxKind::FinalVoting => &mut self.final_voting,
        }
    }

    /// The campaigners of one side, with their index among all campaigners.
    pub fn campaigners_of(&self, seat: Seat) -> Vec<(usize, Campaigner)> {
        self.campaigners
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, c)| c.seat() == seat)
            .collect()
    }

    /// How many campaigners one side has on the map.
    pub fn campaigner_count(&self, seat: Seat) -> u8 {
        self.campaigners.iter().filter(|c| c.seat() == seat).count() as u8
    }

    /// The most buttons a side may hold.
    pub fn button_cap(seat: Seat) -> u8 {
        if seat == SUFF { 12 } else { 6 }
    }
}

/// How a card from the hand is played.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// As an event.
    Event,
    /// For a Campaigning action.
    Campaign,
    /// For an Organizing action.
    Organize,
    /// For a Lobbying action.
    Lobby,
    /// For no effect, when no other play is open (RULES.md).
    Discard,
}

/// What a seat may send.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Play a card from the hand.
    Play { card: u8, action: Action },
    /// Play a claimed State or Strategy card.
    Claimed { card: u8 },
    /// End one's part of the round without (another) claimed card.
    EndTurn,
    /// Commit buttons in the Strategy phase; `card` is the pick when the Opposition cannot match.
    Commit {
        buttons: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<u8>,
    },
    /// Let the Suffragist take a Strategy card.
    Defer,
    /// Match the commitment: nobody takes a card.
    Match,
    /// Pay one more and take this Strategy card.
    Supersede { card: u8 },
    /// Pick this card (a Strategy card, a drawn card to play, a card to discard or put on top).
    Card { card: u8 },
    /// Put the remaining drawn cards at the bottom of the draw deck.
    Bottom,
    /// Spend a button to roll again.
    Reroll,
    /// Keep the roll.
    Accept,
    /// Place cubes: counts aligned with the options offered; `takes`, for the Opposition, the
    /// Suffragist colour its red cubes remove first where a state holds both.
    Place {
        cubes: Vec<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        takes: Option<TakeFirst>,
    },
    /// Remove cubes: counts aligned with the options offered.
    Remove { cubes: Vec<u32> },
    /// Pick these states.
    States { states: Vec<St> },
    /// Pick this state (and how many of the cubes put there are yellow).
    State {
        state: St,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        yellow: Option<u8>,
    },
    /// Pick this region.
    Region { region: Region },
    /// Pay a button to move a campaigner (by index among one's own) to a region.
    Move { campaigner: u8, region: Region },
    /// Move each campaigner (by index among one's own) for free.
    Moves {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c1: Option<Region>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c2: Option<Region>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c3: Option<Region>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c4: Option<Region>,
    },
    /// Assign the dice (one per campaigner, in campaigner order) and place each campaigner's
    /// cubes: counts aligned with the states of its region offered.
    Assign {
        dice: Vec<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c1: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c2: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c3: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        c4: Option<Vec<u32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        takes: Option<TakeFirst>,
    },
}

/// The Suffragist colour the Opposition's red cubes remove first from a state holding both
/// (RULES.md, "Events"); without it, the more numerous colour, purple on a tie.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TakeFirst {
    /// Purple cubes first.
    Purple,
    /// Yellow cubes first.
    Yellow,
}

impl Command {
    /// The colour this command's red cubes take first, if it names one.
    pub fn takes(&self) -> Option<TakeFirst> {
        match self {
            Command::Place { takes, .. } | Command::Assign { takes, .. } => *takes,
            _ => None,
        }
    }
}
