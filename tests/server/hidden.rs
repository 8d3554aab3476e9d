//! Hidden information never leaves the server: every hosted game played to its end through the
//! JSON API, and at every step every response a seat or a spectator can ask for (view, choices,
//! export, the pages, the position a mail shows) is searched for every card that viewer may not see
//! and has never seen.

use crate::common;

use awc::Client;
use common::hidden::hidden_from;
use common::{TestDb, create_game_with, spawn_app};
use postplay::cards::{Card, rank_label};
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::engine::{Choice, Seed, Viewer};
use serde_json::{Value, json};
use std::collections::HashSet;

async fn fetch(client: &Client, url: &str, token: Option<&str>) -> String {
    let mut request = client.get(url);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let mut res = request.send().await.unwrap();
    assert!(res.status().is_success(), "{url}: {}", res.status());
    String::from_utf8(res.body().limit(1 << 24).await.unwrap().to_vec()).unwrap()
}

/// Every string in a JSON value: what a viewer is shown.
fn strings(value: &Value, into: &mut HashSet<String>) {
    match value {
        Value::String(s) => {
            into.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, into)),
        Value::Object(map) => map.values().for_each(|v| strings(v, into)),
        _ => {}
    }
}

/// What would show a hidden card in a position written for mail: its label ("Q♥ Tennessee
/// (11)"), its face ("Q♥", how Nationhood names it) or, for a joker or territory, its name; in
/// HTML also its `data-card` attribute. Votes for Women's cards are numbers, shown by name
/// only through their code.
fn position_needles(code: &str) -> Vec<String> {
    let mut out = vec![format!("data-card=\"{code}\"")];
    if let Some(card) = Card::from_code(code) {
        out.push(card.label().to_string());
        match (card.rank(), card.suit()) {
            (Some(rank), Some(suit)) => out.push(format!("{}{}", rank_label(rank), suit.symbol())),
            _ => out.push(card.name().to_string()),
        }
    }
    out
}

/// The responses one viewer can get, as (what, text, is_html).
async fn responses(
    client: &Client,
    base: &str,
    id: i64,
    token: Option<&str>,
) -> Vec<(&'static str, String, bool)> {
    let mut out = vec![
        (
            "API view",
            fetch(client, &format!("{base}/api/games/{id}/view"), token).await,
            false,
        ),
        (
            "export",
            fetch(client, &format!("{base}/api/games/{id}/export"), token).await,
            false,
        ),
        (
            "log page",
            fetch(client, &format!("{base}/games/{id}/log"), None).await,
            true,
        ),
    ];
    match token {
        Some(token) => {
            out.push((
                "choices",
                fetch(client, &format!("{base}/api/play/{token}/choices"), None).await,
                false,
            ));
            out.push((
                "play page",
                fetch(client, &format!("{base}/play/{token}"), None).await,
                true,
            ));
        }
        None => {
            out.push((
                "spectator page",
                fetch(client, &format!("{base}/games/{id}"), None).await,
                true,
            ));
            out.push((
                "replay page",
                fetch(client, &format!("{base}/games/{id}/replay"), None).await,
                true,
            ));
        }
    }
    out
}

/// Whitehouse: while the bidder holds the kitty taken up, its page marks each of those cards
/// "kitty" and its mail "(from the kitty)"; no other viewer's page or mail marks anything (nor,
/// by `hidden_from`, shows those cards). Counts the bidder's marked positions in `marked`.
fn kitty_marks(
    state: &Value,
    seat: Option<usize>,
    got: &[(&'static str, String, bool)],
    mail: &str,
    kind: &str,
    steps: usize,
    marked: &mut usize,
) {
    let taken = state["taken_kitty"].as_array().map_or(0, Vec::len);
    let bidder = taken > 0 && state["bidder"].as_u64() == seat.map(|s| s as u64);
    let expected = if bidder { taken } else { 0 };
    let page = got
        .iter()
        .find(|(what, _, _)| what.ends_with("page") && *what != "log page")
        .map(|(_, text, _)| text.as_str())
        .unwrap_or_default();
    assert_eq!(
        page.matches(r#"<span class="tag">kitty</span>"#).count(),
        expected,
        "{kind} step {steps}: kitty marks on the page of {seat:?}"
    );
    assert_eq!(
        mail.matches("(from the kitty)").count(),
        expected,
        "{kind} step {steps}: kitty marks in the mail of {seat:?}:\n{mail}"
    );
    if bidder {
        *marked += 1;
    }
}

async fn walk(kind: &str, options: Value, names: &[&str], seed: u64) {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::default();
    let (id, tokens) = create_game_with(&db, kind, &options, names, false, seed).await;
    let seats = names.len();
    let table: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    // What each viewer (seats, then the spectator) has been shown so far.
    let mut seen: Vec<HashSet<String>> = vec![HashSet::new(); seats + 1];
    let mut rng = bot_rng(&Seed::from_number(seed));
    let mut steps = 0;
    let mut checked = 0usize;
    let mut marked = 0usize;
    // The hands the walk saw dealt, in games of more than one.
    let mut hands = HashSet::new();
    loop {
        let loaded = db.store.load(id).await.unwrap();
        let state = loaded.game.state_json();
        if let Some(hand) = state.get("hand_number").and_then(Value::as_u64) {
            hands.insert(hand);
        }
        let mut public = HashSet::new();
        // A card played face up is public from then on, even where no view kept it (the last
        // card of a trick is gathered in the same command): the spectator's export shows every
        // command in full but those hidden ones it marks redacted. (That the hidden ones are
        // redacted is checked in tests/server/security.rs against the cards themselves.)
        let spectator = db.store.export(id, Viewer::Spectator).await.unwrap();
        for entry in spectator.commands.iter().filter(|c| !c.redacted) {
            strings(&entry.command, &mut public);
        }
        strings(&loaded.game.view(Viewer::Spectator), &mut public);
        for (viewer, seen) in seen.iter_mut().enumerate() {
            let seat = (viewer < seats).then_some(viewer);
            let token = seat.map(|s| tokens[s].as_str());
            let got = responses(&client, &base, id, token).await;
            let position = loaded
                .game
                .position(seat.map_or(Viewer::Spectator, Viewer::Seat), &table);
            let view: Value = serde_json::from_str(&got[0].1).unwrap();
            strings(&view["view"], seen);
            seen.extend(public.iter().cloned());
            kitty_marks(&state, seat, &got, &position.text, kind, steps, &mut marked);
            for card in hidden_from(&state, seat) {
                if seen.contains(&card) {
                    continue;
                }
                for (what, text, html) in &got {
                    let needle = if *html {
                        format!("data-card=\"{card}\"")
                    } else {
                        format!("\"{card}\"")
                    };
                    assert!(
                        !text.contains(&needle),
                        "{kind} step {steps}: the {what} for {} shows {card}",
                        seat.map_or("a spectator".to_string(), |s| format!("seat {s}"))
                    );
                    checked += 1;
                }
                for (what, text) in [
                    ("mail position text", &position.text),
                    ("mail position HTML", &position.html),
                ] {
                    for needle in position_needles(&card) {
                        assert!(
                            !text.contains(&needle),
                            "{kind} step {steps}: the {what} for {} shows {card} as {needle}:\n{text}",
                            seat.map_or("a spectator".to_string(), |s| format!("seat {s}"))
                        );
                        checked += 1;
                    }
                }
            }
        }
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let offered: Value = serde_json::from_str(
            &fetch(
                &client,
                &format!("{base}/api/play/{}/choices", tokens[seat]),
                None,
            )
            .await,
        )
        .unwrap();
        let choices: Vec<Choice> = serde_json::from_value(offered["choices"].clone()).unwrap();
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        let mut res = client
            .post(format!("{base}/api/play/{}/commands", tokens[seat]))
            .insert_header(("Content-Type", "application/json"))
            .send_body(json!({"command": command, "expected_seq": offered["seq"]}).to_string())
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 201, "{:?}", res.body().await);
        steps += 1;
    }
    assert!(
        checked > 1000,
        "{kind}: {checked} checks in {steps} steps: the walk must look at something"
    );
    eprintln!(
        "{kind}: {checked} checks in {steps} steps over {} hands",
        hands.len()
    );
    assert!(
        hands.is_empty() || hands.len() > 1,
        "{kind}: the walk crosses a new deal ({hands:?} seen)"
    );
    if kind == "whitehouse" {
        assert!(
            marked > 0,
            "the walk saw the bidder holding the kitty's cards"
        );
    }
    // Once the game is over, the export is the whole record and verifies.
    let record: postplay::engine::Record =
        serde_json::from_str(&fetch(&client, &format!("{base}/api/games/{id}/export"), None).await)
            .unwrap();
    assert!(record.commands.iter().all(|c| !c.redacted));
    postplay::engine::audit::verify(postplay::games::ALL, &record, record.chain_head.as_deref())
        .unwrap();
    db.drop().await;
}

#[actix_web::test]
async fn whitehouse_hides_every_hand_and_the_kitty_at_every_step() {
    walk("whitehouse", json!({}), &["Ann", "Bo", "Cy", "Di"], 5).await;
}

#[actix_web::test]
async fn statehood_hides_every_hand_and_the_stock_at_every_step() {
    // A lower target than the printed 56: two hands or more, not a dozen (the walk asks for
    // every page at every step).
    walk("statehood", json!({"target": 10}), &["Ann", "Bo", "Cy"], 6).await;
}

#[actix_web::test]
async fn electoral_combat_hides_stacks_and_face_down_cards_at_every_step() {
    walk("electoral-combat", json!({}), &["Ann", "Bo"], 7).await;
}

#[actix_web::test]
async fn nationhood_hides_every_hand_and_the_stock_at_every_step() {
    // One point rather than the printed seven and two hands without a nation to a draw, for
    // the same reason.
    walk(
        "nationhood",
        json!({"target": 1, "draw_after": 2}),
        &["Ann", "Bo"],
        8,
    )
    .await;
}

#[actix_web::test]
async fn votes_for_women_hides_every_hand_and_both_draw_decks_at_every_step() {
    walk("votes-for-women", json!({}), &["Ann", "Bo"], 9).await;
}
