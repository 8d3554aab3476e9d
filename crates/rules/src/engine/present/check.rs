//! Checks for what games and mail write, for tests: HTML is parsed by a real HTML5 parser
//! (html5ever) and must have no parse error, every element closed, no script or event handler,
//! nothing loaded from elsewhere; a position must read as words.

use super::Position;
use html5ever::tendril::TendrilSink;
use html5ever::tokenizer::{
    BufferQueue, EndTag, StartTag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
};
use html5ever::{ParseOpts, QualName, local_name, ns, parse_document, parse_fragment};
use markup5ever_rcdom::{Handle, NodeData, RcDom};
use serde_json::Value;
use std::cell::RefCell;

/// Elements that have no end tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Elements whose end tag HTML lets a writer leave out; a writer here still closes them, but
/// the parser, not this list, is the judge of those.
const OPTIONAL_END: &[&str] = &["html", "head", "body"];

/// The problems of an HTML fragment (what goes inside a `<body>`): parse errors, elements left
/// open or closed twice, scripts, event handlers, `javascript:` links, and anything loaded
/// from elsewhere (a `src` other than `cid:` or `data:`, a stylesheet link, a link to an
/// image). Empty when the fragment is sound.
pub fn html_problems(html: &str) -> Vec<String> {
    let dom = parse_fragment(
        RcDom::default(),
        ParseOpts::default(),
        QualName::new(None, ns!(html), local_name!("body")),
        Vec::new(),
        false,
    )
    .one(html);
    problems(&dom, html)
}

/// The problems of a whole HTML document (a mail's HTML part), as [`html_problems`].
pub fn document_problems(html: &str) -> Vec<String> {
    let dom = parse_document(RcDom::default(), ParseOpts::default()).one(html);
    problems(&dom, html)
}

fn problems(dom: &RcDom, html: &str) -> Vec<String> {
    let mut out: Vec<String> = dom
        .errors
        .borrow()
        .iter()
        .map(|e| format!("parse error: {e}"))
        .collect();
    out.extend(balance(html));
    walk(&dom.document, &mut |name, attrs| {
        if name == "script" {
            out.push("a <script> element".into());
        }
        if name == "link"
            && attrs
                .iter()
                .any(|(k, v)| k == "rel" && v.contains("stylesheet"))
        {
            out.push("a stylesheet loaded from elsewhere".into());
        }
        for (key, value) in attrs {
            let lower = value.trim().to_ascii_lowercase();
            if key.starts_with("on") {
                out.push(format!("an event handler {key} on <{name}>"));
            }
            if lower.starts_with("javascript:") {
                out.push(format!("a javascript: URL in <{name} {key}>"));
            }
            if (key == "src" || key == "srcset" || key == "background")
                && !(lower.starts_with("cid:") || lower.starts_with("data:"))
            {
                out.push(format!("<{name} {key}=\"{value}\"> loads from elsewhere"));
            }
            if key == "href"
                && [".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"]
                    .iter()
                    .any(|ext| lower.split(['?', '#']).next().unwrap_or("").ends_with(ext))
            {
                out.push(format!("<{name} href=\"{value}\"> links an image"));
            }
        }
    });
    out
}

/// An element's attributes as (name, value).
type Attrs = [(String, String)];

/// Visits every element with its name and attributes.
fn walk(node: &Handle, visit: &mut dyn FnMut(&str, &Attrs)) {
    if let NodeData::Element { name, attrs, .. } = &node.data {
        let attrs: Vec<(String, String)> = attrs
            .borrow()
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect();
        visit(&name.local, &attrs);
    }
    for child in node.children.borrow().iter() {
        walk(child, visit);
    }
}

/// Start and end tags as the tokenizer reads them, to find elements left open or closed out
/// of order (which a browser silently repairs).
#[derive(Default)]
struct Tags {
    open: RefCell<Vec<String>>,
    problems: RefCell<Vec<String>>,
}

impl TokenSink for Tags {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if let TagToken(tag) = token {
            let name = tag.name.to_string();
            if VOID.contains(&name.as_str()) || OPTIONAL_END.contains(&name.as_str()) {
                return TokenSinkResult::Continue;
            }
            let mut open = self.open.borrow_mut();
            match tag.kind {
                StartTag if !tag.self_closing => open.push(name),
                StartTag => self
                    .problems
                    .borrow_mut()
                    .push(format!("<{name}/> is no void element")),
                EndTag => match open.pop() {
                    Some(top) if top == name => {}
                    Some(top) => self
                        .problems
                        .borrow_mut()
                        .push(format!("</{name}> closes <{top}>")),
                    None => self
                        .problems
                        .borrow_mut()
                        .push(format!("</{name}> closes nothing")),
                },
            }
        }
        TokenSinkResult::Continue
    }
}

fn balance(html: &str) -> Vec<String> {
    let tokenizer = Tokenizer::new(Tags::default(), Default::default());
    let input = BufferQueue::default();
    input.push_back(html.into());
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let mut out = tokenizer.sink.problems.take();
    for name in tokenizer.sink.open.take() {
        out.push(format!("<{name}> is never closed"));
    }
    out
}

/// The text a reader sees in an HTML fragment, element boundaries as spaces.
pub fn html_text(html: &str) -> String {
    let dom = parse_fragment(
        RcDom::default(),
        ParseOpts::default(),
        QualName::new(None, ns!(html), local_name!("body")),
        Vec::new(),
        false,
    )
    .one(html);
    let mut out = String::new();
    text_of(&dom.document, &mut out);
    out
}

fn text_of(node: &Handle, out: &mut String) {
    match &node.data {
        NodeData::Text { contents } => out.push_str(&contents.borrow()),
        NodeData::Element { .. } => out.push(' '),
        _ => {}
    }
    for child in node.children.borrow().iter() {
        text_of(child, out);
    }
}

/// Every object key in a serialized view, nested ones included: the field names no position
/// may show.
pub fn field_names(view: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_keys(view, &mut out);
    out.sort();
    out.dedup();
    out
}

fn collect_keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                out.push(key.clone());
                collect_keys(item, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_keys(v, out)),
        _ => {}
    }
}

/// A field name as the generic writer labelled it: "hand_sizes" → "Hand sizes".
fn as_label(key: &str) -> String {
    let mut out = key.replace('_', " ");
    if let Some(first) = out.get(..1) {
        let upper = first.to_uppercase();
        out.replace_range(..1, &upper);
    }
    out
}

/// The problems of a position as words for people: a field name of `view` (a snake_case key
/// anywhere, or any key used as a line's label: "Phase: …"), brackets, a seat number, a
/// player not named, text longer than `max_chars`, and unsound HTML (see [`html_problems`]),
/// which must also use inline styles only (no classes, no style sheet).
pub fn position_problems(
    position: &Position,
    view: &Value,
    names: &[String],
    max_chars: Option<usize>,
) -> Vec<String> {
    let mut out = Vec::new();
    let html_words = html_text(&position.html);
    let keys = field_names(view);
    for (what, text) in [("text", &position.text), ("HTML", &html_words)] {
        for key in &keys {
            if key.contains('_') && text.contains(key.as_str()) {
                out.push(format!("the {what} shows the field name {key}"));
            }
            let label = format!("{}:", as_label(key));
            if text.lines().any(|l| l.trim_start().starts_with(&label))
                || text.contains(&format!(" {label}"))
            {
                out.push(format!("the {what} labels a line with the field {key}"));
            }
        }
        if text.contains('[') || text.contains(']') {
            out.push(format!("the {what} has brackets"));
        }
        let lower = text.to_lowercase();
        for (i, _) in lower.match_indices("seat ") {
            if lower[i + 5..].starts_with(|c: char| c.is_ascii_digit()) {
                out.push(format!("the {what} numbers a seat"));
            }
        }
        for name in names {
            if !text.contains(name.as_str()) {
                out.push(format!("the {what} never names {name}"));
            }
        }
    }
    if let Some(max) = max_chars
        && position.text.chars().count() > max
    {
        out.push(format!(
            "the text has {} characters, more than {max}",
            position.text.chars().count()
        ));
    }
    out.extend(html_problems(&position.html));
    if position.html.contains("class=") {
        out.push("the HTML relies on a style sheet's classes".into());
    }
    if position.html.contains("<style") {
        out.push("the HTML carries a style sheet".into());
    }
    out
}

/// Plays random games of `R` from `seeds` and, at every step, checks the position of every
/// seat, a spectator and an auditor with [`position_problems`] (the length limit for seats and
/// spectators; an auditor sees every hand). Returns the positions checked. Panics with the
/// seed, step, viewer and position on the first problem.
/// What is wrong with a game's `ending` for `outcome`: a winner not named, no "win" said
/// of a win, a seat placeholder or bracket left, an empty tally or a bare number in it
/// (a tally says what it counts: "7 points", "36 states").
pub fn ending_problems(
    ending: &super::Ending,
    outcome: &super::super::Outcome,
    names: &[String],
) -> Vec<String> {
    let mut found = Vec::new();
    let verdict = &ending.verdict;
    for &w in &outcome.winners {
        if !verdict.contains(names[w].as_str()) {
            found.push(format!("winner {} not named", names[w]));
        }
    }
    if !outcome.winners.is_empty() && !verdict.contains(" win") {
        found.push("a win not said".to_string());
    }
    if outcome.winners.is_empty() && !verdict.contains("Nobody wins") {
        found.push("no winner, not said".to_string());
    }
    if !verdict.ends_with('.') {
        found.push("the verdict is no sentence".to_string());
    }
    if ending.tally.is_empty() {
        found.push("no tally".to_string());
    }
    for (label, value) in &ending.tally {
        if label.is_empty() || !value.contains(' ') {
            found.push(format!("tally row {label:?}: {value:?}"));
        }
    }
    let all = std::iter::once(verdict.as_str()).chain(
        ending
            .tally
            .iter()
            .flat_map(|(l, v)| [l.as_str(), v.as_str()]),
    );
    for text in all {
        if text.contains("{s") || text.contains('[') || text.contains(']') {
            found.push(format!("a placeholder or bracket in {text:?}"));
        }
    }
    found
}

pub fn check_random_positions<R: super::super::Rules>(
    options: &R::Options,
    seats: usize,
    seeds: std::ops::Range<u64>,
    max_chars: usize,
) -> usize
where
    R::Options: Clone,
{
    use super::super::bot::{bot_rng, fill_at_random};
    use super::super::{Log, Match, Seed, Viewer};
    let names: Vec<String> = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][..seats]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let mut checked = 0;
    for n in seeds {
        let seed = Seed::from_number(n);
        for seat in 0..seats {
            let mut early = Match::<R>::new(options.clone(), seats, seed).expect("setup");
            let outcome = early.forfeit(seat);
            let view = R::view(&early.state, Viewer::Spectator);
            let ending = R::ending(&view, &outcome, &super::Names::new(&names));
            let found = ending_problems(&ending, &outcome, &names);
            assert!(found.is_empty(), "{} forfeit: {found:?}\n{ending:?}", R::ID);
        }
        let mut live = Match::<R>::new(options.clone(), seats, seed).expect("setup");
        let mut rng = bot_rng(&seed);
        for step in 0.. {
            let viewers = (0..seats)
                .map(Viewer::Seat)
                .chain([Viewer::Spectator, Viewer::Auditor]);
            for viewer in viewers {
                let view = R::view(&live.state, viewer);
                let json = serde_json::to_value(&view).expect("views serialize");
                let position = R::position(&view, &super::Names::new(&names));
                let limit = (viewer != Viewer::Auditor).then_some(max_chars);
                let found = position_problems(&position, &json, &names, limit);
                assert!(
                    found.is_empty(),
                    "{} seed {n} step {step}, {viewer:?}: {found:?}\n{}\n{}",
                    R::ID,
                    position.text,
                    position.html
                );
                checked += 1;
            }
            let active = R::active(&live.state);
            if let Some(outcome) = R::outcome(&live.state) {
                let view = R::view(&live.state, Viewer::Spectator);
                let ending = R::ending(&view, &outcome, &super::Names::new(&names));
                let found = ending_problems(&ending, &outcome, &names);
                assert!(
                    found.is_empty(),
                    "{} seed {n}: {found:?}\n{ending:?}",
                    R::ID
                );
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
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sound_html_passes_and_faults_are_named() {
        let good = r#"<table style="border: 0"><tr><th>Hand</th><td>A&amp;B <span style="color: red">Q♥</span></td></tr></table><p>x<br>y</p>"#;
        assert_eq!(html_problems(good), Vec::<String>::new());
        assert!(html_text(good).contains("A&B"));
        for (bad, why) in [
            ("<table><tr><td>x</td></tr>", "never closed"),
            ("<p><b>x</p></b>", "closes"),
            ("<script>alert(1)</script>", "script"),
            (r#"<img src="https://example.org/x.png">"#, "elsewhere"),
            (r#"<a href="x.png">x</a>"#, "image"),
            (r#"<span onclick="x()">x</span>"#, "event handler"),
            ("<td>x</td>", "parse error"),
            ("a < b &zz", "parse error"),
        ] {
            let found = html_problems(bad);
            assert!(
                found.iter().any(|p| p.contains(why)),
                "{bad}: {found:?} should mention {why}"
            );
        }
        assert!(
            document_problems(
                "<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>"
            )
            .is_empty()
        );
    }

    #[test]
    fn a_position_is_checked_for_field_names_seats_and_names() {
        let view = serde_json::json!({"hand_sizes": [1], "phase": "play", "last": {"high_bid": 3}});
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        let good = Position {
            text: "Ann bids 300. Bo to play.".into(),
            html: "<p>Ann bids 300. Bo to play.</p>".into(),
        };
        assert!(position_problems(&good, &view, &names, Some(100)).is_empty());
        let bad = Position {
            text: "Phase: play\nhigh_bid 3, seat 2 [x]".into(),
            html: r#"<p class="x">Ann</p>"#.into(),
        };
        let found = position_problems(&bad, &view, &names, Some(10));
        for why in [
            "field phase",
            "high_bid",
            "brackets",
            "numbers a seat",
            "never names Bo",
            "characters",
            "classes",
        ] {
            assert!(
                found.iter().any(|p| p.contains(why)),
                "{found:?} should mention {why}"
            );
        }
    }
}
