//! Cubes placed as a person writes them, from the words of a your-turn mail alone: the
//! question ("Place 8 cubes in all. At most 2 in any one state."), the states listed under
//! their regions ("West:", "  Arizona (AZ): purple or yellow, room for 1") and a follow-up
//! question naming its answers ("…, purple or yellow?").
#![allow(dead_code)]

use postplay::engine::GameRng;

/// One state as a placement lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    /// The region heading above it ("West").
    pub region: String,
    /// Its name ("Arizona").
    pub name: String,
    /// Its postal code ("AZ").
    pub code: String,
    /// The cubes it takes, one way each: "purple", "2 purple + 1 yellow".
    pub cubes: Vec<String>,
    /// The room the line states ("room for 1"), if any.
    pub room: Option<u32>,
}

/// The states of a placement's listed lines (headings "West:", then states indented).
pub fn states(lines: &[String]) -> Vec<Listed> {
    let mut region = String::new();
    let mut out = Vec::new();
    for line in lines {
        if let Some(state) = line.strip_prefix("  ") {
            let (name, rest) = state
                .split_once("): ")
                .expect("a state line: Name (XX): cubes");
            let (name, code) = name.split_once(" (").expect("a name and its code");
            let (cubes, room) = match rest.split_once(", room for ") {
                Some((cubes, room)) => (cubes, Some(room.parse().expect("a room"))),
                None => (rest, None),
            };
            let cubes = cubes
                .split(" or ")
                .flat_map(|c| c.split(", "))
                .map(str::to_string)
                .collect();
            out.push(Listed {
                region: region.clone(),
                name: name.to_string(),
                code: code.to_string(),
                cubes,
                room,
            });
        } else {
            region = line.trim_end_matches(':').to_string();
        }
    }
    out
}

/// Whether listed lines are a placement's (region headings above states).
pub fn is_placement(lines: &[String]) -> bool {
    lines.first().is_some_and(|l| l.ends_with(':')) && lines.iter().any(|l| l.contains("): "))
}

/// The first number in `words` ("Place 8 cubes in all": 8).
fn first_number(words: &str) -> Option<u32> {
    words
        .split(|c: char| !c.is_ascii_digit())
        .find_map(|w| w.parse().ok())
}

/// The number after `before` in `words` ("at most 2 in any one state" after "at most ": 2).
fn number_after(words: &str, before: &str) -> Option<u32> {
    let at = words.to_lowercase().find(before)?;
    first_number(&words[at + before.len()..])
}

/// The answers a follow-up question names at its end ("…, purple or yellow?").
pub fn answers(question: &str) -> Vec<String> {
    let asked = question.split('?').next().unwrap_or_default();
    let tail = asked.rsplit(", ").next().unwrap_or_default();
    tail.split(" or ").map(|w| w.trim().to_string()).collect()
}

/// One placement written as a person would, chosen at random within what the question says:
/// `by_code`, states by postal code with the count before and a colour word after them ("2
/// NY, NJ purple"); else by name with the count and colour after ("New York 2 purple").
pub fn placement(question: &str, lines: &[String], by_code: bool, rng: &mut GameRng) -> String {
    let total = first_number(question).expect("a placement's question says how many");
    let most = number_after(question, "at most ").unwrap_or(total);
    let per_region = question.contains("one state in each region");
    let mut states = states(lines);
    rng.shuffle(&mut states);
    if per_region {
        let mut seen: Vec<String> = Vec::new();
        states.retain(|s| {
            let first = !seen.contains(&s.region);
            seen.push(s.region.clone());
            first
        });
    }
    let name = |s: &Listed| {
        if by_code {
            s.code.clone()
        } else {
            s.name.clone()
        }
    };
    let lone = states
        .iter()
        .all(|s| s.cubes.iter().all(|c| !c.contains(char::is_whitespace)));
    if !lone {
        // Sets of cubes: one set in each of `total` states.
        let picked: Vec<String> = states
            .iter()
            .take(total as usize)
            .map(|s| {
                let set = &s.cubes[rng.index(s.cubes.len())];
                format!("{} {}", name(s), set.replace(" + ", " "))
            })
            .collect();
        return picked.join(", ");
    }
    // Counts at random within each state's room, then topped up to the total.
    let mut left = total;
    let mut counts = vec![0u32; states.len()];
    let room = |s: &Listed| s.room.unwrap_or(most).min(most);
    for (i, s) in states.iter().enumerate() {
        if left > 0 {
            counts[i] = 1 + rng.below(room(s).min(left));
            left -= counts[i];
        }
    }
    for (i, s) in states.iter().enumerate() {
        let more = (room(s) - counts[i]).min(left);
        counts[i] += more;
        left -= more;
    }
    let mut by_colour: Vec<(String, Vec<String>)> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    for (s, &n) in states.iter().zip(&counts) {
        if n == 0 {
            continue;
        }
        let colour = s.cubes[rng.index(s.cubes.len())].clone();
        if by_code {
            let item = if n == 1 {
                s.code.clone()
            } else {
                format!("{n} {}", s.code)
            };
            match by_colour.iter_mut().find(|(c, _)| *c == colour) {
                Some((_, list)) => list.push(item),
                None => by_colour.push((colour, vec![item])),
            }
        } else {
            items.push(format!("{} {n} {colour}", name(s)));
        }
    }
    for (colour, list) in by_colour {
        items.push(format!("{} {colour}", list.join(", ")));
    }
    items.join(", ")
}
