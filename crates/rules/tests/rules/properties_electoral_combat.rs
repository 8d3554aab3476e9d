//! Property tests of Electoral College Combat over every option combination (2024 and 2012
//! apportionment, Book Deal on and off): replay equals live play, every offered choice is
//! accepted, refusals change nothing, no panic on arbitrary JSON, views hide every face-down
//! card (both stacks and the hand's face-down cards, from every player, their own included),
//! and every game ends.

use postplay_rules::engine::testing::{
    arbitrary_json, cases, check_arbitrary_command, check_playout, random_midgame,
};
use postplay_rules::engine::{Seed, Viewer};
use postplay_rules::games::electoral_combat::{ElectoralCombat, Options, State};
use proptest::prelude::*;

fn options() -> impl Strategy<Value = Options> {
    (prop::sample::select(vec![2024u32, 2012]), any::<bool>()).prop_map(
        |(apportionment, book_deal)| Options {
            apportionment,
            book_deal,
        },
    )
}

/// Card codes no player or spectator may find: every card of both stacks, and every face-down
/// card of the hand except the two known won cards shuffled into a last hand.
fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    if viewer.sees_all() {
        return Vec::new();
    }
    let stacks = state.stacks.iter().flatten().copied();
    let down = state
        .table
        .iter()
        .filter(|s| s.live() && !s.up && !state.added.contains(&s.card))
        .map(|s| s.card);
    stacks
        .chain(down)
        .map(|c| format!("\"{}\"", c.code()))
        .collect()
}

// 1,000 whole games, each command checked in every view; POSTPLAY_SOAK multiplies it.
proptest! {
    #![proptest_config(ProptestConfig { cases: cases(1000), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_contract(options in options(), seed in any::<u64>()) {
        check_playout::<ElectoralCombat>(options, 2, Seed::from_number(seed), secrets);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_or_changes_state(
        options in options(),
        seed in any::<u64>(),
        steps in 0usize..80,
        command in arbitrary_json(),
    ) {
        let live = random_midgame::<ElectoralCombat>(options, 2, Seed::from_number(seed), steps);
        for seat in 0..2 {
            check_arbitrary_command(&live, seat, &command);
        }
    }
}
