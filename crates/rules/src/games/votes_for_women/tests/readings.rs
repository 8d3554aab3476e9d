//! Scenario tests of the readings revisited under rules versions 2 and 3 (RULES.md, "Rules
//! versions"), each beside the behaviour that games begun before them keep.

use super::*;
use crate::games::votes_for_women::ops::{placement_words, successes_words};

/// [`fresh`] under rules version 1.
fn fresh_v1() -> State {
    let mut state = fresh();
    state.rules_version = 1;
    state
}

fn at_strategy(mut state: State) -> State {
    state.turn = 2;
    state.phase = Phase::StrategyCommit;
    state.buttons = [5, 3];
    state.hands[SUFF] = vec![3];
    state
}

fn commit_none(state: &mut State) {
    apply(
        state,
        SUFF,
        Command::Commit {
            buttons: 0,
            card: None,
        },
        1,
    );
    assert_eq!(stop(state), Some((OPP, Stop::Answer)));
}

fn commands_offered(state: &State, seat: usize) -> Vec<String> {
    VotesForWomen::choices(state, seat)
        .iter()
        .map(|c| c.command["type"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn both_at_zero_is_a_match_and_no_deferral_is_offered() {
    let mut state = at_strategy(fresh());
    assert!(state.v2());
    commit_none(&mut state);
    let offered = commands_offered(&state, OPP);
    assert!(!offered.contains(&"defer".to_string()), "{offered:?}");
    assert!(offered.contains(&"match".to_string()), "{offered:?}");
    assert!(refuse(&state, OPP, Command::Defer).contains("nothing was committed"));
    assert_eq!(
        VotesForWomen::standing_command(&state, OPP, "always-defer"),
        Some(Command::Match),
        "the standing deferral matches at 0: nobody pays, nobody takes a card"
    );
    apply(&mut state, OPP, Command::Match, 2);
    assert_eq!(state.buttons, [5, 3]);
    assert!(state.claimed.iter().all(Vec::is_empty));
    assert_eq!(state.phase, Phase::Operations);
}

#[test]
fn version_one_still_lets_the_opposition_defer_at_zero() {
    let mut state = at_strategy(fresh_v1());
    commit_none(&mut state);
    assert!(commands_offered(&state, OPP).contains(&"defer".to_string()));
    assert_eq!(
        VotesForWomen::standing_command(&state, OPP, "always-defer"),
        Some(Command::Defer)
    );
    apply(&mut state, OPP, Command::Defer, 2);
    assert_eq!(state.phase, Phase::StrategyPick);
}

/// The Suffragist plays A Vindication (4) under the 1918 Pandemic (89), holding `buttons`;
/// The Club Movement (22) and Maud Wood Park (40) are drawn.
fn vindication_under_the_pandemic(mut state: State, buttons: u8) -> State {
    state.rest_of_turn = vec![89];
    state.buttons[SUFF] = buttons;
    state.decks[SUFF].push(22);
    state.decks[SUFF].push(40);
    event(&mut state, SUFF, 4);
    state
}

#[test]
fn a_drawn_event_pays_the_pandemics_button_too() {
    let mut state = vindication_under_the_pandemic(fresh(), 2);
    assert_eq!(state.buttons[SUFF], 1, "the Vindication paid its button");
    assert_eq!(
        awaited(&state),
        Stop::Card {
            options: vec![40, 22],
            bottom: false
        }
    );
    apply(&mut state, SUFF, Command::Card { card: 22 }, 2);
    assert_eq!(state.buttons[SUFF], 4, "1 - 1 for the drawn event + 4");
    // With no button left for it, no drawn card is playable: both are discarded.
    let state = vindication_under_the_pandemic(fresh(), 1);
    assert_eq!(state.buttons[SUFF], 0);
    assert!(state.discards[SUFF].contains(&22) && state.discards[SUFF].contains(&40));
    assert_eq!(state.to_play, OPP);
}

#[test]
fn version_one_resolves_a_drawn_event_without_the_extra_button() {
    let mut state = vindication_under_the_pandemic(fresh_v1(), 1);
    assert_eq!(state.buttons[SUFF], 0);
    apply(&mut state, SUFF, Command::Card { card: 22 }, 2);
    assert_eq!(state.buttons[SUFF], 4);
}

/// The Suffragist, a purple campaigner in the Northeast and `buttons`, plays Transportation
/// (114) under War in Europe (88) and moves nobody.
fn transportation_at_war(mut state: State, buttons: u8) -> State {
    state.campaigners = vec![Campaigner {
        colour: Colour::Purple,
        region: Region::Northeast,
    }];
    state.rest_of_turn = vec![88];
    state.buttons[SUFF] = buttons;
    state.claimed[SUFF] = vec![114];
    apply(&mut state, SUFF, Command::Claimed { card: 114 }, 1);
    apply(
        &mut state,
        SUFF,
        Command::Moves {
            c1: Some(Region::Northeast),
            c2: None,
            c3: None,
            c4: None,
        },
        2,
    );
    state
}

#[test]
fn war_in_europe_charges_transportations_campaign() {
    let state = transportation_at_war(fresh(), 2);
    assert_eq!(
        state.buttons[SUFF], 1,
        "a button for the Campaigning action"
    );
    assert_eq!(awaited(&state), Stop::Campaign);
    // Without a button the campaign is not taken; the card is spent.
    let state = transportation_at_war(fresh(), 0);
    assert!(state.stack.is_empty(), "{:?}", stop(&state));
    assert!(state.spent.contains(&114));
    assert!(St::all().all(|s| state.states[s.0 as usize].of(SUFF) == 0));
}

#[test]
fn version_one_campaigns_for_transportation_for_free() {
    let state = transportation_at_war(fresh_v1(), 2);
    assert_eq!(state.buttons[SUFF], 2);
    assert_eq!(awaited(&state), Stop::Campaign);
}

/// A yellow campaigner in the Northeast campaigns for `die` cubes in New York with every
/// yellow cube already on the map (in California).
fn yellow_campaign_without_yellow(mut state: State) -> (State, u8) {
    state.campaigners = vec![Campaigner {
        colour: Colour::Yellow,
        region: Region::Northeast,
    }];
    state.states[st("CA").0 as usize].yellow = 65;
    state.hands[SUFF] = vec![3, 9];
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 3,
            action: Action::Campaign,
        },
        1,
    );
    let die = state.stack.last().unwrap().dice[0];
    let counts: Vec<u32> = Region::Northeast
        .states()
        .map(|s| if s.code() == "NY" { u32::from(die) } else { 0 })
        .collect();
    apply(
        &mut state,
        SUFF,
        Command::Assign {
            dice: vec![die],
            c1: Some(counts),
            c2: None,
            c3: None,
            c4: None,
            takes: None,
        },
        2,
    );
    (state, die)
}

#[test]
fn a_campaigner_whose_colour_ran_out_places_nothing() {
    let (state, _) = yellow_campaign_without_yellow(fresh());
    assert_eq!(cubes(&state, "NY"), (0, 0, 0));
}

#[test]
fn version_one_places_the_other_colour_for_a_campaigner_run_out() {
    let (state, die) = yellow_campaign_without_yellow(fresh_v1());
    assert_eq!(cubes(&state, "NY"), (die, 0, 0));
}

/// The Opposition plays Anti-Suffrage Riots (99) against a Suffragist holding one card.
fn riots_against_one_card(mut state: State) -> State {
    state.hands[SUFF] = vec![9];
    event(&mut state, OPP, 99);
    state
}

#[test]
fn anti_suffrage_riots_draws_two_whatever_was_discarded() {
    let state = riots_against_one_card(fresh());
    assert_eq!(state.hands[SUFF].len(), 2, "one discarded, two drawn");
    assert!(state.discards[SUFF].contains(&9));
}

#[test]
fn version_one_riots_draws_as_many_as_were_discarded() {
    let state = riots_against_one_card(fresh_v1());
    assert_eq!(state.hands[SUFF].len(), 1);
}

/// The Patriarchy (53) for the Opposition with New York holding one purple and one yellow cube.
fn patriarchy_into_mixed_new_york(version: u32) -> State {
    let mut state = fresh();
    state.rules_version = version;
    let ny = st("NY").0 as usize;
    state.states[ny].purple = 1;
    state.states[ny].yellow = 1;
    state.to_play = OPP;
    event(&mut state, OPP, 53);
    state
}

#[test]
fn the_opposition_chooses_which_colour_its_red_cube_takes() {
    let mut state = patriarchy_into_mixed_new_york(3);
    let Stop::Place { spec, .. } = awaited(&state) else {
        panic!("the placement is asked: {:?}", awaited(&state));
    };
    let choices = VotesForWomen::choices(&state, OPP);
    let place = choices
        .iter()
        .find(|c| c.command["type"] == "place")
        .expect("a placement offered");
    assert!(
        place.params.iter().any(|p| p.field == "takes"),
        "the choice asks which colour: {:?}",
        place.params
    );
    let counts = spec.forced_counts();
    apply(
        &mut state,
        OPP,
        Command::Place {
            cubes: counts,
            takes: Some(TakeFirst::Yellow),
        },
        1,
    );
    assert_eq!(cubes(&state, "NY"), (1, 0, 0), "the yellow cube was taken");
}

#[test]
fn without_a_named_colour_the_red_cube_takes_purple_on_a_tie() {
    let mut state = patriarchy_into_mixed_new_york(3);
    let Stop::Place { spec, .. } = awaited(&state) else {
        panic!("the placement is asked: {:?}", awaited(&state));
    };
    apply(
        &mut state,
        OPP,
        Command::Place {
            cubes: spec.forced_counts(),
            takes: None,
        },
        1,
    );
    assert_eq!(cubes(&state, "NY"), (0, 1, 0));
}

#[test]
fn version_two_places_the_patriarchy_without_asking() {
    let state = patriarchy_into_mixed_new_york(2);
    assert_eq!(cubes(&state, "NY"), (0, 1, 0), "purple on a tie, no stop");
    assert_eq!(state.to_play, SUFF);
}

#[test]
fn only_the_opposition_names_a_colour_to_take() {
    let state = fresh();
    let refusal = refuse(
        &state,
        SUFF,
        Command::Place {
            cubes: vec![1],
            takes: Some(TakeFirst::Purple),
        },
    );
    assert!(
        refusal.contains("only the Opposition"),
        "refused for the right reason: {refusal}"
    );
}

#[test]
fn a_red_cube_into_purple_and_yellow_removes_the_more_numerous_purple_on_a_tie() {
    let mut state = fresh();
    let ny = st("NY").0 as usize;
    state.states[ny].purple = 1;
    state.states[ny].yellow = 2;
    let mut log = Log::silent();
    state.place_cube(OPP, st("NY"), super::super::board::Cube::Red, &mut log);
    assert_eq!(
        cubes(&state, "NY"),
        (1, 1, 0),
        "yellow was the more numerous"
    );
    state.place_cube(OPP, st("NY"), super::super::board::Cube::Red, &mut log);
    assert_eq!(cubes(&state, "NY"), (0, 1, 0), "purple on a tie");
}

#[test]
fn final_voting_offers_a_reroll_only_to_the_side_behind() {
    let mut state = fresh();
    state.amendment_sent = true;
    state.phase = Phase::FinalVoting;
    state.turn = 6;
    state.buttons = [3, 3];
    state.vote = Some(Vote {
        state: st("TN"),
        dice: [5, 2],
        sides: [6, 6],
    });
    // The Suffragist leads 5 to 2: only the Opposition may reroll.
    assert_eq!(stop(&state), Some((OPP, Stop::Reroll)));
    refuse(&state, SUFF, Command::Reroll);
    let offered = commands_offered(&state, SUFF);
    assert!(
        offered.is_empty(),
        "the side ahead has nothing to do: {offered:?}"
    );
    // Once the Opposition leads, the Suffragist is the one offered a reroll.
    state.vote = Some(Vote {
        state: st("TN"),
        dice: [2, 5],
        sides: [6, 6],
    });
    assert_eq!(stop(&state), Some((SUFF, Stop::Reroll)));
}

#[test]
fn log_lines_count_cubes_and_successes_in_english() {
    assert_eq!(
        placement_words("{s0}", false, 0, &[]),
        "{s0} places no cubes"
    );
    assert_eq!(
        placement_words("{s0}", false, 1, &["NY"]),
        "{s0} places 1 cube in NY"
    );
    assert_eq!(
        placement_words("{s1}", true, 3, &["NY", "NJ"]),
        "{s1} removes 3 cubes from NY, NJ"
    );
    assert_eq!(successes_words(0), "no successes");
    assert_eq!(successes_words(1), "1 success");
    assert_eq!(successes_words(2), "2 successes");
}

#[test]
fn strategy_prompts_count_buttons_in_english() {
    let labels = |state: &State, seat| -> Vec<String> {
        VotesForWomen::choices(state, seat)
            .iter()
            .map(|c| c.label.to_string())
            .collect()
    };
    let mut state = at_strategy(fresh());
    state.buttons = [2, 0];
    let l = labels(&state, SUFF);
    assert!(
        l.iter()
            .any(|x| x == "Commit 1 button: the Opposition cannot match"),
        "{l:?}"
    );
    state.buttons = [5, 3];
    commit_none(&mut state);
    let l = labels(&state, OPP);
    assert!(
        l.iter()
            .any(|x| x == "Match: nobody pays, nobody takes a card"),
        "{l:?}"
    );
    assert!(
        l.iter()
            .any(|x| x.starts_with("Supersede: pay 1 button and")),
        "{l:?}"
    );
    let mut state = at_strategy(fresh());
    apply(
        &mut state,
        SUFF,
        Command::Commit {
            buttons: 1,
            card: None,
        },
        1,
    );
    let l = labels(&state, OPP);
    assert!(
        l.iter()
            .any(|x| x.starts_with("Defer: the Suffragist pays 1 button and")),
        "{l:?}"
    );
    assert!(
        l.iter()
            .any(|x| x == "Match: both pay 1 button, nobody takes a card"),
        "{l:?}"
    );
    assert!(
        l.iter()
            .any(|x| x.starts_with("Supersede: pay 2 buttons and")),
        "{l:?}"
    );
}

/// Lobbying for `seat` with Congress at 3 and one campaigner on the map, on the first stream
/// whose roll has a six; Congress after it and the sixes rolled.
fn lobby_with_a_six(seat: usize) -> (u8, u8) {
    for stream in 1..200 {
        let mut state = fresh();
        state.congress = 3;
        state.to_play = seat;
        state.campaigners.push(Campaigner {
            colour: if seat == SUFF {
                Colour::Purple
            } else {
                Colour::Red
            },
            region: Region::Midwest,
        });
        state.buttons = [0, 0];
        give(&mut state, seat, FILLER[seat][0]);
        apply(
            &mut state,
            seat,
            Command::Play {
                card: FILLER[seat][0],
                action: Action::Lobby,
            },
            stream,
        );
        let sixes = state
            .last_roll
            .as_ref()
            .unwrap()
            .2
            .iter()
            .filter(|&&d| d >= 6)
            .count() as u8;
        if sixes > 0 {
            return (state.congress, sixes);
        }
    }
    panic!("no six in 200 rolls");
}

#[test]
fn lobbying_moves_congress_each_sides_own_way() {
    let (congress, sixes) = lobby_with_a_six(SUFF);
    assert_eq!(congress, 3 + sixes, "the Suffragist adds a marker a six");
    let (congress, sixes) = lobby_with_a_six(OPP);
    assert_eq!(congress, 3 - sixes, "the Opposition removes a marker a six");
}
