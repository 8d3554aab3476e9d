//! The state of an Electoral College Combat game, its options and commands.

use super::cards::{ECard, Wild};
use crate::engine::{Outcome, Seat, SetupError};
use serde::{Deserialize, Serialize};

/// The options of a game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Which apportionment gives the cards their electoral votes: 2024 (2024–2032) or 2012
    /// (2012–2020).
    pub apportionment: u32,
    /// Book Deal: the player with fewer than 270 electoral votes wins.
    pub book_deal: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            apportionment: 2024,
            book_deal: false,
        }
    }
}

impl Options {
    /// Refuses values the rules do not offer.
    pub fn validate(&self) -> Result<(), SetupError> {
        if self.apportionment != 2024 && self.apportionment != 2012 {
            return Err(SetupError::BadOption {
                name: "apportionment".into(),
                reason: format!(
                    "the cards count by the 2024 or the 2012 apportionment, not {}",
                    self.apportionment
                ),
            });
        }
        Ok(())
    }

    /// True when the cards count by the 2012–2020 apportionment.
    pub fn ev_2012(&self) -> bool {
        self.apportionment == 2012
    }
}

/// A guess for Fake News.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Guess {
    Higher,
    Lower,
    Equal,
}

impl Guess {
    /// All three, in a fixed order (the order of the declaration).
    pub const ALL: [Guess; 3] = [Guess::Higher, Guess::Lower, Guess::Equal];

    /// What `next` is against `reference`.
    pub fn of(next: u32, reference: u32) -> Guess {
        match next.cmp(&reference) {
            std::cmp::Ordering::Greater => Guess::Higher,
            std::cmp::Ordering::Less => Guess::Lower,
            std::cmp::Ordering::Equal => Guess::Equal,
        }
    }

    /// "higher", ...
    pub fn word(self) -> &'static str {
        match self {
            Guess::Higher => "higher",
            Guess::Lower => "lower",
            Guess::Equal => "equal",
        }
    }
}

/// A rock–paper–scissors sign, for Russian Collusion.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Sign {
    Rock,
    Paper,
    Scissors,
}

impl Sign {
    /// All three, in a fixed order.
    pub const ALL: [Sign; 3] = [Sign::Rock, Sign::Paper, Sign::Scissors];

    /// True if this sign beats `other`.
    pub fn beats(self, other: Sign) -> bool {
        matches!(
            (self, other),
            (Sign::Rock, Sign::Scissors)
                | (Sign::Paper, Sign::Rock)
                | (Sign::Scissors, Sign::Paper)
        )
    }

    /// "rock", ...
    pub fn word(self) -> &'static str {
        match self {
            Sign::Rock => "rock",
            Sign::Paper => "paper",
            Sign::Scissors => "scissors",
        }
    }
}

/// The command in an object whose fields all read as the derived `Deserialize` reads them;
/// `None` for anything else, which is left to it ([`crate::engine::dynamic::tagged`]).
pub(super) fn direct(value: &serde_json::Value) -> Option<Command> {
    let (kind, fields) = crate::engine::dynamic::tagged(value)?;
    match kind {
        "rebuild" => {
            fields.only(&["card"])?;
            Some(Command::Rebuild {
                card: fields.required("card")?,
            })
        }
        "turn" => {
            fields.only(&["slot"])?;
            Some(Command::Turn {
                slot: fields.required("slot")?,
            })
        }
        "take_higher" => {
            fields.only(&["with"])?;
            Some(Command::TakeHigher {
                with: fields.required("with")?,
            })
        }
        "take_lower" => {
            fields.only(&["face_down"])?;
            Some(Command::TakeLower {
                face_down: fields.required("face_down")?,
            })
        }
        "guess" => {
            fields.only(&["guess"])?;
            Some(Command::Guess {
                guess: fields.required("guess")?,
            })
        }
        "rps" => {
            fields.only(&["sign"])?;
            Some(Command::Rps {
                sign: fields.required("sign")?,
            })
        }
        "take" => {
            fields.only(&["slot"])?;
            Some(Command::Take {
                slot: fields.required("slot")?,
            })
        }
        _ => None,
    }
}

/// What a seat may send. Slots number the five cards of the hand on the table from 0.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Last two hands: add this won card (besides the highest won card) to the last three.
    Rebuild { card: ECard },
    /// Turn over this face-down card.
    Turn { slot: usize },
    /// Take the higher card and this other card (face up or face down).
    TakeHigher { with: usize },
    /// Take the lower card and these two face-down cards.
    TakeLower { face_down: Vec<usize> },
    /// Fake News: guess that the next card (or the sum of the last two) is higher, lower or
    /// equal.
    Guess { guess: Guess },
    /// Russian Collusion: a sealed rock–paper–scissors sign.
    Rps { sign: Sign },
    /// Russian Collusion: the round's winner takes this card.
    Take { slot: usize },
}

/// Why a seat turns a card.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "turn", rename_all = "snake_case")]
pub enum Purpose {
    /// The player who laid the hand turns the first card.
    First,
    /// The other player turns the second card.
    Second { first: usize },
    /// Equal values: the player who laid the hand turns a third card.
    Third { first: usize, second: usize },
    /// Fake News: the card the next one is guessed against.
    FakeNewsReference,
    /// Fake News: the card the guess was about.
    FakeNewsNext { reference: usize, guess: Guess },
    /// Recount: a card to compare (the lower wins).
    Recount,
    /// Recount: equal values, the even/odd card.
    RecountTiebreak,
    /// Swing State: one more card each towards the even/odd total.
    SwingState,
}

/// What the game waits for. Holds slots and seats only, never a card.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Phase {
    /// Last two hands: the player about to lay chooses the other won card to add.
    Rebuild { seat: Seat },
    /// A seat turns over a face-down card.
    Turn { seat: Seat, purpose: Purpose },
    /// The player who turned the higher card chooses what to take.
    Choose { seat: Seat, high: usize, low: usize },
    /// The tie-breaking third card is higher: its turner takes it and one other card.
    TieHigh { seat: Seat, third: usize },
    /// Fake News: the revealer guesses.
    Guess { seat: Seat, reference: Reference },
    /// Russian Collusion: both players choose a sign, sealed.
    Rps,
    /// Russian Collusion: the round's winner takes a card.
    RpsTake { seat: Seat },
    /// The game has ended.
    Over,
}

/// What a Fake News guess compares against.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(tag = "against", rename_all = "snake_case")]
pub enum Reference {
    /// The next card against this face-up card.
    Card { slot: usize },
    /// The sum of the two face-down cards against the sum of the two face-up cards.
    Sum,
}

impl Phase {
    /// The one seat awaited, if one is (not for the sealed round or the end).
    pub fn seat(self) -> Option<Seat> {
        match self {
            Phase::Rebuild { seat }
            | Phase::Turn { seat, .. }
            | Phase::Choose { seat, .. }
            | Phase::TieHigh { seat, .. }
            | Phase::Guess { seat, .. }
            | Phase::RpsTake { seat } => Some(seat),
            Phase::Rps | Phase::Over => None,
        }
    }

    /// What the game waits for, as a reason to refuse anything else.
    pub fn expects(self) -> &'static str {
        match self {
            Phase::Rebuild { .. } => "choose the won card to add to your last hand",
            Phase::Turn { .. } => "it is time to turn over a face-down card",
            Phase::Choose { .. } => {
                "choose: the higher card and one other, or the lower card and two face-down cards"
            }
            Phase::TieHigh { .. } => "take the third card and one other card",
            Phase::Guess { .. } => "guess higher, lower or equal",
            Phase::Rps => "choose rock, paper or scissors",
            Phase::RpsTake { .. } => "take a card of the hand",
            Phase::Over => "the game is over",
        }
    }
}

/// One card of the hand on the table.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The card (hidden from players while face down).
    pub card: ECard,
    /// Face up.
    pub up: bool,
    /// Who turned it over (none when exposed by Celebrity Endorsement or still face down).
    pub turned_by: Option<Seat>,
    /// Who has won it.
    pub won_by: Option<Seat>,
    /// A played wild card, out of the game.
    pub removed: bool,
}

impl Slot {
    /// Still on the table: not won, not removed.
    pub fn live(&self) -> bool {
        self.won_by.is_none() && !self.removed
    }
}

/// The first wild card turned over in the current hand.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct WildPlay {
    /// Which.
    pub kind: Wild,
    /// Who turned it over ("I" in its rule).
    pub by: Seat,
}

/// Where one card of a finished hand went.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandCard {
    /// The card.
    pub card: ECard,
    /// Who won it; none for a played wild card.
    pub to: Option<Seat>,
}

/// A finished hand, for the board.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct HandRecord {
    /// Hand number, 1 to 12.
    pub hand: u8,
    /// Who laid it.
    pub layer: Seat,
    /// The wild card that ruled it, if any.
    pub wild: Option<WildPlay>,
    /// Its cards and where they went.
    pub cards: Vec<HandCard>,
}

/// The whole state.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct State {
    /// The rules version the game began with (RULES.md, "Rules versions"); left out of the
    /// serialized state of version-1 games, so they hash as they did when recorded.
    #[serde(
        default = "crate::engine::version::one",
        skip_serializing_if = "crate::engine::version::is_one"
    )]
    pub rules_version: u32,
    /// The options.
    pub options: Options,
    /// The hand being played, 1 to 12.
    pub hand: u8,
    /// Who laid this hand ("I").
    pub layer: Seat,
    /// Each player's face-down stack; the top is the last card.
    pub stacks: [Vec<ECard>; 2],
    /// The cards each player has won, in the order won; public.
    pub won: [Vec<ECard>; 2],
    /// Played wild cards, out of the game.
    pub removed: Vec<ECard>,
    /// The hand on the table.
    pub table: Vec<Slot>,
    /// Last two hands: the two known won cards shuffled into the hand.
    pub added: Vec<ECard>,
    /// The first wild card turned over in this hand.
    pub wild: Option<WildPlay>,
    /// What the game waits for.
    pub phase: Phase,
    /// Russian Collusion: the sealed signs of this round.
    pub signs: [Option<Sign>; 2],
    /// Russian Collusion: drawn rounds replayed in this hand.
    pub draws: u32,
    /// Russian Collusion: the signs last shown.
    pub last_signs: Option<[Sign; 2]>,
    /// The last finished hand.
    pub last_hand: Option<HandRecord>,
    /// The result, once over.
    pub outcome: Option<Outcome>,
}

impl State {
    /// Electoral votes of a card under this game's apportionment.
    pub fn ev(&self, card: ECard) -> u32 {
        card.ev(self.options.ev_2012())
    }

    /// "Texas (40)" under this game's apportionment.
    pub fn label(&self, card: ECard) -> &'static str {
        card.label(self.options.ev_2012())
    }

    /// The electoral votes a seat has won.
    pub fn votes(&self, seat: Seat) -> u32 {
        self.won[seat].iter().map(|&c| self.ev(c)).sum()
    }

    /// Index in `won[seat]` of the won card with the most electoral votes (the earliest won
    /// among equals).
    pub fn highest_won(&self, seat: Seat) -> Option<usize> {
        let mut best: Option<(usize, u32)> = None;
        for (i, &card) in self.won[seat].iter().enumerate() {
            let ev = self.ev(card);
            if best.is_none_or(|(_, b)| ev > b) {
                best = Some((i, ev));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Slots still face down on the table.
    pub fn face_down(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.table.len()).filter(|&i| self.table[i].live() && !self.table[i].up)
    }

    /// Slots still on the table, face up or down.
    pub fn live(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.table.len()).filter(|&i| self.table[i].live())
    }

    /// True if `slot` is a face-down card still on the table.
    pub fn is_face_down(&self, slot: usize) -> bool {
        self.table.get(slot).is_some_and(|s| s.live() && !s.up)
    }

    /// True if `slot` is a card still on the table.
    pub fn is_live(&self, slot: usize) -> bool {
        self.table.get(slot).is_some_and(|s| s.live())
    }
}
