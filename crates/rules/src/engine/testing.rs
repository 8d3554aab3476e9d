//! The checks every game's rules must pass, shared by the games' property tests.
//!
//! [`check_playout`] plays a whole random game and, at every step, checks the contract of
//! [`Rules`]: offered choices are accepted, refused commands change nothing, views hide what
//! they must, the game ends, and replaying the record gives the same state. Where a seat may
//! take a command back, the command kept every viewer's secrets, and taking it back (done
//! now and then) restores the state exactly, in live play and in replay.

use super::bot::{MAX_COMMANDS, bot_rng, fill_at_random, random_fill};
use super::{DynMatch, Log, Match, Record, RecordedCommand, Rules, Seat, Seed, Viewer};
use serde_json::{Value, json};

/// Tells the checker which card ids a viewer must not find anywhere in its view.
pub type Secrets<R> = fn(&<R as Rules>::State, Viewer) -> Vec<String>;

/// Plays one random game and checks the rules contract at every step. Returns the number of
/// commands played. Panics, with the seed, on the first breach.
pub fn check_playout<R: Rules>(
    options: R::Options,
    seats: usize,
    seed: Seed,
    secrets: Secrets<R>,
) -> usize
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let mut live = Match::<R>::new(options, seats, seed)
        .unwrap_or_else(|e| panic!("setup failed for {seed}: {e}"));
    let mut rng = bot_rng(&seed);
    let mut log = Log::recording();
    let mut commands = Vec::new();
    while R::outcome(&live.state).is_none() {
        let step = commands.len() + 1;
        assert!(
            step <= MAX_COMMANDS,
            "seed {seed}: no end after {MAX_COMMANDS} commands"
        );
        check_views::<R>(&live, seats, secrets, seed, step);
        let active = R::active(&live.state);
        assert!(
            !active.is_empty(),
            "seed {seed} step {step}: nobody awaited, no outcome"
        );
        for seat in 0..seats {
            if !active.contains(&seat) {
                assert!(
                    R::choices(&live.state, seat).is_empty(),
                    "seed {seed} step {step}: idle seat {seat} has choices"
                );
                let command = R::on_timeout(&live.state, active[0]);
                let refused = live.clone().apply(seat, &command, &mut Log::silent());
                assert!(
                    refused.is_err(),
                    "seed {seed} step {step}: seat {seat} moved out of turn"
                );
            }
        }
        let seat = active[rng.index(active.len())];
        let choices = R::choices(&live.state, seat);
        assert!(
            !choices.is_empty(),
            "seed {seed} step {step}: awaited seat {seat} has no choice"
        );
        // Every offered choice (a sample of them when there are many) is accepted.
        for _ in 0..choices.len().min(3) {
            let choice = &choices[rng.index(choices.len())];
            let command = fill_at_random(choice, &mut rng);
            let typed: R::Command = serde_json::from_value(command.clone()).unwrap_or_else(|e| {
                panic!("seed {seed} step {step}: offered {command} does not parse: {e}")
            });
            if let Err(e) = live.clone().apply(seat, &typed, &mut Log::silent()) {
                panic!("seed {seed} step {step}: offered {command} refused for seat {seat}: {e}");
            }
        }
        // The timeout move is legal.
        let timeout = R::on_timeout(&live.state, seat);
        live.clone()
            .apply(seat, &timeout, &mut Log::silent())
            .unwrap_or_else(|e| {
                panic!("seed {seed} step {step}: timeout move {timeout:?} refused: {e}")
            });
        check_refusals_change_nothing::<R>(&live, seat, step, seed, &mut rng);

        let choice = &choices[rng.index(choices.len())];
        let command = fill_at_random(choice, &mut rng);
        let typed: R::Command =
            serde_json::from_value(command.clone()).expect("offered command parses");
        let before = live.clone();
        live.apply(seat, &typed, &mut log)
            .unwrap_or_else(|e| panic!("seed {seed} step {step}: {command} refused: {e}"));
        assert!(
            !log.take().is_empty(),
            "seed {seed} step {step}: {command} wrote no log line"
        );
        commands.push(RecordedCommand::new(seat, command.clone()));
        for other in (0..seats).filter(|&s| s != seat) {
            assert!(
                !live.can_undo(other),
                "seed {seed} step {step}: seat {other} may take back a move after {seat} moved"
            );
        }
        if live.can_undo(seat) {
            check_takeback_keeps_secrets::<R>(&before, &live, seats, secrets, seed, step);
            if rng.below(3) == 0 {
                live.undo(seat, &mut log).unwrap_or_else(|e| {
                    panic!("seed {seed} step {step}: undo of {command} refused: {e}")
                });
                assert_eq!(
                    live.state, before.state,
                    "seed {seed} step {step}: undo of {command} did not restore the state"
                );
                assert!(
                    !log.take().is_empty(),
                    "seed {seed} step {step}: silent undo"
                );
                commands.push(RecordedCommand {
                    by: Some(super::record::BY_UNDO.into()),
                    ..RecordedCommand::new(seat, super::record::undo_command())
                });
            }
        } else {
            let mut copy = live.clone();
            assert!(
                copy.undo(seat, &mut Log::silent()).is_err() && copy.state == live.state,
                "seed {seed} step {step}: a refused undo changed the state"
            );
        }
    }
    check_views::<R>(&live, seats, secrets, seed, commands.len());
    assert!(
        R::active(&live.state).is_empty(),
        "seed {seed}: seats awaited after the end"
    );
    let mut record = Record::of_play(&live, seed, commands);
    record.rules_version = R::RULES_VERSION;
    let mut replayed = Match::<R>::new(live.options.clone(), seats, seed).expect("setup");
    for (i, entry) in record.commands.iter().enumerate() {
        if entry.by.is_some() {
            replayed
                .undo(entry.seat, &mut Log::silent())
                .unwrap_or_else(|e| panic!("seed {seed}: replay refused undo {}: {e}", i + 1));
            continue;
        }
        let typed: R::Command = serde_json::from_value(entry.command.clone()).expect("parses");
        replayed
            .apply(entry.seat, &typed, &mut Log::silent())
            .unwrap_or_else(|e| panic!("seed {seed}: replay refused command {}: {e}", i + 1));
    }
    assert_eq!(
        replayed.state, live.state,
        "seed {seed}: replay differs from live play"
    );
    let adapter = super::dynamic::Adapter::<R>::NEW;
    let through_adapter = record
        .replay(&[&adapter])
        .unwrap_or_else(|e| panic!("seed {seed}: replay through the adapter failed: {e}"));
    assert_eq!(
        through_adapter.state_hash(),
        live.state_hash(),
        "seed {seed}"
    );
    record.commands.len()
}

/// A command that may be taken back moved no secret: every viewer's hidden cards are the same
/// before and after it (the game's own list of secrets, independent of
/// [`Rules::keeps_secrets`]).
fn check_takeback_keeps_secrets<R: Rules>(
    before: &Match<R>,
    after: &Match<R>,
    seats: usize,
    secrets: Secrets<R>,
    seed: Seed,
    step: usize,
) {
    let viewers = (0..seats).map(Viewer::Seat).chain([Viewer::Spectator]);
    for viewer in viewers {
        let mut then = secrets(&before.state, viewer);
        let mut now = secrets(&after.state, viewer);
        then.sort();
        now.sort();
        assert_eq!(
            then, now,
            "seed {seed} step {step}: a command that may be taken back moved {viewer:?}'s secrets"
        );
    }
}

fn check_views<R: Rules>(
    live: &Match<R>,
    seats: usize,
    secrets: Secrets<R>,
    seed: Seed,
    step: usize,
) {
    let viewers = (0..seats).map(Viewer::Seat).chain([Viewer::Spectator]);
    for viewer in viewers {
        let text = serde_json::to_string(&R::view(&live.state, viewer)).unwrap();
        for secret in secrets(&live.state, viewer) {
            assert!(
                !text.contains(&secret),
                "seed {seed} step {step}: {viewer:?} sees hidden {secret} in {text}"
            );
        }
    }
}

/// Commands that must be refused: wrong seat, garbage, and choices mangled into nonsense. Each
/// refusal must leave the state byte-identical.
fn check_refusals_change_nothing<R: Rules>(
    live: &Match<R>,
    seat: Seat,
    step: usize,
    seed: Seed,
    rng: &mut super::GameRng,
) where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let mut probes = vec![json!({"type": "no_such_move"})];
    for choice in R::choices(&live.state, seat).iter().take(4) {
        let command = fill_at_random(choice, rng);
        probes.push(mangle(&command, rng));
    }
    for probe in probes {
        // A probe that is no command of the game is refused before the rules see it.
        let Ok(typed) = serde_json::from_value::<R::Command>(probe.clone()) else {
            continue;
        };
        let mut trial = live.clone();
        if trial.apply(seat, &typed, &mut Log::silent()).is_err() {
            assert!(
                trial.state == live.state && trial.applied == live.applied,
                "seed {seed} step {step}: refused {probe} changed the state"
            );
        }
    }
}

/// A copy of a command with one value replaced by something odd: another card, a huge number,
/// a duplicated list entry, an empty list.
pub fn mangle(command: &Value, rng: &mut super::GameRng) -> Value {
    let mut out = command.clone();
    if let Value::Object(map) = &mut out {
        let keys: Vec<String> = map.keys().filter(|k| *k != "type").cloned().collect();
        if keys.is_empty() {
            map.insert("unexpected".into(), json!(1));
            return out;
        }
        let key = &keys[rng.index(keys.len())];
        let oddities = [
            json!("XX"),
            json!("PR"),
            json!(-1),
            json!(1_000_000),
            json!([]),
            json!(["CA", "CA"]),
            json!(["PR"]),
            json!(null),
            json!(["BJ", "RJ", "VI", "TX", "FL", "NY", "OH"]),
        ];
        let value = map.get_mut(key).unwrap();
        *value = match value {
            Value::Array(items) if !items.is_empty() && rng.below(2) == 0 => {
                let mut items = items.clone();
                items.push(items[0].clone());
                Value::Array(items)
            }
            _ => oddities[rng.index(oddities.len())].clone(),
        };
    }
    out
}

/// Applies an arbitrary JSON value as a command to a copy of the match: must not panic, and if
/// refused must leave the state unchanged.
pub fn check_arbitrary_command<R: Rules>(live: &Match<R>, seat: Seat, command: &Value)
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let mut trial: Box<dyn DynMatch> = Box::new(live.clone());
    let before = trial.state_json();
    if trial.apply_json(seat, command, &mut Log::silent()).is_err() {
        assert_eq!(
            before,
            trial.state_json(),
            "refused {command} changed the state"
        );
    }
}

/// A proptest strategy for arbitrary JSON: the fuzz input of [`check_arbitrary_command`].
pub fn arbitrary_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z_]{0,12}".prop_map(Value::from),
        prop::sample::select(vec![
            "CA", "PR", "BJ", "VI", "TX", "DC", "pass", "bid", "play"
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type", "card", "cards", "amount", "suit", "seat", "choice", "x"
                ])
                .prop_map(String::from),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Advances a match by `steps` random commands (or to its end), for fuzzing mid-game states.
pub fn random_midgame<R: Rules>(
    options: R::Options,
    seats: usize,
    seed: Seed,
    steps: usize,
) -> Match<R>
where
    R::State: Send + Sync,
    R::Options: Send + Sync,
{
    let mut live = Match::<R>::new(options, seats, seed).expect("setup");
    let mut rng = bot_rng(&seed);
    for _ in 0..steps {
        let active = R::active(&live.state);
        if active.is_empty() {
            break;
        }
        let seat = active[rng.index(active.len())];
        let choices = R::choices(&live.state, seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        let typed: R::Command = serde_json::from_value(command).expect("offered command parses");
        live.apply(seat, &typed, &mut Log::silent())
            .expect("offered command accepted");
    }
    live
}

/// Plays a random game from each seed in `seeds` under rules version `rules_version` and
/// checks at every move that the game's [`Rules::random_command`] makes the generic random
/// player's move ([`random_fill`]) from a copy of the same random stream: the same command,
/// whose JSON is the fill's (so a record holds the same), with the stream left in the same
/// place. `visit` sees each position checked and the seat moving (to tell what was covered).
/// Returns the number of moves checked. Panics, with the seed, on the first difference.
pub fn check_random_command<R: Rules>(
    options: &R::Options,
    seats: usize,
    rules_version: u32,
    seeds: std::ops::Range<u64>,
    mut visit: impl FnMut(&R::State, Seat),
) -> usize {
    let mut checked = 0;
    for n in seeds {
        let seed = Seed::from_number(n);
        let mut live = Match::<R>::new_at(options.clone(), seats, seed, rules_version)
            .unwrap_or_else(|e| panic!("setup failed for {seed}: {e}"));
        live.track_takebacks(false);
        let mut rng = bot_rng(&seed);
        for step in 1.. {
            if R::outcome(&live.state).is_some() {
                break;
            }
            assert!(
                step <= MAX_COMMANDS,
                "seed {seed}: no end after {MAX_COMMANDS} commands"
            );
            let active = R::active(&live.state);
            assert!(
                !active.is_empty(),
                "seed {seed} step {step}: nobody awaited"
            );
            let seat = active[rng.index(active.len())];
            visit(&live.state, seat);
            let mut generic = rng.clone();
            let fill = random_fill::<R>(&live.state, seat, &mut generic);
            let typed = R::random_command(&live.state, seat, &mut rng);
            let json = typed
                .as_ref()
                .map(|c| serde_json::to_value(c).expect("serializes"));
            assert_eq!(
                json, fill,
                "seed {seed} step {step}: seat {seat}'s random move"
            );
            let decoded = fill.map(|f| R::decode(&f).expect("an offered fill reads"));
            assert_eq!(
                typed, decoded,
                "seed {seed} step {step}: the fill reads otherwise"
            );
            assert_eq!(
                rng.clone().next_u32(),
                generic.next_u32(),
                "seed {seed} step {step}: the typed move drew otherwise than the fill"
            );
            let command = typed.expect("an awaited seat has a move");
            live.apply(seat, &command, &mut Log::silent())
                .unwrap_or_else(|e| panic!("seed {seed} step {step}: {command:?} refused: {e}"));
            checked += 1;
        }
    }
    checked
}

/// The number of random games a property test plays: `base`, times `POSTPLAY_SOAK` when that
/// is set (a long soak run: `POSTPLAY_SOAK=50 cargo test --release --test rules properties_x`).
pub fn cases(base: u32) -> u32 {
    let factor = std::env::var("POSTPLAY_SOAK")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(1)
        .max(1);
    base.saturating_mul(factor)
}
