//! What a seat settles ahead, on its pages: its standing orders (given and cancelled on the
//! seat's page) and whether its only possible moves are played for it (set on its mail page,
//! with an account-wide default in `/me/settings`).

use crate::engine::{DynMatch, Seat};
use crate::store::OrderError;
use crate::web::http::csrf;
use crate::web::http::page::{field, parse_form};
use crate::web::seat::page::seat_of;
use crate::web::{AppState, WebError};
use actix_web::{HttpRequest, HttpResponse, web};

/// One standing order as the seat's page offers it.
pub struct OrderRow {
    /// Its id, posted back.
    pub id: &'static str,
    /// What it does.
    pub label: &'static str,
    /// What the seat gives up by it.
    pub note: &'static str,
    /// Whether the seat has given it.
    pub given: bool,
}

/// The seat page's panel of what the seat settled ahead.
pub struct SettledPanel {
    /// The game's standing orders for this seat.
    pub orders: Vec<OrderRow>,
    /// Whether the seat's only possible moves are played for it now.
    pub play_forced: bool,
    /// Where that is changed (the seat's mail page).
    pub mail_page: String,
}

impl SettledPanel {
    /// Some order stands: the panel is shown open (it is collapsed otherwise, to keep a
    /// phone's page short).
    pub fn any_given(&self) -> bool {
        self.orders.iter().any(|o| o.given)
    }
}

/// The panel for `seat` of a running game, on the page of its link `token`.
pub async fn panel(
    state: &AppState,
    id: i64,
    game: &dyn DynMatch,
    seat: Seat,
    token: &str,
) -> Result<Option<SettledPanel>, WebError> {
    if game.outcome().is_some() {
        return Ok(None);
    }
    let given = state.store.standing_orders(id, seat).await?;
    let (_, play_forced) = state.store.play_forced(id, seat).await?;
    Ok(Some(SettledPanel {
        orders: game
            .standing_orders()
            .iter()
            .filter(|o| o.seat.is_none_or(|s| s == seat))
            .map(|o| OrderRow {
                id: o.id,
                label: o.label,
                note: o.note,
                given: given.iter().any(|g| g == o.id),
            })
            .collect(),
        play_forced,
        mail_page: format!("/mail/unsubscribe/{token}#forced"),
    }))
}

/// `POST /play/{token}/orders`: `action=give|cancel`, `order=ID`; back to the seat's page.
pub async fn set_order(
    req: HttpRequest,
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (id, seat) = seat_of(&state, &token).await?;
    let fields = parse_form(&body)?;
    csrf::check(&req, field(&fields, "csrf"))?;
    let order = field(&fields, "order").unwrap_or_default();
    let loaded = state.store.load(id).await?;
    let offered = loaded.game.standing_orders();
    if !offered
        .iter()
        .any(|o| o.id == order && o.seat.is_none_or(|s| s == seat))
    {
        return Err(WebError::BadRequest(format!(
            "{:?} is no standing order of this seat",
            order.chars().take(40).collect::<String>()
        )));
    }
    if loaded.game.outcome().is_some() {
        return Err(WebError::BadRequest("the game is over".into()));
    }
    match field(&fields, "action") {
        Some("give") => {
            state
                .store
                .give_order(id, seat, offered, order)
                .await
                .map_err(|e| match e {
                    OrderError::Unknown(m) => WebError::BadRequest(m),
                    OrderError::Submit(e) => e.into(),
                })?;
            tracing::info!(game = id, seat, order, "standing order given");
        }
        Some("cancel") => {
            state.store.cancel_order(id, seat, order).await?;
            tracing::info!(game = id, seat, order, "standing order cancelled");
        }
        _ => return Err(WebError::BadRequest("give or cancel an order".into())),
    }
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", format!("/play/{token}#settled")))
        .finish())
}
