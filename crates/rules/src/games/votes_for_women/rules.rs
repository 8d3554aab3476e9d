//! Who may play what: events' prerequisites and costs, the actions open to a hand card,
//! and the turn's flow between decisions (Planning, Strategy, rounds, Cleanup, Final Voting).

use super::data::{BoxKind, Deck, OPP, Op, Prereq, SUFF, card};
use super::state::{Action, Phase, State};
use super::stops::{any_check, any_reconsider_target, congress_room};
use crate::engine::log::who;
use crate::engine::{GameRng, Log, Seat};

/// The extra button the Suffragist pays per card of her deck played as an event while A
/// Threat to the Ideal of Womanhood (79) or the 1918 Pandemic (89) is in effect: from the
/// hand, and under rules version 2 also from a draw or a search (RULES.md, "Events").
pub fn extra_cost(state: &State, seat: Seat, id: u8) -> u8 {
    u8::from(
        seat == SUFF
            && card(id).deck == Deck::Suffragist
            && (state.rest_of_turn.contains(&79) || state.rest_of_turn.contains(&89)),
    )
}

/// Whether `seat` may play card `id` as an event now (`from_hand`: paying the extra cost,
/// which under rules version 2 a drawn or searched card pays too).
pub fn playable(state: &State, seat: Seat, id: u8, from_hand: bool) -> bool {
    let def = card(id);
    let holds = def.prereqs.iter().all(|p| match *p {
        Prereq::InBox(kind, c) => state.boxed(kind).contains(&c),
        Prereq::NotInBox(kind, c) => !state.boxed(kind).contains(&c),
        Prereq::AmendmentSent => state.amendment_sent,
        Prereq::TurnAtLeast(t) => state.turn >= t,
    });
    let cost = def.button_cost
        + if from_hand {
            extra_cost(state, seat, id)
        } else {
            0
        };
    let targets = def.ops.iter().all(|op| match op {
        Op::CheckToX => any_check(state),
        Op::Reconsider => any_reconsider_target(state, seat),
        _ => true,
    });
    holds && targets && state.buttons[seat] >= cost
}

/// Why `seat` may not play card `id` as an event now, in a player's words (RULES.md,
/// "Events"); `None` when [`playable`] holds. The one account of what [`playable`] checks.
pub fn why_not_event(state: &State, seat: Seat, id: u8) -> Option<String> {
    let def = card(id);
    for p in &def.prereqs {
        let why = match *p {
            Prereq::InBox(kind, c) if !state.boxed(kind).contains(&c) => {
                format!("only while {} is in effect", card(c).name)
            }
            Prereq::NotInBox(kind, c) if state.boxed(kind).contains(&c) => {
                format!("not while {} is in effect", card(c).name)
            }
            Prereq::AmendmentSent if !state.amendment_sent => {
                "only once Congress has sent the Amendment to the states".to_string()
            }
            Prereq::TurnAtLeast(t) if state.turn < t => format!("not before turn {t}"),
            _ => continue,
        };
        return Some(why);
    }
    for op in &def.ops {
        match op {
            Op::CheckToX if !any_check(state) => {
                return Some("no state has a check to turn into an X".to_string());
            }
            Op::Reconsider if !any_reconsider_target(state, seat) => {
                return Some("no state it could have reconsidered".to_string());
            }
            _ => {}
        }
    }
    let cost = def.button_cost + extra_cost(state, seat, id);
    (state.buttons[seat] < cost).then(|| {
        format!(
            "it costs {}, you have {}",
            crate::engine::log::count(u32::from(cost), "button"),
            state.buttons[seat]
        )
    })
}

/// Why `seat` may not play a hand card for `action` (Campaigning, Organizing or Lobbying)
/// now, in a player's words; `None` when [`action_open`] holds. The one account of what
/// [`action_open`] checks.
pub fn why_not_action(state: &State, seat: Seat, action: Action) -> Option<String> {
    if action_open(state, seat, action) {
        return None;
    }
    if matches!(action, Action::Campaign | Action::Organize | Action::Lobby)
        && state.campaigner_count(seat) == 0
    {
        return Some("you have no campaigner on the map".to_string());
    }
    Some(match action {
        Action::Campaign => format!("{} is in effect and you have no button", card(88).name),
        Action::Organize => format!(
            "you hold the most buttons you may ({})",
            State::button_cap(seat)
        ),
        Action::Lobby if state.amendment_sent => {
            "Congress has already sent the Amendment".to_string()
        }
        Action::Lobby => "Congress has no room for your marker".to_string(),
        Action::Event | Action::Discard => return None,
    })
}

/// For the seat to play a card from its hand, the plays closed to it with the rules' reasons:
/// what holds for every card (the actions, plays with the same reason together: "Not for
/// Campaigning, Organizing or Lobbying: you have no campaigner on the map.") and, by card,
/// why it may not be played as an event. Empty for a seat not at that decision.
pub fn hand_notes(state: &State, seat: Seat) -> (Vec<String>, Vec<(u8, String)>) {
    if super::stops::stop(state) != Some((seat, super::stops::Stop::HandCard)) {
        return (Vec::new(), Vec::new());
    }
    let mut actions: Vec<(String, Vec<&str>)> = Vec::new();
    for (action, word) in [
        (Action::Campaign, "Campaigning"),
        (Action::Organize, "Organizing"),
        (Action::Lobby, "Lobbying"),
    ] {
        if let Some(why) = why_not_action(state, seat, action) {
            match actions.iter_mut().find(|(w, _)| *w == why) {
                Some((_, words)) => words.push(word),
                None => actions.push((why, vec![word])),
            }
        }
    }
    let every = actions
        .into_iter()
        .map(|(why, words)| format!("Not for {}: {why}.", or_list(&words)))
        .collect();
    let cards = state.hands[seat]
        .iter()
        .filter_map(|&c| {
            why_not_event(state, seat, c).map(|why| (c, format!("Not as an event: {why}.")))
        })
        .collect();
    (every, cards)
}

/// "a", "a or b", "a, b or c".
fn or_list(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Whether `seat` may play a hand card for `action`.
pub fn action_open(state: &State, seat: Seat, action: Action) -> bool {
    let campaigners = state.campaigner_count(seat) > 0;
    match action {
        Action::Event | Action::Discard => true,
        Action::Campaign => {
            campaigners
                && (seat != SUFF || !state.rest_of_turn.contains(&88) || state.buttons[seat] > 0)
        }
        Action::Organize => campaigners && state.buttons[seat] < State::button_cap(seat),
        Action::Lobby => campaigners && congress_room(state, seat) > 0,
    }
}

/// The hand cards `seat` may play for `action` now. Discarding for no effect is open only
/// when no card can be played any other way.
pub fn hand_options(state: &State, seat: Seat, action: Action) -> Vec<u8> {
    if !open_to_hand(state, seat, action) {
        return Vec::new();
    }
    let hand = &state.hands[seat];
    let mut cards = Vec::with_capacity(hand.len());
    cards.extend(
        hand.iter()
            .copied()
            .filter(|&c| card_fits(state, seat, action, c)),
    );
    cards
}

/// Whether [`hand_options`] holds card `c`, without listing them.
pub fn may_play(state: &State, seat: Seat, action: Action, c: u8) -> bool {
    state.hands[seat].contains(&c)
        && open_to_hand(state, seat, action)
        && card_fits(state, seat, action, c)
}

/// Whether `action` is open to the hand at all; which cards fit it is [`card_fits`].
fn open_to_hand(state: &State, seat: Seat, action: Action) -> bool {
    match action {
        Action::Event => true,
        Action::Discard => stuck(state, seat),
        _ => action_open(state, seat, action),
    }
}

/// Whether card `c` fits an `action` open to the hand: any card does, but an event must be
/// playable.
fn card_fits(state: &State, seat: Seat, action: Action, c: u8) -> bool {
    action != Action::Event || playable(state, seat, c, true)
}

/// Whether no hand card can be played as an event or for an action.
fn stuck(state: &State, seat: Seat) -> bool {
    let hand = &state.hands[seat];
    !hand.iter().any(|&c| playable(state, seat, c, true))
        && (hand.is_empty()
            || [Action::Campaign, Action::Organize, Action::Lobby]
                .iter()
                .all(|&a| !action_open(state, seat, a)))
}

/// The claimed cards `seat` may play now.
pub fn claimed_options(state: &State, seat: Seat) -> Vec<u8> {
    state.claimed[seat]
        .iter()
        .copied()
        .filter(|&c| claimed_fits(state, seat, c))
        .collect()
}

/// Whether [`claimed_options`] holds card `c`, without listing them.
pub fn may_play_claimed(state: &State, seat: Seat, c: u8) -> bool {
    state.claimed[seat].contains(&c) && claimed_fits(state, seat, c)
}

/// Whether [`claimed_options`] holds any card.
fn any_claimed_option(state: &State, seat: Seat) -> bool {
    state.claimed[seat]
        .iter()
        .any(|&c| claimed_fits(state, seat, c))
}

/// Whether `seat` may play its claimed card `c` now: one claimed card a part of a round.
fn claimed_fits(state: &State, seat: Seat, c: u8) -> bool {
    !state.claimed_done && playable(state, seat, c, false)
}

/// Whether the Opposition may defer to the commitment. Under rules version 2 not at a
/// commitment of 0: both at 0 is a match (RULES.md, "Strategy phase").
pub fn defer_open(state: &State) -> bool {
    !state.v2() || state.commitment.is_some_and(|c| c.buttons > 0)
}

/// The most the Suffragist may commit.
pub fn max_commit(state: &State) -> u8 {
    state.buttons[SUFF].min(state.buttons[OPP] + 1)
}

/// Moves the game on from a finished effect to the next decision, applying every step that
/// needs none: the end of a seat's part of a round, Cleanup, Planning, a Strategy phase with
/// nothing to decide, the end of the game.
pub fn settle(state: &mut State, rng: &mut GameRng, log: &mut Log) {
    let _ = rng;
    loop {
        if state.outcome.is_some() || !state.stack.is_empty() {
            return;
        }
        match state.phase {
            Phase::Operations => {
                let seat = state.to_play;
                if !state.hand_done && state.hands[seat].is_empty() {
                    state.hand_done = true;
                    log.push(|| format!("{} has no card to play", who(seat)));
                }
                if !state.hand_done || any_claimed_option(state, seat) {
                    return;
                }
                end_part(state, log);
            }
            Phase::StrategyCommit if state.buttons[SUFF] == 0 => {
                state.commitment = Some(super::state::Commitment { buttons: 0 });
                state.phase = Phase::StrategyAnswer;
                log.push(|| format!("{} commits no buttons", who(SUFF)));
            }
            Phase::StrategyPick if state.strategy_face_up.len() == 1 => {
                let c = state.strategy_face_up[0];
                take_strategy(state, SUFF, c, log);
                state.phase = Phase::Operations;
            }
            _ => return,
        }
    }
}

/// Ends the seat's part of the round: the other side plays, or the next round begins, or
/// Cleanup.
pub fn end_part(state: &mut State, log: &mut Log) {
    state.hand_done = false;
    state.claimed_done = false;
    if state.to_play == SUFF {
        state.to_play = OPP;
        return;
    }
    state.to_play = SUFF;
    state.round += 1;
    if state.round <= 6 {
        return;
    }
    cleanup(state, log);
}

fn cleanup(state: &mut State, log: &mut Log) {
    let turn = state.turn;
    if turn == 6 {
        state.round = 6;
        if !state.amendment_sent {
            state.finish(
                OPP,
                "the Nineteenth Amendment was not sent to the states by the end of turn 6",
            );
            return;
        }
        state.clear_box(BoxKind::RestOfTurn);
        state.clear_box(BoxKind::RestOfGame);
        state.phase = Phase::FinalVoting;
        state.chooser = SUFF;
        log.push(|| "Final Voting begins".into());
        return;
    }
    state.clear_box(BoxKind::RestOfTurn);
    state.turn += 1;
    state.round = 1;
    for seat in [SUFF, OPP] {
        state.draw(seat, 6);
    }
    let next = state.turn;
    log.push(|| format!("Turn {next} begins; each side draws six cards"));
    state.phase = if state.strategy_face_up.is_empty() {
        Phase::Operations
    } else {
        Phase::StrategyCommit
    };
}

/// `seat` claims a face-up Strategy card, and a new one is put out.
pub fn take_strategy(state: &mut State, seat: Seat, c: u8, log: &mut Log) {
    if let Some(at) = state.strategy_face_up.iter().position(|&x| x == c) {
        state.strategy_face_up.remove(at);
        state.claimed[seat].push(c);
        if let Some(next) = state.strategy_deck.pop() {
            state.strategy_face_up.push(next);
        }
        log.push(|| format!("{} claims the Strategy card {}", who(seat), card(c).name));
    }
}
