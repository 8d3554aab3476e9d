//! The players' inboxes: what the SMTP sink received, taken from it as it arrives. Each
//! message's Message-ID (one per outbox row, stable over retries) is counted with the time it
//! first arrived; a mail that asks for a move leaves its seat the answer a player would type:
//! the reply address and a line made from the choices the mail lists (tests/common/replyrig).

use crate::common::mime::header;
use crate::common::replyrig::{line_for, listed, text};
use postplay::engine::GameRng;
use postplay::notices::mail::sink::SmtpSink;
use std::collections::HashMap;
use std::time::SystemTime;

/// A seat's answer ready to send: the reply secret, the position it answers, the line.
pub struct Answer {
    /// The secret of the mail's reply address.
    pub secret: String,
    /// The position (log length) the mail was about.
    pub seq: u64,
    /// A line picked from the mail's choices.
    pub line: String,
}

/// The newest answer of each seat, by (game, seat).
pub type Replies = HashMap<(i64, usize), Answer>;

/// Every Message-ID received: how often, and when first; and the seats' answers.
pub struct Inboxes {
    /// Message-ID → (times received, first arrival).
    pub received: HashMap<String, (u32, SystemTime)>,
    /// Messages without a Message-ID (none expected).
    pub without_id: usize,
    /// The answers.
    pub replies: Replies,
    rng: GameRng,
}

/// The key of a Message-ID `<pp.g12.turn.17.s0@pp.example>`: (game, event words, seat).
fn parts(message_id: &str) -> Option<(i64, Vec<&str>, usize)> {
    let key = message_id
        .trim()
        .trim_start_matches('<')
        .split('@')
        .next()?;
    let words: Vec<&str> = key.split('.').collect();
    let game = words.get(1)?.strip_prefix('g')?.parse().ok()?;
    let seat = words.last()?.strip_prefix('s')?.parse().ok()?;
    Some((game, words[2..words.len() - 1].to_vec(), seat))
}

/// The secret of a reply address `play+SECRET@pp.example` in a Reply-To.
fn secret(reply_to: &str) -> Option<String> {
    let start = reply_to.find("play+")? + "play+".len();
    let rest = &reply_to[start..];
    Some(rest[..rest.find('@')?].to_string())
}

impl Inboxes {
    /// Empty inboxes; `rng` picks the answers.
    pub fn new(rng: GameRng) -> Inboxes {
        Inboxes {
            received: HashMap::new(),
            without_id: 0,
            replies: Replies::new(),
            rng,
        }
    }

    /// Takes what the sink received since the last call: counts each message, and keeps an
    /// answer to every mail asking for a move (an invitation at the start, a your-turn mail).
    pub fn take(&mut self, sink: &SmtpSink) {
        for mail in sink.take() {
            let Some(id) = header(&mail.data, "Message-ID") else {
                self.without_id += 1;
                continue;
            };
            if let (Some((game, event, seat)), Some(secret)) = (
                parts(&id),
                header(&mail.data, "Reply-To").as_deref().and_then(secret),
            ) {
                let seq = match event.as_slice() {
                    ["turn", seq] => seq.parse().ok(),
                    ["invite"] => Some(0),
                    _ => None,
                };
                let newer = |seq: u64| {
                    self.replies
                        .get(&(game, seat))
                        .is_none_or(|known| known.seq <= seq)
                };
                if let Some(seq) = seq.filter(|&s| newer(s)) {
                    let choices = listed(&text(&mail));
                    if !choices.is_empty() {
                        let choice = &choices[self.rng.index(choices.len())];
                        let by_code = self.rng.below(2) == 0;
                        let line = line_for(choice, by_code, &mut self.rng);
                        self.replies
                            .insert((game, seat), Answer { secret, seq, line });
                    }
                }
            }
            let entry = self.received.entry(id).or_insert((0, mail.at));
            entry.0 += 1;
        }
    }
}
