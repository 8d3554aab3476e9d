//! The map's mechanics: placing and removing cubes (one side per state), claiming State
//! cards, sending the Amendment, converting states, and the immediate victories.

use super::data::{BoxKind, MAP, OPP, Region, STATES, SUFF, St};
use super::state::{Mark, Phase, State, TakeFirst};
use crate::engine::{Log, Outcome, Seat};

/// Cubes of each colour in the supply: purple, yellow, red.
pub const SUPPLY: [u8; 3] = [65, 65, 60];
/// Checks that ratify the Amendment.
pub const CHECKS_TO_WIN: usize = 36;
/// X's that reject it.
pub const XS_TO_WIN: usize = 13;

/// A cube colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cube {
    Purple,
    Yellow,
    Red,
}

/// The side a seat is, in words.
pub fn side(seat: Seat) -> &'static str {
    if seat == SUFF {
        "Suffragist"
    } else {
        "Opposition"
    }
}

impl State {
    /// The Civil War keeps the Suffragist out of the South and Atlantic & Appalachia.
    pub fn civil_war_bars(&self, seat: Seat, st: St) -> bool {
        seat == SUFF
            && matches!(st.region(), Region::South | Region::Atlantic)
            && self.rest_of_turn.contains(&54)
    }

    /// How many placements of `seat` state `st` can take now: none once marked or barred;
    /// after the Amendment, the opposing cubes plus up to the fourth own cube (which converts
    /// it); before it, as many as wanted (99).
    pub fn room(&self, seat: Seat, st: St) -> u32 {
        let c = &self.states[st.0 as usize];
        if c.mark.is_some() || self.civil_war_bars(seat, st) {
            0
        } else if self.amendment_sent {
            u32::from(c.of(State::other(seat))) + 4 - u32::from(c.of(seat).min(4))
        } else {
            99
        }
    }

    /// Cubes of a colour left in the supply.
    pub fn supply(&self, cube: Cube) -> u8 {
        let on_map: u32 = self
            .states
            .iter()
            .map(|c| {
                u32::from(match cube {
                    Cube::Purple => c.purple,
                    Cube::Yellow => c.yellow,
                    Cube::Red => c.red,
                })
            })
            .sum();
        SUPPLY[cube as usize].saturating_sub(on_map.min(255) as u8)
    }

    /// One placement of `seat` into `st`: removes an opposing cube if there is one (for the
    /// Opposition, the colour its command named where both are there, else the more numerous,
    /// purple on a tie), else adds one of `cube` (the other Suffragist colour when that supply
    /// is out; nothing when none is left), then claims the State card and converts the state
    /// as due.
    pub fn place_cube(&mut self, seat: Seat, st: St, cube: Cube, log: &mut Log) {
        if self.outcome.is_some() || self.room(seat, st) == 0 {
            return;
        }
        let i = st.0 as usize;
        let c = &mut self.states[i];
        if seat == SUFF && c.red > 0 {
            c.red -= 1;
            return;
        }
        if seat == OPP && c.purple + c.yellow > 0 {
            let purple = match self.red_takes {
                _ if c.yellow == 0 => true,
                _ if c.purple == 0 => false,
                Some(TakeFirst::Purple) => true,
                Some(TakeFirst::Yellow) => false,
                None => c.purple >= c.yellow,
            };
            if purple {
                c.purple -= 1;
            } else {
                c.yellow -= 1;
            }
            return;
        }
        let cube = if seat == OPP { Cube::Red } else { cube };
        let (cube, left) = match self.supply(cube) {
            0 if seat == SUFF => {
                let other = if cube == Cube::Purple {
                    Cube::Yellow
                } else {
                    Cube::Purple
                };
                (other, self.supply(other))
            }
            left => (cube, left),
        };
        if left == 0 {
            return;
        }
        let c = &mut self.states[i];
        match cube {
            Cube::Purple => c.purple += 1,
            Cube::Yellow => c.yellow += 1,
            Cube::Red => c.red += 1,
        }
        let own = c.of(seat);
        if own == 4
            && let Some(card) = MAP[i].card
            && let Some(at) = self.state_cards.iter().position(|&x| x == card)
        {
            self.state_cards.remove(at);
            self.claimed[seat].push(card);
            log.push(|| {
                format!(
                    "{} claims the {} State card",
                    crate::engine::log::who(seat),
                    st.name()
                )
            });
        }
        if self.amendment_sent && own >= 4 {
            self.convert(st, seat, log);
        }
    }

    /// Removes one cube of the given colour from `st`, if there is one.
    pub fn remove_cube(&mut self, st: St, cube: Cube) -> bool {
        let c = &mut self.states[st.0 as usize];
        let n = match cube {
            Cube::Purple => &mut c.purple,
            Cube::Yellow => &mut c.yellow,
            Cube::Red => &mut c.red,
        };
        if *n > 0 {
            *n -= 1;
            true
        } else {
            false
        }
    }

    /// Replaces `seat`'s cubes in `st` by its mark, and checks for victory.
    pub fn convert(&mut self, st: St, seat: Seat, log: &mut Log) {
        let c = &mut self.states[st.0 as usize];
        *c = super::state::Cubes {
            mark: Some(if seat == SUFF { Mark::Check } else { Mark::X }),
            ..Default::default()
        };
        log.push(|| {
            format!(
                "{} {}",
                st.name(),
                if seat == SUFF {
                    "ratifies the Amendment"
                } else {
                    "rejects the Amendment"
                }
            )
        });
        self.check_victory();
    }

    /// Ends the game at the 36th check or the 13th X.
    pub fn check_victory(&mut self) {
        if self.outcome.is_some() {
            return;
        }
        let (checks, xs) = (self.checks(), self.xs());
        if checks >= CHECKS_TO_WIN {
            self.finish(SUFF, "36 states ratify the Nineteenth Amendment");
        } else if xs >= XS_TO_WIN {
            self.finish(OPP, "13 states reject the Nineteenth Amendment");
        }
    }

    /// Ends the game with `winner`.
    pub fn finish(&mut self, winner: Seat, reason: &str) {
        self.outcome = Some(Outcome {
            winners: vec![winner],
            scores: vec![self.checks() as i64, self.xs() as i64],
            reason: reason.to_string(),
        });
        self.phase = Phase::Over;
        self.end_effects();
        self.vote = None;
    }

    /// Adds (Suffragist side) or removes Congressional markers; the sixth sends the
    /// Amendment to the states.
    pub fn move_congress(&mut self, add: bool, count: u8, log: &mut Log) {
        if self.amendment_sent || count == 0 {
            return;
        }
        if add {
            self.congress = (self.congress + count).min(6);
        } else {
            self.congress = self.congress.saturating_sub(count);
        }
        let now = self.congress;
        log.push(|| format!("Congress stands at {now} of 6 markers"));
        if self.congress == 6 {
            self.send_amendment(log);
        }
    }

    /// Congress passes the Amendment: markers off, every state with four or more cubes of a
    /// side converts.
    pub fn send_amendment(&mut self, log: &mut Log) {
        self.amendment_sent = true;
        self.congress = 0;
        log.push(|| "Congress passes the Nineteenth Amendment and sends it to the states".into());
        for i in 0..STATES {
            let c = self.states[i];
            if c.mark.is_none() {
                if c.purple + c.yellow >= 4 {
                    self.convert(St(i as u8), SUFF, log);
                } else if c.red >= 4 {
                    self.convert(St(i as u8), OPP, log);
                }
            }
            if self.outcome.is_some() {
                return;
            }
        }
    }

    /// Gives buttons, up to the cap.
    pub fn gain_buttons(&mut self, seat: Seat, n: u8) {
        self.buttons[seat] = (self.buttons[seat] + n).min(State::button_cap(seat));
    }

    /// A card leaves play for its owner's discard pile (claimed cards: out of the game).
    pub fn discard_card(&mut self, card: u8) {
        match super::data::card(card).deck {
            super::data::Deck::Suffragist => self.discards[SUFF].push(card),
            super::data::Deck::Opposition => self.discards[OPP].push(card),
            _ => self.spent.push(card),
        }
    }

    /// Empties a box into the discard piles.
    pub fn clear_box(&mut self, kind: BoxKind) {
        for card in std::mem::take(self.boxed_mut(kind)) {
            self.discard_card(card);
        }
    }

    /// Draws up to `n` cards from `seat`'s draw deck into the hand.
    pub fn draw(&mut self, seat: Seat, n: usize) {
        for _ in 0..n {
            if let Some(card) = self.decks[seat].pop() {
                self.hands[seat].push(card);
            }
        }
    }
}
