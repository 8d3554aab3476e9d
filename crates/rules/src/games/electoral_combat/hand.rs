//! The play of a hand: turning cards, the normal take, the tie-break, every wild card's rule,
//! the second wild card, the last-hand rebuild, and the end of the game.

use super::cards::{ECard, Wild};
use super::state::{
    Guess, HandCard, HandRecord, Phase, Purpose, Reference, Sign, Slot, State, WildPlay,
};
use crate::engine::log::who;
use crate::engine::{GameRng, Log, Outcome, Seat};

/// Hands in a game.
pub const HANDS: u8 = 12;
/// Electoral votes that win.
pub const TO_WIN: u32 = 270;

/// The other player.
pub fn other(seat: Seat) -> Seat {
    1 - seat
}

impl State {
    /// A player in the outcome's reason: the seat placeholder that pages and mail replace by
    /// the name since rules version 2; "Player 1" in version-1 games, as they were recorded.
    fn player(&self, seat: Seat) -> String {
        if self.rules_version >= 2 {
            who(seat)
        } else {
            format!("Player {}", seat + 1)
        }
    }
}

impl State {
    /// Starts the current hand: lays five cards from the layer's stack, or (last two hands)
    /// waits for the layer to choose the won card to add.
    pub(super) fn start_hand(&mut self, log: &mut Log) {
        let layer = self.layer;
        if self.hand > 10 {
            self.phase = Phase::Rebuild { seat: layer };
            log.push(|| {
                format!(
                    "hand {}: {} adds the highest won card and one other to the last three cards",
                    self.hand,
                    who(layer)
                )
            });
            return;
        }
        let stack = &mut self.stacks[layer];
        let cards: Vec<ECard> = (0..5).filter_map(|_| stack.pop()).collect();
        self.lay(&cards);
        log.push(|| {
            format!(
                "hand {}: {} lays five cards face down",
                self.hand,
                who(layer)
            )
        });
    }

    fn lay(&mut self, cards: &[ECard]) {
        self.table.clear();
        self.table.extend(cards.iter().map(|&card| Slot {
            card,
            up: false,
            turned_by: None,
            won_by: None,
            removed: false,
        }));
        self.phase = Phase::Turn {
            seat: self.layer,
            purpose: Purpose::First,
        };
    }

    /// Last two hands: the layer's last three cards, the highest won card and `other` (an index
    /// into `won`), shuffled and laid. The caller has checked `other`.
    pub(super) fn rebuild(&mut self, other: usize, rng: &mut GameRng, log: &mut Log) {
        let seat = self.layer;
        let highest = self.highest_won(seat).expect("checked by the caller");
        let (high, chosen) = (self.won[seat][highest], self.won[seat][other]);
        self.won[seat].retain(|&c| c != high && c != chosen);
        let mut cards = std::mem::take(&mut self.stacks[seat]);
        cards.push(high);
        cards.push(chosen);
        rng.shuffle(&mut cards);
        self.added = vec![high, chosen];
        self.lay(&cards);
        log.push(|| {
            format!(
                "{} adds {} (the highest won card) and {} to the last {} cards of the stack, \
                 shuffles and lays five cards face down",
                who(seat),
                self.label(high),
                self.label(chosen),
                cards.len() - 2
            )
        });
    }

    /// Gives a card on the table to `seat`.
    fn give(&mut self, slot: usize, seat: Seat) {
        let s = &mut self.table[slot];
        s.won_by = Some(seat);
        self.won[seat].push(s.card);
    }

    /// Gives every card still on the table to `seat`.
    fn give_rest(&mut self, seat: Seat) {
        for slot in 0..self.table.len() {
            if self.table[slot].live() {
                self.give(slot, seat);
            }
        }
    }

    fn log_takes(&self, seat: Seat, log: &mut Log, what: &str) {
        log.push(|| {
            let cards: Vec<&str> = self
                .table
                .iter()
                .filter(|s| s.won_by == Some(seat))
                .map(|s| self.label(s.card))
                .collect();
            format!("{} {what}: {}", who(seat), cards.join(", "))
        });
    }

    /// Gives every card still on the table to `seat`, logs it and ends the hand.
    fn win_all(&mut self, seat: Seat, log: &mut Log) {
        self.give_rest(seat);
        self.log_takes(seat, log, "wins the cards of the hand");
        self.end_hand(log);
    }

    fn remove(&mut self, slot: usize) {
        self.table[slot].removed = true;
        self.removed.push(self.table[slot].card);
    }

    /// Turns over a face-down card for `seat` (checked by the caller) and follows the rules.
    pub(super) fn turn(&mut self, seat: Seat, slot: usize, purpose: Purpose, log: &mut Log) {
        let card = self.reveal(seat, slot, log);
        if let Some(kind) = card.wild() {
            self.wild_turned(seat, slot, kind, log);
            return;
        }
        let ev = self.ev(card);
        let layer = self.layer;
        match purpose {
            Purpose::First => {
                self.phase = Phase::Turn {
                    seat: other(layer),
                    purpose: Purpose::Second { first: slot },
                };
            }
            Purpose::Second { first } => {
                let a = self.ev(self.table[first].card);
                self.phase = if a > ev {
                    Phase::Choose {
                        seat: layer,
                        high: first,
                        low: slot,
                    }
                } else if a < ev {
                    Phase::Choose {
                        seat: other(layer),
                        high: slot,
                        low: first,
                    }
                } else {
                    log.push(|| format!("equal values: {} turns a third card", who(layer)));
                    Phase::Turn {
                        seat: layer,
                        purpose: Purpose::Third {
                            first,
                            second: slot,
                        },
                    }
                };
            }
            Purpose::Third { first, second } => {
                let a = self.ev(self.table[first].card);
                if ev > a {
                    self.phase = Phase::TieHigh {
                        seat: layer,
                        third: slot,
                    };
                    return;
                }
                if ev == a {
                    for s in [first, second, slot] {
                        self.give(s, layer);
                    }
                    self.log_takes(layer, log, "takes the three equal cards");
                } else {
                    self.give(slot, layer);
                    for s in self.face_down().collect::<Vec<_>>() {
                        self.give(s, layer);
                    }
                    self.log_takes(
                        layer,
                        log,
                        "takes the lower third card and the two face-down cards",
                    );
                }
                self.give_rest(other(layer));
                self.log_takes(other(layer), log, "takes the rest");
                self.end_hand(log);
            }
            Purpose::FakeNewsReference => {
                self.phase = Phase::Guess {
                    seat,
                    reference: Reference::Card { slot },
                };
            }
            Purpose::FakeNewsNext { reference, guess } => {
                let actual = Guess::of(ev, self.ev(self.table[reference].card));
                let winner = if actual == guess { seat } else { other(seat) };
                log.push(|| {
                    format!(
                        "{} guessed {}, the card is {}: {} wins both cards",
                        who(seat),
                        guess.word(),
                        actual.word(),
                        who(winner)
                    )
                });
                self.give(reference, winner);
                self.give(slot, winner);
                self.fake_news_next(seat, log);
            }
            Purpose::Recount => self.recount_next(log),
            Purpose::RecountTiebreak => {
                let revealer = self.wild_by();
                let winner = if ev.is_multiple_of(2) {
                    other(revealer)
                } else {
                    revealer
                };
                log.push(|| {
                    format!(
                        "Recount tie-break: {} is {}",
                        ev,
                        if ev.is_multiple_of(2) { "even" } else { "odd" }
                    )
                });
                self.win_all(winner, log);
            }
            Purpose::SwingState => {
                let revealer = self.wild_by();
                if seat != revealer {
                    self.phase = Phase::Turn {
                        seat: revealer,
                        purpose: Purpose::SwingState,
                    };
                    return;
                }
                let total: u32 = self
                    .live()
                    .filter(|&s| self.table[s].up)
                    .map(|s| self.ev(self.table[s].card))
                    .sum();
                let winner = if total.is_multiple_of(2) {
                    revealer
                } else {
                    other(revealer)
                };
                log.push(|| {
                    format!(
                        "Swing State: the total is {total}, {}",
                        if total.is_multiple_of(2) {
                            "even"
                        } else {
                            "odd"
                        }
                    )
                });
                self.win_all(winner, log);
            }
        }
    }

    fn reveal(&mut self, seat: Seat, slot: usize, log: &mut Log) -> ECard {
        let s = &mut self.table[slot];
        s.up = true;
        s.turned_by = Some(seat);
        let card = s.card;
        log.push(|| format!("{} turns over {}", who(seat), self.label(card)));
        card
    }

    fn wild_by(&self) -> Seat {
        self.wild.map_or(self.layer, |w| w.by)
    }

    /// A wild card was turned over: the second of the hand ends it, the first starts its rule.
    fn wild_turned(&mut self, seat: Seat, slot: usize, kind: Wild, log: &mut Log) {
        self.remove(slot);
        if self.wild.is_some() {
            log.push(|| {
                format!(
                    "a second wild card: {} wins every remaining card of the hand; both wild cards leave the game",
                    who(seat)
                )
            });
            self.win_all(seat, log);
            return;
        }
        self.wild = Some(WildPlay { kind, by: seat });
        match kind {
            Wild::FakeNews => self.fake_news_start(seat, log),
            Wild::CelebrityEndorsement => self.celebrity(seat, log),
            Wild::Recount => self.recount_next(log),
            Wild::SwingState => {
                self.phase = Phase::Turn {
                    seat: other(seat),
                    purpose: Purpose::SwingState,
                };
            }
            Wild::RussianCollusion => {
                self.signs = [None, None];
                self.draws = 0;
                self.last_signs = None;
                self.phase = Phase::Rps;
                log.push(|| {
                    format!(
                        "rock, paper, scissors for each of the {} remaining cards",
                        self.live().count()
                    )
                });
            }
        }
    }

    fn fake_news_start(&mut self, seat: Seat, log: &mut Log) {
        let (a, b) = {
            let mut up = self.live().filter(|&s| self.table[s].up);
            (up.next(), up.next())
        };
        self.phase = match (a, b) {
            (None, _) => Phase::Turn {
                seat,
                purpose: Purpose::FakeNewsReference,
            },
            (Some(slot), None) => Phase::Guess {
                seat,
                reference: Reference::Card { slot },
            },
            (Some(_), Some(_)) => Phase::Guess {
                seat,
                reference: Reference::Sum,
            },
        };
        let _ = log;
    }

    /// After a Fake News pair: the next pair, or the end of the hand.
    fn fake_news_next(&mut self, seat: Seat, log: &mut Log) {
        match self.face_down().count() {
            0 if self.live().next().is_none() => self.end_hand(log),
            n if n >= 2 => {
                self.phase = Phase::Turn {
                    seat,
                    purpose: Purpose::FakeNewsReference,
                };
            }
            // Not reachable with five-card hands; the revealer keeps what is left.
            _ => self.win_all(seat, log),
        }
    }

    /// Fake News: the revealer's guess.
    pub(super) fn guess(&mut self, seat: Seat, reference: Reference, guess: Guess, log: &mut Log) {
        log.push(|| format!("{} guesses {}", who(seat), guess.word()));
        match reference {
            Reference::Card { slot } => {
                self.phase = Phase::Turn {
                    seat,
                    purpose: Purpose::FakeNewsNext {
                        reference: slot,
                        guess,
                    },
                };
            }
            Reference::Sum => {
                let exposed: u32 = self
                    .live()
                    .filter(|&s| self.table[s].up)
                    .map(|s| self.ev(self.table[s].card))
                    .sum();
                let mut total = 0;
                let down: Vec<usize> = self.face_down().collect();
                for slot in down {
                    let card = self.reveal(seat, slot, log);
                    if let Some(kind) = card.wild() {
                        self.wild_turned(seat, slot, kind, log);
                        return;
                    }
                    total += self.ev(card);
                }
                let actual = Guess::of(total, exposed);
                let winner = if actual == guess { seat } else { other(seat) };
                log.push(|| {
                    format!(
                        "the two cards add up to {total} against {exposed}: {}",
                        actual.word()
                    )
                });
                self.win_all(winner, log);
            }
        }
    }

    /// Recount: the next card to turn, or the comparison.
    fn recount_next(&mut self, log: &mut Log) {
        let revealer = self.wild_by();
        let opponent = other(revealer);
        let card_of = |seat: Seat| {
            self.live()
                .find(|&s| self.table[s].up && self.table[s].turned_by == Some(seat))
        };
        let (p, r) = (card_of(opponent), card_of(revealer));
        let (Some(p), Some(r)) = (p, r) else {
            self.phase = Phase::Turn {
                seat: if p.is_none() { opponent } else { revealer },
                purpose: Purpose::Recount,
            };
            return;
        };
        let (pe, re) = (self.ev(self.table[p].card), self.ev(self.table[r].card));
        if pe == re {
            log.push(|| {
                format!(
                    "Recount: equal values, {} turns another card",
                    who(opponent)
                )
            });
            self.phase = Phase::Turn {
                seat: opponent,
                purpose: Purpose::RecountTiebreak,
            };
        } else {
            let winner = if pe < re { opponent } else { revealer };
            log.push(|| format!("Recount: the lower card wins, {}", who(winner)));
            self.win_all(winner, log);
        }
    }

    /// Celebrity Endorsement: all cards exposed; the revealer wins the lowest, or every state
    /// card when another wild card is among them.
    fn celebrity(&mut self, seat: Seat, log: &mut Log) {
        for slot in 0..self.table.len() {
            if self.table[slot].live() {
                self.table[slot].up = true;
            }
        }
        log.push(|| {
            let cards: Vec<&str> = self
                .live()
                .map(|s| self.label(self.table[s].card))
                .collect();
            format!("every card is exposed: {}", cards.join(", "))
        });
        let wilds: Vec<usize> = self
            .live()
            .filter(|&s| self.table[s].card.wild().is_some())
            .collect();
        if !wilds.is_empty() {
            for slot in wilds {
                self.remove(slot);
            }
            log.push(|| {
                "another wild card is among them; every revealed wild card leaves the game".into()
            });
            self.win_all(seat, log);
            return;
        }
        let mut lowest: Option<(usize, u32)> = None;
        for slot in self.live() {
            let ev = self.ev(self.table[slot].card);
            if lowest.is_none_or(|(_, l)| ev < l) {
                lowest = Some((slot, ev));
            }
        }
        if let Some((slot, _)) = lowest {
            self.give(slot, seat);
            self.log_takes(seat, log, "wins the lowest card");
        }
        self.give_rest(other(seat));
        self.log_takes(other(seat), log, "wins the rest");
        self.end_hand(log);
    }

    /// The normal take: the higher card and one other.
    pub(super) fn take_higher(&mut self, seat: Seat, high: usize, with: usize, log: &mut Log) {
        self.give(high, seat);
        self.give(with, seat);
        self.log_takes(seat, log, "takes");
        self.give_rest(other(seat));
        self.log_takes(other(seat), log, "takes the rest");
        self.end_hand(log);
    }

    /// The normal take: the lower card and two face-down cards.
    pub(super) fn take_lower(&mut self, seat: Seat, low: usize, down: [usize; 2], log: &mut Log) {
        self.give(low, seat);
        self.give(down[0], seat);
        self.give(down[1], seat);
        self.log_takes(seat, log, "takes the lower card and two face-down cards");
        self.give_rest(other(seat));
        self.log_takes(other(seat), log, "takes the rest");
        self.end_hand(log);
    }

    /// Russian Collusion: a sealed sign; resolves the round once both are in.
    pub(super) fn sign(&mut self, seat: Seat, sign: Sign, log: &mut Log) {
        self.signs[seat] = Some(sign);
        log.push(|| format!("{} chooses a sign", who(seat)));
        let [Some(a), Some(b)] = self.signs else {
            return;
        };
        self.signs = [None, None];
        self.last_signs = Some([a, b]);
        log.push(|| {
            format!(
                "{} shows {}, {} shows {}",
                who(0),
                a.word(),
                who(1),
                b.word()
            )
        });
        if a == b {
            self.draws += 1;
            log.push(|| "a draw: the round is played again".into());
            return;
        }
        let winner = if a.beats(b) { 0 } else { 1 };
        let (first, more) = {
            let mut live = self.live();
            (live.next(), live.next().is_some())
        };
        match first {
            Some(slot) if !more => {
                self.give(slot, winner);
                self.log_takes(winner, log, "wins the round and the last card");
                self.end_hand(log);
            }
            _ => {
                log.push(|| format!("{} wins the round", who(winner)));
                self.phase = Phase::RpsTake { seat: winner };
            }
        }
    }

    /// Russian Collusion: the round's winner takes a card.
    pub(super) fn rps_take(&mut self, seat: Seat, slot: usize, log: &mut Log) {
        self.give(slot, seat);
        log.push(|| format!("{} takes {}", who(seat), self.label(self.table[slot].card)));
        if self.live().next().is_some() {
            self.phase = Phase::Rps;
        } else {
            self.end_hand(log);
        }
    }

    fn end_hand(&mut self, log: &mut Log) {
        self.last_hand = Some(HandRecord {
            hand: self.hand,
            layer: self.layer,
            wild: self.wild,
            cards: self
                .table
                .iter()
                .map(|s| HandCard {
                    card: s.card,
                    to: s.won_by,
                })
                .collect(),
        });
        self.table.clear();
        self.added.clear();
        self.wild = None;
        self.signs = [None, None];
        self.draws = 0;
        self.last_signs = None;
        log.push(|| {
            format!(
                "after hand {}: {} has {} electoral votes, {} has {}",
                self.hand,
                who(0),
                self.votes(0),
                who(1),
                self.votes(1)
            )
        });
        if self.hand >= HANDS {
            self.finish(log);
            return;
        }
        self.hand += 1;
        self.layer = other(self.layer);
        self.start_hand(log);
    }

    fn finish(&mut self, log: &mut Log) {
        let votes = [self.votes(0), self.votes(1)];
        let book = self.options.book_deal;
        let (winners, reason) = if votes[0] == votes[1] {
            (
                Vec::new(),
                format!("a tie: {}–{} in the electoral college", votes[0], votes[1]),
            )
        } else {
            let high = if votes[0] > votes[1] { 0 } else { 1 };
            let low = other(high);
            if !book && votes[high] >= TO_WIN {
                (
                    vec![high],
                    format!(
                        "{} wins with {} electoral votes to {}",
                        self.player(high),
                        votes[high],
                        votes[low]
                    ),
                )
            } else if book && votes[low] < TO_WIN {
                (
                    vec![low],
                    format!(
                        "Book Deal: {} wins with fewer than {TO_WIN} electoral votes, {} to {}",
                        self.player(low),
                        votes[low],
                        votes[high]
                    ),
                )
            } else {
                (
                    Vec::new(),
                    format!("nobody wins: {} to {}", votes[0], votes[1]),
                )
            }
        };
        log.push(|| format!("game over: {reason}"));
        self.outcome = Some(Outcome {
            winners,
            scores: votes.iter().map(|&v| i64::from(v)).collect(),
            reason,
        });
        self.phase = Phase::Over;
    }
}

/// Deals the game: 28 cards to each stack, the first player lays the first hand.
/// Deals a new game under rules version `rules_version`.
pub fn deal(options: super::Options, rng: &mut GameRng, rules_version: u32) -> State {
    let mut deck = ECard::deck();
    rng.shuffle(&mut deck);
    let mut stacks = [Vec::with_capacity(28), Vec::with_capacity(28)];
    for (i, card) in deck.into_iter().enumerate() {
        stacks[i % 2].push(card);
    }
    let mut state = State {
        rules_version,
        options,
        hand: 1,
        layer: 0,
        stacks,
        won: [Vec::new(), Vec::new()],
        removed: Vec::new(),
        table: Vec::new(),
        added: Vec::new(),
        wild: None,
        phase: Phase::Over,
        signs: [None, None],
        draws: 0,
        last_signs: None,
        last_hand: None,
        outcome: None,
    };
    state.start_hand(&mut Log::silent());
    state
}

/// Used by choices: the cards a player may add besides the highest won card.
pub fn rebuild_options(state: &State, seat: Seat) -> impl Iterator<Item = (usize, ECard)> + '_ {
    let highest = state.highest_won(seat);
    state.won[seat]
        .iter()
        .copied()
        .enumerate()
        .filter(move |&(i, _)| Some(i) != highest)
}
