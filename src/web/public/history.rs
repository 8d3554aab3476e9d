//! The pages drawn from a game's history: the whole log, broken by hand (or turn) with the time
//! of every move and a score table with its chart, and the replay viewer.

mod chart;

use crate::engine::Viewer;
use crate::engine::log::render;
use crate::engine::record::Mark;
use crate::games::find_game;
use crate::store::{History, Step};
use crate::web::http::page::html;
use crate::web::seat::boards::{Seating, board_html};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};

/// One line of the whole log.
struct Line {
    seq: i64,
    at: String,
    text: String,
}

/// The moves made in one hand (or turn).
struct Period {
    title: String,
    anchor: String,
    lines: Vec<Line>,
}

/// A row of the score table: the period and each side's score at its end.
struct ScoreRow {
    title: String,
    scores: Vec<i64>,
}

#[derive(Template)]
#[template(path = "public/log.html")]
struct LogPage {
    title: String,
    public: String,
    periods: Vec<Period>,
    sides: Vec<(String, &'static str)>,
    table: Vec<ScoreRow>,
    chart: String,
    commitment: String,
    seed: Option<String>,
    head_hash: String,
    messages: Vec<crate::web::seat::messages::ThreadLine>,
    /// Who changed the seats' hands, newest first.
    seat_changes: Vec<crate::web::seat::changes::ChangeLine>,
}

/// "Tue 24 Nov, 10:04 UTC": when a move was made.
fn when(at: &DateTime<Utc>) -> String {
    at.format("%a %-d %b, %H:%M UTC").to_string()
}

/// The steps grouped by the period in which they were made (the setup in the first).
fn periods(steps: &[Step], period_name: &str, names: &[String]) -> Vec<Period> {
    let mut out: Vec<Period> = Vec::new();
    let mut current = None;
    for (i, step) in steps.iter().enumerate() {
        let made_in = match i {
            0 => step.standing.as_ref().map(|s| s.period),
            _ => steps[i - 1].standing.as_ref().map(|s| s.period),
        };
        if out.is_empty() || made_in != current {
            current = made_in;
            out.push(Period {
                title: made_in.map_or("Moves".to_string(), |p| format!("{period_name} {p}")),
                anchor: made_in.map_or("moves".to_string(), |p| format!("p{p}")),
                lines: Vec::new(),
            });
        }
        let period = out.last_mut().expect("pushed above");
        for line in &step.lines {
            let mut text = render(line, names);
            text.push_str(mark_note(step.mark));
            period.lines.push(Line {
                seq: step.seq,
                at: when(&step.at),
                text,
            });
        }
    }
    out.retain(|p| !p.lines.is_empty());
    out
}

/// The score at the end of every period: taken at the step that starts the next period (which
/// scores the one before), and for the last period at the end of the log.
fn score_rows(steps: &[Step], period_name: &str, over: bool) -> Vec<ScoreRow> {
    let standings: Vec<_> = steps.iter().filter_map(|s| s.standing.as_ref()).collect();
    let mut rows = Vec::new();
    for pair in standings.windows(2) {
        if pair[1].period != pair[0].period {
            rows.push(ScoreRow {
                title: format!("{period_name} {}", pair[0].period),
                scores: pair[1].scores.iter().map(|(_, v)| *v).collect(),
            });
        }
    }
    if let Some(last) = standings.last() {
        let closed = rows
            .last()
            .is_some_and(|r| r.title == format!("{period_name} {}", last.period));
        if !closed {
            rows.push(ScoreRow {
                title: format!(
                    "{period_name} {}{}",
                    last.period,
                    if over { "" } else { " (so far)" }
                ),
                scores: last.scores.iter().map(|(_, v)| *v).collect(),
            });
        }
    }
    rows
}

/// `GET /games/{id}/log` (or `/watch/{token}/log`): the whole public log by hand, with times,
/// scores and their chart.
pub async fn public_log(
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
    who: crate::web::accounts::session::MaybeSignedIn,
) -> Result<HttpResponse, WebError> {
    let History { row, steps, .. } = state.store.history(public.id, None).await?;
    let reads_thread =
        crate::web::seat::messages::reads_thread(&state, row.id, who.0.as_ref()).await?;
    let game = find_game(&row.kind).ok_or(WebError::NotFound)?;
    let names = seat_names(&state, row.id).await?;
    let over = row.status == "over";
    let sides: Vec<String> = steps
        .last()
        .and_then(|s| s.standing.as_ref())
        .map(|s| s.scores.iter().map(|(l, _)| render(l, &names)).collect())
        .unwrap_or_default();
    let table = score_rows(&steps, game.period_name(), over);
    html(
        StatusCode::OK,
        LogPage {
            title: crate::notices::notice::homed(
                crate::notices::outbox::home(state.store.pool(), row.id)
                    .await?
                    .as_deref(),
                format!("{} #{}", game.name(), row.id),
            ),
            public: public.base.clone(),
            periods: periods(&steps, game.period_name(), &names),
            chart: chart::svg(
                &sides,
                &table.iter().map(|r| &r.scores[..]).collect::<Vec<_>>(),
            ),
            sides: sides
                .into_iter()
                .enumerate()
                .map(|(i, s)| (s, chart::colour(i)))
                .collect(),
            table,
            commitment: row.commitment.clone(),
            seed: over.then(|| row.seed.to_hex()),
            head_hash: row.head_hash.clone(),
            messages: if reads_thread {
                crate::web::seat::messages::thread_lines(&state.store.messages(row.id).await?)
            } else {
                Vec::new()
            },
            seat_changes: crate::web::seat::changes::change_lines(
                &state.store.seat_changes(row.id).await?,
                &names,
                state.store.now(),
            ),
        },
    )
}

async fn seat_names(state: &AppState, id: i64) -> Result<Vec<String>, WebError> {
    Ok(state
        .store
        .seats(id)
        .await?
        .into_iter()
        .map(|s| s.name)
        .collect())
}

#[derive(Template)]
#[template(path = "public/replay.html")]
struct Replay {
    title: String,
    kind: String,
    game_id: i64,
    api: String,
    at: i64,
    head: i64,
    open: bool,
    can_open: bool,
    first_url: String,
    back_url: String,
    forward_url: String,
    last_url: String,
    step_lines: Vec<String>,
    board: String,
    commitment: String,
    seed: Option<String>,
    messages: Vec<crate::web::seat::messages::ThreadLine>,
    /// The game's review: being worked out, or its turning points.
    review_pending: bool,
    turning_points: Vec<crate::web::public::review::Mark>,
}

/// The query of the replay viewer.
#[derive(serde::Deserialize)]
pub struct ReplayQuery {
    at: Option<i64>,
    open: Option<u8>,
}

/// `GET /games/{id}/replay?at=N[&open=1]` (or `/watch/{token}/replay`): the board as it was
/// after move N (public view; a finished game may be shown with all cards open), with links to
/// step through; without `at`, at the deal.
pub async fn replay(
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
    query: web::Query<ReplayQuery>,
    who: crate::web::accounts::session::MaybeSignedIn,
) -> Result<HttpResponse, WebError> {
    // Without a move asked for, the replay opens at the deal: the last move would give the
    // result away.
    let History { row, game, steps } = state
        .store
        .history(public.id, Some(query.at.unwrap_or(0)))
        .await?;
    let reads_thread =
        crate::web::seat::messages::reads_thread(&state, row.id, who.0.as_ref()).await?;
    let kind = find_game(&row.kind).ok_or(WebError::NotFound)?;
    let head = row.head_seq;
    let at = steps.last().map_or(0, |s| s.seq);
    let over = row.status == "over";
    let open = over && query.open == Some(1);
    let names = seat_names(&state, row.id).await?;
    let shown = crate::web::public::review::shown(&state, row.id, over, &public.base, open).await?;
    let (review_pending, turning_points) = match shown {
        crate::web::public::review::Shown::Nothing => (false, Vec::new()),
        crate::web::public::review::Shown::Pending => (true, Vec::new()),
        crate::web::public::review::Shown::Marks(marks) => (false, marks),
    };
    let viewer = if open {
        Viewer::Auditor
    } else {
        Viewer::Spectator
    };
    let url = |n: i64| {
        format!(
            "{}/replay?at={}{}",
            public.base,
            n.clamp(0, head),
            if open { "&open=1" } else { "" }
        )
    };
    let step_lines = match steps.last() {
        Some(step) if step.seq > 0 => step.lines.iter().map(|l| render(l, &names)).collect(),
        _ => Vec::new(),
    };
    html(
        StatusCode::OK,
        Replay {
            title: crate::notices::notice::homed(
                crate::notices::outbox::home(state.store.pool(), row.id)
                    .await?
                    .as_deref(),
                format!("{} #{}", kind.name(), row.id),
            ),
            kind: row.kind.clone(),
            game_id: row.id,
            api: public.api.clone(),
            at,
            head,
            open,
            can_open: over,
            first_url: url(0),
            back_url: url(at - 1),
            forward_url: url(at + 1),
            last_url: url(head),
            step_lines,
            board: board_html(
                &row.kind,
                &game.view(viewer),
                &Seating {
                    over: game.outcome().is_some(),
                    ..Seating::named(&names)
                },
            ),
            commitment: row.commitment.clone(),
            seed: over.then(|| row.seed.to_hex()),
            messages: crate::web::seat::messages::thread_lines(
                &state
                    .store
                    .messages(row.id)
                    .await?
                    .into_iter()
                    .filter(|m| reads_thread && m.head <= at)
                    .collect::<Vec<_>>(),
            ),
            review_pending,
            turning_points,
        },
    )
}

#[cfg(test)]
mod tests;

/// What a log line adds about who made its entry, when not the seat by its own hand.
pub(in crate::web) fn mark_note(mark: Option<Mark>) -> &'static str {
    match mark {
        Some(Mark::Clock) => " (played by the clock)",
        Some(Mark::Auto) => " (their only move, played for them)",
        Some(Mark::Standing) => " (by their standing order)",
        // A bot's seat is named as one ("Bot (medium)"): nothing to add.
        Some(Mark::Organiser | Mark::Undo | Mark::Bot) | None => "",
    }
}
