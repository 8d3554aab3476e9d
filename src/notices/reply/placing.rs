//! Cubes to place, in words both ways: a placement question summed up as a person says it
//! ("8 cubes in all, at most 2 in any one state"), its states listed under their headings
//! ("West", then "Arizona (AZ): purple or yellow"), an example reply, and a reply line read
//! back ("2 NY, 1 NJ purple", "AZ CA UT yellow", "New York 1 purple 1 yellow").

use crate::engine::choice::group_indices;
use crate::engine::{Param, ParamKind, PickOption};
use crate::notices::reply::words::{Part, head_and_parts, words};
use serde_json::Value;

/// Words a placement line may hold that say nothing of the cubes.
const FILLER: &[&str] = &["and", "&", "cube", "cubes", "in", "on", "to", "into", "at"];

/// The options, caps and groups of a placement parameter.
struct Placement<'a> {
    options: &'a [PickOption],
    caps: Vec<u32>,
    total: u32,
    /// Each option's group cap (its index in `groups`), if any.
    group_of: Vec<Option<usize>>,
    /// The groups' names and caps.
    groups: Vec<(&'a str, u32)>,
}

impl<'a> Placement<'a> {
    fn of(kind: &'a ParamKind) -> Option<Placement<'a>> {
        match kind {
            ParamKind::Distribute {
                options,
                total,
                max_each,
            } => Some(Placement {
                options,
                caps: vec![*max_each; options.len()],
                total: *total,
                group_of: vec![None; options.len()],
                groups: Vec::new(),
            }),
            ParamKind::Allot {
                options,
                total,
                caps,
                groups,
            } => Some(Placement {
                options,
                caps: caps.clone(),
                total: *total,
                group_of: group_indices(options, groups),
                groups: groups.iter().map(|g| (g.group.as_ref(), g.cap)).collect(),
            }),
            _ => None,
        }
    }

    /// The places (states) of the options, in the options' order.
    fn places(&self) -> Vec<Place> {
        let mut places: Vec<Place> = Vec::new();
        for (i, option) in self.options.iter().enumerate() {
            let place = Place::of(option);
            match places.iter_mut().find(|p| p.name == place.name) {
                Some(known) => known.options.push(i),
                None => places.push(Place {
                    options: vec![i],
                    ..place
                }),
            }
        }
        places
    }

    /// The most units one place takes: its options' caps, bounded by the caps of their groups.
    fn room(&self, place: &Place) -> u32 {
        let sum: u32 = place.options.iter().map(|&i| self.caps[i]).sum();
        place
            .options
            .iter()
            .filter_map(|&i| self.group_of[i])
            .map(|g| self.groups[g].1)
            .fold(sum, u32::min)
    }

    /// Whether every option is one cube of one colour.
    fn single_cubes(&self) -> bool {
        self.options
            .iter()
            .all(|o| matches!(parts(o).as_slice(), [(1, _)]))
    }

    /// The groups that are headings (regions), with their caps, when one of them binds (holds
    /// more room than its cap); none otherwise.
    fn heading_caps(&self, places: &[Place]) -> Vec<(&'a str, u32)> {
        let mut binds = false;
        let regions: Vec<(&'a str, u32)> = self
            .groups
            .iter()
            .enumerate()
            .filter(|(g, (name, cap))| {
                let held: Vec<&Place> = places
                    .iter()
                    .filter(|p| p.options.iter().any(|&i| self.group_of[i] == Some(*g)))
                    .collect();
                let open: u32 = held.iter().map(|p| self.room(p)).sum();
                let region = held.iter().all(|p| p.heading.as_deref() == Some(*name));
                binds |= region && *cap < open;
                region
            })
            .map(|(_, g)| *g)
            .collect();
        if binds { regions } else { Vec::new() }
    }

    /// The most units any one place takes, when that binds (less than the total).
    fn most_in_one(&self, places: &[Place]) -> Option<u32> {
        let most = places.iter().map(|p| self.room(p)).max()?;
        (most < self.total).then_some(most)
    }
}

/// A state (or other place) of a placement: the options that put cubes there.
#[derive(Debug, Clone)]
struct Place {
    /// Its name as printed ("New York").
    name: String,
    /// Its short code ("NY"), the options' value, if that is a short word.
    code: Option<String>,
    /// The heading it is listed under ("Northeast").
    heading: Option<String>,
    /// Its options' indices.
    options: Vec<usize>,
}

impl Place {
    fn of(option: &PickOption) -> Place {
        let name = option
            .label
            .split_once(':')
            .map_or(option.label.as_ref(), |(head, _)| head)
            .trim()
            .to_string();
        let code = option
            .value
            .as_str()
            .filter(|v| v.len() <= 4 && v.chars().all(|c| c.is_ascii_alphanumeric()))
            .map(str::to_uppercase);
        Place {
            name,
            code,
            heading: option.heading.as_deref().map(str::to_string),
            options: Vec::new(),
        }
    }

    /// How the place is written in an example: its code, else its name.
    fn short(&self) -> &str {
        match self.code.as_deref() {
            Some(code) if !FILLER.contains(&code.to_lowercase().as_str()) => code,
            _ => &self.name,
        }
    }
}

/// The cubes of an option by colour ("New York: 1 purple + 1 yellow": 1 purple, 1 yellow).
fn parts(option: &PickOption) -> Vec<Part> {
    head_and_parts(&option.label)
        .map(|(_, parts)| parts)
        .unwrap_or_default()
}

/// One option's cubes in words: a lone cube by its colour ("purple"), else its counts ("2
/// purple + 1 yellow").
fn cubes_words(option: &PickOption) -> String {
    match parts(option).as_slice() {
        [(1, colour)] => colour.clone(),
        parts => parts
            .iter()
            .map(|(n, c)| format!("{n} {c}"))
            .collect::<Vec<_>>()
            .join(" + "),
    }
}

/// Words joined as a list: "a", "a or b", "a, b or c".
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// A placement's rule summed up as a person says it ("At most 2 in any one state; one state
/// in each region"), when its question does not say it all; `None` for other kinds.
pub fn rule(kind: &ParamKind) -> Option<String> {
    let placement = Placement::of(kind)?;
    let places = placement.places();
    let mut said = Vec::new();
    if placement.single_cubes() {
        if let Some(most) = placement.most_in_one(&places) {
            said.push(format!("at most {most} in any one state"));
        }
    } else {
        said.push("one of the listed sets of cubes in each state you choose".to_string());
    }
    let regions = placement.heading_caps(&places);
    if let Some(&(_, cap)) = regions.first() {
        let all_one = regions.iter().all(|(_, c)| *c == 1);
        let every = regions.len() as u32 == placement.total;
        if all_one && every && !placement.single_cubes() {
            said.push("one state in each region".to_string());
        } else if regions.iter().all(|(_, c)| *c == cap) {
            said.push(format!("at most {cap} in any one region"));
        } else {
            let each: Vec<String> = regions
                .iter()
                .map(|(name, cap)| format!("{cap} in the {name}"))
                .collect();
            said.push(format!("at most {}", each.join(", ")));
        }
    }
    let mut text = said.join("; ");
    let first = text.chars().next()?;
    text.replace_range(..first.len_utf8(), &first.to_uppercase().to_string());
    Some(text)
}

/// The lines listing a placement's states under their headings: "West", then "  Arizona
/// (AZ): purple or yellow", with a state's room when it is less than the rule's most.
pub fn option_lines(kind: &ParamKind) -> Vec<String> {
    let Some(placement) = Placement::of(kind) else {
        return Vec::new();
    };
    let places = placement.places();
    let limit = if placement.single_cubes() {
        placement
            .most_in_one(&places)
            .unwrap_or(placement.total)
            .min(placement.total)
    } else {
        1
    };
    let mut lines = Vec::new();
    let mut heading: Option<&str> = None;
    for place in &places {
        let indent = if place.heading.is_some() { "  " } else { "" };
        if place.heading.is_some() && place.heading.as_deref() != heading {
            heading = place.heading.as_deref();
            lines.push(format!("{}:", heading.unwrap_or_default()));
        }
        let name = match &place.code {
            Some(code) => format!("{} ({code})", place.name),
            None => place.name.clone(),
        };
        let cubes: Vec<String> = place
            .options
            .iter()
            .map(|&i| cubes_words(&placement.options[i]))
            .collect();
        let room = placement.room(place);
        let room = if room < limit {
            format!(", room for {room}")
        } else {
            String::new()
        };
        lines.push(format!("{indent}{name}: {}{room}", or_list(&cubes)));
    }
    lines
}

/// Counts that fill a placement: greedily, each state in turn, within caps and groups.
fn greedy(placement: &Placement) -> Vec<u32> {
    let mut left = placement.total;
    let mut used = vec![0u32; placement.groups.len()];
    let mut counts = vec![0u32; placement.options.len()];
    for place in placement.places() {
        for &i in &place.options {
            let room = placement.group_of[i].map_or(u32::MAX, |g| placement.groups[g].1 - used[g]);
            let n = left.min(placement.caps[i]).min(room);
            counts[i] = n;
            left -= n;
            if let Some(g) = placement.group_of[i] {
                used[g] += n;
            }
        }
    }
    counts
}

/// The words of an example placing the cubes of `params` (several campaigners' at once):
/// "2 AZ, CA purple" or "NY 1 purple 1 yellow"; `None` when a parameter is no placement.
pub fn example(params: &[&Param]) -> Option<String> {
    let mut items: Vec<String> = Vec::new();
    for param in params {
        let placement = Placement::of(&param.kind)?;
        let counts = greedy(&placement);
        // Lone cubes by colour: "2 AZ, CA purple".
        let mut by_colour: Vec<(String, Vec<String>)> = Vec::new();
        for place in placement.places() {
            for &i in &place.options {
                let n = counts[i];
                if n == 0 {
                    continue;
                }
                match parts(&placement.options[i]).as_slice() {
                    [(m, colour)] => {
                        let cubes = n * m;
                        let item = if cubes == 1 || (n == 1 && *m > 1) {
                            place.short().to_string()
                        } else {
                            format!("{cubes} {}", place.short())
                        };
                        match by_colour.iter_mut().find(|(c, _)| c == colour) {
                            Some((_, list)) => list.push(item),
                            None => by_colour.push((colour.clone(), vec![item])),
                        }
                    }
                    _ => {
                        let cubes: Vec<String> = parts(&placement.options[i])
                            .iter()
                            .map(|(m, c)| format!("{} {c}", m * n))
                            .collect();
                        items.push(format!("{} {}", place.short(), cubes.join(" ")));
                    }
                }
            }
        }
        for (colour, list) in by_colour {
            items.push(format!("{} {colour}", list.join(", ")));
        }
    }
    Some(items.join(", "))
}

/// One state named in a line, and what the line says of its cubes.
#[derive(Debug)]
struct Item {
    /// The state's name, as printed.
    place: String,
    /// The words that named it, for a refusal.
    written: String,
    /// A count written with it ("2 NY", "NY 2").
    count: Option<u32>,
    /// Its cubes by colour ("purple" after it, "1 purple 1 yellow").
    colours: Vec<(Option<u32>, String)>,
}

/// The states of all the parameters, with the words that name each (code, name).
fn state_names(lists: &[Placement]) -> Vec<(Vec<String>, String)> {
    let mut names: Vec<(Vec<String>, String)> = Vec::new();
    for placement in lists {
        for place in placement.places() {
            let mut add = |w: Vec<String>| {
                if !w.is_empty() && !names.iter().any(|(n, _)| *n == w) {
                    names.push((w, place.name.clone()));
                }
            };
            if let Some(code) = &place.code {
                add(vec![code.to_lowercase()]);
            }
            add(words(&place.name));
        }
    }
    // The longest names first: "west virginia" before "virginia".
    names.sort_by_key(|(w, _)| std::cmp::Reverse(w.len()));
    names
}

/// The state named at the start of `tokens`, and how many tokens its name takes.
fn state_at<'n>(names: &'n [(Vec<String>, String)], tokens: &[String]) -> Option<(&'n str, usize)> {
    names
        .iter()
        .find(|(w, _)| tokens.starts_with(w))
        .map(|(w, place)| (place.as_str(), w.len()))
}

fn count_of(token: &str) -> Option<u32> {
    token.parse().ok()
}

/// The items of a placement line: states with their counts and colours.
fn items(
    tokens: &[String],
    names: &[(Vec<String>, String)],
    codes: &[(String, String, Vec<Part>)],
    colours: &[String],
) -> Result<Vec<Item>, String> {
    let mut items: Vec<Item> = Vec::new();
    let mut pending: Option<(u32, &str)> = None;
    // The item a count may still follow ("NY 2"), and the first item a colour word covers.
    let mut open: Option<usize> = None;
    let mut uncoloured = 0;
    let mut after_colour = false;
    let mut at = 0;
    while at < tokens.len() {
        let token = tokens[at].as_str();
        // "in" is a filler before a state ("2 in New York"), else Indiana's code.
        let filler = FILLER.contains(&token)
            && (state_at(names, &tokens[at..]).is_none()
                || state_at(names, &tokens[at + 1..]).is_some()
                || count_of(tokens.get(at + 1).map_or("", String::as_str)).is_some());
        if token == "," || filler {
            if token == "," {
                open = None;
            }
            at += 1;
            continue;
        }
        if let Some(n) = count_of(token) {
            let next = tokens.get(at + 1).map(String::as_str);
            let colour_next = next.is_some_and(|t| colours.iter().any(|c| c == t));
            if colour_next && after_colour && open.is_none() && !items.is_empty() {
                // "NY 2 purple 1 yellow": one more colour for the same state.
                let last = items.last_mut().expect("an item");
                last.colours.push((Some(n), tokens[at + 1].clone()));
                at += 2;
                continue;
            }
            let state_next = state_at(names, &tokens[at + 1..]).is_some();
            match open {
                Some(i) if !state_next || colour_next => {
                    items[i].count = Some(n);
                    open = None;
                }
                _ => {
                    if let Some((_, first)) = pending {
                        return Err(format!("\"{first} {token}\" names no state"));
                    }
                    pending = Some((n, token));
                }
            }
            after_colour = false;
            at += 1;
            continue;
        }
        if colours.iter().any(|c| c == token) {
            let covered = &mut items[uncoloured..];
            if covered.is_empty() || pending.is_some() {
                return Err(format!("\"{token}\" follows no state to place it in"));
            }
            for item in covered {
                if item.colours.is_empty() {
                    item.colours.push((item.count, token.to_string()));
                }
            }
            uncoloured = items.len();
            open = None;
            after_colour = true;
            at += 1;
            continue;
        }
        // An option's own code ("NY-P", "NY-P=2", "2 NY-2P"): its state and cubes.
        let (name, given) = match token.split_once('=') {
            Some((name, n)) => (name, count_of(n)),
            None => (token, None),
        };
        if let Some((place, cubes)) = codes
            .iter()
            .find(|(code, _, _)| code == name)
            .map(|(_, p, c)| (p, c))
        {
            let units = given.or(pending.take().map(|(n, _)| n)).unwrap_or(1);
            items.push(Item {
                place: place.clone(),
                written: token.to_string(),
                count: None,
                colours: cubes
                    .iter()
                    .map(|(m, c)| (Some(m * units), c.clone()))
                    .collect(),
            });
            uncoloured = items.len();
            open = None;
            after_colour = false;
            at += 1;
            continue;
        }
        // "CA=2": a state and its count in one word.
        if let Some((name, n)) = token.split_once('=')
            && let (Some((place, 1)), Some(n)) = (state_at(names, &[name.to_string()]), count_of(n))
        {
            items.push(Item {
                place: place.to_string(),
                written: token.to_string(),
                count: Some(n),
                colours: Vec::new(),
            });
            open = None;
            after_colour = false;
            at += 1;
            continue;
        }
        let Some((place, span)) = state_at(names, &tokens[at..]) else {
            return Err(format!(
                "\"{token}\" is neither a state you may place in, a colour nor a count"
            ));
        };
        let written = tokens[at..at + span].join(" ");
        let count = pending.take().map(|(n, _)| n);
        items.push(Item {
            place: place.to_string(),
            written,
            count,
            colours: Vec::new(),
        });
        open = count.is_none().then_some(items.len() - 1);
        after_colour = false;
        at += span;
    }
    if let Some((_, n)) = pending {
        return Err(format!("\"{n}\" is followed by no state"));
    }
    Ok(items)
}

/// Reads the cubes of `params` (one or several placements of one choice, such as two
/// campaigners' cubes) from all of `tokens`. A state is named by its postal code or its name,
/// a count before or after it, a colour word after one or several states ("2 NY, 1 NJ
/// purple"; "AZ CA UT yellow"); a state whose cubes can be of one colour only needs none. A
/// state offered by several parameters fills the first to its total, then the next. Returns
/// each parameter's counts and the placement in words, or why the line cannot be read.
pub fn place(params: &[&Param], tokens: &[String]) -> Result<(Vec<Value>, String), String> {
    let lists: Vec<Placement> = params
        .iter()
        .filter_map(|p| Placement::of(&p.kind))
        .collect();
    let names = state_names(&lists);
    let mut colours: Vec<String> = Vec::new();
    for placement in &lists {
        for option in placement.options {
            for (_, c) in parts(option) {
                if !colours.contains(&c) {
                    colours.push(c);
                }
            }
        }
    }
    // Every option of a state, over all the parameters.
    let holders = |place: &str| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (p, placement) in lists.iter().enumerate() {
            for (i, option) in placement.options.iter().enumerate() {
                if Place::of(option).name == place {
                    out.push((p, i));
                }
            }
        }
        out
    };
    let codes: Vec<(String, String, Vec<Part>)> = lists
        .iter()
        .flat_map(|l| l.options.iter())
        .filter_map(|o| {
            Some((
                o.code.as_deref()?.to_lowercase(),
                Place::of(o).name,
                parts(o),
            ))
        })
        .collect();
    let items = items(tokens, &names, &codes, &colours)?;
    if items.is_empty() {
        return Err("the line names no state to place cubes in".to_string());
    }
    let mut counts: Vec<Vec<u32>> = lists.iter().map(|l| vec![0; l.options.len()]).collect();
    for item in items {
        let held = holders(&item.place);
        let offered: Vec<String> = {
            let mut words: Vec<String> = Vec::new();
            for &(p, i) in &held {
                let w = cubes_words(&lists[p].options[i]);
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            words
        };
        let mut wanted = item.colours.clone();
        // A place whose options hold no colours ("Texas"): counted as written.
        if wanted.is_empty()
            && held
                .iter()
                .all(|&(p, i)| parts(&lists[p].options[i]).is_empty())
        {
            wanted.push((item.count, String::new()));
        }
        if wanted.is_empty() {
            let mut single: Vec<String> = Vec::new();
            for &(p, i) in &held {
                if let [(_, c)] = parts(&lists[p].options[i]).as_slice()
                    && !single.contains(c)
                {
                    single.push(c.clone());
                }
            }
            match (single.as_slice(), offered.len()) {
                ([c], 1) => wanted.push((item.count, c.to_string())),
                _ => {
                    return Err(format!(
                        "\"{}\" says no colour: write {} after it",
                        item.written,
                        or_list(&offered)
                    ));
                }
            }
        }
        let fits = |(p, i): (usize, usize), want: &[(Option<u32>, String)]| -> Option<u32> {
            let have = parts(&lists[p].options[i]);
            if have.is_empty() && matches!(want, [(_, c)] if c.is_empty()) {
                return Some(want[0].0.unwrap_or(1));
            }
            if have.len() != want.len() {
                return None;
            }
            let mut times: Option<u32> = None;
            for (n, c) in want {
                let (m, _) = have.iter().find(|(_, hc)| hc == c)?;
                let t = match n {
                    Some(n) if n % m == 0 && *n > 0 => n / m,
                    Some(_) => return None,
                    None => 1,
                };
                if times.is_some_and(|x| x != t) {
                    return None;
                }
                times = Some(t);
            }
            times
        };
        // The cubes as one set ("1 purple 1 yellow"), else colour by colour.
        let mut asked: Vec<(Vec<(usize, usize)>, u32)> = Vec::new();
        let whole: Vec<(usize, usize)> = held
            .iter()
            .copied()
            .filter(|&h| fits(h, &wanted).is_some())
            .collect();
        if let Some(&first) = whole.first() {
            let label = &lists[first.0].options[first.1].label;
            let same: Vec<(usize, usize)> = whole
                .iter()
                .copied()
                .filter(|&(p, i)| lists[p].options[i].label == *label)
                .collect();
            let times = fits(first, &wanted).unwrap_or(1);
            asked.push((same, times));
        } else {
            for want in &wanted {
                let one = std::slice::from_ref(want);
                let found: Vec<(usize, usize)> = held
                    .iter()
                    .copied()
                    .filter(|&h| fits(h, one).is_some())
                    .collect();
                let Some(&first) = found.first() else {
                    let said = match want.0 {
                        Some(n) => format!("{n} {}", want.1),
                        None => want.1.clone(),
                    };
                    return Err(format!(
                        "\"{}\" takes {}, not {said}",
                        item.written,
                        or_list(&offered)
                    ));
                };
                let label = &lists[first.0].options[first.1].label;
                let same = found
                    .iter()
                    .copied()
                    .filter(|&(p, i)| lists[p].options[i].label == *label)
                    .collect();
                asked.push((same, fits(first, one).unwrap_or(1)));
            }
        }
        for (same, mut units) in asked {
            for (k, &(p, i)) in same.iter().enumerate() {
                let placement = &lists[p];
                let placed: u32 = counts[p].iter().sum();
                let room = placement.caps[i]
                    .saturating_sub(counts[p][i])
                    .min(placement.total.saturating_sub(placed));
                let n = if k + 1 == same.len() {
                    units
                } else {
                    units.min(room)
                };
                counts[p][i] += n;
                units -= n;
            }
        }
    }
    let mut said = Vec::new();
    for (p, placement) in lists.iter().enumerate() {
        for (option, n) in placement.options.iter().zip(&counts[p]) {
            if *n > 0 {
                said.push(format!("{} ×{n}", option.label));
            }
        }
    }
    let values = counts
        .into_iter()
        .map(|c| Value::Array(c.into_iter().map(Value::from).collect()))
        .collect();
    Ok((values, said.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::GroupCap;
    use crate::notices::reply::words::tokens;

    fn single(code: &str, name: &str, colour: &str, heading: &str) -> PickOption {
        PickOption::new(code, format!("{name}: 1 {colour}")).under(heading.to_string())
    }

    /// The Suffragist's general placement: purple or yellow in each state, a state's two
    /// colours sharing its cap.
    fn suffragist(total: u32) -> Param {
        let states = [
            ("AZ", "Arizona", "West"),
            ("CA", "California", "West"),
            ("UT", "Utah", "West"),
            ("NY", "New York", "Northeast"),
            ("NJ", "New Jersey", "Atlantic & Appalachia"),
            ("VA", "Virginia", "Atlantic & Appalachia"),
            ("WV", "West Virginia", "Atlantic & Appalachia"),
        ];
        let mut options = Vec::new();
        let mut caps = Vec::new();
        let mut groups = Vec::new();
        for (code, name, region) in states {
            for colour in ["purple", "yellow"] {
                options.push(single(code, name, colour, region).grouped(code.to_string()));
                caps.push(2);
            }
            groups.push(GroupCap {
                group: code.into(),
                cap: if code == "UT" { 1 } else { 2 },
            });
        }
        Param {
            field: "cubes".into(),
            prompt: format!("Place {total} cubes in all").into(),
            kind: ParamKind::Allot {
                options,
                total,
                caps,
                groups,
            },
        }
    }

    fn read(params: &[&Param], line: &str) -> Result<Vec<Value>, String> {
        place(params, &tokens(line)).map(|(v, _)| v)
    }

    /// The counts of `param` named by code and colour.
    fn counts(param: &Param, named: &[(&str, &str, u32)]) -> Value {
        let Some(placement) = Placement::of(&param.kind) else {
            panic!("a placement");
        };
        let out: Vec<u32> = placement
            .options
            .iter()
            .map(|o| {
                named
                    .iter()
                    .find(|(code, colour, _)| {
                        o.value.as_str() == Some(*code) && parts(o) == vec![(1, colour.to_string())]
                    })
                    .map_or(0, |(_, _, n)| *n)
            })
            .collect();
        serde_json::json!(out)
    }

    #[test]
    fn the_forms_a_person_writes_are_read() {
        let p = suffragist(3);
        let purple = counts(&p, &[("NY", "purple", 2), ("NJ", "purple", 1)]);
        for line in [
            "2 NY, 1 NJ purple",
            "NY 2, NJ 1 purple",
            "2 New York, New Jersey purple",
            "ny 2 purple, nj 1 purple",
            "2 cubes in New York and 1 in New Jersey, purple",
        ] {
            assert_eq!(read(&[&p], line), Ok(vec![purple.clone()]), "{line}");
        }
        let yellow = counts(
            &p,
            &[
                ("AZ", "yellow", 1),
                ("CA", "yellow", 1),
                ("UT", "yellow", 1),
            ],
        );
        assert_eq!(read(&[&p], "AZ CA UT yellow"), Ok(vec![yellow]));
        let mixed = counts(
            &p,
            &[
                ("NY", "purple", 1),
                ("NY", "yellow", 1),
                ("VA", "purple", 1),
            ],
        );
        assert_eq!(
            read(&[&p], "New York 1 purple 1 yellow, VA purple"),
            Ok(vec![mixed])
        );
        // "West Virginia" is not "West" nor "Virginia".
        let wv = counts(&p, &[("WV", "yellow", 2), ("VA", "yellow", 1)]);
        assert_eq!(
            read(&[&p], "2 west virginia, virginia yellow"),
            Ok(vec![wv])
        );
    }

    #[test]
    fn lines_that_cannot_be_read_say_why() {
        let p = suffragist(3);
        for (line, why) in [
            (
                "2 NY, 1 NJ",
                "\"ny\" says no colour: write purple or yellow",
            ),
            ("2 NY, 1 TX purple", "\"tx\" is neither a state"),
            ("purple NY", "\"purple\" follows no state"),
            (
                "NY red",
                "\"red\" is neither a state you may place in, a colour nor a count",
            ),
            ("NY purple 2", "\"2\" is followed by no state"),
        ] {
            let e = read(&[&p], line).unwrap_err();
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn several_campaigners_in_one_line() {
        let campaigner = |colour: &str, states: &[(&str, &str, &str)], total: u32| Param {
            field: "c".into(),
            prompt: format!("Campaigner: {total} cubes").into(),
            kind: ParamKind::Allot {
                options: states
                    .iter()
                    .map(|(c, n, h)| single(c, n, colour, h))
                    .collect(),
                total,
                caps: vec![total; states.len()],
                groups: Vec::new(),
            },
        };
        let west = [("AZ", "Arizona", "West"), ("CA", "California", "West")];
        let east = [("NY", "New York", "Northeast")];
        let c1 = campaigner("red", &west, 2);
        let c2 = campaigner("red", &east, 1);
        // One colour only: no colour word is needed, and one may still be written.
        for line in [
            "AZ CA NY",
            "AZ, CA, NY red",
            "1 Arizona 1 California 1 New York",
        ] {
            assert_eq!(
                read(&[&c1, &c2], line),
                Ok(vec![serde_json::json!([1, 1]), serde_json::json!([1])]),
                "{line}"
            );
        }
        // Two campaigners in one region: the first takes its total, the next the rest.
        let c3 = campaigner("red", &west, 1);
        assert_eq!(
            read(&[&c1, &c3], "3 AZ"),
            Ok(vec![serde_json::json!([2, 0]), serde_json::json!([1, 0])])
        );
    }

    #[test]
    fn bundles_are_read_by_their_colours() {
        let bundle = |code: &str, name: &str, region: &str| -> Vec<PickOption> {
            (0..=2)
                .map(|yellow| {
                    let purple = 2 - yellow;
                    let label = match (purple, yellow) {
                        (p, 0) => format!("{name}: {p} purple"),
                        (0, y) => format!("{name}: {y} yellow"),
                        (p, y) => format!("{name}: {p} purple + {y} yellow"),
                    };
                    PickOption::new(code, label)
                        .under(region.to_string())
                        .grouped(region.to_string())
                })
                .collect()
        };
        let options: Vec<PickOption> = [
            bundle("AZ", "Arizona", "West"),
            bundle("CA", "California", "West"),
            bundle("NY", "New York", "Northeast"),
        ]
        .concat();
        let p = Param {
            field: "cubes".into(),
            prompt: "Place cubes in 2 states".into(),
            kind: ParamKind::Allot {
                caps: vec![1; options.len()],
                options,
                total: 2,
                groups: vec![
                    GroupCap {
                        group: "West".into(),
                        cap: 1,
                    },
                    GroupCap {
                        group: "Northeast".into(),
                        cap: 1,
                    },
                ],
            },
        };
        assert_eq!(
            read(&[&p], "AZ 1 purple 1 yellow, NY yellow"),
            Ok(vec![serde_json::json!([0, 1, 0, 0, 0, 0, 0, 0, 1])])
        );
        assert_eq!(
            rule(&p.kind).as_deref(),
            Some(
                "One of the listed sets of cubes in each state you choose; one state in each region"
            )
        );
        let lines = option_lines(&p.kind);
        assert_eq!(lines[0], "West:");
        assert_eq!(
            lines[1],
            "  Arizona (AZ): 2 purple, 1 purple + 1 yellow or 2 yellow"
        );
        let example = example(&[&p]).unwrap();
        assert_eq!(read(&[&p], &example).map(|_| ()), Ok(()), "{example}");
    }

    #[test]
    fn the_question_is_summed_up_and_listed_under_regions() {
        let p = suffragist(8);
        assert_eq!(rule(&p.kind).as_deref(), Some("At most 2 in any one state"));
        let lines = option_lines(&p.kind);
        assert_eq!(
            lines[..4],
            [
                "West:",
                "  Arizona (AZ): purple or yellow",
                "  California (CA): purple or yellow",
                "  Utah (UT): purple or yellow, room for 1",
            ]
        );
        assert!(lines.contains(&"Northeast:".to_string()));
        let example = example(&[&p]).unwrap();
        assert_eq!(example, "2 AZ, 2 CA, UT, 2 NY, NJ purple");
        let read_back = read(&[&p], &example).unwrap();
        let sum: u64 = read_back[0]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(sum, 8);
    }
}
