//! A club's forms: its admins invite by address, withdraw invitations, make admins, remove
//! members and close the club; a member leaves; an invitation's link makes a member of its
//! reader once signed in as the invited address (by a sign-in link mailed there). Every form is a POST with the CSRF token; a signed-out reader is sent to
//! sign in first, whatever the club (so a private club shows nothing of itself that way).

use crate::domain::{ClubRole, EmailAddress};
use crate::store::{Account, ClubError, INVITE_DAYS, MAX_PENDING_INVITES};
use crate::web::accounts::session::MaybeSignedIn;
use crate::web::clubs::club::{
    ClubQuery, club_error, club_page, see_other, sign_in_first, status_of,
};
use crate::web::http::client::client_addr;
use crate::web::http::csrf;
use crate::web::http::page::{FormEcho, field, html, parse_form};
use crate::web::{AppState, WebError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;

/// An action's form: the signed-in reader and the fields sent, or the way to sign in first.
pub(in crate::web) type SignedForm = Result<(Account, Vec<(String, String)>), HttpResponse>;

/// What the action's form sent, once the reader is signed in and the CSRF token checks.
pub(in crate::web) fn signed_form(
    req: &HttpRequest,
    who: MaybeSignedIn,
    body: &[u8],
    club: i64,
) -> Result<SignedForm, WebError> {
    let Some(account) = who.0 else {
        return Ok(Err(sign_in_first(&format!("/clubs/{club}"))));
    };
    let fields = parse_form(body)?;
    csrf::check(req, field(&fields, "csrf"))?;
    Ok(Ok((account, fields)))
}

/// After an action: back to the club's page, or the page again with why it was refused.
pub(in crate::web) async fn done(
    req: &HttpRequest,
    state: &AppState,
    club: i64,
    reader: &Account,
    result: Result<(), ClubError>,
    back_to: String,
) -> Result<HttpResponse, WebError> {
    done_keeping(req, state, club, reader, result, back_to, FormEcho::blank()).await
}

/// The same, showing the refused form again as it was sent.
async fn done_keeping(
    req: &HttpRequest,
    state: &AppState,
    club: i64,
    reader: &Account,
    result: Result<(), ClubError>,
    back_to: String,
    form: FormEcho,
) -> Result<HttpResponse, WebError> {
    let e = match result {
        Ok(()) => return Ok(see_other(back_to)),
        Err(e @ (ClubError::NotFound | ClubError::Store(_))) => return Err(club_error(e)),
        Err(e) => e,
    };
    let (token, _) = csrf::token_for(req);
    let mut page = club_page(state, club, Some(reader), &ClubQuery::default(), token).await?;
    page.error = Some(e.to_string());
    page.form = form;
    html(status_of(&e), page)
}

/// `POST /clubs/{club}/invite` (`addresses`: one or more, by line, comma or space): an admin
/// invites each address; each is mailed a link that makes its reader a member.
pub async fn invite(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let club = *id;
    let (account, fields) = match signed_form(&req, who, &body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let words: Vec<&str> = field(&fields, "addresses")
        .unwrap_or("")
        .split([',', '\n', ' ', ';', '\r'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    let result = if words.len() as i64 > MAX_PENDING_INVITES {
        Err(ClubError::Invalid(format!(
            "at most {MAX_PENDING_INVITES} addresses at once"
        )))
    } else {
        match words
            .iter()
            .map(|w| EmailAddress::parse(w))
            .collect::<Result<Vec<_>, _>>()
        {
            Err(e) => Err(ClubError::Invalid(e.to_string())),
            Ok(addresses) => {
                let client = client_addr(req.head(), &state.settings.trusted_proxies);
                state
                    .limits
                    .game_mail(client, Some(&account.email), addresses.len() as u32)
                    .map_err(WebError::TooMany)?;
                state
                    .store
                    .invite_to_club(club, &account, &addresses)
                    .await
                    .map(|_| ())
            }
        }
    };
    let form = FormEcho::sent(&fields).at_fault("addresses");
    done_keeping(
        &req,
        &state,
        club,
        &account,
        result,
        format!("/clubs/{club}"),
        form,
    )
    .await
}

/// `POST /clubs/{club}/invites/{invite}/withdraw`: an admin withdraws a pending invitation.
pub async fn withdraw(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, invite) = path.into_inner();
    let (account, _) = match signed_form(&req, who, &body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let result = state
        .store
        .withdraw_club_invite(club, &account, invite)
        .await;
    done(
        &req,
        &state,
        club,
        &account,
        result,
        format!("/clubs/{club}"),
    )
    .await
}

/// `POST /clubs/{club}/members/{account}/role` (`role` = `admin` | `member`): an admin makes
/// a member admin, or an admin a member again (never the last admin).
pub async fn set_role(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, member) = path.into_inner();
    let (account, fields) = match signed_form(&req, who, &body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let result = match ClubRole::parse(field(&fields, "role").unwrap_or("")) {
        Ok(role) => {
            state
                .store
                .set_club_role(club, &account, member, role)
                .await
        }
        Err(e) => Err(ClubError::Invalid(e.to_string())),
    };
    done(
        &req,
        &state,
        club,
        &account,
        result,
        format!("/clubs/{club}"),
    )
    .await
}

/// `POST /clubs/{club}/members/{account}/remove`: an admin removes a member.
pub async fn remove(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    path: web::Path<(i64, i64)>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let (club, member) = path.into_inner();
    let (account, _) = match signed_form(&req, who, &body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let result = state.store.remove_member(club, &account, member).await;
    done(
        &req,
        &state,
        club,
        &account,
        result,
        format!("/clubs/{club}"),
    )
    .await
}

/// `POST /clubs/{club}/leave`: the reader leaves the club (not its last admin).
pub async fn leave(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let club = *id;
    let (account, _) = match signed_form(&req, who, &body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let result = state.store.leave_club(club, &account).await;
    done(&req, &state, club, &account, result, "/clubs".into()).await
}

/// `POST /clubs/{club}/close` (`confirm` = `yes`): an admin closes the club.
pub async fn close(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    id: web::Path<i64>,
    body: web::Bytes,
) -> Result<HttpResponse, WebError> {
    let club = *id;
    let (account, fields) = match signed_form(&req, who, &body, club)? {
        Ok(signed) => signed,
        Err(redirect) => return Ok(redirect),
    };
    let result = if field(&fields, "confirm") == Some("yes") {
        state.store.close_club(club, &account).await
    } else {
        Err(ClubError::Invalid(
            "tick the box to confirm that the club closes for good".into(),
        ))
    };
    done(
        &req,
        &state,
        club,
        &account,
        result,
        format!("/clubs/{club}"),
    )
    .await
}

#[derive(Template)]
#[template(path = "clubs/invite.html")]
struct InvitationPage {
    token: String,
    club: String,
    description: String,
    email: String,
    closed: bool,
    days: i32,
    csrf: String,
    /// The reader is signed in as the invited address: the page offers to join.
    invitee: bool,
    /// The address the reader is signed in as, when it is another.
    signed_in_as: Option<String>,
    /// Where the sign-in link brings the invitee back: this page.
    next: String,
}

/// `GET /clubs/invite/{token}`: the club an invitation leads to; to a reader signed in as the
/// invited address, the button that joins it, to anyone else the button that mails a sign-in
/// link to that address (a forwarded invitation signs nobody in). Opening it changes nothing
/// (mail scanners follow links).
pub async fn invitation(
    req: HttpRequest,
    state: web::Data<AppState>,
    who: MaybeSignedIn,
    token: web::Path<String>,
) -> Result<HttpResponse, WebError> {
    let (club, email) = state
        .store
        .club_invitation(&token)
        .await
        .map_err(club_error)?
        .ok_or_else(gone)?;
    let invitee = who
        .0
        .as_ref()
        .is_some_and(|a| a.email.to_lowercase() == email.to_lowercase());
    let (csrf_token, cookie) = csrf::token_for(&req);
    let token = token.into_inner();
    let mut response = html(
        StatusCode::OK,
        InvitationPage {
            next: format!("/clubs/invite/{token}"),
            token,
            club: club.name,
            description: club.description,
            email,
            closed: club.closed_at.is_some(),
            days: INVITE_DAYS,
            csrf: csrf_token,
            invitee,
            signed_in_as: who.0.filter(|_| !invitee).map(|a| a.email),
        },
    )?;
    csrf::attach(&mut response, cookie);
    Ok(response)
}

fn gone() -> WebError {
    WebError::Gone("this invitation was used, withdrawn, has expired or never existed".into())
}

/// `POST /clubs/invite/{token}`: the reader, signed in as the invited address, joins the club.
/// Anyone else is refused (403) and nothing changes: the invitation page offers them a sign-in
/// link mailed to that address.
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
            "to join, sign in as the invited address first: open the invitation and ask for a \
             sign-in link by mail"
                .into(),
        ));
    };
    let club = state
        .store
        .accept_club_invitation(&token, &account)
        .await
        .map_err(|e| match e {
            ClubError::NotFound => gone(),
            e => club_error(e),
        })?;
    Ok(HttpResponse::SeeOther()
        .insert_header(("Location", format!("/clubs/{club}")))
        .finish())
}
