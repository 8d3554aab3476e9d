//! A rig for moves by reply: the outbox worker sending to a real SMTP sink with replies on,
//! the inbound LMTP/SMTP listener on loopback, a small client that delivers replies to it,
//! and a bot that answers a mail by reading its text alone.
#![allow(dead_code)]

use super::TestDb;
use super::mailrig::{RunningWorker, drain, quick, sender, spawn_worker};
use super::mime::{header, part};
use postplay::engine::bot::bot_rng;
use postplay::engine::{GameRng, Seed};
use postplay::notices::EmailAddress;
use postplay::notices::mail::sink::{Received, SmtpSink};
use postplay::replies::{InboundSettings, Inbox, lmtp};
use postplay::store::{NewSeat, PlayerName};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::watch;

/// Player names; their addresses are `name@example.org`.
pub const NAMES: [&str; 4] = ["Ann", "Bo", "Cy", "Di"];

/// The address of seat `seat`.
pub fn email(seat: usize) -> String {
    format!("{}@example.org", NAMES[seat].to_lowercase())
}

/// Everything a reply test needs.
pub struct Rig {
    /// The database.
    pub db: TestDb,
    /// Outgoing mail lands here.
    pub sink: SmtpSink,
    /// The inbox (the same one the listener uses).
    pub inbox: Arc<Inbox>,
    /// The listener's port.
    pub port: u16,
    worker: RunningWorker,
    stop: watch::Sender<bool>,
    sent: usize,
}

impl Rig {
    /// Starts everything with these inbound settings.
    pub async fn start(settings: InboundSettings) -> Rig {
        Rig::start_with(settings, lmtp::Limits::default()).await
    }

    /// Starts everything with these inbound settings and listener bounds.
    pub async fn start_with(settings: InboundSettings, limits: lmtp::Limits) -> Rig {
        let db = TestDb::new().await;
        let sink = SmtpSink::start().await.unwrap();
        let worker = spawn_worker(&db, "http://pp.test", sink.port(), quick());
        let inbox = Arc::new(Inbox::new(
            db.store.clone_handle(),
            sender().address,
            settings,
        ));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(lmtp::serve_with(listener, inbox.clone(), limits, stopped));
        Rig {
            db,
            sink,
            inbox,
            port,
            worker,
            stop,
            sent: 0,
        }
    }

    /// Default settings: replies at pp.example, no rate limit worth hitting.
    pub async fn new() -> Rig {
        Rig::start(InboundSettings {
            reply_domain: Some("pp.example".into()),
            max_bytes: 64 * 1024,
            per_hour: 100_000,
            ..InboundSettings::default()
        })
        .await
    }

    /// Creates a game with an address for every seat; returns its id.
    pub async fn game(
        &self,
        kind: &str,
        options: serde_json::Value,
        seats: usize,
        seed: u64,
    ) -> i64 {
        let seats: Vec<NewSeat> = (0..seats)
            .map(|i| NewSeat {
                name: PlayerName::parse(NAMES[i]).unwrap(),
                email: Some(EmailAddress::parse(&email(i)).unwrap()),
                bot: None,
            })
            .collect();
        self.db
            .store
            .create_game_with(
                kind,
                &options,
                &seats,
                Seed::from_number(seed),
                None,
                &serde_json::Value::Null,
            )
            .await
            .unwrap()
            .id
    }

    /// Waits until every queued message is sent; returns what the sink holds.
    pub async fn settle(&self) -> Vec<Received> {
        drain(&self.db, 30).await;
        self.sink.received()
    }

    /// The mails to `seat` so far, oldest first.
    pub async fn mails_to(&self, seat: usize) -> Vec<Received> {
        let to = email(seat);
        self.settle()
            .await
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(&to)))
            .collect()
    }

    /// The latest mail to `seat` that may be answered with a move.
    pub async fn latest_ask(&self, seat: usize) -> Received {
        self.mails_to(seat)
            .await
            .into_iter()
            .rev()
            .find(|m| header(&m.data, "Reply-To").is_some())
            .unwrap_or_else(|| panic!("no mail to answer for seat {seat}"))
    }

    /// A unique Message-ID for a reply.
    pub fn message_id(&mut self) -> String {
        self.sent += 1;
        format!("<reply{}.{}@example.org>", self.sent, std::process::id())
    }

    /// Delivers `raw` to the listener over LMTP (or SMTP), from `from` to `rcpt`; returns the
    /// server's final answer line.
    pub async fn deliver(&self, lmtp: bool, from: &str, rcpt: &str, raw: &str) -> String {
        deliver(self.port, lmtp, from, rcpt, raw).await
    }

    /// Stops the worker and the listener and drops the database.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        self.worker.stop().await;
        self.db.drop().await;
    }
}

/// Runs the real `postplay receive` with `raw` on standard input, against the rig's database,
/// with these settings besides the rig's; returns what it printed.
pub fn receive_by_pipe(rig: &Rig, recipient: &str, raw: &[u8], env: &[(&str, &str)]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_postplay"))
        .arg("receive")
        .arg("--recipient")
        .arg(recipient)
        .env("DATABASE_URL", rig.db.url())
        .env("POSTPLAY_MAIL", "off")
        .env("POSTPLAY_MAIL_FROM", "postplay <games@pp.example>")
        .env("POSTPLAY_REPLY_DOMAIN", "pp.example")
        .env("POSTPLAY_INBOUND_MAX_KB", "64")
        // The rig runs no review worker: a game-over mail goes at once.
        .env("POSTPLAY_REVIEW_MAIL_WAIT_SECS", "0")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(raw).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "postplay receive: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A minimal LMTP/SMTP client: one message, one recipient.
pub async fn deliver(port: u16, lmtp: bool, from: &str, rcpt: &str, raw: &str) -> String {
    let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let expect = async |lines: &mut tokio::io::Lines<BufReader<_>>| -> String {
        loop {
            let line: String = lines.next_line().await.unwrap().unwrap();
            if line.as_bytes().get(3) != Some(&b'-') {
                return line;
            }
        }
    };
    assert!(expect(&mut lines).await.starts_with("220"));
    let hello = if lmtp {
        "LHLO test\r\n"
    } else {
        "EHLO test\r\n"
    };
    write.write_all(hello.as_bytes()).await.unwrap();
    assert!(expect(&mut lines).await.starts_with("250"));
    for command in [
        format!("MAIL FROM:<{from}>\r\n"),
        format!("RCPT TO:<{rcpt}>\r\n"),
    ] {
        write.write_all(command.as_bytes()).await.unwrap();
        let answer = expect(&mut lines).await;
        assert!(answer.starts_with("250"), "{command}: {answer}");
    }
    write.write_all(b"DATA\r\n").await.unwrap();
    assert!(expect(&mut lines).await.starts_with("354"));
    let mut data = String::new();
    for line in raw.replace("\r\n", "\n").split('\n') {
        if line.starts_with('.') {
            data.push('.');
        }
        data.push_str(line);
        data.push_str("\r\n");
    }
    data.push_str(".\r\n");
    write.write_all(data.as_bytes()).await.unwrap();
    let answer = expect(&mut lines).await;
    write.write_all(b"QUIT\r\n").await.unwrap();
    answer
}

/// The reply address in a mail's Reply-To.
pub fn reply_address(mail: &Received) -> String {
    let value = header(&mail.data, "Reply-To").expect("a Reply-To");
    let start = value.find("play+").expect("a reply address");
    value[start..].trim_end_matches('>').trim().to_string()
}

/// The text part of a mail.
pub fn text(mail: &Received) -> String {
    part(&mail.data, "text/plain").expect("a text part")
}

/// A reply to `to` from `from` whose body is `body`.
pub fn reply(message_id: &str, from: &str, to: &str, body: &str) -> String {
    format!(
        "From: Player <{from}>\r\nTo: <{to}>\r\nSubject: Re: your turn\r\nMessage-ID: {message_id}\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
}

/// One option as the mail lists it: its code, if one is printed, and its words.
#[derive(Debug, Clone)]
pub struct ListedOption {
    /// The code before the words ("NY-P"), if any.
    pub code: Option<String>,
    /// The option's words ("New York: 1 purple").
    pub words: String,
}

/// One parameter of a listed choice: its words ("Which card do you play?", "How many? A
/// number from 1 to 5.", a placement's "cubes: 6 in all, as CODE=COUNT") and the options
/// listed for it.
#[derive(Debug, Clone)]
pub struct ListedParam {
    /// The words, a placement's without their angle brackets.
    pub hint: String,
    /// The options (none for a number).
    pub options: Vec<ListedOption>,
    /// The lines listed for it, as printed (a placement's regions and states).
    pub lines: Vec<String>,
}

/// One choice as the mail lists it.
#[derive(Debug, Clone)]
pub struct Listed {
    /// Its number.
    pub number: usize,
    /// The label, without hints or caution.
    pub label: String,
    /// The parameters to fill, in order.
    pub params: Vec<ListedParam>,
    /// The example reply the mail gives ("2 280"), if any.
    pub example: Option<String>,
}

/// A listed choice's text taken apart: its label, the words of each parameter in order (a
/// placement's hint "<cubes: …>" after the label, then each question after " — "), and the
/// example after " — reply: ". "Bid — How many? A number from 1 to 5. — reply: 2 1".
fn hints(text: &str) -> (String, Vec<String>, Option<String>) {
    let mut parts: Vec<&str> = text.split(postplay::notices::reply::ask::PART).collect();
    let example = parts
        .last()
        .and_then(|p| p.strip_prefix(postplay::notices::reply::ask::EXAMPLE))
        .map(str::to_string);
    if example.is_some() {
        parts.pop();
    }
    let head = parts.remove(0);
    let mut pieces = head.split(" <");
    let label = pieces.next().unwrap_or_default();
    let label = label
        .split(" (caution:")
        .next()
        .unwrap_or_default()
        .to_string();
    let mut hints: Vec<String> = pieces
        .map(|h| h.split('>').next().unwrap_or_default().to_string())
        .collect();
    hints.extend(parts.into_iter().map(str::to_string));
    (label, hints, example)
}

/// Whether a parameter's words ask for a number ("A number from 280 to 530").
fn is_number(hint: &str) -> bool {
    hint.contains("A number from") || hint.contains("The number ")
}

/// The choices a mail lists under "To move, reply ...".
pub fn listed(text: &str) -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    let mut inside = false;
    let mut current: Option<usize> = None;
    for line in text.lines() {
        if line.starts_with("To move, reply to this mail") {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some(option) = line.strip_prefix("       ") {
            let choice = out.last_mut().unwrap();
            let bearing: Vec<usize> = (0..choice.params.len())
                .filter(|&p| !is_number(&choice.params[p].hint))
                .collect();
            if let Some(rest) = option.strip_prefix(postplay::notices::reply::SAME_AS) {
                let number: usize = rest.trim_end_matches(')').parse().unwrap();
                let same = out[number - 1].params.clone();
                for (param, earlier) in out.last_mut().unwrap().params.iter_mut().zip(same) {
                    param.options = earlier.options;
                    param.lines = earlier.lines;
                }
                continue;
            }
            if option.starts_with(postplay::notices::reply::PARAM_MARK) {
                current = Some(current.map_or(0, |c: usize| c + 1));
                continue;
            }
            let at = bearing[*current.get_or_insert(0)];
            choice.params[at].lines.push(option.to_string());
            let (code, words) = match option.split_once("  ") {
                Some((code, words)) => (Some(code.to_string()), words.to_string()),
                None => (None, option.to_string()),
            };
            choice.params[at].options.push(ListedOption { code, words });
        } else if let Some((number, text)) = line.trim_start().split_once("  ") {
            let (label, hints, example) = hints(text);
            current = None;
            out.push(Listed {
                number: number.parse().unwrap(),
                label,
                example,
                params: hints
                    .into_iter()
                    .map(|hint| ListedParam {
                        hint,
                        options: Vec::new(),
                        lines: Vec::new(),
                    })
                    .collect(),
            });
        }
    }
    out
}

/// The numbers in a placement's hint: "cubes: 6 in all" gives 6 first.
fn numbers(hint: &str) -> Vec<u64> {
    let hint = hint.split_once(':').map_or(hint, |(_, rest)| rest);
    hint.split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// The numbers in the words after `from` in a parameter's words ("Pick 1 to 3." after
/// "Pick ": 1 and 3), up to the end of that sentence.
fn numbers_after(hint: &str, from: &str) -> Vec<u64> {
    let Some(at) = hint.rfind(from) else {
        return Vec::new();
    };
    let rest = &hint[at + from.len()..];
    let sentence = rest.split(['.', ';']).next().unwrap_or_default();
    sentence
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// How many options a parameter's words ask for, as (least, most): "Pick 2." (2, 2), "Pick 1
/// to 3." (1, 3), "Pick up to 2, or none." (0, 2), "Pick 2 or more." (2, all), "Pick any of
/// them, or none." (0, all); one when they say nothing.
fn how_many(hint: &str, listed: usize) -> (usize, usize) {
    let n: Vec<usize> = numbers_after(hint, "Pick ")
        .into_iter()
        .map(|n| n as usize)
        .collect();
    let Some(at) = hint.rfind("Pick ") else {
        return (1, 1);
    };
    let rule = &hint[at..];
    if rule.starts_with("Pick any") {
        (0, listed)
    } else if rule.starts_with("Pick up to") {
        (0, n[0])
    } else if rule.contains(" or more") {
        (n[0], listed)
    } else {
        (n[0], *n.get(1).unwrap_or(&n[0]))
    }
}

/// A line answering a listed choice as a person might type it, with options picked at random
/// from what the mail lists: `by_code`, the number and the options' codes (their words where
/// no code is printed); else the number, or the label, and the options' printed words.
pub fn line_for(choice: &Listed, by_code: bool, rng: &mut GameRng) -> String {
    let mut words = if by_code || !choice.params.is_empty() {
        choice.number.to_string()
    } else {
        choice.label.to_lowercase()
    };
    let name = |o: &ListedOption| match (&o.code, by_code) {
        (Some(code), true) => code.clone(),
        _ => o.words.clone(),
    };
    let join = if by_code { " " } else { ", " };
    for param in &choice.params {
        words.push(' ');
        if is_number(&param.hint) {
            // A number: "A number from 280 to 530, in steps of 10."
            let from = numbers_after(&param.hint, "number ");
            words.push_str(&from[0].to_string());
        } else if super::cubes::is_placement(&param.lines) {
            words.push_str(&super::cubes::placement(
                &param.hint,
                &param.lines,
                by_code,
                rng,
            ));
        } else if param.options.is_empty() {
            // A question naming its answers, answered anywhere on the line: after the cubes,
            // or at the start with "first".
            let answers = super::cubes::answers(&param.hint);
            let answer = &answers[rng.index(answers.len())];
            words.pop();
            if by_code {
                words.push_str(&format!(" {answer}"));
            } else {
                let (number, rest) = words.split_once(' ').unwrap_or((&words, ""));
                words = format!("{number} {answer} first, {rest}");
            }
        } else {
            // Options: "Which card?", "Pick 6.", "Pick 1 to 3.", "Pick up to 1, or none."
            let (least, most) = how_many(&param.hint, param.options.len());
            let least = least.max(1);
            let most = most.max(least);
            let count =
                (least + rng.below((most - least + 1) as u32) as usize).min(param.options.len());
            let mut options = param.options.clone();
            rng.shuffle(&mut options);
            options.truncate(count);
            words.push_str(&options.iter().map(name).collect::<Vec<_>>().join(join));
        }
    }
    words
}

/// The bot's random source for a test.
pub fn rng(seed: u64) -> GameRng {
    bot_rng(&Seed::from_number(seed))
}

/// Waits up to `secs` for `check` to hold.
pub async fn eventually<F: AsyncFnMut() -> bool>(secs: u64, mut check: F) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}
