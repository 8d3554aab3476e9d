//! The Votes for Women map, drawn on the server as one SVG: a tile a state, placed by region
//! roughly where the state lies (no outlines), each tile with its cubes, check or X and
//! face-up State card, and each region's campaigners in an empty cell beside its states (the
//! regions' names are in the legend under the map, [`legend`]: on a phone a name on the map
//! could not be both readable and clear of the states). When the seat is to place or remove
//! cubes, the same map is the control: a tap on a state changes the counts of the labelled
//! rows below it (static/map.js); without JavaScript the rows are the control.

use crate::engine::present::esc;
use crate::games::votes_for_women::present::colour_word;
use crate::games::votes_for_women::{Region, StateView, View};
use std::fmt::Write;

/// Width and height of a cell of the map's grid, in the SVG's units (on a 390 px phone the
/// whole map is drawn about 370 px wide, a unit about 0.62 px: a tile is then about 30 px
/// wide, above the 24 px a tap target needs, and its postal code about 13 px tall).
const CELL: (u32, u32) = (50, 50);
/// Columns and rows of the grid.
pub const GRID: (u32, u32) = (12, 5);

/// Each state's cell (column, row), by postal code: roughly the country's shape, in five rows
/// (Texas beside Oklahoma and Florida beside Georgia, to keep the map short on a phone).
const CELLS: [(&str, u32, u32); 48] = [
    ("WA", 0, 0),
    ("ID", 1, 0),
    ("MT", 2, 0),
    ("ND", 3, 0),
    ("MN", 4, 0),
    ("WI", 5, 0),
    ("MI", 6, 0),
    ("VT", 9, 0),
    ("NH", 10, 0),
    ("ME", 11, 0),
    ("OR", 0, 1),
    ("NV", 1, 1),
    ("WY", 2, 1),
    ("SD", 3, 1),
    ("IA", 4, 1),
    ("IL", 5, 1),
    ("IN", 6, 1),
    ("OH", 7, 1),
    ("PA", 8, 1),
    ("NY", 9, 1),
    ("MA", 10, 1),
    ("CA", 0, 2),
    ("UT", 1, 2),
    ("CO", 2, 2),
    ("NE", 3, 2),
    ("MO", 4, 2),
    ("KY", 5, 2),
    ("WV", 6, 2),
    ("VA", 7, 2),
    ("MD", 8, 2),
    ("NJ", 9, 2),
    ("CT", 10, 2),
    ("RI", 11, 2),
    ("AZ", 1, 3),
    ("NM", 2, 3),
    ("KS", 3, 3),
    ("AR", 4, 3),
    ("TN", 5, 3),
    ("NC", 6, 3),
    ("SC", 7, 3),
    ("DE", 9, 3),
    ("OK", 3, 4),
    ("LA", 4, 4),
    ("MS", 5, 4),
    ("AL", 6, 4),
    ("GA", 7, 4),
    ("TX", 2, 4),
    ("FL", 8, 4),
];

/// Where each region's name and campaigners stand: an empty cell near its states.
fn anchor(region: Region) -> (u32, u32) {
    match region {
        Region::West => (0, 3),
        Region::Plains => (1, 4),
        Region::South => (9, 4),
        Region::Midwest => (7, 0),
        Region::Atlantic => (8, 3),
        Region::Northeast => (11, 1),
    }
}

/// A region's class, which colours its tiles (static/app.css).
pub fn region_class(region: Region) -> &'static str {
    match region {
        Region::West => "rw",
        Region::Plains => "rp",
        Region::South => "rs",
        Region::Midwest => "rm",
        Region::Atlantic => "ra",
        Region::Northeast => "rn",
    }
}

/// A cube colour's fill.
fn cube_fill(colour: &str) -> &'static str {
    match colour {
        "purple" => "#7b3fa0",
        "yellow" => "#f2c200",
        _ => "#c62828",
    }
}

/// The cell of the state with this postal code.
pub fn cell(code: &str) -> Option<(u32, u32)> {
    CELLS
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|&(_, x, y)| (x, y))
}

/// The map as SVG; `open` lists the states a placement may touch (drawn tappable, each with
/// a badge the script fills with the cubes placed).
pub fn svg(v: &View, open: &[String]) -> String {
    let (w, h) = CELL;
    let mut out = String::with_capacity(24_000);
    let _ = write!(
        out,
        r#"<svg class="vfw-map" viewBox="0 0 {} {}" role="img" aria-label="The map: each state's cubes, checks and X's, and the campaigners">"#,
        GRID.0 * w,
        GRID.1 * h
    );
    for s in &v.states {
        let Some((cx, cy)) = cell(&s.code) else {
            continue;
        };
        tile(&mut out, s, cx * w, cy * h, open.contains(&s.code));
    }
    for region in Region::ALL {
        let (ax, ay) = anchor(region);
        let (x, y) = (ax * w, ay * h);
        let pawns: Vec<&str> = v
            .campaigners
            .iter()
            .filter(|c| c.region == region)
            .map(|c| colour_word(c.colour))
            .collect();
        let _ = write!(
            out,
            r#"<g class="camp {}" data-region="{}"><title>The {}</title>"#,
            region_class(region),
            esc(region.name()),
            esc(region.name())
        );
        // Up to four campaigners, two to a row, within the cell.
        let per_row = pawns.len().min(2) as u32;
        let rows = pawns.len().div_ceil(2) as u32;
        for (i, colour) in pawns.iter().enumerate() {
            let (col, row) = (i as u32 % 2, i as u32 / 2);
            let in_row = if row + 1 == rows {
                pawns.len() as u32 - 2 * row
            } else {
                per_row
            };
            let px = x + w / 2 + 20 * col - 10 * (in_row - 1);
            let py = y + h / 2 + 20 * row - 10 * (rows - 1);
            let _ = write!(
                out,
                r##"<circle class="pawn" cx="{px}" cy="{py}" r="9" fill="{}" stroke="#222"><title>{colour} campaigner in the {}</title></circle>"##,
                cube_fill(colour),
                esc(region.name())
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// One state's tile at (`x`, `y`).
fn tile(out: &mut String, s: &StateView, x: u32, y: u32, open: bool) {
    let (w, h) = CELL;
    let words = crate::games::votes_for_women::present::cubes_words(s);
    let mark = crate::games::votes_for_women::present::mark_symbol(s.mark);
    let status = match mark {
        "✔" => " (ratified)".to_string(),
        "✘" => " (rejected)".to_string(),
        _ if words.is_empty() => String::new(),
        _ => format!(": {words}"),
    };
    let card = if s.card.is_some() {
        ", State card to claim"
    } else {
        ""
    };
    let _ = write!(
        out,
        r#"<g class="st {}{}" data-st="{}" transform="translate({x} {y})"><title>{} ({}){status}{card}</title><rect class="t" x="1" y="1" width="{}" height="{}" rx="5"{}></rect><text class="code" x="{}" y="18">{}</text>"#,
        region_class(s.region),
        if open { " open" } else { "" },
        esc(&s.code),
        esc(&s.name),
        esc(s.region.name()),
        w - 2,
        h - 2,
        match mark {
            "✔" => r##" fill="#9fdc8c""##,
            "✘" => r##" fill="#ef9a9a""##,
            _ => "",
        },
        // A face-up State card's star takes the top right corner: the code moves aside.
        if s.card.is_some() { w / 2 - 5 } else { w / 2 },
        esc(&s.code)
    );
    if s.card.is_some() {
        let _ = write!(out, r#"<text class="star" x="{}" y="11">★</text>"#, w - 6);
    }
    if !mark.is_empty() {
        let _ = write!(
            out,
            r#"<text class="mark" x="{}" y="44">{mark}</text>"#,
            w / 2
        );
    }
    let cubes: Vec<(u8, &str)> = [(s.purple, "purple"), (s.yellow, "yellow"), (s.red, "red")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .collect();
    let size = 14;
    let start = w / 2 + 1 - (cubes.len() as u32 * (size + 1)) / 2;
    for (i, (n, colour)) in cubes.iter().enumerate() {
        let cx = start + i as u32 * (size + 1);
        let _ = write!(
            out,
            r#"<rect class="c {}" x="{cx}" y="23" width="{size}" height="{size}" rx="2"></rect><text class="n {}" x="{}" y="34">{n}</text>"#,
            &colour[..1],
            &colour[..1],
            cx + size / 2,
        );
    }
    if open {
        let _ = write!(
            out,
            r#"<text class="add" id="add-{}" x="{}" y="{}"></text>"#,
            esc(&s.code),
            w / 2,
            h - 3
        );
    }
    out.push_str("</g>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::votes_for_women::St;

    #[test]
    fn every_state_has_one_cell_of_its_own() {
        let mut taken = Vec::new();
        for st in St::all() {
            let at = cell(st.code()).unwrap_or_else(|| panic!("{} has no cell", st.code()));
            assert!(at.0 < GRID.0 && at.1 < GRID.1);
            assert!(!taken.contains(&at), "{} shares a cell", st.code());
            taken.push(at);
        }
        for region in Region::ALL {
            assert!(
                !taken.contains(&anchor(region)),
                "{region:?}'s name on a state"
            );
        }
    }
}
