//! Tables of three or four, and partnership tables: the balanced construction.
//!
//! Every entrant gets the same quota of `g` games. Round by round, the entrants with the most
//! games still to play sit down (so quotas never drift apart by more than one and the last
//! round can always be filled), and are split into tables by a greedy deal improved by swaps,
//! preferring pairs that have not yet met (partnerships: not yet been partners), then pairs
//! that met least. `g` is the smallest count that gives every entrant the same number of games
//! (`g * n` a multiple of the table size) and is at least the fewest that could seat every pair
//! together; if the tables built that way leave a pair that never met, the next such count is
//! tried.

/// A pair's cost when it has met before: above any sum of meeting counts.
const REPEAT: u64 = 1 << 40;
/// Weight of a partnership's earlier times together, above any sum of opponent meetings.
const PARTNERED: u64 = 1 << 20;

/// The rounds of tables for `n` entrants at tables of `k`. Partnership tables list the
/// partners at positions 0 and 2, and 1 and 3.
pub(super) fn rounds(n: usize, k: usize, partnership: bool) -> Vec<Vec<Vec<usize>>> {
    let step = k / gcd(n, k);
    let fewest = if partnership {
        n - 1
    } else {
        (n - 1).div_ceil(k - 1)
    };
    let mut g = fewest.div_ceil(step) * step;
    let cap = 4 * n.max(step);
    loop {
        let mut league = League::new(n, k, partnership);
        let rounds = league.play(g);
        if league.covered() || g + step > cap {
            return rounds;
        }
        g += step;
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The meetings so far while a schedule is built.
struct League {
    n: usize,
    k: usize,
    partnership: bool,
    /// Times at one table (partnership: as partners), by pair.
    met: Vec<Vec<u64>>,
    /// Times as opponents in a partnership game, by pair.
    opposed: Vec<Vec<u64>>,
}

impl League {
    fn new(n: usize, k: usize, partnership: bool) -> League {
        League {
            n,
            k,
            partnership,
            met: vec![vec![0; n]; n],
            opposed: vec![vec![0; n]; n],
        }
    }

    /// Builds rounds until each entrant has played `g` games.
    fn play(&mut self, g: usize) -> Vec<Vec<Vec<usize>>> {
        let (n, k) = (self.n, self.k);
        let mut left = vec![g; n];
        let mut last_bye: Vec<Option<usize>> = vec![None; n];
        let mut rounds = Vec::new();
        while left.iter().any(|&l| l > 0) {
            let tables = (n / k).min(left.iter().filter(|&&l| l > 0).count() / k);
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&e| {
                (
                    std::cmp::Reverse(left[e]),
                    std::cmp::Reverse(last_bye[e]),
                    e,
                )
            });
            let (seated, out) = order.split_at(tables * k);
            for &e in out {
                last_bye[e] = Some(rounds.len());
            }
            for &e in seated {
                left[e] -= 1;
            }
            let mut seated = seated.to_vec();
            seated.sort_unstable();
            let round = self.split(&seated, tables);
            for table in &round {
                self.record(table);
            }
            rounds.push(round);
        }
        rounds
    }

    /// Splits `seated` (sorted) into `tables` tables: a greedy deal, then swaps.
    fn split(&self, seated: &[usize], tables: usize) -> Vec<Vec<usize>> {
        let mut free = seated.to_vec();
        let mut round: Vec<Vec<usize>> = Vec::with_capacity(tables);
        for _ in 0..tables {
            let mut table = match self.fresh_pair(&free).filter(|_| round.is_empty()) {
                Some((a, b)) if self.partnership => vec![a, usize::MAX, b, usize::MAX],
                Some((a, b)) => vec![a, b],
                None if self.partnership => vec![free[0], usize::MAX, usize::MAX, usize::MAX],
                None => vec![free[0]],
            };
            free.retain(|e| !table.contains(e));
            let slots: Vec<usize> = if self.partnership {
                [2, 1, 3]
                    .into_iter()
                    .filter(|&s| table[s] == usize::MAX)
                    .collect()
            } else {
                (table.len()..self.k).collect()
            };
            for slot in slots {
                let best = *free
                    .iter()
                    .min_by_key(|&&e| self.cost(&with(&table, slot, e)))
                    .expect("enough entrants are seated");
                table = with(&table, slot, best);
                free.retain(|&e| e != best);
            }
            round.push(table);
        }
        self.improve(&mut round);
        round
    }

    /// The first pair among `free` that has never met (partnership: never been partners).
    fn fresh_pair(&self, free: &[usize]) -> Option<(usize, usize)> {
        free.iter().enumerate().find_map(|(i, &a)| {
            free[i + 1..]
                .iter()
                .find(|&&b| self.met[a][b] == 0)
                .map(|&b| (a, b))
        })
    }

    /// Swaps entrants between tables (and partnerships within one) while that lowers the cost.
    fn improve(&self, round: &mut [Vec<usize>]) {
        let k = self.k;
        loop {
            let mut better = false;
            for t in 0..round.len() {
                if self.partnership {
                    for (x, y) in [(1, 2), (2, 3)] {
                        let mut other = round[t].clone();
                        other.swap(x, y);
                        if self.cost(&other) < self.cost(&round[t]) {
                            round[t] = other;
                            better = true;
                        }
                    }
                }
                for u in t + 1..round.len() {
                    for (x, y) in (0..k).flat_map(|x| (0..k).map(move |y| (x, y))) {
                        let before = self.cost(&round[t]) + self.cost(&round[u]);
                        let (mut a, mut b) = (round[t].clone(), round[u].clone());
                        std::mem::swap(&mut a[x], &mut b[y]);
                        if self.cost(&a) + self.cost(&b) < before {
                            (round[t], round[u]) = (a, b);
                            better = true;
                        }
                    }
                }
            }
            if !better {
                return;
            }
        }
    }

    /// A (partly filled) table's cost: pairs that met before, then how often they met.
    fn cost(&self, table: &[usize]) -> u64 {
        let mut cost = 0;
        for (i, &a) in table.iter().enumerate() {
            for (j, &b) in table.iter().enumerate().skip(i + 1) {
                if a == usize::MAX || b == usize::MAX {
                    continue;
                }
                let together = !self.partnership || j == i + 2;
                cost += match (together, self.met[a][b]) {
                    (true, 0) => 0,
                    (true, m) if self.partnership => REPEAT + PARTNERED * m,
                    (true, m) => REPEAT + m,
                    (false, _) => self.opposed[a][b],
                };
            }
        }
        cost
    }

    /// Counts a table's meetings.
    fn record(&mut self, table: &[usize]) {
        for (i, &a) in table.iter().enumerate() {
            for (j, &b) in table.iter().enumerate().skip(i + 1) {
                let counts = if !self.partnership || j == i + 2 {
                    &mut self.met
                } else {
                    &mut self.opposed
                };
                counts[a][b] += 1;
                counts[b][a] += 1;
            }
        }
    }

    /// Whether every pair met (partnership: was partners) at least once.
    fn covered(&self) -> bool {
        (0..self.n).all(|a| (0..self.n).all(|b| a == b || self.met[a][b] > 0))
    }
}

fn with(table: &[usize], slot: usize, entrant: usize) -> Vec<usize> {
    let mut table = table.to_vec();
    if slot < table.len() {
        table[slot] = entrant;
    } else {
        table.push(entrant);
    }
    table
}
