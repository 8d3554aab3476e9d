//! The state of a Whitehouse game, its options and commands, and the transitions of bidding,
//! trump, kitty and challenges. Trick play is in `tricks.rs`, scoring in `scoring.rs`.

use super::{MAX_BID, MIN_BID, suit_label};
use crate::cards::{Card, Color, Suit};
use crate::engine::log::who;
use crate::engine::{Log, Outcome, RuleError, Seat, SetupError};
use serde::{Deserialize, Serialize};

/// The partnership bidding variation: which team bids which colour for the whole game.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum TeamColors {
    /// Either team may name any suit.
    #[default]
    Off,
    /// North–South always name hearts or diamonds, East–West spades or clubs.
    NorthSouthRed,
    /// North–South always name spades or clubs, East–West hearts or diamonds.
    NorthSouthBlue,
}

/// The options of a game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Partnerships (North–South v East–West); false: individual play.
    pub partnership: bool,
    /// With the two jokers (kitty 6) or without (kitty 4).
    pub jokers: bool,
    /// Points to win: 3, 5, 7, 9, 11 or 13.
    pub target: i64,
    /// The Team Red / Team Blue variation (partnership only).
    pub team_colors: TeamColors,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            partnership: true,
            jokers: true,
            target: 7,
            team_colors: TeamColors::Off,
        }
    }
}

impl Options {
    /// Refuses values the rules do not offer.
    pub fn validate(&self) -> Result<(), SetupError> {
        if ![3, 5, 7, 9, 11, 13].contains(&self.target) {
            return Err(SetupError::BadOption {
                name: "target".into(),
                reason: format!(
                    "the game is played to 3, 5, 7, 9, 11 or 13 points, not {}",
                    self.target
                ),
            });
        }
        if !self.partnership && self.team_colors != TeamColors::Off {
            return Err(SetupError::BadOption {
                name: "team_colors".into(),
                reason: "Team Red / Team Blue is a partnership variation".into(),
            });
        }
        Ok(())
    }

    /// Cards left for the kitty after twelve each.
    pub fn kitty_size(&self) -> usize {
        if self.jokers { 6 } else { 4 }
    }

    /// The bid that wins or loses the game outright.
    pub fn landslide(&self) -> u32 {
        if self.partnership { 500 } else { 400 }
    }
}

/// What a seat may send.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Bid this many electoral votes.
    Bid { amount: u32 },
    /// Pass in the bidding.
    Pass,
    /// The bid winner names trump.
    Trump { suit: Suit },
    /// The bid winner puts these cards (from hand and kitty) back as the kitty.
    Discard { cards: Vec<Card> },
    /// Individual play: register a challenge to defeat the bid.
    Challenge,
    /// Individual play: let the bid stand.
    NoChallenge,
    /// Play a card to the trick.
    Play { card: Card },
}

/// The commonest command, `{"type": "play", "card": code}`, read in one pass over its two
/// fields; `None` for anything else, which is left to [`direct`].
pub(super) fn play(value: &serde_json::Value) -> Option<Command> {
    let map = value.as_object()?;
    if map.len() != 2 {
        return None;
    }
    let (mut kind, mut code) = (None, None);
    for (key, value) in map {
        match key.as_str() {
            "type" => kind = value.as_str(),
            "card" => code = value.as_str(),
            _ => return None,
        }
    }
    if kind? != "play" {
        return None;
    }
    Some(Command::Play {
        card: Card::from_code(code?)?,
    })
}

/// The command in an object whose fields all read as the derived `Deserialize` reads them;
/// `None` for anything else, which is left to it ([`crate::engine::dynamic::tagged`]).
pub(super) fn direct(value: &serde_json::Value) -> Option<Command> {
    let (kind, fields) = crate::engine::dynamic::tagged(value)?;
    let unit = |command| fields.only(&[]).map(|()| command);
    match kind {
        "bid" => {
            fields.only(&["amount"])?;
            Some(Command::Bid {
                amount: fields.required("amount")?,
            })
        }
        "pass" => unit(Command::Pass),
        "trump" => {
            fields.only(&["suit"])?;
            Some(Command::Trump {
                suit: fields.required("suit")?,
            })
        }
        "discard" => {
            fields.only(&["cards"])?;
            Some(Command::Discard {
                cards: fields.required("cards")?,
            })
        }
        "challenge" => unit(Command::Challenge),
        "no_challenge" => unit(Command::NoChallenge),
        "play" => {
            fields.only(&["card"])?;
            Some(Command::Play {
                card: Card::from_code(fields.str("card")?)?,
            })
        }
        _ => None,
    }
}

/// The stage of the current hand.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// One round of bids from the dealer's left.
    Bidding,
    /// The bid winner names trump.
    Trump,
    /// The bid winner holds hand and kitty and puts the kitty back.
    Kitty,
    /// Individual play: the others decide whether to challenge.
    Challenges,
    /// Twelve tricks.
    Play,
    /// The twelfth trick is taken (passing state inside one command).
    HandOver,
    /// The game has ended.
    Over,
}

impl Phase {
    /// What the game waits for, as a reason to refuse anything else.
    pub fn expects(self) -> &'static str {
        match self {
            Phase::Bidding => "it is time to bid or pass",
            Phase::Trump => "the bid winner must name trump now",
            Phase::Kitty => "the bid winner must put the kitty back now",
            Phase::Challenges => "it is time to challenge the bid or let it stand",
            Phase::Play => "it is time to play a card",
            Phase::HandOver | Phase::Over => "the game is over",
        }
    }
}

/// A bid or pass in the current hand's auction.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub struct BidEntry {
    /// Who spoke.
    pub seat: Seat,
    /// The bid, or `None` for a pass.
    pub amount: Option<u32>,
}

/// What happened in the last finished hand (no cards: they are back in the pack).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct HandSummary {
    /// The hand's number.
    pub hand: u32,
    /// The bid winner.
    pub bidder: Seat,
    /// The contract.
    pub bid: u32,
    /// Trump.
    pub trump: Suit,
    /// EVs the bidder's side took, kitty included.
    pub captured: u32,
    /// Whether the bid was made.
    pub made: bool,
    /// Individual play: the challengers.
    pub challengers: Vec<Seat>,
    /// Score change of each score holder (team or player).
    pub changes: Vec<i64>,
}

/// The whole state of a game.
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
    /// The draw for first dealer: each seat's card.
    pub dealer_draw: Vec<Card>,
    /// Hands played so far, counting the current one (from 1).
    pub hand_number: u32,
    /// Current dealer.
    pub dealer: Seat,
    /// Stage of the hand.
    pub phase: Phase,
    /// The seat awaited.
    pub turn: Seat,
    /// Each seat's cards.
    pub hands: Vec<Vec<Card>>,
    /// The kitty (empty while the bidder holds it).
    pub kitty: Vec<Card>,
    /// The kitty's cards while the bidder holds them in hand, until it lays a kitty back
    /// (rules version 3 on; empty otherwise and then not serialized, so the states of earlier
    /// games hash as they did when recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taken_kitty: Vec<Card>,
    /// The auction so far.
    pub bids: Vec<BidEntry>,
    /// The bid winner, once known.
    pub bidder: Option<Seat>,
    /// The highest bid so far.
    pub high_bid: Option<u32>,
    /// Trump, once named.
    pub trump: Option<Suit>,
    /// Individual play: who challenged the bid.
    pub challengers: Vec<Seat>,
    /// Individual play: who has answered the challenge question.
    pub challenge_answers: usize,
    /// Who led the current trick.
    pub leader: Seat,
    /// The current trick in play order.
    pub trick: Vec<(Seat, Card)>,
    /// The last completed trick of this hand and who took it.
    pub last_trick: Option<(Vec<(Seat, Card)>, Seat)>,
    /// Whether trump has been played this hand.
    pub trump_broken: bool,
    /// Tricks taken by each seat this hand.
    pub tricks_won: Vec<u32>,
    /// EVs taken in tricks by each seat this hand (the kitty not included).
    pub captured: Vec<u32>,
    /// Scores: two teams (North–South, East–West) or four players.
    pub scores: Vec<i64>,
    /// Individual play: players out of the game after a failed landslide.
    pub eliminated: Vec<bool>,
    /// The last finished hand.
    pub last_hand: Option<HandSummary>,
    /// The result, once over.
    pub outcome: Option<Outcome>,
}

impl State {
    /// A game before its first deal.
    pub fn new(options: Options, dealer: Seat, dealer_draw: Vec<Card>) -> State {
        let holders = if options.partnership { 2 } else { 4 };
        State {
            rules_version: <super::Whitehouse as crate::engine::Rules>::RULES_VERSION,
            options,
            dealer_draw,
            hand_number: 0,
            dealer,
            phase: Phase::Bidding,
            turn: (dealer + 1) % 4,
            hands: vec![Vec::new(); 4],
            kitty: Vec::new(),
            taken_kitty: Vec::new(),
            bids: Vec::new(),
            bidder: None,
            high_bid: None,
            trump: None,
            challengers: Vec::new(),
            challenge_answers: 0,
            leader: (dealer + 1) % 4,
            trick: Vec::new(),
            last_trick: None,
            trump_broken: false,
            tricks_won: vec![0; 4],
            captured: vec![0; 4],
            scores: vec![0; holders],
            eliminated: vec![false; 4],
            last_hand: None,
            outcome: None,
        }
    }

    /// Which score a seat's results go to: its team's or its own.
    pub fn holder(&self, seat: Seat) -> usize {
        if self.options.partnership {
            seat % 2
        } else {
            seat
        }
    }

    /// True if the two seats score together.
    pub fn same_side(&self, a: Seat, b: Seat) -> bool {
        self.holder(a) == self.holder(b)
    }

    /// The seats that speak in the auction, in order from the dealer's left to the dealer
    /// (eliminated players do not bid).
    pub fn bidding_order(&self) -> Vec<Seat> {
        (1..=4)
            .map(|i| (self.dealer + i) % 4)
            .filter(|&s| !self.eliminated[s])
            .collect()
    }

    /// True if `seat` is the last to speak and everyone before passed: it must take 270.
    pub fn forced_to_bid(&self, seat: Seat) -> bool {
        let order = self.bidding_order();
        order.last() == Some(&seat) && self.high_bid.is_none()
    }

    /// The lowest bid `seat` may make now.
    pub fn min_bid(&self) -> u32 {
        self.high_bid.map_or(MIN_BID, |b| b + 10)
    }

    /// The suits the bid winner may name.
    pub fn trump_suits(&self, bidder: Seat) -> Vec<Suit> {
        let red_side = match self.options.team_colors {
            TeamColors::Off => return Suit::ALL.to_vec(),
            TeamColors::NorthSouthRed => 0,
            TeamColors::NorthSouthBlue => 1,
        };
        let color = if bidder % 2 == red_side {
            Color::Red
        } else {
            Color::Blue
        };
        Suit::ALL
            .into_iter()
            .filter(|s| s.color() == color)
            .collect()
    }

    pub(super) fn bid(&mut self, seat: Seat, amount: u32, log: &mut Log) -> Result<(), RuleError> {
        let min = self.min_bid();
        if self.forced_to_bid(seat) && amount != MIN_BID {
            return Err(RuleError::illegal(
                "everyone else passed: the dealer must take the bid at 270",
            ));
        }
        if amount < min {
            return Err(RuleError::illegal(format!("a bid must be at least {min}")));
        }
        if !amount.is_multiple_of(10) {
            return Err(RuleError::illegal("bids go up in steps of 10"));
        }
        if amount > MAX_BID {
            return Err(RuleError::illegal(format!(
                "there are only 538 electoral votes in the pack: bid at most {MAX_BID}"
            )));
        }
        self.bids.push(BidEntry {
            seat,
            amount: Some(amount),
        });
        self.high_bid = Some(amount);
        self.bidder = Some(seat);
        log.push(|| format!("{} bids {amount}", who(seat)));
        self.next_bidder();
        Ok(())
    }

    pub(super) fn pass(&mut self, seat: Seat, log: &mut Log) -> Result<(), RuleError> {
        if self.forced_to_bid(seat) {
            return Err(RuleError::illegal(
                "everyone else passed: the dealer must take the bid at 270",
            ));
        }
        self.bids.push(BidEntry { seat, amount: None });
        log.push(|| format!("{} passes", who(seat)));
        self.next_bidder();
        Ok(())
    }

    fn next_bidder(&mut self) {
        let order = self.bidding_order();
        if self.bids.len() < order.len() {
            self.turn = order[self.bids.len()];
        } else {
            self.phase = Phase::Trump;
            self.turn = self
                .bidder
                .expect("the last bidder is forced, so someone bid");
        }
    }

    pub(super) fn name_trump(
        &mut self,
        seat: Seat,
        suit: Suit,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let allowed = self.trump_suits(seat);
        if !allowed.contains(&suit) {
            let names: Vec<String> = allowed.iter().map(|s| s.name().to_string()).collect();
            return Err(RuleError::illegal(format!(
                "your team bids {} only",
                names.join(" or ")
            )));
        }
        self.trump = Some(suit);
        let kitty = std::mem::take(&mut self.kitty);
        if self.rules_version >= 3 {
            self.taken_kitty = kitty.clone();
        }
        self.hands[seat].extend(kitty);
        let keys = super::deal::packed_sort_keys(Some(suit));
        for hand in &mut self.hands {
            hand.sort_by_key(|c| keys[c.index()]);
        }
        self.phase = Phase::Kitty;
        log.push(|| {
            format!(
                "{} names {} trump and picks up the kitty",
                who(seat),
                suit_label(suit)
            )
        });
        Ok(())
    }

    pub(super) fn exchange_kitty(
        &mut self,
        seat: Seat,
        cards: &[Card],
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let size = self.options.kitty_size();
        if cards.len() != size {
            return Err(RuleError::illegal(format!(
                "put back exactly {size} cards so that 12 stay in your hand"
            )));
        }
        for (i, card) in cards.iter().enumerate() {
            if cards[..i].contains(card) {
                return Err(RuleError::illegal(format!(
                    "{} is chosen twice",
                    card.label()
                )));
            }
            if !self.hands[seat].contains(card) {
                return Err(RuleError::illegal(format!(
                    "you do not hold {}",
                    card.label()
                )));
            }
        }
        self.hands[seat].retain(|c| !cards.contains(c));
        self.kitty = cards.to_vec();
        self.taken_kitty.clear();
        log.push(|| format!("{} puts the kitty back, face down", who(seat)));
        if self.options.partnership {
            self.start_play();
        } else {
            self.phase = Phase::Challenges;
            self.turn = self.next_challenger(seat);
        }
        Ok(())
    }

    fn next_challenger(&self, after: Seat) -> Seat {
        let mut seat = (after + 1) % 4;
        while self.eliminated[seat] {
            seat = (seat + 1) % 4;
        }
        seat
    }

    /// The seats asked whether they challenge: every other player still in the game.
    pub fn challenge_askers(&self) -> usize {
        let bidder = self.bidder.expect("a bidder during challenges");
        (0..4)
            .filter(|&s| s != bidder && !self.eliminated[s])
            .count()
    }

    pub(super) fn challenge(
        &mut self,
        seat: Seat,
        challenge: bool,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if challenge {
            self.challengers.push(seat);
            log.push(|| format!("{} challenges the bid", who(seat)));
        } else {
            log.push(|| format!("{} lets the bid stand", who(seat)));
        }
        self.challenge_answers += 1;
        if self.challenge_answers == self.challenge_askers() {
            self.start_play();
        } else {
            self.turn = self.next_challenger(seat);
        }
        Ok(())
    }

    fn start_play(&mut self) {
        self.phase = Phase::Play;
        let first = if self.options.partnership {
            (self.dealer + 1) % 4
        } else {
            self.bidder.expect("a bidder before play")
        };
        self.leader = first;
        self.turn = first;
    }
}
