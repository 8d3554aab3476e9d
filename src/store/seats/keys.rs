//! A seat's keys and their one lifetime (DESIGN.md "Identity"): a new link or a new address
//! ends every older credential of the seat at once — its link, the links minted for its mail
//! and its owner, its reply addresses, an account's claim — in one transaction. A seat with an
//! address gets its new link by mail only; a seat without one is handed over by a one-time
//! link that the first person to open it takes up.

use crate::domain::EmailAddress;
use crate::engine::Seat;
use crate::store::seats::changes::{ChangeKind, Changer, SeatChange};
use crate::store::tokens::{looks_like_token, new_token, token_hash};
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};

/// A seat's new keys, for the caller to deliver in the same transaction.
#[derive(Debug, Clone)]
pub struct Rekeyed {
    /// The seat's new private link token: mailed to `email`, or held by nobody until the
    /// handover is taken up.
    pub token: String,
    /// The seat's address, if it has one: the new link goes there.
    pub email: Option<String>,
    /// The seat's name.
    pub name: String,
    /// For a seat without an address, the one-time handover link's token.
    pub handover: Option<String>,
}

/// What opening a handover link found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handover {
    /// The seat waits to be taken up.
    Open {
        /// The game.
        game_id: i64,
        /// The seat.
        seat: Seat,
        /// The seat's player name.
        name: String,
    },
    /// Someone took the seat up already.
    Taken {
        /// The game.
        game_id: i64,
        /// When it was taken up.
        at: DateTime<Utc>,
    },
}

/// The outcome of taking up a handover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TakeUp {
    /// The seat is the taker's: its fresh link token, which only they hold.
    Yours {
        /// The game.
        game_id: i64,
        /// The seat.
        seat: Seat,
        /// The seat's new link token.
        token: String,
    },
    /// Someone took the seat up before (at that time): the handover is spent.
    AlreadyTaken {
        /// The game.
        game_id: i64,
        /// When.
        at: DateTime<Utc>,
    },
    /// No such handover link (never made, or replaced by a newer one).
    Unknown,
}

/// What the organiser's desk shows of a seat's keys.
#[derive(Debug, Clone, Default)]
pub struct SeatKeys {
    /// The account that owns the seat, by name.
    pub owner: Option<String>,
    /// When the seat's current handover link was made, if it has one.
    pub handover_made_at: Option<DateTime<Utc>>,
    /// When that handover was taken up.
    pub taken_up_at: Option<DateTime<Utc>>,
}

impl Store {
    /// Ends every credential of `seat` and gives it new keys, inside `tx`: a new private link
    /// (mailed by the caller to the seat's address), or, for a seat without an address, a
    /// one-time handover link. With `readdress` the seat first gets that address (its mail
    /// choice starts again at "every turn" unless the address has an account). The seat's owner
    /// is afterwards whoever its address reaches: that address's account, or nobody. The change
    /// is written for every player to see, with `by` as its maker, and the address the seat was
    /// taken from is told (`Store::record_seat_change_in`). `None` if there is no such seat.
    pub async fn rekey_seat_in(
        &self,
        tx: &mut PgConnection,
        id: i64,
        seat: Seat,
        readdress: Option<&EmailAddress>,
        by: &Changer,
    ) -> Result<Option<Rekeyed>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT s.name, s.email, s.bot IS NOT NULL AS bot, a.email AS owner_email \
             FROM seats s LEFT JOIN accounts a ON a.id = s.account_id \
             WHERE s.game_id = $1 AND s.seat = $2 FOR UPDATE OF s",
        )
        .bind(id)
        .bind(seat as i32)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(None);
        };
        if row.try_get::<bool, _>("bot")? {
            // Nobody holds a bot's seat: giving it a link or an address would hand it over.
            return Err(StoreError::Invalid(
                "a practice bot plays this seat: it has no link and no address".into(),
            ));
        }
        let name: String = row.try_get("name")?;
        let old_email: Option<String> = row.try_get("email")?;
        let owner_email: Option<String> = row.try_get("owner_email")?;
        let email: Option<String> = match readdress {
            Some(new) => {
                sqlx::query(
                    "UPDATE seats SET email = $3, \
                     mail_pref = COALESCE((SELECT mail_pref FROM accounts WHERE lower(email) = lower($3)), 'every') \
                     WHERE game_id = $1 AND seat = $2",
                )
                .bind(id)
                .bind(seat as i32)
                .bind(new.as_str())
                .execute(&mut *tx)
                .await?;
                Some(new.as_str().to_string())
            }
            None => row.try_get("email")?,
        };
        let token = new_token();
        let handover = email.is_none().then(new_token);
        let now = self.now();
        end_seat_token(tx, id, seat, now).await?;
        sqlx::query(
            "UPDATE seats SET token_hash = $3, \
             account_id = (SELECT a.id FROM accounts a WHERE lower(a.email) = lower(seats.email)), \
             handover_hash = $4, handover_made_at = CASE WHEN $4 IS NULL THEN NULL ELSE $5 END, \
             taken_up_at = NULL, play_forced = NULL \
             WHERE game_id = $1 AND seat = $2",
        )
        .bind(id)
        .bind(seat as i32)
        .bind(token_hash(&token))
        .bind(handover.as_deref().map(token_hash))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        // What the seat settled ahead was its holder's decision, not the next holder's.
        sqlx::query("DELETE FROM standing_orders WHERE game_id = $1 AND seat = $2")
            .bind(id)
            .bind(seat as i32)
            .execute(&mut *tx)
            .await?;
        self.end_other_keys(tx, id, seat).await?;
        let kind = match (readdress, &email) {
            _ if *by == Changer::Player => ChangeKind::Left,
            (Some(_), _) if *by == Changer::PreviousAddress => ChangeKind::Reclaimed,
            (Some(_), _) => ChangeKind::Address,
            (None, Some(_)) => ChangeKind::Relink,
            (None, None) => ChangeKind::Handover,
        };
        let change = SeatChange {
            seat,
            kind,
            by: by.clone(),
            at: now,
        };
        // The seat is taken from its old address, or from the account that held it.
        let previous = old_email.or(owner_email);
        self.record_seat_change_in(tx, id, &change, previous.as_deref(), email.as_deref())
            .await?;
        Ok(Some(Rekeyed {
            token,
            email,
            name,
            handover,
        }))
    }

    /// Ends the links minted for the seat's mail and owner and, through the effects, every
    /// other credential above the store (reply addresses).
    async fn end_other_keys(
        &self,
        tx: &mut PgConnection,
        id: i64,
        seat: Seat,
    ) -> Result<(), StoreError> {
        end_links(tx, Ending::All, id, seat, self.now()).await?;
        for effect in &self.effects {
            effect.seat_rekeyed(tx, id, seat).await?;
        }
        Ok(())
    }

    /// What a handover link opens, without taking it up (a GET changes nothing).
    pub async fn handover(&self, token: &str) -> Result<Option<Handover>, StoreError> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT game_id, seat, name, taken_up_at FROM seats WHERE handover_hash = $1",
        )
        .bind(token_hash(token))
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let game_id: i64 = row.try_get("game_id")?;
        Ok(Some(
            match row.try_get::<Option<DateTime<Utc>>, _>("taken_up_at")? {
                Some(at) => Handover::Taken { game_id, at },
                None => Handover::Open {
                    game_id,
                    seat: row.try_get::<i32, _>("seat")? as Seat,
                    name: row.try_get("name")?,
                },
            },
        ))
    }

    /// Takes up a seat by its handover link: the first caller gets a fresh seat link that only
    /// they hold (every older credential of the seat ends), and the handover is spent.
    pub async fn take_up(&self, token: &str) -> Result<TakeUp, StoreError> {
        if !looks_like_token(token) {
            return Ok(TakeUp::Unknown);
        }
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(
            "SELECT s.game_id, s.seat, s.taken_up_at, a.email AS owner_email \
             FROM seats s LEFT JOIN accounts a ON a.id = s.account_id \
             WHERE s.handover_hash = $1 FOR UPDATE OF s",
        )
        .bind(token_hash(token))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            return Ok(TakeUp::Unknown);
        };
        let game_id: i64 = row.try_get("game_id")?;
        let seat = row.try_get::<i32, _>("seat")? as Seat;
        if let Some(at) = row.try_get::<Option<DateTime<Utc>>, _>("taken_up_at")? {
            return Ok(TakeUp::AlreadyTaken { game_id, at });
        }
        let fresh = new_token();
        end_seat_token(&mut tx, game_id, seat, self.now()).await?;
        sqlx::query(
            "UPDATE seats SET token_hash = $3, taken_up_at = $4, account_id = NULL \
             WHERE game_id = $1 AND seat = $2",
        )
        .bind(game_id)
        .bind(seat as i32)
        .bind(token_hash(&fresh))
        .bind(self.now())
        .execute(&mut *tx)
        .await?;
        self.end_other_keys(&mut tx, game_id, seat).await?;
        let change = SeatChange {
            seat,
            kind: ChangeKind::TakenUp,
            by: Changer::Handover,
            at: self.now(),
        };
        let owner_email: Option<String> = row.try_get("owner_email")?;
        self.record_seat_change_in(&mut tx, game_id, &change, owner_email.as_deref(), None)
            .await?;
        tx.commit().await?;
        tracing::info!(game = game_id, seat, "seat taken up by its handover link");
        Ok(TakeUp::Yours {
            game_id,
            seat,
            token: fresh,
        })
    }

    /// Ends an account's claim on a seat (the organiser's release, `by`): the seat is nobody's,
    /// and the links minted for the account's devices stop working; every player sees the
    /// change, and the account's address is told. False if it had no owner.
    pub async fn release_owner(
        &self,
        id: i64,
        seat: Seat,
        by: &Changer,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let owner_email: Option<String> = sqlx::query_scalar(
            "WITH old AS (SELECT s.game_id, s.seat, a.email FROM seats s \
             JOIN accounts a ON a.id = s.account_id \
             WHERE s.game_id = $1 AND s.seat = $2 FOR UPDATE OF s) \
             UPDATE seats SET account_id = NULL FROM old \
             WHERE seats.game_id = old.game_id AND seats.seat = old.seat RETURNING old.email",
        )
        .bind(id)
        .bind(seat as i32)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(owner_email) = owner_email else {
            return Ok(false);
        };
        end_links(&mut tx, Ending::Owners, id, seat, self.now()).await?;
        let change = SeatChange {
            seat,
            kind: ChangeKind::Released,
            by: by.clone(),
            at: self.now(),
        };
        self.record_seat_change_in(&mut tx, id, &change, Some(&owner_email), None)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Each seat's owner and handover, by seat, for the organiser's desk.
    pub async fn seat_keys(&self, id: i64) -> Result<Vec<SeatKeys>, StoreError> {
        let rows = sqlx::query(
            "SELECT a.name AS owner, s.handover_made_at, s.taken_up_at FROM seats s \
             LEFT JOIN accounts a ON a.id = s.account_id WHERE s.game_id = $1 ORDER BY s.seat",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(SeatKeys {
                    owner: r.try_get("owner")?,
                    handover_made_at: r.try_get("handover_made_at")?,
                    taken_up_at: r.try_get("taken_up_at")?,
                })
            })
            .collect()
    }
}

/// Makes the first handover link of each seat without an address, inside a game's creation;
/// the raw tokens by seat (`None` for a seat with an address).
pub(in crate::store) async fn first_handovers(
    tx: &mut PgConnection,
    id: i64,
    emails: &[bool],
    at: DateTime<Utc>,
) -> Result<Vec<Option<String>>, sqlx::Error> {
    let mut handovers = Vec::with_capacity(emails.len());
    for (seat, has_email) in emails.iter().enumerate() {
        if *has_email {
            handovers.push(None);
            continue;
        }
        let token = new_token();
        sqlx::query(
            "UPDATE seats SET handover_hash = $3, handover_made_at = $4 \
             WHERE game_id = $1 AND seat = $2",
        )
        .bind(id)
        .bind(seat as i32)
        .bind(token_hash(&token))
        .bind(at)
        .execute(&mut *tx)
        .await?;
        handovers.push(Some(token));
    }
    Ok(handovers)
}

/// How many ended links a seat remembers (the newest), for sending its owner on.
pub const ENDED_LINKS_KEPT: i64 = 50;

/// Which of a seat's minted links to end.
#[derive(Debug, Clone, Copy)]
pub(in crate::store) enum Ending<'a> {
    /// Every one.
    All,
    /// Those made for its owner's devices.
    Owners,
    /// The one made for this device (its hash).
    Device(&'a [u8]),
    /// Its owner's oldest device links, keeping the newest `MAX_DEVICE_LINKS - 1`.
    OldestDevices,
}

/// The statement that ends the links matching a condition over `seat_links` and remembers
/// which seat they were for (`$1` game, `$2` seat, `$3` device hash, `$4` now).
macro_rules! end_links_where {
    ($condition:literal) => {
        concat!(
            "WITH gone AS (DELETE FROM seat_links WHERE game_id = $1 AND seat = $2 AND (",
            $condition,
            ") RETURNING token_hash) \
             INSERT INTO ended_links (token_hash, game_id, seat, ended_at) \
             SELECT token_hash, $1, $2, $4 FROM gone ON CONFLICT (token_hash) DO NOTHING"
        )
    };
}

/// Ends the seat's minted links that `which` names, remembering which seat they were for.
pub(in crate::store) async fn end_links(
    tx: &mut PgConnection,
    which: Ending<'_>,
    id: i64,
    seat: Seat,
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    let (sql, device): (&'static str, Option<&[u8]>) = match which {
        Ending::All => (end_links_where!("$3::bytea IS NULL"), None),
        Ending::Owners => (
            end_links_where!("account_id IS NOT NULL AND $3::bytea IS NULL"),
            None,
        ),
        Ending::Device(device) => (
            end_links_where!("account_id IS NOT NULL AND device_hash = $3"),
            Some(device),
        ),
        Ending::OldestDevices => (
            end_links_where!(
                "$3::bytea IS NULL AND token_hash IN (SELECT token_hash FROM seat_links \
                 WHERE game_id = $1 AND seat = $2 AND account_id IS NOT NULL \
                 ORDER BY created_at DESC, token_hash OFFSET 4)"
            ),
            None,
        ),
    };
    sqlx::query(sql)
        .bind(id)
        .bind(seat as i32)
        .bind(device)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    forget_oldest_ended(tx, id, seat).await
}

/// Remembers that the seat's own link (by its hash) has ended.
async fn end_seat_token(
    tx: &mut PgConnection,
    id: i64,
    seat: Seat,
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO ended_links (token_hash, game_id, seat, ended_at) \
         SELECT token_hash, game_id, seat, $3 FROM seats WHERE game_id = $1 AND seat = $2 \
         ON CONFLICT (token_hash) DO NOTHING",
    )
    .bind(id)
    .bind(seat as i32)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    forget_oldest_ended(tx, id, seat).await
}

/// Keeps the seat's newest [`ENDED_LINKS_KEPT`] ended links.
async fn forget_oldest_ended(
    tx: &mut PgConnection,
    id: i64,
    seat: Seat,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM ended_links WHERE game_id = $1 AND seat = $2 AND token_hash NOT IN \
         (SELECT token_hash FROM ended_links WHERE game_id = $1 AND seat = $2 \
          ORDER BY ended_at DESC, token_hash LIMIT $3)",
    )
    .bind(id)
    .bind(seat as i32)
    .bind(ENDED_LINKS_KEPT)
    .execute(&mut *tx)
    .await?;
    Ok(())
}
