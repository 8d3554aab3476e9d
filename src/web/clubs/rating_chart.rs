//! A member's rating-history chart: the shown rating before their first rated game and after
//! each one, drawn as SVG on the server like the log's score chart (no script, no style
//! attribute: the content-security policy allows neither). Every text in it is escaped.

use crate::store::{GameResult, RatingPoint};
use crate::web::seat::render::esc;
use std::fmt::Write;

const WIDTH: f64 = 600.0;
const HEIGHT: f64 = 220.0;
const LEFT: f64 = 48.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

/// The colour of a game's dot by its result, with a word for its title.
fn mark(result: GameResult) -> (&'static str, &'static str) {
    match result {
        GameResult::Win => ("#15803d", "won"),
        GameResult::Loss => ("#c1121f", "lost"),
        GameResult::Draw => ("#555555", "drawn"),
    }
}

/// The chart of `points` (oldest first) for the player `who` in the game `game` (names, as
/// people read them); empty when there is nothing to draw.
pub fn svg(who: &str, game: &str, points: &[RatingPoint]) -> String {
    let Some(first) = points.first() else {
        return String::new();
    };
    let values: Vec<i32> = std::iter::once(first.rating_before)
        .chain(points.iter().map(|p| p.rating_after))
        .collect();
    let low = values.iter().copied().min().unwrap_or(0).min(1000) - 10;
    let high = values.iter().copied().max().unwrap_or(0).max(1000) + 10;
    let x = |i: usize| LEFT + (WIDTH - LEFT - RIGHT) * i as f64 / (values.len() - 1) as f64;
    let y = |v: i32| TOP + (HEIGHT - TOP - BOTTOM) * f64::from(high - v) / f64::from(high - low);
    let mut out = format!(
        r##"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}'s {} rating after each rated game"><line x1="{LEFT}" y1="{base:.1}" x2="{right:.1}" y2="{base:.1}" stroke="#999" stroke-width="1" stroke-dasharray="4 4"/>"##,
        esc(who),
        esc(game),
        base = y(1000),
        right = WIDTH - RIGHT,
    );
    let mut labels = vec![low + 10, high - 10];
    labels.dedup();
    for v in labels {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11" fill="#555">{v}</text>"##,
            LEFT - 6.0,
            y(v) + 4.0
        );
    }
    let _ = write!(
        out,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" font-size="11" fill="#555">{} game{}</text>"##,
        WIDTH - RIGHT,
        HEIGHT - 8.0,
        points.len(),
        if points.len() == 1 { "" } else { "s" }
    );
    let line: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| format!("{:.1},{:.1}", x(i), y(v)))
        .collect();
    let _ = write!(
        out,
        r##"<polyline points="{}" fill="none" stroke="#1d4ed8" stroke-width="2.5"/>"##,
        line.join(" ")
    );
    for (i, point) in points.iter().enumerate() {
        let (colour, word) = mark(point.result);
        let _ = write!(
            out,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{colour}"><title>Game {}, {}: {word}, {} to {}</title></circle>"#,
            x(i + 1),
            y(point.rating_after),
            point.game_id,
            point.at.format("%Y-%m-%d"),
            point.rating_before,
            point.rating_after,
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn point(game_id: i64, result: GameResult, before: i32, after: i32) -> RatingPoint {
        RatingPoint {
            game_id,
            at: Utc.with_ymd_and_hms(2026, 11, 23, 9, 0, 0).unwrap(),
            place: 1,
            result,
            rating_before: before,
            rating_after: after,
        }
    }

    fn polyline(svg: &str) -> Vec<(f64, f64)> {
        let points = svg.split("points=\"").nth(1).unwrap().split('"').next();
        points
            .unwrap()
            .split(' ')
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn a_line_from_the_first_rating_through_every_game() {
        let points = [
            point(4, GameResult::Win, 1000, 1138),
            point(9, GameResult::Loss, 1138, 1050),
            point(12, GameResult::Draw, 1050, 1060),
        ];
        let svg = svg("Ann", "Nationhood", &points);
        let line = polyline(&svg);
        assert_eq!(line.len(), 4, "the start, then three games");
        assert!(line.windows(2).all(|w| w[0].0 < w[1].0), "left to right");
        // Higher ratings are drawn higher (smaller y): 1138 above 1060 above 1050 above 1000.
        assert!(line[1].1 < line[3].1 && line[3].1 < line[2].1 && line[2].1 < line[0].1);
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(svg.contains("<title>Game 9, 2026-11-23: lost, 1138 to 1050</title>"));
        assert!(svg.contains(">1138</text>") && svg.contains(">1000</text>"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }

    #[test]
    fn names_are_escaped_and_nothing_is_styled_or_scripted() {
        let points = [point(1, GameResult::Win, 1000, 1100)];
        let svg = svg("<script>alert(1)</script>", "Bo & \"Di\"", &points);
        assert!(!svg.contains("<script"), "{svg}");
        assert!(svg.contains("&lt;script&gt;"));
        assert!(svg.contains("Bo &amp; &quot;Di&quot;"));
        assert!(!svg.contains("style="));
        assert!(!svg.contains(" on"), "no event handler attribute");
    }

    #[test]
    fn one_game_and_no_game() {
        assert_eq!(svg("Ann", "Statehood", &[]), "");
        let flat = svg(
            "Ann",
            "Statehood",
            &[point(1, GameResult::Draw, 1000, 1000)],
        );
        let line = polyline(&flat);
        assert_eq!(line.len(), 2);
        assert!(line.iter().all(|(x, y)| x.is_finite() && y.is_finite()));
    }
}
