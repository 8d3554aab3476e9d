//! A club's ratings on its pages: the standings of each game it has ratings in (top rows on
//! the club's page, every row on the standings' pages) and a member's rating history with its
//! chart. Members only: to anyone
//! else a private club does not exist, and a public club's standings name its members, whom
//! only members see.

use crate::games::find_game;
use crate::store::{Account, RatingRow};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::http::page::html;
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

/// How many rows of each game's standings the club's page shows.
pub const TOP_ROWS: i64 = 10;

/// One member's line in a game's standings.
pub struct StandingLine {
    /// Place, from 1.
    pub position: i64,
    /// The member's account (for the link to their history).
    pub account_id: i64,
    /// The member's name.
    pub name: String,
    /// The rating shown, with "?" while provisional.
    pub rating: String,
    /// Won, lost and drawn ("3–1–0").
    pub record: String,
    /// Moves on time, in percent ("100 %"), or "–".
    pub on_time: String,
}

/// One game's standings.
pub struct StandingsTable {
    /// The game's id (`"whitehouse"`).
    pub kind: String,
    /// The game's name.
    pub game: String,
    /// The best rows.
    pub lines: Vec<StandingLine>,
}

fn line(row: &RatingRow) -> StandingLine {
    StandingLine {
        position: row.position,
        account_id: row.account_id,
        name: row.name.clone(),
        rating: if row.provisional() {
            format!("{}?", row.rating)
        } else {
            row.rating.to_string()
        },
        record: format!("{}–{}–{}", row.wins, row.losses, row.draws),
        on_time: row
            .on_time_percent()
            .map_or("–".to_string(), |p| format!("{p} %")),
    }
}

/// The top of each game's standings in club `id`, for a member's view of the club's page.
pub async fn standings(state: &AppState, id: i64) -> Result<Vec<StandingsTable>, WebError> {
    let mut tables = Vec::new();
    for kind in state.store.club_rated_kinds(id).await? {
        let page = state.store.club_standings(id, &kind, 0).await?;
        let lines: Vec<StandingLine> = page.rows.iter().take(TOP_ROWS as usize).map(line).collect();
        if lines.is_empty() {
            continue;
        }
        tables.push(StandingsTable {
            game: find_game(&kind).map_or(kind.clone(), |g| g.name().to_string()),
            kind,
            lines,
        });
    }
    Ok(tables)
}

/// A rated game in a member's history.
struct HistoryLine {
    game_id: i64,
    when: String,
    place: i32,
    result: &'static str,
    before: i32,
    after: i32,
}

#[derive(Template)]
#[template(path = "clubs/rating.html")]
struct RatingPage {
    club_id: i64,
    club: String,
    game: String,
    who: StandingLine,
    games: i32,
    chart: String,
    history: Vec<HistoryLine>,
}

/// `GET /clubs/{club}/ratings/{kind}/{account}`: a member's rating in one game of the club,
/// its chart and the rated games behind it; 404 to anyone but the club's members.
pub async fn member_rating(
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, String, i64)>,
) -> Result<HttpResponse, WebError> {
    let (club_id, kind, account_id) = path.into_inner();
    let reader: Option<&Account> = who.0.as_ref();
    let Some(reader) = reader else {
        return Err(WebError::NotFound);
    };
    let (club, role) = state
        .store
        .club_for(club_id, Some(reader.id))
        .await?
        .ok_or(WebError::NotFound)?;
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    if role.is_none() {
        return Err(WebError::NotFound);
    }
    let row = state
        .store
        .club_rating(club_id, &kind, account_id)
        .await?
        .ok_or(WebError::NotFound)?;
    let points = state
        .store
        .rating_history(club_id, &kind, account_id)
        .await?;
    let page = RatingPage {
        club_id,
        club: club.name.clone(),
        game: game.name().to_string(),
        chart: crate::web::clubs::rating_chart::svg(&row.name, game.name(), &points),
        games: row.games,
        who: line(&row),
        history: points
            .iter()
            .rev()
            .map(|p| HistoryLine {
                game_id: p.game_id,
                when: p.at.format("%-d %b %Y").to_string(),
                place: p.place,
                result: p.result.as_str(),
                before: p.rating_before,
                after: p.rating_after,
            })
            .collect(),
    };
    html(StatusCode::OK, page)
}

#[derive(Template)]
#[template(path = "clubs/standings.html")]
struct StandingsView {
    club_id: i64,
    club: String,
    kind: String,
    game: String,
    lines: Vec<StandingLine>,
    page: i64,
    previous: Option<String>,
    next: Option<String>,
}

/// The page (from 0) a query string asks for: `page=N`; 400 for anything but a number.
fn page_asked(query: &str) -> Result<i64, WebError> {
    let mut page = 0;
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        if key == "page" && !value.trim().is_empty() {
            page = value
                .trim()
                .parse::<i64>()
                .ok()
                .filter(|n| *n >= 0)
                .ok_or_else(|| {
                    WebError::BadRequest(format!("the page must be a number, not {value:?}"))
                })?;
        }
    }
    Ok(page)
}

/// `GET /clubs/{club}/standings/{kind}?page=N`: the whole of a game's standings in the club,
/// 50 members a page (the club's page shows the top 10); 404 to anyone but the club's members,
/// as the top 10 is theirs only.
pub async fn standings_page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, String)>,
) -> Result<HttpResponse, WebError> {
    let (club_id, kind) = path.into_inner();
    let Some(reader) = who.0.as_ref() else {
        return Err(WebError::NotFound);
    };
    let (club, role) = state
        .store
        .club_for(club_id, Some(reader.id))
        .await?
        .ok_or(WebError::NotFound)?;
    if role.is_none() {
        return Err(WebError::NotFound);
    }
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    let page = page_asked(req.query_string())?;
    let found = state.store.club_standings(club_id, &kind, page).await?;
    let at = |p: i64| format!("/clubs/{club_id}/standings/{kind}?page={p}");
    let view = StandingsView {
        club_id,
        club: club.name.clone(),
        game: game.name().to_string(),
        lines: found.rows.iter().map(line).collect(),
        kind: kind.clone(),
        page,
        previous: (page > 0).then(|| at(page - 1)),
        next: found.more.then(|| at(page + 1)),
    };
    html(StatusCode::OK, view)
}
