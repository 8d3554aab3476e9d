//! A club's archive page (issue 33, item 7): every finished game of the club, the last ended
//! first, 50 a page, filtered by game, player and league (filters combine and are kept across
//! pages), each with its replay, its verifiable record and its page. Seen by whoever may see
//! the club's games: anyone for a public club, its signed-in members for a private one; to
//! anyone else a private club's archive answers exactly as a club that does not exist.
//!
//! Filters: an empty value is no filter; a value that is not a number, a game not hosted, a
//! league not the club's or a player who never played in it (nor is a member, to a member)
//! answers 400 with the reason, the same reason whatever the id names elsewhere.

use crate::engine::log::render;
use crate::games::find_game;
use crate::store::{ArchiveFilter, ArchivedGame, Choice};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::http::page::html;
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

/// What the address asks for: the filters and the page (from 0).
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::web) struct ArchiveQuery {
    filter: ArchiveFilter,
    page: i64,
}

/// Reads `kind`, `player`, `league` and `page` from a query string (other keys are ignored; a
/// key given twice takes its last value). Refuses a value that is not one of its kind.
pub(in crate::web) fn parse_query(query: &str) -> Result<ArchiveQuery, WebError> {
    let mut parsed = ArchiveQuery::default();
    let number = |key: &str, value: &str| {
        value
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| {
                WebError::BadRequest(format!(
                    "the archive's {key} must be a number, not {value:?}"
                ))
            })
    };
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        let value = value.trim();
        match key.as_ref() {
            "kind" if value.is_empty() => parsed.filter.kind = None,
            "kind" => {
                let game = find_game(value).ok_or_else(|| {
                    WebError::BadRequest(format!("postplay hosts no game called {value:?}"))
                })?;
                parsed.filter.kind = Some(game.id().to_string());
            }
            "player" if value.is_empty() => parsed.filter.player = None,
            "player" => parsed.filter.player = Some(number("player", value)?),
            "league" if value.is_empty() => parsed.filter.league = None,
            "league" => parsed.filter.league = Some(number("league", value)?),
            "page" if value.is_empty() => parsed.page = 0,
            "page" => parsed.page = number("page", value)?,
            _ => {}
        }
    }
    Ok(parsed)
}

/// The archive's address for `filter` and `page` (empty filters and page 0 left out).
fn address(club: i64, filter: &ArchiveFilter, page: i64) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    if let Some(kind) = &filter.kind {
        query.append_pair("kind", kind);
    }
    if let Some(player) = filter.player {
        query.append_pair("player", &player.to_string());
    }
    if let Some(league) = filter.league {
        query.append_pair("league", &league.to_string());
    }
    if page > 0 {
        query.append_pair("page", &page.to_string());
    }
    let query = query.finish();
    if query.is_empty() {
        format!("/clubs/{club}/archive")
    } else {
        format!("/clubs/{club}/archive?{query}")
    }
}

/// An option of a filter's select.
struct Pick {
    value: String,
    name: String,
    selected: bool,
}

/// A player of an archived game: the name links to the archive filtered by them.
struct PlayerCell {
    name: String,
    href: Option<String>,
}

struct ArchiveRow {
    id: i64,
    game: String,
    players: Vec<PlayerCell>,
    result: String,
    cancelled: bool,
    league: String,
    ended: String,
}

#[derive(Template)]
#[template(path = "clubs/archive.html")]
struct ArchivePageView {
    club_id: i64,
    club: String,
    kinds: Vec<Pick>,
    players: Vec<Pick>,
    leagues: Vec<Pick>,
    filtered: bool,
    rows: Vec<ArchiveRow>,
    page: i64,
    previous: Option<String>,
    next: Option<String>,
}

fn row(club: i64, filter: &ArchiveFilter, game: ArchivedGame) -> ArchiveRow {
    let players = game
        .names
        .iter()
        .enumerate()
        .map(|(seat, name)| PlayerCell {
            name: name.clone(),
            href: game.accounts.get(seat).copied().flatten().map(|account| {
                let by_player = ArchiveFilter {
                    player: Some(account),
                    ..filter.clone()
                };
                address(club, &by_player, 0)
            }),
        })
        .collect();
    ArchiveRow {
        id: game.id,
        game: find_game(&game.kind).map_or(game.kind.clone(), |k| k.name().to_string()),
        result: game
            .result
            .as_deref()
            .map(|r| render(r, &game.names))
            .unwrap_or_default(),
        players,
        cancelled: game.cancelled,
        league: game.league.unwrap_or_default(),
        ended: game.ended_at.format("%-d %b %Y, %H:%M UTC").to_string(),
    }
}

/// `GET /clubs/{club}/archive?kind=&player=&league=&page=`: the club's finished games.
pub async fn archive(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    club_id: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let club_id = *club_id;
    let (club, role) = state
        .store
        .club_for(club_id, who.0.as_ref().map(|a| a.id))
        .await?
        .ok_or(WebError::NotFound)?;
    let member = role.is_some();
    let ArchiveQuery { filter, page } = parse_query(req.query_string())?;
    let mut players = state.store.archive_players(club_id, member).await?;
    if let Some(player) = filter.player {
        let name = state
            .store
            .archive_player(club_id, player, member)
            .await?
            .ok_or_else(|| {
                WebError::BadRequest(
                    "the player filter names nobody who played in this club".into(),
                )
            })?;
        if !players.iter().any(|p| p.id == player) {
            players.push(Choice { id: player, name });
        }
    }
    let leagues = state.store.archive_leagues(club_id).await?;
    if let Some(league) = filter.league
        && !leagues.iter().any(|l| l.id == league)
        && state
            .store
            .club_league_name(club_id, league)
            .await?
            .is_none()
    {
        return Err(WebError::BadRequest(
            "the league filter names no league of this club".into(),
        ));
    }
    let found = state.store.club_archive(club_id, &filter, page).await?;
    let options = |choices: &[Choice], chosen: Option<i64>| {
        choices
            .iter()
            .map(|c| Pick {
                value: c.id.to_string(),
                name: c.name.clone(),
                selected: chosen == Some(c.id),
            })
            .collect()
    };
    let view = ArchivePageView {
        club_id,
        club: club.name.clone(),
        kinds: crate::games::registry()
            .iter()
            .map(|g| Pick {
                value: g.id().to_string(),
                name: g.name().to_string(),
                selected: filter.kind.as_deref() == Some(g.id()),
            })
            .collect(),
        players: options(&players, filter.player),
        leagues: options(&leagues, filter.league),
        filtered: filter != ArchiveFilter::default(),
        page,
        previous: (page > 0).then(|| address(club_id, &filter, page - 1)),
        next: found.more.then(|| address(club_id, &filter, page + 1)),
        rows: found
            .games
            .into_iter()
            .map(|g| row(club_id, &filter, g))
            .collect(),
    };
    html(StatusCode::OK, view)
}
