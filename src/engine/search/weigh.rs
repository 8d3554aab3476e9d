//! Weighing a move that was made against the search's own (a game's review, docs/BOTS.md
//! "Review"): one search from the position, with the move made among its candidates, gives
//! both the search's best move with its estimate and the estimate of the move made.

use super::{BotError, Decision, Pick, run};
use crate::engine::determinize::{Determinize, Table};
use crate::engine::{Seat, Seed};
use serde_json::Value;

/// A move weighed: the search's decision and the mean reward of the move made.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighing {
    /// What the search would play, with its estimate (the seat's chance before the move, with
    /// the search's best play).
    pub decision: Decision,
    /// The move made's mean reward over its playouts (the seat's chance after it); `None`
    /// when no playout ran (the move was the only one).
    pub played: Option<f64>,
}

/// Weighs `played`, `seat`'s move from its `view`, with `budget` playouts on samples of what
/// the seat could not see, every random draw from `seed`: exactly the seat's information.
pub fn weigh<R: Determinize>(
    view: &R::View,
    seat: Seat,
    table: &Table<R::Options>,
    budget: u32,
    played: &Value,
    seed: &Seed,
) -> Result<Weighing, BotError> {
    let draw = |rng: &mut crate::engine::GameRng| R::sample(view, seat, table, rng);
    let (decision, played) = run::<R>(
        draw,
        seat,
        table.seats,
        budget,
        Pick::Best,
        seed,
        Some(played),
    )?;
    Ok(Weighing { decision, played })
}

/// Weighs `played` with everything known: every playout starts from `state` itself (every
/// card where it was); only the chance still to come is drawn from `seed`.
pub fn weigh_open<R: Determinize>(
    state: &R::State,
    seat: Seat,
    seats: usize,
    budget: u32,
    played: &Value,
    seed: &Seed,
) -> Result<Weighing, BotError> {
    let draw = |_: &mut crate::engine::GameRng| Ok(state.clone());
    let (decision, played) = run::<R>(draw, seat, seats, budget, Pick::Best, seed, Some(played))?;
    Ok(Weighing { decision, played })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bot::{bot_rng, random_command};
    use crate::engine::{DynMatch, Log, Match, Rules, Viewer};
    use crate::games::electoral_combat::{ElectoralCombat, Options};

    #[test]
    fn the_move_made_is_weighed_beside_the_best() {
        let mut game = Match::<ElectoralCombat>::new(Options::default(), 2, Seed::from_number(7))
            .expect("a game for two");
        let mut rng = bot_rng(&Seed::from_number(1));
        for _ in 0..3 {
            let seat = game.active()[0];
            let command = random_command(&game, seat, &mut rng).expect("a move");
            game.apply_json(seat, &command, &mut Log::silent())
                .expect("a legal move");
        }
        let seat = game.active()[0];
        let played = random_command(&game, seat, &mut rng).expect("a move");
        let view = ElectoralCombat::view(&game.state, Viewer::Seat(seat));
        let table = Table {
            options: game.options.clone(),
            seats: 2,
            rules_version: game.rules_version,
        };
        let seed = Seed::from_number(5);
        let a = weigh::<ElectoralCombat>(&view, seat, &table, 40, &played, &seed).unwrap();
        let b = weigh::<ElectoralCombat>(&view, seat, &table, 40, &played, &seed).unwrap();
        assert_eq!(a, b, "the same arguments weigh the same");
        let (best, after) = (a.decision.estimate.unwrap(), a.played.unwrap());
        assert!((0.0..=1.0).contains(&best) && (0.0..=1.0).contains(&after));
        if a.decision.command == played {
            assert_eq!(best, after, "the move made was the search's own");
        }
        let open = weigh_open::<ElectoralCombat>(&game.state, seat, 2, 40, &played, &seed).unwrap();
        assert!(open.played.is_some() && open.decision.playouts == 40);
    }
}
