//! Clubs' pages (issue 33): the clubs I belong to and the public ones, a new club, and a club's
//! page: its members (names, never addresses), open tables, running and finished games, and
//! the forms of its members and admins ([`crate::web::clubs::admin`]). A private club answers every
//! route exactly as a club that does not exist to anyone but its signed-in members.

use crate::domain::{ClubDescription, ClubName, ClubRole};
use crate::engine::options::describe;
use crate::games::find_game;
use crate::store::{
    Account, CLUB_PAGE, Club, ClubError, ClubGame, MAX_CLUBS_MADE, NewClub, PendingInvite,
    waiting_words,
};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::http::csrf;
use crate::web::http::page::{FormEcho, field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

/// A redirect to the sign-in page, coming back to `next` after.
pub(in crate::web) fn sign_in_first(next: &str) -> HttpResponse {
    let next: String = form_urlencoded::byte_serialize(next.as_bytes()).collect();
    HttpResponse::SeeOther()
        .insert_header(("Location", format!("/signin?next={next}")))
        .finish()
}

/// A club in a list.
struct ClubLine {
    id: i64,
    name: String,
    description: String,
    private: bool,
    closed: bool,
    members: i64,
    role: Option<&'static str>,
}

fn line(club: &Club, role: Option<ClubRole>) -> ClubLine {
    ClubLine {
        id: club.id,
        name: club.name.clone(),
        description: club.description.clone(),
        private: club.private,
        closed: club.closed_at.is_some(),
        members: club.members,
        role: role.map(ClubRole::as_str),
    }
}

#[derive(Template)]
#[template(path = "clubs/list.html")]
struct ClubsPage {
    signed_in: bool,
    mine: Vec<ClubLine>,
    public: Vec<ClubLine>,
    page: i64,
    pages: i64,
    total: i64,
}

#[derive(serde::Deserialize)]
pub struct ClubsQuery {
    page: Option<i64>,
}

/// `GET /clubs`: the reader's clubs and the public clubs, a page at a time.
pub async fn list(
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    query: web::Query<ClubsQuery>,
) -> Result<HttpResponse, WebError> {
    let page = query.page.unwrap_or(0).clamp(0, 100_000);
    let mine = match &who.0 {
        Some(account) => state
            .store
            .clubs_of(account.id)
            .await?
            .iter()
            .map(|(club, role)| line(club, Some(*role)))
            .collect(),
        None => Vec::new(),
    };
    let (public, total) = state.store.public_clubs(page).await?;
    html(
        StatusCode::OK,
        ClubsPage {
            signed_in: who.0.is_some(),
            mine,
            public: public.iter().map(|c| line(c, None)).collect(),
            page,
            pages: (total + CLUB_PAGE - 1) / CLUB_PAGE,
            total,
        },
    )
}

#[derive(Template)]
#[template(path = "clubs/new_club.html")]
struct NewClubPage {
    csrf: String,
    error: Option<String>,
    name: String,
    description: String,
    private: bool,
    max_made: i64,
}

/// `GET /clubs/new`: the form that makes a club (signed in).
pub async fn new_club(req: HttpRequest, who: MaybeSignedIn) -> Result<HttpResponse, WebError> {
    if who.0.is_none() {
        return Ok(sign_in_first("/clubs/new"));
    }
    let (token, cookie) = csrf::token_for(&req);
    let mut response = html(
        StatusCode::OK,
        NewClubPage {
            csrf: token,
            error: None,
            name: String::new(),
            description: String::new(),
            private: true,
            max_made: MAX_CLUBS_MADE,
        },
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /clubs/new` (`name`, `description`, `privacy` = `private` | `public`): makes the club
/// with the reader as its admin; 422 with the form and the reason for bad input.
pub async fn create(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let Some(account) = who.0 else {
        return Ok(sign_in_first("/clubs/new"));
    };
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let name = field(&fields, "name").unwrap_or("");
    let description = field(&fields, "description").unwrap_or("");
    let privacy = field(&fields, "privacy").unwrap_or("");
    let refuse = |message: String| {
        let (token, _) = csrf::token_for(&req);
        html(
            StatusCode::UNPROCESSABLE_ENTITY,
            NewClubPage {
                csrf: token,
                error: Some(message),
                name: name.to_string(),
                description: description.to_string(),
                private: privacy != "public",
                max_made: MAX_CLUBS_MADE,
            },
        )
    };
    let private = match privacy {
        "private" => true,
        "public" => false,
        _ => return refuse("choose whether the club is private or public".into()),
    };
    let new = match (ClubName::parse(name), ClubDescription::parse(description)) {
        (Ok(name), Ok(description)) => NewClub {
            name,
            description,
            private,
        },
        (Err(e), _) | (_, Err(e)) => return refuse(e.to_string()),
    };
    match state.store.create_club(&account, &new).await {
        Ok(id) => Ok(see_other(format!("/clubs/{id}"))),
        Err(ClubError::Invalid(m)) => refuse(m),
        Err(e) => Err(club_error(e)),
    }
}

/// A 303 to `to`.
pub(in crate::web) fn see_other(to: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header(("Location", to))
        .finish()
}

/// How a refused club change answers when no page is shown for it.
pub(in crate::web) fn club_error(e: ClubError) -> WebError {
    match e {
        ClubError::NotFound => WebError::NotFound,
        ClubError::NotAllowed(m) => WebError::Forbidden(m),
        e @ ClubError::Closed => WebError::Conflict(e.to_string()),
        ClubError::Invalid(m) => WebError::BadRequest(m),
        ClubError::Store(e) => e.into(),
    }
}

/// The status of a refused club change shown on the club's page.
pub(in crate::web) fn status_of(e: &ClubError) -> StatusCode {
    match e {
        ClubError::NotFound => StatusCode::NOT_FOUND,
        ClubError::NotAllowed(_) => StatusCode::FORBIDDEN,
        ClubError::Closed => StatusCode::CONFLICT,
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

struct MemberRow {
    account_id: i64,
    name: String,
    admin: bool,
    you: bool,
    since: String,
}

struct TableRow {
    id: i64,
    game: String,
    options: Vec<(String, String)>,
    names: Vec<String>,
    free: i64,
    time_control: String,
    waiting: String,
}

struct GameRow {
    id: i64,
    game: String,
    players: String,
    moves: i64,
    when: String,
}

#[derive(Template)]
#[template(path = "clubs/club.html")]
pub(in crate::web) struct ClubPage {
    id: i64,
    name: String,
    description: String,
    private: bool,
    closed: Option<String>,
    member_count: i64,
    /// The reader is a member: they see the members, the tables and the member's forms.
    member: bool,
    admin: bool,
    signed_in: bool,
    members: Vec<MemberRow>,
    members_page: i64,
    members_pages: i64,
    tables: Vec<TableRow>,
    running: Vec<GameRow>,
    finished: Vec<GameRow>,
    finished_page: i64,
    games: Vec<(String, String)>,
    invites: Vec<PendingInvite>,
    /// The top of each game's standings (members only).
    standings: Vec<crate::web::clubs::ratings::StandingsTable>,
    /// The Leagues section (members only).
    leagues: crate::web::clubs::leagues::ClubLeagues,
    csrf: String,
    pub(in crate::web) error: Option<String>,
    /// The invitation form as sent, shown again after a refusal.
    pub(in crate::web) form: FormEcho,
}

fn game_rows(games: Vec<ClubGame>) -> Vec<GameRow> {
    games
        .into_iter()
        .map(|g| GameRow {
            id: g.id,
            game: find_game(&g.kind).map_or(g.kind.clone(), |k| k.name().to_string()),
            players: g.names.join(", "),
            moves: g.moves,
            when: g.updated_at.format("%-d %b %Y").to_string(),
        })
        .collect()
}

/// Which pages of a club's lists the reader asked for.
#[derive(serde::Deserialize, Default)]
pub struct ClubQuery {
    members: Option<i64>,
    finished: Option<i64>,
}

/// The club's page as `reader` may see it; 404 for a private club to a non-member.
pub(in crate::web) async fn club_page(
    state: &AppState,
    id: i64,
    reader: Option<&Account>,
    query: &ClubQuery,
    csrf: String,
) -> Result<ClubPage, WebError> {
    let (club, role) = state
        .store
        .club_for(id, reader.map(|a| a.id))
        .await?
        .ok_or(WebError::NotFound)?;
    let member = role.is_some();
    let admin = role == Some(ClubRole::Admin);
    let members_page = query.members.unwrap_or(0).clamp(0, 100_000);
    let finished_page = query.finished.unwrap_or(0).clamp(0, 100_000);
    let members = if member {
        state
            .store
            .members(id, members_page)
            .await?
            .into_iter()
            .map(|m| MemberRow {
                account_id: m.account_id,
                name: m.name,
                admin: m.role == ClubRole::Admin,
                you: reader.is_some_and(|r| r.id == m.account_id),
                since: m.joined_at.format("%-d %b %Y").to_string(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let now = state.store.now();
    let tables = if member {
        state
            .store
            .club_tables(id)
            .await?
            .into_iter()
            .filter_map(|t| {
                let game = find_game(&t.kind)?;
                Some(TableRow {
                    id: t.id,
                    game: game.name().to_string(),
                    options: describe(&game.option_specs(), &t.options),
                    names: t.names,
                    free: i64::from(t.seat_count) - t.taken,
                    time_control: t.clock.control_words(),
                    waiting: waiting_words(t.created_at, now),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let invites = if admin {
        state.store.pending_invites(id).await?
    } else {
        Vec::new()
    };
    Ok(ClubPage {
        id,
        name: club.name.clone(),
        description: club.description.clone(),
        private: club.private,
        closed: club.closed_at.map(|at| at.format("%-d %B %Y").to_string()),
        member_count: club.members,
        member,
        admin,
        signed_in: reader.is_some(),
        members,
        members_page,
        members_pages: (club.members + CLUB_PAGE - 1) / CLUB_PAGE,
        tables,
        running: game_rows(state.store.club_games(id, false, 0).await?),
        finished: game_rows(state.store.club_games(id, true, finished_page).await?),
        finished_page,
        games: crate::games::registry()
            .iter()
            .map(|g| (g.id().to_string(), g.name().to_string()))
            .collect(),
        invites,
        standings: if member {
            crate::web::clubs::ratings::standings(state, id).await?
        } else {
            Vec::new()
        },
        leagues: crate::web::clubs::leagues::club_section(state, id, reader, member, admin).await?,
        csrf,
        error: None,
        form: FormEcho::blank(),
    })
}

/// `GET /clubs/{club}`: the club's page.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    query: web::Query<ClubQuery>,
) -> Result<HttpResponse, WebError> {
    let (token, cookie) = csrf::token_for(&req);
    let page = club_page(&state, *id, who.0.as_ref(), &query, token).await?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}
