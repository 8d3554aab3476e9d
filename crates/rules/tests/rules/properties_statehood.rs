//! Property tests of Statehood for 2, 3 and 4 players: replay equals live play, every offered
//! choice is accepted, refusals change nothing, no panic on arbitrary JSON, views hide other
//! hands, the stock, a drawn card and sealed Puerto Rico challenges, and every game ends.

use postplay_rules::cards::Card;
use postplay_rules::engine::bot::{bot_rng, fill_at_random};
use postplay_rules::engine::testing::{
    arbitrary_json, cases, check_arbitrary_command, check_playout, random_midgame,
};
use postplay_rules::engine::{Log, Match, Rules, Seed, Viewer};
use postplay_rules::games::statehood::{Command, Options, Phase, State, Statehood, puerto_rico};
use proptest::prelude::*;

/// Card codes `viewer` must not find: other hands (but for a Puerto Rico declarer's hand, laid
/// face up), the stock, and a card drawn by someone else. Cards revealed when the last hand
/// ended with Puerto Rico (the declarer's hand, every challenge) stay on the board into the
/// next hand, so their codes may appear whoever holds those cards now.
fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    let mut shown: Vec<Card> = state
        .puerto_rico
        .as_ref()
        .map(|p| p.shown.clone())
        .unwrap_or_default();
    if let Some(reveal) = state
        .last_hand
        .as_ref()
        .and_then(|h| h.puerto_rico.as_ref())
    {
        shown.extend_from_slice(&reveal.shown);
        for (_, cards) in reveal.challenges() {
            shown.extend_from_slice(cards);
        }
    }
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
    hidden.extend(
        state
            .stock
            .iter()
            .filter(|c| !shown.contains(c))
            .map(|c| format!("\"{}\"", c.code())),
    );
    if let Some(drawn) = state.drawn
        && state.phase == Phase::Drawn
        && !viewer.sees_seat(state.turn)
        && !shown.contains(&drawn)
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
    #![proptest_config(ProptestConfig { cases: cases(1000), failure_persistence: None, ..ProptestConfig::default() })]

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

/// Every card of the 56 is in exactly one place: a hand, the stock, the discard pile, the card
/// just drawn, the pending declaration, or a won set.
fn check_cards(state: &State, context: &str) {
    let mut all: Vec<Card> = state.hands.iter().flatten().copied().collect();
    all.extend(&state.stock);
    all.extend(&state.discard);
    all.extend(state.drawn.filter(|_| state.phase == Phase::Drawn));
    if let Some(d) = &state.declaration {
        all.push(d.card);
        all.extend(&d.defence);
        all.extend(
            d.challenges
                .iter()
                .flat_map(|(_, cards)| cards.iter().copied()),
        );
    }
    for won in state.won.iter().flatten() {
        all.push(won.card);
        all.extend(&won.beneath);
    }
    let mut expected = Card::standard_52();
    expected.extend(Card::territories());
    all.sort_by_key(|c| c.code());
    expected.sort_by_key(|c| c.code());
    assert_eq!(all, expected, "{context}: the pack is not whole");
}

/// Random games in which nobody declares Puerto Rico by choice or discards it, so every hand
/// runs the stock out: the forced declaration, a short draw-back and short hands against a
/// Puerto Rico declaration are played in thousands of hands. Every hand and game still ends,
/// the pack stays whole, and only the holder of Puerto Rico is awaited once the stock is gone.
fn stock_runs_out(seats: usize) {
    let mut forced = 0;
    let mut short_hands = 0;
    for n in 0..u64::from(cases(800)) {
        let seed = Seed::from_number(n);
        let mut live = Match::<Statehood>::new(Options { target: 20 }, seats, seed).unwrap();
        let mut rng = bot_rng(&seed);
        let mut steps = 0;
        while live.outcome().is_none() {
            steps += 1;
            let context = format!("{seats} seats, seed {n}, step {steps}");
            assert!(steps < 20_000, "{context}: no end");
            check_cards(&live.state, &context);
            let state = &live.state;
            // (The player who drew the last card discards first.)
            if state.stock.is_empty()
                && !matches!(state.phase, Phase::Drawn | Phase::PuertoRicoChallenges)
            {
                assert_eq!(state.phase, Phase::ForcedPuertoRico, "{context}");
                assert_eq!(
                    state.puerto_rico_holder(),
                    Some(state.turn),
                    "{context}: the holder must declare"
                );
            }
            if state.phase == Phase::ForcedPuertoRico {
                forced += 1;
            }
            if state.phase == Phase::PuertoRicoChallenges && state.hands.iter().any(|h| h.len() < 6)
            {
                short_hands += 1;
            }
            let active = Statehood::active(state);
            let seat = active[rng.index(active.len())];
            let choices: Vec<_> = Statehood::choices(state, seat)
                .into_iter()
                .filter(|c| {
                    state.phase == Phase::ForcedPuertoRico
                        || c.command["type"] != "declare_puerto_rico"
                })
                .collect();
            assert!(!choices.is_empty(), "{context}: no choice for seat {seat}");
            let pr = serde_json::json!(puerto_rico());
            let command = loop {
                let choice = &choices[rng.index(choices.len())];
                let command = fill_at_random(choice, &mut rng);
                if command.get("discard") != Some(&pr) && command.get("card") != Some(&pr) {
                    break command;
                }
            };
            let typed: Command = serde_json::from_value(command.clone()).unwrap();
            live.apply(seat, &typed, &mut Log::silent())
                .unwrap_or_else(|e| panic!("{context}: {command} refused: {e}"));
        }
    }
    assert!(forced > 0, "{seats} seats: the stock never ran out");
    if seats > 2 {
        assert!(
            short_hands > 0,
            "{seats} seats: no short hand against Puerto Rico"
        );
    }
}

#[test]
fn the_stock_runs_out_two_players() {
    stock_runs_out(2);
}

#[test]
fn the_stock_runs_out_three_players() {
    stock_runs_out(3);
}

#[test]
fn the_stock_runs_out_four_players() {
    stock_runs_out(4);
}
