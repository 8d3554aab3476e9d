//! The engine exercised through a toy game: three rounds of sealed high-card between two
//! seats, each holding three hidden numbered cards.

use super::testing::check_playout;
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

struct HighCard;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
struct State {
    hands: Vec<Vec<u8>>,
    sealed: Vec<Option<u8>>,
    points: Vec<i64>,
    round: u8,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Command {
    Play { card: u8 },
}

impl Rules for HighCard {
    const ID: &'static str = "toy";
    const NAME: &'static str = "Toy";
    const RULES_VERSION: u32 = 1;
    type Options = ();
    type State = State;
    type Command = Command;
    type View = State;

    fn seat_counts() -> (usize, usize) {
        (2, 2)
    }
    fn option_specs() -> Vec<OptionSpec> {
        Vec::new()
    }
    fn setup(_: &(), seats: usize, rng: &mut GameRng) -> Result<State, SetupError> {
        let mut deck: Vec<u8> = (10..30).collect();
        rng.shuffle(&mut deck);
        Ok(State {
            hands: deck.chunks(3).take(seats).map(<[u8]>::to_vec).collect(),
            sealed: vec![None; seats],
            points: vec![0; seats],
            round: 0,
        })
    }
    fn active(state: &State) -> Vec<Seat> {
        if state.round == 3 {
            return Vec::new();
        }
        (0..2).filter(|&s| state.sealed[s].is_none()).collect()
    }
    fn choices(state: &State, seat: Seat) -> Vec<Choice> {
        if !Self::active(state).contains(&seat) {
            return Vec::new();
        }
        let options = state.hands[seat]
            .iter()
            .map(|&c| PickOption::new(c, c.to_string()))
            .collect();
        vec![
            Choice::action("Play", json!({"type": "play"}))
                .with_param("card", "Which card?", ParamKind::One { options })
                .sealed(),
        ]
    }
    fn apply(
        state: &mut State,
        seat: Seat,
        command: &Command,
        _: &mut GameRng,
        log: &mut Log,
    ) -> Result<(), RuleError> {
        let Command::Play { card } = *command;
        let index = state.hands[seat]
            .iter()
            .position(|&c| c == card)
            .ok_or_else(|| RuleError::illegal("you do not hold that card"))?;
        state.hands[seat].remove(index);
        state.sealed[seat] = Some(card);
        log.push(|| format!("{} plays a sealed card", log::who(seat)));
        if let [Some(a), Some(b)] = state.sealed[..] {
            state.points[usize::from(b > a)] += 1;
            state.sealed = vec![None, None];
            state.round += 1;
            log.push(|| format!("revealed: {a} against {b}"));
        }
        Ok(())
    }
    fn position(view: &State, names: &super::present::Names) -> super::present::Position {
        super::present::labelled(&[(
            "Points".into(),
            format!(
                "{} {}, {} {}",
                names.of(0),
                view.points[0],
                names.of(1),
                view.points[1]
            ),
        )])
    }
    fn view(state: &State, viewer: Viewer) -> State {
        let mut view = state.clone();
        for seat in 0..2 {
            if !viewer.sees_seat(seat) {
                view.hands[seat].clear();
                view.sealed[seat] = view.sealed[seat].map(|_| 0);
            }
        }
        view
    }
    fn outcome(state: &State) -> Option<Outcome> {
        (state.round == 3).then(|| Outcome {
            winners: vec![usize::from(state.points[1] > state.points[0])],
            scores: state.points.clone(),
            reason: "three rounds played".into(),
        })
    }
    fn ending(
        view: &State,
        outcome: &Outcome,
        names: &crate::engine::present::Names,
    ) -> crate::engine::present::Ending {
        let label = |seat: Seat| names.of(seat);
        crate::engine::present::Ending {
            verdict: crate::engine::present::verdict(outcome, names, &label),
            tally: crate::engine::present::score_rows(&view.points, &label, "point"),
        }
    }
    fn on_timeout(state: &State, seat: Seat) -> Command {
        Command::Play {
            card: state.hands[seat][0],
        }
    }

    fn redacted(_state: &State, _seat: Seat, _command: &Command) -> Option<serde_json::Value> {
        None
    }
}

fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    let mut hidden = Vec::new();
    for seat in 0..2 {
        if !viewer.sees_seat(seat) {
            hidden.extend(state.hands[seat].iter().map(|c| format!("{c},")));
            hidden.extend(state.sealed[seat].map(|c| format!("{c}")));
        }
    }
    hidden
}

#[test]
fn contract_holds_for_many_seeds() {
    for n in 0..200 {
        let played = check_playout::<HighCard>((), 2, Seed::from_number(n), secrets);
        assert_eq!(played, 6);
    }
}

#[test]
fn same_seed_same_deal_other_seed_other_deal() {
    let a = Match::<HighCard>::new((), 2, Seed::from_number(3)).unwrap();
    let b = Match::<HighCard>::new((), 2, Seed::from_number(3)).unwrap();
    let c = Match::<HighCard>::new((), 2, Seed::from_number(4)).unwrap();
    assert_eq!(a.state, b.state);
    assert_ne!(a.state, c.state);
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn refused_command_changes_nothing_and_says_why() {
    let mut m = Match::<HighCard>::new((), 2, Seed::from_number(3)).unwrap();
    let before = m.state.clone();
    let err = m
        .apply(0, &Command::Play { card: 99 }, &mut Log::silent())
        .unwrap_err();
    assert_eq!(err.to_string(), "you do not hold that card");
    assert_eq!(m.state, before);
    assert_eq!(m.applied, 0);
}

#[test]
fn seat_that_already_chose_is_not_awaited() {
    let mut m = Match::<HighCard>::new((), 2, Seed::from_number(3)).unwrap();
    let card = m.state.hands[0][0];
    m.apply(0, &Command::Play { card }, &mut Log::silent())
        .unwrap();
    assert_eq!(HighCard::active(&m.state), vec![1]);
    let again = m.state.hands[0][0];
    assert_eq!(
        m.apply(0, &Command::Play { card: again }, &mut Log::silent()),
        Err(RuleError::NotYourTurn)
    );
}

#[test]
fn choice_build_checks_every_param_kind() {
    let pick = Choice::action("Challenge", json!({"type": "challenge"})).with_param(
        "cards",
        "Which red cards?",
        ParamKind::Pick {
            options: vec![
                PickOption::new("TX", "Texas").weighted(40),
                PickOption::new("OH", "Ohio").weighted(17),
                PickOption::new("AK", "Alaska").weighted(3),
            ],
            min: 1,
            max: 2,
            rule: PickRule::SumAbove { threshold: 18 },
        },
    );
    assert_eq!(
        pick.build(&[json!(["TX"])]).unwrap(),
        json!({"type": "challenge", "cards": ["TX"]})
    );
    assert!(
        pick.build(&[json!(["OH"])]).is_err(),
        "17 does not exceed 18"
    );
    assert!(pick.build(&[json!(["OH", "AK"])]).is_ok(), "20 exceeds 18");
    assert!(pick.build(&[json!(["TX", "TX"])]).is_err(), "no duplicates");
    assert!(
        pick.build(&[json!(["TX", "OH", "AK"])]).is_err(),
        "at most 2"
    );
    assert!(pick.build(&[]).is_err(), "missing value");
    let bid = Choice::action("Bid", json!({"type": "bid"})).with_param(
        "amount",
        "How much?",
        ParamKind::Number {
            min: 270,
            max: 530,
            step: 10,
        },
    );
    assert!(bid.build(&[json!(300)]).is_ok());
    assert!(bid.build(&[json!(305)]).is_err());
    assert!(bid.build(&[json!(260)]).is_err());
    let cubes = Choice::action("Place", json!({"type": "place"})).with_param(
        "counts",
        "Place 4 cubes",
        ParamKind::Distribute {
            options: vec![
                PickOption::new("NY", "New York"),
                PickOption::new("OH", "Ohio"),
            ],
            total: 4,
            max_each: 3,
        },
    );
    assert!(cubes.build(&[json!([3, 1])]).is_ok());
    assert!(cubes.build(&[json!([4, 0])]).is_err());
    assert!(cubes.build(&[json!([2, 1])]).is_err());
    let meld = Choice::action("Meld", json!({"type": "meld"})).with_param(
        "cards",
        "Which cards?",
        ParamKind::Pick {
            options: vec![
                PickOption::new("CA", "A♠").grouped("A"),
                PickOption::new("TX", "A♥").grouped("A"),
                PickOption::new("NY", "A♣").grouped("A"),
                PickOption::new("OH", "K♥").grouped("K"),
            ],
            min: 3,
            max: 4,
            rule: PickRule::SameGroup,
        },
    );
    assert!(meld.build(&[json!(["CA", "TX", "NY"])]).is_ok());
    assert!(meld.build(&[json!(["CA", "TX", "OH"])]).is_err());
}

#[test]
fn random_fill_always_satisfies_the_rules() {
    let mut rng = GameRng::new(&Seed::from_number(5), 0);
    let choice = Choice::action("Challenge", json!({"type": "challenge"})).with_param(
        "cards",
        "Which?",
        ParamKind::Pick {
            options: (1..=7)
                .map(|w| PickOption::new(w, w.to_string()).weighted(w))
                .collect(),
            min: 1,
            max: 3,
            rule: PickRule::SumAbove { threshold: 17 },
        },
    );
    for _ in 0..200 {
        let command = bot::fill_at_random(&choice, &mut rng);
        let sum: i64 = command["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .sum();
        assert!(sum > 17);
    }
}

#[test]
fn each_allot_option_finds_the_first_cap_of_its_group_in_any_order() {
    let option = |group: &'static str| PickOption::new(0, group).grouped(group);
    let cap = |group: &'static str| GroupCap {
        group: group.into(),
        cap: 1,
    };
    let options = [
        option("CA"),
        option("CA"),
        PickOption::new(0, "loose"),
        option("TX"),
        option("NY"),
        option("CA"),
        option("WY"),
    ];
    let in_order = [cap("CA"), cap("TX"), cap("NY")];
    assert_eq!(
        choice::group_indices(&options, &in_order),
        [Some(0), Some(0), None, Some(1), Some(2), Some(0), None]
    );
    let repeated = [cap("TX"), cap("CA"), cap("TX"), cap("NY"), cap("CA")];
    assert_eq!(
        choice::group_indices(&options, &repeated),
        [Some(1), Some(1), None, Some(0), Some(3), Some(1), None]
    );
}
