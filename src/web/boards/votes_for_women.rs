//! The Votes for Women board, read from the game's own [`View`]: the six regions with each
//! state's cubes, check or X and face-up State card, the campaigners, the Congress and turn
//! tracks, buttons, the persistent boxes, the face-up Strategy cards, claimed cards and the
//! viewer's own hand.

use super::{Board, Seating, seat_name};
use crate::engine::Seat;
use crate::games::votes_for_women::present::{
    button_cap, colour_word, last_roll_words, mark_symbol, resolving_words, stage_words, vote_words,
};
use crate::games::votes_for_women::{CardView, Region, View, VotesForWomen};
use askama::Template;

/// One state's tile.
struct Tile {
    code: String,
    name: String,
    purple: u8,
    yellow: u8,
    red: u8,
    mark: &'static str,
    card: String,
}

/// One region's box.
struct RegionBox {
    name: &'static str,
    campaigners: Vec<(&'static str, &'static str)>,
    tiles: Vec<Tile>,
}

/// One side's row of counters and cards.
struct SideRow {
    name: String,
    you: bool,
    awaited: bool,
    waiting: String,
    buttons: u8,
    cap: u8,
    hand: usize,
    deck: usize,
    discards: usize,
    claimed: Vec<CardView>,
}

#[derive(Template)]
#[template(path = "boards/votes_for_women.html")]
struct VfwBoard {
    regions: Vec<RegionBox>,
    sides: Vec<SideRow>,
    turn: u8,
    round: u8,
    now: String,
    congress: Vec<bool>,
    amendment_sent: bool,
    checks: usize,
    xs: usize,
    rest_of_turn: Vec<CardView>,
    rest_of_game: Vec<CardView>,
    final_voting: Vec<CardView>,
    strategy: Vec<CardView>,
    strategy_deck: usize,
    hand: Option<Vec<CardView>>,
    open_hands: Vec<(String, Vec<CardView>)>,
    drawn: Vec<CardView>,
    resolving: String,
    last_roll: String,
    vote: String,
    outcome: String,
}

fn colour_class(colour: &str) -> &'static str {
    match colour {
        "purple" => "p",
        "yellow" => "y",
        _ => "r",
    }
}

impl Board for VotesForWomen {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let names = seating.names;
        let name = |s: Seat| seat_name(names, s);
        let regions = Region::ALL
            .iter()
            .map(|&region| RegionBox {
                name: region.name(),
                campaigners: v
                    .campaigners
                    .iter()
                    .filter(|c| c.region == region)
                    .map(|c| {
                        let colour = colour_word(c.colour);
                        (
                            colour_class(colour),
                            match colour {
                                "purple" => "purple campaigner",
                                "yellow" => "yellow campaigner",
                                _ => "red campaigner",
                            },
                        )
                    })
                    .collect(),
                tiles: v
                    .states
                    .iter()
                    .filter(|s| s.region == region)
                    .map(|s| Tile {
                        code: s.code.clone(),
                        name: s.name.clone(),
                        purple: s.purple,
                        yellow: s.yellow,
                        red: s.red,
                        mark: mark_symbol(s.mark),
                        card: s
                            .card
                            .as_ref()
                            .map(|c| c.effect.clone())
                            .unwrap_or_default(),
                    })
                    .collect(),
            })
            .collect();
        let sides = (0..2)
            .map(|s| SideRow {
                name: name(s),
                you: v.you == Some(s),
                awaited: seating.marks_to_move(v.active.contains(&s)),
                waiting: seating.waiting_since(s),
                buttons: v.buttons[s],
                cap: button_cap(s),
                hand: v.hand_sizes[s],
                deck: v.deck_sizes[s],
                discards: v.discards[s].len(),
                claimed: v.claimed[s].clone(),
            })
            .collect();
        let now = stage_words(v, &name);
        let drawn = v
            .resolving
            .iter()
            .filter_map(|r| r.drawn.clone())
            .flatten()
            .collect();
        let resolving = resolving_words(v, &name);
        let last_roll = last_roll_words(v, &name).unwrap_or_default();
        let vote = vote_words(v, &name).unwrap_or_default();
        let board = VfwBoard {
            regions,
            sides,
            turn: v.turn,
            round: v.round,
            now,
            congress: (0..6).map(|i| i < v.congress).collect(),
            amendment_sent: v.amendment_sent,
            checks: v.checks,
            xs: v.xs,
            rest_of_turn: v.rest_of_turn.clone(),
            rest_of_game: v.rest_of_game.clone(),
            final_voting: v.final_voting.clone(),
            strategy: v.strategy_face_up.clone(),
            strategy_deck: v.strategy_deck_size,
            hand: v.you.and_then(|s| v.hands.get(s).cloned().flatten()),
            open_hands: match v.you {
                Some(_) => Vec::new(),
                None => (0..2)
                    .filter_map(|s| v.hands[s].clone().map(|h| (name(s), h)))
                    .collect(),
            },
            drawn,
            resolving,
            last_roll,
            vote,
            outcome: v
                .outcome
                .as_ref()
                .map(|o| o.reason.clone())
                .unwrap_or_default(),
        };
        board.render()
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Log, Seed, Viewer, bot, find_game};

    /// Every step of random games, for both seats and a spectator, through this board (never
    /// the generic rendering): each seat sees its own hand and never the other's.
    #[test]
    fn every_step_of_random_games_renders_through_the_board() {
        let game = find_game("votes-for-women").unwrap();
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        for n in 0..12 {
            let seed = Seed::from_number(n);
            let mut live = game.new_match(&serde_json::json!({}), 2, seed).unwrap();
            let mut rng = bot::bot_rng(&seed);
            loop {
                let state: crate::games::votes_for_women::State =
                    serde_json::from_value(live.state_json()).unwrap();
                for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
                    let view = live.view(viewer);
                    let html = super::super::game_board("votes-for-women", &view, &names)
                        .unwrap_or_else(|| panic!("seed {n}: no board for {view}"));
                    assert!(html.contains("Ann") && html.contains("Bo"));
                    let whole = super::super::board_html(
                        "votes-for-women",
                        &view,
                        &super::super::Seating::named(&names),
                    );
                    assert!(
                        whole.contains("class=\"vfw\""),
                        "seed {n}: generic rendering"
                    );
                    for seat in 0..2 {
                        for &c in &state.hands[seat] {
                            let shown = html.contains(&format!("data-card=\"{c}\""));
                            assert_eq!(
                                shown,
                                viewer == Viewer::Seat(seat),
                                "seed {n}: {viewer:?} and hand card {c} of seat {seat}"
                            );
                        }
                    }
                }
                if live.outcome().is_some() {
                    break;
                }
                let seat = live.active()[0];
                let command = bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                live.apply_json(seat, &command, &mut Log::silent()).unwrap();
            }
        }
    }
}
