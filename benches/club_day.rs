//! A club day (issue 34): 1,000 accounts and 10,000 running games of all five kinds, the real
//! `postplay serve` (web, clock scheduler, outbox worker) mailing to a real SMTP sink, and for
//! the soak's length at once: moves at 50 a second (a fifth by reply through `postplay
//! receive`'s code path, the rest through the JSON API), page views at 200 a second, and a few
//! hundred deadlines falling due. Reports move, page and mail latencies, the clock's lateness
//! and the server's memory; then checks every record, every acknowledged move and every mail.
//!
//! `cargo bench --bench club_day` (the tests' private PostgreSQL, or DATABASE_URL).
//! `POSTPLAY_SOAK_MINUTES` (default 5; an hour is 60). Smaller runs: `POSTPLAY_DAY_ACCOUNTS`
//! (1000), `POSTPLAY_DAY_GAMES` (10000), `POSTPLAY_DAY_TIMEOUTS` (games whose players are
//! away, 300), `POSTPLAY_DAY_OPENING_MOVES` (random moves into each game at most, 6),
//! `POSTPLAY_DAY_MOVES` (a second, 50), `POSTPLAY_DAY_PAGES` (a second, 200),
//! `POSTPLAY_DAY_MAIL_SHARE` (0.2), `POSTPLAY_DAY_SESSIONS` (signed-in accounts, 200),
//! `POSTPLAY_CLOCK_TICK_SECS` (the server's, default 15), `POSTPLAY_DAY_DRAIN_SECS` (the
//! longest wait for the outbox to empty, 900); `POSTPLAY_DAY_KEEP=1` keeps the database.
//!
//! Overload (issue 51): `POSTPLAY_DAY_SCALE` multiplies both rates (10: 500 moves/s and 2,000
//! pages/s asked). Requests the server refuses for overload (503 with `Retry-After`) are
//! counted apart from failures, and the day reports the longest any request waited for its
//! answer (goal ≤ 5 s), the clock's lateness in ticks (goal ≤ 2) and the server's peak memory
//! (goal < 150 MB). The server's overload bounds are its own settings, passed through from the
//! environment (`POSTPLAY_MOVES_IN_FLIGHT`, `POSTPLAY_PAGES_IN_FLIGHT`, …).
//!
//! The knee: `POSTPLAY_DAY_STEPS=1,2,3,4` runs the day's traffic at each multiple of the base
//! rates for `POSTPLAY_DAY_STEP_MINUTES` (1) before the day itself, with a line of figures a
//! step, and names the highest step held: moves p99 under 25 ms, none refused or failed, and
//! the bench itself on time (it starts every request within a second of its schedule; past
//! that, what it measures is partly its own backlog).
//!
//! `POSTPLAY_DAY_SETTLE=1` runs `VACUUM ANALYZE` and a `CHECKPOINT` between the night and the
//! day: the work PostgreSQL otherwise does in the day's first minute, catching up on the
//! night's mail.
//!
//! The bench shares the machine with the server and PostgreSQL, so it spreads its own work
//! over three threads: the page views, the SMTP sink that takes the server's mail, and the
//! moves (with the replies through `receive`'s code); each reports how late it started.
//! `POSTPLAY_DAY_BENCH_NICE=-5` (as root) runs them ahead of the server and PostgreSQL, so that
//! past what the machine can do the bench still offers the rates asked (a real server's
//! clients are elsewhere) and the server meets them with what the bench leaves it.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "support/day_checks.rs"]
mod day_checks;
#[path = "support/day_load.rs"]
mod day_load;
#[path = "support/day_mail.rs"]
mod day_mail;
#[path = "support/day_server.rs"]
mod day_server;
#[path = "support/day_setup.rs"]
mod day_setup;

use common::TestDb;
use day_checks::{ms, quantile};
use day_load::{CLIENT_TIMEOUT, Day, PageTargets, Tally};
use day_mail::Inboxes;
use day_server::{MAIL_FROM, REPLY_DOMAIN, Server};
use postplay::config::mail::parse_sender;
use postplay::engine::Seed;
use postplay::engine::bot::bot_rng;
use postplay::notices::mail::sink::SmtpSink;
use postplay::replies::{InboundSettings, Inbox};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The day's settings, from the environment.
mod settings {
    /// How big and how busy the day is.
    #[derive(Clone)]
    pub struct Settings {
        /// The soak's length.
        pub minutes: f64,
        /// Accounts.
        pub accounts: usize,
        /// Running games.
        pub games: usize,
        /// Games whose players are away: their deadlines fall due during the day.
        pub timeouts: usize,
        /// Random moves into each game at most before the day.
        pub opening_moves: usize,
        /// Moves a second.
        pub moves: f64,
        /// Page views a second.
        pub pages: f64,
        /// The share of moves made by reply.
        pub mail_share: f64,
        /// Accounts signed in (for /me).
        pub sessions: usize,
        /// The server's clock tick, if set.
        pub tick: Option<u64>,
        /// The longest wait for the outbox to empty.
        pub drain_secs: u64,
        /// What the rates were multiplied by.
        pub scale: f64,
    }

    fn number<T: std::str::FromStr>(key: &str, default: T) -> T {
        std::env::var(key)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }

    impl Settings {
        /// Reads the settings (see the bench's doc).
        pub fn from_env() -> Settings {
            let accounts = number("POSTPLAY_DAY_ACCOUNTS", 1000usize).max(5);
            let games = number("POSTPLAY_DAY_GAMES", 10_000usize).max(1);
            let scale = number("POSTPLAY_DAY_SCALE", 1.0f64).max(0.01);
            Settings {
                scale,
                minutes: number("POSTPLAY_SOAK_MINUTES", 5.0f64).max(0.1),
                accounts,
                games,
                timeouts: number("POSTPLAY_DAY_TIMEOUTS", 300usize).min(games / 2),
                opening_moves: number("POSTPLAY_DAY_OPENING_MOVES", 6usize),
                moves: number("POSTPLAY_DAY_MOVES", 50.0f64) * scale,
                pages: number("POSTPLAY_DAY_PAGES", 200.0f64) * scale,
                mail_share: number("POSTPLAY_DAY_MAIL_SHARE", 0.2f64).clamp(0.0, 1.0),
                sessions: number("POSTPLAY_DAY_SESSIONS", 200usize).min(accounts),
                tick: std::env::var("POSTPLAY_CLOCK_TICK_SECS")
                    .ok()
                    .and_then(|v| v.parse().ok()),
                drain_secs: number("POSTPLAY_DAY_DRAIN_SECS", 900u64),
            }
        }
    }
}

use settings::Settings;

/// Outbox rows still to send (an answer waiting to be folded into a later mail waits hours by
/// design and is not counted until it falls due).
async fn open_mail(db: &TestDb) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending') AND NOT digest \
         AND NOT (fold AND status = 'pending' AND due_at > now())",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

/// Waits until the outbox is empty (at most `secs`), taking the mail as it arrives; returns
/// the rows still open.
async fn drain(db: &TestDb, sink: &SmtpSink, inboxes: &RefCell<Inboxes>, secs: u64) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        inboxes.borrow_mut().take(sink);
        let open = open_mail(db).await;
        if open == 0 || Instant::now() >= deadline {
            // What the worker handed over just before its last update.
            actix_web::rt::time::sleep(Duration::from_millis(200)).await;
            inboxes.borrow_mut().take(sink);
            return open;
        }
        actix_web::rt::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn db_now(db: &TestDb) -> chrono::DateTime<chrono::Utc> {
    sqlx::query_scalar("SELECT now()")
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

fn latency_line(what: &str, sorted: &[Duration], seconds: f64) -> String {
    format!(
        "{what}: {} ({:.1}/s); p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        sorted.len(),
        sorted.len() as f64 / seconds,
        ms(quantile(sorted, 0.5)),
        ms(quantile(sorted, 0.99)),
        ms(sorted.last().copied().unwrap_or_default())
    )
}

/// The day itself: traffic from `start` for the soak's length, the mail taken as it comes.
async fn run_day(day: &Rc<Day>, sink: &Rc<SmtpSink>, s: &Settings) -> (Instant, Instant) {
    day_load::bench_priority();
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(s.minutes * 60.0);
    let reading = Rc::new(Cell::new(true));
    let reader = {
        let (day, sink, reading) = (day.clone(), sink.clone(), reading.clone());
        actix_web::rt::spawn(async move {
            while reading.get() {
                day.inboxes.borrow_mut().take(&sink);
                actix_web::rt::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let pages = day_load::pages_apart(PageTargets::of(day), s.pages, start, end);
    day_load::moves(day.clone(), s.moves, s.mail_share, start, end).await;
    let deadline = Instant::now() + CLIENT_TIMEOUT + Duration::from_secs(10);
    while (day.in_flight.get() > 0 || !pages.is_finished()) && Instant::now() < deadline {
        actix_web::rt::time::sleep(Duration::from_millis(20)).await;
    }
    let pages = pages.join().expect("the page views' thread ends");
    day.tally.borrow_mut().absorb_pages(pages);
    reading.set(false);
    let _ = reader.await;
    (start, Instant::now())
}

/// `POSTPLAY_DAY_STEPS`: the multiples of the rates the knee is looked for at, e.g. "1,2,4,6".
fn day_steps() -> Vec<f64> {
    std::env::var("POSTPLAY_DAY_STEPS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .filter(|v: &f64| *v > 0.0)
        .collect()
}

/// A number from the environment, or `default`.
fn number_setting(key: &str, default: f64) -> f64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Prints what a stretch of traffic measured over `seconds`.
fn report(tally: &mut Tally, seconds: f64) {
    tally.api.sort();
    tally.mail.sort();
    tally.pages.sort();
    let mut all: Vec<Duration> = tally.api.iter().chain(&tally.mail).copied().collect();
    all.sort();
    println!("{}", latency_line("moves, all", &all, seconds));
    println!(
        "{}",
        latency_line("moves through the JSON API", &tally.api, seconds)
    );
    println!("{}", latency_line("moves by reply", &tally.mail, seconds));
    println!(
        "move slots with no game free: {}; reply slots with no fresh mail, moved through the API: {}",
        tally.skipped, tally.mail_fallbacks
    );
    println!("{}", latency_line("pages", &tally.pages, seconds));
    for (kind, latencies) in &mut tally.pages_by_kind {
        latencies.sort();
        println!("{}", latency_line(&format!("  {kind}"), latencies, seconds));
    }
    tally.shed_moves.sort();
    tally.shed_pages.sort();
    println!(
        "{}",
        latency_line(
            "moves refused for overload (503, Retry-After)",
            &tally.shed_moves,
            seconds
        )
    );
    println!(
        "{}",
        latency_line(
            "pages refused for overload (503, Retry-After)",
            &tally.shed_pages,
            seconds
        )
    );
    println!(
        "the longest any request waited for the server's answer: {:.2} s from its scheduled start, {:.2} s from the moment the bench sent it (goal at ten times the rates: at most 5 s)",
        tally.worst.as_secs_f64(),
        tally.worst_sent.as_secs_f64()
    );
    println!(
        "the bench's own lateness in starting a request, at most: {:.2} s (its page views' thread {:.2} s); requests in flight at once, at most: {}",
        tally.late_start.as_secs_f64(),
        tally.pages_late_start.as_secs_f64(),
        tally.most_in_flight
    );
    println!(
        "replies the rules refused (the bench's random pick broke a rule the mail states; the player is told why): {}",
        tally.refused_replies
    );
    for sample in &tally.refused_samples {
        println!("  e.g. {sample}");
    }
    for (what, n) in &tally.failures {
        println!("failed: {what}: {n}");
    }
    for sample in &tally.samples {
        println!("  e.g. {sample}");
    }
}

/// The knee (issue 51): the day's traffic at each of `steps` times the base rates for `minutes`
/// each, before the day itself, one line of figures a step. Returns the moves acknowledged.
async fn staircase(
    day: &Rc<Day>,
    sink: &Rc<SmtpSink>,
    s: &Settings,
    steps: &[f64],
    minutes: f64,
) -> Vec<(i64, i64, i32)> {
    let mut acked = Vec::new();
    let mut knee = None;
    for &step in steps {
        let mut at = s.clone();
        at.moves = s.moves / s.scale * step;
        at.pages = s.pages / s.scale * step;
        at.minutes = minutes;
        let (start, end) = run_day(day, sink, &at).await;
        let seconds = (end - start).as_secs_f64().min(minutes * 60.0);
        let mut tally = std::mem::take(&mut *day.tally.borrow_mut());
        println!(
            "== step: {step} times the rates ({:.0} moves/s, {:.0} pages/s asked) for {minutes} min",
            at.moves, at.pages
        );
        report(&mut tally, seconds);
        let mut moves: Vec<Duration> = tally.api.iter().chain(&tally.mail).copied().collect();
        moves.sort();
        let held = quantile(&moves, 0.99) < Duration::from_millis(25)
            && tally.shed_moves.is_empty()
            && tally.late_start < Duration::from_secs(1)
            && tally.failures.is_empty();
        if held && knee.is_none_or(|k| k < step) {
            knee = Some(step);
        }
        acked.append(&mut tally.acked);
    }
    match knee {
        Some(step) => println!(
            "the knee: {step} times the rates is the highest step held (moves p99 < 25 ms, none refused or failed, the bench on time)"
        ),
        None => println!(
            "the knee: no step held (moves p99 < 25 ms, none refused or failed, the bench on time)"
        ),
    }
    acked
}

fn main() {
    actix_web::rt::System::new().block_on(async {
        let s = Settings::from_env();
        let db = TestDb::new().await;
        let began = Instant::now();
        day_setup::accounts(&db, s.accounts).await;
        let games = day_setup::games(&db, &s).await;
        let cookies = day_setup::sessions(&db, s.sessions).await;
        sqlx::query("VACUUM ANALYZE").execute(db.store.pool()).await.unwrap();
        let seats: usize = games.iter().map(|g| g.tokens.len()).sum();
        let entries: u64 = games.iter().map(|g| g.live.applied()).sum();
        println!(
            "setup: {} accounts, {} running games of {} kinds ({seats} seats, {} with a 3-day clock whose players are away), {entries} opening moves, in {:.1} s",
            s.accounts,
            games.len(),
            day_setup::KINDS.len(),
            games.iter().filter(|g| g.timed).count(),
            began.elapsed().as_secs_f64()
        );

        let sink = Rc::new(sink_apart());
        let server = Server::start(&db, sink.port(), s.tick).await;
        let inboxes = Rc::new(RefCell::new(Inboxes::new(bot_rng(&Seed::from_number(79)))));
        let night = Instant::now();
        let open = drain(&db, &sink, &inboxes, s.drain_secs).await;
        println!(
            "the night before: the server sent the setup's {} mails in {:.1} s ({open} still open)",
            inboxes.borrow().received.len(),
            night.elapsed().as_secs_f64()
        );

        if std::env::var("POSTPLAY_DAY_SETTLE").is_ok_and(|v| v == "1") {
            let settled = Instant::now();
            for statement in ["VACUUM ANALYZE", "CHECKPOINT"] {
                sqlx::query(statement).execute(db.store.pool()).await.unwrap();
            }
            println!(
                "the database settled after the night (VACUUM ANALYZE, CHECKPOINT) in {:.1} s",
                settled.elapsed().as_secs_f64()
            );
        }
        let day_from: i64 = sqlx::query_scalar("SELECT coalesce(max(id), 0) FROM outbox")
            .fetch_one(db.store.pool())
            .await
            .unwrap();
        let steps = day_steps();
        let step_minutes = number_setting("POSTPLAY_DAY_STEP_MINUTES", 1.0f64).max(0.1);
        let stretch = s.minutes + steps.len() as f64 * step_minutes;
        let due = day_setup::deadlines(&db, &games, stretch).await;
        let since = db_now(&db).await;
        let movable = games.iter().filter(|g| !g.timed).count();
        let ids: Vec<i64> = games.iter().map(|g| g.id).collect();
        let sender = parse_sender(MAIL_FROM).unwrap();
        let inbound = InboundSettings::from_lookup(
            &|key| (key == "POSTPLAY_REPLY_DOMAIN").then(|| REPLY_DOMAIN.to_string()),
            &sender,
        )
        .unwrap();
        let inbox = Inbox::new(db.store.clone_handle(), sender.address.clone(), inbound);
        inbox.resume().await.unwrap();
        let day = Rc::new(Day {
            games: Rc::new(RefCell::new(games)),
            inboxes: inboxes.clone(),
            tally: Rc::new(RefCell::new(Tally::default())),
            // No connection limit: the client must not queue requests itself (awc's default
            // of 100 would, at ten times the rates), or its queue would count as the server's.
            client: awc::Client::builder()
                .connector(awc::Connector::new().limit(0))
                .timeout(CLIENT_TIMEOUT)
                .finish(),
            base: server.base.clone(),
            inbox: Rc::new(inbox),
            store: Rc::new(db.store.clone_handle()),
            cookies,
            in_flight: Rc::new(Cell::new(0)),
        });
        let stepped = staircase(&day, &sink, &s, &steps, step_minutes).await;
        let rss_start = server.rss_kb();
        println!(
            "the day: {:.1} min at {} times the club day's rates; moves {:.0}/s over {movable} games ({:.0} % by reply), pages {:.0}/s, {} deadlines falling due; server RSS at the start {:.1} MB",
            s.minutes,
            s.scale,
            s.moves,
            s.mail_share * 100.0,
            s.pages,
            due.len(),
            rss_start as f64 / 1024.0
        );
        let (start, end) = run_day(&day, &sink, &s).await;
        let rss_end = server.rss_kb();
        let peak = server.peak_kb();
        let seconds = (end - start).as_secs_f64().min(s.minutes * 60.0);
        let day_end = db_now(&db).await;

        // The deadlines due by the day's end are acted on within a tick or so.
        let tick = s.tick.unwrap_or(15);
        let wait = Instant::now() + Duration::from_secs(tick + 30);
        let clock = loop {
            let clock = day_checks::timeouts(&db, &due, since, day_end).await;
            if clock.not_applied.is_empty() || Instant::now() >= wait {
                break clock;
            }
            actix_web::rt::time::sleep(Duration::from_millis(500)).await;
        };
        let still_open = drain(&db, &sink, &inboxes, s.drain_secs).await;
        let log = server.log.clone();
        let exit = server.stop().await;

        let mut tally = std::mem::take(&mut *day.tally.borrow_mut());
        report(&mut tally, seconds);
        tally.acked.extend(stepped);

        let inboxes = inboxes.replace(Inboxes::new(bot_rng(&Seed::from_number(0))));
        let mail = day_checks::mail(&db, &inboxes, day_from, REPLY_DOMAIN).await;
        println!(
            "outbox lag (row written to mail at the SMTP sink), {} of the day's mails: p50 {:.2} s, p99 {:.2} s, max {:.2} s; the day's rows by status: {:?}; {still_open} still open after {} s",
            mail.lag.len(),
            quantile(&mail.lag, 0.5),
            quantile(&mail.lag, 0.99),
            mail.lag.last().copied().unwrap_or_default(),
            mail.by_status,
            s.drain_secs
        );
        println!(
            "timeouts: {} deadlines fell due; the clock acted on {} of them, late p50 {:.1} s, p99 {:.1} s, max {:.1} s; {} due by the day's end not acted on, {} due after it; {} clock entries in all",
            due.len(),
            clock.late.len(),
            quantile(&clock.late, 0.5),
            quantile(&clock.late, 0.99),
            clock.late.last().copied().unwrap_or_default(),
            clock.not_applied.len(),
            clock.due_late,
            clock.entries
        );
        let late_max = clock.late.last().copied().unwrap_or_default();
        println!(
            "the clock: at most {:.2} ticks late ({late_max:.1} s of a {tick} s tick; goal at ten times the rates: within two ticks)",
            late_max / tick as f64
        );
        println!(
            "server memory (VmRSS): {:.1} MB at the start, {:.1} MB at the end ({:+.1} MB); peak {:.1} MB (goal at ten times the rates: under 150 MB)",
            rss_start as f64 / 1024.0,
            rss_end as f64 / 1024.0,
            (rss_end as f64 - rss_start as f64) / 1024.0,
            peak as f64 / 1024.0
        );

        let (verified, bad_records) = day_checks::records(&db, &ids).await;
        println!("records: {verified} of {} verify", ids.len());
        let lost = day_checks::missing(&db, &tally.acked).await;
        println!(
            "acknowledged moves: {}; missing from the log: {}",
            tally.acked.len(),
            lost.len()
        );
        println!(
            "mail: {} messages at the sink; sent twice: {}; marked sent but never arrived: {}; without a row: {}; without a Message-ID: {}",
            inboxes.received.len(),
            mail.duplicated.len(),
            mail.never_arrived.len(),
            mail.unknown,
            inboxes.without_id
        );
        let (problems, first) = server_log(&log);
        println!("server: exit {exit}; {problems} warnings or errors in its log");
        for line in first {
            println!("  {line}");
        }

        let mut defects = Vec::new();
        defects.extend(bad_records.iter().take(5).cloned());
        defects.extend(lost.iter().take(5).map(|l| format!("acknowledged move lost: {l:?}")));
        defects.extend(mail.duplicated.iter().take(5).map(|d| format!("mail sent twice: {d}")));
        defects.extend(mail.never_arrived.iter().take(5).cloned());
        defects.extend(clock.not_applied.iter().take(5).map(|t| format!("timeout never applied: {t}")));
        for defect in &defects {
            println!("DEFECT: {defect}");
        }
        if std::env::var("POSTPLAY_DAY_KEEP").is_ok_and(|v| v == "1") {
            println!("database kept: {}", db.name);
        } else {
            db.drop().await;
        }
        assert!(defects.is_empty(), "the club day found defects (above)");
    });
}

/// The SMTP sink on a thread of its own (its own runtime), so that taking the server's mail
/// does not make the bench's requests late.
fn sink_apart() -> SmtpSink {
    let (started, sink) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        day_load::bench_priority();
        actix_web::rt::System::new().block_on(async move {
            started.send(SmtpSink::start().await.unwrap()).unwrap();
            std::future::pending::<()>().await
        })
    });
    sink.recv().expect("the SMTP sink starts")
}

/// The warnings and errors in the server's log: (count, the first few).
fn server_log(path: &std::path::Path) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect();
    (
        lines.len(),
        lines.iter().take(5).map(|l| l.to_string()).collect(),
    )
}
