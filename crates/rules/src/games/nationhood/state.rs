//! The state of a Nationhood game, its options and commands.

use crate::cards::Card;
use crate::engine::{Outcome, Seat, SetupError};
use serde::{Deserialize, Serialize};

/// The options of a game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Rubbers in the match: 1 (one rubber) or 3 (best of three).
    pub rubbers: u32,
    /// Points that win a rubber (the text: seven).
    pub target: i64,
    /// Hands in a row without a nation that draw the match (rules version 2): our house rule,
    /// the text has none. Left out of the serialized options at its default of three, so games
    /// recorded before it was an option hash as they did.
    #[serde(skip_serializing_if = "is_default_draw")]
    pub draw_after: u32,
}

/// The house rule's default: three hands in a row without a nation draw the match.
pub const DEFAULT_DRAW_AFTER: u32 = 3;

fn is_default_draw(n: &u32) -> bool {
    *n == DEFAULT_DRAW_AFTER
}

impl Default for Options {
    fn default() -> Options {
        Options {
            rubbers: 1,
            target: 7,
            draw_after: DEFAULT_DRAW_AFTER,
        }
    }
}

impl Options {
    /// Refuses options the game cannot use.
    pub fn validate(&self) -> Result<(), SetupError> {
        if !matches!(self.rubbers, 1 | 3) {
            return Err(SetupError::BadOption {
                name: "rubbers".into(),
                reason: format!(
                    "a match is one rubber or best of three, not {}",
                    self.rubbers
                ),
            });
        }
        if !(1..=20).contains(&self.draw_after) {
            return Err(SetupError::BadOption {
                name: "draw_after".into(),
                reason: format!(
                    "1 to 20 hands without a nation draw the match, not {}",
                    self.draw_after
                ),
            });
        }
        if !(1..=50).contains(&self.target) {
            return Err(SetupError::BadOption {
                name: "target".into(),
                reason: format!("a rubber is 1 to 50 points, not {}", self.target),
            });
        }
        Ok(())
    }

    /// Rubbers a player must win to take the match.
    pub fn rubbers_to_win(&self) -> u32 {
        self.rubbers / 2 + 1
    }
}

/// The command in an object whose fields all read as the derived `Deserialize` reads them;
/// `None` for anything else, which is left to it ([`crate::engine::dynamic::tagged`]).
pub(super) fn direct(value: &serde_json::Value) -> Option<Command> {
    let (kind, fields) = crate::engine::dynamic::tagged(value)?;
    let unit = |command| fields.only(&[]).map(|()| command);
    match kind {
        "draw_stock" => unit(Command::DrawStock),
        "draw_pile" => unit(Command::DrawPile),
        "meld" => {
            fields.only(&["cards", "jokers"])?;
            Some(Command::Meld {
                cards: fields.required("cards")?,
                jokers: fields.defaulted("jokers")?,
            })
        }
        "lay_off" => {
            fields.only(&["card", "city"])?;
            Some(Command::LayOff {
                card: Card::from_code(fields.str("card")?)?,
                city: fields.required("city")?,
            })
        }
        "exchange" => {
            fields.only(&["card", "city"])?;
            Some(Command::Exchange {
                card: Card::from_code(fields.str("card")?)?,
                city: fields.required("city")?,
            })
        }
        "discard" => {
            fields.only(&["card"])?;
            Some(Command::Discard {
                card: Card::from_code(fields.str("card")?)?,
            })
        }
        "offer" => {
            fields.only(&["give", "take"])?;
            Some(Command::Offer {
                give: fields.defaulted("give")?,
                take: fields.defaulted("take")?,
            })
        }
        "accept" => unit(Command::Accept),
        "refuse" => unit(Command::Refuse),
        "declare_war" => unit(Command::DeclareWar),
        "retaliate" => unit(Command::Retaliate),
        _ => None,
    }
}

/// What a seat may send.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Take the top card of the stock (a turn's draw, or one card of a rebuild).
    DrawStock,
    /// Take the top card of one's own discard pile (a turn's draw, or one card of a rebuild).
    DrawPile,
    /// Lay down a city: three or more natural cards of one rank (rules version 2: jokers are
    /// not wild in cities and are refused here). Version 1 took at least two naturals with
    /// jokers standing in for the rest; `jokers` is where its form put them (jokers in `cards`
    /// counted too), kept so that version-1 records read as they were.
    Meld {
        cards: Vec<Card>,
        #[serde(default)]
        jokers: Vec<Card>,
    },
    /// Add a natural card of its rank to a city of either player (version 1: or a joker).
    LayOff { card: Card, city: u32 },
    /// Exchange a joker with the natural card `card` in one of one's own cities. Rules version
    /// 2: `card` is in the city; a joker from the hand takes its place and `card` comes into
    /// the hand. Version 1: `card` is in the hand and takes the place of a joker in the city,
    /// and the joker comes into the hand (RULES.md).
    Exchange { card: Card, city: u32 },
    /// Discard a card onto the opponent's discard pile, ending the turn (or, after declaring
    /// war, one card of the whittling).
    Discard { card: Card },
    /// Diplomacy, instead of a normal turn: give these cities of one's own for these of the
    /// opponent's (either list may be empty, not both).
    Offer {
        #[serde(default)]
        give: Vec<u32>,
        #[serde(default)]
        take: Vec<u32>,
    },
    /// Accept the pending offer.
    Accept,
    /// Refuse the pending offer (the offerer may declare war on their next turn).
    Refuse,
    /// Declare war, right after refused diplomacy, by laying a joker from the hand face up on
    /// one's own discard pile.
    DeclareWar,
    /// Answer a war with the joker on top of one's own discard pile: the war, the other way.
    Retaliate,
}

/// The stage of the current hand.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The seat in `turn` begins a turn: draw, offer diplomacy, or (after a refusal) declare war.
    Turn,
    /// The opponent of `turn` accepts or refuses the offer.
    Answer,
    /// `turn` has drawn: cities, lay-offs, joker exchanges, each replenished from the stock,
    /// then a discard.
    Melding,
    /// `turn` has declared war and whittles the hand down to seven by making cities or
    /// discarding onto the defender's pile.
    Whittle,
    /// `turn` was attacked: retaliate with the joker, or begin to rebuild.
    Response,
    /// `turn` rebuilds: draws one card at a time (and may make cities) until eight are in hand.
    Rebuild,
    /// The match has ended.
    Over,
}

/// A city: three or more cards of one rank laid down, under one player's control. Under
/// rules version 2 a joker enters a city only by the exchange, in place of a natural card
/// melded there; under version 1 jokers also stood in when it was laid or added to.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct City {
    /// Its number in this hand, which commands name.
    pub id: u32,
    /// Who controls it.
    pub owner: Seat,
    /// Its rank (2 to 14).
    pub rank: u8,
    /// Its cards, in the order laid.
    pub cards: Vec<Card>,
}

/// A diplomacy offer awaiting its answer.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Offer {
    /// Who offers.
    pub from: Seat,
    /// The offerer's cities on offer.
    pub give: Vec<u32>,
    /// The opponent's cities asked for.
    pub take: Vec<u32>,
}

/// How a hand ended.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum HandEndKind {
    /// Seven in suit sequence.
    Nation,
    /// Rules version 1: the stock ran out; the hand went to the stronger position (RULES.md).
    StockOut,
    /// Rules version 2: the stock ran out after it had been rebuilt once; nobody won the hand.
    NoWinner,
}

/// The end of the last hand, with what it revealed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct HandEnd {
    /// The hand's number in the match.
    pub hand: u32,
    /// Who won it (nobody when the stock ran out under rules version 2).
    pub winner: Option<Seat>,
    /// How.
    pub kind: HandEndKind,
    /// The winning nation, shown to all.
    pub nation: Option<Vec<Card>>,
    /// Cities the winner controlled.
    pub cities: usize,
    /// Points scored: 3 plus one per city, or none without a winner.
    pub points: i64,
    /// In words, with seat placeholders.
    pub summary: String,
}

/// The whole state.
///
/// Fields added with rules version 2 are left out of the serialized state while they hold
/// their version-1 values, so a version-1 game hashes as it did when it was recorded.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct State {
    /// The rules version the game began with (RULES.md, "Rules versions").
    #[serde(
        default = "crate::engine::version::one",
        skip_serializing_if = "crate::engine::version::is_one"
    )]
    pub rules_version: u32,
    /// The options.
    pub options: Options,
    /// The rubber being played (from 1).
    pub rubber: u32,
    /// Rubbers won by each seat.
    pub rubbers_won: Vec<u32>,
    /// Points in the current rubber.
    pub scores: Vec<i64>,
    /// Hands dealt so far (from 1).
    pub hand_number: u32,
    /// Current dealer.
    pub dealer: Seat,
    /// Stage.
    pub phase: Phase,
    /// Whose turn it is (the offerer while an offer awaits its answer).
    pub turn: Seat,
    /// Each seat's hand; cards taken are added at the end.
    pub hands: Vec<Vec<Card>>,
    /// The face-down stock; its top is the last card.
    pub stock: Vec<Card>,
    /// Each seat's own discard pile, fed by the opponent's discards; top last.
    pub piles: Vec<Vec<Card>>,
    /// The cities on the table.
    pub cities: Vec<City>,
    /// The id the next city gets.
    pub next_city: u32,
    /// The offer awaiting an answer.
    pub offer: Option<Offer>,
    /// The seats whose diplomacy was refused and who may declare war on their next turn (both
    /// may, when each refused the other).
    pub war_threats: Vec<Seat>,
    /// Who took the last card of the stock (version 1's tie-break when it runs out).
    pub last_stock_taker: Option<Seat>,
    /// True once the stock has been rebuilt from the discard piles in this hand (version 2).
    #[serde(default, skip_serializing_if = "is_false")]
    pub restocked: bool,
    /// Hands in a row that ended without a winner (version 2); three end the match drawn.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hands_without_winner: u32,
    /// The last hand's end.
    pub last_hand: Option<HandEnd>,
    /// The result.
    pub outcome: Option<Outcome>,
}

fn is_false(flag: &bool) -> bool {
    !flag
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

impl State {
    /// True under rules version 2 and later: the stock rebuilt once, jokers not wild in cities,
    /// the joker exchange from the hand, the defender's joker kept only with a run (RULES.md).
    pub fn v2(&self) -> bool {
        self.rules_version >= 2
    }

    /// The other player.
    pub fn other(seat: Seat) -> Seat {
        1 - seat
    }

    /// The cities `seat` controls.
    pub fn cities_of(&self, seat: Seat) -> impl Iterator<Item = &City> {
        self.cities.iter().filter(move |c| c.owner == seat)
    }

    /// True if `seat` may declare war on this turn (a joker aside).
    pub fn may_declare_war(&self, seat: Seat) -> bool {
        self.war_threats.contains(&seat)
    }

    /// The city with this id.
    pub fn city(&self, id: u32) -> Option<&City> {
        self.cities.iter().find(|c| c.id == id)
    }
}
