//! Scenario tests from the printed rules and the published clarification.

use super::*;
use crate::cards::{compare_rank_ev, highest_by_rank_ev};
use crate::engine::{Match, ParamKind, PickRule, Seed};
use std::cmp::Ordering;

fn c(code: &str) -> Card {
    Card::from_code(code).unwrap_or_else(|| panic!("no card {code}"))
}

fn cards(codes: &[&str]) -> Vec<Card> {
    codes.iter().map(|code| c(code)).collect()
}

fn act(state: &mut State, seat: Seat, command: Command) -> Result<(), RuleError> {
    let mut rng = GameRng::new(&Seed::from_number(7), 3);
    Statehood::apply(state, seat, &command, &mut rng, &mut Log::recording())
}

/// A hand in progress: the given hands, stock (top last) and discard pile; seat 0 to move.
fn table(hands: &[&[&str]], stock: &[&str], discard: &[&str]) -> State {
    let mut state = Match::<Statehood>::new(Options::default(), hands.len(), Seed::from_number(1))
        .unwrap()
        .state;
    state.hands = hands.iter().map(|h| cards(h)).collect();
    state.stock = cards(stock);
    state.discard = cards(discard);
    state.dealer = hands.len() - 1;
    state.turn = 0;
    state.phase = Phase::Turn;
    state.hand_number = 1;
    state
}

/// [`table`] in a game begun under rules version 1.
fn table_v1(hands: &[&[&str]], stock: &[&str], discard: &[&str]) -> State {
    let mut state = table(hands, stock, discard);
    state.rules_version = 1;
    state
}

const STOCK: &[&str] = &["ND", "SD", "MT", "WV", "ID", "NE", "KS", "MS", "AR", "IA"];

#[test]
fn virgin_islands_defended_by_georgia_is_16() {
    let mut state = table(
        &[
            &["VI", "GA", "AK", "WY", "VT", "DE", "RI"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
        ],
        STOCK,
        &["UT"],
    );
    act(
        &mut state,
        0,
        Command::DeclareWild {
            wildcard: c("VI"),
            defence: c("GA"),
        },
    )
    .unwrap();
    let declaration = state.declaration.clone().unwrap();
    assert_eq!(declaration.defence_total(), 16);
    assert_eq!((state.phase, state.turn), (Phase::Challenges, 1));
    // Seat 1 beats 16 with Texas (40): the wildcard goes to seat 1 with both cards beneath it.
    let err = act(
        &mut state,
        1,
        Command::Challenge {
            cards: cards(&["NC"]),
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a challenge must beat 16 electoral votes; yours has 16"
    );
    act(
        &mut state,
        1,
        Command::Challenge {
            cards: cards(&["TX"]),
        },
    )
    .unwrap();
    assert_eq!(state.scores, vec![0, 1]);
    assert_eq!(
        state.won[1],
        vec![WonCard {
            card: c("VI"),
            beneath: cards(&["GA", "TX"])
        }]
    );
    assert_eq!(
        state.hands[1].len(),
        7,
        "the challenger draws back to seven"
    );
    assert_eq!(state.hands[0].len(), 7, "the declarer draws back last");
    assert_eq!(
        (state.phase, state.turn),
        (Phase::Turn, 1),
        "play goes on to the declarer's left"
    );
}

#[test]
fn dc_defended_by_colorado_virginia_and_california_is_77() {
    let mut state = table(
        &[
            &["DC", "CO", "VA", "CA", "AK", "WY", "TX"],
            &["FL", "OH", "NC", "TN", "IN", "MO", "SC"],
        ],
        STOCK,
        &["UT"],
    );
    let err = act(
        &mut state,
        0,
        Command::DeclareDc {
            defence: cards(&["CO", "TX"]),
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("defend with blue cards"), "{err}");
    act(
        &mut state,
        0,
        Command::DeclareDc {
            defence: cards(&["CO", "VA", "CA"]),
        },
    )
    .unwrap();
    assert_eq!(state.declaration.as_ref().unwrap().defence_total(), 77);
    // Florida, Ohio and North Carolina make 63: not enough, and no blue cards may challenge.
    let err = act(
        &mut state,
        1,
        Command::Challenge {
            cards: cards(&["FL", "OH", "NC"]),
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a challenge must beat 77 electoral votes; yours has 63"
    );
    let offered = Statehood::choices(&state, 1);
    assert_eq!(
        offered.len(),
        1,
        "three red cards make at most 63: only Pass is offered"
    );
    let won_view = serde_json::to_value(Statehood::view(&state, Viewer::Seat(1))).unwrap();
    assert_eq!(won_view["high"]["total"], 77);
    act(&mut state, 1, Command::Pass).unwrap();
    assert_eq!(
        state.won[0],
        vec![WonCard {
            card: c("DC"),
            beneath: cards(&["CO", "VA", "CA"])
        }],
        "DC lies face up before its declarer, the defence beneath it"
    );
    assert_eq!(
        state.scores,
        vec![3, 0],
        "unchallenged, the declarer scores DC's 3 points"
    );
}

#[test]
fn challenges_10_11_pass_12_go_to_the_last_player() {
    // "defends it with 10 electoral votes. The player to his/her left challenges it with 11,
    // the next player passes, and the last player challenges with 12."
    let mut state = table(
        &[
            &["VI", "CO", "AK", "WY", "VT", "DE", "RI"],
            &["AZ", "ND", "SD", "MT", "WV", "ID", "NE"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["WA", "KS", "MS", "AR", "IA", "UT", "OK"],
        ],
        &[
            "KY", "AL", "LA", "SC", "HI", "ME", "NH", "NM", "CT", "NV", "OR", "MN",
        ],
        &["GU"],
    );
    act(
        &mut state,
        0,
        Command::DeclareWild {
            wildcard: c("VI"),
            defence: c("CO"),
        },
    )
    .unwrap();
    act(
        &mut state,
        1,
        Command::Challenge {
            cards: cards(&["AZ"]),
        },
    )
    .unwrap();
    let high = Statehood::view(&state, Viewer::Spectator).high.unwrap();
    assert_eq!(
        (high.total, high.seat),
        (11, 1),
        "the board shows the total to beat"
    );
    act(&mut state, 2, Command::Pass).unwrap();
    // The offered challenge only lets seat 3 pick a single card above 11.
    let offered = Statehood::choices(&state, 3);
    let challenge = offered
        .iter()
        .find(|c| c.command["type"] == "challenge")
        .unwrap();
    match &challenge.params[0].kind {
        ParamKind::Pick {
            options,
            min,
            max,
            rule,
        } => {
            assert_eq!((*min, *max), (1, 1));
            assert_eq!(*rule, PickRule::SumAbove { threshold: 11 });
            assert_eq!(options.len(), 7, "any card but Puerto Rico may challenge");
        }
        other => panic!("{other:?}"),
    }
    let err = act(
        &mut state,
        3,
        Command::Challenge {
            cards: cards(&["UT"]),
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("must beat 11"), "{err}");
    act(
        &mut state,
        3,
        Command::Challenge {
            cards: cards(&["WA"]),
        },
    )
    .unwrap();
    assert_eq!(
        state.scores,
        vec![0, 0, 0, 1],
        "the last player wins the Virgin Islands"
    );
    assert_eq!(state.won[3][0].beneath, cards(&["CO", "AZ", "WA"]));
    assert_eq!(
        state.hands[2].len(),
        7,
        "the player who passed does not draw"
    );
}

#[test]
fn puerto_rico_upcard_ends_the_hand_and_the_deal_passes_left() {
    let mut found = false;
    for n in 0..5000u64 {
        let mut state = Match::<Statehood>::new(Options::default(), 3, Seed::from_number(n))
            .unwrap()
            .state;
        let dealer = state.dealer;
        let mut log = Log::recording();
        play::deal(
            &mut state,
            &mut GameRng::new(&Seed::from_number(n), 1),
            &mut log,
        );
        let lines = log.take().join("\n");
        if lines.contains("Puerto Rico is turned up") {
            assert_ne!(state.discard.last(), Some(&puerto_rico()));
            assert_eq!(
                state.dealer,
                (dealer + 1) % 3,
                "the deal passed to the left"
            );
            assert_eq!(
                state.turn,
                (dealer + 2) % 3,
                "the new dealer's left plays first"
            );
            assert_eq!(
                state.hand_number, 3,
                "hand 2 ended at once; hand 3 is dealt"
            );
            found = true;
            break;
        }
    }
    assert!(found, "some seed turns up Puerto Rico");
}

#[test]
fn discarding_puerto_rico_forfeits_the_hand_and_the_points_won_in_it() {
    let mut state = table(
        &[
            &["PR", "AK", "WY", "VT", "DE", "RI", "NH"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["CA", "NY", "PA", "IL", "GA", "MI", "NJ"],
        ],
        STOCK,
        &["UT"],
    );
    let choices = Statehood::choices(&state, 0);
    assert!(
        choices[0].warning.as_deref().unwrap().contains("forfeits"),
        "the choice warns"
    );
    // Seat 0 won Guam and DC earlier in the hand (4 points), seat 1 the Virgin Islands.
    state.won[0] = vec![
        WonCard {
            card: c("GU"),
            beneath: cards(&["MT", "ND"]),
        },
        WonCard {
            card: c("DC"),
            beneath: cards(&["SD"]),
        },
    ];
    state.won[1] = vec![WonCard {
        card: c("VI"),
        beneath: cards(&["ID"]),
    }];
    state.scores = vec![10 + 4, 1, 0];
    let mut v1 = state.clone();
    act(&mut state, 0, Command::TakeDiscard { discard: c("PR") }).unwrap();
    assert_eq!(
        state.scores,
        vec![10, 7, 6],
        "the forfeiter's 4 are taken back"
    );
    assert_eq!(state.hand_number, 2, "a new hand is dealt");
    let end = state.last_hand.as_ref().unwrap();
    assert_eq!(end.points, vec![0, 7, 6], "every point of the hand");
    assert!(
        end.summary.contains("with the 4 points won in it"),
        "{}",
        end.summary
    );
    // Version 1 kept them, and its hand end held only the forfeit's points.
    v1.rules_version = 1;
    act(&mut v1, 0, Command::TakeDiscard { discard: c("PR") }).unwrap();
    assert_eq!(v1.scores, vec![14, 7, 6]);
    assert_eq!(v1.last_hand.as_ref().unwrap().points, vec![0, 6, 6]);
}

#[test]
fn every_other_player_holding_six_cards_must_challenge_puerto_rico() {
    // Seat 1 holds seven cards, Guam (1) and DC (3) among them; seat 2 only five after a
    // draw-back ran short. The declarer shows 95.
    let mut state = table(
        &[
            &["PR", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["WY", "VT", "DE", "RI", "NH", "GU", "DC"],
            &["VI", "AK", "ND", "SD", "MT"],
        ],
        STOCK,
        &["UT"],
    );
    act(&mut state, 0, Command::DeclarePuertoRico).unwrap();
    let before = state.clone();
    assert_eq!(
        act(&mut state, 1, Command::Pass).unwrap_err().to_string(),
        "every other player challenges Puerto Rico: lay down six cards"
    );
    assert_eq!(state, before);
    assert!(
        Statehood::choices(&state, 1)
            .iter()
            .all(|c| c.command["type"] == "challenge_puerto_rico")
    );
    let short = Statehood::choices(&state, 2);
    assert_eq!(short.len(), 1);
    assert_eq!(short[0].command["type"], "pass");
    // The clock commits the six cards with the most votes: all but Guam.
    let Command::ChallengePuertoRico { cards: mut clock } = Statehood::on_timeout(&state, 1) else {
        panic!("the clock challenges");
    };
    clock.sort();
    let mut best = cards(&["DC", "WY", "VT", "DE", "RI", "NH"]);
    best.sort();
    assert_eq!(clock, best);
    act(
        &mut state,
        1,
        Command::ChallengePuertoRico {
            cards: cards(&["WY", "VT", "DE", "RI", "NH", "GU"]),
        },
    )
    .unwrap();
    act(&mut state, 2, Command::Pass).unwrap();
    // Seat 1's challenge fails; their Guam and DC add to the declarer's 6; seat 2, too short to
    // challenge, is no challenger and adds nothing for the Virgin Islands.
    assert_eq!(state.scores, vec![6 + 1 + 3, 0, 0]);
}

#[test]
fn the_stock_running_out_forces_puerto_rico() {
    let mut state = table(
        &[
            &["AK", "WY", "VT", "DE", "RI", "NH", "ME"],
            &["PR", "FL", "OH", "NC", "TN", "IN", "MO"],
        ],
        &["ND"],
        &["UT"],
    );
    act(&mut state, 0, Command::Draw).unwrap();
    act(&mut state, 0, Command::Discard { card: c("ND") }).unwrap();
    assert_eq!((state.phase, state.turn), (Phase::ForcedPuertoRico, 1));
    let choices = Statehood::choices(&state, 1);
    assert_eq!(choices.len(), 1);
    assert!(act(&mut state, 1, Command::Draw).is_err());
    act(&mut state, 1, Command::DeclarePuertoRico).unwrap();
    assert_eq!(state.phase, Phase::PuertoRicoChallenges);
}

#[test]
fn a_successful_puerto_rico_challenge_scores_six() {
    // The declarer shows 0 + 30 + 17 + 16 + 11 + 11 + 10 = 95; seat 1's six make 130.
    let mut state = table(
        &[
            &["PR", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["CA", "NY", "PA", "IL", "GA", "AK", "VI"],
            &["WY", "VT", "DE", "RI", "NH", "ME", "DC"],
        ],
        STOCK,
        &["UT"],
    );
    act(&mut state, 0, Command::DeclarePuertoRico).unwrap();
    assert_eq!(Statehood::active(&state), vec![1, 2], "both answer at once");
    act(
        &mut state,
        2,
        Command::ChallengePuertoRico {
            cards: cards(&["WY", "VT", "DE", "RI", "NH", "ME"]),
        },
    )
    .unwrap();
    // Seat 2's answer stays sealed from seat 1 until all are in.
    let seen = serde_json::to_string(&Statehood::view(&state, Viewer::Seat(1))).unwrap();
    assert!(seen.contains("\"answered\":[true,false,true]"));
    assert!(!seen.contains("\"cards\""), "{seen}");
    let own = serde_json::to_value(Statehood::view(&state, Viewer::Seat(2))).unwrap();
    assert_eq!(
        own["puerto_rico"]["answers"][2]["cards"][0], "WY",
        "a seat sees its own sealed answer"
    );
    let offered = Statehood::choices(&state, 1);
    assert!(offered.iter().all(|c| c.sealed), "the choice is sealed");
    assert_eq!(
        offered.len(),
        1,
        "every other player holding six cards challenges"
    );
    assert!(
        offered[0].params[0].prompt.contains("more than 95"),
        "{}",
        offered[0].params[0].prompt
    );
    act(
        &mut state,
        1,
        Command::ChallengePuertoRico {
            cards: cards(&["CA", "NY", "PA", "IL", "GA", "AK"]),
        },
    )
    .unwrap();
    assert_eq!(state.scores, vec![0, 6, 0]);
    assert_eq!(state.hand_number, 2);
    // Revealed together: the next hand's board still shows the declarer's hand and both
    // challenges, to every seat and to spectators.
    let end = state.last_hand.as_ref().unwrap();
    let reveal = end.puerto_rico.as_ref().unwrap();
    assert_eq!(reveal.defence(), 95);
    assert_eq!(
        reveal.challenges(),
        vec![
            (1, cards(&["CA", "NY", "PA", "IL", "GA", "AK"]).as_slice()),
            (2, cards(&["WY", "VT", "DE", "RI", "NH", "ME"]).as_slice())
        ]
    );
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let seen = serde_json::to_value(Statehood::view(&state, viewer)).unwrap();
        assert_eq!(
            seen["last_hand"]["puerto_rico"]["answers"][2]["cards"],
            serde_json::json!(["WY", "VT", "DE", "RI", "NH", "ME"])
        );
    }
}

#[test]
fn version_1_an_unsuccessful_puerto_rico_challenge_gives_the_declarer_the_bonus() {
    // Seat 1 challenges with 21 against 95 and holds Guam (1) and DC (3); seat 2 passes and
    // its Virgin Islands do not count.
    let mut state = table_v1(
        &[
            &["PR", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["WY", "VT", "DE", "RI", "NH", "GU", "DC"],
            &["VI", "CA", "NY", "PA", "IL", "GA", "AK"],
        ],
        STOCK,
        &["UT"],
    );
    act(&mut state, 0, Command::DeclarePuertoRico).unwrap();
    act(
        &mut state,
        1,
        Command::ChallengePuertoRico {
            cards: cards(&["WY", "VT", "DE", "RI", "NH", "GU"]),
        },
    )
    .unwrap();
    act(&mut state, 2, Command::Pass).unwrap();
    assert_eq!(state.scores, vec![6 + 1 + 3, 0, 0]);
    assert!(state.last_hand.as_ref().unwrap().summary.contains("plus 4"));
}

#[test]
fn the_game_goes_on_while_the_leaders_are_tied_above_the_target() {
    let mut state = table(
        &[
            &["PR", "AK", "WY", "VT", "DE", "RI", "NH"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["CA", "NY", "PA", "IL", "GA", "MI", "NJ"],
        ],
        STOCK,
        &["UT"],
    );
    state.scores = vec![10, 52, 52];
    act(&mut state, 0, Command::TakeDiscard { discard: c("PR") }).unwrap();
    assert_eq!(state.scores, vec![10, 58, 58]);
    assert!(state.outcome.is_none(), "58–58: play goes on");
    let mut state = table(
        &[
            &["PR", "AK", "WY", "VT", "DE", "RI", "NH"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["CA", "NY", "PA", "IL", "GA", "MI", "NJ"],
        ],
        STOCK,
        &["UT"],
    );
    state.scores = vec![10, 52, 50];
    act(&mut state, 0, Command::TakeDiscard { discard: c("PR") }).unwrap();
    assert_eq!(state.outcome.as_ref().unwrap().winners, vec![1]);
}

#[test]
fn tie_rule_queen_of_hearts_played_first_beats_queen_of_diamonds() {
    let (tn, ind) = (c("TN"), c("IN"));
    assert_eq!((tn.rank(), tn.ev()), (ind.rank(), ind.ev()));
    assert_eq!(compare_rank_ev(tn, ind), Ordering::Equal);
    assert_eq!(highest_by_rank_ev(&[tn, ind]), Some(0), "Q♥ first wins");
    assert_eq!(
        highest_by_rank_ev(&[ind, tn]),
        Some(0),
        "whichever is first"
    );
    assert_eq!(
        compare_rank_ev(c("OH"), c("NC")),
        Ordering::Greater,
        "K♥ 17 beats K♦ 16"
    );
}

#[test]
fn drawing_then_keeping_or_discarding() {
    let mut state = table(
        &[
            &["AK", "WY", "VT", "DE", "RI", "NH", "ME"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
        ],
        STOCK,
        &["UT"],
    );
    act(&mut state, 0, Command::Draw).unwrap();
    assert_eq!(state.drawn, Some(c("IA")));
    assert!(
        Statehood::view(&state, Viewer::Seat(1)).drawn.is_none(),
        "only the drawer sees it"
    );
    act(&mut state, 0, Command::Discard { card: c("AK") }).unwrap();
    assert!(state.hands[0].contains(&c("IA")), "kept the drawn card");
    assert_eq!(state.discard.last(), Some(&c("AK")));
    assert_eq!(state.turn, 1);
}

#[test]
fn tie_rule_in_a_challenge_the_total_played_first_wins() {
    // Tennessee (Q♥ 11) defends the Virgin Islands; Indiana (Q♦ 11) cannot beat it: equal
    // electoral votes, and the card played first is high. So it is not a challenge at all.
    let hands: &[&[&str]] = &[
        &["VI", "TN", "AK", "WY", "VT", "DE", "RI"],
        &["IN", "NH", "ME", "HI", "NM", "ND", "SD"],
        &["AZ", "WV", "ID", "NE", "KS", "MS", "AR"],
    ];
    let mut state = table(hands, STOCK, &["UT"]);
    act(
        &mut state,
        0,
        Command::DeclareWild {
            wildcard: c("VI"),
            defence: c("TN"),
        },
    )
    .unwrap();
    assert_eq!(
        Statehood::choices(&state, 1).len(),
        1,
        "no challenge is offered: Indiana only ties"
    );
    let before = state.clone();
    let err = act(
        &mut state,
        1,
        Command::Challenge {
            cards: cards(&["IN"]),
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a challenge must beat 11 electoral votes; yours has 11"
    );
    assert_eq!(state, before, "the refusal changes nothing");
    act(&mut state, 1, Command::Pass).unwrap();
    assert!(
        act(
            &mut state,
            2,
            Command::Challenge {
                cards: cards(&["AZ"]),
            },
        )
        .is_err(),
        "rank plays no part: Arizona (10♣, 11) does not beat Tennessee's 11 either"
    );
    act(&mut state, 2, Command::Pass).unwrap();
    assert_eq!(state.scores, vec![1, 0, 0], "Q♥ played first keeps it");

    // The other way round the card played first wins too: Q♦ defending, Q♥ cannot beat it.
    let hands: &[&[&str]] = &[
        &["VI", "IN", "AK", "WY", "VT", "DE", "RI"],
        &["TN", "NH", "ME", "HI", "NM", "ND", "SD"],
        &["MT", "WV", "ID", "NE", "KS", "MS", "AR"],
    ];
    let mut state = table(hands, STOCK, &["UT"]);
    act(
        &mut state,
        0,
        Command::DeclareWild {
            wildcard: c("VI"),
            defence: c("IN"),
        },
    )
    .unwrap();
    assert!(
        act(
            &mut state,
            1,
            Command::Challenge {
                cards: cards(&["TN"]),
            },
        )
        .is_err()
    );
}

#[test]
fn equal_successful_puerto_rico_challenges_go_to_the_first_from_the_declarers_left() {
    // The declarer shows 21; seats 1 and 2 both commit 96. Seat 2 answers first, but sealed
    // answers have no order: the first from the declarer's left (seat 1) plays first and wins.
    let mut state = table(
        &[
            &["PR", "AK", "WY", "VT", "DE", "SD", "KS"],
            &["PA", "IL", "GA", "MI", "NJ", "VA", "CO"],
            &["TX", "FL", "TN", "ND", "UT", "MS", "IA"],
        ],
        STOCK,
        &["ME"],
    );
    act(&mut state, 0, Command::DeclarePuertoRico).unwrap();
    act(
        &mut state,
        2,
        Command::ChallengePuertoRico {
            cards: cards(&["TX", "FL", "TN", "ND", "UT", "MS"]),
        },
    )
    .unwrap();
    act(
        &mut state,
        1,
        Command::ChallengePuertoRico {
            cards: cards(&["PA", "IL", "GA", "MI", "NJ", "VA"]),
        },
    )
    .unwrap();
    assert_eq!(state.scores, vec![0, 6, 0]);
    let reveal = state
        .last_hand
        .as_ref()
        .unwrap()
        .puerto_rico
        .clone()
        .unwrap();
    assert_eq!(reveal.winner(), Some((1, 96)));
}

#[test]
fn the_stock_running_out_while_drawing_back_forces_puerto_rico() {
    // One card left: the challenger draws it, the declarer draws nothing (five cards), and
    // the holder of Puerto Rico, who passed, must declare at once.
    // Version 1, where the last player could still decline to challenge.
    let mut state = table_v1(
        &[
            &["VI", "GA", "AK", "WY", "VT", "DE", "RI"],
            &["TX", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["PR", "CA", "NY", "PA", "IL", "MI", "NJ"],
        ],
        &["ND"],
        &["UT"],
    );
    act(
        &mut state,
        0,
        Command::DeclareWild {
            wildcard: c("VI"),
            defence: c("GA"),
        },
    )
    .unwrap();
    act(
        &mut state,
        1,
        Command::Challenge {
            cards: cards(&["TX"]),
        },
    )
    .unwrap();
    act(&mut state, 2, Command::Pass).unwrap();
    assert_eq!(state.scores, vec![0, 1, 0]);
    assert!(state.stock.is_empty());
    assert_eq!(
        state.hands.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![5, 7, 7]
    );
    assert!(
        state.hands[1].contains(&c("ND")),
        "the challenger drew first"
    );
    assert_eq!((state.phase, state.turn), (Phase::ForcedPuertoRico, 2));
    let offered = Statehood::choices(&state, 2);
    assert_eq!(offered.len(), 1, "declaring is the only choice");
    act(&mut state, 2, Command::DeclarePuertoRico).unwrap();
    // Five cards cannot make a six-card challenge: seat 0 may only decline.
    assert_eq!(Statehood::choices(&state, 0).len(), 1);
    assert!(
        act(
            &mut state,
            0,
            Command::ChallengePuertoRico {
                cards: cards(&["AK", "WY", "VT", "DE", "RI", "ND"]),
            },
        )
        .is_err()
    );
    act(&mut state, 0, Command::Pass).unwrap();
    act(&mut state, 1, Command::Pass).unwrap();
    assert_eq!(
        state.scores,
        vec![0, 1, 6],
        "unchallenged, the declarer scores 6 and no bonus"
    );
}

#[test]
fn the_auditor_view_holds_the_stock_in_order_and_the_whole_discard_pile() {
    let state = table(
        &[
            &["PR", "FL", "OH", "NC", "TN", "IN", "MO"],
            &["WY", "VT", "DE", "RI", "NH", "GU", "DC"],
        ],
        STOCK,
        &["UT", "KY"],
    );
    let auditor = serde_json::to_value(Statehood::view(&state, Viewer::Auditor)).unwrap();
    assert_eq!(auditor["stock"], serde_json::json!(STOCK));
    assert_eq!(auditor["discard"], serde_json::json!(["UT", "KY"]));
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        let seen = serde_json::to_value(Statehood::view(&state, viewer)).unwrap();
        assert!(seen["stock"].is_null() && seen["discard"].is_null());
    }
}

#[test]
fn decode_reads_every_command_as_the_derived_deserialize_does() {
    let direct = crate::games::decode_checks::check_against_derived(
        "statehood",
        4,
        <Statehood as crate::engine::Rules>::decode,
        super::state::direct,
    );
    assert!(direct > 100, "{direct} commands read directly");
}
