//! How well the practice bots play: whole games between bots of fixed levels (the same
//! `play_bots` as `postplay selfplay --bots`), seats alternated game by game, with each side's
//! wins and a 95 % Wilson interval. Outside CI: `cargo bench --bench bot_strength`.
//!
//! `POSTPLAY_STRENGTH_GAMES` sets the games a matchup (default 20); `POSTPLAY_STRENGTH_ONLY`
//! keeps the matchups whose name contains it (`electoral-combat`, `hard-vs-medium`);
//! `POSTPLAY_STRENGTH_FIRST` (default 0) is the first game's number, so more games of a
//! matchup can run in parallel processes.
//! Budgets are playouts, so the counts do not depend on the machine's load; only the time does.
//!
//! Besides the levels, one yardstick no player meets: `best24`, the old easy level (24
//! playouts, the best move played), which hard once lost to in Whitehouse (docs/BOTS.md).

use postplay_rules::engine::search::Pick;
use postplay_rules::engine::seat_bot::{SeatPlayer, play_seats};
use postplay_rules::engine::{BotLevel, Seed};
use postplay_rules::games::{find_bot, find_game};
use serde_json::{Value, json};
use std::time::Instant;

/// The server's allocator, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A seat's player in a matchup: a level, or the old easy level kept as a yardstick.
#[derive(Clone, Copy)]
enum Player {
    /// A level's bot, as players meet it.
    Level(BotLevel),
    /// 24 playouts, the best move played: the easy level before it became "random among
    /// sensible moves".
    Best24,
}

impl Player {
    fn name(self) -> &'static str {
        match self {
            Player::Level(level) => level.name(),
            Player::Best24 => "best24",
        }
    }

    fn seat(self) -> SeatPlayer {
        match self {
            Player::Level(level) => level.into(),
            Player::Best24 => SeatPlayer::Search {
                budget: 24,
                pick: Pick::Best,
            },
        }
    }
}

/// One line of the table: a game, its options, and the players of the side measured (`bot`)
/// and of everyone else (`against`). `side` is the seats the measured side holds when it is
/// seated first (a partnership's two seats); the other games of the matchup rotate it.
struct Matchup {
    game: &'static str,
    options: Value,
    seats: usize,
    side: &'static [usize],
    bot: Player,
    against: Player,
    /// Rotate the side's seats from game to game; false when a seat is a role the matchup is
    /// about (Votes for Women's Suffragist).
    rotate: bool,
}

impl Matchup {
    fn name(&self) -> String {
        format!(
            "{} {}-vs-{}{}",
            self.game,
            self.bot.name(),
            self.against.name(),
            if self.side.len() > 1 { " (a pair)" } else { "" }
        )
    }
}

fn matchups() -> Vec<Matchup> {
    use BotLevel::{Easy, Hard, Medium, Random};
    let mut all = Vec::new();
    for (game, options, seats, side) in [
        ("electoral-combat", json!({}), 2, &[0usize][..]),
        ("nationhood", json!({}), 2, &[0][..]),
        ("statehood", json!({}), 3, &[0][..]),
        (
            "whitehouse",
            json!({"partnership": true, "target": 3}),
            4,
            &[0, 2][..],
        ),
        ("votes-for-women", json!({}), 2, &[0][..]),
    ] {
        for against in [
            Player::Level(Random),
            Player::Level(Easy),
            Player::Level(Medium),
            Player::Best24,
        ] {
            all.push(Matchup {
                game,
                options: options.clone(),
                seats,
                side,
                bot: Player::Level(Hard),
                against,
                rotate: game != "votes-for-women",
            });
        }
    }
    // The Suffragist's yardstick: the same seat at easy against the same Opposition, for the
    // hard Suffragist's score against an easy Opposition to be read against.
    all.push(Matchup {
        game: "votes-for-women",
        options: json!({}),
        seats: 2,
        side: &[0],
        bot: Player::Level(Easy),
        against: Player::Level(Easy),
        rotate: false,
    });
    all
}

/// The 95 % Wilson score interval of `wins` in `n`.
fn wilson(wins: f64, n: f64) -> (f64, f64) {
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let p = wins / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn main() {
    let games: u64 = std::env::var("POSTPLAY_STRENGTH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let only = std::env::var("POSTPLAY_STRENGTH_ONLY").unwrap_or_default();
    let first: u64 = std::env::var("POSTPLAY_STRENGTH_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // `cargo bench` passes `--bench`; nothing else is read.
    println!(
        "matchup | games | side won | drawn or shared | lost | side's score (95 % Wilson) | seconds"
    );
    for m in matchups() {
        if !m.name().contains(&only) {
            continue;
        }
        let game = find_game(m.game).expect("a hosted game");
        if find_bot(m.game).is_none() {
            println!("{} | no bot yet", m.name());
            continue;
        }
        let started = Instant::now();
        let (mut won, mut drawn, mut lost) = (0u64, 0u64, 0u64);
        for n in first..first + games {
            let shift = if m.rotate { n as usize % m.seats } else { 0 };
            let side: Vec<usize> = m.side.iter().map(|s| (s + shift) % m.seats).collect();
            let players: Vec<SeatPlayer> = (0..m.seats)
                .map(|s| if side.contains(&s) { m.bot } else { m.against }.seat())
                .collect();
            let played = play_seats(
                game,
                postplay_rules::games::find_bot(game.id()),
                &m.options,
                &players,
                Seed::from_number(1_000 + n),
                &Seed::from_number(2_000 + n),
            )
            .unwrap_or_else(|e| panic!("{} game {n}: {e}", m.name()));
            let winners = &played.outcome.winners;
            let side_won = winners.iter().any(|w| side.contains(w));
            let others_won = winners.iter().any(|w| !side.contains(w));
            match (side_won, others_won) {
                (true, false) => won += 1,
                (false, true) => lost += 1,
                _ => drawn += 1,
            }
            eprintln!(
                "{} game {n}: side won {won}, drawn {drawn}, lost {lost} after {:.0} s",
                m.name(),
                started.elapsed().as_secs_f64()
            );
        }
        let score = won as f64 + drawn as f64 / 2.0;
        let (low, high) = wilson(score, games as f64);
        println!(
            "{} | {games} | {won} | {drawn} | {lost} | {:.0} % ({:.0}–{:.0} %) | {:.0}",
            m.name(),
            100.0 * score / games as f64,
            100.0 * low,
            100.0 * high,
            started.elapsed().as_secs_f64()
        );
    }
}
