//! Property tests of Votes for Women: replay equals live play, every offered choice is
//! accepted, refusals change nothing, no panic on arbitrary JSON, views hide the other hand,
//! both draw decks and the State cards removed unseen; the awaited seat always has a move
//! (no dead end), caps on cubes and buttons hold, no state ever holds cubes of both sides,
//! and every game ends by the end of turn 6 or in Final Voting. Also counts hand-offs and
//! commands per random game (docs/PERFORMANCE.md).

use postplay_rules::engine::bot::{bot_rng, fill_at_random};
use postplay_rules::engine::testing::{
    arbitrary_json, cases, check_arbitrary_command, check_playout, random_midgame,
};
use postplay_rules::engine::{Log, Match, Rules, Seat, Seed, Viewer};
use postplay_rules::games::votes_for_women::{
    CardView, Command, OPP, Options, Phase, SUFF, SUPPLY, State, VotesForWomen,
    shows_opponents_hand,
};
use proptest::prelude::*;

/// Cards `viewer` must not find (as a card's id and title): the other hand (unless the viewer
/// is resolving Change In Plans, whose card reads "See opponent's hand"), both draw decks, the
/// cards the other side's effect has drawn, and the State cards removed at setup.
fn secrets(state: &State, viewer: Viewer) -> Vec<String> {
    let mut hidden: Vec<u8> = Vec::new();
    for seat in [SUFF, OPP] {
        if !viewer.sees_seat(seat) {
            let shown = state
                .stack
                .iter()
                .any(|f| f.seat != seat && viewer.sees_seat(f.seat) && shows_opponents_hand(f));
            if !shown {
                hidden.extend(&state.hands[seat]);
            }
            for frame in state.stack.iter().filter(|f| f.seat == seat) {
                hidden.extend(&frame.cards);
            }
        }
    }
    if !viewer.sees_all() {
        hidden.extend(state.decks.concat());
        hidden.extend(&state.removed_state_cards);
        hidden.extend(&state.strategy_deck);
    }
    hidden
        .into_iter()
        .map(|c| {
            format!(
                "\"id\":{c},\"name\":{}",
                serde_json::to_string(&CardView::of(c).name).unwrap()
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(60), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_rules_contract(seed in any::<u64>()) {
        check_playout::<VotesForWomen>(Options::default(), 2, Seed::from_number(seed), secrets);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_panics_or_changes_state(
        seed in any::<u64>(),
        steps in 0usize..200,
        command in arbitrary_json(),
    ) {
        let live = random_midgame::<VotesForWomen>(Options::default(), 2, Seed::from_number(seed), steps);
        for seat in 0..2 {
            check_arbitrary_command(&live, seat, &command);
        }
    }
}

/// The physical limits and the one-side-per-state rule.
fn check_board(state: &State, context: &str) {
    let (mut purple, mut yellow, mut red) = (0u32, 0u32, 0u32);
    for (i, c) in state.states.iter().enumerate() {
        assert!(
            c.red == 0 || c.purple + c.yellow == 0,
            "{context}: state {i} holds cubes of both sides: {c:?}"
        );
        assert!(
            c.mark.is_none() || c.purple + c.yellow + c.red == 0,
            "{context}: decided state {i} holds cubes"
        );
        if state.amendment_sent {
            assert!(
                c.purple + c.yellow < 4 && c.red < 4,
                "{context}: state {i} has four cubes after the Amendment: {c:?}"
            );
        }
        purple += u32::from(c.purple);
        yellow += u32::from(c.yellow);
        red += u32::from(c.red);
    }
    assert!(
        purple <= u32::from(SUPPLY[0]),
        "{context}: {purple} purple cubes"
    );
    assert!(
        yellow <= u32::from(SUPPLY[1]),
        "{context}: {yellow} yellow cubes"
    );
    assert!(red <= u32::from(SUPPLY[2]), "{context}: {red} red cubes");
    assert!(
        state.buttons[SUFF] <= 12,
        "{context}: Suffragist buttons {:?}",
        state.buttons
    );
    assert!(
        state.buttons[OPP] <= 6,
        "{context}: Opposition buttons {:?}",
        state.buttons
    );
    assert!(
        state.congress <= 6,
        "{context}: congress {}",
        state.congress
    );
    assert!(state.checks() <= 36 && state.xs() <= 13, "{context}: marks");
    let suff = state.campaigners_of(SUFF).len();
    let opp = state.campaigners_of(OPP).len();
    assert!(suff <= 4 && opp <= 2, "{context}: campaigners {suff} {opp}");
    assert!(
        state.turn <= 6 && state.round <= 6,
        "{context}: turn {} round {}",
        state.turn,
        state.round
    );
    if state.phase == Phase::FinalVoting {
        assert!(
            state.amendment_sent,
            "{context}: Final Voting without the Amendment"
        );
    }
    let mut all: Vec<u8> = state.hands.concat();
    all.extend(state.decks.concat());
    all.extend(state.discards.concat());
    all.extend(state.claimed.concat());
    all.extend(&state.state_cards);
    all.extend(&state.removed_state_cards);
    all.extend(&state.strategy_deck);
    all.extend(&state.strategy_face_up);
    all.extend(&state.spent);
    all.extend(&state.rest_of_turn);
    all.extend(&state.rest_of_game);
    all.extend(&state.final_voting);
    for frame in &state.stack {
        all.extend(&frame.cards);
        if !all.contains(&frame.card) {
            all.push(frame.card);
        }
    }
    all.sort_unstable();
    assert_eq!(
        all,
        (1..=128).collect::<Vec<u8>>(),
        "{context}: the cards are not whole"
    );
}

/// Hand-offs (the awaited seat changes) and commands of random games, and what they reached.
#[derive(Default, Debug)]
struct Tally {
    games: u64,
    commands: u64,
    handoffs: u64,
    amendments: u64,
    final_votings: u64,
    checks_wins: u64,
    xs_wins: u64,
    no_amendment: u64,
    events: u64,
    claimed: u64,
    rerolls: u64,
    strategy_cards: u64,
}

#[test]
fn random_games_never_dead_end_and_keep_every_cap() {
    let mut tally = Tally::default();
    let started = std::time::Instant::now();
    for n in 0..u64::from(cases(5000)) {
        let seed = Seed::from_number(n);
        let mut live = Match::<VotesForWomen>::new(Options::default(), 2, seed).unwrap();
        let mut rng = bot_rng(&seed);
        let mut played: Vec<(Seat, Command)> = Vec::new();
        let mut last: Option<Seat> = None;
        let mut amendment = false;
        let mut final_voting = false;
        while live.outcome().is_none() {
            let context = format!("seed {n}, step {}", played.len());
            assert!(played.len() < 5_000, "{context}: no end");
            check_board(&live.state, &context);
            let active = VotesForWomen::active(&live.state);
            assert_eq!(active.len(), 1, "{context}: awaited {active:?}");

            let seat = active[0];
            let choices = VotesForWomen::choices(&live.state, seat);
            assert!(!choices.is_empty(), "{context}: dead end for seat {seat}");
            if last.is_some_and(|l| l != seat) {
                tally.handoffs += 1;
            }
            last = Some(seat);
            let value = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            let command: Command = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(
                serde_json::to_value(&command).unwrap(),
                value,
                "{context}: round trip"
            );
            match &command {
                Command::Play { action, .. } if format!("{action:?}") == "Event" => {
                    tally.events += 1
                }
                Command::Claimed { .. } => tally.claimed += 1,
                Command::Reroll => tally.rerolls += 1,
                _ => {}
            }
            live.apply(seat, &command, &mut Log::silent())
                .unwrap_or_else(|e| panic!("{context}: {value} refused: {e}"));
            amendment |= live.state.amendment_sent;
            final_voting |= live.state.phase == Phase::FinalVoting;
            played.push((seat, command));
        }
        check_board(&live.state, &format!("seed {n}, end"));
        assert!(VotesForWomen::active(&live.state).is_empty());
        let outcome = live.outcome().unwrap();
        tally.games += 1;
        tally.commands += played.len() as u64;
        tally.amendments += u64::from(amendment);
        tally.final_votings += u64::from(final_voting);
        tally.strategy_cards += (live
            .state
            .claimed
            .concat()
            .iter()
            .filter(|&&c| (105..=116).contains(&c))
            .count()
            + live
                .state
                .spent
                .iter()
                .filter(|&&c| (105..=116).contains(&c))
                .count()) as u64;
        match live.state.checks() {
            36 => tally.checks_wins += 1,
            _ if live.state.xs() == 13 => tally.xs_wins += 1,
            _ => {
                assert!(
                    !amendment,
                    "seed {n}: ended with the Amendment sent and no 36 or 13: {outcome:?}"
                );
                assert_eq!(outcome.winners, vec![OPP]);
                tally.no_amendment += 1;
            }
        }
        if n % 10 == 0 {
            let mut replayed = Match::<VotesForWomen>::new(Options::default(), 2, seed).unwrap();
            for (seat, command) in &played {
                replayed.apply(*seat, command, &mut Log::silent()).unwrap();
            }
            assert_eq!(replayed.state, live.state, "seed {n}: replay differs");
        }
    }
    let games = tally.games as f64;
    eprintln!(
        "{tally:?}\nper game: {:.1} commands, {:.1} hand-offs; {:.2}s",
        tally.commands as f64 / games,
        tally.handoffs as f64 / games,
        started.elapsed().as_secs_f64()
    );
    assert!(tally.amendments > 0 && tally.final_votings > 0, "{tally:?}");
    assert!(
        tally.checks_wins > 0 && tally.xs_wins > 0 && tally.no_amendment > 0,
        "{tally:?}"
    );
    assert!(
        tally.claimed > 0 && tally.rerolls > 0 && tally.strategy_cards > 0,
        "{tally:?}"
    );
}
