//! Invitations: the mail that gives a seat its private link and tells it the table (every
//! seat's role and player, partners named), the options chosen, the rules page and the clock.
//! Sent to every seat with an address when a game is created, again when the organiser asks,
//! and to a seat's new address. Nothing in it is hidden information: the position it shows is
//! the recipient's own view, and only when the seat is to move.

use crate::domain::ClockSettings;
use crate::engine::{DynGame, DynMatch, Seat};
use crate::notices::EmailAddress;
use crate::notices::notice::{GameRef, Invite, Notice, Seated};
use crate::notices::outbox::{MailSeat, NewRow, announce, insert, mail_seats, mint_link, player};
use crate::notices::turn::ask;
use crate::store::game::effects::Creation;
use crate::store::{Changer, GameRow};
use sqlx::{PgConnection, PgPool};

/// A game as its invitations describe it.
struct Table<'a> {
    game_id: i64,
    kind: &'static dyn DynGame,
    game: &'a dyn DynMatch,
    /// The log's head: the position a seat to move is asked about.
    seq: i64,
    seats: &'a [MailSeat],
    time_control: Option<String>,
    commitment: &'a str,
}

/// The invitation of `seat`, carrying `token` as its link.
async fn invitation(
    tx: &mut PgConnection,
    table: &Table<'_>,
    seat: &MailSeat,
    token: String,
) -> Result<Invite, sqlx::Error> {
    let (kind, game, count) = (table.kind, table.game, table.seats.len());
    let to_move = game.active().contains(&seat.seat);
    let names: Vec<String> = table.seats.iter().map(|s| s.name.clone()).collect();
    let partners = game.partners(seat.seat);
    Ok(Invite {
        game: GameRef {
            home: None,
            id: table.game_id,
            name: kind.name().to_string(),
        },
        you: player(kind, seat, count),
        others: table
            .seats
            .iter()
            .filter(|s| s.seat != seat.seat)
            .map(|s| player(kind, s, count))
            .collect(),
        table: table
            .seats
            .iter()
            .map(|s| Seated {
                name: s.name.clone(),
                seat: kind.seat_name(s.seat, count),
                you: s.seat == seat.seat,
                partner: partners.contains(&s.seat),
            })
            .collect(),
        options: crate::engine::options::describe(&kind.option_specs(), &game.options()),
        game_kind: kind.id().to_string(),
        at_move: table.seq,
        time_control: table.time_control.clone(),
        choices: if to_move {
            game.choices(seat.seat)
                .into_iter()
                .map(|c| c.label.into_owned())
                .collect()
        } else {
            Vec::new()
        },
        ask: if to_move {
            ask(tx, table.game_id, game, (seat.seat, table.seq), &names).await?
        } else {
            Default::default()
        },
        token,
        commitment: table.commitment.to_string(),
    })
}

/// Queues an invitation for every seat of a new game with an address, carrying the seat's own
/// token.
pub async fn enqueue_invites(
    tx: &mut PgConnection,
    creation: &Creation<'_>,
) -> Result<(), sqlx::Error> {
    let seats: Vec<MailSeat> = creation
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| MailSeat {
            seat: i,
            name: s.name.to_string(),
            email: s.email.clone(),
            pref: "every".into(),
        })
        .collect();
    let table = Table {
        game_id: creation.id,
        kind: creation.game,
        game: creation.started,
        seq: 0,
        seats: &seats,
        time_control: Some(ClockSettings::of_game(creation.settings).describe()),
        commitment: creation.commitment,
    };
    let mut queued = false;
    for seat in &seats {
        let Some(to) = &seat.email else { continue };
        let token = creation.seat_tokens[seat.seat].clone();
        let notice = Notice::Invite(invitation(tx, &table, seat, token).await?);
        insert(
            tx,
            NewRow {
                game_id: creation.id,
                seat: Some(seat.seat),
                event: "invite".into(),
                to,
                to_name: &seat.name,
                notice,
                digest: false,
            },
        )
        .await?;
        queued = true;
    }
    if queued {
        announce(tx).await?;
    }
    Ok(())
}

/// Why an invitation was not queued again; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InviteError {
    /// The game is over: there is nothing to invite to.
    #[error("the game is over: there is nothing to invite to")]
    Over,
    /// No such seat in the game.
    #[error("the game has no such seat")]
    NoSeat,
    /// The game's rules are not hosted here.
    #[error("no game called {0:?} is hosted here")]
    UnknownGame(String),
    /// The seat has no address to send to.
    #[error("this seat has no email address: give it one first")]
    NoAddress,
    /// The player chose no mail for this seat.
    #[error("the player turned mail off for this seat")]
    MailOff,
    /// The address given is already the seat's.
    #[error("that is already the seat's address")]
    SameAddress,
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// The store failed while renewing the seat's keys.
    #[error("{0}")]
    Store(#[from] crate::store::StoreError),
}

/// Queues the invitation of `seat` once more, with a fresh link minted for it (it opens the
/// seat like every link in mail, and dies with a relink); returns the address it goes to.
pub async fn invite_again(
    pool: &PgPool,
    row: &GameRow,
    game: &dyn DynMatch,
    seat: Seat,
) -> Result<EmailAddress, InviteError> {
    let mut tx = pool.begin().await?;
    let to = queue_invitation(&mut tx, row, game, seat).await?;
    tx.commit().await?;
    Ok(to)
}

/// Gives `seat` a new address and sends the invitation there, in one transaction that also
/// ends every older credential of the seat (its links, reply addresses, an account's claim:
/// DESIGN.md "Identity"); the seat's owner is then the new address's account, if any. The
/// seat's mail preference starts again at "every turn" (the old address's reader chose the old
/// one), and messages still waiting for the old address are not sent. Every player sees the
/// change with `by` as its maker, and the old address is told at once (DESIGN.md "Seats change
/// hands in the open"). Returns the old address, if there was one.
pub async fn change_address(
    store: &crate::store::Store,
    row: &GameRow,
    game: &dyn DynMatch,
    seat: Seat,
    new: &EmailAddress,
    by: &Changer,
) -> Result<Option<String>, InviteError> {
    let mut tx = store.pool().begin().await?;
    let old = change_address_in(&mut tx, store, row, game, seat, new, by).await?;
    tx.commit().await?;
    Ok(old)
}

/// [`change_address`] inside the caller's transaction.
pub async fn change_address_in(
    tx: &mut PgConnection,
    store: &crate::store::Store,
    row: &GameRow,
    game: &dyn DynMatch,
    seat: Seat,
    new: &EmailAddress,
    by: &Changer,
) -> Result<Option<String>, InviteError> {
    if game.outcome().is_some() {
        return Err(InviteError::Over);
    }
    let old: Option<String> =
        sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = $2 FOR UPDATE")
            .bind(row.id)
            .bind(seat as i32)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(InviteError::NoSeat)?;
    if old.as_deref() == Some(new.as_str()) {
        return Err(InviteError::SameAddress);
    }
    store
        .rekey_seat_in(&mut *tx, row.id, seat, Some(new), by)
        .await?
        .ok_or(InviteError::NoSeat)?;
    if let Some(old) = &old {
        sqlx::query(
            "UPDATE outbox SET status = 'failed', \
             last_error = 'not sent: the seat''s address changed' \
             WHERE game_id = $1 AND seat = $2 AND recipient = $3 AND status = 'pending'",
        )
        .bind(row.id)
        .bind(seat as i32)
        .bind(old)
        .execute(&mut *tx)
        .await?;
    }
    queue_invitation(&mut *tx, row, game, seat).await?;
    Ok(old)
}

/// Queues the invitation of `seat` as the game stands now, with a freshly minted link.
async fn queue_invitation(
    tx: &mut PgConnection,
    row: &GameRow,
    game: &dyn DynMatch,
    seat: Seat,
) -> Result<EmailAddress, InviteError> {
    if game.outcome().is_some() {
        return Err(InviteError::Over);
    }
    let kind = crate::games::find_game(&row.kind)
        .ok_or_else(|| InviteError::UnknownGame(row.kind.clone()))?;
    let seats = mail_seats(tx, row.id).await?;
    let reader = seats
        .iter()
        .find(|s| s.seat == seat)
        .ok_or(InviteError::NoSeat)?;
    let to = reader.email.clone().ok_or(InviteError::NoAddress)?;
    if reader.pref == "off" {
        return Err(InviteError::MailOff);
    }
    let clock: serde_json::Value = sqlx::query_scalar("SELECT clock FROM games WHERE id = $1")
        .bind(row.id)
        .fetch_one(&mut *tx)
        .await?;
    let table = Table {
        game_id: row.id,
        kind,
        game,
        seq: row.head_seq,
        seats: &seats,
        time_control: Some(
            ClockSettings::of_game(&serde_json::json!({ "clock": clock })).describe(),
        ),
        commitment: &row.commitment,
    };
    let token = mint_link(tx, row.id, seat).await?;
    let event = format!("invite:{}", crate::notices::outbox::event_tag(&token));
    let notice = Notice::Invite(invitation(tx, &table, reader, token).await?);
    insert(
        tx,
        NewRow {
            game_id: row.id,
            seat: Some(seat),
            event,
            to: &to,
            to_name: &reader.name,
            notice,
            digest: false,
        },
    )
    .await?;
    announce(tx).await?;
    Ok(to)
}
