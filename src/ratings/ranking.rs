//! How a finished game of each kind ranks its sides: the one place that knows, per game, who
//! played together and what decides the order. Every kind hosted is named here; a kind that
//! is not is left unrated rather than guessed at.

use crate::engine::{DynMatch, Outcome, Seat};
use crate::store::GameResult;

/// A side of a finished game: one seat, or partners who win or lose together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// Its seats, in seat order.
    pub seats: Vec<Seat>,
    /// Its place, from 1; sides that tie share a place and the next place is skipped
    /// (1, 2, 2, 4).
    pub place: usize,
}

/// The sides of a finished game, each with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranking {
    /// Every side, ordered by its lowest seat.
    pub sides: Vec<Side>,
}

impl Ranking {
    /// What `side`'s place counts as.
    pub fn result(&self, side: &Side) -> GameResult {
        if self.sides.iter().all(|s| s.place == 1) {
            GameResult::Draw
        } else if side.place == 1 {
            GameResult::Win
        } else {
            GameResult::Loss
        }
    }
}

/// How the order of a kind's sides is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// The winners first, everyone else after them; nobody first on a draw. For games whose
    /// scores do not order the seats (Votes for Women counts states, not seats; Electoral
    /// Combat's Book Deal wins with fewer votes).
    Winners,
    /// The winners first, then the rest by final score, higher first, equal scores sharing a
    /// place. A forfeit's outcome names every other side as winners with no scores: the
    /// forfeiting side is last.
    WinnersThenScore,
}

/// The seats playing together and the order of a kind, or `None` for a kind not rated.
fn rule(kind: &str) -> Option<(Partnerships, Order)> {
    match kind {
        // Two players, won or lost (or drawn: an Electoral College tie, Nationhood's hands
        // without a nation).
        "electoral-combat" | "nationhood" | "votes-for-women" => {
            Some((Partnerships::None, Order::Winners))
        }
        // Partners (North–South, East–West) as one side; four players without partnerships
        // ranked by their points.
        "whitehouse" => Some((Partnerships::Game, Order::WinnersThenScore)),
        // Two to four players ranked by their final points.
        "statehood" => Some((Partnerships::None, Order::WinnersThenScore)),
        _ => None,
    }
}

/// Who plays together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Partnerships {
    /// Every seat for itself.
    None,
    /// As the game says ([`DynMatch::partners`]): Whitehouse's partnership option.
    Game,
}

/// The ranking of the finished `game`; `None` when it is not over or its kind is not rated.
pub fn of_match(game: &dyn DynMatch) -> Option<Ranking> {
    let outcome = game.outcome()?;
    rank(game.game_id(), game.seats(), &outcome, |seat| {
        game.partners(seat)
    })
}

/// The ranking of a game of `kind` with `seats` seats that ended with `outcome`, with each
/// seat's partners as the game names them; `None` for a kind not rated.
pub fn rank(
    kind: &str,
    seats: usize,
    outcome: &Outcome,
    partners: impl Fn(Seat) -> Vec<Seat>,
) -> Option<Ranking> {
    let (partnerships, order) = rule(kind)?;
    let mut sides: Vec<Vec<Seat>> = Vec::new();
    for seat in 0..seats {
        if sides.iter().any(|side| side.contains(&seat)) {
            continue;
        }
        let mut side = vec![seat];
        if partnerships == Partnerships::Game {
            side.extend(
                partners(seat)
                    .into_iter()
                    .filter(|&p| p < seats && p != seat),
            );
        }
        side.sort_unstable();
        side.dedup();
        sides.push(side);
    }
    // What orders a side, smaller first: whether it lost, then its score negated.
    let key = |side: &[Seat]| {
        let won = side.iter().any(|s| outcome.winners.contains(s));
        let score = match order {
            Order::Winners => 0,
            Order::WinnersThenScore => side
                .iter()
                .filter_map(|&s| outcome.scores.get(s).copied())
                .max()
                .unwrap_or(0),
        };
        (!won, -score)
    };
    let keys: Vec<(bool, i64)> = sides.iter().map(|s| key(s)).collect();
    let sides = sides
        .into_iter()
        .zip(&keys)
        .map(|(seats, own)| Side {
            seats,
            place: 1 + keys.iter().filter(|k| *k < own).count(),
        })
        .collect();
    Some(Ranking { sides })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Seed;
    use crate::games::{find_game, registry};
    use serde_json::json;

    fn outcome(winners: &[Seat], scores: &[i64]) -> Outcome {
        Outcome {
            winners: winners.to_vec(),
            scores: scores.to_vec(),
            reason: String::new(),
        }
    }

    fn side(seats: &[Seat], place: usize) -> Side {
        Side {
            seats: seats.to_vec(),
            place,
        }
    }

    fn alone(_: Seat) -> Vec<Seat> {
        Vec::new()
    }

    #[test]
    fn electoral_combat_a_win_a_tie_and_a_book_deal_with_fewer_votes() {
        let won = rank("electoral-combat", 2, &outcome(&[1], &[200, 338]), alone).unwrap();
        assert_eq!(won.sides, vec![side(&[0], 2), side(&[1], 1)]);
        assert_eq!(won.result(&won.sides[0]), GameResult::Loss);
        assert_eq!(won.result(&won.sides[1]), GameResult::Win);
        let tie = rank("electoral-combat", 2, &outcome(&[], &[269, 269]), alone).unwrap();
        assert_eq!(tie.sides, vec![side(&[0], 1), side(&[1], 1)]);
        assert_eq!(tie.result(&tie.sides[0]), GameResult::Draw);
        // Book Deal: the winner has fewer votes; the winner is first all the same.
        let book = rank("electoral-combat", 2, &outcome(&[0], &[120, 300]), alone).unwrap();
        assert_eq!(book.sides, vec![side(&[0], 1), side(&[1], 2)]);
    }

    #[test]
    fn nationhood_a_win_and_a_drawn_match() {
        let won = rank("nationhood", 2, &outcome(&[0], &[7, 9]), alone).unwrap();
        assert_eq!(won.sides, vec![side(&[0], 1), side(&[1], 2)]);
        let drawn = rank("nationhood", 2, &outcome(&[], &[3, 3]), alone).unwrap();
        assert_eq!(drawn.result(&drawn.sides[1]), GameResult::Draw);
    }

    #[test]
    fn votes_for_women_by_the_winning_side_not_the_state_counts() {
        // The scores are states ratified and rejected, not one a seat.
        let won = rank("votes-for-women", 2, &outcome(&[1], &[30, 13]), alone).unwrap();
        assert_eq!(won.sides, vec![side(&[0], 2), side(&[1], 1)]);
    }

    #[test]
    fn whitehouse_partners_are_one_side_from_the_game_itself() {
        let game = find_game("whitehouse").unwrap();
        let mut started = game.new_match(&json!({}), 4, Seed::from_number(3)).unwrap();
        // East (seat 1) runs out of time: East–West lose together.
        started.forfeit(1);
        let ranking = of_match(started.as_ref()).unwrap();
        assert_eq!(ranking.sides, vec![side(&[0, 2], 1), side(&[1, 3], 2)]);
        assert_eq!(ranking.result(&ranking.sides[1]), GameResult::Loss);
        // A finished partnership game: both partners carry their side's score.
        let partners = |s: Seat| vec![(s + 2) % 4];
        let ended = rank(
            "whitehouse",
            4,
            &outcome(&[1, 3], &[-2, 7, -2, 7]),
            partners,
        )
        .unwrap();
        assert_eq!(ended.sides, vec![side(&[0, 2], 2), side(&[1, 3], 1)]);
    }

    #[test]
    fn whitehouse_without_partnerships_ranks_four_players_by_points() {
        let game = find_game("whitehouse").unwrap();
        let options = json!({"partnership": false});
        let started = game.new_match(&options, 4, Seed::from_number(3)).unwrap();
        assert!(
            started.partners(0).is_empty(),
            "no partners without the option"
        );
        let partners = |s: Seat| started.partners(s);
        let ended = rank("whitehouse", 4, &outcome(&[2], &[3, -1, 8, 3]), partners).unwrap();
        assert_eq!(
            ended.sides,
            vec![side(&[0], 2), side(&[1], 4), side(&[2], 1), side(&[3], 2)]
        );
    }

    #[test]
    fn statehood_ranks_by_final_points_ties_sharing_a_place() {
        let four = rank("statehood", 4, &outcome(&[3], &[30, 41, 12, 58]), alone).unwrap();
        assert_eq!(
            four.sides,
            vec![side(&[0], 3), side(&[1], 2), side(&[2], 4), side(&[3], 1)]
        );
        let tied = rank("statehood", 3, &outcome(&[0], &[60, 20, 20]), alone).unwrap();
        assert_eq!(
            tied.sides,
            vec![side(&[0], 1), side(&[1], 2), side(&[2], 2)]
        );
        assert_eq!(tied.result(&tied.sides[2]), GameResult::Loss);
        // A forfeit: every other player is named a winner, the forfeiter is last.
        let game = find_game("statehood").unwrap();
        let mut started = game.new_match(&json!({}), 4, Seed::from_number(5)).unwrap();
        started.forfeit(2);
        let forfeit = of_match(started.as_ref()).unwrap();
        assert_eq!(
            forfeit.sides,
            vec![side(&[0], 1), side(&[1], 1), side(&[2], 4), side(&[3], 1)]
        );
        assert_eq!(forfeit.result(&forfeit.sides[0]), GameResult::Win);
        assert_eq!(forfeit.result(&forfeit.sides[2]), GameResult::Loss);
    }

    #[test]
    fn every_hosted_game_is_ranked_and_an_unknown_kind_is_not() {
        for game in registry() {
            let (fewest, _) = game.seat_counts();
            let mut started = game
                .new_match(&game.default_options(), fewest, Seed::from_number(1))
                .unwrap();
            assert!(of_match(started.as_ref()).is_none(), "not over yet");
            started.forfeit(0);
            let ranking = of_match(started.as_ref())
                .unwrap_or_else(|| panic!("{} has no ranking rule", game.id()));
            let last = ranking.sides.iter().find(|s| s.seats.contains(&0)).unwrap();
            assert_eq!(ranking.result(last), GameResult::Loss, "{}", game.id());
        }
        assert!(rank("chess", 2, &outcome(&[0], &[1, 0]), alone).is_none());
    }
}
