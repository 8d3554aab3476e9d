//! The end of a hand: counting the bidder's electoral votes, scores, landslides, and the end of
//! the game.

use super::SEAT_NAMES;
use super::state::{HandSummary, Phase, State};
use crate::engine::log::who;
use crate::engine::{Log, Outcome, Seat};

/// Scores the finished hand and decides whether the game is over.
pub fn end_hand(state: &mut State, log: &mut Log) {
    let bidder = state.bidder.expect("a hand has a bidder");
    let bid = state.high_bid.expect("a hand has a bid");
    let trump = state.trump.expect("a hand has trump");
    let kitty_ev: u32 = state.kitty.iter().map(|c| c.ev()).sum();
    let tricks_ev: u32 = (0..4)
        .filter(|&s| state.same_side(s, bidder))
        .map(|s| state.captured[s])
        .sum();
    let captured = tricks_ev + kitty_ev;
    let made = captured >= bid;
    let kitty = state.kitty.clone();
    log.push(|| {
        let cards: Vec<&str> = kitty.iter().map(|c| c.label()).collect();
        format!(
            "the kitty held {} ({kitty_ev} electoral votes, counted for {})",
            cards.join(", "),
            who(bidder)
        )
    });
    let mut changes = vec![0i64; state.scores.len()];
    changes[state.holder(bidder)] = if made { 1 } else { -2 };
    for &challenger in &state.challengers {
        changes[state.holder(challenger)] += if made { -1 } else { 1 };
    }
    for (score, change) in state.scores.iter_mut().zip(&changes) {
        *score += change;
    }
    log.push(|| {
        format!(
            "{} {} the White House: {captured} of {bid} electoral votes ({})",
            who(bidder),
            if made { "wins" } else { "loses" },
            if made { "+1" } else { "−2" }
        )
    });
    state.last_hand = Some(HandSummary {
        hand: state.hand_number,
        bidder,
        bid,
        trump,
        captured,
        made,
        challengers: state.challengers.clone(),
        changes,
    });
    state.phase = Phase::Bidding;
    let landslide = bid >= state.options.landslide();
    if landslide && made {
        let winners = side_of(state, bidder);
        finish(
            state,
            winners,
            format!(
                "{} made a landslide bid of {bid}",
                holder_name(state, bidder)
            ),
            log,
        );
    } else if landslide && state.options.partnership {
        let winners = side_of(state, (bidder + 1) % 4);
        finish(
            state,
            winners,
            format!(
                "{} failed a landslide bid of {bid}",
                holder_name(state, bidder)
            ),
            log,
        );
    } else if landslide {
        state.eliminated[bidder] = true;
        log.push(|| {
            format!(
                "{} failed a landslide bid of {bid} and is out of the game",
                who(bidder)
            )
        });
        check_target(state, log);
    } else {
        check_target(state, log);
    }
}

/// Ends the game if someone reached the target or its negative and the lead is not tied (or
/// only one player is left in individual play).
fn check_target(state: &mut State, log: &mut Log) {
    let target = state.options.target;
    let standing: Vec<usize> = (0..state.scores.len())
        .filter(|&h| state.options.partnership || !state.eliminated[h])
        .collect();
    if standing.len() == 1 {
        let last = standing[0];
        finish(
            state,
            vec![last],
            format!("{} is the last player left in the game", SEAT_NAMES[last]),
            log,
        );
        return;
    }
    let reached = standing
        .iter()
        .any(|&h| state.scores[h] >= target || state.scores[h] <= -target);
    if !reached {
        return;
    }
    let top = standing
        .iter()
        .map(|&h| state.scores[h])
        .max()
        .expect("someone stands");
    let leaders: Vec<usize> = standing
        .iter()
        .copied()
        .filter(|&h| state.scores[h] == top)
        .collect();
    if leaders.len() > 1 {
        log.push(|| format!("the lead is tied at {top}: play goes on"));
        return;
    }
    let leader = leaders[0];
    let winners = if state.options.partnership {
        vec![leader, leader + 2]
    } else {
        vec![leader]
    };
    let reason = format!(
        "{} leads with {} after a score of ±{target} was reached",
        holder_label(state, leader),
        // Version 1 wrote "1 points"; its records keep the words their final hash holds.
        if state.rules_version >= 2 {
            crate::engine::log::count(top, "point")
        } else {
            format!("{top} points")
        }
    );
    finish(state, winners, reason, log);
}

fn side_of(state: &State, seat: Seat) -> Vec<Seat> {
    (0..4).filter(|&s| state.same_side(s, seat)).collect()
}

fn holder_label(state: &State, holder: usize) -> String {
    if state.options.partnership {
        if holder == 0 {
            "North–South".into()
        } else {
            "East–West".into()
        }
    } else {
        SEAT_NAMES[holder].to_string()
    }
}

fn holder_name(state: &State, seat: Seat) -> String {
    holder_label(state, state.holder(seat))
}

fn finish(state: &mut State, winners: Vec<Seat>, reason: String, log: &mut Log) {
    let scores = (0..4).map(|s| state.scores[state.holder(s)]).collect();
    log.push(|| format!("game over: {reason}"));
    state.outcome = Some(Outcome {
        winners,
        scores,
        reason,
    });
    state.phase = Phase::Over;
}
