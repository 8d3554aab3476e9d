//! The practice bots' core: every game's sampler rebuilds a state its seat cannot tell from the
//! real one; the search decides from the seat's view alone (two states that differ only in
//! cards the seat cannot see give the same decision), never plays an illegal move, and at the
//! medium level beats random play in Electoral College Combat over a fixed set of seeds. Samplers:
//! Electoral College Combat, Whitehouse, Statehood, Nationhood, Votes for Women.

use postplay_rules::engine::search::{Level, decide, random_to_end};
use postplay_rules::engine::testing::{cases, random_midgame};
use postplay_rules::engine::{
    Determinize, GameRng, Log, Match, Rules, Seat, Seed, Table, Viewer, forced,
};
use postplay_rules::games::electoral_combat::ElectoralCombat;
use postplay_rules::games::nationhood::Nationhood;
use postplay_rules::games::statehood::Statehood;
use postplay_rules::games::votes_for_women::VotesForWomen;
use postplay_rules::games::whitehouse::Whitehouse;
use proptest::prelude::*;

fn table<R: Rules>(live: &Match<R>) -> Table<R::Options> {
    Table {
        options: live.options.clone(),
        seats: live.seats,
        rules_version: R::RULES_VERSION,
    }
}

/// For every seat of a random mid-game state: the sample's view for the seat is the view it was
/// sampled from, the seat's choices are the same, and random play from the sample ends.
fn check_sampler<R: Determinize>(options: R::Options, seats: usize, seed: u64, steps: usize)
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let live = random_midgame::<R>(options, seats, Seed::from_number(seed), steps);
    let table = table(&live);
    let mut rng = GameRng::new(&Seed::from_number(seed ^ 0x5eed), 0);
    for seat in 0..seats {
        let view = R::view(&live.state, Viewer::Seat(seat));
        let mut sample = R::sample(&view, seat, &table, &mut rng)
            .unwrap_or_else(|e| panic!("seed {seed} step {steps} seat {seat}: {e}"));
        let again = R::view(&sample, Viewer::Seat(seat));
        assert_eq!(
            serde_json::to_value(&again).unwrap(),
            serde_json::to_value(&view).unwrap(),
            "seed {seed} step {steps} seat {seat}: the sample shows the seat another view"
        );
        assert_eq!(
            R::choices(&sample, seat),
            R::choices(&live.state, seat),
            "seed {seed} step {steps} seat {seat}: other choices in the sample"
        );
        assert_eq!(R::active(&sample), R::active(&live.state));
        assert!(
            random_to_end::<R>(&mut sample, &mut rng).is_some(),
            "seed {seed} step {steps} seat {seat}: random play from the sample did not end"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(150), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn electoral_combat_samples_agree_with_the_view(
        apportionment in prop::sample::select(vec![2024u32, 2012]),
        book_deal in any::<bool>(),
        seed in any::<u64>(),
        steps in 0usize..200,
    ) {
        let options = postplay_rules::games::electoral_combat::Options { apportionment, book_deal };
        check_sampler::<ElectoralCombat>(options, 2, seed, steps);
    }

    #[test]
    fn whitehouse_samples_agree_with_the_view(
        partnership in any::<bool>(),
        jokers in any::<bool>(),
        seed in any::<u64>(),
        steps in 0usize..250,
    ) {
        let options = postplay_rules::games::whitehouse::Options {
            partnership,
            jokers,
            target: 3,
            ..Default::default()
        };
        check_sampler::<Whitehouse>(options, 4, seed, steps);
    }

    #[test]
    fn statehood_samples_agree_with_the_view(
        seats in 2usize..=4,
        seed in any::<u64>(),
        steps in 0usize..300,
    ) {
        let options = postplay_rules::games::statehood::Options { target: 12 };
        check_sampler::<Statehood>(options, seats, seed, steps);
    }

    #[test]
    fn nationhood_samples_agree_with_the_view(
        seed in any::<u64>(),
        steps in 0usize..300,
    ) {
        let options = postplay_rules::games::nationhood::Options { rubbers: 1, target: 8, ..Default::default() };
        check_sampler::<Nationhood>(options, 2, seed, steps);
    }
}

proptest! {
    // A Votes for Women game runs to several hundred commands, each of them heavier than the
    // other games': fewer cases, over the whole length of a game.
    #![proptest_config(ProptestConfig { cases: cases(64), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn votes_for_women_samples_agree_with_the_view(
        seed in any::<u64>(),
        steps in 0usize..600,
    ) {
        check_sampler::<VotesForWomen>(Default::default(), 2, seed, steps);
    }
}

/// Plays a whole game with a bot of `budget` playouts in the seats `bots`, the random player in
/// the others; every bot command must be accepted. Returns the outcome.
fn bot_game<R: Determinize>(
    options: R::Options,
    seats: usize,
    seed: u64,
    bots: &[Seat],
    budget: u32,
) -> postplay_rules::engine::Outcome
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let mut live = Match::<R>::new(options, seats, Seed::from_number(seed)).unwrap();
    live.track_takebacks(false);
    let table = table(&live);
    let bot_seed = Seed::from_number(seed.wrapping_mul(7919) ^ 0xb07);
    let mut random = GameRng::new(&Seed::from_number(seed ^ 0x4a4d), 9);
    for number in 0..20_000u64 {
        if let Some(outcome) = live.outcome() {
            return outcome;
        }
        let active = R::active(&live.state);
        let seat = active[random.index(active.len())];
        let json = if bots.contains(&seat) {
            let view = R::view(&live.state, Viewer::Seat(seat));
            let seed = postplay_rules::engine::search::decision_seed(&bot_seed, number);
            let decision = decide::<R>(&view, seat, &table, budget, &seed)
                .unwrap_or_else(|e| panic!("seed {seed}: the bot failed: {e}"));
            assert_eq!(
                decision.cut_short, 0,
                "game seed {seed}: playouts cut short"
            );
            decision.command
        } else {
            let choices = R::choices(&live.state, seat);
            postplay_rules::engine::bot::fill_at_random(
                &choices[random.index(choices.len())],
                &mut random,
            )
        };
        let command = R::decode(&json).expect("the bot's command parses");
        live.apply(seat, &command, &mut Log::silent())
            .unwrap_or_else(|e| panic!("game seed {seed}: seat {seat} played {json}: {e}"));
    }
    panic!("game seed {seed} did not end");
}

#[test]
fn bots_never_make_an_illegal_move() {
    for seed in 0..3 {
        bot_game::<ElectoralCombat>(Default::default(), 2, seed, &[0, 1], 6);
        let options = postplay_rules::games::whitehouse::Options {
            target: 3,
            partnership: seed != 1,
            ..Default::default()
        };
        bot_game::<Whitehouse>(options, 4, seed, &[0, 1, 2, 3], 4);
        let options = postplay_rules::games::statehood::Options { target: 4 };
        bot_game::<Statehood>(options, 2 + seed as usize, seed, &[0, 1], 4);
        let options = postplay_rules::games::nationhood::Options {
            rubbers: 1,
            target: 4,
            ..Default::default()
        };
        bot_game::<Nationhood>(options, 2, seed, &[0, 1], 4);
        bot_game::<VotesForWomen>(Default::default(), 2, seed, &[0, 1], 3);
    }
}

/// The decision of `seat` from two states whose views for it are equal.
fn same_decision<R: Determinize>(a: &Match<R>, b_state: &R::State, seat: Seat) {
    assert_ne!(&a.state, b_state, "the two states must differ");
    let view_a = R::view(&a.state, Viewer::Seat(seat));
    let view_b = R::view(b_state, Viewer::Seat(seat));
    assert_eq!(
        serde_json::to_value(&view_a).unwrap(),
        serde_json::to_value(&view_b).unwrap()
    );
    let table = table(a);
    let seed = Seed::from_number(77);
    let one = decide::<R>(&view_a, seat, &table, 40, &seed).unwrap();
    let two = decide::<R>(&view_b, seat, &table, 40, &seed).unwrap();
    assert_eq!(one, two);
}

#[test]
fn a_decision_does_not_depend_on_cards_the_seat_cannot_see() {
    // Electoral College Combat: swap cards between the two face-down stacks.
    let mut tried = 0;
    for seed in 0..40 {
        let live = random_midgame::<ElectoralCombat>(
            Default::default(),
            2,
            Seed::from_number(seed),
            3 + seed as usize % 30,
        );
        let state = &live.state;
        let Some(&seat) = ElectoralCombat::active(state).first() else {
            continue;
        };
        if state.stacks[0].len() < 2
            || state.stacks[1].len() < 2
            || forced(&ElectoralCombat::choices(state, seat)).is_some()
        {
            continue;
        }
        let mut other = state.clone();
        let (a, b) = (other.stacks[0][0], other.stacks[1][1]);
        other.stacks[0][0] = b;
        other.stacks[1][1] = a;
        same_decision(&live, &other, seat);
        tried += 1;
    }
    assert!(
        tried >= 5,
        "only {tried} Electoral College Combat positions tried"
    );
    // Whitehouse: swap a card between the hands of the two seats after the one deciding.
    let mut tried = 0;
    for seed in 0..40 {
        let live = random_midgame::<Whitehouse>(
            Default::default(),
            4,
            Seed::from_number(seed),
            12 + seed as usize,
        );
        let state = &live.state;
        let Some(&seat) = Whitehouse::active(state).first() else {
            continue;
        };
        let (x, y) = ((seat + 1) % 4, (seat + 2) % 4);
        let (Some(&a), Some(&b)) = (state.hands[x].first(), state.hands[y].last()) else {
            continue;
        };
        let mut other = state.clone();
        other.hands[x][0] = b;
        let last = other.hands[y].len() - 1;
        other.hands[y][last] = a;
        same_decision(&live, &other, seat);
        tried += 1;
    }
    assert!(tried >= 5, "only {tried} Whitehouse positions tried");
    // Statehood, three seats: swap a card between the other two hands (Puerto Rico stays where
    // it is: once the stock is gone its holder is public).
    let mut tried = 0;
    let pr = postplay_rules::games::statehood::puerto_rico();
    for seed in 0..40 {
        let live = random_midgame::<Statehood>(
            postplay_rules::games::statehood::Options { target: 12 },
            3,
            Seed::from_number(seed),
            5 + seed as usize,
        );
        let state = &live.state;
        let Some(&seat) = Statehood::active(state).first() else {
            continue;
        };
        let (x, y) = ((seat + 1) % 3, (seat + 2) % 3);
        let pick = |hand: &Vec<postplay_rules::cards::Card>| hand.iter().position(|c| *c != pr);
        let (Some(i), Some(j)) = (pick(&state.hands[x]), pick(&state.hands[y])) else {
            continue;
        };
        if state.puerto_rico.is_some() || forced(&Statehood::choices(state, seat)).is_some() {
            continue;
        }
        let mut other = state.clone();
        other.hands[x][i] = state.hands[y][j];
        other.hands[y][j] = state.hands[x][i];
        same_decision(&live, &other, seat);
        tried += 1;
    }
    assert!(tried >= 5, "only {tried} Statehood positions tried");
    // Nationhood: swap a card of the other hand with one of the stock.
    let mut tried = 0;
    for seed in 0..40 {
        let live = random_midgame::<Nationhood>(
            Default::default(),
            2,
            Seed::from_number(seed),
            4 + seed as usize,
        );
        let state = &live.state;
        let Some(&seat) = Nationhood::active(state).first() else {
            continue;
        };
        let x = 1 - seat;
        if state.hands[x].is_empty()
            || state.stock.is_empty()
            || forced(&Nationhood::choices(state, seat)).is_some()
        {
            continue;
        }
        let mut other = state.clone();
        other.hands[x][0] = state.stock[0];
        other.stock[0] = state.hands[x][0];
        if other == *state {
            continue;
        }
        same_decision(&live, &other, seat);
        tried += 1;
    }
    assert!(tried >= 5, "only {tried} Nationhood positions tried");
    // Votes for Women: swap a card of the other hand with one of the other side's draw deck
    // (never while Change In Plans shows the seat that hand).
    let mut tried = 0;
    for seed in 0..40 {
        let live = random_midgame::<VotesForWomen>(
            Default::default(),
            2,
            Seed::from_number(seed),
            10 + 7 * seed as usize,
        );
        let state = &live.state;
        let Some(&seat) = VotesForWomen::active(state).first() else {
            continue;
        };
        let x = 1 - seat;
        let shown = VotesForWomen::view(state, Viewer::Seat(seat))
            .resolving
            .iter()
            .any(|r| r.shown.is_some());
        if state.hands[x].is_empty()
            || state.decks[x].is_empty()
            || shown
            || forced(&VotesForWomen::choices(state, seat)).is_some()
        {
            continue;
        }
        let mut other = state.clone();
        let top = other.decks[x].len() - 1;
        other.hands[x][0] = state.decks[x][top];
        other.decks[x][top] = state.hands[x][0];
        same_decision(&live, &other, seat);
        tried += 1;
        if tried == 6 {
            break;
        }
    }
    assert!(tried >= 5, "only {tried} Votes for Women positions tried");
}

#[test]
fn medium_beats_random_in_electoral_college_combat() {
    let (mut wins, mut losses) = (0, 0);
    for seed in 0..GAMES {
        let bot = (seed % 2) as Seat;
        let outcome = bot_game::<ElectoralCombat>(
            Default::default(),
            2,
            seed,
            &[bot],
            Level::Medium.playouts(),
        );
        if outcome.winners == [bot] {
            wins += 1;
        } else if !outcome.winners.is_empty() {
            losses += 1;
        }
    }
    eprintln!("medium against random: {wins} won, {losses} lost of {GAMES}");
    assert!(
        wins > losses,
        "over {GAMES} fixed games the bot won {wins} and lost {losses}"
    );
}

const GAMES: u64 = 24;

/// A measurement, not a check (run with `--ignored`): the medium Suffragist against random play
/// in Votes for Women over fixed seeds. Random play wins about 2 % of games as the Suffragist.
#[test]
#[ignore = "a measurement of a few minutes; docs/BOTS.md records its figure"]
fn medium_suffragist_against_random_in_votes_for_women() {
    let games: u64 = std::env::var("VFW_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mut wins = 0;
    for seed in 0..games {
        let outcome = bot_game::<VotesForWomen>(
            Default::default(),
            2,
            seed,
            &[postplay_rules::games::votes_for_women::SUFF],
            Level::Medium.playouts(),
        );
        if outcome.winners == [postplay_rules::games::votes_for_women::SUFF] {
            wins += 1;
        }
        eprintln!(
            "seed {seed}: winners {:?} ({wins} won so far)",
            outcome.winners
        );
    }
    eprintln!("medium Suffragist against random: {wins} won of {games}");
}
