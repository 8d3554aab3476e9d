//! War: declared with a joker after refused diplomacy, answered by retaliation or a rebuild.

use super::melds::{faces, is_nation, run_cards};
use super::play::illegal;
use super::state::{City, Phase, State};
use crate::cards::Card;
use crate::engine::log::who;
use crate::engine::{GameRng, Log, RuleError, Seat};

impl State {
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
        let has_meld =
            !kept_runs.is_empty() || (!self.v2() && self.cities_of(defender).next().is_some());
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
    pub(super) fn finish_war(&mut self, declarer: Seat, rng: &mut GameRng, log: &mut Log) {
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
}
