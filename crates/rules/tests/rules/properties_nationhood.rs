//! Property tests of Nationhood: replay equals live play, every offered choice is accepted,
//! refusals change nothing, no panic on arbitrary JSON, views hide the other hand (jokers
//! included, so a demand never shows whether war could follow) and the stock, the pack stays
//! whole, and every game ends — the rebuilt stock running out ends a hand without a winner,
//! and three such hands in a row end the match drawn.

use postplay_rules::cards::Card;
use postplay_rules::engine::bot::{bot_rng, fill_at_random};
use postplay_rules::engine::testing::{
    arbitrary_json, cases, check_arbitrary_command, check_playout, random_midgame,
};
use postplay_rules::engine::{Log, Match, Rules, Seed, Viewer};
use postplay_rules::games::nationhood::{
    Command, HandEndKind, Nationhood, Options, Phase, State, pack,
};
use proptest::prelude::*;

/// Card codes `viewer` must not find: the other hand and the stock. The nation that won the
/// last hand was shown to all, so its cards may appear wherever they are now.
fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    let shown: Vec<Card> = state
        .last_hand
        .as_ref()
        .and_then(|h| h.nation.clone())
        .unwrap_or_default();
    let mut hidden: Vec<Card> = Vec::new();
    for (seat, hand) in state.hands.iter().enumerate() {
        if !viewer.sees_seat(seat) {
            hidden.extend(hand);
        }
    }
    if !viewer.sees_all() {
        hidden.extend(&state.stock);
    }
    hidden
        .into_iter()
        .filter(|c| !shown.contains(c))
        .map(|c| format!("\"{}\"", c.code()))
        .collect()
}

fn options() -> impl Strategy<Value = Options> {
    (
        prop::sample::select(vec![1u32, 3]),
        prop_oneof![3 => Just(7i64), 1 => 1i64..=4],
    )
        .prop_map(|(rubbers, target)| Options {
            rubbers,
            target,
            ..Options::default()
        })
}

// 200 whole matches (a match runs to hundreds of commands, each checked in every view): the
// longest test of the run at 2,000 (137 s of one core); POSTPLAY_SOAK multiplies it.
proptest! {
    #![proptest_config(ProptestConfig { cases: cases(200), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_rules_contract(options in options(), seed in any::<u64>()) {
        check_playout::<Nationhood>(options, 2, Seed::from_number(seed), secrets);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(500), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_or_changes_state(
        seed in any::<u64>(),
        steps in 0usize..200,
        command in arbitrary_json(),
    ) {
        let live = random_midgame::<Nationhood>(Options::default(), 2, Seed::from_number(seed), steps);
        for seat in 0..2 {
            check_arbitrary_command(&live, seat, &command);
        }
    }
}

/// Every one of the 54 cards is in exactly one place: a hand, the stock, a discard pile or a
/// city.
fn check_cards(state: &State, context: &str) {
    let mut all: Vec<Card> = state.hands.concat();
    all.extend(&state.stock);
    all.extend(state.piles.concat());
    for city in &state.cities {
        all.extend(&city.cards);
    }
    let mut expected = pack();
    all.sort();
    expected.sort();
    assert_eq!(all, expected, "{context}: the pack is not whole");
}

/// What random play went through: every kind of move and ending the rules have.
#[derive(Default, Debug)]
struct Seen {
    cities: u32,
    lay_offs: u32,
    exchanges: u32,
    accepted: u32,
    refused: u32,
    wars: u32,
    retaliations: u32,
    rebuilds: u32,
    hands: u32,
    nations: u32,
    no_winner: u32,
    restocks: u32,
    matches_won: u32,
    matches_drawn: u32,
}

#[test]
fn random_games_keep_the_pack_whole_and_reach_every_kind_of_move() {
    let mut seen = Seen::default();
    for n in 0..u64::from(cases(300)) {
        let seed = Seed::from_number(n);
        let options = Options {
            rubbers: if n % 2 == 0 { 1 } else { 3 },
            target: 7,
            ..Options::default()
        };
        let mut live = Match::<Nationhood>::new(options, 2, seed).unwrap();
        let mut rng = bot_rng(&seed);
        let mut counted_hand = 0;
        let mut restocked = false;
        let mut steps = 0;
        while live.outcome().is_none() {
            steps += 1;
            let context = format!("seed {n}, step {steps}");
            assert!(steps < 50_000, "{context}: no end");
            check_cards(&live.state, &context);
            let state = &live.state;
            assert!(
                !matches!(state.phase, Phase::Turn | Phase::Answer | Phase::Response)
                    || !state.stock.is_empty(),
                "{context}: a turn began with no stock"
            );
            assert!(
                state.hands.iter().all(|h| h.len() <= 8) || state.phase == Phase::Whittle,
                "{context}: a hand over eight outside a war"
            );
            let seat = Nationhood::active(state)[0];
            let choices = Nationhood::choices(state, seat);
            let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            let typed: Command = serde_json::from_value(command.clone()).unwrap();
            match (&typed, state.phase) {
                (Command::Meld { .. }, _) => seen.cities += 1,
                (Command::LayOff { .. }, _) => seen.lay_offs += 1,
                (Command::Exchange { .. }, _) => seen.exchanges += 1,
                (Command::Accept, _) => seen.accepted += 1,
                (Command::Refuse, _) => seen.refused += 1,
                (Command::DeclareWar, _) => seen.wars += 1,
                (Command::Retaliate, _) => seen.retaliations += 1,
                (Command::DrawStock | Command::DrawPile, Phase::Response) => seen.rebuilds += 1,
                _ => {}
            }
            live.apply(seat, &typed, &mut Log::silent())
                .unwrap_or_else(|e| panic!("{context}: {command} refused: {e}"));
            if live.state.restocked && !restocked {
                seen.restocks += 1;
            }
            restocked = live.state.restocked;
            if let Some(end) = &live.state.last_hand
                && end.hand != counted_hand
            {
                counted_hand = end.hand;
                seen.hands += 1;
                match end.kind {
                    HandEndKind::Nation => seen.nations += 1,
                    HandEndKind::NoWinner => {
                        assert_eq!((end.winner, end.points), (None, 0), "{context}");
                        seen.no_winner += 1;
                    }
                    HandEndKind::StockOut => panic!("{context}: a version-1 ending"),
                }
            }
        }
        let outcome = live.outcome().unwrap();
        if outcome.winners.is_empty() {
            seen.matches_drawn += 1;
        } else {
            seen.matches_won += 1;
        }
    }
    eprintln!("{seen:?}");
    assert!(
        seen.cities > 0 && seen.lay_offs > 0 && seen.exchanges > 0,
        "{seen:?}"
    );
    assert!(seen.accepted > 0 && seen.refused > 0, "{seen:?}");
    assert!(
        seen.wars > 0 && seen.retaliations > 0 && seen.rebuilds > 0,
        "{seen:?}"
    );
    assert!(seen.no_winner > 0 && seen.restocks > 0, "{seen:?}");
}

/// How many of `hand`'s cards of `suit` fit the best window of seven ranks (aces high or low).
fn coverage(hand: &[Card], suit: postplay_rules::cards::Suit) -> usize {
    let ranks: Vec<u8> = hand
        .iter()
        .filter(|c| c.suit() == Some(suit))
        .flat_map(|c| match c.rank() {
            Some(14) => vec![1, 14],
            Some(r) => vec![r],
            None => vec![],
        })
        .collect();
    (1..=8u8)
        .map(|low| {
            let mut in_window: Vec<u8> = ranks
                .iter()
                .copied()
                .filter(|r| (low..low + 7).contains(r))
                .collect();
            in_window.dedup();
            in_window.len()
        })
        .max()
        .unwrap_or(0)
}

/// A player who only wants a nation: keeps the suit with the best window, draws the pile when
/// its top helps, discards whatever helps least, refuses every trade, and never melds.
fn nation_seeker(state: &State, seat: usize) -> Command {
    use postplay_rules::cards::Suit;
    let hand = &state.hands[seat];
    let best = |cards: &[Card]| {
        Suit::ALL
            .iter()
            .map(|&s| coverage(cards, s))
            .max()
            .unwrap_or(0)
    };
    match state.phase {
        Phase::Answer => Command::Refuse,
        Phase::Turn | Phase::Response | Phase::Rebuild => {
            let helps = state.piles[seat].last().is_some_and(|&top| {
                let mut with = hand.clone();
                with.push(top);
                best(&with) > best(hand)
            });
            if helps || state.stock.is_empty() {
                Command::DrawPile
            } else {
                Command::DrawStock
            }
        }
        _ => {
            let card = *hand
                .iter()
                .max_by_key(|&&c| {
                    let rest: Vec<Card> = hand.iter().copied().filter(|&x| x != c).collect();
                    best(&rest)
                })
                .expect("a card to discard");
            Command::Discard { card }
        }
    }
}

#[test]
fn a_player_who_seeks_a_nation_wins_hands_with_one() {
    let (mut nations, mut seekers_nations, mut hands, mut drawn) = (0, 0, 0, 0);
    for n in 0..u64::from(cases(200)) {
        let seed = Seed::from_number(1_000 + n);
        let mut live = Match::<Nationhood>::new(Options::default(), 2, seed).unwrap();
        let mut rng = bot_rng(&seed);
        let mut played = Vec::new();
        let mut counted_hand = 0;
        while live.outcome().is_none() {
            let context = format!("seed {n}, step {}", played.len());
            check_cards(&live.state, &context);
            let seat = Nationhood::active(&live.state)[0];
            let command = if seat == 0 {
                nation_seeker(&live.state, seat)
            } else {
                let choices = Nationhood::choices(&live.state, seat);
                let value = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
                serde_json::from_value(value).unwrap()
            };
            live.apply(seat, &command, &mut Log::silent())
                .unwrap_or_else(|e| panic!("{context}: {command:?} refused: {e}"));
            played.push((seat, command));
            if let Some(end) = &live.state.last_hand
                && end.hand != counted_hand
            {
                counted_hand = end.hand;
                hands += 1;
                if end.kind == HandEndKind::Nation {
                    nations += 1;
                    seekers_nations += u32::from(end.winner == Some(0));
                    let nation = end.nation.as_ref().unwrap();
                    assert_eq!(nation.len(), 7, "{context}");
                    assert!(nation.iter().all(|c| c.suit() == nation[0].suit()));
                }
            }
        }
        drawn += u32::from(live.outcome().unwrap().winners.is_empty());
        let mut replayed = Match::<Nationhood>::new(Options::default(), 2, seed).unwrap();
        for (seat, command) in &played {
            replayed.apply(*seat, command, &mut Log::silent()).unwrap();
        }
        assert_eq!(replayed.state, live.state, "seed {n}: replay differs");
    }
    eprintln!(
        "hands: {hands}, nations: {nations} ({seekers_nations} the seeker's), drawn matches: {drawn} of {}",
        cases(200)
    );
    assert!(nations > 0, "no nation in {} games", cases(200));
}
