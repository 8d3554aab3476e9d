//! A hint is worked out from the seat's view alone: two positions that differ only in what the
//! seat cannot see give the same hint for the same draws.

use super::search;
use crate::engine::bot::{bot_rng, random_command};
use crate::engine::{
    Determinize, DynMatch, GameRng, Log, Match, Rules, Seed, Table, Viewer, state_hash,
};
use crate::games::electoral_combat::{ElectoralCombat, Options};

#[test]
fn a_hint_depends_on_the_seats_view_only() {
    let mut real = Match::<ElectoralCombat>::new(Options::default(), 2, Seed::from_number(11))
        .expect("a game for two");
    let mut rng = bot_rng(&Seed::from_number(3));
    for _ in 0..5 {
        let seat = real.active()[0];
        let command = random_command(&real, seat, &mut rng).expect("a move");
        real.apply_json(seat, &command, &mut Log::silent())
            .expect("a legal move");
    }
    let seat = real.active()[0];
    let view = ElectoralCombat::view(&real.state, Viewer::Seat(seat));
    let table = Table {
        options: real.options.clone(),
        seats: real.seats,
        rules_version: real.rules_version,
    };
    // Another deal of what the seat cannot see, agreeing with everything it can.
    let mut other = Match::<ElectoralCombat>::new(Options::default(), 2, Seed::from_number(12))
        .expect("a game for two");
    other.state = ElectoralCombat::sample(
        &view,
        seat,
        &table,
        &mut GameRng::new(&Seed::from_number(99), 0),
    )
    .expect("a sample of the view");
    assert_ne!(
        state_hash(&real.state),
        state_hash(&other.state),
        "the two positions differ in what the seat cannot see"
    );
    assert_eq!(
        DynMatch::view(&real, Viewer::Seat(seat)),
        DynMatch::view(&other, Viewer::Seat(seat)),
        "the seat sees the same in both"
    );
    for n in 0..3 {
        let seed = Seed::from_number(100 + n);
        let a = search(&real, seat, real.rules_version, &seed).expect("a hint");
        let b = search(&other, seat, other.rules_version, &seed).expect("a hint");
        assert_eq!(a, b, "the same hint, estimate and all, from either deal");
        assert!(a.playouts > 0 && a.estimate.is_some(), "{a:?}");
    }
}
