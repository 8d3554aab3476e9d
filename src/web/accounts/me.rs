//! "My games" (`/me`, and `/api/me/games` for scripts): every game of the signed-in account,
//! those awaiting its move first, then those waiting on others, then finished ones, each opened
//! with one click by a link made for the owner alone; and claiming a seat link into the account.

use crate::engine::log::render;
use crate::games::find_game;
use crate::store::{Account, Claim, MyGame, Standing};
use crate::web::accounts::session::{MaybeSignedIn, SignedIn};
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::http::header::AUTHORIZATION;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};
use serde::Serialize;

/// One game as the page and the JSON show it.
#[derive(Debug, Clone, Serialize)]
pub struct GameEntry {
    game_id: i64,
    kind: String,
    title: String,
    seat: usize,
    seat_name: String,
    players: Vec<String>,
    /// `your_move`, `waiting` or `finished`.
    standing: &'static str,
    moves: i64,
    deadline: Option<DateTime<Utc>>,
    waiting_since: Option<DateTime<Utc>>,
    waiting_on: Vec<String>,
    result: Option<String>,
    /// The status in words, times in the account's zone.
    status: String,
    /// Where to POST to open the seat's page.
    open: String,
    #[serde(skip)]
    your_move: bool,
}

/// A time in the account's zone, for a person.
fn local(at: &DateTime<Utc>, zone: &str) -> String {
    let zone: chrono_tz::Tz = zone.parse().unwrap_or(chrono_tz::UTC);
    at.with_timezone(&zone)
        .format("%a %-d %b %Y, %H:%M %Z")
        .to_string()
}

fn entry(g: MyGame, account: &Account) -> GameEntry {
    let zone = &account.time_zone;
    let name = find_game(&g.kind).map_or(g.kind.clone(), |k| k.name().to_string());
    let mut e = GameEntry {
        game_id: g.game_id,
        title: format!("{name} #{}", g.game_id),
        kind: g.kind,
        seat: g.seat,
        seat_name: g.names.get(g.seat).cloned().unwrap_or_default(),
        standing: "finished",
        moves: g.moves,
        deadline: None,
        waiting_since: None,
        waiting_on: Vec::new(),
        result: None,
        status: String::new(),
        open: format!("/me/games/{}/{}", g.game_id, g.seat),
        your_move: false,
        players: g.names.clone(),
    };
    match g.standing {
        Standing::YourMove { since, due } => {
            e.standing = "your_move";
            e.your_move = true;
            e.deadline = due;
            e.waiting_since = since;
            e.status = match due {
                Some(d) => format!("your move, by {}", local(&d, zone)),
                None => "your move".into(),
            };
        }
        Standing::Waiting { on, since } => {
            e.standing = "waiting";
            e.status = match (on.is_empty(), since) {
                (true, _) => "waiting".into(),
                (false, Some(s)) => {
                    format!("waiting on {} since {}", on.join(", "), local(&s, zone))
                }
                (false, None) => format!("waiting on {}", on.join(", ")),
            };
            e.waiting_on = on;
            e.waiting_since = since;
        }
        Standing::Finished { result } => {
            let words = result.map(|r| render(&r, &g.names));
            e.status = words.clone().unwrap_or_else(|| "finished".into());
            e.result = words;
        }
    }
    e
}

/// One of the account's tables still filling in the lobby, as /me and its JSON show it.
#[derive(Debug, Clone, serde::Serialize)]
struct TableEntry {
    table_id: i64,
    title: String,
    players: Vec<String>,
    seats: i32,
    expires: String,
    link: String,
}

async fn tables(state: &AppState, account: &Account) -> Result<Vec<TableEntry>, WebError> {
    Ok(state
        .store
        .open_tables_of(account.id)
        .await?
        .into_iter()
        .map(|t| TableEntry {
            table_id: t.id,
            title: format!(
                "{} table #{}",
                crate::games::find_game(&t.kind).map_or(t.kind.as_str(), |g| g.name()),
                t.id
            ),
            players: t.places.iter().filter_map(|p| p.name.clone()).collect(),
            seats: t.seat_count,
            expires: local(&t.expires_at, &account.time_zone),
            link: format!("/lobby/{}", t.id),
        })
        .collect())
}

async fn entries(state: &AppState, account: &Account) -> Result<(Vec<GameEntry>, i64), WebError> {
    let mine = state.store.my_games(account.id).await?;
    let listed = mine
        .games
        .iter()
        .filter(|g| matches!(g.standing, Standing::Finished { .. }))
        .count() as i64;
    let games = mine.games.into_iter().map(|g| entry(g, account)).collect();
    Ok((games, mine.finished_total - listed))
}

/// A game the account organises, as /me lists it with its desk.
struct OrganisedEntry {
    title: String,
    players: String,
    status: String,
    desk: String,
}

async fn organised(state: &AppState, account: &Account) -> Result<Vec<OrganisedEntry>, WebError> {
    Ok(state
        .store
        .organised_games(account.id)
        .await?
        .into_iter()
        .map(|g| OrganisedEntry {
            title: format!(
                "{} #{}",
                find_game(&g.kind).map_or(g.kind.as_str(), |k| k.name()),
                g.game_id
            ),
            players: g.names.join(", "),
            status: match g.status.as_str() {
                "running" => crate::words::count(g.moves, "move", "moves") + " so far",
                "cancelled" => "cancelled".into(),
                _ => "finished".into(),
            },
            desk: format!("/me/organised/{}", g.game_id),
        })
        .collect())
}

struct Section {
    title: &'static str,
    empty: &'static str,
    games: Vec<GameEntry>,
}

#[derive(Template)]
#[template(path = "accounts/me.html")]
struct MePage {
    name: String,
    email: String,
    zone: String,
    csrf: String,
    sections: Vec<Section>,
    finished_hidden: i64,
    tables: Vec<TableEntry>,
    /// The games the account organises, each with its desk.
    organised: Vec<OrganisedEntry>,
    /// The account's clubs: (id, name).
    clubs: Vec<(i64, String)>,
}

/// `GET /me`: the account's games; a visitor who is not signed in is sent to sign in.
pub async fn page(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
) -> Result<HttpResponse, WebError> {
    let Some(account) = who.0 else {
        return Ok(HttpResponse::SeeOther()
            .insert_header(("Location", "/signin?next=%2Fme"))
            .finish());
    };
    let (games, finished_hidden) = entries(&state, &account).await?;
    let tables = tables(&state, &account).await?;
    let organised = organised(&state, &account).await?;
    let clubs = state
        .store
        .clubs_of(account.id)
        .await?
        .into_iter()
        .map(|(club, _)| (club.id, club.name))
        .collect();
    let mut sections = vec![
        Section {
            title: "Your move",
            empty: "Nothing awaits you.",
            games: Vec::new(),
        },
        Section {
            title: "Waiting on others",
            empty: "None.",
            games: Vec::new(),
        },
        Section {
            title: "Finished",
            empty: "None yet.",
            games: Vec::new(),
        },
    ];
    for g in games {
        let at = match g.standing {
            "your_move" => 0,
            "waiting" => 1,
            _ => 2,
        };
        sections[at].games.push(g);
    }
    let (csrf_token, cookie) = csrf::token_for(&req);
    let mut response = html(
        StatusCode::OK,
        MePage {
            name: account.name,
            email: account.email,
            zone: account.time_zone,
            csrf: csrf_token,
            sections,
            finished_hidden,
            tables,
            organised,
            clubs,
        },
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// The account a request acts for: a personal API token (`Authorization: Bearer`), else the
/// session; 401 without either, or with a token that is wrong or revoked.
pub(in crate::web) async fn api_account(
    req: &HttpRequest,
    state: &AppState,
) -> Result<Account, WebError> {
    if let Some(header) = req.headers().get(AUTHORIZATION) {
        let token = header
            .to_str()
            .ok()
            .and_then(|h| h.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or(WebError::Unauthorized)?;
        return state
            .store
            .api_token_account(token)
            .await?
            .ok_or(WebError::Unauthorized);
    }
    match crate::web::accounts::session::token(req) {
        Some(token) => state
            .store
            .session_account(&token)
            .await?
            .ok_or(WebError::Unauthorized),
        None => Err(WebError::Unauthorized),
    }
}

/// `GET /api/me/games`: what `/me` lists, in the same order, as JSON.
pub async fn api(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, WebError> {
    let account = api_account(&req, &state).await?;
    let (games, finished_not_listed) = entries(&state, &account).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "account": {"name": account.name, "time_zone": account.time_zone},
        "games": games,
        "finished_not_listed": finished_not_listed,
        "tables": tables(&state, &account).await?,
    })))
}

/// `POST /me/games/{id}/{seat}`: opens one of the account's seats by a fresh link made for
/// this device (replacing the one made for it before; other devices keep theirs); 404 for a
/// seat that is not the account's.
pub async fn open(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    path: web::Path<(i64, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let (game, seat) = path.into_inner();
    let token = device_link(&req, &state, &who.0, game, seat)
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", format!("/play/{token}")))
        .finish())
}

/// A fresh link to the seat for the signed-in device, if the account owns the seat.
pub(in crate::web) async fn device_link(
    req: &HttpRequest,
    state: &AppState,
    account: &Account,
    game: i64,
    seat: usize,
) -> Result<Option<String>, WebError> {
    let session = crate::web::accounts::session::token(req).ok_or(WebError::Unauthorized)?;
    Ok(state
        .store
        .owner_seat_link(account.id, game, seat, &session)
        .await?)
}

/// Where a link that opens no seat leads a signed-in reader: the seat it was for, by a fresh
/// link for this device, when the reader's account owns that seat now; otherwise nowhere (the
/// same answer as for any unknown link, so nobody else learns whose link it was).
pub async fn dead_link(
    req: &HttpRequest,
    state: &AppState,
    account: Option<&Account>,
    token: &str,
) -> Result<HttpResponse, WebError> {
    let Some(account) = account else {
        return Err(WebError::NotFound);
    };
    let Some((game, seat)) = state.store.seat_of_dead_link(token).await? else {
        return Err(WebError::NotFound);
    };
    let fresh = device_link(req, state, account, game, seat)
        .await?
        .ok_or(WebError::NotFound)?;
    tracing::info!(
        game,
        seat,
        "an ended link of a signed-in owner sent on to the seat"
    );
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", format!("/play/{fresh}")))
        .finish())
}

/// `POST /play/{token}/claim`: makes the seat of a link the signed-in account's, unless
/// another account owns it (409).
pub async fn claim(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: SignedIn,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let (game, seat) = state
        .store
        .seat_by_token(&token)
        .await?
        .ok_or(WebError::NotFound)?;
    match state.store.claim_seat(who.0.id, game, seat).await? {
        Claim::Claimed | Claim::AlreadyYours => Ok(HttpResponse::SeeOther()
            .insert_header(("Location", format!("/play/{token}")))
            .finish()),
        Claim::OwnedByAnother => Err(WebError::Conflict(
            "this seat belongs to another account: it stays theirs".into(),
        )),
    }
}
