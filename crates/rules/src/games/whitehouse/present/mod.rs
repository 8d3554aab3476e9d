//! Whitehouse in words: the position a seat reads in its mail (text and HTML), and the words
//! the web board shares with it (contract, scores, a seat's bid, the last hand). Everything is
//! drawn from the viewer's [`View`], seat-relative and with the players' names.

use super::{Phase, SEAT_NAMES, View};
use crate::cards::{Card, Suit};
use crate::engine::Seat;
use crate::engine::log::{count, render};
use crate::engine::present::{Ending, Names, Position, score_rows, verdict};
use crate::games::pack::{Words, and_list, label, sheet};

/// "North–South" or "East–West": the partnership of `seat`.
pub fn side_name(seat: Seat) -> &'static str {
    if seat.is_multiple_of(2) {
        "North–South"
    } else {
        "East–West"
    }
}

/// A seat as the viewer reads it: "you", or the player's name.
fn who(v: &View, names: &Names, seat: Seat) -> String {
    if v.you == Some(seat) {
        "you".to_string()
    } else {
        names.of(seat)
    }
}

/// Trump in words: "♥ hearts".
fn trump_words(suit: Suit) -> String {
    format!("{} {}", suit.symbol(), suit.name())
}

/// The contract: "East–West 340 in ♥ hearts (Bo bids)", "Bo bids 340 in ♠ spades" in
/// individual play, "no bid yet" during an auction without one.
pub fn contract(v: &View, names: &Names) -> String {
    let (Some(bidder), Some(bid)) = (v.bidder, v.high_bid) else {
        return "no bid yet".to_string();
    };
    let trump = match v.trump {
        Some(t) => format!(" in {}", trump_words(t)),
        None if v.phase == Phase::Bidding => String::new(),
        None => ", trump not named yet".to_string(),
    };
    if v.partnership {
        format!(
            "{} {bid}{trump} ({} bids)",
            side_name(bidder),
            names.of(bidder)
        )
    } else {
        format!("{} bids {bid}{trump}", names.of(bidder))
    }
}

/// The scores and the target: "North–South 2, East–West 1 (to 7)", or each player's score
/// in individual play, those out of the game marked.
pub fn scores(v: &View, names: &Names) -> String {
    let list = if v.partnership {
        format!(
            "North–South {}, East–West {}",
            v.scores.first().copied().unwrap_or(0),
            v.scores.get(1).copied().unwrap_or(0)
        )
    } else {
        (0..v.scores.len())
            .map(|s| {
                let out = if v.eliminated.get(s).copied().unwrap_or(false) {
                    " (out)"
                } else {
                    ""
                };
                format!("{} {}{out}", names.of(s), v.scores[s])
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{list} (to {})", v.target)
}

/// What `seat` said in this hand's auction ("bid 300", "passed"), and whether it challenges
/// the contract; empty if it has not spoken.
pub fn bid_words(v: &View, seat: Seat) -> String {
    let bid = v
        .bids
        .iter()
        .find(|b| b.seat == seat)
        .map(|b| {
            b.amount
                .map_or("passed".to_string(), |a| format!("bid {a}"))
        })
        .unwrap_or_default();
    let challenge = if v.challengers.contains(&seat) {
        " · challenges"
    } else {
        ""
    };
    bid + challenge
}

/// The last finished hand: "Bo bid 340 in ♥ hearts, took 362: made"; empty before the first
/// hand is over.
pub fn last_hand(v: &View, names: &Names) -> String {
    v.last_hand
        .as_ref()
        .map(|h| {
            format!(
                "{} bid {} in {}, took {}: {}",
                names.of(h.bidder),
                h.bid,
                trump_words(h.trump),
                h.captured,
                if h.made { "made" } else { "failed" }
            )
        })
        .unwrap_or_default()
}

/// Cards played in order, each with who played it: "Di led 3♠ …, you played Q♠ …".
fn played(v: &View, names: &Names, trick: &[(Seat, Card)]) -> Words {
    let mut out = Words::new();
    for (i, (seat, card)) in trick.iter().enumerate() {
        if i > 0 {
            out.say(", ");
        }
        out.say(format!(
            "{} {} ",
            who(v, names, *seat),
            if i == 0 { "led" } else { "played" }
        ));
        out.card(*card);
    }
    out
}

/// Who is to move and what for, or how the game ended.
fn to_move(v: &View, names: &Names) -> String {
    if let Some(outcome) = &v.outcome {
        let winners: Vec<String> = outcome.winners.iter().map(|&s| names.of(s)).collect();
        let reason = render(&outcome.reason, names.names);
        return if winners.is_empty() {
            format!("Game over: {reason}.")
        } else {
            format!("Game over: {reason}. {} win.", and_list(&winners))
        };
    }
    let Some(turn) = v.turn else {
        return String::new();
    };
    let task = match v.phase {
        Phase::Bidding if v.high_bid.is_none() && v.bids.len() + 1 >= active_seats(v) => {
            "to take the bid at 270"
        }
        Phase::Bidding => "to bid or pass",
        Phase::Trump => "to name trump",
        Phase::Kitty => "to lay the kitty back",
        Phase::Challenges => "to challenge the bid or let it stand",
        Phase::Play => "to play",
        Phase::HandOver | Phase::Over => return String::new(),
    };
    crate::games::pack::turn_sentence(v.you == Some(turn), &names.of(turn), task)
}

fn active_seats(v: &View) -> usize {
    v.eliminated.iter().filter(|out| !**out).count().max(1)
}

/// The seats round the table from North: "North Ann (dealer), East Bo, South Cy (you), …".
fn seats(v: &View, names: &Names) -> String {
    (0..4)
        .map(|s| {
            let mut marks = Vec::new();
            if v.you == Some(s) {
                marks.push("you");
            }
            if v.dealer == s {
                marks.push("dealer");
            }
            if v.eliminated.get(s).copied().unwrap_or(false) {
                marks.push("out");
            }
            let marks = if marks.is_empty() {
                String::new()
            } else {
                format!(" ({})", marks.join(", "))
            };
            format!("{} {}{marks}", SEAT_NAMES[s], names.of(s))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The auction so far in order: "Bo bid 300, you passed".
fn auction(v: &View, names: &Names) -> String {
    v.bids
        .iter()
        .map(|b| {
            let said = b
                .amount
                .map_or("passed".to_string(), |a| format!("bid {a}"));
            format!("{} {said}", who(v, names, b.seat))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tricks and electoral votes taken this hand, by partnership or by player.
fn taken(v: &View, names: &Names) -> String {
    let part = |seats: &[Seat], label: String| {
        let tricks: u32 = seats.iter().map(|&s| v.tricks_won[s]).sum();
        let ev: u32 = seats.iter().map(|&s| v.captured[s]).sum();
        format!("{label} {}, {ev} EV", count(tricks, "trick"))
    };
    if v.partnership {
        format!(
            "{}; {}",
            part(&[0, 2], "North–South".into()),
            part(&[1, 3], "East–West".into())
        )
    } else {
        (0..4)
            .map(|s| part(&[s], who(v, names, s)))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The position as `view` shows it, with the players' names.
pub fn position(v: &View, names: &Names) -> Position {
    let mut rows: Vec<(String, Words)> = vec![
        (
            format!("Hand {}", v.hand_number),
            Words::of(scores(v, names)),
        ),
        ("Seats".into(), Words::of(seats(v, names))),
    ];
    if v.phase == Phase::Bidding {
        let said = auction(v, names);
        rows.push((
            "Bidding".into(),
            Words::of(if said.is_empty() {
                "nobody has spoken yet".to_string()
            } else {
                said
            }),
        ));
    } else if v.bidder.is_some() {
        let mut words = contract(v, names);
        if !v.challengers.is_empty() {
            let who: Vec<String> = v.challengers.iter().map(|&s| who(v, names, s)).collect();
            words.push_str(&format!("; challenged by {}", and_list(&who)));
        }
        rows.push(("Contract".into(), Words::of(words)));
    }
    if !v.trick.is_empty() {
        rows.push(("On the table".into(), played(v, names, &v.trick)));
    }
    if let Some((trick, taker)) = &v.last_trick {
        let mut words = Words::of(format!("{} took it: ", who(v, names, *taker)));
        words.then(played(v, names, trick));
        rows.push(("Previous trick".into(), words));
    }
    for (seat, hand) in v.hands.iter().enumerate() {
        let Some(hand) = hand.as_ref().filter(|h| !h.is_empty()) else {
            continue;
        };
        let holder = if v.you == Some(seat) {
            format!("You ({}) hold", SEAT_NAMES[seat])
        } else {
            format!("{} ({}) holds", names.of(seat), SEAT_NAMES[seat])
        };
        let mut words = Words::new();
        for (i, card) in hand.iter().enumerate() {
            if i > 0 {
                words.say(", ");
            }
            words.card(*card);
            if v.from_kitty.contains(card) {
                words.say(" (from the kitty)");
            }
        }
        rows.push((holder, words));
    }
    if let Some(kitty) = v.kitty.as_ref().filter(|k| !k.is_empty()) {
        let title = if v.you.is_some() {
            "The kitty you laid back"
        } else {
            "The kitty"
        };
        let mut words = Words::new();
        words.cards(kitty, ", ");
        rows.push((title.into(), words));
    }
    if v.phase == Phase::Play {
        rows.push(("Taken this hand".into(), Words::of(taken(v, names))));
    }
    let last = last_hand(v, names);
    if !last.is_empty() {
        rows.push(("Previous hand".into(), Words::of(last)));
    }
    let now = to_move(v, names);
    if !now.is_empty() {
        rows.push((String::new(), Words::of(now)));
    }
    sheet(&rows, label)
}

#[cfg(test)]
mod tests;

/// How the game ended: the winners named (with their partnership in partnership play), then
/// each side's final score.
pub fn ending(v: &View, outcome: &crate::engine::Outcome, names: &Names) -> Ending {
    let verdict = if v.partnership {
        verdict(outcome, names, &|s: Seat| names.of(s))
    } else {
        verdict(outcome, names, &|s: Seat| {
            format!("{} ({})", names.of(s), SEAT_NAMES[s % 4])
        })
    };
    let tally = if v.partnership {
        (0..v.scores.len().min(2))
            .map(|h| {
                (
                    format!("{} ({} and {})", side_name(h), names.of(h), names.of(h + 2)),
                    count(v.scores[h], "point"),
                )
            })
            .collect()
    } else {
        score_rows(&v.scores, &|s: Seat| names.of(s), "point")
    };
    Ending { verdict, tally }
}
