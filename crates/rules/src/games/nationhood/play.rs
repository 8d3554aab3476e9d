//! Playing the commands: every method checks the whole move before it changes anything, so a
//! refused command leaves the state as it was.

use super::melds::{city_rank, face, faces, fits_city, is_nation, longest_sequence, rank_plural};
use super::state::{City, HandEnd, HandEndKind, Offer, Phase, State};
use crate::cards::Card;
use crate::engine::log::who;
use crate::engine::{GameRng, Log, Outcome, RuleError, Seat};

/// A hand holds eight cards after a draw and seven after the discard.
pub const FULL_HAND: usize = 8;

/// The 54 cards: the 52 suited cards and the two jokers.
pub fn pack() -> Vec<Card> {
    let mut cards = Card::standard_52();
    cards.extend([Card::BLUE_JOKER, Card::RED_JOKER]);
    cards
}

pub(super) fn illegal<T>(reason: impl Into<String>) -> Result<T, RuleError> {
    Err(RuleError::illegal(reason))
}

/// Removes one copy of each card from `hand` (all are known to be there).
fn remove_cards(hand: &mut Vec<Card>, cards: &[Card]) {
    for card in cards {
        let at = hand.iter().position(|c| c == card).expect("card in hand");
        hand.remove(at);
    }
}

/// Checks that `cards` are distinct cards of `hand`.
fn check_in_hand(hand: &[Card], cards: &[Card]) -> Result<(), RuleError> {
    for (i, card) in cards.iter().enumerate() {
        if cards[..i].contains(card) {
            return illegal(format!("{} is named twice", face(*card)));
        }
        if !hand.contains(card) {
            return illegal(format!("{} is not in your hand", face(*card)));
        }
    }
    Ok(())
}

impl State {
    /// Shuffles the pack and deals a new hand: seven each, the next card face up to start the
    /// non-dealer's discard pile; the non-dealer plays first.
    pub fn deal(&mut self, rng: &mut GameRng, log: &mut Log) {
        let mut cards = pack();
        rng.shuffle(&mut cards);
        let first = State::other(self.dealer);
        self.hand_number += 1;
        self.hands = vec![Vec::new(), Vec::new()];
        for i in 0..14 {
            let seat = if i % 2 == 0 { first } else { self.dealer };
            self.hands[seat].push(cards.pop().expect("54 cards"));
        }
        self.piles = vec![Vec::new(), Vec::new()];
        self.piles[first].push(cards.pop().expect("54 cards"));
        self.stock = cards;
        self.cities.clear();
        self.next_city = 1;
        self.offer = None;
        self.war_threats.clear();
        self.last_stock_taker = None;
        self.restocked = false;
        self.phase = Phase::Turn;
        self.turn = first;
        let (hand, rubber, dealer) = (self.hand_number, self.rubber, self.dealer);
        let upcard = self.piles[first][0];
        log.push(|| {
            format!(
                "hand {hand} (rubber {rubber}): {} deals; {} turned up on {}'s discard pile",
                who(dealer),
                face(upcard),
                who(first)
            )
        });
    }

    /// Takes the top card of the stock into `seat`'s hand. Under version 2 the stock's last
    /// card being taken rebuilds it, once a hand.
    fn take_stock(&mut self, seat: Seat, rng: &mut GameRng, log: &mut Log) -> Option<Card> {
        let card = self.stock.pop()?;
        if self.stock.is_empty() {
            self.last_stock_taker = Some(seat);
        }
        self.hands[seat].push(card);
        if self.stock.is_empty() && self.v2() && !self.restocked {
            self.restock(rng, log);
        }
        Some(card)
    }

    /// Version 2: the discard piles, all but their top cards, are shuffled into a new stock.
    fn restock(&mut self, rng: &mut GameRng, log: &mut Log) {
        self.restocked = true;
        let mut cards = Vec::new();
        for pile in &mut self.piles {
            if let Some(top) = pile.pop() {
                cards.append(pile);
                pile.push(top);
            }
        }
        rng.shuffle(&mut cards);
        let count = cards.len();
        self.stock = cards;
        log.push(|| match count {
            0 => "the stock is out, and the discard piles hold nothing below their top cards to make a new one".to_string(),
            n => format!(
                "the stock is out: the discard piles but their top cards are shuffled into a new stock of {n}"
            ),
        });
    }

    /// Fills `seat`'s hand to eight from the stock (as far as the stock goes); how many came.
    fn replenish(&mut self, seat: Seat, rng: &mut GameRng, log: &mut Log) -> usize {
        let mut taken = 0;
        while self.hands[seat].len() < FULL_HAND && self.take_stock(seat, rng, log).is_some() {
            taken += 1;
        }
        taken
    }

    fn replenished_note(taken: usize) -> String {
        match taken {
            0 => String::new(),
            1 => ", replenishing 1 card from the stock".to_string(),
            n => format!(", replenishing {n} cards from the stock"),
        }
    }

    /// A turn's draw, from the stock or the top of one's own discard pile; a short hand is then
    /// made up to eight from the stock.
    pub fn draw(
        &mut self,
        seat: Seat,
        from_pile: bool,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let rebuilding = matches!(self.phase, Phase::Response | Phase::Rebuild);
        if from_pile {
            let Some(card) = self.piles[seat].pop() else {
                return illegal("your discard pile is empty");
            };
            self.hands[seat].push(card);
            log.push(|| format!("{} takes {} from their discard pile", who(seat), face(card)));
        } else {
            if self.stock.is_empty() {
                return illegal("the stock is empty");
            }
            log.push(|| format!("{} draws from the stock", who(seat)));
            self.take_stock(seat, rng, log);
        }
        if rebuilding {
            self.phase = Phase::Rebuild;
            self.rebuild_progress(seat);
        } else {
            let taken = self.replenish(seat, rng, log);
            if taken > 0 {
                log.push(|| {
                    format!(
                        "{} makes the hand up to eight with {taken} from the stock",
                        who(seat)
                    )
                });
            }
            self.phase = Phase::Melding;
        }
        Ok(())
    }

    /// A rebuild ends once eight cards are in hand, or nothing is left to draw.
    fn rebuild_progress(&mut self, seat: Seat) {
        let nothing_to_draw = self.stock.is_empty() && self.piles[seat].is_empty();
        if self.hands[seat].len() >= FULL_HAND || nothing_to_draw {
            self.phase = Phase::Melding;
        }
    }

    /// Lays down a city from the hand. In a normal turn the hand is then replenished from the
    /// stock; while rebuilding or whittling it is not.
    pub fn meld(
        &mut self,
        seat: Seat,
        cards: &[Card],
        jokers: &[Card],
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let mut all = cards.to_vec();
        all.extend_from_slice(jokers);
        if jokers.iter().any(|c| !c.is_joker()) {
            return illegal("only jokers go in the jokers list");
        }
        if self.v2() && all.iter().any(|c| c.is_joker()) {
            return illegal(
                "jokers are not wild in cities: a city is three or more natural cards of one rank",
            );
        }
        check_in_hand(&self.hands[seat], &all)?;
        let rank = city_rank(&all).map_err(RuleError::Illegal)?;
        remove_cards(&mut self.hands[seat], &all);
        let id = self.next_city;
        self.next_city += 1;
        self.cities.push(City {
            id,
            owner: seat,
            rank,
            cards: all.clone(),
        });
        let replenished = match self.phase {
            Phase::Melding => self.replenish(seat, rng, log),
            _ => 0,
        };
        log.push(|| {
            format!(
                "{} makes a city of {}: {}{}",
                who(seat),
                rank_plural(rank),
                faces(&all),
                State::replenished_note(replenished)
            )
        });
        self.after_hand_shrinks(seat, rng, log);
        Ok(())
    }

    /// Adds a card to a city of either player, then replenishes.
    pub fn lay_off(
        &mut self,
        seat: Seat,
        card: Card,
        city: u32,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        check_in_hand(&self.hands[seat], &[card])?;
        let Some(at) = self.cities.iter().position(|c| c.id == city) else {
            return illegal(format!("there is no city {city}"));
        };
        let rank = self.cities[at].rank;
        if self.v2() && card.is_joker() {
            return illegal(
                "a joker is not added to a city; it may be exchanged into one of your own cities",
            );
        }
        if !fits_city(card, rank) {
            return illegal(format!(
                "{} does not belong in a city of {}",
                face(card),
                rank_plural(rank)
            ));
        }
        remove_cards(&mut self.hands[seat], &[card]);
        self.cities[at].cards.push(card);
        let owner = self.cities[at].owner;
        let replenished = self.replenish(seat, rng, log);
        log.push(|| {
            format!(
                "{} adds {} to {}'s city of {}{}",
                who(seat),
                face(card),
                who(owner),
                rank_plural(rank),
                State::replenished_note(replenished)
            )
        });
        self.after_hand_shrinks(seat, rng, log);
        Ok(())
    }

    /// Exchanges a joker with a natural card in one of one's own cities: under version 2 a
    /// joker from the hand takes the place of `card` in the city and `card` comes into the
    /// hand; under version 1 `card` from the hand takes a joker's place and the joker comes in.
    pub fn exchange(
        &mut self,
        seat: Seat,
        card: Card,
        city: u32,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let Some(at) = self.cities.iter().position(|c| c.id == city) else {
            return illegal(format!("there is no city {city}"));
        };
        if self.cities[at].owner != seat {
            return illegal("you may exchange a joker only in a city of your own");
        }
        let rank = self.cities[at].rank;
        if self.v2() {
            let Some(card_at) = self.cities[at].cards.iter().position(|&c| c == card) else {
                return illegal(format!("{} is not in that city", face(card)));
            };
            if card.is_joker() {
                return illegal("name the natural card of the city that the joker replaces");
            }
            let Some(joker_at) = self.hands[seat].iter().position(|c| c.is_joker()) else {
                return illegal("exchanging takes a joker from your hand, and you hold none");
            };
            let joker = self.hands[seat].remove(joker_at);
            self.cities[at].cards[card_at] = joker;
            self.hands[seat].push(card);
            log.push(|| {
                format!(
                    "{} exchanges a joker for {} in their city of {}",
                    who(seat),
                    face(card),
                    rank_plural(rank)
                )
            });
        } else {
            check_in_hand(&self.hands[seat], &[card])?;
            if card.rank() != Some(rank) {
                return illegal(format!(
                    "only a natural card of the city's rank ({}) may take a joker's place",
                    rank_plural(rank)
                ));
            }
            let Some(joker_at) = self.cities[at].cards.iter().rposition(|c| c.is_joker()) else {
                return illegal("that city holds no joker");
            };
            remove_cards(&mut self.hands[seat], &[card]);
            let joker = std::mem::replace(&mut self.cities[at].cards[joker_at], card);
            self.hands[seat].push(joker);
            log.push(|| {
                format!(
                    "{} puts {} into their city of {} and takes its joker back",
                    who(seat),
                    face(card),
                    rank_plural(rank)
                )
            });
        }
        self.replenish(seat, rng, log);
        Ok(())
    }

    /// A hand emptied by melding with nothing left to replenish from cannot discard: the turn
    /// ends there.
    fn after_hand_shrinks(&mut self, seat: Seat, rng: &mut GameRng, log: &mut Log) {
        if matches!(self.phase, Phase::Rebuild | Phase::Response) {
            self.phase = Phase::Rebuild;
            self.rebuild_progress(seat);
        }
        match self.phase {
            Phase::Melding if self.hands[seat].is_empty() => self.end_turn(seat, rng, log),
            Phase::Whittle if self.hands[seat].len() <= 7 => self.finish_war(seat, rng, log),
            _ => {}
        }
    }

    /// Discards onto the opponent's pile: the end of a turn (a nation wins the hand), or one
    /// card of a whittling.
    pub fn discard(
        &mut self,
        seat: Seat,
        card: Card,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        check_in_hand(&self.hands[seat], &[card])?;
        remove_cards(&mut self.hands[seat], &[card]);
        let opponent = State::other(seat);
        self.piles[opponent].push(card);
        log.push(|| {
            format!(
                "{} discards {} onto {}'s pile",
                who(seat),
                face(card),
                who(opponent)
            )
        });
        if self.phase == Phase::Whittle {
            if self.hands[seat].len() <= 7 {
                self.finish_war(seat, rng, log);
            }
        } else if is_nation(&self.hands[seat]) {
            self.win_with_nation(seat, rng, log);
        } else {
            self.end_turn(seat, rng, log);
        }
        Ok(())
    }

    /// Ends `seat`'s turn: a war threat not used lapses, and the opponent's turn begins, unless
    /// the stock ran out during the turn, which ends the hand.
    fn end_turn(&mut self, seat: Seat, rng: &mut GameRng, log: &mut Log) {
        self.war_threats.retain(|&s| s != seat);
        if self.stock.is_empty() && self.v2() {
            log.push(|| "the stock is out again and nobody has made a nation".to_string());
            self.end_hand(None, HandEndKind::NoWinner, None, rng, log);
        } else if self.stock.is_empty() {
            self.stock_out(rng, log);
        } else {
            self.turn = State::other(seat);
            self.phase = Phase::Turn;
        }
    }

    /// Diplomacy: an offer of cities for cities, instead of a normal turn.
    pub fn offer(
        &mut self,
        seat: Seat,
        give: &[u32],
        take: &[u32],
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if give.is_empty() && take.is_empty() {
            return illegal("a trade names at least one city");
        }
        let opponent = State::other(seat);
        for (list, owner, whose) in [(give, seat, "yours"), (take, opponent, "your opponent's")] {
            for (i, id) in list.iter().enumerate() {
                if list[..i].contains(id) {
                    return illegal(format!("city {id} is named twice"));
                }
                match self.city(*id) {
                    Some(c) if c.owner == owner => {}
                    Some(_) => return illegal(format!("city {id} is not {whose}")),
                    None => return illegal(format!("there is no city {id}")),
                }
            }
        }
        self.offer = Some(Offer {
            from: seat,
            give: give.to_vec(),
            take: take.to_vec(),
        });
        self.phase = Phase::Answer;
        let text = self.offer_words(self.offer.as_ref().expect("just made"));
        log.push(|| format!("{} offers diplomacy: {text}", who(seat)));
        Ok(())
    }

    /// An offer in words: "{s0}'s city of 6s for {s1}'s city of Kings", "nothing for ...".
    pub fn offer_words(&self, offer: &Offer) -> String {
        let names = |ids: &[u32], owner: Seat| -> String {
            if ids.is_empty() {
                return "nothing".to_string();
            }
            let cities: Vec<String> = ids
                .iter()
                .filter_map(|id| self.city(*id))
                .map(|c| format!("city of {}", rank_plural(c.rank)))
                .collect();
            format!("{}'s {}", who(owner), cities.join(" and "))
        };
        format!(
            "{} for {}",
            names(&offer.give, offer.from),
            names(&offer.take, State::other(offer.from))
        )
    }

    /// The answer to an offer. Either way the offerer's turn is over; after a refusal the
    /// offerer may declare war on their next turn.
    pub fn answer(&mut self, seat: Seat, accept: bool, rng: &mut GameRng, log: &mut Log) {
        let offer = self.offer.take().expect("an offer awaits its answer");
        if accept {
            for city in &mut self.cities {
                if offer.give.contains(&city.id) {
                    city.owner = seat;
                } else if offer.take.contains(&city.id) {
                    city.owner = offer.from;
                }
            }
            log.push(|| format!("{} accepts the trade", who(seat)));
            self.end_turn(offer.from, rng, log);
        } else {
            log.push(|| {
                format!(
                    "{} refuses: {} may declare war on their next turn",
                    who(seat),
                    who(offer.from)
                )
            });
            self.end_turn(offer.from, rng, log);
            self.war_threats.push(offer.from);
        }
    }

    pub(super) fn win_with_nation(&mut self, seat: Seat, rng: &mut GameRng, log: &mut Log) {
        let nation = self.hands[seat].clone();
        let mut shown = nation.clone();
        shown.sort_by_key(|c| c.rank());
        log.push(|| {
            format!(
                "{} claims victory with a nation: {}",
                who(seat),
                faces(&shown)
            )
        });
        self.end_hand(Some(seat), HandEndKind::Nation, Some(nation), rng, log);
    }

    /// The stock is gone: the hand goes to the player who controls more cities, then to the
    /// longer suit sequence in hand, then to the one who did not take the last card.
    fn stock_out(&mut self, rng: &mut GameRng, log: &mut Log) {
        let standing = |s: Seat| {
            (
                self.cities_of(s).count(),
                longest_sequence(&self.hands[s]),
                self.last_stock_taker != Some(s),
            )
        };
        let winner = if standing(0) >= standing(1) { 0 } else { 1 };
        let (a, b) = (standing(0), standing(1));
        log.push(|| {
            format!(
                "the stock is out: {} has {} cities and a best sequence of {}, {} has {} and {}",
                who(0),
                a.0,
                a.1,
                who(1),
                b.0,
                b.1
            )
        });
        self.end_hand(Some(winner), HandEndKind::StockOut, None, rng, log);
    }

    /// Scores the hand for its winner, ends the rubber or the match, or deals the next hand.
    /// A hand without a winner scores nothing; three in a row end the match drawn.
    fn end_hand(
        &mut self,
        winner: Option<Seat>,
        kind: HandEndKind,
        nation: Option<Vec<Card>>,
        rng: &mut GameRng,
        log: &mut Log,
    ) {
        let cities = winner.map_or(0, |w| self.cities_of(w).count());
        let points = winner.map_or(0, |_| 3 + cities as i64);
        let hand = self.hand_number;
        let summary = match (winner, kind) {
            (Some(w), HandEndKind::Nation) => format!(
                "{} wins hand {hand} with a nation: 3 points and {cities} for cities, {points} in all",
                who(w)
            ),
            (Some(w), _) => format!(
                "{} wins hand {hand} when the stock ran out: 3 points and {cities} for cities, {points} in all",
                who(w)
            ),
            (None, _) => {
                format!("hand {hand} ends without a winner: the stock ran out twice; nobody scores")
            }
        };
        log.push(|| summary.clone());
        self.last_hand = Some(HandEnd {
            hand,
            winner,
            kind,
            nation,
            cities,
            points,
            summary,
        });
        self.offer = None;
        self.war_threats.clear();
        match winner {
            Some(winner) => {
                self.hands_without_winner = 0;
                self.scores[winner] += points;
                if self.scores[winner] >= self.options.target {
                    self.rubbers_won[winner] += 1;
                    let (rubber, score, other) = (
                        self.rubber,
                        self.scores[winner],
                        self.scores[State::other(winner)],
                    );
                    log.push(|| {
                        format!("{} wins rubber {rubber}, {score} to {other}", who(winner))
                    });
                    if self.rubbers_won[winner] >= self.options.rubbers_to_win() {
                        self.finish_match(Some(winner), log);
                        return;
                    }
                    self.rubber += 1;
                    self.scores = vec![0, 0];
                }
            }
            None => {
                self.hands_without_winner += 1;
                if self.hands_without_winner >= self.options.draw_after {
                    self.finish_match(None, log);
                    return;
                }
            }
        }
        self.dealer = State::other(self.dealer);
        self.deal(rng, log);
    }

    fn finish_match(&mut self, winner: Option<Seat>, log: &mut Log) {
        let best_of_three = self.options.rubbers > 1;
        let scores: Vec<i64> = if best_of_three {
            self.rubbers_won.iter().map(|&r| i64::from(r)).collect()
        } else {
            self.scores.clone()
        };
        let reason = match winner {
            Some(w) if best_of_three => format!(
                "{} wins the match, {} rubbers to {}",
                who(w),
                scores[w],
                scores[State::other(w)]
            ),
            Some(w) => format!(
                "{} wins the rubber, {} points to {}",
                who(w),
                scores[w],
                scores[State::other(w)]
            ),
            None => format!(
                "the match is drawn: {} in a row ended without a nation",
                crate::engine::log::count(self.options.draw_after, "hand")
            ),
        };
        log.push(|| format!("game over: {reason}"));
        self.outcome = Some(Outcome {
            winners: winner.into_iter().collect(),
            scores,
            reason,
        });
        self.phase = Phase::Over;
    }
}
