//! A forced move is played at once only when everyone can tell it is forced
//! (`Rules::forced_in_public`), since playing it at once tells the others the seat had no
//! other choice. Checked against the samplers: the states another seat cannot tell from the
//! real one are the ones its sampler deals.
//!
//! - Safe: where a game says a seat's forced move is public, the seat is forced in every state
//!   each other seat cannot tell from the real one.
//! - Nothing missed: where a game says it is not public, some such state leaves the seat
//!   another choice, so asking the seat (unless it opted in) hides something real.

use postplay_rules::engine::bot::{bot_rng, fill_at_random};
use postplay_rules::engine::testing::cases;
use postplay_rules::engine::{Determinize, GameRng, Log, Match, Seat, Seed, Table, Viewer, forced};
use postplay_rules::games::electoral_combat::ElectoralCombat;
use postplay_rules::games::nationhood::Nationhood;
use postplay_rules::games::statehood::Statehood;
use postplay_rules::games::votes_for_women::VotesForWomen;
use postplay_rules::games::whitehouse::Whitehouse;

/// Samples drawn from each other seat's view of a forced seat.
const SAMPLES: usize = 24;

/// What one game's random play found: the forced situations of each kind, and the ones whose
/// kind the game got wrong, described for the failure message.
#[derive(Default, Debug)]
struct Found {
    public: usize,
    hidden: usize,
    wrong: Vec<String>,
}

/// Whether `seat` is forced in every sample of the other seats' views (`Some(true)`), in none
/// of some (`Some(false)`: a sample left it a choice).
fn forced_in_every_sample<R: Determinize>(live: &Match<R>, seat: Seat, rng: &mut GameRng) -> bool {
    let table = Table {
        options: live.options.clone(),
        seats: live.seats,
        rules_version: R::RULES_VERSION,
    };
    for other in (0..live.seats).filter(|&o| o != seat) {
        let view = R::view(&live.state, Viewer::Seat(other));
        for _ in 0..SAMPLES {
            let sample = R::sample(&view, other, &table, rng).expect("a sample of the view");
            if forced(&R::choices(&sample, seat)).is_none() {
                return false;
            }
        }
    }
    true
}

/// Plays `games` random games and checks each forced seat met on the way.
fn check<R: Determinize>(options: R::Options, seats: usize, games: u64) -> Found
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let mut found = Found::default();
    for game in 0..games {
        let seed = Seed::from_number(game);
        let mut live = Match::<R>::new(options.clone(), seats, seed).expect("setup");
        let mut rng = bot_rng(&seed);
        let mut sampling = GameRng::new(&Seed::from_number(game ^ 0xf0_4ced), 0);
        for step in 0.. {
            let active = R::active(&live.state);
            if active.is_empty() {
                break;
            }
            for &seat in &active {
                let choices = R::choices(&live.state, seat);
                if forced(&choices).is_none() {
                    continue;
                }
                let public = R::forced_in_public(&live.state, seat);
                let everywhere = forced_in_every_sample(&live, seat, &mut sampling);
                if public {
                    found.public += 1;
                } else {
                    found.hidden += 1;
                }
                if public != everywhere {
                    found.wrong.push(format!(
                        "game {game} step {step} seat {seat} ({}): said {}, but {}",
                        choices[0].label,
                        if public { "public" } else { "hidden" },
                        if everywhere {
                            "forced in every state the others cannot tell from it"
                        } else {
                            "a state the others cannot tell from it leaves another choice"
                        },
                    ));
                }
            }
            let seat = active[rng.index(active.len())];
            let choices = R::choices(&live.state, seat);
            let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            let typed: R::Command = serde_json::from_value(command).expect("offered command");
            live.apply(seat, &typed, &mut Log::silent())
                .expect("offered command accepted");
        }
    }
    found
}

fn assert_right(game: &str, found: Found) {
    eprintln!(
        "{game}: {} forced moves public, {} hidden, {} misjudged",
        found.public,
        found.hidden,
        found.wrong.len()
    );
    assert!(
        found.wrong.is_empty(),
        "{game}: {} forced moves misjudged, first: {:#?}",
        found.wrong.len(),
        &found.wrong[..found.wrong.len().min(5)]
    );
}

#[test]
fn statehood_plays_at_once_only_what_everyone_can_tell_is_forced() {
    for seats in 2..=4 {
        let options = postplay_rules::games::statehood::Options { target: 12 };
        let found = check::<Statehood>(options, seats, u64::from(cases(6)));
        assert_right(&format!("Statehood, {seats} seats"), found);
    }
}

#[test]
fn whitehouse_plays_at_once_only_what_everyone_can_tell_is_forced() {
    let options = postplay_rules::games::whitehouse::Options {
        target: 3,
        ..Default::default()
    };
    assert_right(
        "Whitehouse",
        check::<Whitehouse>(options, 4, u64::from(cases(6))),
    );
}

#[test]
fn electoral_combat_plays_at_once_only_what_everyone_can_tell_is_forced() {
    let found = check::<ElectoralCombat>(Default::default(), 2, u64::from(cases(10)));
    assert_right("Electoral College Combat", found);
}

#[test]
fn nationhood_plays_at_once_only_what_everyone_can_tell_is_forced() {
    let options = postplay_rules::games::nationhood::Options {
        rubbers: 1,
        target: 8,
        ..Default::default()
    };
    assert_right(
        "Nationhood",
        check::<Nationhood>(options, 2, u64::from(cases(4))),
    );
}

#[test]
fn votes_for_women_plays_at_once_only_what_everyone_can_tell_is_forced() {
    let found = check::<VotesForWomen>(Default::default(), 2, u64::from(cases(2)));
    assert_right("Votes for Women", found);
}
