//! The one outbox: the rows a transaction queues for mail and for the chat webhooks, each
//! with a private link of its own minted here, and what the pages read of them. The notice
//! builders (`invite`, `turn`, `clock`, …) fill it; the worker ([`crate::notices::outbox::worker`]) sends
//! what it holds. The outbox calls none of them back.

pub mod fold;
pub mod worker;

use crate::engine::{DynGame, Seat};
use crate::notices::EmailAddress;
use crate::notices::notice::{Notice, Player};
use crate::store::{new_token, token_hash};
use sqlx::{PgConnection, Row};

/// The channel on which new outbox rows are announced (wakes the workers).
pub const OUTBOX_CHANNEL: &str = "postplay_outbox";

/// A seat as mail needs it.
#[derive(Debug, Clone)]
pub struct MailSeat {
    /// Seat number.
    pub seat: Seat,
    /// Display name.
    pub name: String,
    /// Address, if the seat gave one.
    pub email: Option<EmailAddress>,
    /// `every`, `digest` or `off`.
    pub pref: String,
}

/// One message to queue.
pub(super) struct NewRow<'a> {
    pub(super) game_id: i64,
    pub(super) seat: Option<Seat>,
    pub(super) event: String,
    pub(super) to: &'a EmailAddress,
    pub(super) to_name: &'a str,
    pub(super) notice: Notice,
    pub(super) digest: bool,
}

/// Writes one message to the outbox; a second one for the same event and recipient is dropped.
pub(super) async fn insert(tx: &mut PgConnection, row: NewRow<'_>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, digest) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (game_id, event, recipient) DO NOTHING",
    )
    .bind(row.game_id)
    .bind(row.seat.map(|s| s as i32))
    .bind(&row.event)
    .bind(row.notice.kind())
    .bind(row.to.as_str())
    .bind(row.to_name)
    .bind(serde_json::to_value(&row.notice).expect("notices serialize"))
    .bind(row.digest)
    .execute(tx)
    .await?;
    Ok(())
}

/// Wakes the workers once the transaction commits.
pub(super) async fn announce(tx: &mut PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(OUTBOX_CHANNEL)
        .execute(tx)
        .await?;
    Ok(())
}

/// A fresh private link for a seat, valid like its own token; returns the raw token.
pub async fn mint_link(
    tx: &mut PgConnection,
    game_id: i64,
    seat: Seat,
) -> Result<String, sqlx::Error> {
    let token = new_token();
    sqlx::query("INSERT INTO seat_links (token_hash, game_id, seat) VALUES ($1, $2, $3)")
        .bind(token_hash(&token))
        .bind(game_id)
        .bind(seat as i32)
        .execute(tx)
        .await?;
    Ok(token)
}

/// A short mark of a link token, naming the event of a message that carries it
/// (`"relink:3f9a01c2d4e5f607"`): one message per link, never the token itself.
pub(super) fn event_tag(token: &str) -> String {
    crate::store::token_hash(token)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A game's seats with their mail settings, read in the transaction.
pub async fn mail_seats(tx: &mut PgConnection, game_id: i64) -> Result<Vec<MailSeat>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT seat, name, email, mail_pref FROM seats WHERE game_id = $1 ORDER BY seat",
    )
    .bind(game_id)
    .fetch_all(tx)
    .await?;
    rows.iter()
        .map(|r| {
            let email: Option<String> = r.try_get("email")?;
            Ok(MailSeat {
                seat: r.try_get::<i32, _>("seat")? as Seat,
                name: r.try_get("name")?,
                email: email.and_then(|e| EmailAddress::parse(&e).ok()),
                pref: r.try_get("mail_pref")?,
            })
        })
        .collect()
}

/// A seat as others see it in mail.
pub fn player(kind: &dyn DynGame, seat: &MailSeat, count: usize) -> Player {
    Player {
        name: seat.name.clone(),
        seat: kind.seat_role(seat.seat, count).unwrap_or_default(),
    }
}

/// Where a league game is played, as mail and pages name it: "Tuesday Cards · Autumn
/// Combat" (its club, then its league); none for a game of no league.
pub async fn home<'e>(
    db: impl sqlx::PgExecutor<'e>,
    game_id: i64,
) -> Result<Option<String>, sqlx::Error> {
    Ok(sqlx::query_scalar::<_, Option<String>>(concat!(
        "SELECT ",
        crate::store::league_home_of_g!(),
        " FROM games g WHERE g.id = $1"
    ))
    .bind(game_id)
    .fetch_optional(db)
    .await?
    .flatten())
}

/// A seat's mail preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailPref {
    /// A notice every time the seat must act.
    Every,
    /// At most one message a day listing every game waiting.
    Digest,
    /// No mail.
    Off,
}

impl MailPref {
    /// The stored word.
    pub fn as_str(self) -> &'static str {
        match self {
            MailPref::Every => "every",
            MailPref::Digest => "digest",
            MailPref::Off => "off",
        }
    }

    /// From the stored word.
    pub fn parse(text: &str) -> Option<MailPref> {
        match text {
            "every" => Some(MailPref::Every),
            "digest" => Some(MailPref::Digest),
            "off" => Some(MailPref::Off),
            _ => None,
        }
    }
}

/// A seat's current preference.
pub async fn mail_pref(
    pool: &sqlx::PgPool,
    game_id: i64,
    seat: Seat,
) -> Result<MailPref, sqlx::Error> {
    let word: String =
        sqlx::query_scalar("SELECT mail_pref FROM seats WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_one(pool)
            .await?;
    Ok(MailPref::parse(&word).unwrap_or(MailPref::Every))
}

/// Sets a seat's preference; turning mail off also drops the seat's mail not yet sent (a
/// preference governs mail only: the account's webhooks go on, docs/WEBHOOKS.md).
pub async fn set_mail_pref(
    pool: &sqlx::PgPool,
    game_id: i64,
    seat: Seat,
    pref: MailPref,
) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE seats SET mail_pref = $3 WHERE game_id = $1 AND seat = $2")
        .bind(game_id)
        .bind(seat as i32)
        .bind(pref.as_str())
        .execute(&mut *tx)
        .await?;
    match pref {
        MailPref::Off => {
            sqlx::query(
                "UPDATE outbox SET status = 'failed', last_error = 'the player turned mail off' \
                 WHERE game_id = $1 AND seat = $2 AND status = 'pending' AND webhook_id IS NULL",
            )
            .bind(game_id)
            .bind(seat as i32)
            .execute(&mut *tx)
            .await?;
        }
        MailPref::Digest | MailPref::Every => {
            sqlx::query(
                "UPDATE outbox SET digest = $3 WHERE game_id = $1 AND seat = $2 \
                 AND status = 'pending' AND kind = 'turn'",
            )
            .bind(game_id)
            .bind(seat as i32)
            .bind(pref == MailPref::Digest)
            .execute(&mut *tx)
            .await?;
        }
    }
    tx.commit().await
}

/// One message of a game, as the organiser's page shows it.
#[derive(Debug, Clone)]
pub struct OutboxLine {
    /// The seat it is for (`None`: the organiser).
    pub seat: Option<Seat>,
    /// `invite`, `turn`, `over`, `undeliverable`...
    pub kind: String,
    /// Address.
    pub recipient: String,
    /// `pending`, `sending`, `sent`, `failed`.
    pub status: String,
    /// Tries so far.
    pub attempts: i32,
    /// The last error, if any.
    pub last_error: Option<String>,
}

/// A game's messages that did not simply go out: failed ones and ones still retrying, and the
/// number sent. Mail only: a seat's chat notices are its account's own business.
pub async fn troubles(
    pool: &sqlx::PgPool,
    game_id: i64,
) -> Result<(i64, Vec<OutboxLine>), sqlx::Error> {
    let sent: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND status = 'sent' \
             AND webhook_id IS NULL",
    )
    .bind(game_id)
    .fetch_one(pool)
    .await?;
    let rows = sqlx::query(
        "SELECT seat, kind, recipient, status, attempts, last_error FROM outbox \
         WHERE game_id = $1 AND (status = 'failed' OR last_error IS NOT NULL \
         OR status NOT IN ('sent', 'folded')) \
         AND webhook_id IS NULL ORDER BY id",
    )
    .bind(game_id)
    .fetch_all(pool)
    .await?;
    let lines = rows
        .iter()
        .map(|r| {
            Ok(OutboxLine {
                seat: r.try_get::<Option<i32>, _>("seat")?.map(|s| s as Seat),
                kind: r.try_get("kind")?,
                recipient: r.try_get("recipient")?,
                status: r.try_get("status")?,
                attempts: r.try_get("attempts")?,
                last_error: r.try_get("last_error")?,
            })
        })
        .collect::<Result<_, sqlx::Error>>()?;
    Ok((sent, lines))
}

/// The mail of one seat of a game, as the organiser's desk counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeatMail {
    /// Messages sent.
    pub sent: i64,
    /// Messages given up on (undeliverable, or not sent for a reason recorded with them).
    pub failed: i64,
}

/// Each seat's mail in a game, by seat (`seats` long).
pub async fn mail_by_seat(
    pool: &sqlx::PgPool,
    game_id: i64,
    seats: usize,
) -> Result<Vec<SeatMail>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT seat, count(*) FILTER (WHERE status = 'sent') AS sent, \
         count(*) FILTER (WHERE status = 'failed') AS failed \
         FROM outbox WHERE game_id = $1 AND seat IS NOT NULL AND webhook_id IS NULL GROUP BY seat",
    )
    .bind(game_id)
    .fetch_all(pool)
    .await?;
    let mut counts = vec![SeatMail::default(); seats];
    for r in &rows {
        let seat = r.try_get::<i32, _>("seat")? as usize;
        if let Some(slot) = counts.get_mut(seat) {
            *slot = SeatMail {
                sent: r.try_get("sent")?,
                failed: r.try_get("failed")?,
            };
        }
    }
    Ok(counts)
}

/// Drops from `notice` the messages hidden since it was queued; false when it carried
/// messages only and none is left (the mail is then not sent).
pub async fn drop_hidden(pool: &sqlx::PgPool, notice: &mut Notice) -> Result<bool, sqlx::Error> {
    let only_messages = matches!(notice, Notice::Message(_));
    let Some(messages) = notice.messages_mut() else {
        return Ok(true);
    };
    if messages.is_empty() {
        return Ok(!only_messages);
    }
    let ids: Vec<i64> = messages.iter().map(|m| m.id).collect();
    let visible: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM game_messages WHERE id = ANY($1) AND hidden_at IS NULL")
            .bind(&ids)
            .fetch_all(pool)
            .await?;
    messages.retain(|m| visible.contains(&m.id));
    Ok(!(only_messages && messages.is_empty()))
}
