//! Seats change hands in the open (DESIGN.md "Seats change hands in the open", issue 45). Every
//! change of who holds a seat — a new address, a relink, a renewed handover, a handover taken
//! up, a released claim, a reclaim — is written here inside the transaction that makes it, shown
//! to every player of the game with who did it and when, and told at once to the address the
//! seat was taken from (through the effects, by mail). That address gets a link of its own: for
//! a week it writes to the other players; after an address change, for a day, it also takes the
//! seat back.

use crate::engine::Seat;
use crate::store::tokens::{looks_like_token, new_token, token_hash};
use crate::store::{Store, StoreError};
use chrono::{DateTime, Duration, Utc};
use sqlx::{PgConnection, Row};

/// How many days the previous address's link lets it write to the other players.
pub const CHANGE_LINK_DAYS: i64 = 7;

/// How many hours after an address change its previous address may take the seat back.
pub const RECLAIM_HOURS: i64 = 24;

/// How many messages the previous address may write with one change's link.
pub const MESSAGES_PER_CHANGE: i32 = 5;

/// How many of a game's changes its pages show (the newest).
pub const CHANGES_SHOWN: i64 = 20;

/// Who changed who holds a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changer {
    /// The game's organiser, at the desk.
    Organiser,
    /// A club's admin (by name), at the club's desk of the game.
    ClubAdmin(String),
    /// Whoever opened the seat's handover link first.
    Handover,
    /// The address the seat was taken from, taking it back.
    PreviousAddress,
    /// The seat's own player, closing their account.
    Player,
}

impl Changer {
    /// Who, in words that begin a sentence in lower case ("the organiser").
    pub fn words(&self) -> String {
        match self {
            Changer::Organiser => "the organiser".into(),
            Changer::ClubAdmin(name) => format!("{name}, an admin of the club,"),
            Changer::Handover => "whoever opened its handover link".into(),
            Changer::PreviousAddress => "its previous address".into(),
            Changer::Player => "its player".into(),
        }
    }

    fn stored(&self) -> (&'static str, Option<&str>) {
        match self {
            Changer::Organiser => ("organiser", None),
            Changer::ClubAdmin(name) => ("club_admin", Some(name.as_str())),
            Changer::Handover => ("handover", None),
            Changer::PreviousAddress => ("previous", None),
            Changer::Player => ("player", None),
        }
    }

    fn read(kind: &str, name: Option<String>) -> Changer {
        match (kind, name) {
            ("club_admin", Some(name)) => Changer::ClubAdmin(name),
            ("handover", _) => Changer::Handover,
            ("previous", _) => Changer::PreviousAddress,
            ("player", _) => Changer::Player,
            _ => Changer::Organiser,
        }
    }
}

/// What changed about who holds a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// The seat was given a new address, which got its new link.
    Address,
    /// The seat was given a new link, mailed to its own address.
    Relink,
    /// A seat without an address was given a new handover link.
    Handover,
    /// A seat's handover link was taken up.
    TakenUp,
    /// An account's claim on the seat was released.
    Released,
    /// The seat's previous address took it back.
    Reclaimed,
    /// The seat's player closed their account and left the game: the seat has no address and
    /// no holder until the organiser gives it a new one.
    Left,
}

impl ChangeKind {
    /// Its name in the database and the JSON API ("address", "taken_up", …).
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Address => "address",
            ChangeKind::Relink => "relink",
            ChangeKind::Handover => "handover",
            ChangeKind::TakenUp => "taken_up",
            ChangeKind::Released => "released",
            ChangeKind::Reclaimed => "reclaimed",
            ChangeKind::Left => "left",
        }
    }

    fn read(s: &str) -> ChangeKind {
        match s {
            "address" => ChangeKind::Address,
            "relink" => ChangeKind::Relink,
            "handover" => ChangeKind::Handover,
            "taken_up" => ChangeKind::TakenUp,
            "released" => ChangeKind::Released,
            "left" => ChangeKind::Left,
            _ => ChangeKind::Reclaimed,
        }
    }
}

/// One change of who holds a seat, as every player of the game sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatChange {
    /// The seat.
    pub seat: Seat,
    /// What changed.
    pub kind: ChangeKind,
    /// Who did it.
    pub by: Changer,
    /// When.
    pub at: DateTime<Utc>,
}

impl SeatChange {
    /// The change in one sentence, the seat named `name` ("The organiser gave Bo's seat a new
    /// address; …").
    pub fn sentence(&self, name: &str) -> String {
        let by = self.by.words();
        let text = match self.kind {
            ChangeKind::Address => format!(
                "{by} gave {name}'s seat a new address, which got its new link; every older \
                 link of the seat has ended, and its previous address was told."
            ),
            ChangeKind::Relink => format!(
                "{by} gave {name}'s seat a new private link, mailed to the seat's own address; \
                 every older link of the seat has ended."
            ),
            ChangeKind::Handover => format!(
                "{by} made a new handover link for {name}'s seat: every older link of the seat \
                 has ended, and whoever opens the new one first holds the seat."
            ),
            ChangeKind::TakenUp => format!(
                "{name}'s seat was taken up by its handover link; every older link of the seat \
                 has ended."
            ),
            ChangeKind::Released => format!(
                "{by} released an account's claim on {name}'s seat: the links made for that \
                 account's devices no longer open it."
            ),
            ChangeKind::Reclaimed => format!(
                "{name}'s seat was taken back by the address it had before the last change; \
                 the address it had been given no longer reaches it."
            ),
            ChangeKind::Left => format!(
                "{name}'s player closed their account and left the game: the seat has no address \
                 and nobody holds it until the organiser gives it a new address; meanwhile its \
                 clock runs as the game's rules say."
            ),
        };
        capitalised(&text)
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A change as the effects see it inside its transaction: what to tell the address the seat was
/// taken from.
pub struct SeatChangeNews<'a> {
    /// The game.
    pub game_id: i64,
    /// The change.
    pub change: &'a SeatChange,
    /// The seat's player name.
    pub seat_name: &'a str,
    /// The address the seat was taken from, to be told.
    pub previous: &'a str,
    /// The seat's new address, if the change gave it one (shown masked to the previous one).
    pub new_address: Option<&'a str>,
    /// The previous address's link to the change (raw, shown once).
    pub token: &'a str,
    /// Until when that link takes the seat back, for an address change.
    pub reclaim_until: Option<DateTime<Utc>>,
}

/// What the previous address's link opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeLink {
    /// The change's id.
    pub id: i64,
    /// The game.
    pub game_id: i64,
    /// The change.
    pub change: SeatChange,
    /// The seat's player name.
    pub seat_name: String,
    /// The address the seat was taken from (the link's reader).
    pub previous: String,
    /// Until when the seat may be taken back; `None` when it may not (any more).
    pub reclaim_until: Option<DateTime<Utc>>,
    /// When the seat was taken back with this link.
    pub reclaimed_at: Option<DateTime<Utc>>,
    /// How many more messages the link may write.
    pub messages_left: i32,
}

/// Why the previous address cannot take its seat back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReclaimRefused {
    /// The link is unknown or has expired.
    #[error("this link is unknown or has expired")]
    Unknown,
    /// The change was no address change, or the day has passed.
    #[error(
        "the seat can no longer be taken back with this link: it could be for {RECLAIM_HOURS} hours after its address changed"
    )]
    TooLate,
    /// It was taken back already.
    #[error("the seat was taken back with this link already")]
    Done,
    /// The game is over.
    #[error("the game is over")]
    Over,
}

impl Store {
    /// Writes a change of who holds `seat` inside `tx` and, when the seat was taken from an
    /// address (`previous`, other than the address it now goes to), gives that address its link
    /// and lets the effects tell it.
    pub(in crate::store) async fn record_seat_change_in(
        &self,
        tx: &mut PgConnection,
        game_id: i64,
        change: &SeatChange,
        previous: Option<&str>,
        new_address: Option<&str>,
    ) -> Result<(), StoreError> {
        let previous = previous.filter(|p| !new_address.is_some_and(|n| n.eq_ignore_ascii_case(p)));
        let token = previous.map(|_| new_token());
        let reclaim_until = (previous.is_some() && change.kind == ChangeKind::Address)
            .then(|| change.at + Duration::hours(RECLAIM_HOURS));
        let (by_kind, by_name) = change.by.stored();
        let seat_name: String = sqlx::query_scalar(
            "WITH made AS (INSERT INTO seat_changes (game_id, seat, kind, by_kind, by_name, at, \
             previous_email, token_hash, token_until, reclaim_until) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)) \
             SELECT name FROM seats WHERE game_id = $1 AND seat = $2",
        )
        .bind(game_id)
        .bind(change.seat as i32)
        .bind(change.kind.name())
        .bind(by_kind)
        .bind(by_name)
        .bind(change.at)
        .bind(previous)
        .bind(token.as_deref().map(token_hash))
        .bind(
            token
                .as_ref()
                .map(|_| change.at + Duration::days(CHANGE_LINK_DAYS)),
        )
        .bind(reclaim_until)
        .fetch_one(&mut *tx)
        .await?;
        tracing::info!(
            game = game_id,
            seat = change.seat,
            kind = change.kind.name(),
            by = by_kind,
            "seat changed hands"
        );
        if let (Some(previous), Some(token)) = (previous, &token) {
            let news = SeatChangeNews {
                game_id,
                change,
                seat_name: &seat_name,
                previous,
                new_address,
                token,
                reclaim_until,
            };
            for effect in &self.effects {
                effect.seat_changed(tx, &news).await?;
            }
        }
        Ok(())
    }

    /// The game's newest changes of who holds its seats (`CHANGES_SHOWN`), newest first.
    pub async fn seat_changes(&self, game_id: i64) -> Result<Vec<SeatChange>, sqlx::Error> {
        sqlx::query(
            "SELECT seat, kind, by_kind, by_name, at FROM seat_changes WHERE game_id = $1 \
             ORDER BY id DESC LIMIT $2",
        )
        .bind(game_id)
        .bind(CHANGES_SHOWN)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(|r| {
            Ok(SeatChange {
                seat: r.try_get::<i32, _>("seat")? as Seat,
                kind: ChangeKind::read(r.try_get("kind")?),
                by: Changer::read(r.try_get("by_kind")?, r.try_get("by_name")?),
                at: r.try_get("at")?,
            })
        })
        .collect()
    }

    /// What the previous address's link to a change opens, while it lasts.
    pub async fn change_link(&self, token: &str) -> Result<Option<ChangeLink>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT c.id, c.game_id, c.seat, c.kind, c.by_kind, c.by_name, c.at, c.previous_email, \
             c.reclaim_until, c.reclaimed_at, c.messages_written, s.name \
             FROM seat_changes c JOIN seats s ON s.game_id = c.game_id AND s.seat = c.seat \
             WHERE c.token_hash = $1 AND c.token_until > $2",
        )
        .bind(token_hash(token))
        .bind(self.now())
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else { return Ok(None) };
        let reclaim_until: Option<DateTime<Utc>> = r.try_get("reclaim_until")?;
        Ok(Some(ChangeLink {
            id: r.try_get("id")?,
            game_id: r.try_get("game_id")?,
            change: SeatChange {
                seat: r.try_get::<i32, _>("seat")? as Seat,
                kind: ChangeKind::read(r.try_get("kind")?),
                by: Changer::read(r.try_get("by_kind")?, r.try_get("by_name")?),
                at: r.try_get("at")?,
            },
            seat_name: r.try_get("name")?,
            previous: r.try_get("previous_email")?,
            reclaim_until: reclaim_until.filter(|until| *until > self.now()),
            reclaimed_at: r.try_get("reclaimed_at")?,
            messages_left: MESSAGES_PER_CHANGE - r.try_get::<i32, _>("messages_written")?,
        }))
    }

    /// Marks the change of the link `token` taken back, inside `tx` (the caller gives the seat
    /// its previous address in the same transaction): the game, the seat and that address.
    /// Refused when the link is unknown or expired, the day has passed, it was used already,
    /// or the game is over.
    pub async fn reclaim_in(
        &self,
        tx: &mut PgConnection,
        token: &str,
    ) -> Result<Result<(i64, Seat, String), ReclaimRefused>, StoreError> {
        if !looks_like_token(token) {
            return Ok(Err(ReclaimRefused::Unknown));
        }
        let now = self.now();
        let Some(r) = sqlx::query(
            "SELECT c.id, c.game_id, c.seat, c.previous_email, c.reclaim_until, c.reclaimed_at, \
             g.status FROM seat_changes c JOIN games g ON g.id = c.game_id \
             WHERE c.token_hash = $1 AND c.token_until > $2 FOR UPDATE OF c",
        )
        .bind(token_hash(token))
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?
        else {
            return Ok(Err(ReclaimRefused::Unknown));
        };
        if r.try_get::<Option<DateTime<Utc>>, _>("reclaimed_at")?
            .is_some()
        {
            return Ok(Err(ReclaimRefused::Done));
        }
        if r.try_get::<String, _>("status")? == "over" {
            return Ok(Err(ReclaimRefused::Over));
        }
        let until: Option<DateTime<Utc>> = r.try_get("reclaim_until")?;
        if until.is_none_or(|until| until <= now) {
            return Ok(Err(ReclaimRefused::TooLate));
        }
        let id: i64 = r.try_get("id")?;
        sqlx::query("UPDATE seat_changes SET reclaimed_at = $2 WHERE id = $1")
            .bind(id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        Ok(Ok((
            r.try_get("game_id")?,
            r.try_get::<i32, _>("seat")? as Seat,
            r.try_get("previous_email")?,
        )))
    }

    /// Takes one of the link's messages to the other players ([`MESSAGES_PER_CHANGE`]): the
    /// game and the seat it was taken from, or `None` when the link is unknown, expired or
    /// spent. [`Store::give_back_change_message`] returns it when the message was not stored.
    pub async fn take_change_message(
        &self,
        token: &str,
    ) -> Result<Option<(i64, Seat)>, sqlx::Error> {
        if !looks_like_token(token) {
            return Ok(None);
        }
        let row = sqlx::query(
            "UPDATE seat_changes SET messages_written = messages_written + 1 \
             WHERE token_hash = $1 AND token_until > $2 AND messages_written < $3 \
             RETURNING game_id, seat",
        )
        .bind(token_hash(token))
        .bind(self.now())
        .bind(MESSAGES_PER_CHANGE)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| Ok((r.try_get("game_id")?, r.try_get::<i32, _>("seat")? as Seat)))
            .transpose()
    }

    /// Gives back a message taken by [`Store::take_change_message`] that was not stored.
    pub async fn give_back_change_message(&self, token: &str) -> Result<(), sqlx::Error> {
        sqlx::query(
            "UPDATE seat_changes SET messages_written = messages_written - 1 \
             WHERE token_hash = $1 AND messages_written > 0",
        )
        .bind(token_hash(token))
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
