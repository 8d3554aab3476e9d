//! Creating a game from its form: the options, the seats (players or practice bots), and the
//! page that shows the new links once.

use crate::engine::OptionKind;
use crate::games::find_game;
use crate::notices::EmailAddress;
use crate::store::{NewSeat, PlayerName};
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::{field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use serde_json::Value;

struct SeatRow {
    index: usize,
    label: String,
    required: bool,
}

/// A level a seat's bot may play at, as the create form offers it.
pub(in crate::web) struct BotChoice {
    pub(in crate::web) value: &'static str,
    pub(in crate::web) label: &'static str,
}

/// The create form's bot levels, weakest last after the strongest: what a beginner reads.
pub(in crate::web) fn bot_choices() -> Vec<BotChoice> {
    use crate::engine::BotLevel;
    BotLevel::ALL
        .into_iter()
        .rev()
        .map(|level| BotChoice {
            value: level.name(),
            label: match level {
                BotLevel::Hard => "bot, hard (thinks a few seconds)",
                BotLevel::Medium => "bot, medium",
                BotLevel::Easy => "bot, easy",
                BotLevel::Random => "bot, random moves",
            },
        })
        .collect()
}

/// One of a game's options as a form field (templates/parts/options.html).
pub(in crate::web) struct OptionField {
    pub(in crate::web) key: &'static str,
    pub(in crate::web) label: &'static str,
    pub(in crate::web) kind: &'static str,
    pub(in crate::web) checked: bool,
    pub(in crate::web) values: Vec<(String, String, bool)>,
    pub(in crate::web) default: String,
}

/// The game's options as form fields, at their defaults.
pub(in crate::web) fn option_fields(game: &dyn crate::engine::DynGame) -> Vec<OptionField> {
    game.option_specs()
        .into_iter()
        .map(|spec| {
            let (kind, values) = match &spec.kind {
                OptionKind::Bool => ("bool", Vec::new()),
                OptionKind::Select { values } => (
                    "select",
                    values
                        .iter()
                        .map(|(v, label)| (v.to_string(), label.clone(), *v == spec.default))
                        .collect(),
                ),
                OptionKind::Integer { .. } => ("integer", Vec::new()),
            };
            OptionField {
                key: spec.key,
                label: spec.label,
                kind,
                checked: spec.default == Value::Bool(true),
                values,
                default: spec.default.to_string(),
            }
        })
        .collect()
}

/// The options a create form sent (`opt_<key>` fields), or what is wrong with one.
pub(in crate::web) fn options_from_form(
    game: &dyn crate::engine::DynGame,
    fields: &[(String, String)],
) -> Result<Value, String> {
    let mut options = serde_json::Map::new();
    for spec in game.option_specs() {
        let given = field(fields, &format!("opt_{}", spec.key));
        let value = match spec.kind {
            OptionKind::Bool => Value::Bool(given == Some("true")),
            _ => match given.map(serde_json::from_str::<Value>) {
                Some(Ok(v)) => v,
                Some(Err(_)) => return Err(format!("option {}: not a valid value", spec.label)),
                None => spec.default.clone(),
            },
        };
        options.insert(spec.key.to_string(), value);
    }
    Ok(Value::Object(options))
}

#[derive(Template)]
#[template(path = "desk/new_game.html")]
struct NewGame {
    kind: String,
    name: String,
    min_seats: usize,
    max_seats: usize,
    first_seat: String,
    seat_rows: Vec<SeatRow>,
    /// The levels a seat's bot may play at; empty when the game has no bot yet.
    bots: Vec<BotChoice>,
    options: Vec<OptionField>,
    csrf: String,
    error: Option<String>,
}

fn new_game_page(kind: &str, csrf: String, error: Option<String>) -> Option<NewGame> {
    let game = find_game(kind)?;
    let (min, max) = game.seat_counts();
    let options = option_fields(game);
    Some(NewGame {
        kind: game.id().to_string(),
        name: game.name().to_string(),
        min_seats: min,
        max_seats: max,
        first_seat: game.seat_name(0, max),
        seat_rows: (0..max)
            .map(|i| SeatRow {
                index: i,
                label: game.seat_name(i, max),
                required: i < min,
            })
            .collect(),
        bots: if crate::games::find_bot(game.id()).is_some() {
            bot_choices()
        } else {
            Vec::new()
        },
        options,
        csrf,
        error,
    })
}

/// `GET /new/{kind}`: the create form, made from the game's options.
pub async fn new_game(req: HttpRequest, kind: web::Path<String>) -> Result<HttpResponse, WebError> {
    let (token, cookie) = csrf::token_for(&req);
    let page = new_game_page(&kind, token, None).ok_or(WebError::NotFound)?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

#[derive(Template, serde::Serialize, serde::Deserialize)]
#[template(path = "desk/created.html")]
struct Created {
    id: i64,
    name: String,
    organiser_link: String,
    seats: Vec<CreatedSeat>,
    commitment: String,
    /// An unlisted game's spectator link.
    #[serde(default)]
    spectator_link: Option<String>,
    /// Seats with an address, each mailed an invitation.
    #[serde(skip)]
    invitations: usize,
    /// Of those, the invitations the mail server has taken, when the page is shown.
    #[serde(skip)]
    mailed: usize,
}

/// How a seat of a new game gets its link: never shown to the organiser (DESIGN.md "Identity").
#[derive(serde::Serialize, serde::Deserialize)]
struct CreatedSeat {
    seat_name: String,
    name: String,
    /// "b…@e…": the invitation, with the seat's private link, was mailed there.
    mailed_to: Option<String>,
    /// For a seat without an address, its one-time handover link.
    handover: Option<String>,
    /// A practice bot plays the seat.
    #[serde(default)]
    bot: bool,
    /// Its invitation has been sent (read when the page is shown).
    #[serde(skip)]
    sent: bool,
}

/// The cookie that carries a new game's links from the POST that made it to the page that
/// shows them, so a reload shows them again instead of making a second game.
const CREATED_COOKIE: &str = "pp_created";

/// How long the links stay on the "created" page.
const CREATED_FOR_SECS: i64 = 900;

/// `GET /new/{kind}/created/{id}`: the links of the game just made, shown from the cookie the
/// creating POST set (for fifteen minutes; a reload shows them again and makes nothing).
pub async fn created(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, WebError> {
    let (_, id) = path.into_inner();
    let mut page = req
        .cookie(CREATED_COOKIE)
        .and_then(|c| hex::decode(c.value()).ok())
        .and_then(|bytes| serde_json::from_slice::<Created>(&bytes).ok())
        .filter(|page| page.id == id)
        .ok_or_else(|| {
            WebError::Gone(
                "the links of a new game are shown for fifteen minutes after it is made, on the \
                 browser that made it; the organiser page can give any seat a new link"
                    .into(),
            )
        })?;
    let sent: Vec<i32> = sqlx::query_scalar(
        "SELECT seat FROM outbox WHERE game_id = $1 AND kind = 'invite' AND status = 'sent' \
         AND seat IS NOT NULL",
    )
    .bind(id)
    .fetch_all(state.store.pool())
    .await?;
    for (i, seat) in page.seats.iter_mut().enumerate() {
        seat.sent = seat.mailed_to.is_some() && sent.contains(&(i as i32));
    }
    page.invitations = page.seats.iter().filter(|s| s.mailed_to.is_some()).count();
    page.mailed = page.seats.iter().filter(|s| s.sent).count();
    html(StatusCode::OK, page)
}

/// `POST /new/{kind}`: creates the game and shows its links once.
pub async fn create_game(
    req: HttpRequest,
    state: web::Data<AppState>,
    kind: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let refuse = |message: String| -> Result<HttpResponse, WebError> {
        let (token, _) = csrf::token_for(&req);
        let page = new_game_page(&kind, token, Some(message)).ok_or(WebError::NotFound)?;
        html(StatusCode::UNPROCESSABLE_ENTITY, page)
    };
    let (_, max) = game.seat_counts();
    let mut seats = Vec::new();
    for i in 0..max {
        let name = field(&fields, &format!("name{i}")).unwrap_or("");
        let email = field(&fields, &format!("email{i}"))
            .unwrap_or("")
            .trim()
            .to_string();
        match field(&fields, &format!("bot{i}")).unwrap_or("") {
            "" => {}
            word => {
                let Some(level) = crate::engine::BotLevel::parse(word) else {
                    return refuse(format!("player {}: no bot plays at {word:?}", i + 1));
                };
                let name = PlayerName::parse(&level.seat_name())
                    .expect("a bot's seat name is a valid name");
                seats.push(NewSeat {
                    name,
                    email: None,
                    bot: Some(level),
                });
                continue;
            }
        }
        if name.is_empty() {
            continue;
        }
        let name = match PlayerName::parse(name) {
            Ok(name) => name,
            Err(e) => return refuse(format!("player {}: {e}", i + 1)),
        };
        let email = if email.is_empty() {
            None
        } else {
            match EmailAddress::parse(&email) {
                Ok(address) => Some(address),
                Err(e) => return refuse(e.to_string()),
            }
        };
        seats.push(NewSeat {
            name,
            email,
            bot: None,
        });
    }
    let people: Vec<(usize, &NewSeat)> = seats
        .iter()
        .enumerate()
        .filter(|(_, s)| s.bot.is_none())
        .collect();
    if let Some((a, b)) = crate::domain::look_alikes(people.iter().map(|(_, s)| s.name.as_str())) {
        let (a, b) = (people[a].1.name.as_str(), people[b].1.name.as_str());
        return refuse(format!(
            "{a:?} and {b:?} look alike: give the players names they can tell apart"
        ));
    }
    let organiser_email = match field(&fields, "organiser_email").map(str::trim) {
        None | Some("") => None,
        Some(text) => match EmailAddress::parse(text) {
            Ok(address) => Some(address),
            Err(e) => return refuse(format!("organiser: {e}")),
        },
    };
    if field(&fields, "order") == Some("random") {
        let mut rng = crate::engine::GameRng::new(&crate::engine::Seed::random(), 0);
        rng.shuffle(&mut seats);
    }
    let options = match options_from_form(game, &fields) {
        Ok(options) => options,
        Err(e) => return refuse(e),
    };
    let clock = match crate::domain::ClockSettings::from_form(|name| field(&fields, name)) {
        Ok(clock) => clock,
        Err(e) => return refuse(format!("clock: {e}")),
    };
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    let invitations = seats.iter().filter(|s| s.email.is_some()).count() as u32;
    state
        .limits
        .game_mail(
            client,
            organiser_email.as_ref().map(|e| e.as_str()),
            invitations,
        )
        .map_err(WebError::TooMany)?;
    let created = match state
        .store
        .create_game_with(
            game.id(),
            &options,
            &seats,
            crate::store::DealFrom::Drawn(Vec::new()),
            organiser_email.as_ref(),
            &serde_json::json!({
                "clock": clock,
                "unlisted": field(&fields, "unlisted") == Some("true"),
            }),
        )
        .await
    {
        Ok(c) => c,
        Err(crate::store::StoreError::Invalid(reason)) => return refuse(reason),
        Err(e) => return Err(e.into()),
    };
    if field(&fields, "spectators_write") == Some("true") {
        state
            .store
            .set_spectators_may_write(created.id, true)
            .await?;
    }
    let base = &state.base_url;
    let page = Created {
        id: created.id,
        name: game.name().to_string(),
        organiser_link: format!("{base}/manage/{}", created.organiser_token),
        seats: seats
            .iter()
            .enumerate()
            .map(|(i, s)| CreatedSeat {
                seat_name: game.seat_name(i, seats.len()),
                name: s.name.to_string(),
                mailed_to: s.email.as_ref().map(|e| crate::domain::masked(e.as_str())),
                handover: created.handovers[i]
                    .as_ref()
                    .map(|h| format!("{base}/take/{h}")),
                bot: s.bot.is_some(),
                sent: false,
            })
            .collect(),
        commitment: created.commitment.clone(),
        spectator_link: created
            .spectator
            .as_ref()
            .map(|t| format!("{base}/watch/{t}")),
        invitations: 0,
        mailed: 0,
    };
    let cookie = actix_web::cookie::Cookie::build(
        CREATED_COOKIE,
        hex::encode(serde_json::to_vec(&page).expect("pages serialize")),
    )
    .path("/new/")
    .http_only(true)
    .secure(state.secure_cookies)
    .same_site(actix_web::cookie::SameSite::Strict)
    .max_age(actix_web::cookie::time::Duration::seconds(CREATED_FOR_SECS))
    .finish();
    Ok(HttpResponse::SeeOther()
        .insert_header((
            "Location",
            format!("/new/{}/created/{}", game.id(), created.id),
        ))
        .cookie(cookie)
        .finish())
}
