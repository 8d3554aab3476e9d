//! The lobby's pages and forms: the list of open tables, opening one, a table's page with its
//! places and what the reader may do there, joining and leaving, invitations by address.

use crate::domain::{EmailAddress, ExpiryDays, Seating};
use crate::engine::DynGame;
use crate::engine::deal::ShuffleWords;
use crate::engine::options::describe;
use crate::games::find_game;
use crate::store::{Account, Joined, LOBBY_PAGE, NewTable, Table, TableError, waiting_words};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::desk::create::{
    OptionField, Refused, clock_from_form, option_fields, options_from_form,
};
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::FormEcho;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde_json::json;

/// The most addresses one table may invite.
pub const MAX_INVITES: usize = 15;

/// A redirect to the sign-in page, coming back to `next` after.
fn sign_in_first(next: &str) -> HttpResponse {
    let next: String = form_urlencoded::byte_serialize(next.as_bytes()).collect();
    HttpResponse::SeeOther()
        .insert_header(("Location", format!("/signin?next={next}")))
        .finish()
}

fn see_other(to: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header(("Location", to))
        .finish()
}

fn game_of(kind: &str) -> Result<&'static dyn DynGame, WebError> {
    find_game(kind).ok_or(WebError::NotFound)
}

/// "Seat 2" or the game's own name for it ("South").
fn seat_label(game: &dyn DynGame, position: i32, seats: i32) -> String {
    game.seat_name(position as usize, seats as usize)
}

struct LobbyRow {
    id: i64,
    game: String,
    options: Vec<(String, String)>,
    names: Vec<String>,
    free: i64,
    seats: i32,
    seating: &'static str,
    waiting: String,
    /// The time control in words: "3 days a move".
    time_control: String,
}

#[derive(Template)]
#[template(path = "lobby/list.html")]
struct LobbyPage {
    rows: Vec<LobbyRow>,
    total: i64,
    page: i64,
    pages: i64,
    signed_in: Option<String>,
    games: Vec<(String, String)>,
}

#[derive(serde::Deserialize)]
pub struct PageQuery {
    page: Option<i64>,
}

/// `GET /lobby`: the open tables, oldest first, a page at a time.
pub async fn lobby(
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, WebError> {
    let page = query.page.unwrap_or(0).clamp(0, 100_000);
    let (entries, total) = state.store.lobby(page).await?;
    let now = state.store.now();
    let rows = entries
        .into_iter()
        .filter_map(|e| {
            let game = find_game(&e.kind)?;
            Some(LobbyRow {
                id: e.id,
                game: game.name().to_string(),
                options: describe(&game.option_specs(), &e.options),
                names: e.names,
                free: i64::from(e.seat_count) - e.taken,
                seats: e.seat_count,
                seating: match e.seating {
                    Seating::Random => "seats drawn at random",
                    Seating::Placed => "seats as placed",
                },
                waiting: waiting_words(e.created_at, now),
                time_control: e.clock.control_words(),
            })
        })
        .collect();
    let games = crate::games::registry()
        .iter()
        .map(|g| (g.id().to_string(), g.name().to_string()))
        .collect();
    html(
        StatusCode::OK,
        LobbyPage {
            rows,
            total,
            page,
            pages: (total + LOBBY_PAGE - 1) / LOBBY_PAGE,
            signed_in: who.0.map(|a| a.name),
            games,
        },
    )
}

#[derive(Template)]
#[template(path = "lobby/new_table.html")]
struct NewTablePage {
    kind: String,
    name: String,
    counts: Vec<usize>,
    max_seats: usize,
    seat_labels: Vec<String>,
    /// The game's name with its article: "an Electoral College Combat".
    a_name: String,
    options: Vec<OptionField>,
    csrf: String,
    /// What was sent, shown again after a refusal.
    form: FormEcho,
    error: Option<String>,
    max_invites: usize,
    /// The club the table is for (its id and name), when opened from the club's page.
    club: Option<(i64, String)>,
    /// The levels a practice bot put at the table may play at; empty when the game has none.
    bots: Vec<crate::web::desk::create::BotChoice>,
}

fn new_table_page(
    game: &'static dyn DynGame,
    csrf: String,
    form: FormEcho,
    error: Option<String>,
) -> NewTablePage {
    let (min, max) = game.seat_counts();
    NewTablePage {
        kind: game.id().to_string(),
        name: game.name().to_string(),
        counts: (min.max(2)..=max).collect(),
        max_seats: max,
        seat_labels: (0..max).map(|i| game.seat_name(i, max)).collect(),
        a_name: crate::words::with_article(game.name()),
        options: option_fields(game, &form),
        csrf,
        form,
        error,
        max_invites: MAX_INVITES,
        club: None,
        bots: if crate::games::find_bot(game.id()).is_some() {
            crate::web::desk::create::bot_choices()
        } else {
            Vec::new()
        },
    }
}

/// The club a table is to be opened for (`?club=N` or the form's `club`): its id and name, if
/// the reader is its member; 404 for a club the reader may not see, 403 for a public club's
/// non-member.
async fn club_for_table(
    state: &AppState,
    club: Option<i64>,
    reader: &Account,
) -> Result<Option<(i64, String)>, WebError> {
    let Some(id) = club else { return Ok(None) };
    let (club, role) = state
        .store
        .club_for(id, Some(reader.id))
        .await?
        .ok_or(WebError::NotFound)?;
    if role.is_none() {
        return Err(WebError::Forbidden(
            "only the club's members open its tables".into(),
        ));
    }
    Ok(Some((club.id, club.name)))
}

/// Which club a new table's form is for.
#[derive(serde::Deserialize)]
pub struct ClubParam {
    club: Option<i64>,
}

/// `GET /lobby/new/{kind}`: the form that opens a table (signed in).
pub async fn new_table(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    kind: web::Path<String>,
    query: web::Query<ClubParam>,
) -> Result<HttpResponse, WebError> {
    let game = game_of(&kind)?;
    let Some(account) = who.0 else {
        let back = match query.club {
            Some(club) => format!("{}?club={club}", req.path()),
            None => req.path().to_string(),
        };
        return Ok(sign_in_first(&back));
    };
    let club = club_for_table(&state, query.club, &account).await?;
    let (token, cookie) = csrf::token_for(&req);
    let mut page = new_table_page(game, token, FormEcho::blank(), None);
    page.club = club;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// The table asked for by the form, or what is wrong with it.
fn table_from_form(
    game: &'static dyn DynGame,
    fields: &[(String, String)],
) -> Result<NewTable, Refused> {
    let at = |field: &str| {
        let field = field.to_string();
        move |message: String| Refused {
            fields: vec![field],
            message,
        }
    };
    let (min, max) = game.seat_counts();
    let seat_count = match field(fields, "players") {
        None => max,
        Some(n) => n
            .parse::<usize>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                at("players")(format!(
                    "{} is played by {min} to {max} players",
                    game.name()
                ))
            })?,
    };
    let seating = Seating::parse(field(fields, "seating").unwrap_or("random"))
        .map_err(|e| at("seating")(e.to_string()))?;
    let creator_position = match field(fields, "sit") {
        Some("true") => Some(match seating {
            Seating::Random => 0,
            Seating::Placed => field(fields, "position")
                .unwrap_or("0")
                .parse::<usize>()
                .ok()
                .filter(|p| *p < seat_count)
                .ok_or_else(|| {
                    at("position")("choose one of the table's seats for yourself".into())
                })?,
        }),
        _ => None,
    };
    let expires_in = match field(fields, "expiry_days").map(str::trim) {
        None | Some("") => ExpiryDays::default(),
        Some(days) => ExpiryDays::parse(days).map_err(|e| at("expiry_days")(e.to_string()))?,
    };
    let lines: Vec<&str> = field(fields, "invites")
        .unwrap_or("")
        .split([',', '\n', ' ', ';'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() > MAX_INVITES {
        return Err(at("invites")(format!(
            "at most {MAX_INVITES} invitations a table"
        )));
    }
    let invites = lines
        .iter()
        .map(|l| EmailAddress::parse(l).map_err(|e| at("invites")(format!("invitation: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let options = options_from_form(game, fields)?;
    let clock = clock_from_form(fields)?;
    let bots = match field(fields, "bots").map(str::trim) {
        None | Some("" | "0") => Vec::new(),
        Some(n) => {
            let n = n
                .parse::<usize>()
                .ok()
                .filter(|n| *n < seat_count)
                .ok_or_else(|| {
                    at("bots")("a table's bots leave at least one seat for a player".into())
                })?;
            let word = field(fields, "bot_level").unwrap_or("medium");
            let level = crate::engine::BotLevel::parse(word)
                .ok_or_else(|| at("bot_level")(format!("no bot plays at {word:?}")))?;
            vec![level; n]
        }
    };
    Ok(NewTable {
        kind: game.id().to_string(),
        options,
        settings: json!({
            "clock": clock,
            "unlisted": field(fields, "unlisted") == Some("true"),
        }),
        seat_count,
        seating,
        creator_words: match creator_position {
            Some(_) => {
                ShuffleWords::parse(field(fields, "contribution")).map_err(at("contribution"))?
            }
            None => None,
        },
        creator_position,
        expires_in,
        invites,
        club_id: match field(fields, "club").map(str::trim) {
            None | Some("") => None,
            Some(club) => Some(
                club.parse::<i64>()
                    .map_err(|_| Refused::plain("no such club"))?,
            ),
        },
        bots,
    })
}

/// `POST /lobby/new/{kind}`: opens the table and shows its page.
pub async fn open_table(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    kind: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let game = game_of(&kind)?;
    let Some(account) = who.0 else {
        return Ok(sign_in_first(req.path()));
    };
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let club = match field(&fields, "club").map(str::parse::<i64>) {
        Some(Ok(id)) => club_for_table(&state, Some(id), &account).await?,
        Some(Err(_)) => return Err(WebError::NotFound),
        None => None,
    };
    let refuse = |refused: Refused| -> Result<HttpResponse, WebError> {
        let (token, _) = csrf::token_for(&req);
        let form = refused.echo(&fields);
        let mut page = new_table_page(game, token, form, Some(refused.message));
        page.club = club.clone();
        html(StatusCode::UNPROCESSABLE_ENTITY, page)
    };
    let new = match table_from_form(game, &fields) {
        Ok(new) => new,
        Err(refused) => return refuse(refused),
    };
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    state
        .limits
        .game_mail(client, Some(&account.email), new.invites.len() as u32)
        .map_err(WebError::TooMany)?;
    match state.store.open_table(&account, &new).await {
        Ok(id) => Ok(see_other(format!("/lobby/{id}"))),
        Err(TableError::Invalid(m)) => refuse(Refused::plain(m)),
        Err(e) => Err(table_error(e)),
    }
}

/// How a refused table change answers when no page is shown for it.
fn table_error(e: TableError) -> WebError {
    match e {
        TableError::NotFound => WebError::NotFound,
        TableError::Closed(m) => WebError::Conflict(m),
        e @ (TableError::SeatTaken | TableError::AlreadySeated) => {
            WebError::Conflict(e.to_string())
        }
        TableError::NotAllowed(m) => WebError::Forbidden(m),
        TableError::Invalid(m) => WebError::BadRequest(m),
        TableError::Store(e) => e.into(),
    }
}

fn status_of(e: &TableError) -> StatusCode {
    match e {
        TableError::NotFound => StatusCode::NOT_FOUND,
        TableError::NotAllowed(_) => StatusCode::FORBIDDEN,
        TableError::Invalid(_) => StatusCode::BAD_REQUEST,
        _ => StatusCode::CONFLICT,
    }
}

struct PlaceRow {
    label: String,
    name: Option<String>,
    held: bool,
    position: i32,
    game_seat: Option<String>,
}

#[derive(Template)]
#[template(path = "lobby/table.html")]
struct TablePage {
    id: i64,
    game: String,
    kind: String,
    options: Vec<(String, String)>,
    /// The game's clock in words.
    time_control: String,
    creator: String,
    status: String,
    placed: bool,
    seats: i32,
    waiting: String,
    expires: String,
    places: Vec<PlaceRow>,
    free: Vec<(i32, String)>,
    game_id: Option<i64>,
    signed_in: bool,
    seated: bool,
    creator_reads: bool,
    csrf: String,
    error: Option<String>,
    /// For an invitation's page: the token, the invited address, and whether the reader is
    /// signed in as that address (else the page offers a sign-in link mailed there).
    invitation: Option<(String, String, bool)>,
    /// The club whose members alone may join (its id and name), and whether the reader is one.
    club: Option<(i64, String)>,
    club_member: bool,
}

fn table_page(
    state: &AppState,
    table: &Table,
    reader: Option<&Account>,
    csrf: String,
) -> Result<TablePage, WebError> {
    let game = game_of(&table.kind)?;
    let now = state.store.now();
    let places = (0..table.seat_count)
        .map(|p| {
            let place = table.places.iter().find(|t| t.position == p);
            PlaceRow {
                label: if table.seating == Seating::Placed {
                    seat_label(game, p, table.seat_count)
                } else {
                    format!("place {}", p + 1)
                },
                name: place.and_then(|t| t.name.clone()),
                held: place.is_some_and(|t| t.account_id.is_none() && t.bot.is_none()),
                position: p,
                game_seat: place
                    .and_then(|t| t.game_seat)
                    .map(|s| seat_label(game, s, table.seat_count)),
            }
        })
        .collect();
    Ok(TablePage {
        id: table.id,
        game: game.name().to_string(),
        kind: game.id().to_string(),
        options: describe(&game.option_specs(), &table.options),
        time_control: table.clock.describe(),
        creator: table.creator_name.clone(),
        status: table.status.clone(),
        placed: table.seating == Seating::Placed,
        seats: table.seat_count,
        waiting: waiting_words(table.created_at, now),
        expires: table.expires_at.format("%-d %B %Y, %H:%M UTC").to_string(),
        places,
        free: table
            .free_positions()
            .into_iter()
            .map(|p| (p, seat_label(game, p, table.seat_count)))
            .collect(),
        game_id: table.game_id,
        signed_in: reader.is_some(),
        seated: reader.is_some_and(|a| table.place_of(a.id).is_some()),
        creator_reads: reader.is_some_and(|a| a.id == table.creator_id),
        csrf,
        error: None,
        invitation: None,
        club: None,
        club_member: false,
    })
}

/// The table as `reader` may reach it by its id: to anyone but its members a private club's
/// table is a table that does not exist, and so is an unlisted table to anyone but its
/// creator and those seated or invited at it (ids are sequential).
async fn load_for(state: &AppState, id: i64, reader: Option<&Account>) -> Result<Table, WebError> {
    let table = state.store.table(id).await?.ok_or(WebError::NotFound)?;
    if !state.store.may_see_table(&table, reader).await? {
        return Err(WebError::NotFound);
    }
    if let Some(club) = table.club_id
        && state
            .store
            .club_for(club, reader.map(|a| a.id))
            .await?
            .is_none()
    {
        return Err(WebError::NotFound);
    }
    Ok(table)
}

/// The table's page for `reader`, with its club's name and whether the reader may join.
async fn shown_table(
    state: &AppState,
    table: &Table,
    reader: Option<&Account>,
    csrf: String,
) -> Result<TablePage, WebError> {
    let mut page = table_page(state, table, reader, csrf)?;
    if let Some(id) = table.club_id
        && let Some((club, role)) = state.store.club_for(id, reader.map(|a| a.id)).await?
    {
        page.club = Some((club.id, club.name));
        page.club_member = role.is_some();
    }
    Ok(page)
}

/// `GET /lobby/{id}`: a table, its places, and what the reader may do.
pub async fn table(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
) -> Result<HttpResponse, WebError> {
    let table = load_for(&state, *id, who.0.as_ref()).await?;
    let (token, cookie) = csrf::token_for(&req);
    let page = shown_table(&state, &table, who.0.as_ref(), token).await?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// The table's page again with why the action was refused.
async fn refused(
    req: &HttpRequest,
    state: &AppState,
    id: i64,
    reader: &Account,
    e: TableError,
) -> Result<HttpResponse, WebError> {
    if let TableError::Store(e) = e {
        return Err(e.into());
    }
    if let TableError::NotFound = e {
        return Err(WebError::NotFound);
    }
    let table = load_for(state, id, Some(reader)).await?;
    let (token, _) = csrf::token_for(req);
    let mut page = shown_table(state, &table, Some(reader), token).await?;
    page.error = Some(e.to_string());
    html(status_of(&e), page)
}

/// An action's form: the signed-in reader and the fields sent, or the way to sign in first.
type SignedForm = Result<(Account, Vec<(String, String)>), HttpResponse>;

/// What the action's form sent, once the reader is signed in and the CSRF token checks.
fn signed_form(
    req: &HttpRequest,
    who: MaybeSignedIn,
    body: &[u8],
    back_to: &str,
) -> Result<SignedForm, WebError> {
    let Some(account) = who.0 else {
        return Ok(Err(sign_in_first(back_to)));
    };
    let fields = parse_form(body)?;
    csrf::check(req, field(&fields, "csrf"))?;
    Ok(Ok((account, fields)))
}

/// `POST /lobby/{id}/join`: takes a seat (the one chosen, at placed seating).
pub async fn join(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let id = *id;
    let (account, fields) = match signed_form(&req, who, &body, &format!("/lobby/{id}"))? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let position = match field(&fields, "position") {
        None => None,
        Some(p) => Some(
            p.parse::<i32>()
                .map_err(|_| WebError::BadRequest("no such seat".into()))?,
        ),
    };
    load_for(&state, id, Some(&account)).await?;
    match state
        .store
        .join_table_with(id, &account, position, field(&fields, "contribution"))
        .await
    {
        Ok(_) => Ok(see_other(format!("/lobby/{id}"))),
        Err(e) => refused(&req, &state, id, &account, e).await,
    }
}

/// `POST /lobby/{id}/leave`: gives the reader's seat back before the start.
pub async fn leave(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let id = *id;
    let (account, _) = match signed_form(&req, who, &body, &format!("/lobby/{id}"))? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let table = load_for(&state, id, Some(&account)).await?;
    match state.store.leave_table(id, &account).await {
        // An unlisted table's page no longer opens to whoever left it.
        Ok(()) if table.unlisted => Ok(see_other("/me".to_string())),
        Ok(()) => Ok(see_other(format!("/lobby/{id}"))),
        Err(e) => refused(&req, &state, id, &account, e).await,
    }
}

/// `POST /lobby/{id}/cancel`: the creator cancels the table; everyone is told.
pub async fn cancel(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let id = *id;
    let (account, _) = match signed_form(&req, who, &body, &format!("/lobby/{id}"))? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    load_for(&state, id, Some(&account)).await?;
    match state.store.cancel_table(id, &account).await {
        Ok(()) => Ok(see_other(format!("/lobby/{id}"))),
        Err(e) => refused(&req, &state, id, &account, e).await,
    }
}

/// `POST /lobby/{id}/withdraw/{position}`: the creator frees a seat held for an invitation.
pub async fn withdraw(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i32)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, position) = path.into_inner();
    let (account, _) = match signed_form(&req, who, &body, &format!("/lobby/{id}"))? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    load_for(&state, id, Some(&account)).await?;
    match state
        .store
        .withdraw_invitation(id, &account, position)
        .await
    {
        Ok(()) => Ok(see_other(format!("/lobby/{id}"))),
        Err(e) => refused(&req, &state, id, &account, e).await,
    }
}

/// `GET /lobby/invite/{token}`: the table an invitation leads to, with the button that takes
/// the held seat.
pub async fn invitation(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let (table, email) = state.store.invitation(&token).await?.ok_or_else(|| {
        WebError::Gone("this invitation was used, withdrawn or never existed".into())
    })?;
    let (csrf_token, cookie) = csrf::token_for(&req);
    let invitee = who
        .0
        .as_ref()
        .is_some_and(|a| a.email.to_lowercase() == email.to_lowercase());
    let mut page = table_page(&state, &table, who.0.as_ref(), csrf_token)?;
    page.invitation = Some((token.into_inner(), email, invitee));
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /lobby/invite/{token}`: the reader, signed in as the invited address, takes the held
/// seat. Anyone else is refused (403) and nothing changes: the invitation's page offers them a
/// sign-in link mailed to that address (a forwarded invitation signs nobody in).
pub async fn accept(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let Some(account) = who.0 else {
        return Err(WebError::Forbidden(
            "to take the seat, sign in as the invited address first: open the invitation and \
             ask for a sign-in link by mail"
                .into(),
        ));
    };
    let (table_id, joined) = state
        .store
        .accept_invitation(&token, &account, field(&fields, "contribution"))
        .await
        .map_err(|e| match e {
            TableError::NotFound => {
                WebError::Gone("this invitation was used, withdrawn or never existed".into())
            }
            e => table_error(e),
        })?;
    if let Joined::Started { game_id } = joined {
        tracing::info!(
            table = table_id,
            game = game_id,
            "an invitation filled the table"
        );
    }
    let to = format!("/lobby/{table_id}");
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", to))
        .finish())
}
