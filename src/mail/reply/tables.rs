//! Reply lines against real choices from real positions of each game.

use super::reply_lines;
use crate::engine::bot::{bot_rng, fill_at_random};
use crate::engine::{Choice, Log, Match, Rules, Seed};

/// Plays random games of `R` until a seat's choices satisfy `wanted`; returns them.
pub fn find<R: Rules>(
    options: R::Options,
    seats: usize,
    mut wanted: impl FnMut(&[Choice]) -> bool,
) -> Vec<Choice>
where
    R::Options: Clone,
{
    for n in 0..200 {
        let seed = Seed::from_number(n);
        let mut live = Match::<R>::new(options.clone(), seats, seed).expect("setup");
        let mut rng = bot_rng(&seed);
        for _ in 0..20_000 {
            let active = R::active(&live.state);
            if active.is_empty() {
                break;
            }
            let seat = active[rng.index(active.len())];
            let choices = R::choices(&live.state, seat);
            if wanted(&choices) {
                return choices;
            }
            let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            let typed: R::Command = serde_json::from_value(command).expect("parses");
            live.apply(seat, &typed, &mut Log::silent()).expect("legal");
        }
    }
    panic!("no position with the wanted choices");
}

fn show(c: &[Choice]) {
    for l in reply_lines(c) {
        println!("  {}  {}", l.number, l.text);
        for o in l.options {
            println!("       {o}");
        }
    }
    println!();
}

fn sample<R: Rules>(options: R::Options, seats: usize)
where
    R::Options: Clone,
{
    println!("===== {}", R::ID);
    let mut count = 0;
    let mut seen = std::collections::HashSet::new();
    find::<R>(options, seats, |c| {
        count += 1;
        let shape: Vec<String> = c.iter().map(|c| c.label.chars().take(12).collect()).collect();
        if seen.insert(shape) {
            show(c);
        }
        count > 4000
    });
}

#[test]
#[ignore]
fn dump() {
    use crate::games::*;
    sample::<whitehouse::Whitehouse>(Default::default(), 4);
    sample::<statehood::Statehood>(Default::default(), 3);
    sample::<electoral_combat::ElectoralCombat>(Default::default(), 2);
    sample::<nationhood::Nationhood>(Default::default(), 2);
    sample::<votes_for_women::VotesForWomen>(Default::default(), 2);
}
