//! Creating a game from its form: the options, the seats (players or practice bots), and the
//! page that shows the new links once.

use crate::engine::OptionKind;
use crate::engine::deal::ShuffleWords;
use crate::games::find_game;
use crate::notices::EmailAddress;
use crate::store::{NewSeat, PlayerName};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::{FormEcho, field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use base64::Engine;
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
    /// A number field's value: its default, or what was typed.
    pub(in crate::web) value: String,
}

/// The game's options as form fields: at their defaults, or as `form` sent them.
pub(in crate::web) fn option_fields(
    game: &dyn crate::engine::DynGame,
    form: &FormEcho,
) -> Vec<OptionField> {
    game.option_specs()
        .into_iter()
        .map(|spec| {
            let name = format!("opt_{}", spec.key);
            let default = spec.default.to_string();
            let (kind, values) = match &spec.kind {
                OptionKind::Bool => ("bool", Vec::new()),
                OptionKind::Select { values } => (
                    "select",
                    values
                        .iter()
                        .map(|(v, label)| {
                            let v = v.to_string();
                            let chosen = form.chosen(&name, &v, v == default);
                            (v, label.clone(), chosen)
                        })
                        .collect(),
                ),
                OptionKind::Integer { .. } => ("integer", Vec::new()),
            };
            OptionField {
                key: spec.key,
                label: spec.label,
                kind,
                checked: form.chosen(&name, "true", spec.default == Value::Bool(true)),
                values,
                value: form.value(&name, &default).to_string(),
            }
        })
        .collect()
}

/// A form's field that was refused, and why.
pub(in crate::web) struct Refused {
    /// The fields at fault (marked when the form is shown again).
    pub(in crate::web) fields: Vec<String>,
    /// What is wrong, in words.
    pub(in crate::web) message: String,
}

impl Refused {
    /// A refusal of the whole form, no one field.
    pub(in crate::web) fn plain(message: impl Into<String>) -> Refused {
        Refused {
            fields: Vec::new(),
            message: message.into(),
        }
    }

    /// The form sent again as typed, with the fields at fault marked.
    pub(in crate::web) fn echo(&self, sent: &[(String, String)]) -> FormEcho {
        self.fields
            .iter()
            .fold(FormEcho::sent(sent), |form, f| form.at_fault(f))
    }
}

/// The clock a create form chose, or the fields at fault and why.
pub(in crate::web) fn clock_from_form(
    fields: &[(String, String)],
) -> Result<crate::domain::ClockSettings, Refused> {
    crate::domain::ClockSettings::from_form(|name| field(fields, name)).map_err(|e| {
        let zone = field(fields, "time_zone").map(str::trim).unwrap_or("");
        let at: &[&str] = if !zone.is_empty() && zone.parse::<chrono_tz::Tz>().is_err() {
            &["time_zone"]
        } else if field(fields, "clock") == Some("custom") {
            &["clock_initial", "clock_increment", "clock_cap"]
        } else {
            &["clock"]
        };
        Refused {
            fields: at.iter().map(|f| f.to_string()).collect(),
            message: format!("clock: {e}"),
        }
    })
}

/// The options a create form sent (`opt_<key>` fields), or the one at fault and why.
pub(in crate::web) fn options_from_form(
    game: &dyn crate::engine::DynGame,
    fields: &[(String, String)],
) -> Result<Value, Refused> {
    let mut options = serde_json::Map::new();
    for spec in game.option_specs() {
        let given = field(fields, &format!("opt_{}", spec.key));
        let value = match spec.kind {
            OptionKind::Bool => Value::Bool(given == Some("true")),
            _ => match given.map(serde_json::from_str::<Value>) {
                Some(Ok(v)) => v,
                Some(Err(_)) => {
                    return Err(Refused {
                        fields: vec![format!("opt_{}", spec.key)],
                        message: format!("{}: not a valid value", spec.label),
                    });
                }
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
    /// How random seating places the rows' players, in words (the rows are players, not
    /// seats: with random seating, the default, the seats are drawn at the start).
    seating_words: String,
    seat_rows: Vec<SeatRow>,
    /// The levels a seat's bot may play at; empty when the game has no bot yet.
    bots: Vec<BotChoice>,
    options: Vec<OptionField>,
    csrf: String,
    /// What was sent, shown again after a refusal.
    form: FormEcho,
    error: Option<String>,
}

/// What the seating choice does with the rows: with random seating who takes which seat is
/// drawn at the start; in the order given, the rows take the seats in order.
fn seating_words(game: &dyn crate::engine::DynGame, max: usize) -> String {
    let roles: Vec<String> = (0..max).filter_map(|i| game.seat_role(i, max)).collect();
    if roles.len() == max {
        let order: Vec<String> = roles
            .iter()
            .enumerate()
            .map(|(i, r)| format!("player {} is {r}", i + 1))
            .collect();
        format!(
            "With random seating (the default) which player takes which seat ({}) is drawn when the game starts; seated in the order given, {}.",
            roles.join(", "),
            order.join(", ")
        )
    } else {
        "With random seating (the default) the order of play is drawn when the game starts; seated in the order given, player 1 takes the first seat and the others follow clockwise.".to_string()
    }
}

fn new_game_page(
    kind: &str,
    csrf: String,
    form: FormEcho,
    error: Option<String>,
) -> Option<NewGame> {
    let game = find_game(kind)?;
    let (min, max) = game.seat_counts();
    let options = option_fields(game, &form);
    Some(NewGame {
        kind: game.id().to_string(),
        name: game.name().to_string(),
        min_seats: min,
        max_seats: max,
        seating_words: seating_words(game, max),
        seat_rows: (0..max)
            .map(|i| SeatRow {
                index: i,
                label: format!("Player {}", i + 1),
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
        form,
        error,
    })
}

/// `GET /new/{kind}`: the create form, made from the game's options.
pub async fn new_game(req: HttpRequest, kind: web::Path<String>) -> Result<HttpResponse, WebError> {
    let (token, cookie) = csrf::token_for(&req);
    let page = new_game_page(&kind, token, FormEcho::blank(), None).ok_or(WebError::NotFound)?;
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
    /// One person plays, against bots, by a handover link not yet taken: the page leads with
    /// their own seat.
    #[serde(skip)]
    alone_with_bots: bool,
    /// The token for the "this seat is mine" buttons.
    #[serde(skip)]
    csrf: String,
    /// The game was made signed in: it is on the maker's own page.
    #[serde(default)]
    signed_in: bool,
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
    /// What became of its handover link, once it is no longer open (read when shown).
    #[serde(skip)]
    taken: Option<&'static str>,
}

/// The cookie, one per game (`pp_created_17`), that carries a new game's links from the POST
/// that made it to the page that shows them, on the browser that made it: a reload shows them
/// again instead of making a second game, and the page stays for the game's life.
fn created_cookie_name(id: i64) -> String {
    format!("pp_created_{id}")
}

/// How long the created page stays on the browser that made the game: a browser's longest.
const CREATED_FOR_DAYS: i64 = 400;

/// `GET /new/{kind}/created/{id}`: the links of a game this browser made, shown from the
/// cookie the creating POST set; a reload shows them again and makes nothing. A seat's
/// handover link that has been taken up is shown as taken, not as a link.
pub async fn created(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, i64)>,
) -> Result<HttpResponse, WebError> {
    let (_, id) = path.into_inner();
    let mut page = req
        .cookie(&created_cookie_name(id))
        .and_then(|c| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(c.value())
                .ok()
        })
        .and_then(|bytes| serde_json::from_slice::<Created>(&bytes).ok())
        .filter(|page| page.id == id)
        .ok_or_else(|| {
            WebError::Gone(
                "the links of a new game are shown on the browser that made it, for the game's \
                 life. The organiser page (its link was on that page, and in the organiser's \
                 mail) gives any seat a new link; a game made while signed in is on My games, \
                 with its desk"
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
        if let Some(link) = &seat.handover {
            let token = link.rsplit('/').next().unwrap_or_default();
            seat.taken = match state.store.handover(token).await? {
                Some(crate::store::Handover::Open { .. }) => None,
                Some(crate::store::Handover::Taken { .. }) => Some("taken up"),
                None => Some("replaced by a newer link at the desk"),
            };
        }
    }
    page.invitations = page.seats.iter().filter(|s| s.mailed_to.is_some()).count();
    page.mailed = page.seats.iter().filter(|s| s.sent).count();
    let people = page.seats.iter().filter(|s| !s.bot).count();
    page.alone_with_bots = people == 1
        && page
            .seats
            .iter()
            .any(|s| s.handover.is_some() && s.taken.is_none());
    let (token, cookie) = csrf::token_for(&req);
    page.csrf = token;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// Who a desk game's organiser is in its deal's contributions: the desk knows no name.
const ORGANISER_CONTRIBUTION: &str = "the organiser";

/// `POST /new/{kind}`: creates the game and shows its links once.
pub async fn create_game(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    kind: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    // The form again with everything as typed, the fields at fault marked, and why nothing
    // was made.
    let refuse_with = |refused: Refused| -> Result<HttpResponse, WebError> {
        let (token, _) = csrf::token_for(&req);
        let form = refused.echo(&fields);
        let page =
            new_game_page(&kind, token, form, Some(refused.message)).ok_or(WebError::NotFound)?;
        html(StatusCode::UNPROCESSABLE_ENTITY, page)
    };
    let refuse_at = |at: &str, message: String| {
        refuse_with(Refused {
            fields: vec![at.to_string()],
            message,
        })
    };
    let refuse = |message: String| refuse_with(Refused::plain(message));
    let (_, max) = game.seat_counts();
    let mut seats = Vec::new();
    // The form's row of each seat, to mark the one at fault.
    let mut rows = Vec::new();
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
                    return refuse_at(
                        &format!("bot{i}"),
                        format!("player {}: no bot plays at {word:?}", i + 1),
                    );
                };
                let name = PlayerName::parse(&level.seat_name())
                    .expect("a bot's seat name is a valid name");
                seats.push(NewSeat {
                    name,
                    email: None,
                    bot: Some(level),
                });
                rows.push(i);
                continue;
            }
        }
        if name.trim().is_empty() {
            if !email.is_empty() {
                return refuse_at(
                    &format!("name{i}"),
                    format!("player {}: a name, please, to go with the address", i + 1),
                );
            }
            continue;
        }
        let name = match PlayerName::parse(name) {
            Ok(name) => name,
            Err(e) => return refuse_at(&format!("name{i}"), format!("player {}: {e}", i + 1)),
        };
        let email = if email.is_empty() {
            None
        } else {
            match EmailAddress::parse(&email) {
                Ok(address) => Some(address),
                Err(e) => return refuse_at(&format!("email{i}"), e.to_string()),
            }
        };
        seats.push(NewSeat {
            name,
            email,
            bot: None,
        });
        rows.push(i);
    }
    let (min, _) = game.seat_counts();
    if seats.len() < min {
        let empty = (0..max)
            .filter(|i| !rows.contains(i))
            .take(min - seats.len());
        let what = if crate::games::find_bot(game.id()).is_some() {
            "a name or a bot"
        } else {
            "a name"
        };
        let count = if min == max {
            format!("exactly {min} players")
        } else {
            format!("{min} to {max} players")
        };
        return refuse_with(Refused {
            fields: empty.map(|i| format!("name{i}")).collect(),
            message: format!(
                "{} is for {count}: give {} more seat{} {what}",
                game.name(),
                min - seats.len(),
                if min - seats.len() == 1 { "" } else { "s" },
            ),
        });
    }
    let people: Vec<(usize, &NewSeat)> = seats
        .iter()
        .enumerate()
        .filter(|(_, s)| s.bot.is_none())
        .collect();
    if let Some((a, b)) = crate::domain::look_alikes(people.iter().map(|(_, s)| s.name.as_str())) {
        let row = rows[people[b].0];
        let (a, b) = (people[a].1.name.as_str(), people[b].1.name.as_str());
        return refuse_at(
            &format!("name{row}"),
            format!("{a:?} and {b:?} look alike: give the players names they can tell apart"),
        );
    }
    let organiser_email = match field(&fields, "organiser_email").map(str::trim) {
        None | Some("") => None,
        Some(text) => match EmailAddress::parse(text) {
            Ok(address) => Some(address),
            Err(e) => return refuse_at("organiser_email", format!("organiser: {e}")),
        },
    };
    if field(&fields, "order") == Some("random") {
        let mut rng = crate::engine::GameRng::new(&crate::engine::Seed::random(), 0);
        rng.shuffle(&mut seats);
    }
    let options = match options_from_form(game, &fields) {
        Ok(options) => options,
        Err(refused) => return refuse_with(refused),
    };
    let clock = match clock_from_form(&fields) {
        Ok(clock) => clock,
        Err(refused) => return refuse_with(refused),
    };
    let words = match ShuffleWords::parse(field(&fields, "contribution")) {
        Ok(words) => words,
        Err(message) => return refuse_at("contribution", message),
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
            crate::store::DealFrom::Drawn(
                words
                    .map(|w| w.from(ORGANISER_CONTRIBUTION))
                    .into_iter()
                    .collect(),
            ),
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
                taken: None,
            })
            .collect(),
        commitment: created.commitment.clone(),
        spectator_link: created
            .spectator
            .as_ref()
            .map(|t| format!("{base}/watch/{t}")),
        invitations: 0,
        mailed: 0,
        alone_with_bots: false,
        csrf: String::new(),
        signed_in: who.0.is_some(),
    };
    if let Some(account) = &who.0
        && let Err(e) = state
            .store
            .set_organiser_account(created.id, account.id)
            .await
    {
        // The game stands and its organiser link works; it is only missing from /me.
        tracing::warn!(game = created.id, error = %e, "the organiser's account was not recorded");
    }
    let location = format!("/new/{}/created/{}", game.id(), created.id);
    let cookie = actix_web::cookie::Cookie::build(
        created_cookie_name(created.id),
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(serde_json::to_vec(&page).expect("pages serialize")),
    )
    .path(location.clone())
    .http_only(true)
    .secure(state.secure_cookies)
    .same_site(actix_web::cookie::SameSite::Strict)
    .max_age(actix_web::cookie::time::Duration::days(CREATED_FOR_DAYS))
    .finish();
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", location))
        .cookie(cookie)
        .finish())
}
