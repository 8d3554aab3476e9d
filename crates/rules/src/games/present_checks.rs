//! Checks every game's position writer must pass (tests only): over the positions of many
//! random games, seen by each seat, a spectator and an auditor, no field name of the view,
//! no bracket, no seat number, every player named, well-formed HTML with inline styles only.

use crate::engine::bot::{bot_rng, fill_at_random};
use crate::engine::present::{Names, esc};
use crate::engine::{Log, Match, Rules, Seed, Viewer};
use std::collections::BTreeSet;

/// Names with characters HTML must escape, so escaping is checked too.
pub fn test_names() -> Vec<String> {
    vec!["Ann O'Hara".to_string(), "Bo <B&B>".to_string()]
}

/// The sizes of the positions that go to players, in characters of text.
#[derive(Debug)]
pub struct Sizes {
    /// How many seat positions were measured.
    pub positions: usize,
    /// The largest.
    pub max: usize,
    /// The median.
    pub p50: usize,
    /// The text of the largest.
    pub largest: String,
}

/// The words of a text, lower case, underscores kept (so `face_up` is one word).
fn words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `text` has "seat" followed by a digit (spaces allowed between).
fn seat_number(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.match_indices("seat").any(|(i, _)| {
        lower[i + 4..]
            .trim_start()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// Checks that `html` is a sound fragment, read by a real HTML parser
/// ([`crate::engine::present::check::html_problems`]), with inline styles only: no class,
/// style sheet, image or source; panics with `what` otherwise.
pub fn check_html(html: &str, what: &str) {
    let mut problems = crate::engine::present::check::html_problems(html);
    for (needle, problem) in [
        ("class=", "a class"),
        ("<style", "a style sheet"),
        ("<img", "an image"),
        ("src=", "a source"),
    ] {
        if html.contains(needle) {
            problems.push(format!("{problem} in the HTML"));
        }
    }
    let bare = html.match_indices('&').any(|(at, _)| {
        !["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
            .iter()
            .any(|e| html[at..].starts_with(e))
    });
    if bare {
        problems.push("a bare & in the HTML".into());
    }
    assert!(problems.is_empty(), "{what}: {problems:?} in {html}");
}

/// Plays `games` random two-seat games of `R` and checks the position of every step for every
/// viewer. `allowed` lists the view's field names that are plain English words a position
/// uses (every other field name, at any depth of any view met, must never appear as a word).
/// `check` runs on every position too, with its viewer. Returns the sizes of the seats'
/// positions.
pub fn check_random_positions<R: Rules>(
    options: R::Options,
    games: u64,
    allowed: &[&str],
    mut check: impl FnMut(&R::View, Viewer, &str),
) -> Sizes
where
    R::Options: Clone,
{
    let names = test_names();
    let present = Names::new(&names);
    let mut field_names = BTreeSet::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut sizes = Vec::new();
    let mut largest = String::new();
    for n in 0..games {
        let seed = Seed::from_number(n);
        let mut live = Match::<R>::new(options.clone(), 2, seed).expect("setup");
        let mut rng = bot_rng(&seed);
        for step in 0..5000 {
            for viewer in [
                Viewer::Seat(0),
                Viewer::Seat(1),
                Viewer::Spectator,
                Viewer::Auditor,
            ] {
                let view = R::view(&live.state, viewer);
                field_names.extend(crate::engine::present::check::field_names(
                    &serde_json::to_value(&view).expect("views serialize"),
                ));
                let p = R::position(&view, &present);
                let what = format!("game {n}, step {step}, {viewer:?}");
                for text in [&p.text, &p.html] {
                    assert!(
                        !text.contains('[') && !text.contains(']'),
                        "{what}: a bracket in {text}"
                    );
                    assert!(!seat_number(text), "{what}: a seat number in {text}");
                }
                for name in &names {
                    assert!(
                        p.text.contains(name.as_str()),
                        "{what}: {name} missing in {}",
                        p.text
                    );
                    assert!(
                        p.html.contains(&esc(name)),
                        "{what}: {name} missing in {}",
                        p.html
                    );
                }
                check_html(&p.html, &what);
                check(&view, viewer, &p.text);
                if matches!(viewer, Viewer::Seat(_)) {
                    let size = p.text.chars().count();
                    if size > largest.chars().count() {
                        largest = p.text.clone();
                    }
                    sizes.push(size);
                }
                texts.push((what, p.text));
            }
            let active = R::active(&live.state);
            if let Some(outcome) = live.outcome() {
                let ending =
                    R::ending(&R::view(&live.state, Viewer::Spectator), &outcome, &present);
                let found =
                    crate::engine::present::check::ending_problems(&ending, &outcome, &names);
                assert!(found.is_empty(), "game {n}: {found:?}\n{ending:?}");
                break;
            }
            if active.is_empty() {
                break;
            }
            let seat = active[rng.index(active.len())];
            let choices = R::choices(&live.state, seat);
            let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
            let typed: R::Command =
                serde_json::from_value(command).expect("offered command parses");
            live.apply(seat, &typed, &mut Log::silent())
                .expect("offered command accepted");
        }
    }
    let forbidden: Vec<&String> = field_names
        .iter()
        .filter(|k| !allowed.contains(&k.as_str()))
        .collect();
    let mut found_keys: Vec<String> = Vec::new();
    for (what, text) in &texts {
        let found = words(text);
        for key in &forbidden {
            if found.contains(key.as_str())
                && !found_keys.iter().any(|f| f.starts_with(&format!("{key}:")))
            {
                found_keys.push(format!("{key}: {what}: {text}"));
            }
        }
    }
    assert!(
        found_keys.is_empty(),
        "field names in positions:\n{}",
        found_keys.join("\n\n")
    );
    sizes.sort_unstable();
    Sizes {
        positions: sizes.len(),
        max: sizes.last().copied().unwrap_or(0),
        p50: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        largest,
    }
}

#[test]
fn the_html_check_refuses_what_a_mail_must_not_hold() {
    check_html(
        r#"<p style="margin: 0;">A &amp; B<br><b>x</b></p><table><tr><td>1</td></tr></table>"#,
        "well-formed",
    );
    for bad in [
        "<p>open",
        "<p><b>crossed</p></b>",
        r#"<p class="x">styled by a sheet</p>"#,
        r#"<img src="http://example.com/x.png">"#,
        "<script>alert(1)</script>",
        "<p>Bo <B&B></p>",
        "<p>a & b</p>",
    ] {
        let refused = std::panic::catch_unwind(|| check_html(bad, "bad"));
        assert!(refused.is_err(), "{bad} passed");
    }
    assert!(seat_number("Seat 2 plays") && seat_number("seat1") && !seat_number("seats are taken"));
}
