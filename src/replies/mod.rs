//! Moves by replying to the mail. A message comes in (`postplay receive` on standard input
//! for an MTA's pipe, or the LMTP listener, [`lmtp`]), is stored before anything is done with
//! it, then: machines and our own mail are ignored, a sender other than the seat's is refused,
//! and the first line is read against the choices of the position the mail was about
//! ([`crate::notices::reply`]). A move is made through the store like any other; every reply a
//! person wrote is answered in the game's thread, through the outbox. The bounds ([`limits`],
//! the cap on mail for no seat in [`ledger`], [`prune`]) are kept in PostgreSQL, so they hold
//! across processes (docs/inbound-mail.md).

mod html;
pub mod ledger;
pub mod limits;
pub mod lmtp;
pub mod message;
pub mod prune;
mod standing;

use crate::notices::EmailAddress;
use crate::notices::mail::compose::Sender;
use crate::notices::reply::address::{Bound, find, find_by_hash};
use crate::notices::reply::read;
use crate::store::{Store, SubmitError, token_hash};
use ledger::{NewMessage, Played, Reply, UnknownCap};
use message::{Incoming, parse};

/// The bytes of an inbound message kept in the database, at most.
const STORED_BYTES: usize = 64 * 1024;

/// The bytes of a message for no reply address of ours kept, at most (its headers and a
/// start, enough to see what it was).
const UNKNOWN_STORED_BYTES: usize = 8 * 1024;

/// How often a move is tried again when someone else moved at the same moment.
const CONFLICT_RETRIES: usize = 3;

/// Settings of inbound mail.
#[derive(Debug, Clone)]
pub struct InboundSettings {
    /// The domain of reply addresses; `None`: mail carries no Reply-To.
    pub reply_domain: Option<String>,
    /// The largest message read, in bytes; the rest is not looked at.
    pub max_bytes: usize,
    /// Replies one seat, and one sender, may send an hour (0: no limit).
    pub per_hour: u32,
    /// Messages for no reply address of ours kept at most (the oldest go first).
    pub unknown_rows: u32,
    /// Bytes of messages for no reply address of ours kept at most, in all.
    pub unknown_bytes: usize,
}

impl InboundSettings {
    /// Reads `POSTPLAY_REPLY_DOMAIN`, `POSTPLAY_INBOUND_MAX_KB`,
    /// `POSTPLAY_LIMIT_REPLIES_PER_HOUR`, `POSTPLAY_INBOUND_UNKNOWN_MAX` and
    /// `POSTPLAY_INBOUND_UNKNOWN_MAX_KB` through `get`; the domain defaults to the sender's.
    pub fn from_lookup(
        get: &dyn Fn(&str) -> Option<String>,
        from: &Sender,
    ) -> Result<InboundSettings, String> {
        let reply_domain = match get("POSTPLAY_REPLY_DOMAIN").as_deref().map(str::trim) {
            Some("off") => None,
            Some(domain) => {
                EmailAddress::parse(&format!("play@{domain}"))
                    .map_err(|e| format!("POSTPLAY_REPLY_DOMAIN: {e}"))?;
                Some(domain.to_ascii_lowercase())
            }
            None => Some(from.domain().to_string()),
        };
        let number = |key: &str, default: u32| -> Result<u32, String> {
            get(key).map_or(Ok(default), |v| {
                v.trim()
                    .parse()
                    .map_err(|_| format!("{key}: {v:?} is not a number"))
            })
        };
        Ok(InboundSettings {
            reply_domain,
            max_bytes: number("POSTPLAY_INBOUND_MAX_KB", 256)?.max(1) as usize * 1024,
            per_hour: number("POSTPLAY_LIMIT_REPLIES_PER_HOUR", 60)?,
            unknown_rows: number("POSTPLAY_INBOUND_UNKNOWN_MAX", 1000)?.max(1),
            unknown_bytes: number("POSTPLAY_INBOUND_UNKNOWN_MAX_KB", 4096)?.max(1) as usize * 1024,
        })
    }
}

impl Default for InboundSettings {
    fn default() -> InboundSettings {
        InboundSettings {
            reply_domain: None,
            max_bytes: 256 * 1024,
            per_hour: 60,
            unknown_rows: 1000,
            unknown_bytes: 4096 * 1024,
        }
    }
}

/// What became of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The move was made (the log's new head).
    Done(i64),
    /// Refused; the answer says why.
    Refused(String),
    /// Ignored without an answer.
    Ignored(&'static str),
    /// Over an hourly bound: held, to be played at this time (the person is told).
    Held(chrono::DateTime<chrono::Utc>),
    /// Already received once (same Message-ID): nothing done again.
    Duplicate,
}

/// Why a message could not be handled now (the mail server should try again later).
#[derive(Debug, thiserror::Error)]
#[error("inbound mail: {0}")]
pub struct InboundError(String);

impl From<sqlx::Error> for InboundError {
    fn from(e: sqlx::Error) -> InboundError {
        InboundError(e.to_string())
    }
}

/// Receives replies for one process: the store, our own address, the bounds.
pub struct Inbox {
    store: Store,
    own: EmailAddress,
    settings: InboundSettings,
}

/// `raw` with every copy of `secret` cut out, at most `cap` bytes long.
fn redacted(raw: &[u8], secret: Option<&str>, cap: usize) -> Vec<u8> {
    let mut kept = raw[..raw.len().min(cap)].to_vec();
    if let Some(secret) = secret {
        let n = secret.len();
        let mut i = 0;
        while i + n <= kept.len() {
            if kept[i..i + n].eq_ignore_ascii_case(secret.as_bytes()) {
                kept[i..i + n].fill(b'x');
                i += n;
            } else {
                i += 1;
            }
        }
    }
    kept
}

impl Inbox {
    /// An inbox on `store`; `own` is the address our mail comes from (never answered).
    pub fn new(store: Store, own: EmailAddress, settings: InboundSettings) -> Inbox {
        Inbox {
            store,
            own,
            settings,
        }
    }

    /// Handles one message as delivered; `envelope` holds the recipients the mail server
    /// named, if any.
    pub async fn receive(&self, raw: &[u8], envelope: &[String]) -> Result<Outcome, InboundError> {
        self.receive_cut(raw, raw.len(), envelope).await
    }

    /// [`Inbox::receive`] for a message of `size` bytes of which only the first `raw` were
    /// kept (a listener drops what is past the limit as it reads).
    pub async fn receive_cut(
        &self,
        raw: &[u8],
        size: usize,
        envelope: &[String],
    ) -> Result<Outcome, InboundError> {
        let kept = &raw[..raw.len().min(self.settings.max_bytes)];
        let incoming = parse(kept, envelope);
        let bound = match &incoming.secret {
            Some(secret) => find(self.store.pool(), secret, self.store.now()).await?,
            None => None,
        };
        let cap = if bound.is_some() {
            STORED_BYTES
        } else {
            UNKNOWN_STORED_BYTES
        };
        let id = ledger::store(
            self.store.pool(),
            NewMessage {
                key: &incoming.key,
                size,
                raw: &redacted(kept, incoming.secret.as_deref(), cap),
                reply_hash: incoming.secret.as_deref().map(token_hash),
                seat: bound.as_ref().map(|b| (b.game_id, b.seat)),
            },
            UnknownCap {
                rows: i64::from(self.settings.unknown_rows),
                bytes: i64::try_from(self.settings.unknown_bytes).unwrap_or(i64::MAX),
            },
        )
        .await?;
        let Some(id) = id else {
            tracing::info!(size, "inbound mail: a message already received, ignored");
            crate::telemetry::reply("duplicate");
            return Ok(Outcome::Duplicate);
        };
        let outcome = self.act(id, size, &incoming, bound, false).await?;
        crate::telemetry::reply(match outcome {
            Outcome::Done(_) => "done",
            Outcome::Refused(_) => "refused",
            Outcome::Ignored(_) => "ignored",
            Outcome::Held(_) => "held",
            Outcome::Duplicate => "duplicate",
        });
        tracing::info!(id, size, outcome = ?outcome, "inbound mail handled");
        Ok(outcome)
    }

    /// Handles messages whose handling stopped midway (the process was stopped); returns
    /// how many.
    pub async fn resume(&self) -> Result<usize, InboundError> {
        let stored = ledger::resumable(self.store.pool(), 100).await?;
        self.take_up(&stored, "inbound mail resumed", false).await?;
        Ok(stored.len())
    }

    /// Plays the held replies whose time has come (by the store's clock), the earliest first,
    /// through the same path as a live reply; returns how many. The clock's scheduler calls
    /// this on every tick.
    pub async fn play_held(&self) -> Result<usize, InboundError> {
        let due = ledger::due_held(self.store.pool(), self.store.now(), 100).await?;
        self.take_up(&due, "held reply played", true).await?;
        Ok(due.len())
    }

    /// Acts on stored messages; `late`: they were held by an hourly bound (their answers go
    /// out at once).
    async fn take_up(
        &self,
        stored: &[ledger::Resumable],
        what: &str,
        late: bool,
    ) -> Result<(), InboundError> {
        for message in stored {
            let bound = match &message.reply_hash {
                Some(hash) => find_by_hash(self.store.pool(), hash, self.store.now()).await?,
                None => None,
            };
            let incoming = parse(&message.raw, &[]);
            let outcome = self
                .act(message.id, message.size, &incoming, bound, late)
                .await?;
            tracing::info!(id = message.id, outcome = ?outcome, "{what}");
        }
        Ok(())
    }

    async fn act(
        &self,
        id: i64,
        size: usize,
        incoming: &Incoming,
        bound: Option<Bound>,
        late: bool,
    ) -> Result<Outcome, InboundError> {
        let pool = self.store.pool();
        let ignore = |why: &'static str| async move {
            ledger::ignore(pool, id, why).await?;
            Ok::<_, InboundError>(Outcome::Ignored(why))
        };
        let Some(bound) = bound else {
            return ignore("not addressed to a reply address of ours").await;
        };
        if incoming.machine.is_some() {
            return ignore("written by a machine (auto-reply, list or bounce)").await;
        }
        if incoming
            .from
            .as_ref()
            .is_some_and(|f| f.as_str().eq_ignore_ascii_case(self.own.as_str()))
        {
            return ignore("our own mail").await;
        }
        let sender = incoming
            .from
            .as_ref()
            .map_or_else(String::new, |f| f.as_str().to_ascii_lowercase());
        let seat = (bound.game_id, bound.seat);
        let per_hour = self.settings.per_hour;
        if let limits::Verdict::Held { at, .. } =
            limits::allow(pool, id, seat, &sender, per_hour, self.store.now()).await?
        {
            return Ok(Outcome::Held(at));
        }
        let line = incoming.line.clone().unwrap_or_default();
        let refuse = |text: String| {
            let line = line.clone();
            async move {
                let loaded = self
                    .store
                    .load(bound.game_id)
                    .await
                    .map_err(|e| InboundError(e.to_string()))?;
                let reply = Reply {
                    id,
                    seat: bound.seat,
                    line: &line,
                    text: &text,
                };
                ledger::refuse(pool, bound.game_id, &loaded, &reply).await?;
                Ok::<_, InboundError>(Outcome::Refused(text))
            }
        };
        let seat_email = ledger::seat_email(pool, bound.game_id, bound.seat).await?;
        let from_seat = seat_email
            .as_deref()
            .is_some_and(|e| e.eq_ignore_ascii_case(&sender));
        if !from_seat && !ledger::any_sender(pool, bound.game_id).await? {
            return refuse(
                "the reply came from another address than this seat's; only the seat's own \
                 address may move by mail"
                    .into(),
            )
            .await;
        }
        if ledger::game_over(pool, bound.game_id).await? {
            return refuse("the game is over".into()).await;
        }
        if size > self.settings.max_bytes {
            return refuse(format!(
                "the message is too large ({} KiB; at most {} KiB are read): reply with the line \
                 alone",
                size.div_ceil(1024),
                self.settings.max_bytes / 1024
            ))
            .await;
        }
        if incoming.controls {
            return refuse("the reply line holds control characters".into()).await;
        }
        if incoming.line.is_none() {
            return refuse(
                "no line to read: write your choice on the first line, above the quoted mail"
                    .into(),
            )
            .await;
        }
        if let Some(order) = standing::Said::read(&line) {
            let loaded = self
                .store
                .load(bound.game_id)
                .await
                .map_err(|e| InboundError(e.to_string()))?;
            let since = loaded.row.head_seq;
            let text = match order.carry_out(&self.store, &loaded, bound.seat).await {
                Ok(text) => text,
                Err(standing::Refusal(text)) => return refuse(text).await,
            };
            let now = self
                .store
                .load(bound.game_id)
                .await
                .map_err(|e| InboundError(e.to_string()))?;
            let reply = Reply {
                id,
                seat: bound.seat,
                line: &line,
                text: &text,
            };
            ledger::noted(pool, bound.game_id, &now, &reply, since).await?;
            return Ok(Outcome::Done(now.row.head_seq));
        }
        if is_undo(&line) {
            // Only the move that led to the mail's position: an old mail's "undo" must never
            // take back a later move.
            let played = Played {
                reply: Reply {
                    id,
                    seat: bound.seat,
                    line: &line,
                    text: "took back your last move",
                },
                late: true,
            };
            return match self
                .store
                .undo_with(bound.game_id, bound.seat, Some(bound.seq), &played)
                .await
            {
                Ok(seq) => Ok(Outcome::Done(seq)),
                Err(SubmitError::Conflict { .. }) => {
                    refuse(
                        "the game has moved on since that mail: \"undo\" takes back only the \
                         move that mail answered"
                            .into(),
                    )
                    .await
                }
                Err(SubmitError::Rule(rule)) => refuse(rule.to_string()).await,
                Err(SubmitError::Refused(reason)) => refuse(reason).await,
                Err(e) => Err(InboundError(e.to_string())),
            };
        }
        let meant = match read(&line, &bound.choices) {
            Ok(meant) => meant,
            Err(e) => return refuse(e.to_string()).await,
        };
        for _ in 0..CONFLICT_RETRIES {
            let loaded = self
                .store
                .load(bound.game_id)
                .await
                .map_err(|e| InboundError(e.to_string()))?;
            if loaded.game.outcome().is_some() {
                return refuse("the game is over".into()).await;
            }
            if !loaded.game.active().contains(&bound.seat) {
                return refuse("it is not your turn: nothing is asked of your seat now".into())
                    .await;
            }
            let head = loaded.row.head_seq;
            if head != bound.seq {
                let now = read(&line, &loaded.game.choices(bound.seat));
                if now.as_ref().map(|r| &r.command) != Ok(&meant.command) {
                    return refuse(format!(
                        "the game has moved on since that mail, and \"{}\" is no longer a \
                         choice that means the same",
                        crate::notices::mail::compose::one_line(&line, 60)
                    ))
                    .await;
                }
            }
            let played = Played {
                reply: Reply {
                    id,
                    seat: bound.seat,
                    line: &line,
                    text: &meant.said,
                },
                late: late || head != bound.seq,
            };
            match self
                .store
                .submit_with(
                    bound.game_id,
                    bound.seat,
                    &meant.command,
                    Some(head),
                    &played,
                )
                .await
            {
                Ok(seq) => return Ok(Outcome::Done(seq)),
                Err(SubmitError::Conflict { .. }) => continue,
                Err(SubmitError::Rule(rule)) => return refuse(rule.to_string()).await,
                Err(SubmitError::Refused(reason)) => return refuse(reason).await,
                Err(e @ (SubmitError::Malformed(_) | SubmitError::TooLarge(_))) => {
                    return refuse(e.to_string()).await;
                }
                Err(e) => return Err(InboundError(e.to_string())),
            }
        }
        refuse("others kept moving at the same moment: reply again".into()).await
    }
}

/// Whether a reply line asks to take back the seat's last move: "undo" or "take back", in
/// any case, with an optional full stop.
fn is_undo(line: &str) -> bool {
    let words = line.trim().trim_end_matches(['.', '!']).to_lowercase();
    matches!(words.as_str(), "undo" | "take back" | "take it back")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_is_read_as_people_write_it() {
        for line in ["undo", " Undo.", "UNDO!", "take back", "Take it back."] {
            assert!(is_undo(line), "{line}");
        }
        for line in ["undo my move please", "1", "undone", ""] {
            assert!(!is_undo(line), "{line}");
        }
    }

    #[test]
    fn the_secret_is_cut_out_of_what_is_stored() {
        let raw = b"To: play+ABCDEF@x\r\n\r\nplay+abcdef@x";
        let kept = redacted(raw, Some("abcdef"), STORED_BYTES);
        assert_eq!(kept, b"To: play+xxxxxx@x\r\n\r\nplay+xxxxxx@x".to_vec());
        assert_eq!(
            redacted(&[b'a'; STORED_BYTES + 10], None, STORED_BYTES).len(),
            STORED_BYTES
        );
    }

    #[test]
    fn settings_default_to_the_senders_domain() {
        let from = Sender {
            name: "postplay".into(),
            address: EmailAddress::parse("games@pp.example").unwrap(),
        };
        let s = InboundSettings::from_lookup(&|_| None, &from).unwrap();
        assert_eq!(s.reply_domain.as_deref(), Some("pp.example"));
        assert_eq!(s.max_bytes, 256 * 1024);
        assert_eq!((s.unknown_rows, s.unknown_bytes), (1000, 4 * 1024 * 1024));
        let off = InboundSettings::from_lookup(
            &|k| (k == "POSTPLAY_REPLY_DOMAIN").then(|| "off".to_string()),
            &from,
        )
        .unwrap();
        assert_eq!(off.reply_domain, None);
        assert!(
            InboundSettings::from_lookup(
                &|k| (k == "POSTPLAY_REPLY_DOMAIN").then(|| "bad domain".to_string()),
                &from,
            )
            .is_err()
        );
    }
}
