//! Working a review out: the game replayed from its log; at each weighed decision of a seat
//! (an entry made by the seat's own hand or its bot, with more than one legal move), one search
//! from the seat's view at that point, the move made among its candidates
//! ([`crate::engine::DynBot::weigh`]); the biggest drops kept, and weighed again with
//! everything known. Every search runs on a thread of its own at the lowest CPU priority
//! (nice 19), holding one of the process's search permits (shared with the bots): nobody waits
//! for a review, and requests, the clock and the outbox go first whenever they need the CPU.

use super::{Budget, OpenLook, Review, SeatReview, TURNING_POINTS, TurningPoint, point_words};
use crate::engine::record::{Mark, apply_entry};
use crate::engine::search::{Weighing, decision_seed};
use crate::engine::{Choice, DynBot, DynMatch, Log, Seat, Seed};
use crate::games::{find_bot, find_game};
use crate::hints::words::move_words;
use crate::store::{CommandRow, Store};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tokio::sync::Semaphore;

/// Of `n` decisions, the indices of `k` spread evenly from the first (every one when `n <= k`).
pub fn spread(n: usize, k: usize) -> Vec<usize> {
    if n <= k {
        return (0..n).collect();
    }
    (0..k).map(|i| i * n / k).collect()
}

/// A decision to weigh: the position before it, and the move made.
struct Decided {
    seat: Seat,
    seq: i64,
    game: Box<dyn DynMatch>,
    played: Value,
    choices: Vec<Choice>,
}

/// Whether entry `entry` was a decision of its seat in `game` (the position before it): made
/// by the seat's own hand or its bot, with more than one legal move.
fn is_decision(game: &dyn DynMatch, entry: &CommandRow) -> bool {
    matches!(entry.mark, None | Some(Mark::Bot))
        && game.active().contains(&entry.seat)
        && game.forced(entry.seat).is_none()
        && !game.choices(entry.seat).is_empty()
}

/// Why a review was not made this time.
#[derive(Debug)]
pub enum Unmade {
    /// The store could not be read (the database away, a failover): worth trying again.
    Store(sqlx::Error),
    /// The game cannot be reviewed (its record does not replay, no search for it): a defect,
    /// which trying again would only repeat.
    Defect(String),
}

impl From<sqlx::Error> for Unmade {
    fn from(e: sqlx::Error) -> Unmade {
        Unmade::Store(e)
    }
}

impl From<String> for Unmade {
    fn from(e: String) -> Unmade {
        Unmade::Defect(e)
    }
}

impl std::fmt::Display for Unmade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unmade::Store(e) => write!(f, "the store: {e}"),
            Unmade::Defect(e) => f.write_str(e),
        }
    }
}

/// The seed a finished game's review draws from: the game's own seed (revealed at its end),
/// hashed apart from every other stream drawn from it, so the same game at the same budget is
/// always reviewed the same, and anyone holding the revealed seed can check a review. (A bot's
/// seed, by contrast, is never derived from the game's: a bot must not be foreseeable while the
/// game runs.)
pub fn review_seed(game_seed: &Seed) -> Seed {
    let mut hasher = Sha256::new();
    hasher.update(b"postplay review");
    hasher.update(game_seed.0);
    Seed(hasher.finalize().into())
}

/// Game `id`'s review, every search at `budget` and drawing from [`review_seed`], each holding
/// one of `searches`' permits.
pub async fn work_out(
    store: &Store,
    id: i64,
    budget: Budget,
    searches: &Arc<Semaphore>,
) -> Result<Review, Unmade> {
    let row = store.game(id).await?.ok_or("no such game".to_string())?;
    let seed = &review_seed(&row.seed);
    let bot = find_bot(&row.kind).ok_or_else(|| format!("{} has no search", row.kind))?;
    let kind = find_game(&row.kind).ok_or_else(|| format!("unknown game {}", row.kind))?;
    let names: Vec<String> = store.seats(id).await?.into_iter().map(|s| s.name).collect();
    let entries = store.commands(id, 0).await?;
    let start = || {
        kind.new_match_at(
            &row.options,
            row.seat_count as usize,
            row.seed,
            row.rules_version as u32,
        )
        .map_err(|e| e.to_string())
    };
    let apply = |game: &mut Box<dyn DynMatch>, entry: &CommandRow| {
        apply_entry(
            game.as_mut(),
            entry.seat,
            entry.by(),
            &entry.command,
            &mut Log::silent(),
        )
        .map_err(|e| format!("command {}: {e}", entry.seq))
    };
    // First the seats' decisions, then the few of each to weigh, spread over the game.
    let mut decisions: Vec<Vec<i64>> = vec![Vec::new(); names.len()];
    let mut game = start()?;
    for entry in &entries {
        if is_decision(game.as_ref(), entry) {
            decisions[entry.seat].push(entry.seq);
        }
        apply(&mut game, entry)?;
    }
    let chosen: Vec<i64> = decisions
        .iter()
        .flat_map(|seqs| {
            spread(seqs.len(), budget.decisions)
                .into_iter()
                .map(|i| seqs[i])
        })
        .collect();
    let mut game = start()?;
    let mut to_weigh = Vec::new();
    for entry in &entries {
        if chosen.contains(&entry.seq) {
            to_weigh.push(Decided {
                seat: entry.seat,
                seq: entry.seq,
                game: game.clone_box(),
                played: entry.command.clone(),
                choices: game.choices(entry.seat),
            });
        }
        apply(&mut game, entry)?;
    }
    let rules_version = row.rules_version as u32;
    let mut playouts = 0u64;
    let mut points: Vec<Vec<(TurningPoint, Decided)>> =
        (0..names.len()).map(|_| Vec::new()).collect();
    for decided in to_weigh {
        let seed = decision_seed(seed, decided.seq as u64);
        let (weighing, back) = weigh(
            searches,
            bot,
            decided.game,
            decided.seat,
            rules_version,
            budget.playouts,
            &decided.played,
            false,
            seed,
        )
        .await?;
        let decided = Decided {
            game: back,
            ..decided
        };
        playouts += u64::from(weighing.decision.playouts);
        let (Some(before), Some(after)) = (weighing.decision.estimate, weighing.played) else {
            continue;
        };
        let played = move_words(&decided.choices, &decided.played, &names);
        let best = move_words(&decided.choices, &weighing.decision.command, &names);
        // The same move in another form (a command's canonical fields) is no turning point.
        if weighing.decision.command == decided.played
            || best == played
            || before - after <= super::MIN_DROP
        {
            continue;
        }
        let point = TurningPoint {
            seq: decided.seq,
            played,
            played_command: decided.played.clone(),
            best,
            best_command: weighing.decision.command,
            before,
            after,
            drop: before - after,
            open: None,
            words: String::new(),
        };
        points[decided.seat].push((point, decided));
    }
    let mut seats = Vec::new();
    for (seat, mut found) in points.into_iter().enumerate() {
        found.sort_by(|a, b| b.0.drop.total_cmp(&a.0.drop).then(a.0.seq.cmp(&b.0.seq)));
        found.truncate(TURNING_POINTS);
        let mut turning_points = Vec::new();
        for (mut point, decided) in found {
            let seed = decision_seed(&decision_seed(seed, decided.seq as u64), 1);
            let (open, _) = weigh(
                searches,
                bot,
                decided.game,
                seat,
                rules_version,
                budget.playouts,
                &decided.played,
                true,
                seed,
            )
            .await?;
            playouts += u64::from(open.decision.playouts);
            if let (Some(before), Some(after)) = (open.decision.estimate, open.played)
                && open.decision.command != point.best_command
            {
                point.open = Some(OpenLook {
                    best: move_words(&decided.choices, &open.decision.command, &names),
                    best_command: open.decision.command,
                    before,
                    after,
                });
            }
            point.words = point_words(&names[seat], &point);
            turning_points.push(point);
        }
        seats.push(SeatReview {
            seat,
            name: names[seat].clone(),
            decisions: decisions[seat].len(),
            weighed: spread(decisions[seat].len(), budget.decisions).len(),
            turning_points,
        });
    }
    Ok(Review {
        game_id: id,
        seats,
        playouts_per_decision: budget.playouts,
        decisions_per_seat: budget.decisions,
        playouts,
    })
}

/// One search on a low-priority thread of its own ([`in_background`]), holding one of
/// `searches`' permits; the position is handed back for another look.
#[allow(clippy::too_many_arguments)]
async fn weigh(
    searches: &Arc<Semaphore>,
    bot: &'static dyn DynBot,
    game: Box<dyn DynMatch>,
    seat: Seat,
    rules_version: u32,
    playouts: u32,
    played: &Value,
    open: bool,
    seed: Seed,
) -> Result<(Weighing, Box<dyn DynMatch>), String> {
    let permit = searches
        .clone()
        .acquire_owned()
        .await
        .map_err(|e| e.to_string())?;
    let played = played.clone();
    in_background(move || {
        let _permit = permit;
        let weighed = bot.weigh(
            game.as_ref(),
            seat,
            rules_version,
            playouts,
            &played,
            open,
            &seed,
        );
        weighed.map(|w| (w, game))
    })
    .await?
    .map_err(|e| e.to_string())
}

/// Runs `work` on a new thread that first lowers its own priority to nice 19 (on Linux the
/// nice value is the thread's; elsewhere it is left as it is), and waits for it. A thread of
/// its own, not the runtime's blocking pool: a pooled thread could not raise its priority
/// back for the next task without privileges.
async fn in_background<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (done, result) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("review".into())
        .spawn(move || {
            #[cfg(target_os = "linux")]
            // SAFETY: setpriority reads no memory of ours; `0` names the calling thread.
            unsafe {
                libc::setpriority(libc::PRIO_PROCESS, 0, 19);
            }
            let _ = done.send(work());
        })
        .map_err(|e| format!("no thread for the search: {e}"))?;
    result.await.map_err(|_| "the search stopped".to_string())
}

#[cfg(test)]
mod tests {
    use super::in_background;

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_review_search_runs_at_the_lowest_priority_and_leaves_ours_alone() {
        // SAFETY: getpriority reads no memory of ours; `0` names the calling thread.
        let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let ours = nice();
        assert_eq!(in_background(nice).await.unwrap(), 19);
        assert_eq!(nice(), ours);
    }
}
