//! The table as a first-time player meets it, over real HTTP against a real PostgreSQL: a
//! refused form keeps what the player chose and says why in words, players are called by their
//! names (never "Player 1") in every banner and log line of every game, counts read as English,
//! and nothing is headed over an empty pile.

use crate::common;

use awc::Client;
use common::{TestDb, create_game, create_game_for, play_until, spawn_app};
use postplay::engine::ParamKind;

const NAMES: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

async fn get_text(client: &Client, url: &str) -> (u16, String) {
    let mut res = client.get(url).send().await.unwrap();
    let body = res.body().limit(1 << 22).await.unwrap();
    (
        res.status().as_u16(),
        String::from_utf8_lossy(&body).into_owned(),
    )
}

/// The CSRF cookie a seat's page sets, as a `Cookie` header value.
async fn csrf_cookie(client: &Client, url: &str) -> String {
    let res = client.get(url).send().await.unwrap();
    let set = res.headers().get("set-cookie").unwrap().to_str().unwrap();
    set.split(';').next().unwrap().to_string()
}

/// The text of each line of an ordered log list, tags and entities left out.
fn log_texts(page: &str) -> Vec<String> {
    page.split("<ol class=\"log\"")
        .skip(1)
        .flat_map(|list| {
            let list = list.split("</ol>").next().unwrap_or("");
            list.split("<li").skip(1).map(|li| {
                let inner = li.split_once('>').map_or("", |(_, rest)| rest);
                let inner = inner.split("</li>").next().unwrap_or("");
                // The whole log puts the move's time first.
                let text = inner.split_once("</time>").map_or(inner, |(_, rest)| rest);
                text.trim().to_string()
            })
        })
        .collect()
}

/// A count of one with a plural noun, such as "1 tricks" (but not "11 tricks").
fn bad_plural(page: &str) -> Option<String> {
    for noun in ["cards", "tricks", "points"] {
        let wrong = format!("1 {noun}");
        for (at, _) in page.match_indices(&wrong) {
            let before = page[..at].chars().last();
            if !before.is_some_and(|c| c.is_ascii_digit()) {
                return Some(page[at.saturating_sub(30)..(at + 20).min(page.len())].to_string());
            }
        }
    }
    None
}

/// The form marked as the refused choice (a form of its own, or the hand made a form).
fn refused_form(page: &str) -> &str {
    page.split("<form ")
        .find(|form| form.split('>').next().unwrap().contains(" refused\""))
        .expect("the refused choice is marked")
        .split("</form>")
        .next()
        .unwrap()
}

#[actix_web::test]
async fn a_refused_kitty_keeps_its_ticks_and_says_why_in_words() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let (id, tokens) = create_game(&db, "whitehouse", &NAMES, 31).await;
    // On to the first choice that picks several cards at once: laying back the kitty.
    play_until(&db, id, 31, |loaded| {
        let seat = loaded.game.active()[0];
        loaded.game.choices(seat).iter().any(|c| {
            c.params
                .iter()
                .any(|p| matches!(p.kind, ParamKind::Pick { min, .. } if min >= 2))
        })
    })
    .await;
    let loaded = db.store.load(id).await.unwrap();
    assert!(
        loaded.game.outcome().is_none(),
        "a kitty comes before the end"
    );
    let seat = loaded.game.active()[0];
    let choices = loaded.game.choices(seat);
    let (index, min) = choices
        .iter()
        .enumerate()
        .find_map(|(i, c)| match &c.params[..] {
            [p] => match p.kind {
                ParamKind::Pick { min, .. } if min >= 2 => Some((i, min)),
                _ => None,
            },
            _ => None,
        })
        .expect("a choice with one pick of several cards");
    let url = format!("{base}/play/{}", tokens[seat]);
    let cookie = csrf_cookie(&client, &url).await;
    let csrf = cookie.trim_start_matches("pp_csrf=");
    let ticked: Vec<usize> = (0..min - 1).collect();
    let mut form = format!("csrf={csrf}&seq={}&choice={index}", loaded.row.head_seq);
    for t in &ticked {
        form.push_str(&format!("&p0={t}"));
    }
    let mut res = client
        .post(&url)
        .insert_header(("Cookie", cookie.clone()))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body(form)
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 422);
    let page = String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
    assert!(
        page.contains(&format!("Choose {min}; you chose {}.", min - 1)),
        "the refusal in words: {}",
        page.split("role=\"alert\">")
            .nth(1)
            .unwrap_or("")
            .split("</div>")
            .next()
            .unwrap_or("")
    );
    assert!(!page.contains("pick between"), "no machine words");
    let refused = refused_form(&page);
    for t in 0..min + 3 {
        let input = format!("name=\"p0\" value=\"{t}\"");
        let Some(at) = refused.find(&input) else {
            continue;
        };
        let tag = refused[at..].split('>').next().unwrap();
        assert_eq!(
            tag.contains("checked"),
            ticked.contains(&t),
            "option {t} keeps its tick: {tag}"
        );
    }
    assert_eq!(
        refused.matches(" checked").count(),
        ticked.len(),
        "exactly the ticks sent"
    );
    assert_eq!(
        db.store.load(id).await.unwrap().row.head_seq,
        loaded.row.head_seq,
        "nothing is written"
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_refused_number_keeps_what_was_entered() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let (id, tokens) = create_game(&db, "whitehouse", &NAMES, 16).await;
    let seat = db.store.load(id).await.unwrap().game.active()[0];
    let url = format!("{base}/play/{}", tokens[seat]);
    let cookie = csrf_cookie(&client, &url).await;
    let csrf = cookie.trim_start_matches("pp_csrf=");
    // Choice 1 is "Bid" with a number field; 235 is no bid (bids go in tens).
    let mut res = client
        .post(&url)
        .insert_header(("Cookie", cookie.clone()))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body(format!("csrf={csrf}&seq=0&choice=1&p0=235"))
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 422);
    let page = String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
    assert!(page.contains("you gave 235."), "the refusal in words");
    let refused = refused_form(&page);
    let input = refused.split("type=\"number\"").nth(1).unwrap();
    assert!(input.split('>').next().unwrap().contains("value=\"235\""));
    assert_eq!(db.store.load(id).await.unwrap().row.head_seq, 0);
    db.drop().await;
}

#[actix_web::test]
async fn every_game_names_its_players_and_speaks_in_sentences() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    for (kind, seats, seed) in [
        ("whitehouse", 4, 41),
        ("statehood", 3, 42),
        ("electoral-combat", 2, 43),
        ("nationhood", 2, 44),
        ("votes-for-women", 2, 45),
    ] {
        let (id, tokens) = create_game(&db, kind, &NAMES[..seats], seed).await;
        let mut seen = Vec::new();
        let mut step = 0;
        play_until(&db, id, seed, |_| {
            step += 1;
            if step % 40 == 1 {
                seen.push(step);
            }
            false
        })
        .await;
        let loaded = db.store.load(id).await.unwrap();
        let outcome = loaded.game.outcome().expect("played to the end");
        let pages = [
            get_text(&client, &format!("{base}/play/{}", tokens[0])).await,
            get_text(&client, &format!("{base}/games/{id}")).await,
            get_text(&client, &format!("{base}/games/{id}/log")).await,
        ];
        for (status, page) in &pages {
            assert_eq!(*status, 200);
            assert!(!page.contains("Player 1"), "{kind}: a seat number");
            assert!(!page.contains("Player 2"), "{kind}: a seat number");
            if let Some(bad) = bad_plural(page) {
                panic!("{kind}: {bad}");
            }
        }
        let banner = pages[0]
            .1
            .split("<b>Game over.</b>")
            .nth(1)
            .expect("the banner")
            .split("</div>")
            .next()
            .unwrap()
            .to_string();
        let game = postplay::games::find_game(kind).unwrap();
        for &w in &outcome.winners {
            // Games with named seats may speak of a side ("North–South"); in games whose seats
            // are only numbered, the winner is named.
            if game.seat_role(w, seats).is_none() {
                assert!(
                    banner.contains(NAMES[w]),
                    "{kind}: the banner names the winner: {banner}"
                );
            }
        }
        let lines = log_texts(&pages[2].1);
        assert!(lines.len() > 10, "{kind}: the whole log");
        for line in &lines {
            let first = line.chars().next().expect("no empty line");
            assert!(
                !first.is_lowercase(),
                "{kind}: a line starts with a capital: {line}"
            );
        }
        assert!(!seen.is_empty());
    }
    db.drop().await;
}

#[actix_web::test]
async fn electoral_combat_heads_no_empty_pile_and_draws_its_face_down_cards() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().finish();
    let (id, tokens) = create_game(&db, "electoral-combat", &NAMES[..2], 7).await;
    let (_, page) = get_text(&client, &format!("{base}/play/{}", tokens[0])).await;
    assert!(!page.contains("has won"), "nothing won at move 0");
    assert!(page.contains("class=\"card down\""), "the hand's backs");
    play_until(&db, id, 7, |loaded| {
        loaded.game.view(postplay::engine::Viewer::Spectator)["won"]
            .as_array()
            .is_some_and(|w| {
                w.iter()
                    .any(|p| p.as_array().is_some_and(|p| !p.is_empty()))
            })
    })
    .await;
    let (_, page) = get_text(&client, &format!("{base}/play/{}", tokens[0])).await;
    assert!(page.contains("has won"), "a pile once something is won");
    db.drop().await;
}

/// The play page marks what happened since the seat last looked (its browser keeps the head it
/// was shown in a cookie) or last moved, and sets the cookie to the head it shows.
#[actix_web::test]
async fn the_page_marks_what_happened_since_the_last_visit() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().disable_redirects().finish();
    let (id, tokens) = create_game(&db, "statehood", &NAMES[..3], 61).await;
    play_until(&db, id, 61, |loaded| loaded.row.head_seq >= 10).await;
    let head = db.store.load(id).await.unwrap().row.head_seq;
    let url = format!("{base}/play/{}", tokens[0]);
    let res = client.get(&url).send().await.unwrap();
    let seen = res
        .headers()
        .get_all("set-cookie")
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("pp_seen="))
        .expect("the page remembers what it showed")
        .to_string();
    assert!(seen.starts_with(&format!("pp_seen={head};")), "{seen}");
    assert!(
        seen.contains(&format!("Path=/play/{}", tokens[0])),
        "{seen}"
    );
    // Three more moves or so, the last by another seat; the seat looks again with its cookie.
    play_until(&db, id, 62, |loaded| {
        loaded.row.head_seq >= head + 3 && loaded.log.last().is_some_and(|(_, seat, _)| *seat != 0)
    })
    .await;
    let loaded = db.store.load(id).await.unwrap();
    let last_own = loaded
        .log
        .iter()
        .filter(|(seq, seat, _)| *seq > 0 && *seat == 0)
        .map(|(seq, _, _)| *seq)
        .max()
        .unwrap_or(0);
    let since = head.max(last_own);
    let mut res = client
        .get(&url)
        .insert_header(("Cookie", format!("pp_seen={head}")))
        .send()
        .await
        .unwrap();
    let page = String::from_utf8_lossy(&res.body().limit(1 << 22).await.unwrap()).into_owned();
    let marked: Vec<i64> = page
        .split("<li class=\"new\" value=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().parse().unwrap())
        .collect();
    let expected: Vec<i64> = loaded
        .log
        .iter()
        .filter(|(seq, _, lines)| *seq > since && !lines.is_empty())
        .flat_map(|(seq, _, lines)| std::iter::repeat_n(*seq, lines.len()))
        .collect();
    assert!(!expected.is_empty(), "something happened since");
    assert_eq!(marked, expected, "exactly the moves since the last look");
    let moves = {
        let mut m = expected.clone();
        m.dedup();
        m.len()
    };
    assert!(page.contains(&format!("{moves} new since you last looked")));
    // A page without the cookie marks what happened since the seat's own last move.
    let (_, fresh) = get_text(&client, &url).await;
    let unmarked_before_own = fresh
        .split("<li class=\"new\" value=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().parse::<i64>().unwrap())
        .all(|seq| seq > last_own);
    assert!(unmarked_before_own);
    db.drop().await;
}

/// The whole log of a finished game: broken by hand, every line with its time, a score row a
/// hand ending in the final score, and a chart with a line a side.
#[actix_web::test]
async fn the_whole_log_breaks_by_hand_with_times_scores_and_a_chart() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().finish();
    let (id, _) = create_game(&db, "whitehouse", &NAMES, 63).await;
    play_until(&db, id, 63, |_| false).await;
    let loaded = db.store.load(id).await.unwrap();
    let hands = loaded.game.view(postplay::engine::Viewer::Spectator)["hand_number"]
        .as_u64()
        .unwrap();
    let (status, page) = get_text(&client, &format!("{base}/games/{id}/log")).await;
    assert_eq!(status, 200);
    for hand in 1..=hands {
        assert!(
            page.contains(&format!("<h2>Hand {hand}</h2>")),
            "a section for hand {hand}"
        );
    }
    let lines = page.matches("<li value=").count();
    assert_eq!(
        page.matches("<time class=\"small\">").count(),
        lines,
        "every line has its time"
    );
    let table = page
        .split("<table class=\"scores\">")
        .nth(1)
        .expect("a score table")
        .split("</table>")
        .next()
        .unwrap();
    assert_eq!(
        table.matches("<tr><th>Hand ").count() as u64,
        hands,
        "a row a hand"
    );
    assert!(table.contains("Ann and Cy") && table.contains("Bo and Di"));
    let last_row = table.rsplit("<tr><th>").next().unwrap();
    let outcome = loaded.game.outcome().unwrap();
    let state = loaded.game.state_json();
    for score in state["scores"].as_array().unwrap() {
        assert!(
            last_row.contains(&format!("<td>{score}</td>")),
            "the last row holds the final score {score}: {last_row} ({})",
            outcome.reason
        );
    }
    let chart = page.split("<svg class=\"chart\"").nth(1).expect("a chart");
    assert_eq!(chart.matches("<polyline").count(), 2, "a line a side");
    db.drop().await;
}

/// Every game's rules page answers, names its players and links the create form; the create
/// form and the play page link it; an unknown game has none.
#[actix_web::test]
async fn every_game_has_a_rules_page_linked_where_players_look() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let client = Client::builder().finish();
    for game in postplay::games::registry() {
        let (status, page) = get_text(&client, &format!("{base}/rules/{}", game.id())).await;
        assert_eq!(status, 200, "{}", game.id());
        assert!(page.contains(&format!("How to play {}", game.name())));
        assert!(page.contains("id=\"objective\""));
        let (_, new) = get_text(&client, &format!("{base}/new/{}", game.id())).await;
        assert!(new.contains(&format!("href=\"/rules/{}\"", game.id())));
        let (min, _) = game.seat_counts();
        let (_, tokens) = create_game(&db, game.id(), &NAMES[..min], 64).await;
        let (_, play) = get_text(&client, &format!("{base}/play/{}", tokens[0])).await;
        assert!(play.contains(&format!("href=\"/rules/{}\"", game.id())));
    }
    let (status, _) = get_text(&client, &format!("{base}/rules/chess")).await;
    assert_eq!(status, 404);
    db.drop().await;
}

/// The game-over mail of every game names the winners and says the result, the last moves and
/// the scores with names, never "Player 1" (a seat's role, such as North, beside the name).
#[actix_web::test]
async fn every_game_over_mail_names_the_players() {
    let db = TestDb::new().await;
    for (kind, seats, seed) in [
        ("whitehouse", 4, 81),
        ("statehood", 3, 82),
        ("electoral-combat", 2, 83),
        ("nationhood", 2, 84),
        ("votes-for-women", 2, 85),
    ] {
        let (id, _) = create_game_for(&db, kind, &NAMES[..seats], true, seed).await;
        play_until(&db, id, seed, |_| false).await;
        let payloads: Vec<serde_json::Value> = sqlx::query_scalar(
            "SELECT payload FROM outbox WHERE game_id = $1 AND kind = 'over' ORDER BY seat",
        )
        .bind(id)
        .fetch_all(db.store.pool())
        .await
        .unwrap();
        assert_eq!(payloads.len(), seats, "{kind}: one game-over mail a player");
        let outcome = db.store.load(id).await.unwrap().game.outcome().unwrap();
        for payload in &payloads {
            let said = payload.to_string();
            assert!(!said.contains("Player "), "{kind}: {said}");
            assert!(!said.contains("{s"), "{kind}: a placeholder left: {said}");
            for &w in &outcome.winners {
                assert!(said.contains(NAMES[w]), "{kind}: the winner named: {said}");
            }
        }
    }
    db.drop().await;
}
