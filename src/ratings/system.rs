//! The one rating system for every game: Weng-Lin (the Bayesian approximation behind
//! OpenSkill), from the `skillratings` crate, with its published defaults (mu 25, sigma 25/3,
//! beta 25/6). Sides of one or more players, two to four sides, ties allowed.

use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};

/// A player's skill as the system believes it: a mean and its uncertainty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skill {
    /// The mean (mu).
    pub mu: f64,
    /// The standard deviation (sigma).
    pub sigma: f64,
}

/// A newcomer's skill: mu 25, sigma 25/3.
pub const NEWCOMER: Skill = Skill {
    mu: 25.0,
    sigma: 25.0 / 3.0,
};

impl Skill {
    /// The rating shown to people: 1000 plus 40 points per unit of the conservative estimate
    /// mu - 3 sigma (the skill the player very probably has at least), so a newcomer shows
    /// 1000 and a rating rises as it becomes certain.
    pub fn shown(self) -> i32 {
        (1000.0 + 40.0 * (self.mu - 3.0 * self.sigma)).round() as i32
    }
}

/// The skills after a game of `sides`: each side's players' skills before it and its place
/// (from 1, shared on a tie). The answer has the same shape as `sides`.
pub fn update(sides: &[(Vec<Skill>, usize)]) -> Vec<Vec<Skill>> {
    let teams: Vec<Vec<WengLinRating>> = sides
        .iter()
        .map(|(players, _)| {
            players
                .iter()
                .map(|s| WengLinRating {
                    rating: s.mu,
                    uncertainty: s.sigma,
                })
                .collect()
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(sides)
        .map(|(team, (_, place))| (&team[..], MultiTeamOutcome::new(*place)))
        .collect();
    weng_lin_multi_team(&ranked, &WengLinConfig::new())
        .into_iter()
        .map(|team| {
            team.into_iter()
                .map(|r| Skill {
                    mu: r.rating,
                    sigma: r.uncertainty,
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    // With beta = 25/6 and two newcomers (sigma^2 = 625/9), c^2 = 2 beta^2 + 2 sigma^2 =
    // 6250/36, so sigma^2 / c^2 = 0.4 and p = 1/2. The winner gains sigma^2/c * (1 - 1/2) =
    // sqrt(0.4) * 25/3 / 2 = 2.63523; sigma^2 shrinks by eta = 0.4^1.5 / 4 = 0.0632456.
    #[test]
    fn two_newcomers_by_hand() {
        let after = update(&[(vec![NEWCOMER], 1), (vec![NEWCOMER], 2)]);
        assert!(close(after[0][0].mu, 27.63523), "{after:?}");
        assert!(close(after[1][0].mu, 22.36477), "{after:?}");
        let sigma = 25.0 / 3.0 * (1.0f64 - 0.0632456).sqrt();
        assert!(close(after[0][0].sigma, sigma) && close(after[1][0].sigma, sigma));
        // A draw between equals moves neither mean.
        let drawn = update(&[(vec![NEWCOMER], 1), (vec![NEWCOMER], 1)]);
        assert!(close(drawn[0][0].mu, 25.0) && close(drawn[1][0].mu, 25.0));
    }

    #[test]
    fn the_shown_rating() {
        assert_eq!(NEWCOMER.shown(), 1000);
        let after = update(&[(vec![NEWCOMER], 1), (vec![NEWCOMER], 2)]);
        // 27.63523 - 3 * 8.06551 = 3.43870 -> 1137.5; 22.36477 - 24.19653 = -1.83176 -> 926.7.
        assert_eq!(after[0][0].shown(), 1138);
        assert_eq!(after[1][0].shown(), 927);
    }
}
