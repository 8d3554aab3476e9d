//! The HTML pages: home, create, play, spectate, log (the organiser's is `crate::web::desk::manage`). GET
//! never changes anything; every form carries a CSRF token and the move it was rendered at.

use crate::engine::log::render;
use crate::engine::{FillError, Seat, Viewer};
use crate::games::find_game;
use crate::store::{Loaded, SubmitError};
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::seat::boards::{
    Moves, Seating, board_html, card_in_game_html, drawn_choices, own_hand,
};
use crate::web::seat::hand::{Hand, hand};
use crate::web::seat::render::{FormChoice, form_choices, keep_entries, values_from_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde_json::Value;

/// One command of the log, for a page: its number and every line it wrote.
pub struct LogEntry {
    /// The command number.
    pub seq: i64,
    /// Its lines with names filled in.
    pub lines: Vec<String>,
    /// Made since the viewer's last visit or move.
    pub new: bool,
}

/// The most lines the play page shows of what happened since the viewer's last visit; the
/// whole log has the rest.
const MOST_NEW_LINES: usize = 60;

/// The commands the play page shows open, newest first; the others of its log are folded
/// under them.
const OPEN_ENTRIES: usize = 3;

/// The play page's log, newest first: the moves since `since` (the viewer's last visit or
/// move, marked new), at least the last eight moves, at most [`MOST_NEW_LINES`] lines.
fn log_entries(
    loaded: &Loaded,
    names: &[String],
    since: i64,
    marks: &[(i64, crate::engine::record::Mark)],
) -> Vec<LogEntry> {
    let from = log_start(loaded, since);
    let mut entries: Vec<LogEntry> = Vec::new();
    let mut shown = 0;
    for (seq, _, lines) in loaded.log.iter().rev() {
        if !(*seq > from || (from < 0 && *seq == 0))
            || (shown > 0 && shown + lines.len() > MOST_NEW_LINES)
        {
            break;
        }
        if lines.is_empty() {
            continue;
        }
        shown += lines.len();
        let mark = marks.iter().find(|(at, _)| at == seq).map(|(_, m)| *m);
        entries.push(LogEntry {
            seq: *seq,
            lines: lines
                .iter()
                .map(|l| render(l, names) + crate::web::public::history::mark_note(mark))
                .collect(),
            new: *seq > since,
        });
    }
    entries
}

/// The last entry before the seat page's log: the lines since the viewer's last look, and at
/// least the last eight entries.
fn log_start(loaded: &Loaded, since: i64) -> i64 {
    since.min(loaded.row.head_seq - 8)
}

/// The last move `viewer` made itself, or the start.
fn last_own_move(loaded: &Loaded, viewer: Viewer) -> i64 {
    let Viewer::Seat(seat) = viewer else {
        return loaded.row.head_seq;
    };
    loaded
        .log
        .iter()
        .rev()
        .find(|(seq, s, _)| *seq > 0 && *s == seat)
        .map_or(0, |(seq, _, _)| *seq)
}

/// The cookie in which a seat's browser keeps the last move it was shown (scoped to the
/// seat's page), so the page can mark what happened since; the server stores nothing on GET.
const SEEN_COOKIE: &str = "pp_seen";

/// The cookie that remembers the head a seat's page showed.
fn seen_cookie(token: &str, head: i64, secure: bool) -> actix_web::cookie::Cookie<'static> {
    actix_web::cookie::Cookie::build(SEEN_COOKIE, head.to_string())
        .path(format!("/play/{token}"))
        .http_only(true)
        .secure(secure)
        .same_site(actix_web::cookie::SameSite::Lax)
        .max_age(actix_web::cookie::time::Duration::days(120))
        .finish()
}

#[derive(Template)]
#[template(path = "seat/play.html")]
struct Play {
    title: String,
    subtitle: String,
    kind: String,
    status: String,
    hand: Option<Hand>,
    /// The seat is to move (on the board, in the forms below it, or both).
    moving: bool,
    /// Some of the seat's moves are generic forms (or its hand's form) below the board.
    more_moves: bool,
    /// The board draws some of the seat's moves on itself (it then holds `#choices`).
    board_moves: bool,
    new_moves: usize,
    /// Where the game's public pages live (`/games/{id}`, or its spectator link's path).
    public: String,
    /// On a seat's page of an unlisted game: the spectator link, for the player to share.
    share: Option<String>,
    head: i64,
    head_hash: String,
    commitment: String,
    board: String,
    /// The position in the game's own words, the same lines a your-turn mail shows (for a
    /// screen reader, or anyone who prefers words to the board).
    in_words: Vec<String>,
    choices: Vec<FormChoice>,
    post_url: String,
    csrf: String,
    error: Option<String>,
    /// How the game ended, in the game's words (see `Rules::ending`).
    ending: Option<crate::engine::present::Ending>,
    /// The latest commands of the log, newest first.
    log: Vec<LogEntry>,
    /// The commands before those, newest first, folded.
    earlier: Vec<LogEntry>,
    clock: String,
    paused: bool,
    deadlines: Vec<(String, String)>,
    vacation: Option<VacationForm>,
    /// The seat and the signed-in account, when the visitor is signed in (see [`SeatAccount`]).
    seat_account: Option<SeatAccount>,
    thread: crate::web::seat::messages::ThreadPanel,
    /// On the game's public page: the way back to a seat this browser took up, and the form
    /// that mails a seat's player a new link.
    seat_help: Option<SeatHelp>,
    /// On a seat's page: its standing orders and whether its forced moves are played for it.
    settled: Option<crate::web::seat::orders::SettledPanel>,
    /// On a seat's page, when the seat may take back its last move ([`crate::engine::Match::undo`]).
    undo: bool,
    /// Who changed the seats' hands lately, newest first (DESIGN.md "Seats change hands in the
    /// open").
    seat_changes: Vec<crate::web::seat::changes::ChangeLine>,
    /// On a seat's page of a practice game, when the seat is to move: the "What would the bot
    /// do?" button ([`crate::hints`]).
    hint_offered: bool,
    /// Hints a seat may ask an hour (0: no bound), for the button's note.
    hints_per_hour: u32,
    /// The hint just asked for, or why none was given.
    hint: Option<HintLine>,
}

/// A hint on the seat's page, or why none was given.
pub(in crate::web) struct HintLine {
    /// The hint, or the refusal, in words.
    pub text: String,
    /// It is a refusal.
    pub refused: bool,
}

/// What the game's public page offers a player who is not on their seat's page.
struct SeatHelp {
    /// The seat link this browser was given when it took a seat up.
    your_seat: Option<String>,
    /// The seats with an address, as (seat, "Bo (East)"): a new link can be mailed there.
    mailable: Vec<(usize, String)>,
    /// A link was just mailed.
    mailed: bool,
}

/// How the seat on a play page stands to the signed-in visitor's account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::web) enum SeatAccount {
    /// The account owns it.
    Yours,
    /// Nobody owns it: the account may claim it.
    Claimable,
    /// Another account owns it.
    Another,
}

/// A seat's vacation controls.
struct VacationForm {
    until: Option<String>,
    left: i64,
}

/// "2 days 4 hours left (until Monday 30 November 2026, 10:00 UTC; Mon 11:00 in
/// Europe/Paris)", or why the clock stands.
pub(in crate::web) fn deadline_text(
    d: &crate::clock::SeatDeadline,
    clock: &crate::domain::ClockSettings,
) -> String {
    match (&d.stopped, &d.due_at, &d.left) {
        (Some(why), _, _) => format!("the clock stands ({why})"),
        (None, Some(due), Some(left)) => {
            let local = match clock.zone() {
                Ok(zone) if zone != chrono_tz::UTC => format!(
                    "; {} in {zone}",
                    due.with_timezone(&zone).format("%a %H:%M")
                ),
                _ => String::new(),
            };
            format!(
                "{left} left (until {}{local})",
                due.format("%A %-d %B %Y, %H:%M UTC")
            )
        }
        _ => format!(
            "waiting since {} (no time limit)",
            d.waiting_since.format("%A %-d %B %Y, %H:%M UTC")
        ),
    }
}

/// Who a play page is for and what it shows besides the game.
struct PageFor<'a> {
    viewer: Viewer,
    /// The seat's link token (none for a spectator).
    token: Option<&'a str>,
    csrf: String,
    /// Why the move sent was refused.
    error: Option<String>,
    /// The refused form's fields, shown again.
    entries: Option<&'a [(String, String)]>,
    /// The last move the viewer's browser was shown.
    seen: Option<i64>,
    /// Where the reader's message form posts, or why they cannot write.
    writer: Result<String, String>,
    /// Whether the reader may read the game's messages (a player, or anyone where the creator
    /// opened them to spectators).
    reads_thread: bool,
}

/// "since Tue 24 Nov, 10:04 UTC (2 days)".
fn since_words(
    since: &chrono::DateTime<chrono::Utc>,
    now: chrono::DateTime<chrono::Utc>,
) -> String {
    format!(
        "since {} ({})",
        since.format("%a %-d %b, %H:%M UTC"),
        crate::time::in_words(now - *since)
    )
}

/// What a play page shows that the database holds besides the game: the seats' names, the
/// log's marks, the clock, where the public pages live, the vacation, orders and messages.
struct Around {
    names: Vec<String>,
    /// Practice bots play some seats: the game is unrated, and the page says so.
    practice: bool,
    marks: Vec<(i64, crate::engine::record::Mark)>,
    clock: crate::domain::ClockSettings,
    deadlines: Vec<crate::clock::SeatDeadline>,
    public: String,
    share: Option<String>,
    now: chrono::DateTime<chrono::Utc>,
    paused: bool,
    vacation: Option<VacationForm>,
    settled: Option<crate::web::seat::orders::SettledPanel>,
    thread: crate::web::seat::messages::ThreadPanel,
    seat_changes: Vec<crate::web::seat::changes::ChangeLine>,
}

async fn play_page(state: &AppState, loaded: &Loaded, to: PageFor<'_>) -> Result<Play, WebError> {
    let viewer = to.viewer;
    let token = to.token;
    let seats = state.store.seats(loaded.row.id).await?;
    let practice = seats.iter().any(|s| s.bot.is_some());
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let since = to.seen.unwrap_or(0).max(last_own_move(loaded, viewer));
    let marks = state
        .store
        .marks(loaded.row.id, log_start(loaded, since))
        .await?;
    let (clock, deadlines) = crate::clock::deadlines(&state.store, loaded.row.id).await?;
    let surroundings = state.store.surroundings(loaded.row.id).await?;
    let public =
        crate::web::public::game::public_at(loaded.row.id, surroundings.spectator_token.as_deref());
    let share = (matches!(viewer, Viewer::Seat(_)) && public.base.starts_with("/watch/"))
        .then(|| format!("{}{}", state.base_url, public.base));
    let paused = surroundings.paused;
    let vacation = match viewer {
        Viewer::Seat(seat) if loaded.game.outcome().is_none() => {
            let email = seats
                .into_iter()
                .find(|s| s.seat == seat)
                .and_then(|s| s.email);
            match email {
                Some(email) if clock.vacation => Some(VacationForm {
                    until: crate::clock::controls::vacation_of(&state.store, &email)
                        .await?
                        .map(|t| t.format("%A %-d %B %Y, %H:%M UTC").to_string()),
                    left: crate::clock::controls::vacation_days_left(
                        &state.store,
                        &email,
                        state.settings.vacation_days,
                    )
                    .await?
                    .max(0),
                }),
                _ => None,
            }
        }
        _ => None,
    };
    let settled = match (viewer, token) {
        (Viewer::Seat(seat), Some(token)) => {
            crate::web::seat::orders::panel(state, loaded.row.id, loaded.game.as_ref(), seat, token)
                .await?
        }
        _ => None,
    };
    let thread = if to.reads_thread {
        let own = match (viewer, token) {
            (Viewer::Seat(seat), Some(t)) => Some((seat, format!("/play/{t}/messages"))),
            _ => None,
        };
        let mut lines =
            crate::web::seat::messages::thread_lines(&state.store.messages(loaded.row.id).await?);
        if let Some((seat, _)) = &own {
            for line in &mut lines {
                line.mine = line.seat == Some(*seat) && line.text.is_some();
            }
        }
        crate::web::seat::messages::ThreadPanel {
            lines,
            action: to.writer.as_ref().ok().cloned(),
            note: to.writer.clone().err(),
            readable: true,
            hide_action: own.map(|(_, action)| action),
            draft: String::new(),
            draft_refused: None,
        }
    } else {
        crate::web::seat::messages::ThreadPanel::closed()
    };
    let seat_changes = crate::web::seat::changes::change_lines(
        &state.store.seat_changes(loaded.row.id).await?,
        &names,
        state.store.now(),
    );
    let around = Around {
        names,
        practice,
        marks,
        clock,
        deadlines,
        public: public.base,
        share,
        now: state.store.now(),
        paused,
        vacation,
        settled,
        thread,
        seat_changes,
    };
    let mut page = compose_play(loaded, to, around)?;
    page.hints_per_hour = state.settings.hints_per_hour;
    page.title = crate::notices::notice::homed(surroundings.home.as_deref(), page.title);
    Ok(page)
}

/// A seat's play page as its handler draws it (`GET /play/{token}`: the same board, hand, moves
/// and log), from the game alone: the clock, messages, orders and vacation, which the database
/// holds, are left out (no clock, no messages). For benches and checks of the page's size.
pub fn seat_page_html(
    loaded: &Loaded,
    seat: Seat,
    names: &[String],
    token: &str,
) -> Result<String, WebError> {
    let to = PageFor {
        viewer: Viewer::Seat(seat),
        token: Some(token),
        csrf: "0".repeat(32),
        error: None,
        entries: None,
        seen: None,
        writer: Ok(format!("/play/{token}/messages")),
        reads_thread: true,
    };
    let around = Around {
        names: names.to_vec(),
        practice: false,
        marks: Vec::new(),
        clock: crate::domain::ClockSettings::default(),
        deadlines: Vec::new(),
        public: format!("/games/{}", loaded.row.id),
        share: None,
        now: loaded.row.updated_at,
        paused: false,
        vacation: None,
        settled: None,
        thread: crate::web::seat::messages::ThreadPanel {
            lines: Vec::new(),
            action: Some(format!("/play/{token}/messages")),
            note: None,
            readable: true,
            hide_action: Some(format!("/play/{token}/messages")),
            draft: String::new(),
            draft_refused: None,
        },
        seat_changes: Vec::new(),
    };
    compose_play(loaded, to, around)?
        .render()
        .map_err(|e| WebError::Internal(e.to_string()))
}

/// The play page from the game and what is [`Around`] it; no I/O.
fn compose_play(loaded: &Loaded, to: PageFor<'_>, around: Around) -> Result<Play, WebError> {
    let PageFor {
        viewer,
        token,
        csrf: csrf_token,
        error,
        entries,
        seen,
        ..
    } = to;
    let Around {
        names,
        practice,
        marks,
        clock,
        deadlines,
        public,
        share,
        now,
        paused,
        vacation,
        settled,
        thread,
        seat_changes,
    } = around;
    let game = find_game(&loaded.row.kind).ok_or(WebError::NotFound)?;
    let hint_offered = practice
        && token.is_some()
        && loaded.row.club_id.is_none()
        && loaded.game.outcome().is_none()
        && matches!(viewer, Viewer::Seat(seat) if !loaded.game.choices(seat).is_empty());
    let view = loaded.game.view(viewer);
    let choices = match viewer {
        Viewer::Seat(seat) => loaded.game.choices(seat),
        _ => Vec::new(),
    };
    let active = loaded.game.active();
    let since = seen.unwrap_or(0).max(last_own_move(loaded, viewer));
    let mut log = log_entries(loaded, &names, since, &marks);
    let earlier = log.split_off(log.len().min(OPEN_ENTRIES));
    let waiting: Vec<(Seat, String)> = deadlines
        .iter()
        .map(|d| (d.seat, since_words(&d.waiting_since, now)))
        .collect();
    let waited: Vec<(Seat, String)> = deadlines
        .iter()
        .map(|d| {
            let how_long = crate::time::in_words(now - d.waiting_since);
            (d.seat, format!("· waiting {how_long}"))
        })
        .collect();
    let draw = |code: &str| card_in_game_html(&loaded.row.kind, &view, code);
    let mut forms = form_choices(&choices, &draw);
    if let Some(fields) = entries {
        keep_entries(&mut forms, fields);
    }
    // The choices the board draws on itself (a map to tap) are no generic forms; only a seat
    // on its own page (with a link to post to) is given them.
    let post_url = token.map(|t| format!("/play/{t}")).unwrap_or_default();
    let on_board = match token {
        Some(_) => drawn_choices(&loaded.row.kind, &view, &choices),
        None => Vec::new(),
    };
    forms.retain(|f| !on_board.contains(&f.index));
    let hand = own_hand(&loaded.row.kind, &view).map(|held| hand(&held, &mut forms, &draw));
    let status = match (viewer, loaded.game.outcome()) {
        (_, Some(_)) => "The game is over.".to_string(),
        (Viewer::Seat(seat), None) if active.contains(&seat) => "Your move.".to_string(),
        _ => {
            let who: Vec<String> = active
                .iter()
                .map(|&s| match waiting.iter().find(|(w, _)| *w == s) {
                    Some((_, since)) => format!("{} {since}", names[s]),
                    None => names[s].clone(),
                })
                .collect();
            format!("Waiting for {}.", who.join(", "))
        }
    };
    let title = match viewer {
        Viewer::Seat(seat) => match game.seat_role(seat, names.len()) {
            Some(role) => format!(
                "{} #{} — {} ({role})",
                game.name(),
                loaded.row.id,
                names[seat]
            ),
            None => format!("{} #{} — {}", game.name(), loaded.row.id, names[seat]),
        },
        _ => format!("{} #{} — watching", game.name(), loaded.row.id),
    };
    Ok(Play {
        subtitle: names
            .iter()
            .enumerate()
            .map(|(i, n)| match game.seat_role(i, names.len()) {
                Some(role) => format!("{role}: {n}"),
                None => n.clone(),
            })
            .collect::<Vec<_>>()
            .join(" · ")
            + if practice {
                " · a practice game with bots: unrated"
            } else {
                ""
            },
        title,
        public,
        share,
        head: loaded.row.head_seq,
        head_hash: loaded.row.head_hash.clone(),
        commitment: loaded.row.commitment.clone(),
        board: board_html(
            &loaded.row.kind,
            &view,
            &Seating {
                names: &names,
                waiting: &waited,
                over: loaded.game.outcome().is_some(),
                moves: (!on_board.is_empty()).then_some(Moves {
                    choices: &choices,
                    post_url: &post_url,
                    csrf: &csrf_token,
                    head: loaded.row.head_seq,
                }),
            },
        ),
        in_words: loaded
            .game
            .position(viewer, &names)
            .text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect(),
        kind: loaded.row.kind.clone(),
        moving: !forms.is_empty()
            || !on_board.is_empty()
            || hand.as_ref().is_some_and(|h| h.form.is_some()),
        more_moves: !forms.is_empty() || hand.as_ref().is_some_and(|h| h.form.is_some()),
        board_moves: !on_board.is_empty(),
        status,
        hand,
        new_moves: log.iter().chain(&earlier).filter(|e| e.new).count(),
        choices: forms,
        post_url,
        csrf: csrf_token,
        error,
        ending: loaded.game.ending(&names),
        log,
        earlier,
        clock: clock.describe(),
        paused,
        deadlines: deadlines
            .iter()
            .map(|d| (names[d.seat].clone(), deadline_text(d, &clock)))
            .collect(),
        vacation,
        undo: match (viewer, token) {
            (Viewer::Seat(seat), Some(_)) => loaded.game.can_undo(seat),
            _ => false,
        },
        settled,
        seat_account: None,
        seat_help: None,
        thread,
        seat_changes,
        hint_offered,
        hints_per_hour: 0,
        hint: None,
    })
}

/// `POST /play/{token}/vacation`: the seat's address starts (`action=start&days=N`) or ends
/// (`action=end`) a vacation; 303 back to the seat's page.
pub async fn vacation(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = seat_of(&state, &token).await?;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let email = state
        .store
        .seats(id)
        .await?
        .into_iter()
        .find(|s| s.seat == seat)
        .and_then(|s| s.email)
        .ok_or_else(|| WebError::BadRequest("a vacation needs the seat's email address".into()))?;
    let result = match field(&fields, "action") {
        Some("start") => {
            let days = field(&fields, "days")
                .and_then(|d| d.trim().parse::<u32>().ok())
                .ok_or_else(|| WebError::BadRequest("how many days?".into()))?;
            crate::clock::controls::start_vacation(
                &state.store,
                &email,
                days,
                state.settings.vacation_days,
            )
            .await
            .map(|_| ())
        }
        Some("end") => crate::clock::controls::end_vacation(&state.store, &email).await,
        _ => return Err(WebError::BadRequest("start or end a vacation".into())),
    };
    back_after(result, format!("/play/{token}"))
}

/// 303 back to `location` after a clock action, or why it was refused (409).
pub(in crate::web) fn back_after(
    result: Result<(), crate::clock::controls::ControlError>,
    location: String,
) -> Result<HttpResponse, WebError> {
    match result {
        Ok(()) => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", location))
            .finish()),
        Err(crate::clock::controls::ControlError::Refused(m)) => Err(WebError::Conflict(m)),
        Err(crate::clock::controls::ControlError::Db(e)) => Err(e.into()),
    }
}

/// The game and seat a seat link opens; 404 for a link that opens none.
pub(in crate::web) async fn seat_of(
    state: &AppState,
    token: &str,
) -> Result<(i64, Seat), WebError> {
    state
        .store
        .seat_by_token(token)
        .await?
        .ok_or(WebError::NotFound)
}

/// `GET /play/{token}`: a seat's page: its view and its choices.
pub async fn play(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    who: crate::web::accounts::session::MaybeSignedIn,
) -> Result<HttpResponse, WebError> {
    let Some((id, seat)) = state.store.seat_by_token(&token).await? else {
        return crate::web::accounts::me::dead_link(&req, &state, who.0.as_ref(), &token).await;
    };
    let loaded = state.store.load(id).await?;
    let (csrf_token, cookie) = csrf::token_for(&req);
    let seen = req
        .cookie(SEEN_COOKIE)
        .and_then(|c| c.value().parse::<i64>().ok());
    let seat_account = match who.0 {
        None => None,
        Some(account) => Some(match state.store.seat_owner(id, seat).await? {
            Some(owner) if owner == account.id => SeatAccount::Yours,
            Some(_) => SeatAccount::Another,
            None => SeatAccount::Claimable,
        }),
    };
    let mut page = play_page(
        &state,
        &loaded,
        PageFor {
            viewer: Viewer::Seat(seat),
            token: Some(&token),
            csrf: csrf_token,
            error: None,
            entries: None,
            seen,
            writer: Ok(format!("/play/{token}/messages")),
            reads_thread: true,
        },
    )
    .await?;
    page.seat_account = seat_account;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    response
        .add_cookie(&seen_cookie(
            &token,
            loaded.row.head_seq,
            state.secure_cookies,
        ))
        .map_err(|e| WebError::Internal(e.to_string()))?;
    Ok(response)
}

/// The seat's page again after its message was refused: the text kept in the form (open), and
/// why it was refused above it, with the status; nothing was written.
pub(in crate::web) async fn refused_message(
    req: &HttpRequest,
    state: &AppState,
    token: &str,
    text: &str,
    refused: &WebError,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = seat_of(state, token).await?;
    let mut page = seat_page_again(req, state, (token, id, seat)).await?;
    page.thread.draft = text.to_string();
    page.thread.draft_refused = Some(format!(
        "Your message was not sent: {refused}. It is kept below."
    ));
    let status = actix_web::ResponseError::status_code(refused);
    let mut response = html(status, page)?;
    if let Some(retry) = actix_web::ResponseError::error_response(refused)
        .headers()
        .get(actix_web::http::header::RETRY_AFTER)
    {
        response
            .headers_mut()
            .insert(actix_web::http::header::RETRY_AFTER, retry.clone());
    }
    Ok(response)
}

/// The seat's page as its holder sees it, to answer a form of its own with something added.
async fn seat_page_again(
    req: &HttpRequest,
    state: &AppState,
    (token, id, seat): (&str, i64, Seat),
) -> Result<Play, WebError> {
    let loaded = state.store.load(id).await?;
    let (csrf_token, _) = csrf::token_for(req);
    play_page(
        state,
        &loaded,
        PageFor {
            viewer: Viewer::Seat(seat),
            token: Some(token),
            csrf: csrf_token,
            error: None,
            entries: None,
            seen: None,
            writer: Ok(format!("/play/{token}/messages")),
            reads_thread: true,
        },
    )
    .await
}

/// The seat's page with a hint asked for, or why none was given, in the hint's panel; `status`
/// is the answer's (200 for a hint).
pub(in crate::web) async fn page_with_hint(
    req: &HttpRequest,
    state: &AppState,
    (token, id, seat): (&str, i64, Seat),
    hint: HintLine,
    status: StatusCode,
) -> Result<HttpResponse, WebError> {
    let mut page = seat_page_again(req, state, (token, id, seat)).await?;
    page.hint = Some(hint);
    html(status, page)
}

/// `POST /play/{token}`: a move from the play page's form; 303 back on success, the page with
/// the reason otherwise (nothing written).
pub async fn play_move(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    match move_and_answer(&req, &state, &token, &fields).await {
        // No database connection came in time: nothing was saved; the choice is kept.
        Err(WebError::NoConnection) => Ok(crate::web::http::admission::kept_move(
            &token,
            &fields,
            state.settings.retry_after,
        )),
        answer => answer,
    }
}

/// The seat page's move from its form: appended (and the page again), or the page with why
/// not.
async fn move_and_answer(
    req: &HttpRequest,
    state: &AppState,
    token: &str,
    fields: &[(String, String)],
) -> Result<HttpResponse, WebError> {
    let (id, seat) = seat_of(state, token).await?;
    csrf::check(req, field(fields, "csrf"))?;
    let loaded = state.store.load(id).await?;
    let refused = match move_from_form(state, &loaded, seat, fields).await {
        Ok(()) => {
            return Ok(HttpResponse::SeeOther()
                .insert_header(("Location", format!("/play/{token}")))
                .finish());
        }
        Err(refused) => refused,
    };
    if refused.0 == StatusCode::SERVICE_UNAVAILABLE {
        return Err(WebError::NoConnection);
    }
    // Someone moved first: show the game as it stands now.
    let loaded = if refused.0 == StatusCode::CONFLICT {
        state.store.load(id).await?
    } else {
        loaded
    };
    let (csrf_token, _) = csrf::token_for(req);
    let page = play_page(
        state,
        &loaded,
        PageFor {
            viewer: Viewer::Seat(seat),
            token: Some(token),
            csrf: csrf_token,
            error: Some(refused.1),
            entries: (refused.0 != StatusCode::CONFLICT).then_some(fields),
            seen: None,
            writer: Ok(format!("/play/{token}/messages")),
            reads_thread: true,
        },
    )
    .await?;
    html(refused.0, page)
}

/// Reads the move from the form and appends it, or says why not (status and reason).
async fn move_from_form(
    state: &AppState,
    loaded: &Loaded,
    seat: Seat,
    fields: &[(String, String)],
) -> Result<(), (StatusCode, String)> {
    let seq = field(fields, "seq")
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or((
            StatusCode::BAD_REQUEST,
            "the form is incomplete: reload the page".to_string(),
        ))?;
    // A page shown before the head: the store still takes the move when only other seats'
    // sealed choices came since (a simultaneous step), else it is refused as moved on.
    let stale = seq != loaded.row.head_seq;
    let moved_on = || {
        (
            StatusCode::CONFLICT,
            "the game moved on since this page was shown: here it is as it stands now; decide again"
                .to_string(),
        )
    };
    let submitted = if field(fields, "undo").is_some() {
        if stale {
            return Err(moved_on());
        }
        state.store.undo(loaded.row.id, seat, Some(seq)).await
    } else {
        let command = command_from_form(loaded, seat, fields)
            .map_err(|refused| if stale { moved_on() } else { refused })?;
        state
            .store
            .submit(loaded.row.id, seat, &command, Some(seq))
            .await
    };
    match submitted {
        Ok(_) => Ok(()),
        Err(SubmitError::Conflict { .. }) if stale => Err(moved_on()),
        Err(SubmitError::Conflict { .. }) => Err((
            StatusCode::CONFLICT,
            "someone moved first: here is the game as it stands now; decide again".into(),
        )),
        Err(SubmitError::Rule(r)) => Err((StatusCode::UNPROCESSABLE_ENTITY, r.to_string())),
        Err(SubmitError::Malformed(m)) => Err((StatusCode::BAD_REQUEST, m)),
        Err(SubmitError::TooLarge(m)) => Err((StatusCode::PAYLOAD_TOO_LARGE, m)),
        Err(SubmitError::Refused(m)) => Err((StatusCode::FORBIDDEN, m)),
        Err(SubmitError::Db(sqlx::Error::PoolTimedOut)) => Err((
            StatusCode::SERVICE_UNAVAILABLE,
            "no database connection came in time".into(),
        )),
        Err(e) => Err((
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the move could not be saved: {e}"),
        )),
    }
}

/// The command a move form names: its choice, filled from the form's fields.
fn command_from_form(
    loaded: &Loaded,
    seat: Seat,
    fields: &[(String, String)],
) -> Result<Value, (StatusCode, String)> {
    let choices = loaded.game.choices(seat);
    let choice = field(fields, "choice")
        .and_then(|c| c.parse::<usize>().ok())
        .and_then(|i| choices.get(i))
        .ok_or((
            StatusCode::UNPROCESSABLE_ENTITY,
            "that move is not open to you now".to_string(),
        ))?;
    values_from_form(choice, fields)
        .and_then(|v| choice.build(&v).map_err(|e| fill_error_words(choice, e)))
        .map_err(|reason| (StatusCode::UNPROCESSABLE_ENTITY, reason))
}

/// A refused form's entry in a player's words: the question asked, then what is wrong with
/// the answer ("Which cards go back? Choose 6; you chose 5.").
fn fill_error_words(choice: &crate::engine::Choice, error: FillError) -> String {
    let (field, reason) = match error {
        FillError::Missing(field) => (field, "no answer given".to_string()),
        FillError::Invalid { field, reason } => (field, reason),
    };
    let reason = render(&reason, &[]);
    match choice.params.iter().find(|p| p.field == field) {
        Some(param) => format!("{} {reason}.", param.prompt.trim_end_matches(':')),
        None => format!("{reason}."),
    }
}

/// `GET /games/{id}` (a listed game) or `/watch/{token}` (by its spectator link): the public view, with the message form for a signed-in reader who may
/// write (as their seat, or as a spectator where the creator allowed it).
pub async fn spectate(
    req: HttpRequest,
    state: web::Data<AppState>,
    public: crate::web::public::game::PublicGame,
    crate::web::accounts::session::MaybeSignedIn(account): crate::web::accounts::session::MaybeSignedIn,
) -> Result<HttpResponse, WebError> {
    let loaded = state.store.load(public.id).await?;
    let (csrf_token, cookie) = csrf::token_for(&req);
    let reads_thread =
        crate::web::seat::messages::reads_thread(&state, loaded.row.id, account.as_ref()).await?;
    let writer = crate::web::seat::messages::public_writer(&state, loaded.row.id, account.as_ref())
        .await?
        .map(|_| format!("{}/messages", public.base));
    let page = play_page(
        &state,
        &loaded,
        PageFor {
            viewer: Viewer::Spectator,
            token: None,
            csrf: csrf_token,
            error: None,
            entries: None,
            seen: None,
            writer,
            reads_thread,
        },
    )
    .await?;
    let mut page = page;
    page.seat_help = Some(seat_help(&state, &req, &loaded).await?);
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// The public page's help for players: back to the seat this browser took up, or a new link
/// mailed to a seat's own address.
async fn seat_help(
    state: &AppState,
    req: &HttpRequest,
    loaded: &Loaded,
) -> Result<SeatHelp, WebError> {
    let id = loaded.row.id;
    let mut your_seat = None;
    if let Some(cookie) = req.cookie(&crate::web::seat::handover::seat_cookie_name(id))
        && let Some((game, _)) = state.store.seat_by_token(cookie.value()).await?
        && game == id
    {
        your_seat = Some(format!("/play/{}", cookie.value()));
    }
    let mut mailable = Vec::new();
    if loaded.game.outcome().is_none() {
        let game = find_game(&loaded.row.kind).ok_or(WebError::NotFound)?;
        let seats = state.store.seats(id).await?;
        let count = seats.len();
        for s in seats.into_iter().filter(|s| s.email.is_some()) {
            mailable.push((
                s.seat,
                format!("{} ({})", s.name, game.seat_name(s.seat, count)),
            ));
        }
    }
    Ok(SeatHelp {
        your_seat,
        mailable,
        mailed: req.query_string().split('&').any(|p| p == "mailed=1"),
    })
}
