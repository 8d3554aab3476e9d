//! The state of a Statehood game, its options and commands.

use crate::cards::Card;
use crate::engine::{Outcome, Seat, SetupError};
use serde::{Deserialize, Serialize};

/// The options of a game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Points that end the game (with the highest, untied total).
    pub target: i64,
}

impl Default for Options {
    fn default() -> Options {
        Options { target: 56 }
    }
}

impl Options {
    /// Refuses targets the game cannot use.
    pub fn validate(&self) -> Result<(), SetupError> {
        if !(1..=500).contains(&self.target) {
            return Err(SetupError::BadOption {
                name: "target".into(),
                reason: format!("the target is 1 to 500 points, not {}", self.target),
            });
        }
        Ok(())
    }
}

/// The command in an object whose fields all read as the derived `Deserialize` reads them;
/// `None` for anything else, which is left to it ([`crate::engine::dynamic::tagged`]).
pub(super) fn direct(value: &serde_json::Value) -> Option<Command> {
    let (kind, fields) = crate::engine::dynamic::tagged(value)?;
    let unit = |command| fields.only(&[]).map(|()| command);
    match kind {
        "take_discard" => {
            fields.only(&["discard"])?;
            Some(Command::TakeDiscard {
                discard: Card::from_code(fields.str("discard")?)?,
            })
        }
        "draw" => unit(Command::Draw),
        "discard" => {
            fields.only(&["card"])?;
            Some(Command::Discard {
                card: Card::from_code(fields.str("card")?)?,
            })
        }
        "declare_wild" => {
            fields.only(&["wildcard", "defence"])?;
            Some(Command::DeclareWild {
                wildcard: Card::from_code(fields.str("wildcard")?)?,
                defence: Card::from_code(fields.str("defence")?)?,
            })
        }
        "declare_dc" => {
            fields.only(&["defence"])?;
            Some(Command::DeclareDc {
                defence: cards(value, "defence")?,
            })
        }
        "declare_puerto_rico" => unit(Command::DeclarePuertoRico),
        "challenge" => {
            fields.only(&["cards"])?;
            Some(Command::Challenge {
                cards: cards(value, "cards")?,
            })
        }
        "pass" => unit(Command::Pass),
        "challenge_puerto_rico" => {
            fields.only(&["cards"])?;
            Some(Command::ChallengePuertoRico {
                cards: cards(value, "cards")?,
            })
        }
        _ => None,
    }
}

/// A field that is a list of card codes, read as the derived `Deserialize` reads it; `None`
/// when it is missing or holds anything else.
fn cards(command: &serde_json::Value, name: &str) -> Option<Vec<Card>> {
    command
        .get(name)?
        .as_array()?
        .iter()
        .map(|code| Card::from_code(code.as_str()?))
        .collect()
}

/// What a seat may send.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Take the top of the discard pile and discard `discard` from the hand.
    TakeDiscard { discard: Card },
    /// Draw the top card of the stock (then `discard`).
    Draw,
    /// After drawing: discard this card (the drawn one, or one from the hand).
    Discard { card: Card },
    /// Declare statehood for a territory wildcard, defended by one card.
    DeclareWild { wildcard: Card, defence: Card },
    /// Declare statehood for DC, defended by one to three blue cards.
    DeclareDc { defence: Vec<Card> },
    /// Declare statehood for Puerto Rico: the hand ends.
    DeclarePuertoRico,
    /// Challenge the pending wildcard or DC declaration with these cards.
    Challenge { cards: Vec<Card> },
    /// Let the pending declaration pass; against Puerto Rico, decline (under rules version 2
    /// only a player holding fewer than six cards may).
    Pass,
    /// Challenge Puerto Rico with six cards (sealed until everyone has chosen).
    ChallengePuertoRico { cards: Vec<Card> },
}

/// The stage of the current hand.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The seat in `turn` takes a turn.
    Turn,
    /// The seat in `turn` drew from the stock and must discard.
    Drawn,
    /// Others, in turn from the declarer's left, challenge or pass.
    Challenges,
    /// The stock is gone: the holder of Puerto Rico must declare it.
    ForcedPuertoRico,
    /// Every other player commits six cards or passes, in secret.
    PuertoRicoChallenges,
    /// The game has ended.
    Over,
}

/// What kind of declaration is pending.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DeclarationKind {
    /// A territory wildcard: 1 point; challenged with one card.
    Wildcard,
    /// DC: 3 points; defended by blue cards, challenged by one to three red cards.
    Dc,
}

/// A wildcard or DC declaration and the challenges so far.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Declaration {
    /// Who declared.
    pub declarer: Seat,
    /// The declared card.
    pub card: Card,
    /// Wildcard or DC.
    pub kind: DeclarationKind,
    /// The defending cards, face up.
    pub defence: Vec<Card>,
    /// The challenges so far, face up, in order.
    pub challenges: Vec<(Seat, Vec<Card>)>,
    /// Who passed.
    pub passes: Vec<Seat>,
}

impl Declaration {
    /// The defence's electoral votes.
    pub fn defence_total(&self) -> u32 {
        self.defence.iter().map(|c| c.ev()).sum()
    }

    /// The highest total so far and who holds it.
    pub fn high(&self) -> (u32, Seat) {
        self.challenges
            .last()
            .map(|(s, cards)| (cards.iter().map(|c| c.ev()).sum(), *s))
            .unwrap_or((self.defence_total(), self.declarer))
    }
}

/// A declared card won and laid face up, with the cards beneath it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct WonCard {
    /// The wildcard or DC.
    pub card: Card,
    /// Defending and challenging cards beneath it.
    pub beneath: Vec<Card>,
}

/// One sealed answer to a Puerto Rico declaration.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum PrAnswer {
    /// No challenge: the declarer's own entry, and under rules version 1 another player's
    /// answer too (under version 2 every other player challenges; RULES.md).
    Pass,
    /// The challenge: six cards.
    Cards(Vec<Card>),
}

/// A Puerto Rico declaration in progress.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PrDeclaration {
    /// Who declared.
    pub declarer: Seat,
    /// The declarer's whole hand, face up (Puerto Rico included).
    pub shown: Vec<Card>,
    /// The sealed answers, by seat (the declarer's is a [`PrAnswer::Pass`] from the start).
    pub answers: Vec<Option<PrAnswer>>,
}

impl PrDeclaration {
    /// The defence: the electoral votes of the rest of the hand.
    pub fn defence(&self) -> u32 {
        self.shown.iter().map(|c| c.ev()).sum()
    }

    /// The challenges, in turn order from the declarer's left: seat and cards.
    pub fn challenges(&self) -> Vec<(Seat, &[Card])> {
        let seats = self.answers.len();
        (1..seats)
            .map(|step| (self.declarer + step) % seats)
            .filter_map(|seat| match &self.answers[seat] {
                Some(PrAnswer::Cards(cards)) => Some((seat, cards.as_slice())),
                _ => None,
            })
            .collect()
    }

    /// The winning challenge: the successful one (more electoral votes than the defence) with
    /// the most, the first from the declarer's left on equal totals (the card played first).
    pub fn winner(&self) -> Option<(Seat, u32)> {
        let defence = self.defence();
        let mut best: Option<(Seat, u32)> = None;
        for (seat, cards) in self.challenges() {
            let sum: u32 = cards.iter().map(|c| c.ev()).sum();
            if sum > defence && best.is_none_or(|(_, b)| sum > b) {
                best = Some((seat, sum));
            }
        }
        best
    }
}

/// How the last hand ended, with everything that was revealed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct HandEnd {
    /// The hand's number.
    pub hand: u32,
    /// In words.
    pub summary: String,
    /// Points each seat scored in the hand: under rules version 2 every point, the sets won
    /// during the hand included (a forfeit takes the forfeiter's back); under version 1 only
    /// the points of how the hand ended (Puerto Rico or its discard).
    pub points: Vec<i64>,
    /// When the hand ended with a Puerto Rico declaration: the declarer's hand and every
    /// challenge, all revealed (absent for the other endings, so older states hash alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub puerto_rico: Option<PrDeclaration>,
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
    /// The number of seats.
    pub seats: usize,
    /// Hands dealt so far (from 1).
    pub hand_number: u32,
    /// Current dealer.
    pub dealer: Seat,
    /// Stage.
    pub phase: Phase,
    /// The seat awaited (not used during Puerto Rico challenges).
    pub turn: Seat,
    /// Each seat's hand.
    pub hands: Vec<Vec<Card>>,
    /// The stock; its top is the last card.
    pub stock: Vec<Card>,
    /// The discard pile; its top is the last card.
    pub discard: Vec<Card>,
    /// The card drawn from the stock this turn (phase Drawn).
    pub drawn: Option<Card>,
    /// A pending wildcard or DC declaration.
    pub declaration: Option<Declaration>,
    /// A pending Puerto Rico declaration.
    pub puerto_rico: Option<PrDeclaration>,
    /// Cards each seat won this hand, face up.
    pub won: Vec<Vec<WonCard>>,
    /// Scores.
    pub scores: Vec<i64>,
    /// The last hand's end.
    pub last_hand: Option<HandEnd>,
    /// The result.
    pub outcome: Option<Outcome>,
}

impl State {
    /// True under rules version 2 and later: every player holding six cards challenges Puerto
    /// Rico, and discarding Puerto Rico forfeits the points won earlier in the hand.
    pub fn v2(&self) -> bool {
        self.rules_version >= 2
    }

    /// The points of the sets `seat` has won in this hand: 1 a territory, 3 DC.
    pub fn set_points(&self, seat: Seat) -> i64 {
        self.won[seat]
            .iter()
            .map(|w| if w.card.is_territory() { 1 } else { 3 })
            .sum()
    }

    /// The seat to the left of `seat`.
    pub fn left(&self, seat: Seat) -> Seat {
        (seat + 1) % self.seats
    }

    /// Who holds Puerto Rico.
    pub fn puerto_rico_holder(&self) -> Option<Seat> {
        let pr = super::puerto_rico();
        self.hands.iter().position(|h| h.contains(&pr))
    }
}
