//! Property tests of Whitehouse over all option combinations: replay equals live play, every
//! offered choice is accepted, refusals change nothing, no panic on arbitrary JSON, views hide
//! other hands and the unseen kitty, and every game ends.

use postplay_rules::engine::testing::{
    arbitrary_json, cases, check_arbitrary_command, check_playout, random_midgame,
};
use postplay_rules::engine::{Seed, Viewer};
use postplay_rules::games::whitehouse::{Options, Phase, State, TeamColors, Whitehouse};
use proptest::prelude::*;

fn options() -> impl Strategy<Value = Options> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![3i64, 5, 7, 9, 11, 13]),
        prop::sample::select(vec![
            TeamColors::Off,
            TeamColors::NorthSouthRed,
            TeamColors::NorthSouthBlue,
        ]),
    )
        .prop_map(|(partnership, jokers, target, team_colors)| Options {
            partnership,
            jokers,
            target,
            team_colors: if partnership {
                team_colors
            } else {
                TeamColors::Off
            },
        })
}

/// Card codes `viewer` must not find in its view: other seats' hands, and the kitty unless the
/// viewer is the bid winner who put it back.
fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    let mut hidden = Vec::new();
    for (seat, hand) in state.hands.iter().enumerate() {
        if !viewer.sees_seat(seat) {
            hidden.extend(hand.iter().map(|c| format!("\"{}\"", c.code())));
        }
    }
    let bidder_knows = matches!(viewer, Viewer::Seat(s) if Some(s) == state.bidder)
        && matches!(state.phase, Phase::Challenges | Phase::Play);
    if !bidder_knows {
        hidden.extend(state.kitty.iter().map(|c| format!("\"{}\"", c.code())));
    }
    hidden
}

// 500 whole games, each command checked in every view; POSTPLAY_SOAK multiplies it.
proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_contract(options in options(), seed in any::<u64>()) {
        check_playout::<Whitehouse>(options, 4, Seed::from_number(seed), secrets);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_or_changes_state(
        options in options(),
        seed in any::<u64>(),
        steps in 0usize..120,
        command in arbitrary_json(),
    ) {
        let live = random_midgame::<Whitehouse>(options, 4, Seed::from_number(seed), steps);
        for seat in 0..4 {
            check_arbitrary_command(&live, seat, &command);
        }
    }
}
