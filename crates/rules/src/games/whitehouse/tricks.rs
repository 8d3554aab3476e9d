//! Trick play: what may be led and followed, and who takes a trick.

use super::state::{Phase, State};
use crate::cards::{Card, Suit};
use crate::engine::log::who;
use crate::engine::{Log, RuleError, Seat};
use std::cmp::Ordering;
use std::sync::LazyLock;

/// The suit a card counts as: jokers are always trump.
pub fn effective_suit(card: Card, trump: Suit) -> Suit {
    card.suit().unwrap_or(trump)
}

/// Strength of a trump card: the Big Joker (trump's colour) highest, then the Little Joker,
/// then the trump suit's ranks.
fn trump_strength(card: Card, trump: Suit) -> u8 {
    match card.rank() {
        Some(rank) => rank,
        None if card.color() == Some(trump.color()) => 16,
        None => 15,
    }
}

/// Compares two cards of one trick: trump beats everything else; otherwise only the suit led
/// counts; within a suit, rank decides (a suit has one card of each rank).
pub fn compare(a: Card, b: Card, led: Suit, trump: Suit) -> Ordering {
    let (sa, sb) = (effective_suit(a, trump), effective_suit(b, trump));
    match (sa == trump, sb == trump) {
        (true, true) => trump_strength(a, trump).cmp(&trump_strength(b, trump)),
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => match (sa == led, sb == led) {
            (true, true) => a.rank().cmp(&b.rank()),
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => Ordering::Equal,
        },
    }
}

/// The suit each card counts as under one trump: [`effective_suit`], read from a table of the
/// pack's suits made once.
#[derive(Clone, Copy)]
struct Suits {
    printed: &'static [Option<Suit>],
    trump: Suit,
}

impl Suits {
    fn new(trump: Suit) -> Suits {
        static PRINTED: LazyLock<Vec<Option<Suit>>> =
            LazyLock::new(|| Card::all().map(Card::suit).collect());
        Suits {
            printed: &PRINTED,
            trump,
        }
    }

    fn of(self, card: Card) -> Suit {
        self.printed[card.index()].unwrap_or(self.trump)
    }
}

/// Which cards of a hand may be played now: every card, or only those of one suit, or all
/// but those of one suit.
#[derive(Clone, Copy)]
enum Playable {
    Any,
    Only(Suit),
    AllBut(Suit),
}

impl Playable {
    fn allows(self, card: Card, suits: Suits) -> bool {
        match self {
            Playable::Any => true,
            Playable::Only(suit) => suits.of(card) == suit,
            Playable::AllBut(suit) => suits.of(card) != suit,
        }
    }
}

impl State {
    /// The cards `seat` may play now, in hand order.
    pub fn legal_cards(&self, seat: Seat) -> Vec<Card> {
        self.legal_iter(seat).collect()
    }

    /// [`State::legal_cards`], one at a time.
    pub fn legal_iter(&self, seat: Seat) -> impl Iterator<Item = Card> + Clone + '_ {
        let suits = Suits::new(self.trump.expect("trump is named before play"));
        let playable = self.playable(seat, suits);
        self.hands[seat]
            .iter()
            .copied()
            .filter(move |&card| playable.allows(card, suits))
    }

    /// Which of `seat`'s cards may be played now: the suit led, while it holds one; in
    /// partnership play, a lead of anything but trump before trump is broken, while it holds
    /// such a card.
    fn playable(&self, seat: Seat, suits: Suits) -> Playable {
        let hand = &self.hands[seat];
        match self.trick.first() {
            Some(&(_, led_card)) => {
                let led = suits.of(led_card);
                if hand.iter().any(|&c| suits.of(c) == led) {
                    Playable::Only(led)
                } else {
                    Playable::Any
                }
            }
            None => {
                let restricted = self.options.partnership && !self.trump_broken;
                if restricted && hand.iter().any(|&c| suits.of(c) != suits.trump) {
                    Playable::AllBut(suits.trump)
                } else {
                    Playable::Any
                }
            }
        }
    }

    /// Whether `card`, which `seat` holds, is among its [`State::legal_cards`], found without
    /// listing them.
    fn may_play(&self, seat: Seat, card: Card) -> bool {
        let suits = Suits::new(self.trump.expect("trump is named before play"));
        self.playable(seat, suits).allows(card, suits)
    }

    /// Why `card` may not be played by `seat` now, if it may not.
    fn refuse_play(&self, seat: Seat, card: Card) -> Option<String> {
        if !self.hands[seat].contains(&card) {
            return Some(format!("you do not hold {}", card.label()));
        }
        if self.may_play(seat, card) {
            return None;
        }
        let trump = self.trump.expect("trump named");
        Some(match self.trick.first() {
            Some(&(_, led)) => format!(
                "you must follow suit ({})",
                effective_suit(led, trump).name()
            ),
            None => format!(
                "trump ({}) is not broken yet: lead another suit while you hold one",
                trump.name()
            ),
        })
    }

    pub(super) fn play(&mut self, seat: Seat, card: Card, log: &mut Log) -> Result<(), RuleError> {
        if let Some(reason) = self.refuse_play(seat, card) {
            return Err(RuleError::Illegal(reason));
        }
        let trump = self.trump.expect("trump named");
        self.hands[seat].retain(|c| *c != card);
        if effective_suit(card, trump) == trump {
            self.trump_broken = true;
        }
        self.trick.push((seat, card));
        log.push(|| format!("{} plays {}", who(seat), card.label()));
        if self.trick.len() < 4 {
            self.turn = (seat + 1) % 4;
            return Ok(());
        }
        let led = effective_suit(self.trick[0].1, trump);
        let mut best = 0;
        for i in 1..4 {
            if compare(self.trick[i].1, self.trick[best].1, led, trump) == Ordering::Greater {
                best = i;
            }
        }
        let winner = self.trick[best].0;
        let ev: u32 = self.trick.iter().map(|(_, c)| c.ev()).sum();
        self.tricks_won[winner] += 1;
        self.captured[winner] += ev;
        log.push(|| format!("{} takes the trick ({ev} electoral votes)", who(winner)));
        // The trick before last gives its room to the next trick.
        let mut next = self
            .last_trick
            .take()
            .map_or_else(Vec::new, |(cards, _)| cards);
        next.clear();
        self.last_trick = Some((std::mem::replace(&mut self.trick, next), winner));
        self.leader = winner;
        self.turn = winner;
        if self.hands.iter().all(Vec::is_empty) {
            self.phase = Phase::HandOver;
        }
        Ok(())
    }
}
