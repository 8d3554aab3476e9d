//! The seat's moves drawn on the Votes for Women board, from the game's own choices: a
//! placement (or removal) of cubes as labelled rows a state that the map's taps fill in, and
//! each card of the hand with the uses open to it. The forms post what the generic forms post
//! (`choice`, `p0`, `p0_3`), so the command is the one the engine offers.

use crate::engine::{Choice, ParamKind, PickOption};
use crate::games::votes_for_women::present::{colour_word, cubes_words};
use crate::games::votes_for_women::{CardView, Region, View};

/// What every form of the board posts besides its fields.
pub struct FormHead {
    /// Where it posts.
    pub post_url: String,
    /// The CSRF token.
    pub csrf: String,
    /// The log head the page shows.
    pub head: i64,
}

/// The command types the board draws: playing a hand card, placing, removing, and handing the
/// dice to the campaigners (each with its cubes to place).
fn drawn_type(choice: &Choice) -> bool {
    let kind = choice.command["type"].as_str().unwrap_or_default();
    match kind {
        "play" => matches!(&choice.params[..], [p] if matches!(p.kind, ParamKind::One { .. })),
        "move" => {
            matches!(&choice.params[..], [p] if p.field == "region" && matches!(p.kind, ParamKind::One { .. }))
        }
        "place" | "remove" | "assign" => {
            let allots = match choice.params.last() {
                Some(p) if p.field == "takes" => &choice.params[..choice.params.len() - 1],
                _ => &choice.params[..],
            };
            !allots.is_empty()
                && allots
                    .iter()
                    .all(|p| matches!(p.kind, ParamKind::Allot { .. }))
        }
        _ => false,
    }
}

/// The indices of the choices the board draws.
pub fn drawn(choices: &[Choice]) -> Vec<usize> {
    (0..choices.len())
        .filter(|&i| drawn_type(&choices[i]))
        .collect()
}

/// One count to fill in: an option of an allotment.
pub struct Input {
    /// The form field (`p0_3`).
    pub name: String,
    /// What it places, in words ("purple", "1 purple, 1 yellow").
    pub label: String,
    /// The most on it.
    pub cap: u32,
    /// The parameter it belongs to (0, 1...).
    pub param: usize,
    /// Its group's name, if a group cap holds it.
    pub group: String,
    /// The colours it places, as the script prefers them: "purple", "yellow", "red", "mixed".
    pub colour: &'static str,
}

/// A state's row: its name and region, its cubes now, and its counts.
pub struct Row {
    /// Postal code.
    pub code: String,
    /// "New York (Northeast)".
    pub name: String,
    /// Its cubes now, in words (empty when none).
    pub has: String,
    /// Its counts.
    pub inputs: Vec<Input>,
}

/// One allotment of the placement (one campaigner's cubes, or the whole placement).
pub struct PlaceParam {
    /// Its question.
    pub prompt: String,
    /// Group caps that bind, as JSON for the script (`{"West":1}`).
    pub groups: String,
    /// Those caps in words: "at most 1 in West".
    pub rule: String,
}

/// A way to hand out the dice, where there are several.
pub struct Assignment {
    /// The choice's index.
    pub index: usize,
    /// Its words.
    pub label: String,
    /// The cubes of each allotment under it, comma-separated, for the script.
    pub totals: String,
    /// The die each campaigner takes under it, in the order of [`Placement::way_heads`].
    pub dice: Vec<String>,
}

/// The placement drawn on the map.
pub struct Placement {
    /// The choice sent when there is one way only.
    pub choice: Option<usize>,
    /// The ways to hand out the dice, where there are several (a radio each).
    pub assignments: Vec<Assignment>,
    /// The campaigners the ways give dice to ("Purple in the Plains"), a column each.
    pub way_heads: Vec<String>,
    /// Each allotment's total, comma-separated (one way only).
    pub totals: String,
    /// The cubes to place, in words (one way only): "4 cubes".
    pub total_words: String,
    /// The allotments.
    pub params: Vec<PlaceParam>,
    /// A row a state that may take cubes.
    pub rows: Vec<Row>,
    /// "Place" or "Remove".
    pub verb: &'static str,
    /// The submit button's words.
    pub button: String,
    /// The Opposition's question of which colour its red cubes take, where it is asked.
    pub takes: Option<Takes>,
}

/// The Opposition's question of which Suffragist colour its red cubes remove first.
pub struct Takes {
    /// The form field (`p2`).
    pub name: String,
    /// The question.
    pub prompt: String,
    /// The answers, in the order of their option indices.
    pub options: Vec<String>,
}

fn plural(n: u32) -> String {
    if n == 1 {
        "1 cube".to_string()
    } else {
        format!("{n} cubes")
    }
}

/// A campaigner's question without its count of cubes, which depends on the die it takes:
/// "Purple campaigner: 2 cubes in the Plains" → "Purple campaigner in the Plains".
fn without_count(prompt: &str) -> String {
    match prompt.split_once(": ") {
        Some((who, rest)) => match rest.split_once(" in the ") {
            Some((_, region)) => format!("{who} in the {region}"),
            None => who.to_string(),
        },
        None => prompt.to_string(),
    }
}

/// What an option places, from its label ("New York: 2 purple" → "2 purple").
fn unit_words(option: &PickOption) -> String {
    match option.label.split_once(": ") {
        Some((_, words)) => words.to_string(),
        None => option.label.to_string(),
    }
}

fn colour_of(words: &str) -> &'static str {
    let has = |c| words.contains(c);
    match (has("purple"), has("yellow"), has("red")) {
        (true, false, false) => "purple",
        (false, true, false) => "yellow",
        (false, false, true) => "red",
        _ => "mixed",
    }
}

/// The placement among `choices` (those of `drawn` that place, remove or hand out dice), as
/// rows a state in the map's order.
pub fn placement(v: &View, choices: &[Choice], drawn: &[usize]) -> Option<Placement> {
    let ways: Vec<usize> = drawn
        .iter()
        .copied()
        .filter(|&i| {
            matches!(
                choices[i].command["type"].as_str(),
                Some("place" | "remove" | "assign")
            )
        })
        .collect();
    let first = &choices[*ways.first()?];
    let totals_of = |c: &Choice| -> Vec<u32> {
        c.params
            .iter()
            .map(|p| match p.kind {
                ParamKind::Allot { total, .. } => total,
                _ => 0,
            })
            .collect()
    };
    let joined = |t: &[u32]| t.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    // The options of each allotment are the same under every way (a campaigner's region's
    // states with room); a cap is the largest under any way, the totals bound the rest.
    let mut rows: Vec<Row> = Vec::new();
    let mut params = Vec::new();
    for (i, p) in first.params.iter().enumerate() {
        let ParamKind::Allot {
            options,
            caps,
            groups,
            ..
        } = &p.kind
        else {
            continue;
        };
        let binding: Vec<(String, u32)> = groups
            .iter()
            .filter(|g| {
                let open: u32 = options
                    .iter()
                    .zip(caps)
                    .filter(|(o, _)| o.group.as_deref() == Some(g.group.as_ref()))
                    .map(|(_, c)| *c)
                    .sum();
                g.cap < open
            })
            .map(|g| (g.group.to_string(), g.cap))
            .collect();
        params.push(PlaceParam {
            // Where the ways hand out different dice, the count changes with the way chosen:
            // the words name the campaigner only, and the tally under them counts.
            prompt: if ways.len() > 1 {
                without_count(&p.prompt)
            } else {
                p.prompt.to_string()
            },
            groups: serde_json::to_string(
                &binding
                    .iter()
                    .map(|(g, c)| (g.clone(), *c))
                    .collect::<std::collections::BTreeMap<_, _>>(),
            )
            .unwrap_or_default(),
            rule: binding
                .iter()
                .map(|(g, c)| format!("at most {} in {g}", plural(*c)))
                .collect::<Vec<_>>()
                .join(", "),
        });
        for (j, o) in options.iter().enumerate() {
            let Some(code) = o.value.as_str() else {
                continue;
            };
            let cap = ways
                .iter()
                .filter_map(|&w| match &choices[w].params.get(i)?.kind {
                    ParamKind::Allot { caps, .. } => caps.get(j).copied(),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            let words = unit_words(o);
            let input = Input {
                name: format!("p{i}_{j}"),
                colour: colour_of(&words),
                label: words,
                cap,
                param: i,
                group: o
                    .group
                    .as_deref()
                    .filter(|g| binding.iter().any(|(b, _)| b == g))
                    .unwrap_or_default()
                    .to_string(),
            };
            match rows.iter_mut().find(|r| r.code == code) {
                Some(row) => row.inputs.push(input),
                None => {
                    let Some(s) = v.states.iter().find(|s| s.code == code) else {
                        continue;
                    };
                    let has = cubes_words(s);
                    rows.push(Row {
                        code: code.to_string(),
                        name: format!("{} ({})", s.name, s.region.name()),
                        has,
                        inputs: vec![input],
                    });
                }
            }
        }
    }
    // Two counts of one row with the same words (two red campaigners in one region) say
    // whose they are.
    for row in &mut rows {
        for k in 0..row.inputs.len() {
            if row.inputs[..k]
                .iter()
                .any(|o| o.label == row.inputs[k].label)
            {
                for input in &mut row.inputs {
                    if !input.label.contains("campaigner") && first.params.len() > 1 {
                        input.label = format!("{} (campaigner {})", input.label, input.param + 1);
                    }
                }
                break;
            }
        }
    }
    let order = |code: &str| v.states.iter().position(|s| s.code == code);
    rows.sort_by_key(|r| order(&r.code));
    let kind = first.command["type"].as_str().unwrap_or_default();
    let verb = if kind == "remove" { "Remove" } else { "Place" };
    let totals = totals_of(first);
    let assignments = if ways.len() > 1 {
        ways.iter()
            .map(|&w| {
                let t = totals_of(&choices[w]);
                let label = choices[w].label.trim_start_matches("Place cubes: ");
                Assignment {
                    index: w,
                    label: label.to_string(),
                    totals: joined(&t),
                    dice: label
                        .split("; ")
                        .map(|part| {
                            part.rsplit_once(" takes ")
                                .map_or("", |(_, d)| d)
                                .to_string()
                        })
                        .collect(),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let takes = first
        .params
        .iter()
        .enumerate()
        .find(|(_, p)| p.field == "takes")
        .and_then(|(i, p)| match &p.kind {
            ParamKind::One { options } => Some(Takes {
                name: format!("p{i}"),
                prompt: p.prompt.to_string(),
                options: options.iter().map(|o| o.label.to_string()).collect(),
            }),
            _ => None,
        });
    let way_heads = match ways.first() {
        Some(&w) if ways.len() > 1 => choices[w]
            .label
            .trim_start_matches("Place cubes: ")
            .split("; ")
            .map(|part| {
                part.rsplit_once(" takes ")
                    .map_or(part, |(who, _)| who)
                    .to_string()
            })
            .collect(),
        _ => Vec::new(),
    };
    Some(Placement {
        way_heads,
        takes,
        choice: (ways.len() == 1).then_some(ways[0]),
        assignments,
        total_words: plural(totals.iter().sum()),
        totals: joined(&totals),
        params,
        rows,
        verb,
        button: if kind == "assign" {
            "Place the cubes".to_string()
        } else {
            first.label.to_string()
        },
    })
}

/// One use of a card of the hand: a button of the form of the choice that plays it so.
pub struct Use {
    /// The choice's index (its form is `use-N`).
    pub choice: usize,
    /// The card's option index in that choice.
    pub option: usize,
    /// "Event", "Campaigning", "Organizing", "Lobbying", "Discard".
    pub word: &'static str,
}

/// The play choices of the hand (their forms) and, for each card of `hand`, its uses.
pub fn hand_uses(choices: &[Choice], hand: &[CardView]) -> (Vec<usize>, Vec<Vec<Use>>) {
    let plays: Vec<usize> = (0..choices.len())
        .filter(|&i| choices[i].command["type"] == "play" && drawn_type(&choices[i]))
        .collect();
    let uses = hand
        .iter()
        .map(|card| {
            plays
                .iter()
                .filter_map(|&i| {
                    let ParamKind::One { options } = &choices[i].params[0].kind else {
                        return None;
                    };
                    let option = options
                        .iter()
                        .position(|o| o.value.as_u64() == Some(u64::from(card.id)))?;
                    let word = match choices[i].command["action"].as_str() {
                        Some("event") => "Event",
                        Some("campaign") => "Campaigning",
                        Some("organize") => "Organizing",
                        Some("lobby") => "Lobbying",
                        _ => "Discard",
                    };
                    Some(Use {
                        choice: i,
                        option,
                        word,
                    })
                })
                .collect()
        })
        .collect();
    (plays, uses)
}

/// A region in the legend under the map: the colour of its tiles, its name and its
/// campaigners.
pub struct RegionKey {
    /// The class that colours its swatch as its tiles.
    pub class: &'static str,
    /// Its name.
    pub name: &'static str,
    /// Its campaigners in words ("purple and red campaigners"), empty when none.
    pub campaigners: String,
}

/// Every region for the legend under the map, in the rules' order.
pub fn region_keys(v: &View) -> Vec<RegionKey> {
    Region::ALL
        .into_iter()
        .map(|region| {
            let colours: Vec<&str> = v
                .campaigners
                .iter()
                .filter(|c| c.region == region)
                .map(|c| colour_word(c.colour))
                .collect();
            RegionKey {
                class: super::map::region_class(region),
                name: region.name(),
                campaigners: match colours.len() {
                    0 => String::new(),
                    1 => format!("{} campaigner", colours[0]),
                    _ => format!("{} campaigners", colours.join(" and ")),
                },
            }
        })
        .collect()
}

/// A campaigner's paid move, drawn as one compact line: its form's choice, what it moves
/// ("Move the Purple campaigner from the Plains") and the regions it may go to.
pub struct CampaignerMove {
    /// The choice's index.
    pub choice: usize,
    /// The move in words, without its price.
    pub label: String,
    /// The regions, in the order of their option indices.
    pub regions: Vec<String>,
}

/// The campaigners' paid moves among the choices.
pub fn campaigner_moves(choices: &[Choice]) -> Vec<CampaignerMove> {
    (0..choices.len())
        .filter(|&i| choices[i].command["type"] == "move" && drawn_type(&choices[i]))
        .filter_map(|i| {
            let ParamKind::One { options } = &choices[i].params[0].kind else {
                return None;
            };
            Some(CampaignerMove {
                choice: i,
                label: choices[i].label.trim_end_matches(" (1 button)").to_string(),
                regions: options.iter().map(|o| o.label.to_string()).collect(),
            })
        })
        .collect()
}
