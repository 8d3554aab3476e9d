//! A club's leagues on its pages and in the API (issue 33, item 6): the club page's Leagues
//! section, the form an admin opens a league with, a league's page (entrants, rounds, the
//! table), sign-up and withdrawal by form and by API. Every route answers a private club's
//! non-members exactly as a club that does not exist; every form is a POST with the CSRF
//! token, and a signed-out reader is sent to sign in first.

use crate::domain::{ClubRole, LeagueName};
use crate::engine::DynGame;
use crate::games::find_game;
use crate::leagues::{Finish, Meetings, Mode, TieBreak};
use crate::store::{
    Account, ClubError, LeagueLine, LeagueView, MAX_ACTIVE_LEAGUES, MAX_SIGNUP_DAYS, NewLeague,
    meetings_word, mode_word, plan_words,
};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::clubs::club::{
    ClubQuery, club_error, club_page, see_other, sign_in_first, status_of,
};
use crate::web::desk::create::{
    OptionField, Refused, clock_from_form, option_fields, options_from_form,
};
use crate::web::http::csrf;
use crate::web::http::page::FormEcho;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use serde_json::{Value, json};

/// A league in the club page's list.
pub(in crate::web) struct LeagueItem {
    pub(in crate::web) id: i64,
    pub(in crate::web) name: String,
    pub(in crate::web) game: String,
    pub(in crate::web) status: &'static str,
    pub(in crate::web) entrants: i64,
    pub(in crate::web) closes: String,
    pub(in crate::web) signup: bool,
    pub(in crate::web) entered: bool,
}

/// The club page's Leagues section.
#[derive(Default)]
pub(in crate::web) struct ClubLeagues {
    pub(in crate::web) items: Vec<LeagueItem>,
    /// The games an admin may open a league for: (id, name).
    pub(in crate::web) games: Vec<(String, String)>,
}

fn status_words(status: &str) -> &'static str {
    match status {
        "signup" => "sign-up open",
        "running" => "running",
        "finished" => "finished",
        _ => "cancelled",
    }
}

fn game_name(kind: &str) -> String {
    find_game(kind).map_or(kind.to_string(), |g| g.name().to_string())
}

/// The Leagues section of the club's page, for a member (empty for anyone else).
pub(in crate::web) async fn club_section(
    state: &AppState,
    club: i64,
    reader: Option<&Account>,
    member: bool,
    admin: bool,
) -> Result<ClubLeagues, WebError> {
    if !member {
        return Ok(ClubLeagues::default());
    }
    let now = state.store.now();
    let lines: Vec<LeagueLine> = state.store.club_leagues(club, reader.map(|a| a.id)).await?;
    Ok(ClubLeagues {
        items: lines
            .into_iter()
            .map(|l| LeagueItem {
                id: l.id,
                game: game_name(&l.kind),
                status: status_words(&l.status),
                entrants: l.entrants,
                closes: l.signup_closes_at.format("%-d %b %Y %H:%M UTC").to_string(),
                signup: l.status == "signup" && l.signup_closes_at > now,
                entered: l.entered,
                name: l.name,
            })
            .collect(),
        games: if admin {
            crate::games::registry()
                .iter()
                .map(|g| (g.id().to_string(), g.name().to_string()))
                .collect()
        } else {
            Vec::new()
        },
    })
}

#[derive(Template)]
#[template(path = "clubs/new_league.html")]
struct NewLeaguePage {
    club: i64,
    club_name: String,
    kind: String,
    name: String,
    counts: Vec<usize>,
    max_seats: usize,
    /// The game's name with its article: "an Electoral College Combat".
    a_name: String,
    options: Vec<OptionField>,
    csrf: String,
    /// What was sent, shown again after a refusal.
    form: FormEcho,
    error: Option<String>,
    time_zone: String,
    max_days: i64,
    max_active: i64,
}

fn new_league_page(
    game: &'static dyn DynGame,
    club: (i64, String),
    reader: &Account,
    csrf: String,
    form: FormEcho,
    error: Option<String>,
) -> NewLeaguePage {
    let (min, max) = game.seat_counts();
    NewLeaguePage {
        club: club.0,
        club_name: club.1,
        kind: game.id().to_string(),
        name: game.name().to_string(),
        counts: (min.max(2)..=max.min(4)).collect(),
        max_seats: max.min(4),
        a_name: crate::words::with_article(game.name()),
        options: option_fields(game, &form),
        csrf,
        form,
        error,
        time_zone: reader.time_zone.clone(),
        max_days: MAX_SIGNUP_DAYS,
        max_active: MAX_ACTIVE_LEAGUES,
    }
}

/// The club, for its admin: (id, name); 404 as for any club route to a private club's
/// non-member, 403 to anyone else who is no admin.
async fn admin_club(
    state: &AppState,
    club: i64,
    reader: &Account,
) -> Result<(i64, String), WebError> {
    let (club, role) = state
        .store
        .club_for(club, Some(reader.id))
        .await?
        .ok_or(WebError::NotFound)?;
    if role != Some(ClubRole::Admin) {
        return Err(WebError::Forbidden(
            "only the club's admins may open a league".into(),
        ));
    }
    Ok((club.id, club.name))
}

/// `GET /clubs/{club}/leagues/new/{kind}`: the form that opens a league (an admin).
pub async fn new_league(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, String)>,
) -> Result<HttpResponse, WebError> {
    let (club, kind) = path.into_inner();
    let Some(account) = who.0 else {
        return Ok(sign_in_first(&format!("/clubs/{club}")));
    };
    let club = admin_club(&state, club, &account).await?;
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    let (token, cookie) = csrf::token_for(&req);
    let mut response = html(
        StatusCode::OK,
        new_league_page(game, club, &account, token, FormEcho::blank(), None),
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// The closing time typed in the form (`closes`, `YYYY-MM-DDTHH:MM`), in the admin's time zone.
fn closing_time(text: &str, zone: &str) -> Result<DateTime<Utc>, String> {
    let local = NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%dT%H:%M")
        .map_err(|_| "give the date and time sign-up closes".to_string())?;
    let tz: chrono_tz::Tz = zone.parse().unwrap_or(chrono_tz::UTC);
    tz.from_local_datetime(&local)
        .earliest()
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| "that time does not exist in your time zone".to_string())
}

/// The league the form asks for, or what is wrong with it.
fn league_from_form(
    game: &'static dyn DynGame,
    fields: &[(String, String)],
    reader: &Account,
) -> Result<NewLeague, Refused> {
    let at = |field: &str| {
        let field = field.to_string();
        move |message: String| Refused {
            fields: vec![field],
            message,
        }
    };
    let name = LeagueName::parse(field(fields, "name").unwrap_or(""))
        .map_err(|e| at("name")(e.to_string()))?;
    let (min, max) = game.seat_counts();
    let seat_count = match field(fields, "players") {
        None => max.min(4),
        Some(n) => n
            .parse::<usize>()
            .ok()
            .filter(|n| (min.max(2)..=max.min(4)).contains(n))
            .ok_or_else(|| {
                at("players")(format!(
                    "a league of {} is played by {} to {} players a table",
                    game.name(),
                    min.max(2),
                    max.min(4)
                ))
            })?,
    };
    let meetings = match field(fields, "meetings").unwrap_or("once") {
        "once" => Meetings::Once,
        "twice" => Meetings::Twice,
        _ => return Err(at("meetings")("each pair meets once or twice".into())),
    };
    let mode = match field(fields, "mode").unwrap_or("sequential") {
        "sequential" => Mode::Sequential,
        "all_at_once" => Mode::AllAtOnce,
        _ => return Err(at("mode")("rounds are sequential or all at once".into())),
    };
    let timeout_limit = match field(fields, "timeout_limit").map(str::trim) {
        None | Some("") => None,
        Some(n) => Some(
            n.parse::<i32>()
                .ok()
                .filter(|n| (1..=100).contains(n))
                .ok_or_else(|| {
                    at("timeout_limit")(
                        "the timeout limit is a number of losses on time, 1 to 100 (or empty)"
                            .into(),
                    )
                })?,
        ),
    };
    let options = options_from_form(game, fields)?;
    let clock = clock_from_form(fields)?;
    let signup_closes_at = closing_time(field(fields, "closes").unwrap_or(""), &reader.time_zone)
        .map_err(at("closes"))?;
    Ok(NewLeague {
        name,
        kind: game.id().to_string(),
        options,
        seat_count,
        clock,
        meetings,
        mode,
        timeout_limit,
        signup_closes_at,
    })
}

/// `POST /clubs/{club}/leagues/new/{kind}`: an admin opens the league; 422 with the form and
/// the reason for bad input, nothing written.
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, kind) = path.into_inner();
    let Some(account) = who.0 else {
        return Ok(sign_in_first(&format!("/clubs/{club}")));
    };
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let club_named = admin_club(&state, club, &account).await?;
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    let refuse = |status: StatusCode, refused: Refused| {
        let (token, _) = csrf::token_for(&req);
        let form = refused.echo(&fields);
        let page = new_league_page(
            game,
            club_named.clone(),
            &account,
            token,
            form,
            Some(refused.message),
        );
        html(status, page)
    };
    let new = match league_from_form(game, &fields, &account) {
        Ok(new) => new,
        Err(refused) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, refused),
    };
    match state.store.open_league(club, &account, &new).await {
        Ok(id) => Ok(see_other(format!("/clubs/{club}/leagues/{id}"))),
        Err(e @ (ClubError::NotFound | ClubError::Store(_))) => Err(club_error(e)),
        Err(e) => refuse(status_of(&e), Refused::plain(e.to_string())),
    }
}

struct EntrantLine {
    name: String,
    left: bool,
    you: bool,
}

struct GameCell {
    players: Vec<String>,
    game_id: Option<i64>,
    state: String,
}

struct RoundBlock {
    round: i32,
    games: Vec<GameCell>,
}

struct TableLine {
    place: usize,
    name: String,
    points: String,
    sb: String,
    played: u32,
    pending: u32,
    record: String,
    forfeited: u32,
    lost_on_time: u32,
    left: bool,
    tie_break: Option<&'static str>,
}

#[derive(Template)]
#[template(path = "clubs/league.html")]
struct LeaguePage {
    club: i64,
    id: i64,
    name: String,
    game: String,
    status: &'static str,
    plan: String,
    players: usize,
    time_control: String,
    timeout_limit: Option<i32>,
    closes: String,
    signup: bool,
    member: bool,
    entered: bool,
    entrants: Vec<EntrantLine>,
    rounds: Vec<RoundBlock>,
    table: Vec<TableLine>,
    /// The winner, once every game has ended.
    winner: Option<String>,
    csrf: String,
    error: Option<String>,
}

fn tie_break_words(t: TieBreak) -> &'static str {
    match t {
        TieBreak::SonnebornBerger => "Sonneborn-Berger",
        TieBreak::Wins => "more wins",
        TieBreak::SignUp => "earlier sign-up",
    }
}

/// How a league game stands, in words.
fn game_state(view: &LeagueView, g: &crate::store::ScheduledGame) -> String {
    let name = |s: usize| view.name_of(g.seats[s]).to_string();
    match (&g.finish, g.ended, g.game_id) {
        (Some(Finish::TimedOut(s)), _, _) => format!("{} lost on time", name(*s)),
        (Some(Finish::Places(places)), _, _) => {
            let best = places.iter().min().copied().unwrap_or(1);
            let first: Vec<String> = (0..places.len())
                .filter(|&s| places[s] == best)
                .map(name)
                .collect();
            if first.len() == places.len() {
                "draw".into()
            } else {
                let mut order: Vec<usize> = (0..places.len()).collect();
                order.sort_by_key(|&s| places[s]);
                if places.len() == 2 {
                    format!("{} won", first.join(" and "))
                } else {
                    order
                        .iter()
                        .map(|&s| format!("{}. {}", places[s], name(s)))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            }
        }
        (None, true, _) => {
            let left: Vec<String> = view
                .entrants
                .iter()
                .filter(|e| e.left && g.seats.contains(&e.account_id))
                .map(|e| e.name.clone())
                .collect();
            if left.is_empty() {
                "cancelled: no result".into()
            } else {
                format!("forfeited: {} left", left.join(" and "))
            }
        }
        (None, false, Some(_)) => "playing".into(),
        (None, false, None) => "not started".into(),
    }
}

fn league_page(
    view: &LeagueView,
    reader: Option<&Account>,
    member: bool,
    now: DateTime<Utc>,
    csrf: String,
) -> LeaguePage {
    let league = &view.league;
    let game = find_game(&league.kind);
    let seat_label = |s: usize| {
        game.map_or(format!("Seat {}", s + 1), |g| {
            g.seat_name(s, league.seat_count)
        })
    };
    let mut rounds: Vec<RoundBlock> = Vec::new();
    for g in &view.games {
        if rounds.last().is_none_or(|r| r.round != g.round + 1) {
            rounds.push(RoundBlock {
                round: g.round + 1,
                games: Vec::new(),
            });
        }
        let cell = GameCell {
            players: g
                .seats
                .iter()
                .enumerate()
                .map(|(s, a)| format!("{}: {}", seat_label(s), view.name_of(*a)))
                .collect(),
            game_id: g.game_id,
            state: game_state(view, g),
        };
        if let Some(r) = rounds.last_mut() {
            r.games.push(cell);
        }
    }
    let table = view
        .standings
        .as_ref()
        .map(|s| {
            s.rows
                .iter()
                .map(|r| TableLine {
                    place: r.place,
                    name: view.name_of(r.entrant).to_string(),
                    points: r.points.to_string(),
                    sb: r.sonneborn_berger.to_string(),
                    played: r.played,
                    pending: r.pending,
                    record: format!("{}–{}–{}", r.wins, r.losses, r.draws),
                    forfeited: r.forfeited,
                    lost_on_time: r.lost_on_time,
                    left: r.left,
                    tie_break: r.tie_break.map(tie_break_words),
                })
                .collect()
        })
        .unwrap_or_default();
    let me = reader.map(|a| a.id);
    LeaguePage {
        club: league.club_id,
        id: league.id,
        name: league.name.clone(),
        game: game_name(&league.kind),
        status: status_words(&league.status),
        plan: plan_words(league.meetings, league.mode),
        players: league.seat_count,
        time_control: league.clock().describe(),
        timeout_limit: league.timeout_limit,
        closes: league
            .signup_closes_at
            .format("%-d %B %Y, %H:%M UTC")
            .to_string(),
        signup: league.status == "signup" && league.signup_closes_at > now,
        member,
        entered: view.entrants.iter().any(|e| Some(e.account_id) == me),
        entrants: view
            .entrants
            .iter()
            .map(|e| EntrantLine {
                name: e.name.clone(),
                left: e.left,
                you: Some(e.account_id) == me,
            })
            .collect(),
        winner: (league.status == "finished")
            .then(|| {
                view.standings
                    .as_ref()
                    .and_then(|s| s.rows.first())
                    .map(|r| view.name_of(r.entrant).to_string())
            })
            .flatten(),
        rounds,
        table,
        csrf,
        error: None,
    }
}

/// `GET /clubs/{club}/leagues/{league}`: the league's page.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, WebError> {
    let (club, league) = path.into_inner();
    let (view, role) = state
        .store
        .league_for(club, league, who.0.as_ref().map(|a| a.id))
        .await?
        .ok_or(WebError::NotFound)?;
    let (token, cookie) = csrf::token_for(&req);
    let page = league_page(
        &view,
        who.0.as_ref(),
        role.is_some(),
        state.store.now(),
        token,
    );
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// What a sign-up form does.
#[derive(Clone, Copy)]
enum Entry {
    SignUp,
    Withdraw,
}

async fn enter(
    state: &AppState,
    club: i64,
    league: i64,
    account: &Account,
    entry: Entry,
) -> Result<(), ClubError> {
    match entry {
        Entry::SignUp => state.store.sign_up_for_league(club, league, account).await,
        Entry::Withdraw => {
            state
                .store
                .withdraw_from_league(club, league, account)
                .await
        }
    }
}

async fn entry_form(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
    entry: Entry,
) -> Result<HttpResponse, WebError> {
    let (club, league) = path.into_inner();
    let Some(account) = who.0 else {
        return Ok(sign_in_first(&format!("/clubs/{club}")));
    };
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let e = match enter(&state, club, league, &account, entry).await {
        Ok(()) => return Ok(see_other(format!("/clubs/{club}/leagues/{league}"))),
        Err(e @ (ClubError::NotFound | ClubError::Store(_))) => return Err(club_error(e)),
        Err(e) => e,
    };
    let (token, _) = csrf::token_for(&req);
    let Some((view, role)) = state
        .store
        .league_for(club, league, Some(account.id))
        .await?
    else {
        let mut page =
            club_page(&state, club, Some(&account), &ClubQuery::default(), token).await?;
        page.error = Some(e.to_string());
        return html(status_of(&e), page);
    };
    let mut page = league_page(
        &view,
        Some(&account),
        role.is_some(),
        state.store.now(),
        token,
    );
    page.error = Some(e.to_string());
    html(status_of(&e), page)
}

/// `POST /clubs/{club}/leagues/{league}/signup`: the reader signs up.
pub async fn sign_up(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    entry_form(req, state, who, path, body, Entry::SignUp).await
}

/// `POST /clubs/{club}/leagues/{league}/withdraw`: the reader withdraws before sign-up closes.
pub async fn withdraw(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    entry_form(req, state, who, path, body, Entry::Withdraw).await
}

/// The league as JSON: its settings, entrants, games with their ids and results, the table.
fn league_json(view: &LeagueView, reader: Option<&Account>) -> Value {
    let league = &view.league;
    let names = |seats: &[i64]| -> Vec<String> {
        seats.iter().map(|a| view.name_of(*a).to_string()).collect()
    };
    json!({
        "league": {
            "id": league.id,
            "club_id": league.club_id,
            "name": league.name,
            "kind": league.kind,
            "game": game_name(&league.kind),
            "players": league.seat_count,
            "meetings": meetings_word(league.meetings),
            "mode": mode_word(league.mode),
            "time_control": league.clock().describe(),
            "timeout_limit": league.timeout_limit,
            "signup_closes_at": league.signup_closes_at,
            "status": league.status,
            "started_at": league.started_at,
            "ended_at": league.ended_at,
        },
        "entered": reader.is_some_and(|r| view.entrants.iter().any(|e| e.account_id == r.id)),
        "entrants": view.entrants.iter().map(|e| json!({
            "name": e.name, "position": e.position, "left": e.left,
        })).collect::<Vec<_>>(),
        "games": view.games.iter().map(|g| json!({
            "round": g.round,
            "number": g.number,
            "seats": names(&g.seats),
            "game_id": g.game_id,
            "ended": g.ended,
            "result": match &g.finish {
                Some(Finish::Places(p)) => json!({"places": p}),
                Some(Finish::TimedOut(s)) => json!({"timed_out": s}),
                None => Value::Null,
            },
            "state": game_state(view, g),
        })).collect::<Vec<_>>(),
        "table": view.standings.as_ref().map(|s| s.rows.iter().map(|r| json!({
            "place": r.place,
            "name": view.name_of(r.entrant),
            "points": r.points.to_string(),
            "points_quarters": r.points.quarters(),
            "sonneborn_berger": r.sonneborn_berger.to_string(),
            "sonneborn_berger_quarters": r.sonneborn_berger.quarters(),
            "played": r.played,
            "pending": r.pending,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "forfeited": r.forfeited,
            "lost_on_time": r.lost_on_time,
            "left": r.left,
            "tie_break": r.tie_break.map(tie_break_words),
        })).collect::<Vec<_>>()).unwrap_or_default(),
    })
}

/// The account an API request acts for: a personal API token (`Authorization: Bearer`), else
/// the session; none without either; 401 for a token that is wrong or revoked.
async fn api_reader(req: &HttpRequest, state: &AppState) -> Result<Option<Account>, WebError> {
    if req.headers().contains_key(AUTHORIZATION)
        || crate::web::accounts::session::token(req).is_some()
    {
        return crate::web::accounts::me::api_account(req, state)
            .await
            .map(Some);
    }
    Ok(None)
}

/// `GET /api/clubs/{club}/leagues/{league}`: the league as JSON, to whoever may see the club.
pub async fn api_league(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, WebError> {
    let (club, league) = path.into_inner();
    let reader = api_reader(&req, &state).await?;
    let (view, _) = state
        .store
        .league_for(club, league, reader.as_ref().map(|a| a.id))
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(HttpResponse::Ok().json(league_json(&view, reader.as_ref())))
}

async fn api_entry(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(i64, i64)>,
    entry: Entry,
) -> Result<HttpResponse, WebError> {
    let (club, league) = path.into_inner();
    let account = crate::web::accounts::me::api_account(&req, &state).await?;
    if !req.headers().contains_key(AUTHORIZATION) {
        // A session's cookie goes with any request the browser makes: the page's token must
        // come back in a header a form from another site cannot set.
        let sent = req
            .headers()
            .get("x-csrf-token")
            .and_then(|h| h.to_str().ok());
        csrf::check(&req, sent)?;
    }
    enter(&state, club, league, &account, entry)
        .await
        .map_err(club_error)?;
    let (view, _) = state
        .store
        .league_for(club, league, Some(account.id))
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(HttpResponse::Ok().json(league_json(&view, Some(&account))))
}

/// `POST /api/clubs/{club}/leagues/{league}/signup`: the account signs up; the league as JSON.
pub async fn api_sign_up(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, WebError> {
    api_entry(req, state, path, Entry::SignUp).await
}

/// `POST /api/clubs/{club}/leagues/{league}/withdraw`: the account withdraws; the league as
/// JSON.
pub async fn api_withdraw(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(i64, i64)>,
) -> Result<HttpResponse, WebError> {
    api_entry(req, state, path, Entry::Withdraw).await
}
