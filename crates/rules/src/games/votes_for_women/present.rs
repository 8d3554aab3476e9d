//! Votes for Women in words, from the game's own [`View`]: the position a mail shows (plain
//! text and simple HTML) and the words the web board shares with it (each side's name, the
//! stage of the turn, what is being resolved, the last roll, the state being voted on, a
//! campaigner, a state's mark).

use super::data::{Colour, OPP, Region, SUFF};
use super::{CardView, Mark, Phase, StateView, View};
use crate::engine::Seat;
use crate::engine::log::count;
use crate::engine::present::{Ending, Names, Position, esc, verdict};

#[cfg(test)]
mod tests;

/// The side a seat plays: "Suffragist" or "Opposition".
pub fn side(seat: Seat) -> &'static str {
    super::board::side(seat)
}

/// The most buttons a side may hold: 12 for the Suffragist, 6 for the Opposition.
pub fn button_cap(seat: Seat) -> u8 {
    super::State::button_cap(seat)
}

/// A campaigner's colour in words: "purple", "yellow", "red".
pub fn colour_word(colour: Colour) -> &'static str {
    match colour {
        Colour::Purple => "purple",
        Colour::Yellow => "yellow",
        Colour::Red => "red",
    }
}

/// A state's mark as the map draws it: ✔ ratified, ✘ rejected.
pub fn mark_symbol(mark: Option<Mark>) -> &'static str {
    match mark {
        Some(Mark::Check) => "✔",
        Some(Mark::X) => "✘",
        None => "",
    }
}

/// Dice in words: "3, 5".
pub fn dice_words(dice: &[u8]) -> String {
    dice.iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where the game stands, for the board: "Operations, round 2 of 6: Bo plays", the Strategy
/// phase with its commitment, Final Voting, or the end; then what is awaited.
pub fn stage_words(v: &View, name: &dyn Fn(Seat) -> String) -> String {
    let now = match (&v.outcome, v.phase) {
        (Some(o), _) => format!("Game over: {}", o.reason),
        (None, Phase::FinalVoting) => "Final Voting".to_string(),
        (None, Phase::StrategyCommit | Phase::StrategyAnswer | Phase::StrategyPick) => {
            let c = v
                .commitment
                .map(|n| format!(" ({} committed)", count(n, "button")))
                .unwrap_or_default();
            format!("Strategy phase{c}")
        }
        _ => format!(
            "Operations, round {} of 6: {} plays",
            v.round,
            name(v.to_play)
        ),
    };
    match &v.awaiting {
        Some(a) if v.outcome.is_none() => format!("{now} · awaiting {a}"),
        _ => now,
    }
}

/// What an effect being resolved is: "event", "Campaigning", "Organizing", "Lobbying".
pub fn resolving_what(what: &str) -> &str {
    match what {
        "card" => "event",
        "campaign" => "Campaigning",
        "organize" => "Organizing",
        "lobby" => "Lobbying",
        other => other,
    }
}

/// The effects being resolved, outermost first: "Red Scare (event) by Bo, dice 3, 5".
pub fn resolving_words(v: &View, name: &dyn Fn(Seat) -> String) -> String {
    v.resolving
        .iter()
        .map(|r| {
            let dice = if r.dice.is_empty() {
                String::new()
            } else {
                format!(", dice {}", dice_words(&r.dice))
            };
            format!(
                "{} ({}) by {}{dice}",
                r.card.name,
                resolving_what(&r.what),
                name(r.seat)
            )
        })
        .collect::<Vec<_>>()
        .join(" › ")
}

/// The last roll: "Bo rolled 3, 5 for Campaigning".
pub fn last_roll_words(v: &View, name: &dyn Fn(Seat) -> String) -> Option<String> {
    v.last_roll
        .as_ref()
        .map(|(s, what, dice)| format!("{} rolled {} for {what}", name(*s), dice_words(dice)))
}

/// The state being voted on in Final Voting: "Ohio votes: Ann rolls 4 (d6) for 7, Bo rolls 2
/// (d6) for 3".
pub fn vote_words(v: &View, name: &dyn Fn(Seat) -> String) -> Option<String> {
    v.vote.as_ref().map(|vote| {
        format!(
            "{} votes: {} rolls {} (d{}) for {}, {} rolls {} (d{}) for {}",
            vote.state.name(),
            name(SUFF),
            vote.dice[SUFF],
            vote.sides[SUFF],
            vote.totals[SUFF],
            name(OPP),
            vote.dice[OPP],
            vote.sides[OPP],
            vote.totals[OPP]
        )
    })
}

/// Cards by name, apart by semicolons since some names hold commas ("Progress, Not
/// Politics"): "Red Scare; Ohio".
pub fn card_names(cards: &[CardView]) -> String {
    cards
        .iter()
        .map(|c| c.name.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// A state's cubes in words, the Suffragist's first: "2 purple, 1 yellow", "3 red".
pub fn cubes_words(s: &StateView) -> String {
    [(s.purple, "purple"), (s.yellow, "yellow"), (s.red, "red")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, colour)| format!("{n} {colour}"))
        .collect::<Vec<_>>()
        .join(", ")
}

const PURPLE: &str = "#7b3fa0";
const YELLOW: &str = "#c99a06";
const RED: &str = "#c0392b";

fn colour_code(colour: &str) -> &'static str {
    match colour {
        "purple" => PURPLE,
        "yellow" => YELLOW,
        _ => RED,
    }
}

/// A state's cubes drawn: a coloured square a cube, then the count.
fn cubes_html(s: &StateView) -> String {
    [(s.purple, "purple"), (s.yellow, "yellow"), (s.red, "red")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, colour)| {
            format!(
                r#"<span style="color: {};">{}</span>{n}"#,
                colour_code(colour),
                "■".repeat(usize::from(*n).min(8))
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One part of a position: a line of text and its HTML.
struct Part {
    text: String,
    html: String,
}

const P: &str = r#"<p style="margin: 0.2rem 0;">"#;

impl Part {
    fn line(text: String) -> Part {
        Part {
            html: format!("{P}{}</p>", esc(&text)),
            text,
        }
    }

    fn labelled(label: &str, value: String) -> Part {
        Part {
            html: format!("{P}<b>{}:</b> {}</p>", esc(label), esc(&value)),
            text: format!("{label}: {value}"),
        }
    }
}

/// The position as `view` shows it, with the players' names: seat-relative for a player ("You
/// (Ann, Suffragist)"), each side by name for a spectator.
pub fn position(v: &View, names: &Names) -> Position {
    let you = v.you;
    let named = |s: Seat| {
        if you == Some(s) {
            "you".to_string()
        } else {
            format!("{} ({})", names.of(s), side(s))
        }
    };
    let mut parts = Vec::new();
    parts.push(Part::line(stage_line(v, names)));
    let order: Vec<Seat> = match you {
        Some(s) => vec![s, 1 - s],
        None => vec![SUFF, OPP],
    };
    for &s in &order {
        parts.push(Part::line(side_line(v, names, s)));
    }
    parts.push(Part::line(if v.amendment_sent {
        format!(
            "The Amendment is before the states: {} of 36 ratify, {} of 13 reject.",
            v.checks, v.xs
        )
    } else {
        format!(
            "Congress: {} of 6 markers (the sixth sends the Amendment to the states).",
            v.congress
        )
    }));
    for (mark, label) in [(Mark::Check, "Ratified"), (Mark::X, "Rejected")] {
        let states: Vec<&str> = v
            .states
            .iter()
            .filter(|s| s.mark == Some(mark))
            .map(|s| s.name.as_str())
            .collect();
        if !states.is_empty() {
            parts.push(Part::labelled(
                &format!("{label} ({})", states.len()),
                states.join(", "),
            ));
        }
    }
    parts.push(map_part(v));
    let to_claim: Vec<&str> = v
        .states
        .iter()
        .filter(|s| s.card.is_some())
        .map(|s| s.name.as_str())
        .collect();
    if !to_claim.is_empty() {
        parts.push(Part::labelled("State cards to claim", to_claim.join(", ")));
    }
    for (cards, label) in [
        (&v.rest_of_turn, "In effect this turn"),
        (&v.rest_of_game, "In effect for the rest of the game"),
        (&v.final_voting, "In effect for Final Voting"),
    ] {
        if !cards.is_empty() {
            parts.push(Part::labelled(label, card_names(cards)));
        }
    }
    if !v.strategy_face_up.is_empty() {
        parts.push(Part::labelled(
            "Strategy cards face up",
            format!(
                "{} ({} in the deck)",
                card_names(&v.strategy_face_up),
                v.strategy_deck_size
            ),
        ));
    }
    for &s in &order {
        if !v.claimed[s].is_empty() {
            let who = if you == Some(s) {
                "Claimed by you".to_string()
            } else {
                format!("Claimed by {}", names.of(s))
            };
            parts.push(Part::labelled(&who, card_names(&v.claimed[s])));
        }
    }
    if !v.resolving.is_empty() {
        parts.push(Part::labelled("Resolving", resolving_words(v, &named)));
    }
    let rolling = v.resolving.iter().any(|r| !r.dice.is_empty());
    if let Some(roll) = last_roll_words(v, &named).filter(|_| !rolling) {
        parts.push(Part::labelled("Last roll", roll));
    }
    if let Some(vote) = vote_words(v, &named) {
        parts.push(Part::labelled("Final Voting", vote));
    }
    let drawn: Vec<CardView> = v
        .resolving
        .iter()
        .filter(|r| you == Some(r.seat))
        .filter_map(|r| r.drawn.clone())
        .flatten()
        .collect();
    if !drawn.is_empty() {
        parts.push(Part::labelled(
            "Cards you drew for this effect",
            card_names(&drawn),
        ));
    }
    for (opponent, hand) in shown_hands(v) {
        parts.push(Part::labelled(
            &seen_hand_label(&names.of(opponent)),
            if hand.is_empty() {
                "no cards".to_string()
            } else {
                card_names(&hand)
            },
        ));
    }
    for &s in &order {
        if let Some(Some(hand)) = v.hands.get(s) {
            let who = if you == Some(s) {
                "Your hand".to_string()
            } else {
                format!("{}'s hand", names.of(s))
            };
            let cards = if hand.is_empty() {
                "no cards".to_string()
            } else {
                card_names(hand)
            };
            parts.push(Part::labelled(&who, cards));
        }
    }
    Position {
        text: parts
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        html: parts.into_iter().map(|p| p.html).collect(),
    }
}

/// The opponent's hands the viewer is looking at (Change In Plans: "See opponent's hand"),
/// with whose they are.
pub fn shown_hands(v: &View) -> Vec<(Seat, Vec<CardView>)> {
    v.resolving
        .iter()
        .filter(|r| v.you == Some(r.seat))
        .filter_map(|r| Some((1 - r.seat, r.shown.clone()?)))
        .collect()
}

/// The words over an opponent's hand the viewer is looking at ([`shown_hands`]).
pub fn seen_hand_label(owner: &str) -> String {
    format!("{owner}'s hand, which Change In Plans lets you see")
}

/// The first line: the turn and its stage, and who is awaited.
fn stage_line(v: &View, names: &Names) -> String {
    if let Some(o) = &v.outcome {
        return format!("The game is over: {}.", o.reason.trim_end_matches('.'));
    }
    let stage = match v.phase {
        Phase::FinalVoting => "Final Voting".to_string(),
        Phase::StrategyCommit | Phase::StrategyAnswer | Phase::StrategyPick => {
            let c = v
                .commitment
                .map(|n| format!(", {} committed", count(n, "button")))
                .unwrap_or_default();
            format!("Turn {} of 6, Strategy phase{c}", v.turn)
        }
        _ => format!("Turn {} of 6, round {} of 6", v.turn, v.round),
    };
    let awaited = match v.active.first() {
        Some(&s) if v.you == Some(s) => {
            let what = v
                .awaiting
                .as_deref()
                .and_then(|a| a.strip_prefix(side(s)))
                .and_then(|a| a.strip_prefix(": "))
                .unwrap_or("your move");
            format!("Your move: {what}.")
        }
        Some(&s) => format!("Waiting for {} ({}).", names.of(s), side(s)),
        None => String::new(),
    };
    format!("{stage}. {awaited}").trim_end().to_string()
}

/// A side's line: name, buttons, cards in hand and in the draw deck.
fn side_line(v: &View, names: &Names, s: Seat) -> String {
    let who = if v.you == Some(s) {
        format!("You ({}, {})", names.of(s), side(s))
    } else {
        format!("{} ({})", names.of(s), side(s))
    };
    format!(
        "{who}: {} of {} buttons, {} in hand, {} in the draw deck.",
        v.buttons[s],
        button_cap(s),
        count(v.hand_sizes[s] as i64, "card"),
        v.deck_sizes[s]
    )
}

/// The map, a region a line: its campaigners, then each state holding cubes.
fn map_part(v: &View) -> Part {
    let mut text = String::from("The map, cubes by region:");
    let mut html = String::from(
        r#"<table style="border-collapse: collapse; margin: 0.2rem 0;"><tr><th style="text-align: left; padding: 0.1rem 0.5rem 0.1rem 0;">Region</th><th style="text-align: left; padding: 0.1rem 0.5rem 0.1rem 0;">Campaigners</th><th style="text-align: left; padding: 0.1rem 0;">States with cubes</th></tr>"#,
    );
    let mut any = false;
    for region in Region::ALL {
        let campaigners: Vec<&str> = v
            .campaigners
            .iter()
            .filter(|c| c.region == region)
            .map(|c| colour_word(c.colour))
            .collect();
        let states: Vec<&StateView> = v
            .states
            .iter()
            .filter(|s| s.region == region && s.purple + s.yellow + s.red > 0)
            .collect();
        if campaigners.is_empty() && states.is_empty() {
            continue;
        }
        any = true;
        let mut line = format!("\n  {}", region.name());
        if !campaigners.is_empty() {
            line.push_str(&format!(" (campaigners {})", campaigners.join(", ")));
        }
        line.push(':');
        if states.is_empty() {
            line.push_str(" no cubes");
        } else {
            let list: Vec<String> = states
                .iter()
                .map(|s| format!("{} {}", s.name, cubes_words(s)))
                .collect();
            line.push(' ');
            line.push_str(&list.join("; "));
        }
        text.push_str(&line);
        html.push_str(&format!(
            r#"<tr style="border-top: 1px solid #ccc;"><td style="padding: 0.1rem 0.5rem 0.1rem 0; vertical-align: top;">{}</td><td style="padding: 0.1rem 0.5rem 0.1rem 0; vertical-align: top;">{}</td><td style="padding: 0.1rem 0;">{}</td></tr>"#,
            esc(region.name()),
            campaigners
                .iter()
                .map(|c| format!(r#"<span style="color: {};">●</span> {c}"#, colour_code(c)))
                .collect::<Vec<_>>()
                .join(" "),
            states
                .iter()
                .map(|s| format!("{} {}", esc(&s.name), cubes_html(s)))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    html.push_str("</table>");
    if !any {
        return Part::line("The map: no campaigner and no cube yet.".to_string());
    }
    Part { text, html }
}

/// How the game ended: the winner named with their side, then the final tally of the 48
/// states: ratified, rejected, undecided.
pub fn ending(v: &View, outcome: &crate::engine::Outcome, names: &Names) -> Ending {
    let label = |s: Seat| format!("{} ({})", names.of(s), side(s));
    let undecided = v.states.len().saturating_sub(v.checks + v.xs);
    Ending {
        verdict: verdict(outcome, names, &label),
        tally: vec![
            ("Ratified".to_string(), count(v.checks as i64, "state")),
            ("Rejected".to_string(), count(v.xs as i64, "state")),
            ("Undecided".to_string(), count(undecided as i64, "state")),
        ],
    }
}
