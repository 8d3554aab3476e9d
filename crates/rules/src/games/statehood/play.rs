//! The moves of Statehood: turns, declarations, challenges, the end of a hand, the deal.

use super::state::{
    Declaration, DeclarationKind, HandEnd, Phase, PrAnswer, PrDeclaration, State, WonCard,
};
use super::{dc, puerto_rico};
use crate::cards::{Card, Color, highest_by_rank_ev};
use crate::engine::log::who;
use crate::engine::{GameRng, Log, Outcome, RuleError, Seat};

fn labels(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.label())
        .collect::<Vec<_>>()
        .join(", ")
}

fn total(cards: &[Card]) -> u32 {
    cards.iter().map(|c| c.ev()).sum()
}

/// Each seat draws a card from the 52 suited cards (seat 0 first); the highest by rank, then
/// electoral votes, then first drawn, deals first.
pub fn draw_for_dealer(seats: usize, rng: &mut GameRng) -> Seat {
    let mut deck = Card::standard_52();
    rng.shuffle(&mut deck);
    highest_by_rank_ev(&deck[..seats]).expect("cards drawn")
}

/// Deals a hand: seven each, the top of the stock turned up. A Puerto Rico upcard ends the hand
/// at once and the deal passes to the left, as often as it happens.
pub fn deal(state: &mut State, rng: &mut GameRng, log: &mut Log) {
    loop {
        state.hand_number += 1;
        let mut deck = Card::standard_52();
        deck.extend(Card::territories());
        rng.shuffle(&mut deck);
        for seat in 0..state.seats {
            state.hands[seat] = deck.split_off(deck.len() - 7);
        }
        let upcard = deck.pop().expect("enough cards");
        state.stock = deck;
        state.discard = vec![upcard];
        state.won = vec![Vec::new(); state.seats];
        state.drawn = None;
        state.declaration = None;
        state.puerto_rico = None;
        let (dealer, hand) = (state.dealer, state.hand_number);
        log.push(|| {
            format!(
                "{} deals hand {hand}; {} is turned up",
                who(dealer),
                upcard.label()
            )
        });
        if upcard == puerto_rico() {
            log.push(|| {
                "Puerto Rico is turned up: the hand ends at once and the deal passes left"
                    .to_string()
            });
            state.dealer = state.left(state.dealer);
            continue;
        }
        state.phase = Phase::Turn;
        state.turn = state.left(state.dealer);
        return;
    }
}

/// After a turn or a draw-back: the next player's turn, unless the stock is gone, when the
/// holder of Puerto Rico must declare it.
fn next_turn(state: &mut State, next: Seat, log: &mut Log) {
    if state.stock.is_empty() {
        let holder = state
            .puerto_rico_holder()
            .expect("Puerto Rico is in a hand once the stock is gone");
        state.phase = Phase::ForcedPuertoRico;
        state.turn = holder;
        log.push(|| {
            format!(
                "the stock is gone: {} must declare Puerto Rico",
                who(holder)
            )
        });
    } else {
        state.phase = Phase::Turn;
        state.turn = next;
    }
}

fn require_in_hand(state: &State, seat: Seat, cards: &[Card]) -> Result<(), RuleError> {
    for (i, card) in cards.iter().enumerate() {
        if cards[..i].contains(card) {
            return Err(RuleError::illegal(format!(
                "{} is chosen twice",
                card.label()
            )));
        }
        if !state.hands[seat].contains(card) {
            return Err(RuleError::illegal(format!(
                "you do not hold {}",
                card.label()
            )));
        }
    }
    Ok(())
}

/// Discards `card` from `seat`'s hand; Puerto Rico forfeits the hand.
fn discard_card(state: &mut State, seat: Seat, card: Card, rng: &mut GameRng, log: &mut Log) {
    state.hands[seat].retain(|c| *c != card);
    state.discard.push(card);
    log.push(|| format!("{} discards {}", who(seat), card.label()));
    if card == puerto_rico() {
        let forfeited = if state.v2() {
            state.set_points(seat)
        } else {
            0
        };
        let points = (0..state.seats)
            .map(|s| if s == seat { -forfeited } else { 6 })
            .collect();
        let summary = if forfeited > 0 {
            let won = if state.rules_version >= 3 {
                crate::engine::log::count(forfeited, "point")
            } else {
                format!("{forfeited} points")
            };
            format!(
                "{} discarded Puerto Rico and forfeits the hand, with the {won} won in it: everyone else scores 6",
                who(seat)
            )
        } else {
            format!(
                "{} discarded Puerto Rico and forfeits the hand: everyone else scores 6",
                who(seat)
            )
        };
        end_hand(state, summary, points, None, rng, log);
    } else {
        next_turn(state, state.left(seat), log);
    }
}

impl State {
    pub(super) fn take_discard(
        &mut self,
        seat: Seat,
        discard: Card,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let top = *self
            .discard
            .last()
            .ok_or_else(|| RuleError::illegal("the discard pile is empty"))?;
        if discard == top {
            return Err(RuleError::illegal(
                "discard a card from your hand, not the one you take",
            ));
        }
        require_in_hand(self, seat, &[discard])?;
        self.discard.pop();
        self.hands[seat].push(top);
        log.push(|| format!("{} takes {} from the discard pile", who(seat), top.label()));
        discard_card(self, seat, discard, rng, log);
        Ok(())
    }

    pub(super) fn draw(&mut self, seat: Seat, log: &mut Log) -> Result<(), RuleError> {
        let card = self
            .stock
            .pop()
            .ok_or_else(|| RuleError::illegal("the stock is empty"))?;
        self.drawn = Some(card);
        self.phase = Phase::Drawn;
        log.push(|| format!("{} draws from the stock", who(seat)));
        Ok(())
    }

    pub(super) fn discard_after_draw(
        &mut self,
        seat: Seat,
        card: Card,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let drawn = self.drawn.expect("a card was drawn");
        if card != drawn {
            require_in_hand(self, seat, &[card])?;
        }
        self.drawn = None;
        self.hands[seat].push(drawn);
        discard_card(self, seat, card, rng, log);
        Ok(())
    }

    pub(super) fn declare_wild(
        &mut self,
        seat: Seat,
        wildcard: Card,
        defence: Card,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if !wildcard.is_territory() {
            return Err(RuleError::illegal(format!(
                "{} is not a territory wildcard",
                wildcard.label()
            )));
        }
        if defence == puerto_rico() {
            return Err(RuleError::illegal(
                "Puerto Rico cannot defend a declaration",
            ));
        }
        if defence == wildcard {
            return Err(RuleError::illegal("a wildcard cannot defend itself"));
        }
        require_in_hand(self, seat, &[wildcard, defence])?;
        self.open_declaration(
            seat,
            wildcard,
            DeclarationKind::Wildcard,
            vec![defence],
            log,
        );
        Ok(())
    }

    pub(super) fn declare_dc(
        &mut self,
        seat: Seat,
        defence: &[Card],
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if defence.is_empty() || defence.len() > 3 {
            return Err(RuleError::illegal(
                "DC is defended by one to three blue cards",
            ));
        }
        if let Some(bad) = defence
            .iter()
            .find(|c| c.color() != Some(Color::Blue) || **c == dc())
        {
            return Err(RuleError::illegal(format!(
                "{} cannot defend DC: defend with blue cards (spades, clubs)",
                bad.label()
            )));
        }
        let mut all = vec![dc()];
        all.extend_from_slice(defence);
        require_in_hand(self, seat, &all)?;
        self.open_declaration(seat, dc(), DeclarationKind::Dc, defence.to_vec(), log);
        Ok(())
    }

    fn open_declaration(
        &mut self,
        seat: Seat,
        card: Card,
        kind: DeclarationKind,
        defence: Vec<Card>,
        log: &mut Log,
    ) {
        self.hands[seat].retain(|c| *c != card && !defence.contains(c));
        let declaration = Declaration {
            declarer: seat,
            card,
            kind,
            defence,
            challenges: Vec::new(),
            passes: Vec::new(),
        };
        log.push(|| {
            format!(
                "{} declares statehood for {}, defended by {} ({} electoral votes)",
                who(seat),
                card.label(),
                labels(&declaration.defence),
                declaration.defence_total()
            )
        });
        self.declaration = Some(declaration);
        self.phase = Phase::Challenges;
        self.turn = self.left(seat);
    }

    pub(super) fn challenge(
        &mut self,
        seat: Seat,
        cards: &[Card],
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let declaration = self.declaration.as_ref().expect("a declaration is pending");
        let (high, _) = declaration.high();
        match declaration.kind {
            DeclarationKind::Wildcard if cards.len() != 1 => {
                return Err(RuleError::illegal(
                    "a wildcard is challenged with exactly one card",
                ));
            }
            DeclarationKind::Dc if cards.is_empty() || cards.len() > 3 => {
                return Err(RuleError::illegal(
                    "DC is challenged with one to three red cards",
                ));
            }
            _ => {}
        }
        if cards.contains(&puerto_rico()) {
            return Err(RuleError::illegal(
                "Puerto Rico cannot be used to challenge",
            ));
        }
        if declaration.kind == DeclarationKind::Dc
            && let Some(bad) = cards.iter().find(|c| c.color() != Some(Color::Red))
        {
            return Err(RuleError::illegal(format!(
                "{} cannot challenge DC: challenge with red cards (hearts, diamonds)",
                bad.label()
            )));
        }
        require_in_hand(self, seat, cards)?;
        let sum = total(cards);
        if sum <= high {
            return Err(RuleError::illegal(format!(
                "a challenge must beat {high} electoral votes; yours has {sum}"
            )));
        }
        self.hands[seat].retain(|c| !cards.contains(c));
        log.push(|| {
            format!(
                "{} challenges with {} ({sum} electoral votes)",
                who(seat),
                labels(cards)
            )
        });
        self.declaration
            .as_mut()
            .expect("pending")
            .challenges
            .push((seat, cards.to_vec()));
        self.after_answer(seat, log);
        Ok(())
    }

    pub(super) fn pass_challenge(&mut self, seat: Seat, log: &mut Log) {
        log.push(|| format!("{} passes", who(seat)));
        self.declaration
            .as_mut()
            .expect("pending")
            .passes
            .push(seat);
        self.after_answer(seat, log);
    }

    fn after_answer(&mut self, seat: Seat, log: &mut Log) {
        let declaration = self.declaration.as_ref().expect("pending");
        let next = self.left(seat);
        if next != declaration.declarer {
            self.turn = next;
            return;
        }
        let declaration = self.declaration.take().expect("pending");
        let (high, winner) = declaration.high();
        let points = match declaration.kind {
            DeclarationKind::Wildcard => 1,
            DeclarationKind::Dc => 3,
        };
        let mut beneath = declaration.defence.clone();
        for (_, cards) in &declaration.challenges {
            beneath.extend_from_slice(cards);
        }
        self.won[winner].push(WonCard {
            card: declaration.card,
            beneath,
        });
        self.scores[winner] += points;
        log.push(|| {
            format!(
                "{} wins {} with {high} electoral votes: {points} point{}",
                who(winner),
                declaration.card.label(),
                if points == 1 { "" } else { "s" }
            )
        });
        // Challengers draw back to seven in turn order, the declarer last.
        let mut drawers: Vec<Seat> = declaration.challenges.iter().map(|(s, _)| *s).collect();
        drawers.push(declaration.declarer);
        for drawer in drawers {
            while self.hands[drawer].len() < 7 {
                match self.stock.pop() {
                    Some(card) => self.hands[drawer].push(card),
                    None => break,
                }
            }
        }
        let declarer = declaration.declarer;
        log.push(|| {
            format!(
                "hands are drawn back to seven; {} left in the stock",
                crate::engine::log::count(self.stock.len() as i64, "card")
            )
        });
        next_turn(self, self.left(declarer), log);
    }

    pub(super) fn declare_puerto_rico(
        &mut self,
        seat: Seat,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if !self.hands[seat].contains(&puerto_rico()) {
            return Err(RuleError::illegal("you do not hold Puerto Rico"));
        }
        let shown = self.hands[seat].clone();
        let mut answers = vec![None; self.seats];
        answers[seat] = Some(PrAnswer::Pass);
        let declaration = PrDeclaration {
            declarer: seat,
            shown,
            answers,
        };
        let defence = declaration.defence();
        log.push(|| {
            format!(
                "{} declares statehood for Puerto Rico, showing {} ({defence} electoral votes)",
                who(seat),
                labels(&declaration.shown)
            )
        });
        self.puerto_rico = Some(declaration);
        self.phase = Phase::PuertoRicoChallenges;
        Ok(())
    }

    /// The seats still to answer a Puerto Rico declaration.
    pub fn pr_pending(&self) -> Vec<Seat> {
        self.puerto_rico
            .as_ref()
            .map(|p| {
                (0..self.seats)
                    .filter(|&s| p.answers[s].is_none())
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(super) fn answer_puerto_rico(
        &mut self,
        seat: Seat,
        answer: PrAnswer,
        rng: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        if let PrAnswer::Cards(cards) = &answer {
            if cards.len() != 6 {
                return Err(RuleError::illegal(
                    "Puerto Rico is challenged with exactly six cards",
                ));
            }
            if cards.contains(&puerto_rico()) {
                return Err(RuleError::illegal(
                    "Puerto Rico cannot be used to challenge",
                ));
            }
            require_in_hand(self, seat, cards)?;
        }
        self.puerto_rico.as_mut().expect("pending").answers[seat] = Some(answer);
        log.push(|| format!("{} has answered Puerto Rico (sealed)", who(seat)));
        if self.pr_pending().is_empty() {
            self.settle_puerto_rico(rng, log);
        }
        Ok(())
    }

    fn settle_puerto_rico(&mut self, rng: &mut GameRng, log: &mut Log) {
        let declaration = self.puerto_rico.clone().expect("pending");
        let defence = declaration.defence();
        let declarer = declaration.declarer;
        let challenges = declaration.challenges();
        log.push(|| {
            if challenges.is_empty() {
                "nobody challenges Puerto Rico".to_string()
            } else {
                let revealed: Vec<String> = challenges
                    .iter()
                    .map(|(seat, cards)| {
                        format!("{} {} ({})", who(*seat), total(cards), labels(cards))
                    })
                    .collect();
                format!("Puerto Rico challenges revealed: {}", revealed.join("; "))
            }
        });
        let mut points = vec![0i64; self.seats];
        let summary = match declaration.winner() {
            Some((seat, sum)) => {
                points[seat] = 6;
                format!(
                    "{} wins Puerto Rico with {sum} electoral votes against {defence}: 6 points",
                    who(seat)
                )
            }
            None => {
                // Every challenge failed: the wildcards and DC held by the unsuccessful
                // challengers (their whole hands, the six committed included) add to the 6.
                let bonus: i64 = challenges
                    .iter()
                    .flat_map(|&(s, _)| self.hands[s].iter())
                    .map(|c| {
                        if c.is_territory() {
                            1
                        } else if *c == dc() {
                            3
                        } else {
                            0
                        }
                    })
                    .sum();
                points[declarer] = 6 + bonus;
                format!(
                    "{} keeps Puerto Rico with {defence} electoral votes: 6 points plus {bonus} for wildcards and DC in the unsuccessful challengers' hands",
                    who(declarer)
                )
            }
        };
        end_hand(self, summary, points, Some(declaration), rng, log);
    }
}

/// Scores the hand's last points, ends the game or deals the next hand.
fn end_hand(
    state: &mut State,
    summary: String,
    points: Vec<i64>,
    puerto_rico: Option<PrDeclaration>,
    rng: &mut GameRng,
    log: &mut Log,
) {
    for (score, p) in state.scores.iter_mut().zip(&points) {
        *score += p;
    }
    log.push(|| format!("hand {} ends: {summary}", state.hand_number));
    let points = if state.v2() {
        (0..state.seats)
            .map(|s| points[s] + state.set_points(s))
            .collect()
    } else {
        points
    };
    state.last_hand = Some(HandEnd {
        hand: state.hand_number,
        summary,
        points,
        puerto_rico,
    });
    let top = *state.scores.iter().max().expect("seats");
    let leaders: Vec<Seat> = (0..state.seats)
        .filter(|&s| state.scores[s] == top)
        .collect();
    if top >= state.options.target && leaders.len() == 1 {
        let winner = leaders[0];
        log.push(|| format!("game over: {} wins with {top} points", who(winner)));
        state.outcome = Some(Outcome {
            winners: vec![winner],
            scores: state.scores.clone(),
            reason: format!("{} reaches {top} points, alone in the lead", who(winner)),
        });
        state.phase = Phase::Over;
        state.puerto_rico = None;
        return;
    }
    if top >= state.options.target {
        log.push(|| format!("the lead is tied at {top}: play goes on"));
    }
    state.dealer = state.left(state.dealer);
    deal(state, rng, log);
}
