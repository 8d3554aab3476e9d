//! Game boards: a template per game where one exists (templates/boards/), else the generic
//! rendering of the view.

mod nationhood;
mod votes_for_women;

use super::render::{card_html, plain_card_html, value_html};
use crate::cards::Card;
use crate::engine::Seat;
use askama::Template;
use serde::Deserialize;
use serde_json::Value;

/// How game `kind` draws the card with this code, as its board does (the view says what the
/// drawing depends on, such as the apportionment counted); `None` for no card of the game.
pub fn card_in_game_html(kind: &str, view: &Value, code: &str) -> Option<String> {
    use crate::games::electoral_combat::ECard;
    match kind {
        "nationhood" => Card::from_code(code).map(plain_card_html),
        "electoral-combat" => {
            ECard::from_code(code).map(|_| ec_card_html(code, view["apportionment"] == 2012))
        }
        _ => Card::from_code(code).map(card_html),
    }
}

/// The board of any game for a view, as HTML.
pub fn board_html(kind: &str, view: &Value, names: &[String]) -> String {
    let special = match kind {
        "whitehouse" => whitehouse(view, names),
        "statehood" => statehood(view, names),
        "electoral-combat" => electoral_combat(view, names),
        "nationhood" => nationhood::board(view, names),
        "votes-for-women" => votes_for_women::board(view, names),
        _ => None,
    };
    special.unwrap_or_else(|| value_html(view))
}

#[derive(Deserialize)]
struct WhitehouseView {
    phase: String,
    hand_number: u32,
    dealer: Seat,
    turn: Option<Seat>,
    hands: Vec<Option<Vec<Card>>>,
    hand_sizes: Vec<usize>,
    kitty: Option<Vec<Card>>,
    bids: Vec<WhitehouseBid>,
    bidder: Option<Seat>,
    high_bid: Option<u32>,
    trump: Option<String>,
    trick: Vec<(Seat, Card)>,
    last_trick: Option<(Vec<(Seat, Card)>, Seat)>,
    tricks_won: Vec<u32>,
    captured: Vec<u32>,
    partnership: bool,
    target: i64,
    scores: Vec<i64>,
    eliminated: Vec<bool>,
    challengers: Vec<Seat>,
    you: Option<Seat>,
    last_hand: Option<WhitehouseHand>,
}

#[derive(Deserialize)]
struct WhitehouseBid {
    seat: Seat,
    amount: Option<u32>,
}

#[derive(Deserialize)]
struct WhitehouseHand {
    bidder: Seat,
    bid: u32,
    captured: u32,
    made: bool,
}

struct BoardSeat {
    index: usize,
    name: String,
    turn: bool,
    dealer: bool,
    out: bool,
    cards: usize,
    tricks: u32,
    captured: u32,
    bid: String,
}

#[derive(Template)]
#[template(path = "boards/whitehouse.html")]
struct WhitehouseBoard {
    seats: Vec<BoardSeat>,
    trick: Vec<(String, String)>,
    table_note: String,
    hand_number: u32,
    phase: String,
    contract: String,
    scores: String,
    target: i64,
    last_hand: String,
    kitty: String,
    last_trick: String,
    hand: String,
    open_hands: Vec<(String, String)>,
}

/// Every hand shown, with its holder's name, for a viewer who is no player (an auditor of a
/// finished game); nothing for a player.
fn open_hands(
    you: Option<Seat>,
    hands: &[Option<Vec<Card>>],
    name: &dyn Fn(Seat) -> String,
) -> Vec<(String, String)> {
    if you.is_some() {
        return Vec::new();
    }
    hands
        .iter()
        .enumerate()
        .filter_map(|(s, h)| h.as_ref().map(|h| (name(s), cards_html(h))))
        .collect()
}

/// A seat's display name, or "Player N" when the game has no name for it.
fn seat_name(names: &[String], seat: Seat) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("Player {}", seat + 1))
}

fn cards_html(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| card_html(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

fn whitehouse(view: &Value, names: &[String]) -> Option<String> {
    let v: WhitehouseView = serde_json::from_value(view.clone()).ok()?;
    let name = |s: Seat| {
        names
            .get(s)
            .cloned()
            .unwrap_or_else(|| format!("Seat {}", s + 1))
    };
    let seats = (0..4)
        .map(|s| BoardSeat {
            index: s,
            name: name(s),
            turn: v.turn == Some(s),
            dealer: v.dealer == s,
            out: v.eliminated.get(s).copied().unwrap_or(false),
            cards: v.hand_sizes.get(s).copied().unwrap_or(0),
            tricks: v.tricks_won.get(s).copied().unwrap_or(0),
            captured: v.captured.get(s).copied().unwrap_or(0),
            bid: v
                .bids
                .iter()
                .find(|b| b.seat == s)
                .map(|b| {
                    b.amount
                        .map_or("passed".to_string(), |a| format!("bid {a}"))
                })
                .unwrap_or_default()
                + if v.challengers.contains(&s) {
                    " · challenges"
                } else {
                    ""
                },
        })
        .collect();
    let contract = match (v.bidder, v.high_bid) {
        (Some(b), Some(bid)) => format!(
            "{} bids {bid}{}",
            name(b),
            v.trump
                .as_ref()
                .map(|t| format!(", {t} trump"))
                .unwrap_or_default()
        ),
        _ => "bidding".to_string(),
    };
    let scores = if v.partnership {
        format!("North–South {}, East–West {}", v.scores[0], v.scores[1])
    } else {
        (0..4)
            .map(|s| format!("{} {}", name(s), v.scores[s]))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let own_hand = v
        .you
        .and_then(|s| v.hands.get(s).cloned().flatten())
        .unwrap_or_default();
    let board = WhitehouseBoard {
        seats,
        trick: v
            .trick
            .iter()
            .map(|(s, c)| (name(*s), card_html(*c)))
            .collect(),
        table_note: match v.phase.as_str() {
            "play" => "the trick is empty".into(),
            other => other.replace('_', " "),
        },
        hand_number: v.hand_number,
        phase: v.phase.replace('_', " "),
        contract,
        scores,
        target: v.target,
        last_hand: v
            .last_hand
            .map(|h| {
                format!(
                    "{} bid {}, took {}: {}",
                    name(h.bidder),
                    h.bid,
                    h.captured,
                    if h.made { "made" } else { "failed" }
                )
            })
            .unwrap_or_default(),
        kitty: v.kitty.map(|k| cards_html(&k)).unwrap_or_default(),
        last_trick: v
            .last_trick
            .map(|(cards, winner)| {
                let played: Vec<Card> = cards.iter().map(|(_, c)| *c).collect();
                format!(
                    "{} — taken by {}",
                    cards_html(&played),
                    super::render::esc(&name(winner))
                )
            })
            .unwrap_or_default(),
        hand: cards_html(&own_hand),
        open_hands: open_hands(v.you, &v.hands, &name),
    };
    board.render().ok()
}

#[derive(Deserialize)]
struct StatehoodView {
    phase: String,
    hand_number: u32,
    dealer: Seat,
    turn: Vec<Seat>,
    you: Option<Seat>,
    hands: Vec<Option<Vec<Card>>>,
    hand_sizes: Vec<usize>,
    stock_count: usize,
    discard_top: Option<Card>,
    discard_count: usize,
    drawn: Option<Card>,
    declaration: Option<StatehoodDeclaration>,
    high: Option<StatehoodHigh>,
    puerto_rico: Option<StatehoodPr>,
    won: Vec<Vec<StatehoodWon>>,
    scores: Vec<i64>,
    target: i64,
    last_hand: Option<StatehoodHandEnd>,
}

#[derive(Deserialize)]
struct StatehoodDeclaration {
    declarer: Seat,
    card: Card,
    defence: Vec<Card>,
    challenges: Vec<(Seat, Vec<Card>)>,
}

#[derive(Deserialize)]
struct StatehoodHigh {
    total: u32,
    seat: Seat,
}

#[derive(Deserialize)]
struct StatehoodPr {
    declarer: Seat,
    shown: Vec<Card>,
    defence: u32,
    answered: Vec<bool>,
    answers: Vec<Option<StatehoodAnswer>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum StatehoodAnswer {
    Pass,
    Cards(Vec<Card>),
}

#[derive(Deserialize)]
struct StatehoodPrReveal {
    declarer: Seat,
    shown: Vec<Card>,
    answers: Vec<Option<StatehoodAnswer>>,
}

#[derive(Deserialize)]
struct StatehoodWon {
    card: Card,
    beneath: Vec<Card>,
}

#[derive(Deserialize)]
struct StatehoodHandEnd {
    summary: String,
    puerto_rico: Option<StatehoodPrReveal>,
}

struct StatehoodPlayer {
    name: String,
    dealer: bool,
    turn: bool,
    score: i64,
    cards: usize,
    won: String,
}

#[derive(Template)]
#[template(path = "boards/statehood.html")]
struct StatehoodBoard {
    players: Vec<StatehoodPlayer>,
    hand_number: u32,
    phase: String,
    target: i64,
    stock: usize,
    discard: String,
    declaration: String,
    puerto_rico: String,
    last_hand: String,
    drawn: String,
    hand: String,
    open_hands: Vec<(String, String)>,
}

fn statehood(view: &Value, names: &[String]) -> Option<String> {
    use super::render::esc;
    let v: StatehoodView = serde_json::from_value(view.clone()).ok()?;
    let name = |s: Seat| seat_name(names, s);
    let total = |cards: &[Card]| cards.iter().map(|c| c.ev()).sum::<u32>();
    let players = (0..v.scores.len())
        .map(|s| StatehoodPlayer {
            name: name(s),
            dealer: v.dealer == s,
            turn: v.turn.contains(&s),
            score: v.scores[s],
            cards: v.hand_sizes.get(s).copied().unwrap_or(0),
            won: v.won.get(s).map_or(String::new(), |won| {
                won.iter()
                    .map(|w| {
                        format!(
                            "{} <span class=\"small\">over {}</span>",
                            card_html(w.card),
                            cards_html(&w.beneath)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
        })
        .collect();
    let declaration = v
        .declaration
        .map(|d| {
            let mut text = format!(
                "{} declares {} defended by {} ({})",
                esc(&name(d.declarer)),
                card_html(d.card),
                cards_html(&d.defence),
                total(&d.defence)
            );
            for (s, cards) in &d.challenges {
                text.push_str(&format!(
                    "; {} challenges with {} ({})",
                    esc(&name(*s)),
                    cards_html(cards),
                    total(cards)
                ));
            }
            if let Some(high) = &v.high {
                text.push_str(&format!(
                    "; high: {} with {} electoral votes (a challenge must beat it)",
                    esc(&name(high.seat)),
                    high.total
                ));
            }
            text
        })
        .unwrap_or_default();
    let puerto_rico = v
        .puerto_rico
        .map(|p| {
            let waiting: Vec<String> = (0..p.answered.len())
                .filter(|&s| !p.answered[s])
                .map(|s| esc(&name(s)))
                .collect();
            let mine = v
                .you
                .and_then(|s| p.answers.get(s))
                .and_then(Option::as_ref)
                .map(|a| match a {
                    StatehoodAnswer::Pass => "; you do not challenge (sealed)".to_string(),
                    StatehoodAnswer::Cards(cards) => format!(
                        "; you challenge with {} ({}, sealed)",
                        cards_html(cards),
                        total(cards)
                    ),
                })
                .unwrap_or_default();
            format!(
                "{} declares Puerto Rico, showing {} ({} electoral votes); still to answer: {}{mine}",
                esc(&name(p.declarer)),
                cards_html(&p.shown),
                p.defence,
                if waiting.is_empty() {
                    "nobody".to_string()
                } else {
                    waiting.join(", ")
                }
            )
        })
        .unwrap_or_default();
    let board = StatehoodBoard {
        players,
        hand_number: v.hand_number,
        phase: v.phase.replace('_', " "),
        target: v.target,
        stock: v.stock_count,
        discard: match v.discard_top {
            Some(top) => format!(
                "{} <span class=\"small\">({} cards)</span>",
                card_html(top),
                v.discard_count
            ),
            None => "empty".to_string(),
        },
        declaration,
        puerto_rico,
        last_hand: v
            .last_hand
            .map(|h| {
                let mut text = esc(&crate::engine::log::render(&h.summary, names));
                if let Some(p) = h.puerto_rico {
                    text.push_str(&format!(
                        "<br>Puerto Rico: {} showed {} ({})",
                        esc(&name(p.declarer)),
                        cards_html(&p.shown),
                        total(&p.shown)
                    ));
                    for step in 1..p.answers.len() {
                        let seat = (p.declarer + step) % p.answers.len();
                        text.push_str(&match &p.answers[seat] {
                            Some(StatehoodAnswer::Cards(cards)) => format!(
                                "; {} challenged with {} ({})",
                                esc(&name(seat)),
                                cards_html(cards),
                                total(cards)
                            ),
                            _ => format!("; {} did not challenge", esc(&name(seat))),
                        });
                    }
                }
                text
            })
            .unwrap_or_default(),
        drawn: v.drawn.map(card_html).unwrap_or_default(),
        hand: v
            .you
            .and_then(|s| v.hands.get(s).cloned().flatten())
            .map(|h| cards_html(&h))
            .unwrap_or_default(),
        open_hands: open_hands(v.you, &v.hands, &name),
    };
    board.render().ok()
}

#[derive(Deserialize)]
struct EcView {
    phase: Value,
    hand: u8,
    layer: Seat,
    awaiting: Vec<Seat>,
    table: Vec<EcSlot>,
    wild: Option<EcWild>,
    added: Vec<String>,
    stack_sizes: [usize; 2],
    won: [Vec<String>; 2],
    votes: [u32; 2],
    to_win: u32,
    book_deal: bool,
    apportionment: u32,
    removed: Vec<String>,
    signed: [bool; 2],
    last_signs: Option<[String; 2]>,
    draws: u32,
    last_hand: Option<EcHand>,
}

#[derive(Deserialize)]
struct EcSlot {
    slot: usize,
    card: Option<String>,
    turned_by: Option<Seat>,
    won_by: Option<Seat>,
    removed: bool,
}

#[derive(Deserialize)]
struct EcWild {
    kind: String,
    by: Seat,
}

#[derive(Deserialize)]
struct EcHand {
    hand: u8,
    cards: Vec<EcHandCard>,
}

#[derive(Deserialize)]
struct EcHandCard {
    card: String,
    to: Option<Seat>,
}

struct EcPlayer {
    area: &'static str,
    name: String,
    turn: bool,
    layer: bool,
    votes: u32,
    stack: usize,
    signed: bool,
}

#[derive(Template)]
#[template(path = "boards/electoral_combat.html")]
struct EcBoard {
    players: Vec<EcPlayer>,
    table: Vec<String>,
    hand: u8,
    phase: String,
    goal: String,
    wild: String,
    added: String,
    signs: String,
    last_hand: String,
    removed: String,
    piles: Vec<(String, String)>,
}

/// An Electoral College Combat card, with its votes under the game's apportionment.
fn ec_card_html(code: &str, ev_2012: bool) -> String {
    use crate::games::electoral_combat::ECard;
    match ECard::from_code(code) {
        Some(ECard::State(card)) => {
            let colour = match card.color() {
                Some(crate::cards::Color::Red) => "red",
                _ => "blue",
            };
            format!(
                r#"<span class="card {colour}" data-card="{}"><b>{}</b><span class="state">{}</span><i>{}</i></span>"#,
                card.code(),
                card.code(),
                super::render::esc(card.name()),
                ECard::State(card).ev(ev_2012)
            )
        }
        Some(ECard::Wild(wild)) => format!(
            r#"<span class="card wild" data-card="{}"><b>✦</b><span class="state">{}</span><i>wild</i></span>"#,
            wild.code(),
            super::render::esc(wild.name())
        ),
        None => super::render::esc(code),
    }
}

fn electoral_combat(view: &Value, names: &[String]) -> Option<String> {
    let v: EcView = serde_json::from_value(view.clone()).ok()?;
    let ev_2012 = v.apportionment == 2012;
    let name = |s: Seat| seat_name(names, s);
    let cards = |codes: &[String]| {
        codes
            .iter()
            .map(|c| ec_card_html(c, ev_2012))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let step = v.phase.get("step").and_then(Value::as_str).unwrap_or("");
    let seat = v
        .phase
        .get("seat")
        .and_then(Value::as_u64)
        .map(|s| name(s as usize))
        .unwrap_or_default();
    let phase = match step {
        "rebuild" => format!("{seat} adds a won card to the last hand"),
        "turn" => format!("{seat} turns over a card"),
        "choose" => format!("{seat} chooses what to take"),
        "tie_high" => format!("{seat} takes the third card and one other"),
        "guess" => format!("{seat} guesses higher, lower or equal (Fake News)"),
        "rps" => "rock, paper, scissors: both choose, sealed (Russian Collusion)".to_string(),
        "rps_take" => format!("{seat} wins the round and takes a card"),
        _ => "the game is over".to_string(),
    };
    let table = v
        .table
        .iter()
        .map(|t| {
            let card = match &t.card {
                Some(code) => ec_card_html(code, ev_2012),
                None => format!(
                    r#"<span class="card down"><b>?</b><span class="state">card {}</span></span>"#,
                    t.slot + 1
                ),
            };
            let note = if t.removed {
                "out of the game".to_string()
            } else if let Some(w) = t.won_by {
                format!("won by {}", name(w))
            } else if let Some(b) = t.turned_by {
                format!("turned by {}", name(b))
            } else {
                String::new()
            };
            format!(
                r#"<span class="slot">{card}<br><span class="small">{}</span></span>"#,
                super::render::esc(&note)
            )
        })
        .collect();
    let board = EcBoard {
        players: (0..2)
            .map(|s| EcPlayer {
                area: if s == 0 { "s0" } else { "s2" },
                name: name(s),
                turn: v.awaiting.contains(&s),
                layer: v.layer == s,
                votes: v.votes[s],
                stack: v.stack_sizes[s],
                signed: v.signed[s],
            })
            .collect(),
        table,
        hand: v.hand,
        phase,
        goal: if v.book_deal {
            format!("Book Deal: fewer than {} electoral votes wins", v.to_win)
        } else {
            format!("{} electoral votes or more wins", v.to_win)
        },
        wild: v
            .wild
            .map(|w| {
                let wild_name = crate::games::electoral_combat::ECard::from_code(&w.kind)
                    .and_then(|c| c.wild())
                    .map_or(w.kind.clone(), |k| k.name().to_string());
                format!("{wild_name}, turned over by {}", name(w.by))
            })
            .unwrap_or_default(),
        added: cards(&v.added),
        signs: v
            .last_signs
            .map(|[a, b]| {
                format!(
                    "{} showed {a}, {} showed {b}{}",
                    name(0),
                    name(1),
                    if v.draws > 0 {
                        format!(" ({} drawn rounds replayed)", v.draws)
                    } else {
                        String::new()
                    }
                )
            })
            .unwrap_or_default(),
        last_hand: v
            .last_hand
            .map(|h| {
                let went: Vec<String> = h
                    .cards
                    .iter()
                    .map(|c| {
                        format!(
                            "{} {}",
                            ec_card_html(&c.card, ev_2012),
                            super::render::esc(&c.to.map_or("out".to_string(), name))
                        )
                    })
                    .collect();
                format!("hand {}: {}", h.hand, went.join(" · "))
            })
            .unwrap_or_default(),
        removed: cards(&v.removed),
        piles: (0..2).map(|s| (name(s), cards(&v.won[s]))).collect(),
    };
    board.render().ok()
}

#[cfg(test)]
mod tests {

    #[test]
    fn forms_draw_cards_as_their_game_does() {
        use super::card_in_game_html;
        use serde_json::json;
        let ec_2012 = card_in_game_html("electoral-combat", &json!({"apportionment": 2012}), "CA");
        assert!(
            ec_2012.unwrap().contains("<i>55</i>"),
            "California had 55 votes in 2012"
        );
        let ec_2024 = card_in_game_html("electoral-combat", &json!({"apportionment": 2024}), "CA");
        assert!(ec_2024.unwrap().contains("<i>54</i>"));
        let wild = card_in_game_html("electoral-combat", &json!({}), "FAKE_NEWS").unwrap();
        assert!(wild.contains("Fake News"));
        let plain = card_in_game_html("nationhood", &json!({}), "CA").unwrap();
        assert!(plain.contains("A♠") && !plain.contains("California"));
        let pack = card_in_game_html("statehood", &json!({}), "CA").unwrap();
        assert!(pack.contains("California") && pack.contains("<i>54</i>"));
        assert_eq!(card_in_game_html("statehood", &json!({}), "pass"), None);
    }
    use super::*;
    use crate::engine::{Seed, Viewer, bot};

    #[test]
    fn statehood_board_shows_the_high_total_sealed_answers_and_the_reveal() {
        use crate::engine::{Log, Match, Rules};
        use crate::games::statehood::{Command, Options, Phase, Statehood};
        let names: Vec<String> = ["Ann", "Bo", "Cy", "Di"].map(String::from).into();
        let (mut highs, mut sealed, mut reveals) = (0, 0, 0);
        for seats in 2..=4 {
            for n in 0..10 {
                let seed = Seed::from_number(n);
                let mut live =
                    Match::<Statehood>::new(Options { target: 15 }, seats, seed).unwrap();
                let mut rng = bot::bot_rng(&seed);
                loop {
                    let viewers = (0..seats).map(Viewer::Seat).chain([Viewer::Spectator]);
                    for viewer in viewers {
                        let view =
                            serde_json::to_value(Statehood::view(&live.state, viewer)).unwrap();
                        let html = statehood(&view, &names[..seats])
                            .unwrap_or_else(|| panic!("no board for {view}"));
                        assert!(html.contains("Ann") && html.contains("Bo"));
                        if live.state.phase == Phase::Challenges {
                            assert!(html.contains("a challenge must beat it"), "{html}");
                            highs += 1;
                        }
                        if let (Viewer::Seat(s), Some(p)) = (viewer, &live.state.puerto_rico)
                            && p.answers[s].is_some()
                            && p.declarer != s
                        {
                            assert!(html.contains("sealed)"), "{html}");
                            sealed += 1;
                        }
                        if let Some(reveal) = live
                            .state
                            .last_hand
                            .as_ref()
                            .and_then(|h| h.puerto_rico.as_ref())
                        {
                            assert!(html.contains("Puerto Rico: "), "{html}");
                            for (seat, _) in reveal.challenges() {
                                let line = format!("{} challenged with", names[seat]);
                                assert!(html.contains(&line), "{html}");
                            }
                            reveals += 1;
                        }
                    }
                    if live.outcome().is_some() {
                        break;
                    }
                    let active = Statehood::active(&live.state);
                    let seat = active[rng.index(active.len())];
                    let choices = Statehood::choices(&live.state, seat);
                    let choice = &choices[rng.index(choices.len())];
                    let command: Command =
                        serde_json::from_value(bot::fill_at_random(choice, &mut rng)).unwrap();
                    live.apply(seat, &command, &mut Log::silent()).unwrap();
                }
            }
        }
        assert!(
            highs > 0 && sealed > 0 && reveals > 0,
            "{highs} {sealed} {reveals}"
        );
    }

    #[test]
    fn electoral_combat_board_renders_every_step_of_a_game() {
        let game = crate::engine::find_game("electoral-combat").unwrap();
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        for n in 0..5 {
            let seed = Seed::from_number(n);
            let mut live = game
                .new_match(&serde_json::json!({"apportionment": 2012}), 2, seed)
                .unwrap();
            let mut rng = bot::bot_rng(&seed);
            loop {
                for viewer in [Viewer::Seat(0), Viewer::Spectator] {
                    let view = live.view(viewer);
                    let html = electoral_combat(&view, &names)
                        .unwrap_or_else(|| panic!("no board for {view}"));
                    assert!(html.contains("Ann") && html.contains("Bo"));
                }
                if live.outcome().is_some() {
                    break;
                }
                let seat = live.active()[0];
                let command = bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                live.apply_json(seat, &command, &mut crate::engine::Log::silent())
                    .unwrap();
            }
        }
    }
}
