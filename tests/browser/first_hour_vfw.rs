//! The first hour with Votes for Women on a 390×844 phone (issue 47, items 4 and 6): the map
//! fits the screen with tap targets a finger wide and labels clear of each other and of the
//! states; the campaigners' words stay true after the dice are swapped; a card that cannot be
//! used says why; "What happened" reads newest first, numbered by move, with no box that
//! scrolls on its own; the create form's rows say they are players when seating is random;
//! the replay opens at the deal; the whole log reads as one page.

use super::common::{TestDb, create_game, spawn_app};
use super::{Driver, page_size};
use postplay::engine::{ParamKind, Viewer};
use serde_json::Value;

/// Plays random legal commands through the store until `found` answers for the game as it is
/// (the seat to look at); panics if the game ends first.
async fn advance_until(
    db: &TestDb,
    id: i64,
    seed: u64,
    mut found: impl FnMut(&postplay::store::Loaded) -> Option<usize>,
) -> usize {
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    loop {
        let loaded = db.store.load(id).await.unwrap();
        if let Some(seat) = found(&loaded) {
            return seat;
        }
        assert!(loaded.game.outcome().is_none(), "the game ended first");
        let seat = loaded.game.active()[0];
        let command =
            postplay::engine::bot::random_command(loaded.game.as_ref(), seat, &mut rng).unwrap();
        db.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
}

/// The map on the screen: its box, the page's width, each state's tap target, and every
/// overlap of a label (a postal code, a count, a mark, a star, a campaigner) with another
/// state's tile or with another label.
const MAP_CHECK: &str = r#"
const svg = document.querySelector('svg.vfw-map');
const map = svg.getBoundingClientRect();
const tiles = [...svg.querySelectorAll('g.st')].map(g => ({st: g.dataset.st, r: g.querySelector('rect.t').getBoundingClientRect(), g}));
const small = tiles.filter(t => t.r.width < 24 || t.r.height < 24).map(t => t.st + ' ' + t.r.width + 'x' + t.r.height);
const cellOf = el => el.closest('g.st') || el.closest('g.camp');
const labels = [...svg.querySelectorAll('text, circle')].filter(el => el.textContent !== '' || el.tagName === 'circle')
  .map(el => ({el, cell: cellOf(el), r: el.getBoundingClientRect()}));
const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
const name = l => (l.cell ? (l.cell.dataset.st || l.cell.dataset.region) : '?') + ':' + (l.el.textContent || l.el.tagName);
const overlaps = [];
for (const l of labels) {
  for (const t of tiles) if (t.g !== l.cell && meets(l.r, t.r)) overlaps.push(name(l) + ' on ' + t.st);
}
for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
  const a = labels[i], b = labels[j];
  if (meets(a.r, b.r)) overlaps.push(name(a) + ' on ' + name(b));
}
const tallest = [...svg.querySelectorAll('text.code')].map(t => t.getBoundingClientRect().height).reduce((a, b) => Math.min(a, b), 99);
return {left: map.left, right: map.right, page_wide: document.documentElement.scrollWidth,
        screen: window.innerWidth, small, overlaps, code: tallest, states: tiles.length};
"#;

/// Checks the map of the page at hand fits 390 px and reads: `what` names the position.
async fn map_fits(driver: &Driver, what: &str) {
    let m = driver.script(MAP_CHECK).await;
    let num = |k: &str| m[k].as_f64().unwrap();
    assert_eq!(m["states"], 48, "{what}: {m}");
    assert!(
        num("left") >= 0.0 && num("right") <= 390.0,
        "{what}: the map lies within the screen: {m}"
    );
    assert!(
        num("page_wide") <= 390.0,
        "{what}: the page does not scroll sideways: {m}"
    );
    assert_eq!(
        m["small"],
        Value::Array(vec![]),
        "{what}: every state's tap target is at least 24×24 px"
    );
    assert_eq!(
        m["overlaps"],
        Value::Array(vec![]),
        "{what}: no label overlaps a state or another label"
    );
    assert!(num("code") >= 11.0, "{what}: postal codes readable: {m}");
}

/// A Votes for Women turn at 390×844: the map fits and reads, a card that cannot be played
/// some way says why (from the rules' own answer), and after swapping which campaigner takes
/// which die, every word on the placement is still true.
#[actix_web::test]
async fn a_votes_for_women_turn_reads_on_a_phone() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let seed = 91;
    let (id, tokens) = create_game(&db, "votes-for-women", &["Ann", "Bo"], seed).await;
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;

    // A card of the hand that cannot be played one way: the rules say why.
    let seat = advance_until(&db, id, seed, |l| {
        let seat = *l.game.active().first()?;
        let view = l.game.view(Viewer::Seat(seat));
        let closed = view["hand_closed"]
            .as_array()
            .is_some_and(|n| !n.is_empty());
        let cards = view["hand_notes"].as_array().is_some_and(|n| !n.is_empty());
        (closed || cards).then_some(seat)
    })
    .await;
    let view = db
        .store
        .load(id)
        .await
        .unwrap()
        .game
        .view(Viewer::Seat(seat));
    driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
    map_fits(&driver, "a hand card to play").await;
    let hand = driver
        .script(
            "return {closed: [...document.querySelectorAll('#choices > p.why')].map(p => p.textContent), cards: [...document.querySelectorAll('.vfw .hand .vcard')].map(c => ({id: Number(c.dataset.card), uses: [...c.querySelectorAll('.uses button')].map(b => b.textContent), small: [...c.querySelectorAll('.uses button')].map(b => b.getBoundingClientRect()).filter(r => r.width < 24 || r.height < 24).length, why: [...c.querySelectorAll('.why')].map(w => w.textContent).join(' ')}))};",
        )
        .await;
    assert_eq!(
        hand["closed"], view["hand_closed"],
        "the page shows the rules' reasons for the plays closed to every card"
    );
    let closed = hand["closed"].to_string();
    let cards = hand["cards"].as_array().unwrap();
    assert!(!cards.is_empty(), "the hand is on the page");
    for card in cards {
        let uses: Vec<&str> = card["uses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_str().unwrap())
            .collect();
        assert_eq!(card["small"], 0, "{card}: a use's button under 24×24 px");
        let why = card["why"].as_str().unwrap();
        for (word, reason) in [
            ("Event", why.contains("Not as an event")),
            ("Campaigning", closed.contains("Campaigning")),
            ("Organizing", closed.contains("Organizing")),
            ("Lobbying", closed.contains("Lobbying")),
        ] {
            assert!(
                uses.contains(&word) || reason,
                "card {card}: {word} is not offered and nothing says why ({closed})"
            );
        }
        let rules_say = view["hand_notes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n[0] == card["id"])
            .map_or("", |n| n[1].as_str().unwrap());
        assert_eq!(why, rules_say, "the page shows the rules' reason");
    }
    driver
        .script("document.getElementById('choices').scrollIntoView(); return true;")
        .await;
    driver.screenshot("first-hour-vfw-why").await;

    // Two campaigners with different dice: swapping them changes no word into a lie.
    let seat = advance_until(&db, id, seed + 1, |l| {
        let seat = *l.game.active().first()?;
        let totals: Vec<Vec<u32>> = l
            .game
            .choices(seat)
            .iter()
            .filter(|c| c.command["type"] == "assign")
            .map(|c| {
                c.params
                    .iter()
                    .filter_map(|p| match p.kind {
                        ParamKind::Allot { total, .. } => Some(total),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        (totals.len() > 1 && totals.iter().any(|t| *t != totals[0])).then_some(seat)
    })
    .await;
    driver.goto(&format!("{base}/play/{}", tokens[seat])).await;
    map_fits(&driver, "the dice to hand out").await;
    let read = "return {ways: [...document.querySelectorAll('table.ways input[type=radio]')].map(r => r.dataset.totals), checked: document.querySelector('table.ways input:checked').dataset.totals, params: [...document.querySelectorAll('form.place p.param')].map(p => [p.querySelector('.prompt').textContent, p.querySelector('.count').textContent])};";
    let before = driver.script(read).await;
    let ways = before["ways"].as_array().unwrap().clone();
    let other = ways
        .iter()
        .position(|w| *w != before["checked"])
        .expect("a way with other dice");
    driver
        .click(&format!("table.ways tr:nth-child({}) input", other + 2))
        .await;
    let after = driver.script(read).await;
    assert_eq!(after["checked"], ways[other], "the other way is chosen");
    let totals: Vec<&str> = after["checked"].as_str().unwrap().split(',').collect();
    for (k, line) in after["params"].as_array().unwrap().iter().enumerate() {
        let (prompt, tally) = (line[0].as_str().unwrap(), line[1].as_str().unwrap());
        // The words name the campaigner (and a region's cap); the count is the tally's, of
        // this way's cubes.
        let words = prompt.split(", at most").next().unwrap_or(prompt);
        assert!(
            !words.chars().any(|c| c.is_ascii_digit()),
            "after the swap the campaigner's words still count cubes: \"{prompt}\""
        );
        assert_eq!(tally, format!("{} of {} placed", 0, totals[k]), "{prompt}");
    }
    // A tap on a state writes its badge, clear of the other labels too.
    driver
        .script("document.querySelector('form.place svg').scrollIntoView({block: 'center'}); return true;")
        .await;
    driver.click("form.place svg g.st.open").await;
    let badge = driver
        .script("return document.querySelector('form.place svg g.st.open text.add').textContent;")
        .await;
    assert!(badge.as_str().unwrap().starts_with('+'), "a badge: {badge}");
    map_fits(&driver, "a cube placed").await;
    driver
        .script("document.querySelector('table.ways').scrollIntoView(); return true;")
        .await;
    driver.screenshot("first-hour-vfw-swapped").await;
    driver.script("window.scrollTo(0, 0); return true;").await;
    driver.screenshot("first-hour-vfw-map").await;

    // What happened: newest first, a number a move, no box that scrolls on its own.
    let log = driver
        .script(
            "const ol = document.querySelector('#log ol.log'); const s = getComputedStyle(ol); return {values: [...document.querySelectorAll('#log ol.log > li')].map(li => li.value), overflow: s.overflowY, inner: ol.scrollHeight - ol.clientHeight};",
        )
        .await;
    let values: Vec<i64> = log["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(values.len() > 3, "the log shows moves: {log}");
    assert!(
        values.windows(2).all(|w| w[0] > w[1]),
        "newest first, one number a move: {values:?}"
    );
    assert_eq!(values[0], db.store.load(id).await.unwrap().row.head_seq);
    assert!(
        log["overflow"] == "visible" && log["inner"].as_i64().unwrap() <= 0,
        "the log is no box that scrolls on its own: {log}"
    );
    driver
        .script("document.getElementById('log').scrollIntoView(); return true;")
        .await;
    driver.screenshot("first-hour-vfw-log").await;
    let (tall, _) = page_size(&driver).await;
    assert!(tall < 2500, "the page is {tall} px tall");
    driver.stop().await;
    db.drop().await;
}

/// The create form at 390 px: with random seating (the default) its rows are players, not
/// sides, and the page says the sides are drawn at the start.
#[actix_web::test]
async fn the_create_forms_rows_are_players_when_seating_is_random() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/new/votes-for-women")).await;
    let rows = driver
        .script("return [...document.querySelectorAll('.seat-row > label:first-child')].map(l => l.textContent.trim());")
        .await;
    assert_eq!(rows, serde_json::json!(["Player 1:", "Player 2:"]));
    let random = driver
        .script("return document.querySelector('input[name=order][value=random]').checked;")
        .await;
    assert_eq!(random, true, "random seating is the default");
    let page = driver.source().await;
    assert!(
        page.contains(
            "which player takes which seat (Suffragist, Opposition) is drawn when the game starts"
        ) && page.contains("player 1 is Suffragist, player 2 is Opposition"),
        "the page says how the rows take the sides"
    );
    driver.screenshot("first-hour-vfw-create").await;
    driver.stop().await;
    db.drop().await;
}

/// The replay opens at the deal, not at the result, with a plain way to the end; the whole
/// log of a finished game reads as one page on a phone, with no box that scrolls on its own.
#[actix_web::test]
async fn the_replay_opens_at_the_deal_and_the_log_is_one_page() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let (id, _) = create_game(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], 63).await;
    super::common::play_until(&db, id, 63, |_| false).await;
    let head = db.store.load(id).await.unwrap().row.head_seq;
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    driver.goto(&format!("{base}/games/{id}/replay")).await;
    let page = driver.source().await;
    assert!(
        page.contains(&format!("Move <b>0</b> of {head}")),
        "the replay opens at the deal"
    );
    assert!(page.contains("The deal, before any move."));
    driver.screenshot("first-hour-replay-start").await;
    driver.click("#steps a.last").await;
    driver
        .wait_source("the end of the game", |p| {
            p.contains(&format!("Move <b>{head}</b> of {head}"))
        })
        .await;

    driver.goto(&format!("{base}/games/{id}/log")).await;
    let boxes = driver
        .script(
            "return [...document.querySelectorAll('body *')].filter(el => { const s = getComputedStyle(el); return (['auto', 'scroll'].includes(s.overflowY) && el.scrollHeight > el.clientHeight + 1) || (['auto', 'scroll'].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1); }).map(el => el.tagName + '.' + el.className + ' ' + (el.closest('section') || {}).id);",
        )
        .await;
    assert_eq!(
        boxes,
        Value::Array(vec![]),
        "no part of the log scrolls on its own"
    );
    let wide = driver
        .script("return document.documentElement.scrollWidth;")
        .await;
    assert!(wide.as_i64().unwrap() <= 390, "the page is {wide} px wide");
    driver
        .script("(document.getElementById('p7') || document.querySelector('section.period:last-of-type')).scrollIntoView(); return true;")
        .await;
    driver.screenshot("first-hour-log-hand-7").await;
    driver.stop().await;
    db.drop().await;
}
