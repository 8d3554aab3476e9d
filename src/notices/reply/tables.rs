//! Reply lines against real choices from real positions of each game.

use crate::engine::bot::{bot_rng, fill_at_random};
use crate::engine::{Choice, Log, Match, ParamKind, PickOption, Rules, Seed};
use crate::notices::reply::{option_codes, read};
use serde_json::{Value, json};

/// Plays random games of `R` until a seat's choices satisfy `wanted`; returns them.
pub fn find<R: Rules>(
    options: R::Options,
    seats: usize,
    mut wanted: impl FnMut(&[Choice]) -> bool,
) -> Vec<Choice>
where
    R::Options: Clone,
{
    for n in 0..200 {
        let seed = Seed::from_number(n);
        let mut live = Match::<R>::new(options.clone(), seats, seed).expect("setup");
        let mut rng = bot_rng(&seed);
        for _ in 0..20_000 {
            let active = R::active(&live.state);
            if active.is_empty() {
                break;
            }
            let seat = active[rng.index(active.len())];
            let choices = R::choices(&live.state, seat);
            if wanted(&choices) {
                return choices;
            }
            let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            let typed: R::Command = serde_json::from_value(command).expect("parses");
            live.apply(seat, &typed, &mut Log::silent()).expect("legal");
        }
    }
    panic!("no position with the wanted choices");
}

/// A line and what it must give: the command, or words of the refusal.
fn check(choices: &[Choice], line: &str, expected: Result<&Value, &str>) {
    let got = read(line, choices);
    match (expected, &got) {
        (Ok(command), Ok(r)) => assert_eq!(&r.command, command, "{line:?}"),
        (Err(words), Err(e)) => {
            assert!(
                e.to_string().contains(words),
                "{line:?}: {e} lacks {words:?}"
            )
        }
        _ => panic!("{line:?}: expected {expected:?}, got {got:?}\n{choices:#?}"),
    }
}

fn options(choice: &Choice, param: usize) -> &[PickOption] {
    match &choice.params[param].kind {
        ParamKind::One { options }
        | ParamKind::Pick { options, .. }
        | ParamKind::Allot { options, .. }
        | ParamKind::Distribute { options, .. } => options,
        ParamKind::Number { .. } => panic!("no options"),
    }
}

fn code(choice: &Choice, param: usize, option: usize) -> String {
    option_codes(options(choice, param))[option]
        .expect("a printed code")
        .to_string()
}

fn one_card(choice: &Choice, option: usize) -> Value {
    choice
        .build(&[options(choice, 0)[option].value.clone().into_owned()])
        .unwrap()
}

fn labels(choices: &[Choice]) -> Vec<&str> {
    choices.iter().map(|c| c.label.as_ref()).collect()
}

#[test]
fn whitehouse_lines() {
    use crate::games::whitehouse::Whitehouse;
    let c = find::<Whitehouse>(Default::default(), 4, |c| labels(c) == ["Play a card"]);
    let play = &c[0];
    let card = &options(play, 0)[0];
    let want = one_card(play, 0);
    let label = card.label.to_string();
    let bare = label.split(" (").next().unwrap().to_string();
    let face = bare.split(' ').next().unwrap().to_string();
    let name = bare
        .split_once(' ')
        .map(|(_, n)| n.to_string())
        .unwrap_or(bare.clone());
    let first = code(play, 0, 0);
    for line in [
        format!("1 {first}"),
        format!("play {}", first.to_lowercase()),
        label.clone(),
        bare.clone(),
        format!("1 {label}"),
        format!("Play a card: {bare}"),
        face.replace('♥', "H")
            .replace('♠', "S")
            .replace('♦', "D")
            .replace('♣', "C"),
        name.to_uppercase(),
        first.clone(),
    ] {
        check(&c, &line, Ok(&want));
    }
    check(&c, "play XX", Err("\"xx\" is not one of the options"));
    check(&c, "2", Err("there is no choice 2"));
    check(&c, "fold", Err("\"fold\" names none"));

    let c = find::<Whitehouse>(Default::default(), 4, |c| {
        c.len() == 4 && c[0].label.starts_with("Name")
    });
    check(&c, "hearts", Ok(&c[1].command));
    check(&c, "name ♣ trump", Ok(&c[3].command));
    check(
        &c,
        "trump",
        Err("could be 1 (Name spades ♠ trump) or 2 (Name hearts ♥ trump) or 3"),
    );

    let c = find::<Whitehouse>(Default::default(), 4, |c| labels(c) == ["Pass", "Bid"]);
    check(&c, "bid 300", Ok(&json!({"type": "bid", "amount": 300})));
    check(&c, "2 300", Ok(&json!({"type": "bid", "amount": 300})));
    check(&c, "pass", Ok(&json!({"type": "pass"})));
    check(&c, "300", Err("there is no choice 300"));
    check(&c, "bid lots", Err("not a whole number"));

    let c = find::<Whitehouse>(Default::default(), 4, |c| {
        labels(c) == ["Put the kitty back"]
    });
    let kitty = &c[0];
    let six: Vec<usize> = (0..6).collect();
    let want = kitty
        .build(&[Value::Array(
            six.iter()
                .map(|&i| options(kitty, 0)[i].value.clone().into_owned())
                .collect(),
        )])
        .unwrap();
    let codes: Vec<String> = six.iter().map(|&i| code(kitty, 0, i)).collect();
    let words: Vec<String> = six
        .iter()
        .map(|&i| options(kitty, 0)[i].label.to_string())
        .collect();
    check(&c, &format!("1 {}", codes.join(" ")), Ok(&want));
    check(&c, &format!("1 {}", codes.join(", ")), Ok(&want));
    check(&c, &format!("put back {}", words.join(", ")), Ok(&want));
    check(
        &c,
        &format!("1 {}", codes[..5].join(" ")),
        Err("Choose 6; you chose 5"),
    );
}

#[test]
fn statehood_lines() {
    use crate::games::statehood::Statehood;
    let c = find::<Statehood>(Default::default(), 3, |c| {
        c.len() == 1 && c[0].label == "Discard a card"
    });
    let keep = &c[0];
    let drawn = &options(keep, 0)[0];
    let name = drawn
        .label
        .split(" (")
        .next()
        .unwrap()
        .split_once(' ')
        .map_or(drawn.label.to_string(), |(_, n)| n.to_string());
    let want = one_card(keep, 0);
    for line in [
        format!("discard {name}"),
        name.clone(),
        code(keep, 0, 0),
        format!("1 {}", code(keep, 0, 0)),
    ] {
        check(&c, &line, Ok(&want));
    }
    let other = one_card(keep, 3);
    check(&c, &format!("discard {}", code(keep, 0, 3)), Ok(&other));
    check(&c, "keep", Err("names none of the choices"));

    // A card that is an option of two choices names neither alone.
    let c = find::<Statehood>(Default::default(), 3, |c| {
        c.len() >= 3
            && c[0].label.starts_with("Take")
            && c[2].label.starts_with("Declare statehood for")
            && matches!(
                c[2].params.first().map(|p| &p.kind),
                Some(ParamKind::One { .. })
            )
    });
    let take = &c[0];
    let defend = &c[2];
    let shared = options(defend, 0)[0].clone();
    let line = option_codes(std::slice::from_ref(&shared))[0]
        .unwrap()
        .to_string();
    let e = read(&line, &c).unwrap_err().to_string();
    assert!(
        e.contains(&format!("1 ({}: {})", take.label, shared.label))
            && e.contains(&format!("3 ({}: {})", defend.label, shared.label)),
        "{e}"
    );
    check(
        &c,
        &format!("3 {line}"),
        Ok(&defend.build(&[shared.value.clone().into_owned()]).unwrap()),
    );
    check(&c, "draw", Ok(&json!({"type": "draw"})));
}

#[test]
fn electoral_combat_lines() {
    use crate::games::electoral_combat::ElectoralCombat;
    let c = find::<ElectoralCombat>(Default::default(), 2, |c| {
        labels(c) == ["Turn over a card"] && options(&c[0], 0).len() >= 3
    });
    let turn = &c[0];
    let last = options(turn, 0).len() - 1;
    let want = one_card(turn, last);
    let label = options(turn, 0)[last].label.to_string();
    let number = code(turn, 0, last);
    assert_eq!(label, format!("face-down card {number}"));
    for line in [
        format!("1 {number}"),
        label.clone(),
        format!("turn over {label}"),
        format!("turn {number}"),
    ] {
        check(&c, &line, Ok(&want));
    }
    check(&c, "turn 9", Err("\"9\" is not one of the options"));

    let c = find::<ElectoralCombat>(Default::default(), 2, |c| {
        c.len() == 3 && c[0].label.starts_with("Russian")
    });
    check(&c, "scissors", Ok(&c[2].command));
    check(&c, "Russian Collusion: rock", Ok(&c[0].command));
    check(
        &c,
        "russian collusion",
        Err("could be 1 (Russian Collusion: rock) or 2"),
    );

    let c = find::<ElectoralCombat>(Default::default(), 2, |c| {
        c.len() == 2
            && c[1].label.starts_with("Take the lower card")
            && options(&c[1], 0).len() >= 2
    });
    let lower = &c[1];
    let want = lower
        .build(&[Value::Array(
            options(lower, 0)[..2]
                .iter()
                .map(|o| o.value.clone().into_owned())
                .collect(),
        )])
        .unwrap();
    check(
        &c,
        &format!("2 {} {}", code(lower, 0, 0), code(lower, 0, 1)),
        Ok(&want),
    );
    check(
        &c,
        &format!(
            "take the lower card {}, {}",
            options(lower, 0)[0].label,
            options(lower, 0)[1].label
        ),
        Ok(&want),
    );
}

#[test]
fn nationhood_lines() {
    use crate::games::nationhood::Nationhood;
    let c = find::<Nationhood>(Default::default(), 2, |c| {
        c.len() == 2 && c[0].label.starts_with("Make a city") && c[1].label.starts_with("Discard")
    });
    let city = &c[0];
    let n = match &city.params[0].kind {
        ParamKind::Pick { min, .. } => *min,
        _ => panic!("a pick"),
    };
    let want = city
        .build(&[Value::Array(
            options(city, 0)[..n]
                .iter()
                .map(|o| o.value.clone().into_owned())
                .collect(),
        )])
        .unwrap();
    let codes: Vec<String> = (0..n).map(|i| code(city, 0, i)).collect();
    let faces: Vec<String> = (0..n)
        .map(|i| options(city, 0)[i].label.to_string())
        .collect();
    check(&c, &format!("1 {}", codes.join(" ")), Ok(&want));
    check(
        &c,
        &format!("{} {}", city.label, faces.join(" ")),
        Ok(&want),
    );
    // A card of the city is also a card to discard: alone, only the discard is a command.
    let first = &options(city, 0)[0];
    let discard = &c[1];
    let line = code(city, 0, 0);
    let thrown = discard.build(&[first.value.clone().into_owned()]).unwrap();
    check(&c, &line, Ok(&thrown));
    check(&c, &format!("discard {line}"), Ok(&thrown));
    check(&c, &format!("1 {line}"), Err("; you chose 1"));
}

#[test]
fn votes_for_women_lines() {
    use crate::games::votes_for_women::VotesForWomen;
    // Purple and yellow cubes into the states of a region: two options per state.
    let c = find::<VotesForWomen>(Default::default(), 2, |c| {
        c.first().is_some_and(|c| {
            c.label == "Place the cubes"
                && matches!(&c.params[0].kind, ParamKind::Allot { options, total, .. }
                    if *total >= 2 && options.len() >= 4 && options[0].value == options[1].value)
        })
    });
    let place = &c[0];
    let opts = options(place, 0);
    let codes: Vec<String> = (0..opts.len()).map(|i| code(place, 0, i)).collect();
    let mut distinct = codes.clone();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        codes.len(),
        "every option its own code: {codes:?}"
    );
    assert!(
        codes[0].ends_with("-P") && codes[1].ends_with("-Y"),
        "{codes:?}"
    );
    let mut rng = bot_rng(&Seed::from_number(3));
    for _ in 0..10 {
        let want = fill_at_random(place, &mut rng);
        let counts: Vec<u64> = want["cubes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let placed: Vec<(usize, u64)> = counts
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, n)| *n > 0)
            .collect();
        let eq = placed
            .iter()
            .map(|(i, n)| format!("{}={n}", codes[*i]))
            .collect::<Vec<_>>()
            .join(" ");
        let before = placed
            .iter()
            .map(|(i, n)| format!("{n} {}", codes[*i]))
            .collect::<Vec<_>>()
            .join(", ");
        let repeated = placed
            .iter()
            .flat_map(|(i, n)| std::iter::repeat_n(codes[*i].clone(), *n as usize))
            .collect::<Vec<_>>()
            .join(" ");
        // "New York 1 purple 1 yellow": the state's name, then its cubes by colour.
        let mut by_state: Vec<(String, Vec<String>)> = Vec::new();
        for (i, n) in &placed {
            let (head, colour) = opts[*i].label.split_once(": 1 ").unwrap();
            match by_state.iter_mut().find(|(h, _)| h == head) {
                Some((_, parts)) => parts.push(format!("{n} {colour}")),
                None => by_state.push((head.to_string(), vec![format!("{n} {colour}")])),
            }
        }
        let spoken = by_state
            .iter()
            .map(|(h, parts)| format!("{h} {}", parts.join(" ")))
            .collect::<Vec<_>>()
            .join(", ");
        for line in [
            format!("1 {eq}"),
            format!("place the cubes {before}"),
            format!("1 {repeated}"),
            format!("1 {spoken}"),
            spoken.clone(),
        ] {
            check(&c, &line, Ok(&want));
        }
    }
    let state = opts[0].value.as_str().unwrap().to_string();
    check(
        &c,
        &format!("1 {state}"),
        Err(&format!(
            "\"{}\" says no colour: write purple or yellow after it",
            state.to_lowercase()
        )),
    );
    check(
        &c,
        "1 XX=2",
        Err("\"xx=2\" is neither a state you may place in, a colour nor a count"),
    );

    // Bundles: one option per way of mixing the colours, the same state's code on each.
    let c = find::<VotesForWomen>(Default::default(), 2, |c| {
        c.first().is_some_and(|c| {
            c.label == "Place the cubes"
                && matches!(&c.params[0].kind, ParamKind::Allot { options, .. }
                    if options.len() >= 3 && options[0].value == options[2].value)
        })
    });
    let place = &c[0];
    let opts = options(place, 0);
    let codes: Vec<String> = (0..opts.len()).map(|i| code(place, 0, i)).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        codes.len(),
        "every option its own code: {codes:?}"
    );
    let mut rng = bot_rng(&Seed::from_number(4));
    for _ in 0..10 {
        let want = fill_at_random(place, &mut rng);
        let counts: Vec<u64> = want["cubes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let placed: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] > 0).collect();
        let by_code = placed
            .iter()
            .map(|&i| codes[i].clone())
            .collect::<Vec<_>>()
            .join(" ");
        let by_words = placed
            .iter()
            .map(|&i| opts[i].label.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let by_value = placed
            .iter()
            .map(|&i| {
                let (_, cubes) = opts[i].label.split_once(": ").unwrap();
                format!(
                    "{} {}",
                    opts[i].value.as_str().unwrap(),
                    cubes.replace(" + ", " ")
                )
            })
            .collect::<Vec<_>>()
            .join(" ");
        for line in [
            format!("1 {by_code}"),
            format!("1 {by_words}"),
            format!("place {by_value}"),
        ] {
            check(&c, &line, Ok(&want));
        }
    }
}
