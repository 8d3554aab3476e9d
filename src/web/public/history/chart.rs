//! The score chart of the whole log: one line a side over the periods played, drawn as SVG on
//! the server (no script, no style attribute: the content-security policy allows neither).

use crate::web::seat::render::esc;
use std::fmt::Write;

/// Line colours, one a side, distinguishable in print and by most colour-blind readers.
const COLOURS: [&str; 6] = [
    "#1d4ed8", "#c1121f", "#15803d", "#7c3aed", "#b45309", "#0f766e",
];

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 220.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

/// The chart of `rows` (each period's scores, aligned with `sides`), starting from zero before
/// the first period; empty when there is nothing to draw.
pub fn svg(sides: &[String], rows: &[&[i64]]) -> String {
    if sides.is_empty() || rows.is_empty() || rows.iter().any(|r| r.len() != sides.len()) {
        return String::new();
    }
    let points = rows.len() + 1;
    let value = |p: usize, side: usize| if p == 0 { 0 } else { rows[p - 1][side] };
    let all = (0..points).flat_map(|p| (0..sides.len()).map(move |s| (p, s)));
    let (low, high) = all.fold((0i64, 1i64), |(lo, hi), (p, s)| {
        (lo.min(value(p, s)), hi.max(value(p, s)))
    });
    let x = |p: usize| LEFT + (WIDTH - LEFT - RIGHT) * p as f64 / (points - 1).max(1) as f64;
    let y = |v: i64| TOP + (HEIGHT - TOP - BOTTOM) * (high - v) as f64 / (high - low) as f64;
    let mut out = format!(
        r##"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="Scores after each period"><line x1="{LEFT}" y1="{zero:.1}" x2="{right:.1}" y2="{zero:.1}" stroke="#999" stroke-width="1"/>"##,
        zero = y(0),
        right = WIDTH - RIGHT,
    );
    for v in [low, high] {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11" fill="#555">{v}</text>"##,
            LEFT - 6.0,
            y(v) + 4.0
        );
    }
    for p in 1..points {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="11" fill="#555">{p}</text>"##,
            x(p),
            HEIGHT - 8.0
        );
    }
    for (s, side) in sides.iter().enumerate() {
        let colour = COLOURS[s % COLOURS.len()];
        let line: Vec<String> = (0..points)
            .map(|p| format!("{:.1},{:.1}", x(p), y(value(p, s))))
            .collect();
        let _ = write!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2.5"><title>{}</title></polyline>"#,
            line.join(" "),
            esc(side)
        );
    }
    out.push_str("</svg>");
    out
}

/// The colour of side `index` in the chart, for the table's key.
pub fn colour(index: usize) -> &'static str {
    COLOURS[index % COLOURS.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_a_side_through_every_period() {
        let sides = vec!["Ann and Cy".to_string(), "Bo & <Di>".to_string()];
        let rows: Vec<&[i64]> = vec![&[1, 0], &[1, -1], &[3, 0]];
        let svg = svg(&sides, &rows);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(
            svg.matches("<polyline points=\"").count(),
            2,
            "points given"
        );
        let first = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(first.split(' ').count(), 4, "zero, then three periods");
        assert!(svg.contains("Bo &amp; &lt;Di&gt;"), "names escaped");
        assert!(!svg.contains("style="), "no inline style");
    }

    #[test]
    fn nothing_to_draw_draws_nothing() {
        assert_eq!(svg(&[], &[]), "");
        assert_eq!(svg(&["a".into()], &[]), "");
        assert_eq!(
            svg(&["a".into()], &[&[1, 2]]),
            "",
            "a row of the wrong width"
        );
    }
}
