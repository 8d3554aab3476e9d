//! The day's traffic on open-loop timetables: requests start at their scheduled times whatever
//! the server's pace, and each latency counts from the scheduled start, so a slow server
//! cannot hide behind fewer requests. Moves go through the JSON API with the seat's token, or
//! by reply through `postplay receive`'s code path; pages are seat pages, /me signed in, the
//! lobby and replays. What is held grows only with the rates and the duration (latencies,
//! acknowledged moves), and a request in flight ends with the client's timeout.

use crate::common::replyrig::reply;
use crate::day_mail::Inboxes;
use crate::day_server::REPLY_DOMAIN;
use crate::day_setup::{Games, address};
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{GameRng, Log, Seed};
use postplay::replies::{Inbox, Outcome};
use postplay::store::Store;
use serde_json::{Value, json};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// How long a request may take before the client gives up (and counts a failure).
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(30);

/// Failure details kept, at most.
const SAMPLES: usize = 12;

/// What the day measured.
#[derive(Default)]
pub struct Tally {
    /// Latencies of moves through the JSON API, from their scheduled start.
    pub api: Vec<Duration>,
    /// Latencies of moves by reply.
    pub mail: Vec<Duration>,
    /// Latencies of page views.
    pub pages: Vec<Duration>,
    /// The same, by kind of page ("seat page", "/me", "lobby", "replay").
    pub pages_by_kind: BTreeMap<&'static str, Vec<Duration>>,
    /// Every acknowledged move: (game, seq, seat). The seat's entry is the one after the
    /// position it answered (the head the server names may be later: forced moves it then
    /// played for the next seats).
    pub acked: Vec<(i64, i64, i32)>,
    /// Failures by what failed ("move by API answered 409", "/me answered 500").
    pub failures: BTreeMap<String, usize>,
    /// The first few failures in full.
    pub samples: Vec<String>,
    /// Replies the rules refused (the player is told why): the bench's random pick among a
    /// choice's options can break a rule the mail states, such as a challenge's total. Not
    /// the server's failure; counted apart, with the first few in full.
    pub refused_replies: usize,
    /// The first few of them.
    pub refused_samples: Vec<String>,
    /// Move slots that found no game free to move.
    pub skipped: usize,
    /// Reply slots that found no seat with a fresh mail to answer and moved through the API.
    pub mail_fallbacks: usize,
    /// Latencies of moves the server refused for overload (503 with `Retry-After`).
    pub shed_moves: Vec<Duration>,
    /// Latencies of page views it refused so.
    pub shed_pages: Vec<Duration>,
    /// The longest any request of the server waited for its answer, whatever the answer
    /// (or none within the client's timeout).
    pub worst: Duration,
    /// How late the bench itself started a request after its scheduled time, at most: when
    /// the bench falls behind, its requests' waits are partly its own.
    pub late_start: Duration,
    /// Of that, the page views' thread's lateness alone (the moves' is the rest).
    pub pages_late_start: Duration,
    /// The most requests in flight at once.
    pub most_in_flight: usize,
    /// The longest any request waited from the moment the bench sent it: the server's part
    /// of [`Tally::worst`] when the bench falls behind.
    pub worst_sent: Duration,
}

/// A 503 that says when to come back: refused for overload.
fn shed(status: awc::http::StatusCode, retry_after: bool) -> bool {
    status == awc::http::StatusCode::SERVICE_UNAVAILABLE && retry_after
}

impl Tally {
    /// Takes in what the page views' own thread measured.
    pub fn absorb_pages(&mut self, pages: Tally) {
        self.pages.extend(pages.pages);
        for (kind, latencies) in pages.pages_by_kind {
            self.pages_by_kind
                .entry(kind)
                .or_default()
                .extend(latencies);
        }
        self.shed_pages.extend(pages.shed_pages);
        for (what, n) in pages.failures {
            *self.failures.entry(what).or_default() += n;
        }
        let room = SAMPLES.saturating_sub(self.samples.len());
        self.samples.extend(pages.samples.into_iter().take(room));
        self.worst = self.worst.max(pages.worst);
        self.worst_sent = self.worst_sent.max(pages.worst_sent);
        self.late_start = self.late_start.max(pages.late_start);
        self.pages_late_start = self.pages_late_start.max(pages.late_start);
        self.most_in_flight += pages.most_in_flight;
    }

    fn fail(&mut self, what: String, detail: String) {
        *self.failures.entry(what).or_default() += 1;
        if self.samples.len() < SAMPLES {
            self.samples.push(detail);
        }
    }
}

/// Everything the day's tasks share (one thread: `Rc`).
pub struct Day {
    /// The games.
    pub games: Games,
    /// The players' inboxes.
    pub inboxes: Rc<RefCell<Inboxes>>,
    /// What was measured.
    pub tally: Rc<RefCell<Tally>>,
    /// The HTTP client (keep-alive).
    pub client: awc::Client,
    /// The server's base URL.
    pub base: String,
    /// The reply path (`postplay receive`'s inbox).
    pub inbox: Rc<Inbox>,
    /// The store the bench reads a position back from after a refusal or a reply.
    pub store: Rc<Store>,
    /// Signed-in sessions' cookies.
    pub cookies: Vec<String>,
    /// Requests in flight.
    pub in_flight: Rc<Cell<usize>>,
}

enum Via {
    Api {
        token: String,
        command: Value,
    },
    Mail {
        from: String,
        secret: String,
        line: String,
    },
}

struct Plan {
    index: usize,
    id: i64,
    seat: usize,
    expected: u64,
    via: Via,
}

/// Picks a game free to move (up to 50 tries), with a fresh mail to answer when `by_mail`.
fn plan(day: &Day, movable: &[usize], by_mail: bool, rng: &mut GameRng) -> Option<Plan> {
    let mut games = day.games.borrow_mut();
    let mut inboxes = day.inboxes.borrow_mut();
    for _ in 0..50 {
        let index = movable[rng.index(movable.len())];
        let game = &mut games[index];
        if game.busy || game.live.outcome().is_some() {
            continue;
        }
        let active = game.live.active();
        if active.is_empty() {
            continue;
        }
        let seat = active[rng.index(active.len())];
        let expected = game.live.applied();
        let via = if by_mail {
            let fresh = inboxes
                .replies
                .get(&(game.id, seat))
                .is_some_and(|a| a.seq == expected);
            if !fresh {
                continue;
            }
            let answer = inboxes.replies.remove(&(game.id, seat)).unwrap();
            Via::Mail {
                from: address(game.accounts[seat]),
                secret: answer.secret,
                line: answer.line,
            }
        } else {
            Via::Api {
                token: game.tokens[seat].clone(),
                command: random_command(game.live.as_ref(), seat, rng)?,
            }
        };
        game.busy = true;
        return Some(Plan {
            index,
            id: game.id,
            seat,
            expected,
            via,
        });
    }
    None
}

/// Sleeps until `at`, not at all once `at` is a tick past. Tokio rounds a deadline up to its
/// next millisecond tick, so `sleep(0)` (what a duration measured to a past `at` comes to)
/// waits for the next tick: a loop behind its timetable could then start only one request a
/// millisecond (about 820 page views a second at ten times the rates) and never catch up.
async fn until(at: Instant) {
    actix_web::rt::time::sleep_until(at.into()).await;
}

/// Notes how late a request scheduled for `at` starts, and how many are in flight.
fn started(day: &Day, at: Instant) {
    let mut tally = day.tally.borrow_mut();
    tally.late_start = tally.late_start.max(at.elapsed());
    tally.most_in_flight = tally.most_in_flight.max(day.in_flight.get() + 1);
}

/// Moves at `rate` a second from `start` to `end`, a `mail_share` of them by reply.
pub async fn moves(day: Rc<Day>, rate: f64, mail_share: f64, start: Instant, end: Instant) {
    let movable: Vec<usize> = day
        .games
        .borrow()
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.timed)
        .map(|(i, _)| i)
        .collect();
    if movable.is_empty() || rate <= 0.0 {
        return;
    }
    let mut rng = bot_rng(&Seed::from_number(77));
    let mut credit = 0.0;
    let mut k = 0u64;
    loop {
        let at = start + Duration::from_secs_f64(k as f64 / rate);
        if at >= end {
            return;
        }
        until(at).await;
        started(&day, at);
        k += 1;
        credit += mail_share;
        let by_mail = credit >= 1.0;
        if by_mail {
            credit -= 1.0;
        }
        let mut chosen = plan(&day, &movable, by_mail, &mut rng);
        if chosen.is_none() && by_mail {
            day.tally.borrow_mut().mail_fallbacks += 1;
            chosen = plan(&day, &movable, false, &mut rng);
        }
        let Some(chosen) = chosen else {
            day.tally.borrow_mut().skipped += 1;
            continue;
        };
        day.in_flight.set(day.in_flight.get() + 1);
        let day = day.clone();
        actix_web::rt::spawn(async move {
            one_move(&day, chosen, at).await;
            day.in_flight.set(day.in_flight.get() - 1);
        });
    }
}

/// Sends one move through the API; true when the bench must read the position back.
async fn by_api(day: &Day, plan: &Plan, token: &str, command: &Value, at: Instant) -> bool {
    let body = json!({"command": command, "expected_seq": plan.expected}).to_string();
    let sent_at = Instant::now();
    let sent = day
        .client
        .post(format!("{}/api/games/{}/commands", day.base, plan.id))
        .bearer_auth(token)
        .insert_header(("Content-Type", "application/json"))
        .send_body(body)
        .await;
    let answer = match sent {
        Ok(mut res) => {
            let body = res.body().limit(1 << 20).await.unwrap_or_default();
            Ok((
                res.status(),
                res.headers().contains_key("retry-after"),
                body,
            ))
        }
        Err(e) => Err(e.to_string()),
    };
    let latency = at.elapsed();
    let mut tally = day.tally.borrow_mut();
    tally.worst = tally.worst.max(latency);
    tally.worst_sent = tally.worst_sent.max(sent_at.elapsed());
    let (status, body) = match answer {
        Ok((status, retry_after, _)) if shed(status, retry_after) => {
            tally.shed_moves.push(latency);
            return true;
        }
        Ok((status, _, body)) => (status, body),
        Err(e) => {
            tally.fail(
                "move by API: no answer".into(),
                format!("game {}: {e}", plan.id),
            );
            return true;
        }
    };
    let seq = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["seq"].as_i64());
    match (status.is_success(), seq) {
        (true, Some(seq)) if seq > plan.expected as i64 => {
            tally.api.push(latency);
            tally
                .acked
                .push((plan.id, plan.expected as i64 + 1, plan.seat as i32));
            let mut games = day.games.borrow_mut();
            // Forced moves played after it: read the position back.
            seq != plan.expected as i64 + 1
                || games[plan.index]
                    .live
                    .apply_json(plan.seat, command, &mut Log::silent())
                    .is_err()
        }
        _ => {
            tally.fail(
                format!("move by API answered {}", status.as_u16()),
                format!(
                    "game {} seat {}: {status} {}",
                    plan.id,
                    plan.seat,
                    String::from_utf8_lossy(&body)
                ),
            );
            true
        }
    }
}

/// Replies sent so far in this run.
static REPLIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Answers the seat's mail through the reply path.
async fn by_reply(day: &Day, plan: &Plan, from: &str, secret: &str, line: &str, at: Instant) {
    let to = format!("play+{secret}@{REPLY_DOMAIN}");
    // Numbered over the whole run, not the stretch: a Message-ID seen again is a duplicate.
    let n = REPLIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let message_id = format!("<day{n}.{}@example.org>", std::process::id());
    let raw = reply(&message_id, from, &to, line);
    let outcome = day.inbox.receive(raw.as_bytes(), &[to]).await;
    let latency = at.elapsed();
    let mut tally = day.tally.borrow_mut();
    match outcome {
        Ok(Outcome::Done(seq)) if seq > plan.expected as i64 => {
            tally.mail.push(latency);
            tally
                .acked
                .push((plan.id, plan.expected as i64 + 1, plan.seat as i32));
        }
        Ok(Outcome::Refused(why)) => {
            tally.refused_replies += 1;
            if tally.refused_samples.len() < 3 {
                tally.refused_samples.push(format!(
                    "game {} seat {} line {line:?}: {why}",
                    plan.id, plan.seat
                ));
            }
        }
        Ok(other) => {
            let what = format!("{other:?}");
            tally.fail(
                format!(
                    "move by reply: {}",
                    what.split('(').next().unwrap_or_default()
                ),
                format!("game {} seat {} line {line:?}: {what}", plan.id, plan.seat),
            );
        }
        Err(e) => tally.fail(
            "move by reply: error".into(),
            format!("game {}: {e}", plan.id),
        ),
    }
}

async fn one_move(day: &Day, plan: Plan, at: Instant) {
    let resync = match &plan.via {
        Via::Api { token, command } => by_api(day, &plan, token, command, at).await,
        Via::Mail { from, secret, line } => {
            by_reply(day, &plan, from, secret, line, at).await;
            true
        }
    };
    if resync {
        match day.store.load(plan.id).await {
            Ok(loaded) => day.games.borrow_mut()[plan.index].live = loaded.game,
            Err(e) => day.tally.borrow_mut().fail(
                "reading a game back".into(),
                format!("game {}: {e}", plan.id),
            ),
        }
    }
    day.games.borrow_mut()[plan.index].busy = false;
}

/// `POSTPLAY_DAY_BENCH_NICE` (e.g. -5, as root): the calling thread's nice value, so that the
/// bench's threads run ahead of the server and PostgreSQL on the machine they share. Clients
/// are elsewhere in a real deployment; here, past what the two cores can do, the bench would
/// otherwise fall behind its timetable and offer less than the rates asked, while the server,
/// left what the bench does not take, meets its load with less than the whole machine.
pub fn bench_priority() {
    let Some(nice) = std::env::var("POSTPLAY_DAY_BENCH_NICE")
        .ok()
        .and_then(|v| v.trim().parse::<i32>().ok())
    else {
        return;
    };
    // SAFETY: setpriority reads only its arguments; on Linux, `who` 0 is the calling thread.
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) } != 0 {
        eprintln!(
            "POSTPLAY_DAY_BENCH_NICE={nice}: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// What the page views need of the day, copied so they can run on a thread of their own:
/// every game's id, seat tokens and entries so far, and the signed-in sessions' cookies.
pub struct PageTargets {
    /// (game id, its seats' tokens, its entries when the stretch began).
    games: Vec<(i64, Vec<String>, u64)>,
    /// Signed-in sessions' cookies.
    cookies: Vec<String>,
    /// The server's base URL.
    base: String,
}

impl PageTargets {
    /// The day's games and sessions as they stand.
    pub fn of(day: &Day) -> PageTargets {
        PageTargets {
            games: (day.games.borrow().iter())
                .map(|g| (g.id, g.tokens.clone(), g.live.applied()))
                .collect(),
            cookies: day.cookies.clone(),
            base: day.base.clone(),
        }
    }
}

/// Page views at `rate` a second from `start` to `end` on a thread of their own (its own
/// runtime and client), so that the moves, the replies and the mail the bench takes do not
/// make the pages late, nor the pages them; returns what they measured once every view has its
/// answer or the client's timeout.
pub fn pages_apart(
    targets: PageTargets,
    rate: f64,
    start: Instant,
    end: Instant,
) -> std::thread::JoinHandle<Tally> {
    std::thread::spawn(move || {
        bench_priority();
        actix_web::rt::System::new().block_on(async move {
            let tally = Rc::new(RefCell::new(Tally::default()));
            let in_flight = Rc::new(Cell::new(0usize));
            pages(Rc::new(targets), rate, start, end, &tally, &in_flight).await;
            let deadline = Instant::now() + CLIENT_TIMEOUT + Duration::from_secs(10);
            while in_flight.get() > 0 && Instant::now() < deadline {
                actix_web::rt::time::sleep(Duration::from_millis(20)).await;
            }
            tally.take()
        })
    })
}

/// Page views at `rate` a second from `start` to `end`: of every twenty, eight seat pages,
/// four of /me signed in, three of the lobby and five replays at a random step.
async fn pages(
    targets: Rc<PageTargets>,
    rate: f64,
    start: Instant,
    end: Instant,
    tally: &Rc<RefCell<Tally>>,
    in_flight: &Rc<Cell<usize>>,
) {
    if rate <= 0.0 {
        return;
    }
    // No connection limit: the client must not queue requests itself (awc's default of 100
    // would, at ten times the rates), or its queue would count as the server's.
    let client = awc::Client::builder()
        .connector(awc::Connector::new().limit(0))
        .timeout(CLIENT_TIMEOUT)
        .finish();
    let mut rng = bot_rng(&Seed::from_number(78));
    let mut k = 0u64;
    loop {
        let at = start + Duration::from_secs_f64(k as f64 / rate);
        if at >= end {
            return;
        }
        until(at).await;
        {
            let mut tally = tally.borrow_mut();
            tally.late_start = tally.late_start.max(at.elapsed());
            tally.most_in_flight = tally.most_in_flight.max(in_flight.get() + 1);
        }
        let (what, path, cookie) = {
            let (id, tokens, applied) = &targets.games[rng.index(targets.games.len())];
            match k % 20 {
                0..8 => {
                    let token = &tokens[rng.index(tokens.len())];
                    ("seat page", format!("/play/{token}"), None)
                }
                8..12 if !targets.cookies.is_empty() => (
                    "/me",
                    "/me".to_string(),
                    Some(targets.cookies[rng.index(targets.cookies.len())].clone()),
                ),
                8..15 => ("lobby", "/lobby".to_string(), None),
                _ => {
                    let at = rng.index(*applied as usize + 1);
                    ("replay", format!("/games/{id}/replay?at={at}"), None)
                }
            }
        };
        k += 1;
        in_flight.set(in_flight.get() + 1);
        let (tally, in_flight) = (tally.clone(), in_flight.clone());
        let mut request = client.get(format!("{}{path}", targets.base));
        actix_web::rt::spawn(async move {
            if let Some(cookie) = cookie {
                request = request.insert_header(("Cookie", cookie));
            }
            let sent_at = Instant::now();
            let answer = match request.send().await {
                Ok(mut res) => match res.body().limit(8 << 20).await {
                    Ok(_) => Ok((res.status(), res.headers().contains_key("retry-after"))),
                    Err(e) => Err(e.to_string()),
                },
                Err(e) => Err(e.to_string()),
            };
            let latency = at.elapsed();
            let mut tally = tally.borrow_mut();
            tally.worst = tally.worst.max(latency);
            tally.worst_sent = tally.worst_sent.max(sent_at.elapsed());
            match answer {
                Ok((status, _)) if status.is_success() => {
                    tally.pages.push(latency);
                    tally.pages_by_kind.entry(what).or_default().push(latency);
                }
                Ok((status, retry_after)) if shed(status, retry_after) => {
                    tally.shed_pages.push(latency)
                }
                Ok((status, _)) => tally.fail(
                    format!("{what} answered {}", status.as_u16()),
                    format!("GET {path}: {status}"),
                ),
                Err(e) => tally.fail(format!("{what}: no answer"), format!("GET {path}: {e}")),
            }
            drop(tally);
            in_flight.set(in_flight.get() - 1);
        });
    }
}
