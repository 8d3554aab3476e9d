use crate::engine::options::combinations as option_combinations;
use crate::engine::{DynMatch, Log, Seed, Viewer, bot};
use crate::games::{find_game, registry};
use crate::web::seat::boards::{BOARDS, card_in_game_html, from_seat, game_board};
use serde_json::{Value, json};

fn electoral_combat_view(apportionment: u32) -> Value {
    find_game("electoral-combat")
        .unwrap()
        .new_match(
            &json!({ "apportionment": apportionment }),
            2,
            Seed::from_number(1),
        )
        .unwrap()
        .view(Viewer::Spectator)
}

#[test]
fn forms_draw_cards_as_their_game_does() {
    let ec_2012 = card_in_game_html("electoral-combat", &electoral_combat_view(2012), "CA");
    assert!(
        ec_2012.unwrap().contains("<i>55</i>"),
        "California had 55 votes in 2012"
    );
    let ec_2024 = electoral_combat_view(2024);
    let ca = card_in_game_html("electoral-combat", &ec_2024, "CA").unwrap();
    assert!(ca.contains("<i>54</i>"));
    let wild = card_in_game_html("electoral-combat", &ec_2024, "FAKE_NEWS").unwrap();
    assert!(wild.contains("Fake News"));
    assert_eq!(card_in_game_html("electoral-combat", &ec_2024, "PR"), None);
    let nationhood = find_game("nationhood")
        .unwrap()
        .new_match(&Value::Null, 2, Seed::from_number(1))
        .unwrap()
        .view(Viewer::Spectator);
    let plain = card_in_game_html("nationhood", &nationhood, "CA").unwrap();
    assert!(plain.contains("A♠") && !plain.contains("California"));
    let statehood = find_game("statehood")
        .unwrap()
        .new_match(&Value::Null, 3, Seed::from_number(1))
        .unwrap()
        .view(Viewer::Spectator);
    let pack = card_in_game_html("statehood", &statehood, "CA").unwrap();
    assert!(pack.contains("California") && pack.contains("<i>54</i>"));
    assert_eq!(card_in_game_html("statehood", &statehood, "pass"), None);
}

#[test]
fn every_hosted_game_has_one_board() {
    for game in registry() {
        let boards = BOARDS.iter().filter(|b| b.id() == game.id()).count();
        assert_eq!(boards, 1, "{} has {boards} boards", game.id());
    }
    assert_eq!(BOARDS.len(), registry().len(), "a board of no hosted game");
}

#[test]
fn a_view_of_another_game_is_drawn_generically() {
    assert_eq!(
        game_board("statehood", &electoral_combat_view(2024), &[]),
        None
    );
    assert_eq!(game_board("no-such-game", &json!({}), &[]), None);
}

/// Draws the view of every seat and a spectator through the game's own board, failing on the
/// generic rendering, on a seat's name missing, and on inline styles or scripts (the
/// content-security policy allows only our own static files).
fn check_step(live: &dyn DynMatch, names: &[String], context: &str) {
    let viewers = (0..live.seats())
        .map(Viewer::Seat)
        .chain([Viewer::Spectator]);
    for viewer in viewers {
        let view = live.view(viewer);
        let html = game_board(live.game_id(), &view, names)
            .unwrap_or_else(|| panic!("{context}, {viewer:?}: generic rendering of {view}"));
        for name in names {
            assert!(
                html.contains(name.as_str()),
                "{context}: no {name} in {html}"
            );
        }
        for inline in ["style=", "<style", "<script"] {
            assert!(
                !html.contains(inline),
                "{context}, {viewer:?}: inline {inline:?} in {html}"
            );
        }
    }
}

#[test]
fn every_step_of_random_games_of_every_game_is_drawn_by_its_board() {
    let mut seed_number = 0;
    for game in registry() {
        let (fewest, most) = game.seat_counts();
        for options in option_combinations(*game) {
            for seats in fewest..=most {
                seed_number += 1;
                let seed = Seed::from_number(seed_number);
                let names: Vec<String> = (0..seats).map(|s| format!("Name{s}")).collect();
                let Ok(mut live) = game.new_match(&options, seats, seed) else {
                    continue;
                };
                let mut rng = bot::bot_rng(&seed);
                let mut step = 0;
                loop {
                    let context = format!("{} {options} seats {seats} step {step}", game.id());
                    check_step(live.as_ref(), &names, &context);
                    let Some(&seat) = live.active().first() else {
                        break;
                    };
                    let command = bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                    live.apply_json(seat, &command, &mut Log::silent()).unwrap();
                    step += 1;
                }
                let view = live.view(Viewer::Auditor);
                assert!(
                    game_board(game.id(), &view, &names).is_some(),
                    "{} auditor: generic rendering of {view}",
                    game.id()
                );
            }
        }
    }
}

#[test]
fn a_table_lists_the_players_after_the_viewer_and_the_viewer_last() {
    assert_eq!(from_seat(Some(1), 4).collect::<Vec<_>>(), [2, 3, 0, 1]);
    assert_eq!(from_seat(Some(2), 3).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(from_seat(None, 3).collect::<Vec<_>>(), [0, 1, 2]);
}
