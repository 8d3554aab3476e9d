//! Composing a your-turn mail: the seat's position in the game's own words (text and HTML),
//! its choices as reply lines, and both parts rendered, for positions of real random games of
//! every game; and the size of the position's text.
//!
//! `cargo bench --bench compose` (release). Optional: `POSTPLAY_COMPOSE_GAMES` (default 40
//! games per game; every position of each is composed), `POSTPLAY_COMPOSE_ROUNDS` (default 5).

use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{Log, Seed, Viewer};
use postplay::games::registry;
use postplay::notices::notice::{Ask, GameRef, Notice, Player, Turn};
use postplay::notices::reply::reply_lines;
use postplay::notices::{MailContext, render};
use std::time::{Duration, Instant};

fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let games = env_number("POSTPLAY_COMPOSE_GAMES", 40);
    let rounds = env_number("POSTPLAY_COMPOSE_ROUNDS", 5);
    let ctx = MailContext {
        base_url: "https://pp.example".into(),
        reply_domain: Some("pp.example".into()),
    };
    println!(
        "| game | positions | compose p50 | compose p99 | position text p50 | max | HTML max |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for game in registry() {
        let seats = game.seat_counts().1;
        let names: Vec<String> = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][..seats]
            .iter()
            .map(|n| n.to_string())
            .collect();
        let mut times = Vec::new();
        let mut sizes = Vec::new();
        let mut html_max = 0;
        for n in 0..games {
            let seed = Seed::from_number(n + 1);
            let mut live = game
                .new_match(&game.default_options(), seats, seed)
                .unwrap();
            let mut rng = bot_rng(&seed);
            let mut log = Log::silent();
            while live.outcome().is_none() {
                let active = live.active();
                let seat = active[rng.index(active.len())];
                for _ in 0..rounds {
                    let start = Instant::now();
                    let choices = live.choices(seat);
                    let board = live.position(Viewer::Seat(seat), &names);
                    let notice = Notice::Turn(Turn {
                        answered: Vec::new(),
                        game: GameRef {
                            home: None,
                            id: 1,
                            name: game.name().into(),
                        },
                        you: Player {
                            name: names[seat].clone(),
                            seat: game.seat_role(seat, seats).unwrap_or_default(),
                        },
                        lines: Vec::new(),
                        choices: choices.iter().map(|c| c.label.to_string()).collect(),
                        deadline: None,
                        token: "t".into(),
                        ask: Ask {
                            board,
                            replies: reply_lines(&choices),
                            standing: Vec::new(),
                            undo: live.can_undo(seat),
                            reply: Some("0123456789abcdef0123456789abcdef01234567".into()),
                        },
                        messages: Vec::new(),
                    });
                    let rendered = render(&notice, &ctx).unwrap();
                    times.push(start.elapsed());
                    std::hint::black_box(&rendered);
                }
                let board = live.position(Viewer::Seat(seat), &names);
                sizes.push(board.text.chars().count());
                html_max = html_max.max(board.html.len());
                let command = random_command(live.as_ref(), seat, &mut rng).unwrap();
                live.apply_json(seat, &command, &mut log).unwrap();
            }
        }
        times.sort();
        sizes.sort();
        let us = |d: Duration| format!("{:.0} µs", d.as_secs_f64() * 1e6);
        println!(
            "| {} | {} | {} | {} | {} chars | {} chars | {} bytes |",
            game.name(),
            sizes.len(),
            us(percentile(&times, 0.5)),
            us(percentile(&times, 0.99)),
            percentile(&sizes, 0.5),
            sizes.last().copied().unwrap_or(0),
            html_max
        );
    }
}
