//! A whole game of each kind played by keyboard alone: every move is made with Tab,
//! Shift+Tab, the arrow keys, Space, Enter and typed digits, sent to the real browser as key
//! presses (WebDriver actions), never by a click or by setting a control from a script. The
//! script below only decides, like a player, which control to go to next and which key to
//! press there; the browser moves the focus and acts. A control no key reaches fails the test.

use crate::common::{TestDb, spawn_app};
use crate::{Driver, made_or_refused};
use postplay::store::{NewSeat, PlayerName};
use serde_json::{Value, json};

/// One key press, as the step script names it and WebDriver sends it.
fn key(name: &str) -> Vec<Value> {
    let press = |k: &str| {
        vec![
            json!({"type": "keyDown", "value": k}),
            json!({"type": "keyUp", "value": k}),
        ]
    };
    let with = |modifier: &str, k: &str| {
        vec![
            json!({"type": "keyDown", "value": modifier}),
            json!({"type": "keyDown", "value": k}),
            json!({"type": "keyUp", "value": k}),
            json!({"type": "keyUp", "value": modifier}),
        ]
    };
    match name {
        "Tab" => press("\u{E004}"),
        "ShiftTab" => with("\u{E008}", "\u{E004}"),
        "Enter" => press("\u{E007}"),
        "Space" => press(" "),
        "Down" => press("\u{E015}"),
        "Up" => press("\u{E013}"),
        "SelectAll" => with("\u{E009}", "a"),
        digits => digits.chars().flat_map(|c| press(&c.to_string())).collect(),
    }
}

/// Decides the next keys of one move on the seat's page. Called again and again on the same
/// page: the first call makes the plan (a move form drawn by `choice`, its fields filled at
/// random from `seed`), each call then returns the keys that bring the focus one stop nearer
/// the plan's next control, or act on it once it has the focus. Returns
/// `{keys: [...], last: bool}`, `{none: true}` when the page offers no move, or
/// `{stuck: "..."}` when a control cannot be reached.
const STEP: &str = r#"
const [choice, seed0] = arguments;
const TABBABLE = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]';
const shown = (e) => {
  const closed = e.closest('details:not([open])');
  return e.getClientRects().length > 0 && (!closed || (e.tagName === 'SUMMARY' && e.parentElement === closed));
};
const focusable = (e) => shown(e) && !e.disabled;
// The radio of a group that Tab stops at: the checked one, else the first going forward and
// the last going back.
const groupStop = (e, forward) => {
  const owner = e.form ? [...e.form.elements] : [...document.querySelectorAll('input[type=radio]')].filter((r) => !r.form);
  const group = owner.filter((r) => r.type === 'radio' && r.name === e.name && focusable(r));
  return group.find((r) => r.checked) || (forward ? group[0] : group[group.length - 1]);
};
let kb = window.__kb;
if (!kb) {
  let seed = seed0 % 2147483647 || 1;
  const rnd = (n) => { seed = (seed * 48271) % 2147483647; return seed % n; };
  const forms = [...document.forms].filter((f) =>
    f.querySelector('input[name=choice]') && !f.closest('details:not([open])') &&
    [...f.elements].concat([...document.querySelectorAll(`button[form="${f.id}"]`)])
      .some((b) => b.type === 'submit' && shown(b)));
  if (!forms.length) return {none: [...document.forms].map((f) =>
    `${f.id || f.className || f.action}: ${[...f.elements].map((e) => e.name + (focusable(e) ? '' : ' (unreachable)')).join(' ')}`).join('; ')};
  const form = forms[choice % forms.length];
  const submitters = [...document.querySelectorAll('button[type=submit], button:not([type])')]
    .filter((b) => b.form === form && shown(b));
  const plan = [];
  if (submitters.length > 1 && submitters.every((b) => b.name)) {
    plan.push({el: submitters[rnd(submitters.length)], act: 'Enter', last: true});
  } else {
    const done = new Set();
    for (const e of form.elements) {
      if (!focusable(e) || e.type === 'hidden' || e.form !== form || done.has(e.name)) continue;
      if (e.type === 'radio') {
        done.add(e.name);
        const group = [...form.elements].filter((r) => r.type === 'radio' && r.name === e.name && focusable(r));
        plan.push({el: group[rnd(group.length)], act: 'Radio'});
      } else if (e.type === 'checkbox') {
        done.add(e.name);
        const boxes = [...form.elements].filter((b) => b.type === 'checkbox' && b.name === e.name && focusable(b));
        const rule = /Pick (\d+)(?: to (\d+))?/.exec((e.closest('fieldset') || form).textContent);
        const lo = rule ? +rule[1] : 0, hi = rule ? +(rule[2] || rule[1]) : boxes.length;
        const want = Math.min(boxes.length, lo + rnd(hi - lo + 1));
        const order = boxes.map((b) => [rnd(1 << 20), b]).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
        const on = new Set(order.slice(0, want));
        for (const b of boxes) if (b.checked !== on.has(b)) plan.push({el: b, act: 'Space'});
      } else if (e.type === 'number') {
        const lo = +e.min || 0, hi = e.max === '' ? lo + 5 : +e.max, step = +e.step || 1;
        const value = lo + step * rnd(Math.floor((hi - lo) / step) + 1);
        plan.push({el: e, act: 'Type', value: String(value)});
      } else if (e.tagName === 'SELECT') {
        const k = rnd(e.options.length);
        for (let i = e.selectedIndex; i < k; i++) plan.push({el: e, act: 'Down', again: true});
      }
    }
    if (form.classList.contains('place')) {
      const states = [...form.querySelectorAll('svg g.st.open')];
      const at = plan.findIndex((s) => form.querySelector('.mapbox').compareDocumentPosition(s.el) & 4);
      const taps = [];
      for (let pass = 0; pass < 6; pass++) for (const g of states) taps.push({el: g, act: 'Enter', untilComplete: true});
      plan.splice(at < 0 ? plan.length : at, 0, ...taps);
    }
    const primary = submitters.find((b) => b.classList.contains('primary')) || submitters[0];
    plan.push({el: primary, act: 'Enter', last: true});
  }
  // A player goes to the move by the page's skip link first, when it leads there.
  const skip = document.querySelector('a.skip');
  const landing = skip && document.getElementById(skip.getAttribute('href').slice(1));
  if (landing && plan.length && (landing.contains(plan[0].el) || (landing.compareDocumentPosition(plan[0].el) & 4))) {
    plan.unshift({el: skip, act: 'Enter'});
  }
  kb = window.__kb = {plan, form, tabs: 0};
}
const complete = () => !kb.form.querySelector('button[type=submit].primary, button[type=submit]').disabled;
while (kb.plan.length) {
  const step = kb.plan[0];
  if (step.untilComplete && complete()) { kb.plan = kb.plan.filter((s) => !s.untilComplete); continue; }
  const a = document.activeElement;
  if (step.act === 'Radio' && a && a.type === 'radio' && a.name === step.el.name && a.form === step.el.form) {
    kb.tabs = 0;
    kb.forward = undefined;
    kb.single = false;
    if (a !== step.el) {
      const group = [...kb.form.elements].filter((r) => r.type === 'radio' && r.name === a.name);
      return {keys: [group.indexOf(a) < group.indexOf(step.el) ? 'Down' : 'Up'], last: false};
    }
    kb.plan.shift();
    return {keys: a.checked ? [] : ['Space'], last: false};
  }
  if (a !== step.el) {
    kb.trail = (kb.trail || []).concat([a ? a.outerHTML.slice(0, 80) : 'nothing']).slice(-6);
    if (++kb.tabs > 100) return {stuck: `${step.el.outerHTML.slice(0, 160)} is never reached by Tab; the focus was on ${kb.trail.join(' | ')}`};
    const forward = !a || a === document.body || (step.el.compareDocumentPosition(a) & 2) !== 0;
    // How many stops away the control is, counted over the page's tab order (a radio group
    // is one stop): that many presses at once; the next call checks where the focus landed.
    const stops = [...document.querySelectorAll(TABBABLE)]
      .filter((e) => focusable(e) && e.tabIndex >= 0 && (e.type !== 'radio' || groupStop(e, forward) === e));
    const target = step.el.type === 'radio'
      ? stops.find((e) => e.type === 'radio' && e.name === step.el.name && e.form === step.el.form)
      : step.el;
    // Where the focus is among the stops: on one, or (on the page, or on where a skip link
    // led) just after the last stop before it.
    const i = stops.includes(a) ? stops.indexOf(a)
      : !a || a === document.body ? -1
      : stops.filter((e) => a.compareDocumentPosition(e) & 2).length - 1;
    const j = stops.indexOf(target);
    // A jump that missed the control (a stop counted that the browser skips, or the other
    // way): from there on, one press at a time.
    if (kb.forward !== undefined) kb.single = true;
    kb.forward = forward;
    const n = j < 0 || kb.single ? 1 : forward ? j - i : i - j;
    return {keys: Array(Math.max(1, n)).fill(forward ? 'Tab' : 'ShiftTab'), last: false};
  }
  kb.tabs = 0;
  kb.forward = undefined;
  kb.single = false;
  kb.plan.shift();
  if (step.act === 'Type') return {keys: ['SelectAll', step.value], last: false};
  if (step.act === 'Down' || step.act === 'Space') return {keys: [step.act], last: false};
  return {keys: ['Enter'], last: !!step.last};
}
return {stuck: 'the plan ended before its move was sent'};
"#;

/// Makes one move on the open seat page by keys alone; `false` when the page offers none.
async fn move_by_keys(driver: &Driver, choice: usize, seed: u64) -> bool {
    for _ in 0..5000 {
        let step = driver
            .call(
                "POST",
                "/execute/sync",
                Some(json!({"script": STEP, "args": [choice, seed]})),
            )
            .await;
        if let Some(forms) = step["none"].as_str() {
            eprintln!("no move on the page; its forms: {forms}");
            return false;
        }
        if let Some(stuck) = step["stuck"].as_str() {
            driver.screenshot("keyboard-stuck").await;
            panic!("by keyboard alone: {stuck}");
        }
        let keys: Vec<Value> = step["keys"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|k| key(k.as_str().unwrap()))
            .collect();
        if !keys.is_empty() {
            driver
                .call(
                    "POST",
                    "/actions",
                    Some(json!({"actions": [{"type": "key", "id": "keyboard", "actions": keys}]})),
                )
                .await;
        }
        if step["last"] == true {
            return true;
        }
    }
    panic!("a move took more than 5000 key steps");
}

/// Plays a fresh game of `kind` with `options` to its end, every move by keys on the mover's
/// page; returns the number of moves, of which how many were refused first and made again.
async fn a_whole_game_by_keys(
    db: &TestDb,
    driver: &Driver,
    base: &str,
    kind: &str,
    options: Value,
    seats: usize,
    seed: u64,
) -> (usize, usize) {
    let names = ["Ann", "Bo", "Cy", "Di"];
    let new_seats: Vec<NewSeat> = names[..seats]
        .iter()
        .map(|n| NewSeat {
            name: PlayerName::parse(n).unwrap(),
            email: None,
            bot: None,
        })
        .collect();
    let created = db
        .store
        .create_game(
            kind,
            &options,
            &new_seats,
            postplay::engine::Seed::from_number(seed),
        )
        .await
        .unwrap();
    let id = created.id;
    let mut rng = postplay::engine::bot::bot_rng(&postplay::engine::Seed::from_number(seed));
    let (mut moves, mut refused) = (0, 0);
    for _ in 0..2000 {
        let loaded = db.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return (moves, refused);
        }
        let seat = loaded.game.active()[0];
        let head = loaded.row.head_seq;
        let mut made = false;
        for attempt in 0..30 {
            driver
                .goto(&format!("{base}/play/{}", created.seat_tokens[seat]))
                .await;
            let choice = rng.index(loaded.game.choices(seat).len().max(1) * 8);
            let sent = move_by_keys(driver, choice, rng.index(1 << 30) as u64 + 1).await;
            assert!(
                sent,
                "{kind}: seat {seat} is to move at {head} but its page offers no move"
            );
            if made_or_refused(db, driver, id, head).await {
                made = true;
                break;
            }
            assert!(attempt < 29, "{kind}: 30 tries at move {head} all refused");
            refused += 1;
        }
        assert!(made);
        moves += 1;
    }
    panic!("{kind}: no end after 2000 moves");
}

/// One whole game of `kind` by keys at phone size, in a browser of its own.
async fn by_keys(kind: &str, options: Value, seats: usize, seed: u64) {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let driver = Driver::start().await;
    driver.viewport(390, 844).await;
    let (moves, refused) =
        a_whole_game_by_keys(&db, &driver, &base, kind, options, seats, seed).await;
    eprintln!("{kind}: {moves} moves by keys ({refused} refused and made again)");
    driver.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn a_whole_electoral_combat_game_is_played_by_keyboard_alone() {
    by_keys("electoral-combat", json!({}), 2, 501).await;
}

#[actix_web::test]
async fn a_whole_statehood_game_is_played_by_keyboard_alone() {
    by_keys("statehood", json!({"target": 6}), 3, 502).await;
}

#[actix_web::test]
async fn a_whole_whitehouse_game_is_played_by_keyboard_alone() {
    by_keys("whitehouse", json!({"target": 3}), 4, 503).await;
}

#[actix_web::test]
async fn a_whole_nationhood_game_is_played_by_keyboard_alone() {
    by_keys(
        "nationhood",
        json!({"rubbers": 1, "target": 1, "draw_after": 1}),
        2,
        504,
    )
    .await;
}

#[actix_web::test]
async fn a_whole_votes_for_women_game_is_played_by_keyboard_alone() {
    by_keys("votes-for-women", json!({}), 2, 505).await;
}
