//! The Votes for Women board, read from the game's own [`View`]: the map (see [`map`]), the
//! Congress and turn tracks, buttons, the persistent boxes, the face-up Strategy cards,
//! claimed cards and the viewer's own hand. For the seat to move it is also the control: the
//! map places and removes cubes, and each card of the hand carries the uses open to it.

mod map;
mod moves;

use crate::engine::{Choice, Seat};
use crate::games::votes_for_women::present::{
    button_cap, last_roll_words, resolving_words, seen_hand_label, shown_hands, stage_words,
    vote_words,
};
use crate::games::votes_for_women::{CardView, View, VotesForWomen};
use crate::web::seat::boards::{Board, Seating, seat_name};
use askama::Template;

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
    map: String,
    /// The regions' names, colours and campaigners, under the map.
    regions: Vec<moves::RegionKey>,
    place: Option<moves::Placement>,
    hand_forms: Vec<usize>,
    hand_uses: Vec<Vec<moves::Use>>,
    /// The plays closed to every card of the hand, with the rules' reasons.
    hand_closed: Vec<String>,
    /// Why each hand card may not be played as an event (empty when it may), in the hand's
    /// order.
    hand_notes: Vec<String>,
    campaigner_moves: Vec<moves::CampaignerMove>,
    form: Option<moves::FormHead>,
    state_cards: Vec<(String, String)>,
    sides: Vec<SideRow>,
    turn: u8,
    round: u8,
    now: String,
    congress: Vec<bool>,
    amendment_sent: bool,
    checks: usize,
    xs: usize,
    /// Every card in effect, for the one line that names them.
    in_effect: Vec<CardView>,
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

impl Board for VotesForWomen {
    fn board(v: &View, seating: &Seating) -> askama::Result<String> {
        let names = seating.names;
        let name = |s: Seat| seat_name(names, s);
        let hand = v.you.and_then(|s| v.hands.get(s).cloned().flatten());
        let drawn_here = seating.moves.map(|m| moves::drawn(m.choices));
        let place = seating
            .moves
            .and_then(|m| moves::placement(v, m.choices, drawn_here.as_deref().unwrap_or(&[])));
        let open: Vec<String> = place
            .as_ref()
            .map(|p| p.rows.iter().map(|r| r.code.clone()).collect())
            .unwrap_or_default();
        let (hand_forms, hand_uses) = match (seating.moves, &hand) {
            (Some(m), Some(hand)) => moves::hand_uses(m.choices, hand),
            _ => (Vec::new(), Vec::new()),
        };
        let hand_notes = match (&hand, hand_forms.is_empty()) {
            (Some(hand), false) => hand
                .iter()
                .map(|c| {
                    v.hand_notes
                        .iter()
                        .find(|(id, _)| *id == c.id)
                        .map(|(_, why)| why.clone())
                        .unwrap_or_default()
                })
                .collect(),
            _ => Vec::new(),
        };
        let hand_closed = if hand_forms.is_empty() {
            Vec::new()
        } else {
            v.hand_closed.clone()
        };
        let state_cards = v
            .states
            .iter()
            .filter_map(|s| s.card.as_ref().map(|c| (s.name.clone(), c.effect.clone())))
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
        let now = seating.waits_for(stage_words(v, &name));
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
            map: map::svg(v, &open),
            regions: moves::region_keys(v),
            place,
            hand_forms,
            hand_uses,
            hand_closed,
            hand_notes,
            campaigner_moves: seating
                .moves
                .map(|m| moves::campaigner_moves(m.choices))
                .unwrap_or_default(),
            form: seating.moves.map(|m| moves::FormHead {
                post_url: m.post_url.to_string(),
                csrf: m.csrf.to_string(),
                head: m.head,
            }),
            state_cards,
            sides,
            turn: v.turn,
            round: v.round,
            now,
            congress: (0..6).map(|i| i < v.congress).collect(),
            amendment_sent: v.amendment_sent,
            checks: v.checks,
            xs: v.xs,
            in_effect: [&v.rest_of_turn, &v.rest_of_game, &v.final_voting]
                .into_iter()
                .flatten()
                .cloned()
                .collect(),
            rest_of_turn: v.rest_of_turn.clone(),
            rest_of_game: v.rest_of_game.clone(),
            final_voting: v.final_voting.clone(),
            strategy: v.strategy_face_up.clone(),
            strategy_deck: v.strategy_deck_size,
            hand,
            open_hands: match v.you {
                Some(_) => shown_hands(v)
                    .into_iter()
                    .map(|(s, h)| (seen_hand_label(&name(s)), h))
                    .collect(),
                None => (0..2)
                    .filter_map(|s| {
                        v.hands[s]
                            .clone()
                            .map(|h| (format!("{}'s hand", name(s)), h))
                    })
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

    /// No code of a choice is a card of the pack: a state is named by its label, never drawn
    /// as a Statehood playing card.
    fn card(_: &View, _: &str) -> Option<String> {
        None
    }

    fn drawn_choices(_: &View, choices: &[Choice]) -> Vec<usize> {
        moves::drawn(choices)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::{Log, Seed, Viewer, bot};
    use crate::games::find_game;
    use crate::games::votes_for_women::shows_opponents_hand;

    /// Every step of random games, for both seats and a spectator, through this board (never
    /// the generic rendering): each seat sees its own hand and never the other's.
    #[test]
    fn every_step_of_random_games_renders_through_the_board() {
        let game = find_game("votes-for-women").unwrap();
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        for n in 0..6 {
            let seed = Seed::from_number(n);
            let mut live = game.new_match(&serde_json::json!({}), 2, seed).unwrap();
            let mut rng = bot::bot_rng(&seed);
            loop {
                let state: crate::games::votes_for_women::State =
                    serde_json::from_value(live.state_json()).unwrap();
                for viewer in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
                    let view = live.view(viewer);
                    let html =
                        crate::web::seat::boards::game_board("votes-for-women", &view, &names)
                            .unwrap_or_else(|| panic!("seed {n}: no board for {view}"));
                    assert!(html.contains("Ann") && html.contains("Bo"));
                    let whole = crate::web::seat::boards::board_html(
                        "votes-for-women",
                        &view,
                        &crate::web::seat::boards::Seating::named(&names),
                    );
                    assert!(
                        whole.contains("class=\"vfw\""),
                        "seed {n}: generic rendering"
                    );
                    for seat in 0..2 {
                        // Change In Plans shows its player the other's hand.
                        let shown_by_card = state.stack.iter().any(|f| {
                            f.seat != seat
                                && viewer == Viewer::Seat(f.seat)
                                && shows_opponents_hand(f)
                        });
                        for &c in &state.hands[seat] {
                            let shown = html.contains(&format!("data-card=\"{c}\""));
                            assert_eq!(
                                shown,
                                viewer == Viewer::Seat(seat) || shown_by_card,
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

    /// The seat to move, at every step of random games, gets its placements and hand plays
    /// drawn on the board: valid HTML, no playing-card face, a labelled row a state that may
    /// take cubes, a button a use of a card; and the fields its forms post read back, through
    /// the page's own reader, as the command the engine offers.
    #[test]
    fn the_seat_to_move_places_on_the_map_and_plays_from_the_hand() {
        use crate::engine::present::check::html_problems;
        use crate::engine::{Choice, ParamKind};
        use crate::web::seat::render::values_from_form;
        let game = find_game("votes-for-women").unwrap();
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        let (mut placements, mut plays, mut assignments, mut takes, mut moves) = (0, 0, 0, 0, 0);
        for n in 0..6 {
            let seed = Seed::from_number(100 + n);
            let mut live = game.new_match(&serde_json::json!({}), 2, seed).unwrap();
            let mut rng = bot::bot_rng(&seed);
            while live.outcome().is_none() {
                let seat = live.active()[0];
                let view = live.view(Viewer::Seat(seat));
                let choices = live.choices(seat);
                let drawn =
                    crate::web::seat::boards::drawn_choices("votes-for-women", &view, &choices);
                let seating = crate::web::seat::boards::Seating {
                    moves: Some(crate::web::seat::boards::Moves {
                        choices: &choices,
                        post_url: "/play/t",
                        csrf: "c",
                        head: 7,
                    }),
                    ..crate::web::seat::boards::Seating::named(&names)
                };
                let html = crate::web::seat::boards::board_html("votes-for-women", &view, &seating);
                let problems = html_problems(&html);
                assert!(problems.is_empty(), "seed {n}: {problems:?}\n{html}");
                assert!(
                    !html.contains("class=\"card "),
                    "seed {n}: a playing card drawn"
                );
                assert!(
                    html.len() < 50_000,
                    "seed {n}: board of {} bytes",
                    html.len()
                );
                for &i in &drawn {
                    let choice: &Choice = &choices[i];
                    match choice.command["type"].as_str().unwrap() {
                        "move" => {
                            moves += 1;
                            assert!(
                                html.contains(&format!("name=\"choice\" value=\"{i}\"><label>")),
                                "seed {n}: no compact form for {}",
                                choice.label
                            );
                        }
                        "play" => {
                            plays += 1;
                            assert!(html.contains(&format!("<form id=\"use-{i}\"")));
                            assert!(html.contains(&format!("form=\"use-{i}\" name=\"p0\"")));
                        }
                        kind => {
                            if kind == "assign" {
                                assignments += 1;
                            } else {
                                placements += 1;
                            }
                            // The first legal counts, entered in the rows by their names.
                            let mut fields = vec![("choice".to_string(), i.to_string())];
                            for (k, p) in choice.params.iter().enumerate() {
                                if p.field == "takes" {
                                    takes += 1;
                                    let name = format!("p{k}");
                                    assert!(
                                        html.contains(&format!("name=\"{name}\" value=\"1\"")),
                                        "seed {n}: no radio {name} for the colour red takes"
                                    );
                                    fields.push((name, "1".to_string()));
                                    continue;
                                }
                                let counts = first_counts(&p.kind);
                                let ParamKind::Allot { options, .. } = &p.kind else {
                                    panic!("an allotment");
                                };
                                for (j, o) in options.iter().enumerate() {
                                    let name = format!("p{k}_{j}");
                                    assert!(
                                        html.contains(&format!("name=\"{name}\"")),
                                        "seed {n}: no row input {name} for {}",
                                        o.label
                                    );
                                    fields.push((name, counts[j].to_string()));
                                }
                            }
                            let values = values_from_form(choice, &fields).unwrap();
                            let command = choice.build(&values).unwrap();
                            let mut copy = live.clone_box();
                            copy.apply_json(seat, &command, &mut Log::silent())
                                .unwrap_or_else(|e| panic!("seed {n}: {command} refused: {e}"));
                        }
                    }
                }
                let command = bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                live.apply_json(seat, &command, &mut Log::silent()).unwrap();
            }
        }
        assert!(
            placements > 20 && plays > 50 && assignments > 10 && takes > 0 && moves > 0,
            "{placements} placements, {plays} plays, {assignments} campaigns, {takes} colours taken, {moves} campaigner moves"
        );
    }

    /// The first legal counts of an allotment, greedily in the options' order (the game's
    /// own cautious choice).
    fn first_counts(kind: &crate::engine::ParamKind) -> Vec<u32> {
        serde_json::from_value(crate::games::votes_for_women::first_value(kind))
            .expect("an allotment's value is its counts")
    }

    /// Change In Plans ("See opponent's hand"): its player's board shows the other's whole
    /// hand under its own heading while the card to discard is chosen.
    #[test]
    fn change_in_plans_draws_the_opposing_hand_for_its_player() {
        let game = find_game("votes-for-women").unwrap();
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        for n in 0..400 {
            let seed = Seed::from_number(n);
            let mut live = game.new_match(&serde_json::json!({}), 2, seed).unwrap();
            let mut rng = bot::bot_rng(&seed);
            while live.outcome().is_none() {
                let state: crate::games::votes_for_women::State =
                    serde_json::from_value(live.state_json()).unwrap();
                if let Some(frame) = state.stack.iter().find(|f| shows_opponents_hand(f)) {
                    let other = 1 - frame.seat;
                    let view = live.view(Viewer::Seat(frame.seat));
                    let html =
                        crate::web::seat::boards::game_board("votes-for-women", &view, &names)
                            .unwrap();
                    let heading = format!(
                        "<h2>{}</h2>",
                        crate::web::seat::boards::votes_for_women::seen_hand_label(&names[other])
                            .replace('\'', "&#39;")
                    );
                    assert!(html.contains(&heading), "{html}");
                    for &c in &state.hands[other] {
                        assert!(html.contains(&format!("data-card=\"{c}\"")), "card {c}");
                    }
                    return;
                }
                let seat = live.active()[0];
                let command = bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                live.apply_json(seat, &command, &mut Log::silent()).unwrap();
            }
        }
        panic!("no random game reached Change In Plans");
    }
}
