//! Property tests of Statehood for 2, 3 and 4 players: replay equals live play, every offered
//! choice is accepted, refusals change nothing, no panic on arbitrary JSON, views hide other
//! hands, the stock, a drawn card and sealed Puerto Rico challenges, and every game ends.

use postplay::engine::testing::{
    arbitrary_json, cases, check_arbitrary_command, check_playout, random_midgame,
};
use postplay::engine::{Seed, Viewer};
use postplay::games::statehood::{Options, Phase, State, Statehood};
use proptest::prelude::*;

/// Card codes `viewer` must not find: other hands (but for a Puerto Rico declarer's hand, laid
/// face up), the stock, and a card drawn by someone else.
fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    let shown: Vec<_> = state
        .puerto_rico
        .as_ref()
        .map(|p| p.shown.clone())
        .unwrap_or_default();
    let mut hidden: Vec<String> = Vec::new();
    for (seat, hand) in state.hands.iter().enumerate() {
        if !viewer.sees_seat(seat) {
            hidden.extend(
                hand.iter()
                    .filter(|c| !shown.contains(c))
                    .map(|c| format!("\"{}\"", c.code())),
            );
        }
    }
    hidden.extend(state.stock.iter().map(|c| format!("\"{}\"", c.code())));
    if let Some(drawn) = state.drawn
        && state.phase == Phase::Drawn
        && !viewer.sees_seat(state.turn)
    {
        hidden.push(format!("\"{}\"", drawn.code()));
    }
    hidden
}

fn options() -> impl Strategy<Value = Options> {
    // Mostly short games (a few hands each), and now and then the full 56 points.
    prop_oneof![9 => prop::sample::select(vec![3i64, 5, 8]), 1 => Just(56i64)]
        .prop_map(|target| Options { target })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(2000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn two_players(options in options(), seed in any::<u64>()) {
        check_playout::<Statehood>(options, 2, Seed::from_number(seed), secrets);
    }

    #[test]
    fn three_players(options in options(), seed in any::<u64>()) {
        check_playout::<Statehood>(options, 3, Seed::from_number(seed), secrets);
    }

    #[test]
    fn four_players(options in options(), seed in any::<u64>()) {
        check_playout::<Statehood>(options, 4, Seed::from_number(seed), secrets);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_or_changes_state(
        seats in 2usize..=4,
        seed in any::<u64>(),
        steps in 0usize..150,
        command in arbitrary_json(),
    ) {
        let live = random_midgame::<Statehood>(Options::default(), seats, Seed::from_number(seed), steps);
        for seat in 0..seats {
            check_arbitrary_command(&live, seat, &command);
        }
    }
}
