//! Scenario tests of Votes for Women: the rules text's examples, a card for each primitive
//! op, the Strategy phase, the Amendment, the immediate victories, and the two dead ends of
//! the established implementation.

use super::data::{Region, St};
use super::state::{
    Action, Campaigner, Command, Frame, Mark, Phase, Script, Source, State, TakeFirst, Vote,
};
use super::stops::{Stop, stop};
use super::{OPP, Options, SUFF, VotesForWomen};
use crate::engine::{GameRng, Log, Rules, Seed};
use crate::games::votes_for_women::data::Colour;

fn st(code: &str) -> St {
    St::from_code(code).unwrap()
}

/// Cards each side holds besides those a test gives, so that the round does not run on.
const FILLER: [[u8; 2]; 2] = [[26, 28], [77, 80]];

/// A game at turn 1, round 1, the Suffragist to play, no campaigners, each hand two fillers.
fn fresh() -> State {
    let mut state = VotesForWomen::setup(
        &Options::default(),
        2,
        &mut GameRng::new(&Seed::from_number(7), 0),
    )
    .unwrap();
    for seat in [SUFF, OPP] {
        let hand = std::mem::take(&mut state.hands[seat]);
        state.decks[seat].splice(0..0, hand);
        for c in FILLER[seat] {
            give(&mut state, seat, c);
        }
    }
    state
}

/// Moves card `c` into `seat`'s hand from wherever it is.
fn give(state: &mut State, seat: usize, c: u8) {
    for pile in state
        .decks
        .iter_mut()
        .chain(state.discards.iter_mut())
        .chain(state.hands.iter_mut())
    {
        pile.retain(|&x| x != c);
    }
    state.hands[seat].push(c);
}

fn apply(state: &mut State, seat: usize, command: Command, stream: u64) {
    let mut rng = GameRng::new(&Seed::from_number(99), stream);
    VotesForWomen::apply(state, seat, &command, &mut rng, &mut Log::recording())
        .unwrap_or_else(|e| panic!("{command:?} refused: {e}; awaiting {:?}", stop(state)));
}

fn refuse(state: &State, seat: usize, command: Command) -> String {
    let mut copy = state.clone();
    let mut rng = GameRng::new(&Seed::from_number(99), 1);
    let e = VotesForWomen::apply(&mut copy, seat, &command, &mut rng, &mut Log::silent())
        .expect_err("refused");
    assert_eq!(&copy, state, "a refusal changed the state");
    e.to_string()
}

fn event(state: &mut State, seat: usize, c: u8) {
    give(state, seat, c);
    state.to_play = seat;
    apply(
        state,
        seat,
        Command::Play {
            card: c,
            action: Action::Event,
        },
        1,
    );
}

fn cubes(state: &State, code: &str) -> (u8, u8, u8) {
    let c = state.states[st(code).0 as usize];
    (c.purple, c.yellow, c.red)
}

fn awaited(state: &State) -> Stop {
    stop(state).expect("a decision").1
}

/// Counts for a place/remove stop: `n` on the option of state `code` (first colour).
fn counts_for(state: &State, wanted: &[(&str, u32)]) -> Vec<u32> {
    let (Stop::Place { spec, .. } | Stop::Remove { spec, .. }) = awaited(state) else {
        panic!("no placement awaited: {:?}", awaited(state));
    };
    let mut counts = vec![0; spec.units.len()];
    for (code, n) in wanted {
        let at = spec.units.iter().position(|u| u.st == st(code)).unwrap();
        counts[at] = *n;
    }
    counts
}

#[test]
fn the_campaigning_example_in_the_northeast_and_the_west() {
    let mut state = fresh();
    state.campaigners = vec![
        Campaigner {
            colour: Colour::Purple,
            region: Region::Northeast,
        },
        Campaigner {
            colour: Colour::Yellow,
            region: Region::Northeast,
        },
    ];
    state.buttons[SUFF] = 2;
    give(&mut state, SUFF, 3);
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 3,
            action: Action::Campaign,
        },
        1,
    );
    assert_eq!(awaited(&state), Stop::Campaign);
    // The roll of 1 and 1 is rerolled for a button.
    state.stack.last_mut().unwrap().dice = vec![1, 1];
    apply(&mut state, SUFF, Command::Reroll, 2);
    assert_eq!(state.buttons[SUFF], 1);
    // The example's reroll: 3 and 4.
    state.stack.last_mut().unwrap().dice = vec![3, 4];
    apply(
        &mut state,
        SUFF,
        Command::Move {
            campaigner: 1,
            region: Region::West,
        },
        3,
    );
    assert_eq!(state.buttons[SUFF], 0);
    assert_eq!(state.campaigners[1].region, Region::West);
    let ne: Vec<u32> = Region::Northeast
        .states()
        .map(|s| match s.code() {
            "VT" => 2,
            "CT" => 1,
            _ => 0,
        })
        .collect();
    let west: Vec<u32> = Region::West
        .states()
        .map(|s| if s.code() == "CA" { 4 } else { 0 })
        .collect();
    assert!(
        refuse(
            &state,
            SUFF,
            Command::Move {
                campaigner: 0,
                region: Region::West
            }
        )
        .contains("button")
    );
    apply(
        &mut state,
        SUFF,
        Command::Assign {
            dice: vec![3, 4],
            c1: Some(ne),
            c2: Some(west),
            c3: None,
            c4: None,
            takes: None,
        },
        4,
    );
    assert_eq!(cubes(&state, "VT"), (2, 0, 0));
    assert_eq!(cubes(&state, "CT"), (1, 0, 0));
    assert_eq!(cubes(&state, "CA"), (0, 4, 0));
    if state.claimed[SUFF].contains(&117) {
        assert_eq!(
            stop(&state),
            Some((SUFF, Stop::AfterHand)),
            "California claimed: play it?"
        );
    } else {
        assert!(!state.state_cards.contains(&117));
        assert_eq!(
            state.to_play, OPP,
            "the campaign ends the Suffragist's part of the round"
        );
    }
}

#[test]
fn the_california_example_removes_the_red_cube_first() {
    let mut state = fresh();
    state.states[st("CA").0 as usize].red = 1;
    state.place_cube(
        SUFF,
        st("CA"),
        super::board::Cube::Purple,
        &mut Log::silent(),
    );
    assert_eq!(cubes(&state, "CA"), (0, 0, 0));
    state.place_cube(
        SUFF,
        st("CA"),
        super::board::Cube::Yellow,
        &mut Log::silent(),
    );
    assert_eq!(cubes(&state, "CA"), (0, 1, 0));
    // Through a card: Maria de Lopez puts 2 in each of CA, NV, AZ; CA held 1 red.
    let mut state = fresh();
    state.states[st("CA").0 as usize].red = 1;
    event(&mut state, SUFF, 32);
    let Stop::Place { spec, .. } = awaited(&state) else {
        panic!()
    };
    assert_eq!(spec.total, 3, "one bundle of two per state");
    let counts: Vec<u32> = spec
        .units
        .iter()
        .map(|u| u32::from(u.purple == 1 && u.yellow == 1))
        .collect();
    apply(
        &mut state,
        SUFF,
        Command::Place {
            cubes: counts,
            takes: None,
        },
        2,
    );
    assert_eq!(
        cubes(&state, "CA"),
        (0, 1, 0),
        "the purple removed the red, the yellow stayed"
    );
    assert_eq!(cubes(&state, "NV"), (1, 1, 0));
}

/// A seed whose stream 1 makes the first d8 roll show `face`.
fn seed_rolling(face: u32) -> u64 {
    (0..)
        .find(|&n| GameRng::new(&Seed::from_number(n), 1).below(8) + 1 == face)
        .unwrap()
}

#[test]
fn the_final_voting_example_in_tennessee() {
    let mut state = fresh();
    let tn = st("TN");
    for (i, s) in St::all().filter(|&s| s != tn).enumerate() {
        state.states[s.0 as usize].mark = Some(if i < 35 { Mark::Check } else { Mark::X });
    }
    state.states[tn.0 as usize].red = 2;
    state.amendment_sent = true;
    state.final_voting = vec![41, 52];
    state.buttons = [1, 0];
    state.phase = Phase::FinalVoting;
    state.turn = 6;
    state.vote = Some(Vote {
        state: tn,
        dice: [5, 4],
        sides: [8, 6],
    });
    assert_eq!(state.checks(), 35);
    assert_eq!(state.xs(), 12);
    // 5 against 4 + 2: the Suffragist is losing, and may reroll.
    assert_eq!(stop(&state), Some((SUFF, Stop::Reroll)));
    let n = seed_rolling(6);
    let mut rng = GameRng::new(&Seed::from_number(n), 1);
    VotesForWomen::apply(
        &mut state,
        SUFF,
        &Command::Reroll,
        &mut rng,
        &mut Log::silent(),
    )
    .unwrap();
    assert_eq!(state.buttons[SUFF], 0);
    assert_eq!(
        state.states[tn.0 as usize].mark,
        Some(Mark::Check),
        "6 ties 6: Miss Febb"
    );
    let outcome = VotesForWomen::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![SUFF]);
    assert_eq!(outcome.scores, vec![36, 12]);
}

#[test]
fn final_voting_ties_go_to_the_opposition_without_miss_febb() {
    let mut state = fresh();
    state.amendment_sent = true;
    state.phase = Phase::FinalVoting;
    state.turn = 6;
    state.states[st("TN").0 as usize].red = 2;
    state.vote = Some(Vote {
        state: st("TN"),
        dice: [6, 4],
        sides: [6, 6],
    });
    // Tied and the Suffragist has no button: the vote closes at once.
    assert_eq!(super::stops::vote_loser(&state, &state.vote.unwrap()), SUFF);
    assert!(!super::stops::vote_reroll_open(
        &state,
        &state.vote.unwrap()
    ));
    // Picking a state: with no buttons anywhere, the vote resolves in the same command.
    state.vote = None;
    apply(
        &mut state,
        SUFF,
        Command::State {
            state: st("CA"),
            yellow: None,
        },
        1,
    );
    assert!(state.states[st("CA").0 as usize].mark.is_some());
    assert_eq!(state.chooser, OPP, "the players alternate");
}

#[test]
fn the_amendment_is_sent_at_the_sixth_marker_and_states_convert() {
    let mut state = fresh();
    state.congress = 5;
    state.states[st("NY").0 as usize].purple = 4;
    state.states[st("GA").0 as usize].red = 5;
    state.states[st("OH").0 as usize].yellow = 3;
    event(&mut state, SUFF, 40); // Maud Wood Park: +2 CM
    assert!(state.amendment_sent);
    assert_eq!(state.congress, 0);
    assert_eq!(state.states[st("NY").0 as usize].mark, Some(Mark::Check));
    assert_eq!(state.states[st("GA").0 as usize].mark, Some(Mark::X));
    assert_eq!(cubes(&state, "OH"), (0, 3, 0));
    // A fourth cube now converts at once, and a decided state is no target.
    state.place_cube(
        SUFF,
        st("OH"),
        super::board::Cube::Purple,
        &mut Log::silent(),
    );
    assert_eq!(state.states[st("OH").0 as usize].mark, Some(Mark::Check));
    assert_eq!(state.room(OPP, st("OH")), 0);
    // Lobbying is no longer open.
    state.campaigners.push(Campaigner {
        colour: Colour::Red,
        region: Region::South,
    });
    assert!(!super::rules::action_open(&state, OPP, Action::Lobby));
}

#[test]
fn the_thirty_sixth_check_wins_at_once() {
    let mut state = fresh();
    state.amendment_sent = true;
    for s in St::all().take(35) {
        state.states[s.0 as usize].mark = Some(Mark::Check);
    }
    state.states[st("VT").0 as usize].yellow = 3;
    event(&mut state, SUFF, 17); // Women to the Polls: NJ, PA, DE are checked already
    // VT takes its fourth cube from a Frederick Douglass-like single placement.
    state.place_cube(
        SUFF,
        st("VT"),
        super::board::Cube::Purple,
        &mut Log::silent(),
    );
    let outcome = VotesForWomen::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![SUFF]);
    assert_eq!(state.phase, Phase::Over);
    assert!(VotesForWomen::active(&state).is_empty());
}

#[test]
fn the_thirteenth_x_wins_at_once_through_a_card() {
    let mut state = fresh();
    state.amendment_sent = true;
    for s in St::all().skip(24).take(12) {
        state.states[s.0 as usize].mark = Some(Mark::X);
    }
    state.states[st("SC").0 as usize].red = 2;
    state.to_play = OPP;
    event(&mut state, OPP, 87); // Senator "Cotton Ed" Smith: 2 R in South Carolina
    let outcome = VotesForWomen::outcome(&state).expect("13 X's");
    assert_eq!(outcome.winners, vec![OPP]);
    assert_eq!(state.xs(), 13);
}

#[test]
fn the_opposition_wins_if_the_amendment_is_never_sent() {
    let mut state = fresh();
    state.turn = 6;
    state.round = 6;
    state.to_play = OPP;
    state.hands[OPP] = vec![101];
    apply(
        &mut state,
        OPP,
        Command::Play {
            card: 101,
            action: Action::Event,
        },
        1,
    );
    let outcome = VotesForWomen::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![OPP]);
}

#[test]
fn the_strategy_phase_defers_matches_and_supersedes() {
    let base = || {
        let mut state = fresh();
        state.turn = 2;
        state.phase = Phase::StrategyCommit;
        state.buttons = [5, 3];
        state.hands[SUFF] = vec![3];
        state
    };
    let face_up = base().strategy_face_up.clone();
    // Defer: the Suffragist pays and picks.
    let mut state = base();
    assert!(
        refuse(
            &state,
            SUFF,
            Command::Commit {
                buttons: 5,
                card: None
            }
        )
        .contains("at most 4")
    );
    apply(
        &mut state,
        SUFF,
        Command::Commit {
            buttons: 2,
            card: None,
        },
        1,
    );
    assert_eq!(stop(&state), Some((OPP, Stop::Answer)));
    apply(&mut state, OPP, Command::Defer, 2);
    apply(&mut state, SUFF, Command::Card { card: face_up[1] }, 3);
    assert_eq!(state.buttons, [3, 3]);
    assert_eq!(state.claimed[SUFF], vec![face_up[1]]);
    assert_eq!(state.strategy_face_up.len(), 3, "a new card is put out");
    assert_eq!(state.phase, Phase::Operations);
    // Match: both pay, nobody takes a card.
    let mut state = base();
    apply(
        &mut state,
        SUFF,
        Command::Commit {
            buttons: 2,
            card: None,
        },
        1,
    );
    apply(&mut state, OPP, Command::Match, 2);
    assert_eq!(state.buttons, [3, 1]);
    assert!(state.claimed.iter().all(Vec::is_empty));
    // Supersede: the Opposition pays one more and picks.
    let mut state = base();
    apply(
        &mut state,
        SUFF,
        Command::Commit {
            buttons: 2,
            card: None,
        },
        1,
    );
    apply(&mut state, OPP, Command::Supersede { card: face_up[0] }, 2);
    assert_eq!(state.buttons, [3, 0]);
    assert_eq!(state.claimed[OPP], vec![face_up[0]]);
    // A commitment the Opposition cannot match is an automatic defer, the card named with it.
    let mut state = base();
    apply(
        &mut state,
        SUFF,
        Command::Commit {
            buttons: 4,
            card: Some(face_up[2]),
        },
        1,
    );
    assert_eq!(state.buttons, [1, 3]);
    assert_eq!(state.claimed[SUFF], vec![face_up[2]]);
    assert_eq!(stop(&state), Some((SUFF, Stop::HandCard)));
}

#[test]
fn dead_end_one_no_campaigner_no_button_and_a_tax_on_events() {
    let mut state = fresh();
    state.hands[SUFF] = vec![1, 3, 22];
    state.rest_of_turn = vec![79];
    let choices = VotesForWomen::choices(&state, SUFF);
    assert_eq!(choices.len(), 1, "{choices:?}");
    assert_eq!(choices[0].command["action"], "discard");
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 3,
            action: Action::Discard,
        },
        1,
    );
    assert_eq!(state.discards[SUFF], vec![3]);
    assert_eq!(state.to_play, OPP);
    // With a button, the events are open again and discarding is not.
    let mut state = fresh();
    state.hands[SUFF] = vec![1, 3];
    state.rest_of_turn = vec![89];
    state.buttons[SUFF] = 1;
    let choices = VotesForWomen::choices(&state, SUFF);
    assert!(choices.iter().all(|c| c.command["action"] != "discard"));
    event(&mut state, SUFF, 3);
    assert_eq!(state.buttons[SUFF], 2, "paid one, gained two");
}

#[test]
fn dead_end_two_reconsideration_under_the_civil_war() {
    let mut state = fresh();
    state.amendment_sent = true;
    state.states[st("GA").0 as usize].mark = Some(Mark::X);
    state.states[st("VA").0 as usize].mark = Some(Mark::X);
    state.claimed[SUFF] = vec![106];
    state.hands[SUFF] = vec![3];
    state.rest_of_turn = vec![54];
    assert!(!super::rules::playable(&state, SUFF, 106, false));
    assert!(
        VotesForWomen::choices(&state, SUFF)
            .iter()
            .all(|c| c.command["type"] != "claimed")
    );
    // Once an X lies outside the South and Atlantic & Appalachia, it is playable.
    state.states[st("OH").0 as usize].mark = Some(Mark::X);
    apply(&mut state, SUFF, Command::Claimed { card: 106 }, 1);
    assert_eq!(
        awaited(&state),
        Stop::State {
            options: vec![st("OH")],
            yellow: Some(2)
        }
    );
    apply(
        &mut state,
        SUFF,
        Command::State {
            state: st("OH"),
            yellow: Some(1),
        },
        2,
    );
    assert_eq!(cubes(&state, "OH"), (1, 1, 0));
    assert_eq!(state.states[st("OH").0 as usize].mark, None);
    assert!(state.spent.contains(&106));
}

#[test]
fn reconsideration_for_the_opposition_turns_a_check_into_red_cubes() {
    let mut state = fresh();
    state.amendment_sent = true;
    state.states[st("MA").0 as usize].mark = Some(Mark::Check);
    state.claimed[OPP] = vec![106];
    state.to_play = OPP;
    state.hands[OPP] = vec![101];
    apply(&mut state, OPP, Command::Claimed { card: 106 }, 1);
    assert_eq!(cubes(&state, "MA"), (0, 0, 2), "one target: taken alone");
}

// ---- one card for each primitive op ----

#[test]
fn op_add_campaigner_buttons_and_fixed_placement_seneca_falls() {
    let mut state = fresh();
    event(&mut state, SUFF, 1);
    assert_eq!(state.campaigners.len(), 2);
    assert_eq!(state.buttons[SUFF], 2);
    let Stop::Place { spec, .. } = awaited(&state) else {
        panic!()
    };
    assert_eq!(spec.units.len(), 3, "NY: 2 purple, 1+1, 2 yellow");
    apply(
        &mut state,
        SUFF,
        Command::Place {
            cubes: vec![0, 0, 1],
            takes: None,
        },
        2,
    );
    assert_eq!(cubes(&state, "NY"), (0, 2, 0));
}

#[test]
fn op_opposition_fixed_placements_need_no_decision_the_patriarchy() {
    let mut state = fresh();
    state.to_play = OPP;
    event(&mut state, OPP, 53);
    assert_eq!(state.buttons[OPP], 4);
    assert_eq!(
        state.campaigners,
        vec![Campaigner {
            colour: Colour::Red,
            region: Region::South
        }]
    );
    assert_eq!(cubes(&state, "NY"), (0, 0, 1));
    assert_eq!(cubes(&state, "CA"), (0, 0, 0));
    assert_eq!(state.to_play, SUFF, "the next round began without a stop");
    assert_eq!(state.round, 2);
}

#[test]
fn op_congress_up_and_down() {
    let mut state = fresh();
    event(&mut state, SUFF, 3);
    assert_eq!(state.congress, 1);
    event(&mut state, OPP, 56); // Senator Joseph Brown: -1 CM, 2 R in Georgia
    assert_eq!(state.congress, 0);
    assert_eq!(cubes(&state, "GA"), (0, 0, 2));
}

#[test]
fn op_one_state_of_each_region_petition_to_congress() {
    let mut state = fresh();
    event(&mut state, SUFF, 8);
    let Stop::Place { spec, .. } = awaited(&state) else {
        panic!()
    };
    assert_eq!(spec.total, 6);
    let counts = counts_for(
        &state,
        &[
            ("CA", 1),
            ("KS", 1),
            ("TX", 1),
            ("OH", 1),
            ("PA", 1),
            ("NY", 1),
        ],
    );
    apply(
        &mut state,
        SUFF,
        Command::Place {
            cubes: counts.clone(),
            takes: None,
        },
        2,
    );
    assert_eq!(cubes(&state, "CA"), (1, 0, 0));
    assert_eq!(cubes(&state, "NY"), (1, 0, 0));
    // Two in one region is refused.
    let mut state2 = fresh();
    event(&mut state2, SUFF, 9);
    let bad = counts_for(
        &state2,
        &[
            ("CA", 1),
            ("AZ", 1),
            ("TX", 1),
            ("OH", 1),
            ("PA", 1),
            ("NY", 1),
        ],
    );
    assert!(
        refuse(
            &state2,
            SUFF,
            Command::Place {
                cubes: bad,
                takes: None
            }
        )
        .contains("West")
    );
}

#[test]
fn op_roll_and_place_with_a_limit_and_a_reroll_helen_keller() {
    let mut state = fresh();
    state.buttons[SUFF] = 1;
    event(&mut state, SUFF, 31);
    let frame = state.stack.last().unwrap().clone();
    let total: u32 = frame.dice.iter().map(|&d| u32::from(d)).sum();
    let Stop::Place { spec, reroll } = awaited(&state) else {
        panic!()
    };
    assert_eq!(spec.total, total);
    assert!(reroll || frame.dice == vec![6, 6]);
    if reroll {
        apply(&mut state, SUFF, Command::Reroll, 2);
        assert_eq!(state.buttons[SUFF], 0);
    }
    let Stop::Place { spec, reroll } = awaited(&state) else {
        panic!()
    };
    assert!(!reroll, "no button left");
    // Two in one state at most.
    let mut counts = vec![0; spec.units.len()];
    counts[0] = 3;
    assert!(
        refuse(
            &state,
            SUFF,
            Command::Place {
                cubes: counts,
                takes: None
            }
        )
        .contains("at most")
    );
}

#[test]
fn op_roll_for_success_and_its_reroll_1918_midterms() {
    let mut state = fresh();
    state.buttons[SUFF] = 3;
    event(&mut state, SUFF, 38);
    if let Some((SUFF, Stop::Reroll)) = stop(&state) {
        assert!(state.stack.last().unwrap().dice[0] < 3);
        apply(&mut state, SUFF, Command::Accept, 2);
        assert_eq!(state.congress, 0, "a failure does nothing");
    } else {
        assert_eq!(state.congress, 3, "a success: +3 CM");
    }
    assert_eq!(state.to_play, OPP);
}

#[test]
fn op_roll_sixes_superior_lobbying_for_either_side() {
    let mut state = fresh();
    state.claimed[SUFF] = vec![110];
    state.hands[SUFF] = vec![3];
    apply(&mut state, SUFF, Command::Claimed { card: 110 }, 1);
    let sixes = state
        .last_roll
        .as_ref()
        .unwrap()
        .2
        .iter()
        .filter(|&&d| d >= 6)
        .count() as u8;
    assert_eq!(state.congress, sixes);
    assert_eq!(
        stop(&state),
        Some((SUFF, Stop::HandCard)),
        "the hand card still to play"
    );
    let mut state = fresh();
    state.congress = 4;
    state.claimed[OPP] = vec![110];
    state.to_play = OPP;
    state.hands[OPP] = vec![101];
    apply(&mut state, OPP, Command::Claimed { card: 110 }, 1);
    let sixes = state
        .last_roll
        .as_ref()
        .unwrap()
        .2
        .iter()
        .filter(|&&d| d >= 6)
        .count() as u8;
    assert_eq!(state.congress, 4u8.saturating_sub(sixes));
}

#[test]
fn op_remove_red_cubes_with_a_limit_debate_us() {
    let mut state = fresh();
    for code in ["NY", "GA", "OH"] {
        state.states[st(code).0 as usize].red = 3;
    }
    event(&mut state, SUFF, 25);
    let Stop::Remove { spec, .. } = awaited(&state) else {
        panic!("{:?}", awaited(&state))
    };
    assert_eq!(
        spec.total,
        spec.capacity().min(
            state
                .stack
                .last()
                .unwrap()
                .dice
                .iter()
                .map(|&d| u32::from(d))
                .sum()
        )
    );
    let mut counts = vec![0; spec.units.len()];
    let mut left = spec.total;
    for c in counts.iter_mut() {
        *c = left.min(2);
        left -= *c;
    }
    apply(&mut state, SUFF, Command::Remove { cubes: counts }, 2);
    let red: u8 = ["NY", "GA", "OH"].iter().map(|c| cubes(&state, c).2).sum();
    assert_eq!(u32::from(9 - red), spec.total);
}

#[test]
fn op_remove_suffragist_cubes_by_colour_backlash() {
    let mut state = fresh();
    state.states[st("NY").0 as usize].purple = 2;
    state.states[st("NY").0 as usize].yellow = 2;
    state.states[st("CA").0 as usize].yellow = 1;
    event(&mut state, OPP, 74);
    // 5 cubes can go at most (2 from NY, 1 from CA), the Opposition picks which in NY.
    let Stop::Remove { spec, .. } = awaited(&state) else {
        panic!()
    };
    assert_eq!(spec.total, 3);
    let counts: Vec<u32> = spec
        .units
        .iter()
        .map(|u| match (u.st.code(), u.purple) {
            ("NY", 1) => 2,
            ("CA", _) => 1,
            _ => 0,
        })
        .collect();
    apply(&mut state, OPP, Command::Remove { cubes: counts }, 2);
    assert_eq!(cubes(&state, "NY"), (0, 2, 0));
    assert_eq!(cubes(&state, "CA"), (0, 0, 0));
}

#[test]
fn op_remove_all_of_a_colour_from_up_to_n_states_red_scare_and_xenophobia() {
    let mut state = fresh();
    for code in ["NY", "CA", "OH"] {
        state.states[st(code).0 as usize].purple = 2;
        state.states[st(code).0 as usize].yellow = 1;
    }
    event(&mut state, OPP, 93);
    assert_eq!(
        awaited(&state),
        Stop::States {
            options: vec![st("CA"), st("OH"), st("NY")],
            count: 2
        }
    );
    assert!(
        refuse(
            &state,
            OPP,
            Command::States {
                states: vec![st("CA")]
            }
        )
        .contains("exactly 2")
    );
    apply(
        &mut state,
        OPP,
        Command::States {
            states: vec![st("CA"), st("NY")],
        },
        2,
    );
    assert_eq!(cubes(&state, "CA"), (0, 1, 0));
    assert_eq!(cubes(&state, "OH"), (2, 1, 0));
    // Xenophobia: purple from one state then yellow from one (OH has the only purple: forced).
    event(&mut state, OPP, 75);
    assert_eq!(cubes(&state, "OH"), (0, 1, 0));
    assert!(matches!(awaited(&state), Stop::States { count: 1, .. }));
}

#[test]
fn op_remove_all_from_a_named_state_and_opponent_loses_buttons_earthquake() {
    let mut state = fresh();
    state.states[st("CA").0 as usize].purple = 3;
    state.buttons[SUFF] = 2;
    event(&mut state, OPP, 78);
    assert_eq!(cubes(&state, "CA"), (0, 0, 0));
    assert_eq!(state.buttons[SUFF], 1);
    // Opposition Research: half rounded up.
    state.buttons[SUFF] = 5;
    state.claimed[OPP] = vec![107];
    state.hands[OPP] = vec![101];
    state.to_play = OPP;
    state.hand_done = false;
    apply(&mut state, OPP, Command::Claimed { card: 107 }, 3);
    assert_eq!(state.buttons[SUFF], 2);
}

#[test]
fn op_select_a_state_bellwether() {
    let mut state = fresh();
    state.states[st("OH").0 as usize].red = 3;
    state.claimed[SUFF] = vec![109];
    state.hands[SUFF] = vec![3];
    apply(&mut state, SUFF, Command::Claimed { card: 109 }, 1);
    assert!(matches!(
        awaited(&state),
        Stop::State {
            yellow: Some(4),
            ..
        }
    ));
    apply(
        &mut state,
        SUFF,
        Command::State {
            state: st("OH"),
            yellow: Some(1),
        },
        2,
    );
    assert_eq!(cubes(&state, "OH"), (3, 1, 0));
    assert!(state.claimed[SUFF].contains(&124) || !state.state_cards.contains(&124));
}

#[test]
fn op_place_in_every_state_of_a_chosen_region_regional_focus() {
    let mut state = fresh();
    state.claimed[OPP] = vec![112];
    state.to_play = OPP;
    state.hands[OPP] = vec![101];
    apply(&mut state, OPP, Command::Claimed { card: 112 }, 1);
    assert!(matches!(awaited(&state), Stop::Region { .. }));
    apply(
        &mut state,
        OPP,
        Command::Region {
            region: Region::Plains,
        },
        2,
    );
    assert!(
        Region::Plains
            .states()
            .all(|s| state.states[s.0 as usize].red == 1)
    );
}

#[test]
fn op_persistent_boxes_and_discarding_from_them_union_victory() {
    let mut state = fresh();
    event(&mut state, SUFF, 2);
    assert_eq!(state.rest_of_turn, vec![2]);
    event(&mut state, OPP, 54);
    assert_eq!(state.rest_of_turn, vec![2, 54]);
    assert_eq!(
        state.room(SUFF, st("GA")),
        0,
        "the Civil War bars the South"
    );
    assert!(super::rules::playable(&state, SUFF, 5, true));
    state.buttons[SUFF] = 0;
    // Union Victory until it succeeds (no buttons: no reroll stop).
    for stream in 1.. {
        let mut trial = state.clone();
        give(&mut trial, SUFF, 5);
        trial.to_play = SUFF;
        apply(
            &mut trial,
            SUFF,
            Command::Play {
                card: 5,
                action: Action::Event,
            },
            stream,
        );
        if trial.buttons[SUFF] == 2 {
            assert_eq!(trial.rest_of_turn, vec![2]);
            assert!(trial.discards[OPP].contains(&54));
            break;
        }
        assert!(trial.rest_of_turn.contains(&54));
    }
}

#[test]
fn op_draw_two_and_play_one_a_vindication() {
    let mut state = fresh();
    state.decks[SUFF].push(22); // The Club Movement
    state.decks[SUFF].push(40); // Maud Wood Park
    event(&mut state, SUFF, 4);
    assert_eq!(
        awaited(&state),
        Stop::Card {
            options: vec![40, 22],
            bottom: false
        }
    );
    let view = VotesForWomen::view(&state, crate::engine::Viewer::Seat(OPP));
    assert!(view.resolving[0].drawn.is_none() && view.resolving[0].drawn_count == 2);
    assert_eq!(
        VotesForWomen::redacted(&state, SUFF, &Command::Card { card: 22 }),
        None
    );
    apply(&mut state, SUFF, Command::Card { card: 22 }, 2);
    assert_eq!(state.buttons[SUFF], 4);
    assert!(state.discards[SUFF].ends_with(&[40, 22, 4]) || state.discards[SUFF].contains(&40));
    assert_eq!(state.to_play, OPP);
}

#[test]
fn op_draw_six_and_arrange_progress_not_politics() {
    let mut state = fresh();
    give(&mut state, OPP, 66);
    let top: Vec<u8> = state.decks[OPP].iter().rev().take(6).copied().collect();
    event(&mut state, OPP, 66);
    assert!(matches!(awaited(&state), Stop::Card { bottom: true, .. }));
    let put_back = Command::Card { card: top[3] };
    assert_eq!(
        VotesForWomen::redacted(&state, OPP, &put_back),
        Some(serde_json::json!({"type": "card_on_top"}))
    );
    apply(&mut state, OPP, put_back, 2);
    apply(&mut state, OPP, Command::Card { card: top[0] }, 3);
    apply(&mut state, OPP, Command::Bottom, 4);
    let deck = &state.decks[OPP];
    assert_eq!(
        &deck[deck.len() - 2..],
        &[top[0], top[3]],
        "the first put back is on top"
    );
    assert!(
        top[1..3]
            .iter()
            .chain(&top[4..])
            .all(|c| deck[..4].contains(c))
    );
}

#[test]
fn op_search_the_deck_eye_on_the_future() {
    let mut state = fresh();
    state.turn = 5;
    state.claimed[SUFF] = vec![113];
    state.hands[SUFF] = vec![3];
    apply(&mut state, SUFF, Command::Claimed { card: 113 }, 1);
    let Stop::Card { options, .. } = awaited(&state) else {
        panic!()
    };
    assert!(options.contains(&22));
    let mut log = Log::recording();
    let mut rng = GameRng::new(&Seed::from_number(99), 2);
    VotesForWomen::apply(
        &mut state,
        SUFF,
        &Command::Card { card: 22 },
        &mut rng,
        &mut log,
    )
    .expect("the searched card is played");
    assert_eq!(
        log.lines().last().map(String::as_str),
        Some("{s0} shuffles the draw deck"),
        "the closing shuffle is in the log: {:?}",
        log.lines()
    );
    assert_eq!(state.buttons[SUFF], 4);
    assert!(!state.decks[SUFF].contains(&22));
    state.turn = 4;
    assert!(!super::rules::playable(&state, SUFF, 113, false));
}

#[test]
fn op_counter_strat_change_in_plans_and_riots() {
    let mut state = fresh();
    state.rest_of_turn = vec![79];
    state.claimed[SUFF] = vec![115, 108];
    state.hands[SUFF] = vec![3];
    apply(&mut state, SUFF, Command::Claimed { card: 115 }, 1);
    assert!(state.rest_of_turn.is_empty() && state.discards[OPP] == vec![79]);
    state.hands[OPP] = vec![71, 101, 102];
    state.claimed_done = false;
    apply(&mut state, SUFF, Command::Claimed { card: 108 }, 2);
    assert_eq!(
        awaited(&state),
        Stop::Card {
            options: vec![101, 102],
            bottom: false
        }
    );
    apply(&mut state, SUFF, Command::Card { card: 102 }, 3);
    assert_eq!(state.hands[OPP].len(), 3);
    assert!(!state.hands[OPP].contains(&102));
    state.hands[SUFF] = vec![3, 9, 10];
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 3,
            action: Action::Event,
        },
        4,
    );
    event(&mut state, OPP, 99);
    assert_eq!(
        state.hands[SUFF].len(),
        2,
        "two discarded at random, two drawn"
    );
}

#[test]
fn op_pay_buttons_and_claim_a_strategy_card_woodrow_wilson() {
    let mut state = fresh();
    state.hands[SUFF] = vec![39];
    assert!(!super::rules::playable(&state, SUFF, 39, true));
    state.buttons[SUFF] = 4;
    let c = state.strategy_face_up[0];
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 39,
            action: Action::Event,
        },
        1,
    );
    apply(&mut state, SUFF, Command::Card { card: c }, 2);
    assert_eq!(state.buttons[SUFF], 0);
    assert_eq!(state.claimed[SUFF], vec![c]);
}

#[test]
fn op_free_moves_and_a_campaign_transportation() {
    let mut state = fresh();
    state.campaigners = vec![Campaigner {
        colour: Colour::Red,
        region: Region::South,
    }];
    state.claimed[OPP] = vec![114];
    state.to_play = OPP;
    state.hands[OPP] = vec![101];
    apply(&mut state, OPP, Command::Claimed { card: 114 }, 1);
    assert_eq!(awaited(&state), Stop::Moves);
    apply(
        &mut state,
        OPP,
        Command::Moves {
            c1: Some(Region::West),
            c2: None,
            c3: None,
            c4: None,
        },
        2,
    );
    assert_eq!(state.campaigners[0].region, Region::West);
    let die = state.stack.last().unwrap().dice[0];
    let counts: Vec<u32> = Region::West
        .states()
        .map(|s| if s.code() == "CA" { u32::from(die) } else { 0 })
        .collect();
    apply(
        &mut state,
        OPP,
        Command::Assign {
            dice: vec![die],
            c1: Some(counts),
            c2: None,
            c3: None,
            c4: None,
            takes: None,
        },
        3,
    );
    assert_eq!(cubes(&state, "CA"), (0, 0, die));
}

#[test]
fn op_governor_clements_veto_and_claiming_a_state_card() {
    let mut state = fresh();
    state.amendment_sent = true;
    state.states[st("ME").0 as usize].mark = Some(Mark::Check);
    event(&mut state, OPP, 102);
    assert_eq!(state.states[st("ME").0 as usize].mark, Some(Mark::X));
    // The fourth cube claims a face-up State card (before the conversion).
    let mut state = fresh();
    let card = state.state_cards[0];
    let code = super::data::MAP
        .iter()
        .find(|s| s.card == Some(card))
        .unwrap()
        .code
        .clone();
    state.amendment_sent = true;
    state.states[st(&code).0 as usize].red = 3;
    state.place_cube(OPP, st(&code), super::board::Cube::Red, &mut Log::silent());
    assert_eq!(state.claimed[OPP], vec![card]);
    assert_eq!(state.states[st(&code).0 as usize].mark, Some(Mark::X));
}

#[test]
fn actions_organize_and_lobby() {
    let mut state = fresh();
    state.campaigners = vec![
        Campaigner {
            colour: Colour::Purple,
            region: Region::Northeast,
        },
        Campaigner {
            colour: Colour::Yellow,
            region: Region::Northeast,
        },
    ];
    state.hands[SUFF] = vec![3, 9];
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 3,
            action: Action::Organize,
        },
        1,
    );
    assert_eq!(state.buttons[SUFF], 2);
    state.to_play = SUFF;
    state.buttons[SUFF] = 0;
    apply(
        &mut state,
        SUFF,
        Command::Play {
            card: 9,
            action: Action::Lobby,
        },
        2,
    );
    let sixes = state
        .last_roll
        .as_ref()
        .unwrap()
        .2
        .iter()
        .filter(|&&d| d >= 6)
        .count() as u8;
    assert_eq!(state.congress, sixes);
    let frame = Frame::new(3, Script::Lobby, Source::Hand, SUFF);
    assert_eq!(frame.ip, 0);
}

#[test]
fn commands_round_trip_exactly() {
    for text in [
        r#"{"type":"play","card":3,"action":"event"}"#,
        r#"{"type":"commit","buttons":2}"#,
        r#"{"type":"commit","buttons":2,"card":105}"#,
        r#"{"type":"state","state":"CA","yellow":1}"#,
        r#"{"type":"assign","dice":[3,4],"c1":[0,1],"c2":[2]}"#,
        r#"{"type":"assign","dice":[3],"c1":[0,3],"takes":"yellow"}"#,
        r#"{"type":"place","cubes":[1,0],"takes":"purple"}"#,
        r#"{"type":"moves","c1":"west"}"#,
        r#"{"type":"end_turn"}"#,
    ] {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let command: Command = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(serde_json::to_value(&command).unwrap(), value);
    }
    assert!(serde_json::from_str::<Command>(r#"{"type":"card","card":3,"x":1}"#).is_err());
}

#[cfg(test)]
mod readings;

#[test]
fn the_typed_random_move_is_the_generic_players() {
    use super::stops::awaited_stop;
    let mut seen = std::collections::BTreeSet::new();
    let mut checked = 0;
    for version in 1..=VotesForWomen::RULES_VERSION {
        checked += crate::engine::testing::check_random_command::<VotesForWomen>(
            &Options::default(),
            2,
            version,
            0..200,
            |state, _| {
                let (_, stop) = awaited_stop(state).expect("a seat is awaited");
                seen.insert(match stop.as_ref() {
                    Stop::HandCard => "hand card",
                    Stop::AfterHand => "after hand",
                    Stop::Commit => "commit",
                    Stop::Answer => "answer",
                    Stop::Card { bottom: false, .. } => "card",
                    Stop::Card { bottom: true, .. } => "card or bottom",
                    Stop::Reroll => "reroll",
                    Stop::Place { reroll: false, .. } => "place",
                    Stop::Place { reroll: true, .. } => "place or reroll",
                    Stop::Remove { .. } => "remove",
                    Stop::States { .. } => "states",
                    Stop::State { yellow: None, .. } => "state",
                    Stop::State {
                        yellow: Some(_), ..
                    } => "state and yellow",
                    Stop::Region { .. } => "region",
                    Stop::Moves => "moves",
                    Stop::Campaign => "campaign",
                });
            },
        );
    }
    println!("{checked} moves checked, {} kinds of decision", seen.len());
    assert_eq!(seen.len(), 16, "decisions seen: {seen:?}");
}
