//! The organiser's desk: `GET /manage/{token}` shows every seat (its address, its last move, the
//! mail sent to it), the mail that did not go out, the clock and the game's chain; its POSTs
//! give a seat a new link, send its invitation again, change its address, work the clock, and
//! cancel the game. Every POST checks the CSRF token and answers 303 back to the desk with a
//! short-lived note; bad input shows the desk again with the reason and changes nothing.
//!
//! A club's game has no organiser link: its admins reach the same desk from the club's pages
//! with their session ([`crate::web::clubs::desk`]). Both desks are a [`DeskAt`] and act through the
//! `*_at` functions here; the club's desk shows no addresses (members see each other's names,
//! never addresses).

use crate::engine::Seat;
use crate::games::find_game;
use crate::notices::EmailAddress;
use crate::notices::invite::{InviteError, change_address as readdress, invite_again};
use crate::store::Changer;
use crate::store::{CancelReason, SubmitError};
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::seat::page::back_after;
use crate::web::{AppState, WebError};
use actix_web::cookie::{Cookie, SameSite, time::Duration};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};

struct DeskSeat {
    seat: usize,
    seat_name: String,
    name: String,
    /// The seat's address, shown on the organiser's desk only.
    email: String,
    has_email: bool,
    /// A practice bot plays the seat: it has no address and no link to give.
    bot: bool,
    to_move: bool,
    last_move: String,
    mail_sent: i64,
    mail_failed: i64,
    /// The account that owns the seat, by name.
    owner: Option<String>,
    /// How a seat without an address stands with its handover link, in words.
    handover: String,
    /// The seat's deadline and time left, while it is to move: "2 days 4 hours left (until …)".
    deadline: String,
}

struct MailLine {
    who: String,
    kind: String,
    status: String,
    attempts: i32,
    error: String,
}

#[derive(Template)]
#[template(path = "desk/manage.html")]
struct Desk {
    id: i64,
    /// Where the game's public pages live (its spectator link's path when unlisted).
    public: String,
    /// An unlisted game's spectator link, to share.
    spectator_link: Option<String>,
    name: String,
    /// The desk's path, which its forms post under.
    base: String,
    /// The club whose admin acts (id, name), on a club's desk.
    club: Option<(i64, String)>,
    status: String,
    ending: Option<crate::engine::present::Ending>,
    moves: i64,
    seats: Vec<DeskSeat>,
    csrf: String,
    commitment: String,
    seed: Option<String>,
    head_hash: String,
    new_link_for: String,
    new_handover: Option<String>,
    new_link_mailed_to: Option<String>,
    note: Option<String>,
    error: Option<String>,
    /// A refused new address, kept in its seat's field: (seat, as typed).
    kept_address: Option<(usize, String)>,
    /// A refused cancellation's reason, kept in its field.
    kept_reason: String,
    mail_sent: i64,
    mail_lines: Vec<MailLine>,
    clock: String,
    paused: bool,
    messages: Vec<crate::web::seat::messages::ThreadLine>,
    /// Who changed the seats' hands, newest first.
    seat_changes: Vec<crate::web::seat::changes::ChangeLine>,
}

fn when(at: &DateTime<Utc>) -> String {
    at.format("%a %-d %b %Y, %H:%M UTC").to_string()
}

/// Where a desk is and who acts at it: the organiser, by the game's organiser link, or a
/// club's admin, from the club's pages with their session. Both act through the same
/// functions; a club's desk shows no addresses.
pub(in crate::web) struct DeskAt {
    /// The game.
    pub(in crate::web) game: i64,
    /// The desk's path: `/manage/{token}` or `/clubs/{club}/games/{game}/desk`.
    pub(in crate::web) base: String,
    /// The club (id, name) whose admin acts, on a club's desk.
    pub(in crate::web) club: Option<(i64, String)>,
    /// Who acts, as every player is told when a seat changes hands.
    pub(in crate::web) by: Changer,
}

impl DeskAt {
    /// The organiser's desk of the game `token` manages; 404 for a token that manages none.
    async fn organiser(state: &AppState, token: &str) -> Result<DeskAt, WebError> {
        Ok(DeskAt {
            game: organised(state, token).await?,
            base: format!("/manage/{token}"),
            club: None,
            by: Changer::Organiser,
        })
    }

    /// How a mail to `address` is named on this desk: masked on the organiser's, not at all on
    /// a club's.
    fn mailed_to(&self, address: &str) -> String {
        match self.club {
            Some(_) => "their address".to_string(),
            None => crate::domain::masked(address),
        }
    }

    /// Who hid a message, as its thread says ("hidden by the …").
    fn hider(&self) -> &'static str {
        match self.club {
            Some(_) => "club's admins",
            None => "organiser",
        }
    }
}

/// The desk of `at`'s game, as it stands.
async fn desk_page(state: &AppState, at: &DeskAt, csrf_token: String) -> Result<Desk, WebError> {
    let id = at.game;
    let addresses = at.club.is_none();
    let loaded = state.store.load(id).await?;
    let game = find_game(&loaded.row.kind).ok_or(WebError::NotFound)?;
    let active = loaded.game.active();
    let seats = state.store.seats(id).await?;
    let count = seats.len();
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let last_moves = state.store.last_moves(id).await?;
    let per_seat = crate::notices::outbox::mail_by_seat(state.store.pool(), id, count).await?;
    let (mail_sent, troubles) = crate::notices::outbox::troubles(state.store.pool(), id).await?;
    let mail_lines = troubles
        .into_iter()
        .map(|t| MailLine {
            who: match (t.seat.and_then(|s| seats.get(s)), addresses) {
                (Some(s), true) => format!("{} <{}>", s.name, t.recipient),
                (Some(s), false) => s.name.clone(),
                (None, true) => format!("you <{}>", t.recipient),
                (None, false) => "the organiser".to_string(),
            },
            kind: t.kind,
            status: match t.status.as_str() {
                "failed" => "undeliverable".to_string(),
                "pending" if t.last_error.is_some() => "retrying".to_string(),
                other => other.to_string(),
            },
            attempts: t.attempts,
            error: t.last_error.unwrap_or_default(),
        })
        .collect();
    let keys = state.store.seat_keys(id).await?;
    let (clock, deadlines) = crate::clock::deadlines(&state.store, id).await?;
    let paused: bool = sqlx::query_scalar("SELECT paused_at IS NOT NULL FROM games WHERE id = $1")
        .bind(id)
        .fetch_one(state.store.pool())
        .await?;
    let public = crate::web::public::game::public_of(state, id).await?;
    Ok(Desk {
        spectator_link: public
            .base
            .starts_with("/watch/")
            .then(|| format!("{}{}", state.base_url, public.base)),
        public: public.base,
        messages: crate::web::seat::messages::thread_lines(&state.store.messages(id).await?),
        seat_changes: crate::web::seat::changes::change_lines(
            &state.store.seat_changes(id).await?,
            &names,
            state.store.now(),
        ),
        clock: clock.describe(),
        paused,
        mail_sent,
        mail_lines,
        id,
        name: game.name().to_string(),
        base: at.base.clone(),
        club: at.club.clone(),
        status: loaded.row.status.clone(),
        ending: loaded.game.ending(&names),
        moves: loaded.row.head_seq,
        seats: seats
            .into_iter()
            .map(|s| DeskSeat {
                seat: s.seat,
                seat_name: game.seat_name(s.seat, count),
                to_move: active.contains(&s.seat),
                last_move: last_moves
                    .get(s.seat)
                    .copied()
                    .flatten()
                    .map_or_else(|| "not yet".to_string(), |at| when(&at)),
                mail_sent: per_seat.get(s.seat).map_or(0, |m| m.sent),
                mail_failed: per_seat.get(s.seat).map_or(0, |m| m.failed),
                owner: keys.get(s.seat).and_then(|k| k.owner.clone()),
                handover: match keys.get(s.seat) {
                    Some(k) if s.email.is_none() => match (k.handover_made_at, k.taken_up_at) {
                        (_, Some(at)) => format!("handover link taken up {}", when(&at)),
                        (Some(at), None) => {
                            format!("handover link made {}, not yet taken up", when(&at))
                        }
                        (None, None) => String::new(),
                    },
                    _ => String::new(),
                },
                deadline: deadlines
                    .iter()
                    .find(|d| d.seat == s.seat)
                    .map(|d| crate::web::seat::page::deadline_text(d, &clock))
                    .unwrap_or_default(),
                name: s.name,
                bot: s.bot.is_some(),
                has_email: s.email.is_some(),
                email: s.email.filter(|_| addresses).unwrap_or_default(),
            })
            .collect(),
        csrf: csrf_token,
        commitment: loaded.row.commitment.clone(),
        seed: (loaded.row.status == "over").then(|| loaded.row.seed.to_hex()),
        head_hash: loaded.row.head_hash.clone(),
        new_link_for: String::new(),
        new_handover: None,
        new_link_mailed_to: None,
        note: None,
        error: None,
        kept_address: None,
        kept_reason: String::new(),
    })
}

/// The game an organiser token manages.
async fn organised(state: &AppState, token: &str) -> Result<i64, WebError> {
    state
        .store
        .organiser_by_token(token)
        .await?
        .ok_or(WebError::NotFound)
}

/// The cookie that carries a seat's new link from the relink POST to the desk it redirects to
/// (five minutes).
const RELINKED_COOKIE: &str = "pp_relinked";

/// The cookie that carries what the last action did ("Invitation sent again to ...") from its
/// POST to the desk (for five minutes, until the desk has shown it once).
const NOTE_COOKIE: &str = "pp_desk_note";

/// How long a note from a POST waits for the desk to show it.
const NOTE_SECS: i64 = 300;

/// What the desk shows after a relink: where the new link was mailed ("b…@e…"), or the new
/// handover link of a seat without an address. Never the seat's link itself.
#[derive(serde::Serialize, serde::Deserialize)]
struct Relinked {
    seat: usize,
    mailed_to: Option<String>,
    handover: Option<String>,
}

fn read_cookie<T: serde::de::DeserializeOwned>(req: &HttpRequest, name: &str) -> Option<T> {
    req.cookie(name)
        .and_then(|c| hex::decode(c.value()).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
}

/// 303 back to the desk, carrying `value` in the cookie `name` for the desk to show.
fn back_to_desk(
    state: &AppState,
    at: &DeskAt,
    name: &'static str,
    value: &impl serde::Serialize,
) -> HttpResponse {
    let cookie = Cookie::build(
        name,
        hex::encode(serde_json::to_vec(value).expect("notes serialize")),
    )
    .path(at.base.clone())
    .http_only(true)
    .secure(state.secure_cookies)
    .same_site(SameSite::Strict)
    .max_age(Duration::seconds(NOTE_SECS))
    .finish();
    HttpResponse::SeeOther()
        .insert_header(("Location", at.base.clone()))
        .cookie(cookie)
        .finish()
}

/// `GET /manage/{token}`: the organiser's desk.
pub async fn manage(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let at = DeskAt::organiser(&state, &token).await?;
    show(&req, &state, &at).await
}

/// The desk `at`, with what the last action did, once.
pub(in crate::web) async fn show(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
) -> Result<HttpResponse, WebError> {
    let (csrf_token, cookie) = csrf::token_for(req);
    let mut page = desk_page(state, at, csrf_token).await?;
    if let Some(relinked) = read_cookie::<Relinked>(req, RELINKED_COOKIE) {
        page.new_link_for = page
            .seats
            .get(relinked.seat)
            .map(|s| s.seat_name.clone())
            .unwrap_or_default();
        page.new_handover = relinked.handover;
        page.new_link_mailed_to = relinked.mailed_to;
    }
    page.note = read_cookie::<String>(req, NOTE_COOKIE);
    let shown = page.note.is_some();
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    if shown {
        // A note is shown once: a reload shows the desk without it.
        let mut gone = Cookie::new(NOTE_COOKIE, "");
        gone.set_path(at.base.clone());
        let _ = response.add_removal_cookie(&gone);
    }
    Ok(response)
}

/// The desk again with why the action was refused; nothing was changed.
async fn refused(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    status: StatusCode,
    error: String,
) -> Result<HttpResponse, WebError> {
    let (csrf_token, _) = csrf::token_for(req);
    let mut page = desk_page(state, at, csrf_token).await?;
    page.error = Some(error);
    html(status, page)
}

/// The desk again, saying why a form's entry was refused (422), the entry kept in its field
/// (`keep` puts it there).
async fn unprocessable_keeping(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    error: String,
    keep: impl FnOnce(&mut Desk),
) -> Result<HttpResponse, WebError> {
    let (csrf_token, _) = csrf::token_for(req);
    let mut page = desk_page(state, at, csrf_token).await?;
    page.error = Some(error);
    keep(&mut page);
    html(StatusCode::UNPROCESSABLE_ENTITY, page)
}

/// The fields of a desk's form, once its CSRF token checks.
fn checked_form(req: &HttpRequest, body: &[u8]) -> Result<Vec<(String, String)>, WebError> {
    let fields = parse_form(body)?;
    csrf::check(req, field(&fields, "csrf"))?;
    Ok(fields)
}

/// `POST /manage/{token}/relink/{seat}`: new keys for a seat ([`relink_at`]).
pub async fn relink(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (token, seat) = path.into_inner();
    checked_form(&req, &body)?;
    let at = DeskAt::organiser(&state, &token).await?;
    relink_at(&state, &at, seat).await
}

/// New keys for a seat. Every older credential of the seat ends in the same transaction (its
/// links, the links in earlier mail, reply addresses, an account's claim); the new link is
/// mailed to the seat's address, or, for a seat without one, a new handover link is shown at
/// the desk to give the player.
pub(in crate::web) async fn relink_at(
    state: &AppState,
    at: &DeskAt,
    seat: usize,
) -> Result<HttpResponse, WebError> {
    let id = at.game;
    state.limits.relink_in_game(id).map_err(WebError::TooMany)?;
    let kind = state
        .store
        .game(id)
        .await?
        .map(|g| g.kind)
        .unwrap_or_default();
    let name = find_game(&kind).map_or(kind.clone(), |g| g.name().to_string());
    let mut tx = state.store.pool().begin().await?;
    let rekeyed = state
        .store
        .rekey_seat_in(&mut tx, id, seat, None, &at.by)
        .await?
        .ok_or(WebError::NotFound)?;
    let flash = match &rekeyed.email {
        Some(email) => {
            crate::notices::links::enqueue_new_link(&mut tx, id, &name, seat, &rekeyed.token)
                .await?;
            Relinked {
                seat,
                mailed_to: Some(at.mailed_to(email)),
                handover: None,
            }
        }
        None => Relinked {
            seat,
            mailed_to: None,
            handover: rekeyed
                .handover
                .as_ref()
                .map(|h| format!("{}/take/{h}", state.base_url)),
        },
    };
    tx.commit().await?;
    tracing::info!(game = id, seat, club = ?at.club.as_ref().map(|c| c.0), "seat given new keys from the desk");
    Ok(back_to_desk(state, at, RELINKED_COOKIE, &flash))
}

/// `POST /manage/{token}/release/{seat}` ([`release_at`]).
pub async fn release(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (token, seat) = path.into_inner();
    checked_form(&req, &body)?;
    let at = DeskAt::organiser(&state, &token).await?;
    release_at(&req, &state, &at, seat).await
}

/// The account that owns the seat owns it no more (the links made for its devices end); the
/// seat's own link is untouched. Every player sees the change; the account's address is told.
pub(in crate::web) async fn release_at(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    seat: usize,
) -> Result<HttpResponse, WebError> {
    if !state.store.release_owner(at.game, seat, &at.by).await? {
        return refused(
            req,
            state,
            at,
            StatusCode::CONFLICT,
            "no account owns this seat".into(),
        )
        .await;
    }
    let note = "The seat is no account's any more; the links made for that account's devices no \
                longer open it. Every player sees this change, and the account's address was told."
        .to_string();
    Ok(back_to_desk(state, at, NOTE_COOKIE, &note))
}

/// `POST /manage/{token}/invite/{seat}` ([`invite_at`]).
pub async fn invite(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (token, seat) = path.into_inner();
    checked_form(&req, &body)?;
    let at = DeskAt::organiser(&state, &token).await?;
    invite_at(&req, &state, &at, seat).await
}

/// The seat's invitation once more, as the game stands, with a fresh link (rate-limited like
/// every invitation).
pub(in crate::web) async fn invite_at(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    seat: usize,
) -> Result<HttpResponse, WebError> {
    let id = at.game;
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    state
        .limits
        .invitation_again(client, id)
        .map_err(WebError::TooMany)?;
    let loaded = state.store.load(id).await?;
    match invite_again(state.store.pool(), &loaded.row, loaded.game.as_ref(), seat).await {
        Ok(to) => {
            let note = format!(
                "Invitation sent again to {}, mailed to {}.",
                seat_name_of(state, id, seat).await?,
                at.mailed_to(to.as_str())
            );
            Ok(back_to_desk(state, at, NOTE_COOKIE, &note))
        }
        Err(e) => invite_refused(req, state, at, e).await,
    }
}

/// `POST /manage/{token}/address/{seat}` with `email` ([`address_at`]).
pub async fn address(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, usize)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (token, seat) = path.into_inner();
    let fields = checked_form(&req, &body)?;
    let at = DeskAt::organiser(&state, &token).await?;
    address_at(&req, &state, &at, seat, &fields).await
}

/// The seat's new address (`email`), which gets the invitation with a fresh link. Every older
/// credential of the seat ends; every player sees the change with who made it, and the old
/// address is told at once, with a day to take the seat back (DESIGN.md "Seats change hands in
/// the open").
pub(in crate::web) async fn address_at(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    seat: usize,
    fields: &[(String, String)],
) -> Result<HttpResponse, WebError> {
    let id = at.game;
    let typed = field(fields, "email").unwrap_or("");
    let email = match EmailAddress::parse(typed.trim()) {
        Ok(email) => email,
        Err(e) => {
            let error = format!("the new address: {e}");
            return unprocessable_keeping(req, state, at, error, |desk| {
                desk.kept_address = Some((seat, typed.to_string()));
            })
            .await;
        }
    };
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    state
        .limits
        .invitation_again(client, id)
        .map_err(WebError::TooMany)?;
    let loaded = state.store.load(id).await?;
    match readdress(
        &state.store,
        &loaded.row,
        loaded.game.as_ref(),
        seat,
        &email,
        &at.by,
    )
    .await
    {
        Ok(_) => {
            let note = format!(
                "New address for {}: the invitation with a new link was mailed to {}. Every \
                 older link, reply address and account claim of the seat has ended; every player \
                 sees this change, and the old address was told, with a day to take the seat back.",
                seat_name_of(state, id, seat).await?,
                crate::domain::masked(email.as_str())
            );
            Ok(back_to_desk(state, at, NOTE_COOKIE, &note))
        }
        Err(e) => invite_refused(req, state, at, e).await,
    }
}

/// The seat's player's name.
async fn seat_name_of(state: &AppState, id: i64, seat: Seat) -> Result<String, WebError> {
    Ok(state
        .store
        .seats(id)
        .await?
        .into_iter()
        .find(|s| s.seat == seat)
        .map(|s| s.name)
        .unwrap_or_default())
}

async fn invite_refused(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    e: InviteError,
) -> Result<HttpResponse, WebError> {
    let status = match e {
        InviteError::Db(e) => return Err(e.into()),
        InviteError::Store(e) => return Err(e.into()),
        InviteError::NoSeat | InviteError::UnknownGame(_) => return Err(WebError::NotFound),
        InviteError::SameAddress => StatusCode::UNPROCESSABLE_ENTITY,
        InviteError::Over | InviteError::NoAddress | InviteError::MailOff => StatusCode::CONFLICT,
    };
    refused(req, state, at, status, e.to_string()).await
}

/// `POST /manage/{token}/cancel` with `reason` and `confirm=yes` ([`cancel_at`]).
pub async fn cancel(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = checked_form(&req, &body)?;
    let at = DeskAt::organiser(&state, &token).await?;
    cancel_at(&req, &state, &at, &fields).await
}

/// The game ends unfinished (`reason`, `confirm=yes`), recorded in its chain, and every player
/// is told why.
pub(in crate::web) async fn cancel_at(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    fields: &[(String, String)],
) -> Result<HttpResponse, WebError> {
    let typed = field(fields, "reason").unwrap_or("");
    let keep = |desk: &mut Desk| desk.kept_reason = typed.to_string();
    let reason = match CancelReason::parse(typed) {
        Ok(reason) => reason,
        Err(e) => {
            return unprocessable_keeping(req, state, at, format!("the reason: {e}"), keep).await;
        }
    };
    if field(fields, "confirm") != Some("yes") {
        let error = "tick the box to confirm: cancelling cannot be undone".to_string();
        return unprocessable_keeping(req, state, at, error, keep).await;
    }
    match state.store.cancel(at.game, &reason).await {
        Ok(_) => {
            let note = "The game is cancelled; every player with an address is told why.";
            Ok(back_to_desk(state, at, NOTE_COOKIE, &note))
        }
        Err(SubmitError::Refused(m))
        | Err(SubmitError::Rule(crate::engine::RuleError::Illegal(m))) => {
            refused(req, state, at, StatusCode::CONFLICT, m).await
        }
        Err(SubmitError::Conflict { .. }) => {
            let error = "a move came in at the same moment: look again and decide".to_string();
            refused(req, state, at, StatusCode::CONFLICT, error).await
        }
        Err(e) => Err(e.into()),
    }
}

/// `POST /manage/{token}/clock` ([`clock_at`]).
pub async fn clock_control(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let fields = checked_form(&req, &body)?;
    let at = DeskAt::organiser(&state, &token).await?;
    clock_at(&state, &at, &fields).await
}

/// The desk pauses (`action=pause`) or resumes (`action=resume`) the game, or gives a seat
/// more days (`action=extend&seat=S&days=D`); 303 back to the desk.
pub(in crate::web) async fn clock_at(
    state: &AppState,
    at: &DeskAt,
    fields: &[(String, String)],
) -> Result<HttpResponse, WebError> {
    let id = at.game;
    let number = |name: &str| field(fields, name).and_then(|v| v.trim().parse::<u32>().ok());
    let result = match field(fields, "action") {
        Some("pause") => crate::clock::controls::set_paused(&state.store, id, true).await,
        Some("resume") => crate::clock::controls::set_paused(&state.store, id, false).await,
        Some("extend") => {
            let (Some(seat), Some(days)) = (number("seat"), number("days")) else {
                return Err(WebError::BadRequest(
                    "which seat, and how many days?".into(),
                ));
            };
            let result = crate::clock::controls::extend(&state.store, id, seat as i32, days).await;
            if result.is_ok() {
                let note = extended_note(state, id, seat as usize, days).await?;
                return Ok(back_to_desk(state, at, NOTE_COOKIE, &note));
            }
            result
        }
        _ => return Err(WebError::BadRequest("pause, resume or extend".into())),
    };
    back_after(result, at.base.clone())
}

/// What the desk says after an extension: "Extended: Bo has 2 days more to move: 4 days 23 hours left
/// (until …)."
async fn extended_note(
    state: &AppState,
    id: i64,
    seat: usize,
    days: u32,
) -> Result<String, WebError> {
    let (clock, deadlines) = crate::clock::deadlines(&state.store, id).await?;
    let name = state
        .store
        .seats(id)
        .await?
        .into_iter()
        .find(|s| s.seat == seat)
        .map(|s| s.name)
        .unwrap_or_default();
    let now = deadlines
        .iter()
        .find(|d| d.seat == seat)
        .map(|d| format!(": {}", crate::web::seat::page::deadline_text(d, &clock)))
        .unwrap_or_default();
    Ok(format!(
        "Extended: {name} has {} more to move{now}.",
        crate::engine::log::count(days, "day")
    ))
}

/// `POST /manage/{token}/messages/{message}/hide` ([`hide_at`]).
pub async fn hide_message(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (token, message) = path.into_inner();
    let at = DeskAt::organiser(&state, &token).await?;
    checked_form(&req, &body)?;
    hide_at(&req, &state, &at, message).await
}

/// Hides a message of the game's thread; it stays stored, marked hidden by the organiser (or
/// the club's admins), and is shown, mailed and exported no more.
pub(in crate::web) async fn hide_at(
    req: &HttpRequest,
    state: &AppState,
    at: &DeskAt,
    message: i64,
) -> Result<HttpResponse, WebError> {
    if !state
        .store
        .hide_message(at.game, message, at.hider())
        .await?
    {
        return refused(
            req,
            state,
            at,
            StatusCode::NOT_FOUND,
            "this game has no such message, or it is hidden already".into(),
        )
        .await;
    }
    tracing::info!(game = at.game, message, "message hidden from the desk");
    Ok(back_to_desk(
        state,
        at,
        NOTE_COOKIE,
        &"The message is hidden: nobody sees its text any more.".to_string(),
    ))
}
