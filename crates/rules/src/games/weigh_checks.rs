//! The search's weighing of a move made (src/engine/search/weigh.rs), checked on a real game:
//! the engine names no game, so its checks on one live here.

use crate::engine::Seed;
use crate::engine::bot::{bot_rng, random_command};
use crate::engine::determinize::Table;
use crate::engine::search::{weigh, weigh_open};
use crate::engine::{DynMatch, Log, Match, Rules, Viewer};
use crate::games::electoral_combat::{ElectoralCombat, Options};

#[test]
fn the_move_made_is_weighed_beside_the_best() {
    let mut game = Match::<ElectoralCombat>::new(Options::default(), 2, Seed::from_number(7))
        .expect("a game for two");
    let mut rng = bot_rng(&Seed::from_number(1));
    for _ in 0..3 {
        let seat = game.active()[0];
        let command = random_command(&game, seat, &mut rng).expect("a move");
        game.apply_json(seat, &command, &mut Log::silent())
            .expect("a legal move");
    }
    let seat = game.active()[0];
    let played = random_command(&game, seat, &mut rng).expect("a move");
    let view = ElectoralCombat::view(&game.state, Viewer::Seat(seat));
    let table = Table {
        options: game.options.clone(),
        seats: 2,
        rules_version: game.rules_version,
    };
    let seed = Seed::from_number(5);
    let a = weigh::<ElectoralCombat>(&view, seat, &table, 40, &played, &seed).unwrap();
    let b = weigh::<ElectoralCombat>(&view, seat, &table, 40, &played, &seed).unwrap();
    assert_eq!(a, b, "the same arguments weigh the same");
    let (best, after) = (a.decision.estimate.unwrap(), a.played.unwrap());
    assert!((0.0..=1.0).contains(&best) && (0.0..=1.0).contains(&after));
    if a.decision.command == played {
        assert_eq!(best, after, "the move made was the search's own");
    }
    let open = weigh_open::<ElectoralCombat>(&game.state, seat, 2, 40, &played, &seed).unwrap();
    assert!(open.played.is_some() && open.decision.playouts == 40);
}
