//! Seats at tables of three or four: each table, in schedule order, takes the seating in which
//! its entrants sit where they have sat least so far (seat 0 counts first), keeping partners
//! across the table.

/// Orders each table's entrants into seats. Partnership tables come with partners at
/// positions 0 and 2, and 1 and 3, and keep them so.
pub(super) fn seat(
    rounds: Vec<Vec<Vec<usize>>>,
    n: usize,
    partnership: bool,
) -> Vec<Vec<Vec<usize>>> {
    let mut sat: Vec<Vec<u64>> = vec![vec![0; 4]; n];
    rounds
        .into_iter()
        .map(|tables| {
            tables
                .into_iter()
                .map(|table| {
                    let best = permutations(table.len())
                        .into_iter()
                        .map(|p| p.iter().map(|&i| table[i]).collect::<Vec<usize>>())
                        .filter(|seats| !partnership || partners_kept(&table, seats))
                        .min_by_key(|seats| cost(&sat, seats))
                        .expect("a table has a seating");
                    for (s, &e) in best.iter().enumerate() {
                        sat[e][s] += 1;
                    }
                    best
                })
                .collect()
        })
        .collect()
}

/// Seat 0 (the first player) matters most: its count is weighed as heavily as all the others.
fn cost(sat: &[Vec<u64>], seats: &[usize]) -> (u64, u64) {
    let first = sat[seats[0]][0];
    let rest = seats.iter().enumerate().map(|(s, &e)| sat[e][s]).sum();
    (first, rest)
}

fn partners_kept(table: &[usize], seats: &[usize]) -> bool {
    let partner = |e: usize| {
        let i = table
            .iter()
            .position(|&x| x == e)
            .expect("seated from the table");
        table[(i + 2) % 4]
    };
    partner(seats[0]) == seats[2] && partner(seats[1]) == seats[3]
}

/// Every ordering of `0..k`, in lexicographic order.
fn permutations(k: usize) -> Vec<Vec<usize>> {
    if k == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for first in 0..k {
        for rest in permutations(k - 1) {
            let mut p = vec![first];
            p.extend(rest.into_iter().map(|x| if x >= first { x + 1 } else { x }));
            all.push(p);
        }
    }
    all
}
