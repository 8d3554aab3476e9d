//! Playing the commands: every method checks the whole move before it changes anything, so a
//! refused command leaves the state as it was.

use super::melds::{
    city_rank, face, faces, fits_city, is_nation, longest_sequence, rank_plural, run_cards,
};
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

fn illegal<T>(reason: impl Into<String>) -> Result<T, RuleError> {
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

    fn take_stock(&mut self, seat: Seat) -> Option<Card> {
        let card = self.stock.pop()?;
        if self.stock.is_empty() {
            self.last_stock_taker = Some(seat);
        }
        self.hands[seat].push(card);
        Some(card)
    }

    /// Fills `seat`'s hand to eight from the stock (as far as the stock goes); how many came.
    fn replenish(&mut self, seat: Seat) -> usize {
        let mut taken = 0;
        while self.hands[seat].len() < FULL_HAND && self.take_stock(seat).is_some() {
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
    pub fn draw(&mut self, seat: Seat, from_pile: bool, log: &mut Log) -> Result<(), RuleError> {
        let rebuilding = matches!(self.phase, Phase::Response | Phase::Rebuild);
        if from_pile {
            let Some(card) = self.piles[seat].pop() else {
                return illegal("your discard pile is empty");
            };
            self.hands[seat].push(card);
            log.push(|| format!("{} takes {} from their discard pile", who(seat), face(card)));
        } else {
            if self.take_stock(seat).is_none() {
                return illegal("the stock is empty");
            }
            log.push(|| format!("{} draws from the stock", who(seat)));
        }
        if rebuilding {
            self.phase = Phase::Rebuild;
            self.rebuild_progress(seat);
        } else {
            let taken = self.replenish(seat);
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
            Phase::Melding => self.replenish(seat),
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
        let replenished = self.replenish(seat);
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

    /// Puts a natural card into one's own city in place of a joker there; the joker comes into
    /// the hand.
    pub fn exchange(
        &mut self,
        seat: Seat,
        card: Card,
        city: u32,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        check_in_hand(&self.hands[seat], &[card])?;
        let Some(at) = self.cities.iter().position(|c| c.id == city) else {
            return illegal(format!("there is no city {city}"));
        };
        let target = &self.cities[at];
        if target.owner != seat {
            return illegal("you may exchange a joker only in a city of your own");
        }
        if card.rank() != Some(target.rank) {
            return illegal(format!(
                "only a natural card of the city's rank ({}) may take a joker's place",
                rank_plural(target.rank)
            ));
        }
        let Some(joker_at) = target.cards.iter().rposition(|c| c.is_joker()) else {
            return illegal("that city holds no joker");
        };
        let rank = target.rank;
        remove_cards(&mut self.hands[seat], &[card]);
        let joker = std::mem::replace(&mut self.cities[at].cards[joker_at], card);
        self.hands[seat].push(joker);
        self.replenish(seat);
        log.push(|| {
            format!(
                "{} puts {} into their city of {} and takes its joker back",
                who(seat),
                face(card),
                rank_plural(rank)
            )
        });
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
        if self.stock.is_empty() {
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

    /// Declares war right after refused diplomacy: a joker from the hand goes face up on one's
    /// own discard pile.
    pub fn declare_war(
        &mut self,
        seat: Seat,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if !self.may_declare_war(seat) {
            return illegal("war may be declared only on the turn after your diplomacy is refused");
        }
        let Some(at) = self.hands[seat].iter().position(|c| c.is_joker()) else {
            return illegal("declaring war takes a joker, and you hold none");
        };
        let joker = self.hands[seat].remove(at);
        self.piles[seat].push(joker);
        log.push(|| {
            format!(
                "{} declares war, laying a joker on their discard pile",
                who(seat)
            )
        });
        self.wage_war(seat, rng, log);
        Ok(())
    }

    /// Retaliates with the joker on top of one's own discard pile.
    pub fn retaliate(
        &mut self,
        seat: Seat,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if !self.piles[seat].last().is_some_and(|c| c.is_joker()) {
            return illegal("retaliation takes the joker on top of your discard pile");
        }
        log.push(|| {
            format!(
                "{} retaliates with the joker on their discard pile",
                who(seat)
            )
        });
        self.wage_war(seat, rng, log);
        Ok(())
    }

    /// The defender hands over cities and unmelded cards; the declarer whittles down to seven.
    fn wage_war(&mut self, declarer: Seat, rng: &mut GameRng, log: &mut Log) {
        let defender = State::other(declarer);
        let kept_runs = run_cards(&self.hands[defender]);
        let has_meld = !kept_runs.is_empty() || self.cities_of(defender).next().is_some();
        let (kept, given): (Vec<Card>, Vec<Card>) = self.hands[defender]
            .iter()
            .partition(|c| kept_runs.contains(c) || (c.is_joker() && has_meld));
        let (lost, cities): (Vec<City>, Vec<City>) = std::mem::take(&mut self.cities)
            .into_iter()
            .partition(|c| c.owner == defender);
        self.cities = cities;
        let city_words: Vec<String> = lost.iter().map(|c| faces(&c.cards)).collect();
        self.hands[defender] = kept;
        let hand_count = given.len();
        self.hands[declarer].extend(given);
        for city in lost {
            self.hands[declarer].extend(city.cards);
        }
        let kept_count = self.hands[defender].len();
        log.push(|| {
            let cities = if city_words.is_empty() {
                "no cities".to_string()
            } else {
                format!("cities {}", city_words.join("; "))
            };
            format!(
                "{} hands over {cities} and {hand_count} unmelded cards from hand, keeping {kept_count}",
                who(defender)
            )
        });
        self.turn = declarer;
        self.phase = Phase::Whittle;
        if self.hands[declarer].len() <= 7 {
            self.finish_war(declarer, rng, log);
        }
    }

    /// The whittling is done: the declarer's joker goes on top of the defender's pile; seven
    /// in suit sequence win the hand, else the defender responds.
    fn finish_war(&mut self, declarer: Seat, rng: &mut GameRng, log: &mut Log) {
        let defender = State::other(declarer);
        self.war_threats.retain(|&s| s != declarer);
        let joker = self.piles[declarer]
            .pop()
            .expect("the war joker lies on the declarer's pile");
        self.piles[defender].push(joker);
        log.push(|| {
            format!(
                "{} lays the joker on top of {}'s discard pile",
                who(declarer),
                who(defender)
            )
        });
        if is_nation(&self.hands[declarer]) {
            self.win_with_nation(declarer, rng, log);
        } else {
            self.turn = defender;
            self.phase = Phase::Response;
        }
    }

    fn win_with_nation(&mut self, seat: Seat, rng: &mut GameRng, log: &mut Log) {
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
        self.end_hand(seat, HandEndKind::Nation, Some(nation), rng, log);
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
        self.end_hand(winner, HandEndKind::StockOut, None, rng, log);
    }

    /// Scores the hand for its winner, ends the rubber or the match, or deals the next hand.
    fn end_hand(
        &mut self,
        winner: Seat,
        kind: HandEndKind,
        nation: Option<Vec<Card>>,
        rng: &mut GameRng,
        log: &mut Log,
    ) {
        let cities = self.cities_of(winner).count();
        let points = 3 + cities as i64;
        self.scores[winner] += points;
        let how = match kind {
            HandEndKind::Nation => "with a nation",
            HandEndKind::StockOut => "when the stock ran out",
        };
        let summary = format!(
            "{} wins hand {} {how}: 3 points and {cities} for cities, {points} in all",
            who(winner),
            self.hand_number
        );
        log.push(|| summary.clone());
        self.last_hand = Some(HandEnd {
            hand: self.hand_number,
            winner,
            kind,
            nation,
            cities,
            points,
            summary,
        });
        self.offer = None;
        self.war_threats.clear();
        if self.scores[winner] >= self.options.target {
            self.rubbers_won[winner] += 1;
            let (rubber, score, other) = (
                self.rubber,
                self.scores[winner],
                self.scores[State::other(winner)],
            );
            log.push(|| format!("{} wins rubber {rubber}, {score} to {other}", who(winner)));
            if self.rubbers_won[winner] >= self.options.rubbers_to_win() {
                self.finish_match(winner, log);
                return;
            }
            self.rubber += 1;
            self.scores = vec![0, 0];
        }
        self.dealer = State::other(self.dealer);
        self.deal(rng, log);
    }

    fn finish_match(&mut self, winner: Seat, log: &mut Log) {
        let best_of_three = self.options.rubbers > 1;
        let (scores, reason) = if best_of_three {
            let won = &self.rubbers_won;
            (
                won.iter().map(|&r| i64::from(r)).collect(),
                format!(
                    "{} wins the match, {} rubbers to {}",
                    who(winner),
                    won[winner],
                    won[State::other(winner)]
                ),
            )
        } else {
            (
                self.scores.clone(),
                format!(
                    "{} wins the rubber, {} points to {}",
                    who(winner),
                    self.scores[winner],
                    self.scores[State::other(winner)]
                ),
            )
        };
        log.push(|| format!("game over: {reason}"));
        self.outcome = Some(Outcome {
            winners: vec![winner],
            scores,
            reason,
        });
        self.phase = Phase::Over;
    }
}
