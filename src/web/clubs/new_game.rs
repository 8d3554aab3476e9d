//! A club's game with chosen members (issue 33 item 3): a member of an open club picks a
//! game, its options and clock (the new-game form's own parts) and a member for each seat,
//! and the game starts at once as the club's, each seat its member's and mailed its link. A
//! private club's form answers a non-member as a club that does not exist; a member of no
//! such club is refused (403); bad input shows the form again (422) and starts nothing.

use crate::engine::deal::ShuffleWords;
use crate::engine::{DynGame, GameRng, Seed};
use crate::games::find_game;
use crate::store::{Account, ChosenGame, ClubError};
use crate::web::accounts::me::device_link;
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::clubs::admin::{done, signed_form};
use crate::web::clubs::club::{club_error, see_other, sign_in_first, status_of};
use crate::web::desk::create::{
    OptionField, Refused, clock_from_form, option_fields, options_from_form,
};
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::FormEcho;
use crate::web::http::page::{field, html};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use std::collections::BTreeMap;

/// A seat of the form: its name and the members to choose from (id, name, chosen).
struct SeatChoice {
    /// The form field that chooses its member (`seat0`, `seat1`, …).
    field: String,
    label: String,
    members: Vec<(i64, String, bool)>,
}

#[derive(Template)]
#[template(path = "clubs/new_game.html")]
struct ChosenGamePage {
    club: i64,
    club_name: String,
    kind: String,
    name: String,
    min: usize,
    max: usize,
    seats: Vec<SeatChoice>,
    options: Vec<OptionField>,
    csrf: String,
    /// What was sent, shown again after a refusal.
    form: FormEcho,
    error: Option<String>,
}

/// The form for `game` in the club, with the members chosen so far.
async fn form_page(
    state: &AppState,
    club: (i64, String),
    game: &'static dyn DynGame,
    chosen: &BTreeMap<usize, i64>,
    csrf: String,
    form: FormEcho,
    error: Option<String>,
) -> Result<ChosenGamePage, WebError> {
    let (min, max) = game.seat_counts();
    let members = state.store.member_names(club.0).await?;
    Ok(ChosenGamePage {
        club: club.0,
        club_name: club.1,
        kind: game.id().to_string(),
        name: game.name().to_string(),
        min,
        max,
        seats: (0..max)
            .map(|seat| SeatChoice {
                field: format!("seat{seat}"),
                label: game.seat_name(seat, max),
                members: members
                    .iter()
                    .map(|(id, name)| (*id, name.clone(), chosen.get(&seat) == Some(id)))
                    .collect(),
            })
            .collect(),
        options: option_fields(game, &form),
        csrf,
        form,
        error,
    })
}

/// The club (id, name) and whether it is closed, if `reader` is its member: 404 for a club
/// they may not see, refused (`NotAllowed`) for a non-member.
async fn club_of_member(
    state: &AppState,
    club: i64,
    reader: &Account,
) -> Result<Result<((i64, String), bool), ClubError>, WebError> {
    let (club, role) = state
        .store
        .club_for(club, Some(reader.id))
        .await?
        .ok_or(WebError::NotFound)?;
    Ok(match role {
        None => Err(ClubError::NotAllowed(
            "only the club's members start its games".into(),
        )),
        Some(_) => Ok(((club.id, club.name), club.closed_at.is_some())),
    })
}

/// The members chosen by seat (`seat0`, `seat1`, … = an account's id; empty for none).
fn chosen_seats(fields: &[(String, String)]) -> Result<BTreeMap<usize, i64>, String> {
    let mut chosen = BTreeMap::new();
    for (key, value) in fields {
        let Some(seat) = key
            .strip_prefix("seat")
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        let member = value
            .parse::<i64>()
            .map_err(|_| format!("seat {}: not a member of the club", seat + 1))?;
        if chosen.insert(seat, member).is_some() {
            return Err(format!("seat {} is given twice", seat + 1));
        }
    }
    Ok(chosen)
}

/// The game the form asks for, or what is wrong with it.
fn chosen_game(
    game: &'static dyn DynGame,
    chosen: &BTreeMap<usize, i64>,
    fields: &[(String, String)],
) -> Result<ChosenGame, Refused> {
    let (min, max) = game.seat_counts();
    let count = chosen.len();
    if !(min..=max).contains(&count) || chosen.keys().any(|seat| *seat >= max) {
        let players = if min == max {
            format!("exactly {min} players")
        } else {
            format!("{min} to {max} players")
        };
        return Err(Refused {
            fields: (0..min)
                .filter(|seat| !chosen.contains_key(seat))
                .map(|seat| format!("seat{seat}"))
                .collect(),
            message: format!(
                "{} is for {players}: choose a member for each seat",
                game.name()
            ),
        });
    }
    if chosen.keys().copied().ne(0..count) {
        return Err(Refused {
            fields: (0..count)
                .filter(|seat| !chosen.contains_key(seat))
                .map(|seat| format!("seat{seat}"))
                .collect(),
            message: "choose a member for every seat from the first on".into(),
        });
    }
    let mut members: Vec<i64> = chosen.values().copied().collect();
    if field(fields, "order") == Some("random") {
        GameRng::new(&Seed::random(), 0).shuffle(&mut members);
    }
    let options = options_from_form(game, fields)?;
    let clock = clock_from_form(fields)?;
    Ok(ChosenGame {
        kind: game.id().to_string(),
        options,
        settings: serde_json::json!({ "clock": clock, "unlisted": false }),
        members,
        words: ShuffleWords::parse(field(fields, "contribution")).map_err(|message| Refused {
            fields: vec!["contribution".into()],
            message,
        })?,
    })
}

fn game_of(kind: &str) -> Result<&'static dyn DynGame, WebError> {
    find_game(kind).ok_or(WebError::NotFound)
}

/// `GET /clubs/{club}/new/{kind}`: the form for a game with chosen members (members of an
/// open club).
pub async fn form(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, String)>,
) -> Result<HttpResponse, WebError> {
    let (club, kind) = path.into_inner();
    let game = game_of(&kind)?;
    let Some(account) = who.0 else {
        return Ok(sign_in_first(req.path()));
    };
    let (club, closed) = club_of_member(&state, club, &account)
        .await?
        .map_err(club_error)?;
    if closed {
        return Err(club_error(ClubError::Closed));
    }
    let (token, cookie) = csrf::token_for(&req);
    let page = form_page(
        &state,
        club,
        game,
        &BTreeMap::new(),
        token,
        FormEcho::blank(),
        None,
    )
    .await?;
    let mut response = html(StatusCode::OK, page)?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

/// `POST /clubs/{club}/new/{kind}` (`seat0`, `seat1`, … the members' account ids, `order`,
/// the options and the clock): starts the game and goes to its page; the form again with the
/// reason (422, 409 for a closed club) when refused, nothing written.
pub async fn start(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club_id, kind) = path.into_inner();
    let game = game_of(&kind)?;
    let (account, fields) = match signed_form(&req, who, &body, club_id)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let (club, closed) = match club_of_member(&state, club_id, &account).await? {
        Ok(club) => club,
        Err(e) => {
            return done(&req, &state, club_id, &account, Err(e), String::new()).await;
        }
    };
    let chosen = chosen_seats(&fields);
    let refuse = async |status: StatusCode, refused: Refused| {
        let (token, _) = csrf::token_for(&req);
        let chosen = chosen.clone().unwrap_or_default();
        let form = refused.echo(&fields);
        let page = form_page(
            &state,
            club.clone(),
            game,
            &chosen,
            token,
            form,
            Some(refused.message),
        )
        .await?;
        html(status, page)
    };
    if closed {
        let refused = Refused::plain(ClubError::Closed.to_string());
        return refuse(StatusCode::CONFLICT, refused).await;
    }
    let new = match chosen
        .clone()
        .map_err(Refused::plain)
        .and_then(|chosen| chosen_game(game, &chosen, &fields))
    {
        Ok(new) => new,
        Err(refused) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, refused).await,
    };
    let client = client_addr(req.head(), &state.settings.trusted_proxies);
    state
        .limits
        .game_mail(client, Some(&account.email), new.members.len() as u32)
        .map_err(WebError::TooMany)?;
    match state.store.start_club_game(club_id, &account, &new).await {
        Ok(id) => {
            // A member who starts a game they play in goes to their own seat.
            if let Some(seat) = new.members.iter().position(|m| *m == account.id)
                && let Some(token) = device_link(&req, &state, &account, id, seat).await?
            {
                return Ok(see_other(format!("/play/{token}")));
            }
            Ok(see_other(format!("/games/{id}")))
        }
        Err(e @ (ClubError::Invalid(_) | ClubError::Closed)) => {
            refuse(status_of(&e), Refused::plain(e.to_string())).await
        }
        Err(e) => Err(club_error(e)),
    }
}
