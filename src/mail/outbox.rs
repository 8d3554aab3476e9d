//! The transactional outbox, enqueue side: the rows a command's transaction writes (invitations
//! at creation, see [`super::invite`]; a your-turn notice for each seat that *becomes* active;
//! game-over mail), each with a private link of its own minted here. The worker
//! ([`super::worker`]) sends them.

use super::EmailAddress;
use super::notice::{Ask, ClockNews, GameRef, LinkNotice, Notice, Over, Player, Turn};
use super::reply::{address, reply_lines};
use crate::engine::log::render;
use crate::engine::record::Mark;
use crate::engine::{DynGame, DynMatch, Seat, Viewer};
use crate::store::effects::{
    Appended, ClubNews, Creation, EffectError, Effects, LeagueNews, TableNews,
};
use crate::store::{LogEntry, new_token, token_hash};
use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use sqlx::{PgConnection, Row};

/// The channel on which new outbox rows are announced (wakes the workers).
pub const OUTBOX_CHANNEL: &str = "postplay_outbox";

/// At most this many log lines go into a your-turn notice (the latest ones).
const MAX_LINES: usize = 60;

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

/// The position and replies of `seat` in `game` (at log head `seq`), players' names filled
/// in, with a fresh reply secret bound to them when the seat has something to decide.
pub async fn ask(
    tx: &mut PgConnection,
    game_id: i64,
    game: &dyn DynMatch,
    (seat, seq): (Seat, i64),
    names: &[String],
) -> Result<Ask, sqlx::Error> {
    let choices = if game.active().contains(&seat) {
        game.choices(seat)
    } else {
        Vec::new()
    };
    let reply = if choices.is_empty() {
        None
    } else {
        Some(address::mint(tx, game_id, seat, seq, &choices).await?)
    };
    let given: Vec<String> =
        sqlx::query_scalar("SELECT order_id FROM standing_orders WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_all(&mut *tx)
            .await?;
    Ok(ask_with(game, seat, names, reply, &given))
}

/// The position and replies of `seat` in `game`, with the reply secret `reply` (minted for
/// the seat's choices, if it has any) and the standing orders it has `given`.
pub fn ask_with(
    game: &dyn DynMatch,
    seat: Seat,
    names: &[String],
    reply: Option<String>,
    given: &[String],
) -> Ask {
    let choices = if game.active().contains(&seat) {
        game.choices(seat)
    } else {
        Vec::new()
    };
    let standing = if game.outcome().is_some() {
        Vec::new()
    } else {
        game.standing_orders()
            .iter()
            .filter(|o| o.seat.is_none_or(|s| s == seat))
            .map(|o| {
                let now = if given.iter().any(|g| g == o.id) {
                    " (standing now)"
                } else {
                    ""
                };
                format!("{}: {}{now}", o.id, o.label)
            })
            .collect()
    };
    Ask {
        standing,
        undo: game.can_undo(seat),
        board: game.position(Viewer::Seat(seat), names),
        replies: reply_lines(&choices),
        reply,
    }
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

/// The seats that must act now and did not before the command: they get a notice.
pub fn newly_active(before: &[Seat], after: &[Seat]) -> Vec<Seat> {
    after
        .iter()
        .copied()
        .filter(|s| !before.contains(s))
        .collect()
}

/// The public lines since a seat's last command (all of them if it never moved), names
/// filled in, at most the last [`MAX_LINES`].
pub fn lines_since(log: &[LogEntry], seat: Seat, names: &[String]) -> Vec<String> {
    let start = log
        .iter()
        .rposition(|(_, who, _)| *who == seat)
        .map_or(0, |i| i + 1);
    let lines: Vec<String> = log[start..]
        .iter()
        .flat_map(|(_, _, lines)| lines.iter().map(|l| render(l, names)))
        .collect();
    let skip = lines.len().saturating_sub(MAX_LINES);
    lines.into_iter().skip(skip).collect()
}

/// The seats an entry puts a new decision to: those that became active (the seats awaited
/// before it → the match's active seats now), and a seat played for (its only move, its
/// standing order) that is still to move, which was never asked about where it is now; but
/// not a seat the next entry of the same transaction plays for.
pub fn turns_to_tell(entry: &Appended<'_>) -> Vec<Seat> {
    let active = entry.game.active();
    let mut newly = newly_active(entry.before, &active);
    if entry.by.is_some_and(Mark::is_seats_own) && active.contains(&entry.seat) {
        newly.push(entry.seat);
    }
    newly.retain(|&seat| Some(seat) != entry.played_next);
    newly
}

/// What an entry's transaction queues: a your-turn notice for each seat of
/// [`turns_to_tell`], or game-over mail to every seat once it ends (saying so, without scores,
/// when the organiser cancelled it); and the same news to the webhooks of the seats' accounts
/// ([`super::webhook`]), whatever the seats' mail preferences.
pub async fn enqueue_after_move(
    tx: &mut PgConnection,
    entry: &Appended<'_>,
) -> Result<(), sqlx::Error> {
    let (row, seq, game, log) = (entry.row, entry.seq, entry.game, entry.log);
    let cancelled = entry.by_organiser();
    let game_id = row.id;
    let outcome = game.outcome();
    let newly = turns_to_tell(entry);
    if outcome.is_none() && newly.is_empty() {
        return Ok(());
    }
    super::webhook::enqueue_after_move(tx, entry, &newly).await?;
    let seats = mail_seats(tx, game_id).await?;
    if seats.iter().all(|s| s.email.is_none() || s.pref == "off") {
        return Ok(());
    }
    let Some(kind) = crate::games::find_game(game.game_id()) else {
        return Ok(());
    };
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let ending = game.ending(&names);
    let game_ref = GameRef {
        id: game_id,
        name: kind.name().to_string(),
    };
    let count = seats.len();
    let mut queued = false;
    for seat in &seats {
        let Some(to) = &seat.email else { continue };
        if seat.pref == "off" {
            continue;
        }
        let (event, notice, digest) = if let Some(outcome) = &outcome {
            let notice = Notice::Over(Over {
                game: game_ref.clone(),
                you: player(kind, seat, count),
                result: render(&outcome.reason, &names),
                verdict: ending
                    .as_ref()
                    .map(|e| e.verdict.clone())
                    .unwrap_or_default(),
                tally: match &ending {
                    Some(e) if !cancelled => e.tally.clone(),
                    _ => Vec::new(),
                },
                cancelled,
                winners: outcome
                    .winners
                    .iter()
                    .filter_map(|w| names.get(*w).cloned())
                    .collect(),
                lines: lines_since(log, seat.seat, &names),
                seed: row.seed.to_hex(),
                commitment: row.commitment.clone(),
            });
            ("over".to_string(), notice, false)
        } else if newly.contains(&seat.seat) {
            let token = mint_link(tx, game_id, seat.seat).await?;
            let ask = ask(tx, game_id, game, (seat.seat, seq), &names).await?;
            let notice = Notice::Turn(Turn {
                game: game_ref.clone(),
                you: player(kind, seat, count),
                lines: lines_since(log, seat.seat, &names),
                choices: game
                    .choices(seat.seat)
                    .into_iter()
                    .map(|c| c.label.into_owned())
                    .collect(),
                deadline: sqlx::query_scalar(
                    "SELECT due_at FROM seat_clocks WHERE game_id = $1 AND seat = $2",
                )
                .bind(game_id)
                .bind(seat.seat as i32)
                .fetch_optional(&mut *tx)
                .await?
                .flatten(),
                token,
                ask,
                messages: super::thread::unsent(tx, game_id, seat.seat).await?,
            });
            (format!("turn:{seq}"), notice, seat.pref == "digest")
        } else {
            continue;
        };
        insert(
            tx,
            NewRow {
                game_id,
                seat: Some(seat.seat),
                event,
                to,
                to_name: &seat.name,
                notice,
                digest,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_seats_that_become_active_are_notified() {
        assert_eq!(newly_active(&[0], &[1]), vec![1]);
        assert_eq!(newly_active(&[0, 1], &[1]), Vec::<Seat>::new());
        assert_eq!(newly_active(&[1], &[1, 2]), vec![2]);
        assert_eq!(newly_active(&[2], &[2]), Vec::<Seat>::new());
    }

    #[test]
    fn lines_since_the_seats_last_move() {
        let names = vec!["Ann".to_string(), "Bo".to_string()];
        let log: Vec<LogEntry> = vec![
            (1, 0, ["{s0} bids".to_string()].into()),
            (
                2,
                1,
                ["{s1} passes".to_string(), "{s1} sighs".to_string()].into(),
            ),
            (3, 0, ["{s0} leads".to_string()].into()),
            (4, 1, ["{s1} follows".to_string()].into()),
        ];
        assert_eq!(lines_since(&log, 0, &names), vec!["Bo follows"]);
        assert_eq!(lines_since(&log, 1, &names), Vec::<String>::new());
        assert_eq!(lines_since(&log[..3], 1, &names), vec!["Ann leads"]);
        assert_eq!(lines_since(&log[..1], 1, &names), vec!["Ann bids"]);
    }
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
         WHERE game_id = $1 AND (status = 'failed' OR last_error IS NOT NULL OR status <> 'sent') \
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

/// Mail's part in the store's transactions: invitations when a game is created, a notice for
/// each seat that becomes awaited, and game-over mail.
pub struct MailEffects;

impl Effects for MailEffects {
    fn created<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        creation: &'a Creation<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::invite::enqueue_invites(tx, creation).await?;
            if let Some(to) = creation.organiser_email {
                let notice = Notice::Link(LinkNotice {
                    game: GameRef {
                        id: creation.id,
                        name: creation.game.name().to_string(),
                    },
                    headline: "your organiser link".into(),
                    lines: vec![
                        "You created this game. Your organiser page shows every seat, its last move and the mail sent to it, and the clock; from it you can send an invitation again, change a player's address, give a seat a new link, give more time, pause the game, or cancel it.".into(),
                        "Keep this link to yourself: it runs the game.".into(),
                    ],
                    manage: true,
                    token: creation.organiser_token.to_string(),
                });
                insert(
                    tx,
                    NewRow {
                        game_id: creation.id,
                        seat: None,
                        event: "organiser".into(),
                        to,
                        to_name: "organiser",
                        notice,
                        digest: false,
                    },
                )
                .await?;
                announce(tx).await?;
            }
            Ok(())
        })
    }

    fn table_news<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a TableNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::table::enqueue_table_news(tx, news).await?;
            Ok(())
        })
    }

    fn league_news<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a LeagueNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::league::enqueue_league_news(tx, news).await?;
            Ok(())
        })
    }

    fn club_news<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a ClubNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::club::enqueue_club_news(tx, news).await?;
            Ok(())
        })
    }

    fn seat_changed<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a crate::store::SeatChangeNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::seat_change::enqueue_seat_change(tx, news).await?;
            Ok(())
        })
    }

    fn move_reads(&self) -> Option<&'static str> {
        Some(super::plan::READS)
    }

    fn plan_move(
        &self,
        read: &serde_json::Value,
        entries: &[Appended<'_>],
        plan: &mut crate::store::plan::MovePlan,
    ) -> Result<bool, EffectError> {
        super::plan::plan(read, entries, plan)
    }

    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        entry: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            enqueue_after_move(tx, entry).await?;
            Ok(())
        })
    }

    fn message_posted<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        message: &'a crate::store::Message,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::thread::enqueue_each_message(tx, message).await?;
            Ok(())
        })
    }

    fn seat_rekeyed<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        game_id: i64,
        seat: Seat,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            super::reply::address::end_for_seat(tx, game_id, seat).await?;
            Ok(())
        })
    }
}

/// Who clock news goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// One seat (with a private link of its own).
    Seat(Seat),
    /// Every seat.
    Everyone,
    /// The organiser, if they gave an address.
    Organiser,
}

/// What clock news says.
pub struct News<'a> {
    /// One message per event and reader: `"remind:17:2:1"`, `"timeout:18"`.
    pub event: String,
    /// The subject after the game's title.
    pub headline: &'a str,
    /// The sentences.
    pub lines: Vec<String>,
}

/// Queues clock news in the current transaction. A seat's own deadline goes with it; digest
/// readers get it in their digest, readers who chose no mail get nothing.
pub async fn enqueue_clock(
    tx: &mut PgConnection,
    game_id: i64,
    game_name: &str,
    readers: Readers,
    news: News<'_>,
) -> Result<(), sqlx::Error> {
    let game = GameRef {
        id: game_id,
        name: game_name.to_string(),
    };
    let mut queued = false;
    if readers == Readers::Organiser {
        let organiser: Option<String> =
            sqlx::query_scalar("SELECT organiser_email FROM games WHERE id = $1")
                .bind(game_id)
                .fetch_one(&mut *tx)
                .await?;
        if let Some(to) = organiser.and_then(|a| EmailAddress::parse(&a).ok()) {
            let notice = Notice::Clock(ClockNews {
                game,
                headline: news.headline.to_string(),
                lines: news.lines,
                deadline: None,
                token: None,
            });
            insert(
                tx,
                NewRow {
                    game_id,
                    seat: None,
                    event: news.event,
                    to: &to,
                    to_name: "organiser",
                    notice,
                    digest: false,
                },
            )
            .await?;
            announce(tx).await?;
        }
        return Ok(());
    }
    for seat in mail_seats(tx, game_id).await? {
        if readers != Readers::Everyone && readers != Readers::Seat(seat.seat) {
            continue;
        }
        let Some(to) = &seat.email else { continue };
        if seat.pref == "off" {
            continue;
        }
        let deadline: Option<DateTime<Utc>> =
            sqlx::query_scalar("SELECT due_at FROM seat_clocks WHERE game_id = $1 AND seat = $2")
                .bind(game_id)
                .bind(seat.seat as i32)
                .fetch_optional(&mut *tx)
                .await?
                .flatten();
        let token = mint_link(tx, game_id, seat.seat).await?;
        let notice = Notice::Clock(ClockNews {
            game: game.clone(),
            headline: news.headline.to_string(),
            lines: news.lines.clone(),
            deadline,
            token: Some(token),
        });
        insert(
            tx,
            NewRow {
                game_id,
                seat: Some(seat.seat),
                event: news.event.clone(),
                to,
                to_name: &seat.name,
                notice,
                digest: seat.pref == "digest",
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

/// Queues a seat's new private link (its keys were renewed) to the seat's address, inside the
/// transaction that renewed them; false when the seat has no address. It goes even when the
/// seat chose no mail: it is the only way the player gets the link.
pub async fn enqueue_new_link(
    tx: &mut PgConnection,
    game_id: i64,
    game_name: &str,
    seat: Seat,
    token: &str,
) -> Result<bool, sqlx::Error> {
    let Some(reader) = mail_seats(&mut *tx, game_id)
        .await?
        .into_iter()
        .find(|s| s.seat == seat)
    else {
        return Ok(false);
    };
    let Some(to) = &reader.email else {
        return Ok(false);
    };
    let notice = Notice::Link(LinkNotice {
        game: GameRef {
            id: game_id,
            name: game_name.to_string(),
        },
        headline: "your new private link".into(),
        lines: vec![
            format!("Hello {}, your seat has a new private link.", reader.name),
            "The old link, the links in earlier messages and the reply addresses of earlier messages no longer reach your seat.".into(),
        ],
        manage: false,
        token: token.to_string(),
    });
    insert(
        &mut *tx,
        NewRow {
            game_id,
            seat: Some(seat),
            event: format!("relink:{}", event_tag(token)),
            to,
            to_name: &reader.name,
            notice,
            digest: false,
        },
    )
    .await?;
    announce(&mut *tx).await?;
    Ok(true)
}

/// How many links a seat may be mailed on request from the game's page in a day.
pub const LOST_LINKS_PER_DAY: i64 = 3;

/// Why a link asked for on the game's page was not mailed.
#[derive(Debug, thiserror::Error)]
pub enum LostLinkError {
    /// The seat has no address to send to.
    #[error("this seat has no address: its player needs the organiser for a new handover link")]
    NoAddress,
    /// Enough links went to the seat today.
    #[error(
        "this seat was mailed {LOST_LINKS_PER_DAY} links today already: look in that mailbox, or try again tomorrow"
    )]
    TooMany,
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
}

/// Mails a fresh link for `seat` to the seat's own address, asked for on the game's page by
/// a player who lost theirs (the page never shows the address or the link). Older links keep
/// working. At most [`LOST_LINKS_PER_DAY`] a seat in a day, counted in the database under the
/// seat's row lock, so every process shares the count.
pub async fn enqueue_lost_link(
    pool: &sqlx::PgPool,
    game_id: i64,
    game_name: &str,
    seat: Seat,
) -> Result<String, LostLinkError> {
    let mut tx = pool.begin().await?;
    let email: Option<String> =
        sqlx::query_scalar("SELECT email FROM seats WHERE game_id = $1 AND seat = $2 FOR UPDATE")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_optional(&mut *tx)
            .await?
            .flatten();
    let to = email
        .and_then(|e| EmailAddress::parse(&e).ok())
        .ok_or(LostLinkError::NoAddress)?;
    let today: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND seat = $2 AND event LIKE 'lost:%' \
         AND created_at > now() - interval '1 day'",
    )
    .bind(game_id)
    .bind(seat as i32)
    .fetch_one(&mut *tx)
    .await?;
    if today >= LOST_LINKS_PER_DAY {
        return Err(LostLinkError::TooMany);
    }
    let name: String =
        sqlx::query_scalar("SELECT name FROM seats WHERE game_id = $1 AND seat = $2")
            .bind(game_id)
            .bind(seat as i32)
            .fetch_one(&mut *tx)
            .await?;
    let token = mint_link(&mut tx, game_id, seat).await?;
    let notice = Notice::Link(LinkNotice {
        game: GameRef {
            id: game_id,
            name: game_name.to_string(),
        },
        headline: "a link to your seat".into(),
        lines: vec![
            format!("Hello {name}, someone asked on the game's page for a link to your seat."),
            "If that was not you, nothing has changed: the link reaches only this mailbox, and your older links still work.".into(),
        ],
        manage: false,
        token: token.clone(),
    });
    insert(
        &mut tx,
        NewRow {
            game_id,
            seat: Some(seat),
            event: format!("lost:{}", event_tag(&token)),
            to: &to,
            to_name: &name,
            notice,
            digest: false,
        },
    )
    .await?;
    announce(&mut tx).await?;
    tx.commit().await?;
    Ok(crate::domain::masked(to.as_str()))
}
