//! Pages for everyone: the accessibility engine axe-core, run inside the real browser on every
//! kind of page at phone and desktop width, reports no violation of any impact.
//!
//! axe-core (MPL-2.0, a test tool only: never shipped with postplay) is fetched once from the
//! npm registry into the target folder at the pinned version below.

use crate::Driver;
use crate::common::{TestDb, play_until, spawn_app};
use postplay::store::{EmailAddress, NewClub, NewSeat, PlayerName};
use serde_json::json;
use std::path::PathBuf;

/// The axe-core release the pages are checked with.
const AXE_VERSION: &str = "4.14.1";

/// axe-core's script, installed with npm into `target/axe-{version}` on first use.
fn axe_source() -> String {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let prefix =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("target/axe-{AXE_VERSION}"));
    let script = prefix.join("node_modules/axe-core/axe.min.js");
    if !script.exists() {
        std::fs::create_dir_all(&prefix).unwrap();
        let status = std::process::Command::new("npm")
            .args([
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(&prefix)
            .arg(format!("axe-core@{AXE_VERSION}"))
            .status()
            .expect("npm runs (Debian package npm; scripts/test installs it)");
        assert!(
            status.success(),
            "npm install axe-core@{AXE_VERSION}: {status}"
        );
    }
    std::fs::read_to_string(&script).unwrap_or_else(|e| panic!("{}: {e}", script.display()))
}

/// The violations axe-core finds on the browser's page, each as "impact rule: help (where)".
async fn violations(driver: &Driver, axe: &str) -> Vec<String> {
    let loaded = driver.script("return typeof axe !== 'undefined';").await;
    if loaded != true {
        driver
            .script(&format!("{axe}\n;window.axe = axe; return null;"))
            .await;
    }
    let found = driver
        .call(
            "POST",
            "/execute/async",
            Some(json!({
                "script": "const done = arguments[arguments.length - 1];
                    axe.run(document, {resultTypes: ['violations']})
                      .then(r => done(r.violations.map(v =>
                          `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3)
                              .map(n => n.target.join(' ')).join('; ')})`)))
                      .catch(e => done([`axe failed: ${e}`]));",
                "args": [],
            })),
        )
        .await;
    found
        .as_array()
        .expect("axe's violations")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

/// A fresh game of `kind` played `moves` random moves in: its id, the seat to move's link
/// and the organiser's.
async fn seat_page(
    db: &TestDb,
    kind: &str,
    names: &[&str],
    seed: u64,
    moves: i64,
) -> (i64, String, String) {
    let (created, seat) = game_at(db, kind, names, seed, moves).await;
    (
        created.id,
        created.seat_tokens[seat].clone(),
        created.organiser_token,
    )
}

/// A fresh game of `kind` played `moves` random moves in, and its seat to move.
async fn game_at(
    db: &TestDb,
    kind: &str,
    names: &[&str],
    seed: u64,
    moves: i64,
) -> (postplay::store::CreatedGame, usize) {
    let seats: Vec<NewSeat> = names
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: Some(EmailAddress::parse(&format!("{}@example.org", n.to_lowercase())).unwrap()),
            bot: None,
        })
        .collect();
    let created = db
        .store
        .create_game(
            kind,
            &json!({}),
            &seats,
            postplay::engine::Seed::from_number(seed),
        )
        .await
        .unwrap();
    play_until(db, created.id, seed, |loaded| loaded.row.head_seq >= moves).await;
    let loaded = db.store.load(created.id).await.unwrap();
    let seat = loaded.game.active().first().copied().unwrap_or(0);
    (created, seat)
}

#[actix_web::test]
async fn every_kind_of_page_passes_the_accessibility_engine_at_phone_and_desktop_width() {
    let axe = axe_source();
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let names = ["Ann", "Bo", "Cy", "Di"];

    let mut pages: Vec<(String, String)> = Vec::new();
    let mut add = |what: &str, path: String| pages.push((what.to_string(), path));
    add("home", "/".into());
    add("sign-in", "/signin".into());
    add("lobby", "/lobby".into());
    add("fairness", "/fairness".into());
    add("a page not found", "/games/999999".into());
    for (kind, seats, seed, moves) in [
        ("electoral-combat", 2, 401, 6),
        ("votes-for-women", 2, 402, 3),
        ("whitehouse", 4, 403, 9),
        ("statehood", 3, 404, 5),
        ("nationhood", 2, 405, 4),
    ] {
        add("create", format!("/new/{kind}"));
        add("rules", format!("/rules/{kind}"));
        let (id, token, organiser) = seat_page(&db, kind, &names[..seats], seed, moves).await;
        add("seat", format!("/play/{token}"));
        add("game", format!("/games/{id}"));
        add("log", format!("/games/{id}/log"));
        add("replay", format!("/games/{id}/replay"));
        add("desk", format!("/manage/{organiser}"));
    }
    let (over, token, _) = seat_page(&db, "electoral-combat", &names[..2], 406, i64::MAX).await;
    add("a finished game's seat", format!("/play/{token}"));
    add("a finished game", format!("/games/{over}"));
    add("a finished game's replay", format!("/games/{over}/replay"));

    let ann = db
        .store
        .account_for_email(
            &EmailAddress::parse("ann@example.org").unwrap(),
            &PlayerName::parse("Ann").unwrap(),
        )
        .await
        .unwrap();
    let club = db
        .store
        .create_club(
            &ann,
            &NewClub {
                name: postplay::domain::ClubName::parse("Tuesday Cards").unwrap(),
                description: postplay::domain::ClubDescription::parse("We meet by mail.").unwrap(),
                private: false,
            },
        )
        .await
        .unwrap();
    let signed_in = [
        ("my games", "/me".to_string()),
        ("settings", "/me/settings".into()),
        ("API tokens", "/me/tokens".into()),
        ("webhooks", "/me/webhooks".into()),
        ("clubs", "/clubs".into()),
        ("a new club", "/clubs/new".into()),
        ("a club", format!("/clubs/{club}")),
        ("a club's invitation form", format!("/clubs/{club}/invite")),
        ("a club's new game", format!("/clubs/{club}/new/statehood")),
        ("a new lobby table", "/lobby/new/statehood".into()),
        ("a seat among my games", format!("/me/games/{over}/0")),
    ];
    let session = db.store.start_session(ann.id).await.unwrap();

    let driver = Driver::start().await;
    let mut found = Vec::new();
    for (width, height) in [(390, 844), (1280, 900)] {
        driver.viewport(width, height).await;
        driver.goto(&format!("{base}/lobby")).await;
        driver.call("DELETE", "/cookie", None).await;
        for (what, path) in &pages {
            driver.goto(&format!("{base}{path}")).await;
            for v in violations(&driver, &axe).await {
                found.push(format!("{width}px {what} ({path}): {v}"));
            }
        }
        crate::use_session(&driver, &base, &session).await;
        for (what, path) in &signed_in {
            driver.goto(&format!("{base}{path}")).await;
            for v in violations(&driver, &axe).await {
                found.push(format!("{width}px {what} ({path}): {v}"));
            }
        }
    }
    driver.stop().await;
    db.drop().await;
    found.dedup();
    assert!(
        found.is_empty(),
        "{} accessibility violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The engine itself finds what it is meant to: a page with an unlabelled field and an empty
/// table header is reported, so a clean run above means the pages are clean.
#[actix_web::test]
async fn the_accessibility_engine_reports_a_page_with_faults() {
    let axe = axe_source();
    let driver = Driver::start().await;
    driver.goto("about:blank").await;
    driver
        .script(
            "document.documentElement.lang = 'en'; document.title = 'A faulty page';
             document.body.innerHTML = '<main><table><tr><th></th><td>1</td></tr></table>\
             <input type=text></main>'; return null;",
        )
        .await;
    let found: Vec<String> = violations(&driver, &axe).await;
    driver.stop().await;
    let rules: Vec<&str> = found
        .iter()
        .filter_map(|v| v.split_whitespace().nth(1))
        .map(|r| r.trim_end_matches(':'))
        .collect();
    assert!(rules.contains(&"label"), "{found:?}");
    assert!(rules.contains(&"empty-table-header"), "{found:?}");
}

/// The seat page says the position in the same words as the mail, and tells a screen reader
/// what the others did when the page refreshes itself after their move (its `role=status`
/// region), ending with "Your move." when it is.
#[actix_web::test]
async fn the_seat_page_says_the_position_in_words_and_announces_the_others_moves() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (created, mover) = game_at(&db, "electoral-combat", &["Ann", "Bo"], 407, 4).await;
    let id = created.id;
    let watcher = 1 - mover;
    let loaded = db.store.load(id).await.unwrap();
    let names = vec!["Ann".to_string(), "Bo".to_string()];
    let words: Vec<String> = loaded
        .game
        .position(postplay::engine::Viewer::Seat(watcher), &names)
        .text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver
        .goto(&format!("{base}/play/{}", created.seat_tokens[watcher]))
        .await;
    let shown = driver
        .script(
            "return [...document.querySelectorAll('#in-words p')].map(p => p.textContent.trim());",
        )
        .await;
    assert_eq!(shown, json!(words), "the page's words are the mail's");
    assert_eq!(
        driver
            .script("return document.getElementById('announce').textContent;")
            .await,
        "",
        "nothing is announced on a page opened by the player"
    );
    // The page's stream tells the head as it stands when it connects: a move made before it
    // connects reloads the page all the same.
    let head = loaded.row.head_seq;
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(9));
    let choices = loaded.game.choices(mover);
    let command = postplay::engine::bot::fill_at_random(&choices[0], &mut rng);
    db.store
        .submit(id, mover, &command, Some(head))
        .await
        .unwrap();
    let said = driver
        .wait_script(
            "the others' move to be announced",
            "const t = document.getElementById('announce').textContent; return t ? t : null;",
        )
        .await;
    let said = said.as_str().unwrap().to_string();
    let line = driver
        .script(&format!(
            "const li = document.querySelector('#log ol.log > li[value=\"{}\"]');
             return li ? [...li.querySelectorAll('.line')].map(l => l.textContent).join(' ') : null;",
            head + 1
        ))
        .await;
    let line = line.as_str().expect("the move's log entry").to_string();
    assert!(
        said.contains(&line),
        "announced {said:?}, the move reads {line:?}"
    );
    let after = db.store.load(id).await.unwrap();
    if after.game.active().contains(&watcher) {
        assert!(said.ends_with("Your move."), "{said:?}");
    }
    driver.stop().await;
    db.drop().await;
}
