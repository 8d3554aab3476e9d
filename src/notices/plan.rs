//! Mail's part in a move written in one statement: it reads the seats' addresses and
//! preferences, their webhooks, standing orders and the thread's messages not yet mailed to
//! them, and plans the rows [`crate::notices::turn::enqueue_after_move`] would write: a your-turn
//! notice for each seat the move puts a decision to (with its private link and its reply
//! address) and the same to the webhooks of the seats' accounts.

use crate::engine::Seat;
use crate::notices::EmailAddress;
use crate::notices::notice::{GameRef, Notice, ThreadMessage, Turn};
use crate::notices::outbox::{MailSeat, OUTBOX_CHANNEL, player};
use crate::notices::turn::{ask_with, lines_since, turns_to_tell};
use crate::notices::webhook::{HOOK_KIND, HookEvent, HookNotice};
use crate::store::game::effects::{Appended, EffectError};
use crate::store::game::plan::{Arg, MovePlan, Sql};
use crate::store::{new_token, token_hash};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

/// The note in which the clock names the deadlines a move set, by seat (`{"1": due}`).
pub const DEADLINES: &str = "deadlines";

/// What mail reads for a move (`$1`: the game's id).
pub const READS: &str = "SELECT jsonb_build_object('last_message', (SELECT coalesce(max(id), 0) \
    FROM game_messages WHERE game_id = $1), 'seats', coalesce(jsonb_agg(jsonb_build_object(\
    'seat', s.seat, 'name', s.name, 'email', s.email, 'pref', s.mail_pref, \
    'due', (SELECT c.due_at FROM seat_clocks c WHERE c.game_id = s.game_id AND c.seat = s.seat), \
    'orders', coalesce((SELECT jsonb_agg(o.order_id) FROM standing_orders o \
    WHERE o.game_id = s.game_id AND o.seat = s.seat), '[]'), \
    'hooks', coalesce((SELECT jsonb_agg(w.id ORDER BY w.id) FROM webhooks w \
    WHERE w.account_id = s.account_id), '[]'), \
    'unsent', coalesce((SELECT jsonb_agg(jsonb_build_object('id', m.id, 'author', m.author_name, \
    'at', m.created_at, 'text', m.body) ORDER BY m.id) FROM (SELECT id, author_name, created_at, \
    body FROM game_messages WHERE game_id = s.game_id AND id > s.messages_mailed_upto \
    AND hidden_at IS NULL AND seat IS DISTINCT FROM s.seat ORDER BY id DESC LIMIT 30) m), '[]')\
    ) ORDER BY s.seat), '[]')) FROM seats s WHERE s.game_id = $1";

/// The outbox rows, mail and webhooks; a second row for the same event and recipient is
/// dropped, as in the transaction.
const OUTBOX: &str = "INSERT INTO outbox (game_id, seat, event, kind, recipient, \
    recipient_name, payload, digest, webhook_id) SELECT $1, u.seat, u.event, u.kind, \
    u.recipient, u.name, u.payload::jsonb, u.digest, u.hook FROM head, unnest($2::int[], \
    $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[], $9::bigint[]) \
    WITH ORDINALITY AS u(seat, event, kind, recipient, name, payload, digest, hook, n) \
    ORDER BY u.n ON CONFLICT (game_id, event, recipient) DO NOTHING";

/// The private links the notices carry.
const LINKS: &str = "INSERT INTO seat_links (token_hash, game_id, seat) \
    SELECT u.hash, $1, u.seat FROM head, unnest($2::bytea[], $3::int[]) AS u(hash, seat)";

/// The reply addresses, each bound to its seat, position and choices.
const REPLIES: &str = "INSERT INTO reply_addresses (token_hash, game_id, seat, seq, choices) \
    SELECT u.hash, $1, u.seat, u.seq, u.choices::jsonb FROM head, \
    unnest($2::bytea[], $3::int[], $4::bigint[], $5::text[]) AS u(hash, seat, seq, choices)";

/// The thread's messages up to the last one read count as mailed to the seats told.
const MAILED: &str = "UPDATE seats SET messages_mailed_upto = \
    greatest(seats.messages_mailed_upto, $2) FROM head \
    WHERE seats.game_id = $1 AND seats.seat = ANY($3::int[])";

#[derive(Deserialize)]
struct Read {
    last_message: i64,
    seats: Vec<SeatRead>,
}

#[derive(Deserialize)]
struct SeatRead {
    seat: i32,
    name: String,
    email: Option<String>,
    pref: String,
    due: Option<DateTime<Utc>>,
    orders: Vec<String>,
    hooks: Vec<i64>,
    unsent: Vec<ThreadMessage>,
}

/// The rows planned, as columns.
#[derive(Default)]
struct Rows {
    seat: Vec<i32>,
    event: Vec<Option<String>>,
    kind: Vec<Option<String>>,
    recipient: Vec<Option<String>>,
    name: Vec<Option<String>>,
    payload: Vec<Option<String>>,
    digest: Vec<bool>,
    hook: Vec<Option<i64>>,
    link_hash: Vec<Vec<u8>>,
    link_seat: Vec<i32>,
    reply_hash: Vec<Vec<u8>>,
    reply_seat: Vec<i32>,
    reply_seq: Vec<Option<i64>>,
    reply_choices: Vec<Option<String>>,
    mailed: Vec<i32>,
}

impl Rows {
    #[allow(clippy::too_many_arguments)]
    fn outbox(
        &mut self,
        seat: Seat,
        event: String,
        kind: &str,
        recipient: String,
        name: &str,
        payload: Value,
        digest: bool,
        hook: Option<i64>,
    ) {
        self.seat.push(seat as i32);
        self.event.push(Some(event));
        self.kind.push(Some(kind.to_string()));
        self.recipient.push(Some(recipient));
        self.name.push(Some(name.to_string()));
        self.payload.push(Some(payload.to_string()));
        self.digest.push(digest);
        self.hook.push(hook);
    }
}

/// Plans mail's rows for `entries`; false for a game's end (written in a transaction).
pub fn plan(
    read: &Value,
    entries: &[Appended<'_>],
    plan: &mut MovePlan,
) -> Result<bool, EffectError> {
    if entries.iter().any(|e| e.game.outcome().is_some()) {
        return Ok(false);
    }
    let Some(first) = entries.first() else {
        return Ok(true);
    };
    let game_id = first.row.id;
    let read: Read = serde_json::from_value(read.clone())
        .map_err(|e| EffectError::Refused(format!("mail's read: {e}")))?;
    let deadlines = plan.notes.get(DEADLINES).cloned().unwrap_or_default();
    let deadline = |seat: &SeatRead| -> Option<DateTime<Utc>> {
        match deadlines.get(seat.seat.to_string()) {
            Some(due) => serde_json::from_value(due.clone()).ok().flatten(),
            None => seat.due,
        }
    };
    let mail_seats: Vec<MailSeat> = read
        .seats
        .iter()
        .map(|s| MailSeat {
            seat: s.seat as Seat,
            name: s.name.clone(),
            email: s.email.as_deref().and_then(|e| EmailAddress::parse(e).ok()),
            pref: s.pref.clone(),
        })
        .collect();
    let names: Vec<String> = mail_seats.iter().map(|s| s.name.clone()).collect();
    let count = mail_seats.len();
    let mut rows = Rows::default();
    let mut told = vec![false; count];
    for entry in entries {
        let newly = turns_to_tell(entry);
        if newly.is_empty() {
            continue;
        }
        let Some(kind) = crate::games::find_game(entry.game.game_id()) else {
            continue;
        };
        let game_ref = GameRef {
            home: None,
            id: game_id,
            name: kind.name().to_string(),
        };
        for (seat, mail_seat) in read.seats.iter().zip(&mail_seats) {
            if !newly.contains(&mail_seat.seat) {
                continue;
            }
            for &hook in &seat.hooks {
                let notice = HookNotice {
                    event: HookEvent::Turn,
                    game: game_ref.clone(),
                    you: player(kind, mail_seat, count),
                    deadline: deadline(seat),
                    result: None,
                    winners: Vec::new(),
                    cancelled: false,
                    at: entry.at,
                };
                rows.outbox(
                    mail_seat.seat,
                    format!("turn:{}", entry.seq),
                    HOOK_KIND,
                    format!("webhook:{hook}"),
                    &mail_seat.name,
                    serde_json::to_value(&notice).expect("notices serialize"),
                    false,
                    Some(hook),
                );
            }
        }
        if mail_seats
            .iter()
            .all(|s| s.email.is_none() || s.pref == "off")
        {
            continue;
        }
        for (seat, mail_seat) in read.seats.iter().zip(&mail_seats) {
            let Some(to) = &mail_seat.email else { continue };
            if mail_seat.pref == "off" || !newly.contains(&mail_seat.seat) {
                continue;
            }
            let index = mail_seat.seat;
            let token = new_token();
            rows.link_hash.push(token_hash(&token));
            rows.link_seat.push(index as i32);
            let active = entry.game.active().contains(&index);
            let choices = if active {
                entry.game.choices(index)
            } else {
                Vec::new()
            };
            let reply = (!choices.is_empty()).then(|| {
                let secret = new_token();
                rows.reply_hash.push(token_hash(&secret));
                rows.reply_seat.push(index as i32);
                rows.reply_seq.push(Some(entry.seq));
                rows.reply_choices.push(Some(
                    serde_json::to_value(&choices)
                        .expect("choices serialize")
                        .to_string(),
                ));
                secret
            });
            let messages = if told.get(index).copied().unwrap_or(true) {
                Vec::new()
            } else {
                seat.unsent.clone()
            };
            if let Some(t) = told.get_mut(index) {
                *t = true;
            }
            rows.mailed.push(index as i32);
            let notice = Notice::Turn(Turn {
                answered: Vec::new(),
                game: game_ref.clone(),
                you: player(kind, mail_seat, count),
                lines: lines_since(entry.log, index, &names),
                choices: entry
                    .game
                    .choices(index)
                    .into_iter()
                    .map(|c| c.label.into_owned())
                    .collect(),
                deadline: deadline(seat),
                token,
                ask: ask_with(entry.game, index, &names, reply, &seat.orders),
                messages,
            });
            rows.outbox(
                index,
                format!("turn:{}", entry.seq),
                notice.kind(),
                to.as_str().to_string(),
                &mail_seat.name,
                serde_json::to_value(&notice).expect("notices serialize"),
                mail_seat.pref == "digest",
                None,
            );
        }
    }
    if !rows.seat.is_empty() {
        plan.notify_once(OUTBOX_CHANNEL, "");
    }
    plan.writes.push(Sql {
        text: LINKS,
        args: vec![
            Arg::I64(game_id),
            Arg::Bytes(rows.link_hash),
            Arg::I32s(rows.link_seat),
        ],
    });
    plan.writes.push(Sql {
        text: REPLIES,
        args: vec![
            Arg::I64(game_id),
            Arg::Bytes(rows.reply_hash),
            Arg::I32s(rows.reply_seat),
            Arg::I64s(rows.reply_seq),
            Arg::Texts(rows.reply_choices),
        ],
    });
    plan.writes.push(Sql {
        text: MAILED,
        args: vec![
            Arg::I64(game_id),
            Arg::I64(read.last_message),
            Arg::I32s(rows.mailed),
        ],
    });
    plan.writes.push(Sql {
        text: OUTBOX,
        args: vec![
            Arg::I64(game_id),
            Arg::I32s(rows.seat),
            Arg::Texts(rows.event),
            Arg::Texts(rows.kind),
            Arg::Texts(rows.recipient),
            Arg::Texts(rows.name),
            Arg::Texts(rows.payload),
            Arg::Bools(rows.digest),
            Arg::I64s(rows.hook),
        ],
    });
    Ok(true)
}
