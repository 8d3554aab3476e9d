//! The limits of inbound mail, across processes (issue 30): reply limits counted in
//! PostgreSQL (the real `postplay receive`, one process per message), reply addresses that end
//! a week after their game and are pruned, stored mail for no reply address capped by count
//! and bytes, and the LMTP listener's bounds on sessions, over real TCP.

use crate::common;

use common::mime::header;
use common::replyrig::{
    Rig, deliver, email, eventually, listed, receive_by_pipe, reply, reply_address, text,
};
use postplay::clock::Scheduler;
use postplay::notices::EmailAddress;
use postplay::replies::Inbox;
use postplay::replies::lmtp::Limits;
use postplay::replies::{InboundSettings, Outcome};
use postplay::store::CancelReason;
use postplay::time::ManualClock;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// Answers queued for a game's seats (one per reply answered).
async fn answers(rig: &Rig, game: i64) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbox WHERE game_id = $1 AND kind = 'answer'")
        .bind(game)
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap()
}

/// The reply address of the mail asking `game`'s first seat to move, and that seat.
async fn first_address(rig: &Rig, game: i64) -> (usize, String) {
    let first = rig.db.store.load(game).await.unwrap().game.active()[0];
    let mails = rig.mails_to(first).await;
    let ask = mails
        .iter()
        .rev()
        .find(|m| {
            header(&m.data, "Reply-To").is_some()
                && header(&m.data, "Subject").is_some_and(|s| s.contains(&format!("#{game}:")))
        })
        .expect("a mail to answer");
    (first, reply_address(ask))
}

#[actix_web::test]
async fn reply_limits_hold_across_receive_processes() {
    let rig = Rig::new().await;
    let game = rig.game("whitehouse", json!({}), 4, 31).await;
    let (first, to) = first_address(&rig, game).await;
    let limit = [("POSTPLAY_LIMIT_REPLIES_PER_HOUR", "3")];

    // An auto-responder that does not mark itself: each reply a process of its own.
    let mut printed = Vec::new();
    for n in 0..7 {
        let raw = reply(
            &format!("<loop{n}@example.org>"),
            &email(first),
            &to,
            "fold",
        );
        printed.push(receive_by_pipe(&rig, &to, raw.as_bytes(), &limit));
    }
    let refused = printed.iter().filter(|p| p.starts_with("Refused(")).count();
    let held = printed.iter().filter(|p| p.starts_with("Held(")).count();
    assert_eq!((refused, held), (3, 4), "{printed:#?}");
    assert_eq!(
        answers(&rig, game).await,
        4,
        "the limit is answered now, and the seat told once of the rest"
    );
    assert_eq!(rig.db.store.load(game).await.unwrap().row.head_seq, 0);
    let counted: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM inbound_mail WHERE game_id = $1 AND counted_at <= now()",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap();
    assert_eq!(counted, 3, "the held ones count only from their time on");

    // One sender writing to the seats of two other games: two replies each stay under each
    // seat's limit; the sender's own limit holds across them.
    let games = [
        rig.game("whitehouse", json!({}), 4, 32).await,
        rig.game("whitehouse", json!({}), 4, 36).await,
    ];
    let mut addresses = Vec::new();
    for g in games {
        addresses.push(first_address(&rig, g).await.1);
    }
    assert_ne!(addresses[0], addresses[1]);
    let mut printed = Vec::new();
    for n in 0..4 {
        let address = &addresses[n % 2];
        let raw = reply(
            &format!("<forger{n}@example.org>"),
            "Mallory@Example.net",
            address,
            "1",
        );
        printed.push(receive_by_pipe(&rig, address, raw.as_bytes(), &limit));
    }
    let refused = printed
        .iter()
        .filter(|p| p.contains("another address"))
        .count();
    assert_eq!(refused, 3, "{printed:#?}");
    assert!(printed[3].starts_with("Held("), "{printed:#?}");
    assert_eq!(
        answers(&rig, games[0]).await + answers(&rig, games[1]).await,
        4
    );
    rig.stop().await;
}

#[actix_web::test]
async fn a_reply_address_ends_a_week_after_its_game_and_is_pruned() {
    let mut rig = Rig::new().await;
    let game = rig.game("whitehouse", json!({}), 4, 33).await;
    let running = rig.game("whitehouse", json!({}), 4, 34).await;
    let (first, to) = first_address(&rig, game).await;
    let me = email(first);
    rig.db
        .store
        .cancel(game, &CancelReason::parse("we stop here").unwrap())
        .await
        .unwrap();

    // Within the week: whatever the line, the answer is that the game is over.
    for line in ["1", "xyzzy"] {
        let id = rig.message_id();
        let outcome = rig
            .inbox
            .receive(reply(&id, &me, &to, line).as_bytes(), &[])
            .await
            .unwrap();
        assert_eq!(
            outcome,
            Outcome::Refused("the game is over".into()),
            "{line}"
        );
    }
    assert_eq!(answers(&rig, game).await, 2);

    // Six days after the end the address still leads to the seat.
    let pool = rig.db.store.pool().clone();
    let ended_ago = async |days: i32| {
        sqlx::query(
            "UPDATE games SET updated_at = now() - make_interval(days => $2) WHERE id = $1",
        )
        .bind(game)
        .bind(days)
        .execute(&pool)
        .await
        .unwrap();
    };
    ended_ago(6).await;
    let id = rig.message_id();
    let outcome = rig
        .inbox
        .receive(reply(&id, &me, &to, "1").as_bytes(), &[])
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Refused("the game is over".into()));
    let scheduler = Scheduler::new(Arc::new(rig.db.store.clone_handle()));
    scheduler.tick().await.unwrap();
    let addresses = async |g: i64| -> i64 {
        sqlx::query_scalar("SELECT count(*) FROM reply_addresses WHERE game_id = $1")
            .bind(g)
            .fetch_one(&pool)
            .await
            .unwrap()
    };
    let before = addresses(game).await;
    assert!(before > 0, "kept within the week");

    // Eight days after: the address leads nowhere, nothing is answered, and the clock's
    // scheduler (as in `serve` and `worker`) deletes it; a running game's stay.
    ended_ago(8).await;
    let answered = answers(&rig, game).await;
    let id = rig.message_id();
    let outcome = rig
        .inbox
        .receive(reply(&id, &me, &to, "1").as_bytes(), &[])
        .await
        .unwrap();
    assert_eq!(
        outcome,
        Outcome::Ignored("not addressed to a reply address of ours")
    );
    assert_eq!(answers(&rig, game).await, answered);
    let running_before = addresses(running).await;
    assert!(running_before > 0);
    let tick = scheduler.tick().await.unwrap();
    assert_eq!(tick.mail_pruned as i64, before, "{tick:?}");
    assert_eq!(addresses(game).await, 0);
    assert_eq!(addresses(running).await, running_before);
    rig.stop().await;
}

/// Stored mail for no seat: how many messages, how many bytes kept, and their Message-IDs.
async fn unknown_stored(rig: &Rig) -> (i64, i64, Vec<String>) {
    let rows: Vec<(String, i32)> = sqlx::query_as(
        "SELECT message_key, octet_length(raw) FROM inbound_mail WHERE game_id IS NULL ORDER BY id",
    )
    .fetch_all(rig.db.store.pool())
    .await
    .unwrap();
    let bytes = rows.iter().map(|r| i64::from(r.1)).sum();
    (
        rows.len() as i64,
        bytes,
        rows.into_iter().map(|r| r.0).collect(),
    )
}

#[actix_web::test]
async fn mail_for_no_reply_address_is_capped_by_count_and_bytes() {
    let rig = Rig::start(InboundSettings {
        reply_domain: Some("pp.example".into()),
        max_bytes: 256 * 1024,
        per_hour: 100_000,
        unknown_rows: 10,
        unknown_bytes: 40 * 1024,
    })
    .await;
    let game = rig.game("whitehouse", json!({}), 4, 35).await;
    let (first, to) = first_address(&rig, game).await;
    let kept = reply("<kept@example.org>", &email(first), &to, "fold");
    assert!(matches!(
        rig.inbox.receive(kept.as_bytes(), &[]).await.unwrap(),
        Outcome::Refused(_)
    ));

    // Small messages: the count is the bound; the newest are kept.
    for n in 0..30 {
        let raw = reply(
            &format!("<small{n}@example.org>"),
            "stranger@example.net",
            &format!("nobody{n}@pp.example"),
            "hello",
        );
        let status = rig
            .deliver(
                true,
                "stranger@example.net",
                &format!("nobody{n}@pp.example"),
                &raw,
            )
            .await;
        assert!(status.starts_with("250"), "{status}");
    }
    let (rows, _, keys) = unknown_stored(&rig).await;
    assert_eq!(rows, 10, "{keys:?}");
    let newest: Vec<String> = (20..30)
        .map(|n| format!("mid:small{n}@example.org"))
        .collect();
    assert_eq!(keys, newest);

    // Large messages from many senders: the bytes are the bound.
    for n in 0..30 {
        let raw = reply(
            &format!("<large{n}@example.org>"),
            &format!("stranger{n}@example.net"),
            "play+0000000000000000000000000000000000000000@pp.example",
            &"x".repeat(100 * 1024),
        );
        rig.inbox.receive(raw.as_bytes(), &[]).await.unwrap();
    }
    let (rows, bytes, keys) = unknown_stored(&rig).await;
    assert!(bytes <= 40 * 1024, "{bytes} bytes kept");
    assert!((4..=5).contains(&rows), "{rows} rows: {keys:?}");
    assert_eq!(keys.last().unwrap(), "mid:large29@example.org");
    let bound: i64 = sqlx::query_scalar("SELECT count(*) FROM inbound_mail WHERE game_id = $1")
        .bind(game)
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap();
    assert_eq!(bound, 1, "a reply to a seat is no part of the cap");

    // A week later the scheduler prunes what is left.
    sqlx::query(
        "UPDATE inbound_mail SET received_at = now() - interval '8 days' WHERE game_id IS NULL",
    )
    .execute(rig.db.store.pool())
    .await
    .unwrap();
    let scheduler = Scheduler::new(Arc::new(rig.db.store.clone_handle()));
    let tick = scheduler.tick().await.unwrap();
    assert_eq!(tick.mail_pruned as i64, rows);
    assert_eq!(unknown_stored(&rig).await.0, 0);
    rig.stop().await;
}

/// One raw LMTP session.
struct Session {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Session {
    /// Connects and says LHLO; `None` if no greeting came within `within`.
    async fn open(port: u16, within: Duration) -> Option<Session> {
        let stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let (read, write) = stream.into_split();
        let mut session = Session {
            lines: BufReader::new(read).lines(),
            write,
        };
        let greeting = tokio::time::timeout(within, session.answer()).await.ok()?;
        assert!(greeting.starts_with("220"), "{greeting}");
        let hello = session.say("LHLO test").await;
        assert!(hello.starts_with("250"), "{hello}");
        Some(session)
    }

    /// The next answer's last line ("" once the server closed the session).
    async fn answer(&mut self) -> String {
        loop {
            match self.lines.next_line().await {
                Ok(Some(line)) if line.as_bytes().get(3) == Some(&b'-') => continue,
                Ok(Some(line)) => return line,
                _ => return String::new(),
            }
        }
    }

    /// Sends a command; its answer.
    async fn say(&mut self, command: &str) -> String {
        if self
            .write
            .write_all(format!("{command}\r\n").as_bytes())
            .await
            .is_err()
        {
            return String::new();
        }
        self.answer().await
    }

    /// The answer the server volunteers within `within` ("" when it closed without one).
    async fn told(&mut self, within: Duration) -> Option<String> {
        tokio::time::timeout(within, self.answer()).await.ok()
    }
}

#[actix_web::test]
async fn a_noop_loop_is_cut_off_and_a_message_resets_the_count() {
    let rig = Rig::new().await;
    let mut session = Session::open(rig.port, Duration::from_secs(10))
        .await
        .unwrap();
    let mut answered = Vec::new();
    for _ in 0..30 {
        let answer = session.say("NOOP").await;
        let closed = !answer.starts_with("250");
        answered.push(answer);
        if closed {
            break;
        }
    }
    // LHLO and 19 NOOPs answered; the 21st command closes the session.
    assert_eq!(answered.len(), 20, "{answered:?}");
    assert!(
        answered[19].starts_with("421 4.7.0"),
        "{:?}",
        answered.last()
    );
    assert_eq!(
        session.told(Duration::from_secs(10)).await.as_deref(),
        Some("")
    );

    // A relay that delivers in between goes on.
    let mut session = Session::open(rig.port, Duration::from_secs(10))
        .await
        .unwrap();
    for round in 0..3 {
        for _ in 0..15 {
            assert!(
                session.say("NOOP").await.starts_with("250"),
                "round {round}"
            );
        }
        for command in [
            "MAIL FROM:<stranger@example.net>".to_string(),
            format!("RCPT TO:<nobody{round}@pp.example>"),
        ] {
            assert!(session.say(&command).await.starts_with("250"), "{command}");
        }
        assert!(session.say("DATA").await.starts_with("354"));
        let done = session
            .say(&format!(
                "Message-ID: <r{round}@example.net>\r\n\r\nhi\r\n."
            ))
            .await;
        assert!(done.starts_with("250"), "{done}");
    }
    assert!(session.say("QUIT").await.starts_with("221"));
    rig.stop().await;
}

#[actix_web::test]
async fn a_session_past_its_lifetime_is_closed() {
    let rig = Rig::start_with(
        InboundSettings {
            reply_domain: Some("pp.example".into()),
            ..InboundSettings::default()
        },
        Limits {
            lifetime: Duration::from_secs(2),
            ..Limits::default()
        },
    )
    .await;
    let mut session = Session::open(rig.port, Duration::from_secs(10))
        .await
        .unwrap();
    // A NOOP every 300 ms, well under the idle time and the command limit.
    let started = std::time::Instant::now();
    let mut every = tokio::time::interval(Duration::from_millis(300));
    let mut last = String::new();
    while started.elapsed() < Duration::from_secs(15) {
        every.tick().await;
        last = session.say("NOOP").await;
        if !last.starts_with("250") {
            break;
        }
    }
    assert!(last.starts_with("421 4.4.2"), "{last:?}");
    let lasted = started.elapsed();
    assert!(
        lasted >= Duration::from_millis(1500) && lasted < Duration::from_secs(6),
        "closed after {lasted:?}"
    );
    rig.stop().await;
}

#[actix_web::test]
async fn with_every_slot_held_by_idle_sessions_a_new_one_is_served() {
    let rig = Rig::new().await;
    let slots = Limits::default().sessions;
    let mut idle = Vec::new();
    for _ in 0..slots {
        idle.push(
            Session::open(rig.port, Duration::from_secs(10))
                .await
                .expect("a free slot"),
        );
    }
    let status = tokio::time::timeout(
        Duration::from_secs(10),
        deliver(
            rig.port,
            true,
            "relay@example.net",
            "nobody@pp.example",
            "Message-ID: <new@example.net>\r\n\r\nhi\r\n",
        ),
    )
    .await
    .expect("a new session is served while every slot is held");
    assert!(status.starts_with("250"), "{status}");
    // The session idle the longest (the oldest, waiting since its LHLO) was closed.
    let told = idle[0].told(Duration::from_secs(10)).await;
    assert!(
        told.as_deref().is_some_and(|t| t.starts_with("421 4.3.2")),
        "{told:?}"
    );
    // The others are still served.
    for session in idle.iter_mut().skip(1) {
        assert!(session.say("NOOP").await.starts_with("250"));
    }
    let stored = eventually(10, async || {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM inbound_mail WHERE message_key = 'mid:new@example.net'",
        )
        .fetch_one(rig.db.store.pool())
        .await
        .unwrap();
        n == 1
    })
    .await;
    assert!(stored, "the new session's message stored");
    rig.stop().await;
}

#[actix_web::test]
async fn a_reply_over_the_hourly_bound_is_held_told_once_and_played_when_due() {
    let rig = Rig::new().await;
    let game = rig.game("whitehouse", json!({}), 4, 41).await;
    let (first, to) = first_address(&rig, game).await;
    let me = email(first);
    let ask = text(&rig.latest_ask(first).await);
    let plain = listed(&ask)
        .into_iter()
        .find(|c| c.params.is_empty())
        .expect("a choice that needs only its number");

    // The real `postplay receive`, one process a message, with its default bound of 60 a seat.
    for n in 0..60 {
        let raw = reply(&format!("<flood{n}@example.org>"), &me, &to, "xyzzy");
        let printed = receive_by_pipe(&rig, &to, raw.as_bytes(), &[]);
        assert!(printed.starts_with("Refused("), "{n}: {printed}");
    }
    let over = [(60, plain.number.to_string()), (61, "xyzzy".to_string())];
    for (n, line) in &over {
        let raw = reply(&format!("<flood{n}@example.org>"), &me, &to, line);
        let printed = receive_by_pipe(&rig, &to, raw.as_bytes(), &[]);
        assert!(printed.starts_with("Held("), "{n}: {printed}");
    }
    let held: Vec<(i64, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
        "SELECT id, counted_at FROM inbound_mail WHERE game_id = $1 AND status = 'held' ORDER BY id",
    )
    .bind(game)
    .fetch_all(rig.db.store.pool())
    .await
    .unwrap();
    assert_eq!(held.len(), 2);
    assert!(held[0].1 < held[1].1, "{held:?}");
    assert_eq!(rig.db.store.load(game).await.unwrap().row.head_seq, 0);

    // Told once, with the time.
    let told: Vec<String> = rig
        .mails_to(first)
        .await
        .iter()
        .filter(|m| header(&m.data, "Subject").is_some_and(|s| s.contains("played later")))
        .map(text)
        .collect();
    assert_eq!(told.len(), 1, "{told:#?}");
    let at = held[0].1.format("%H:%M UTC on %A %-d %B %Y").to_string();
    assert!(
        told[0].contains("you have sent 60 replies for this seat this hour")
            && told[0].contains(&format!("will be played at {at}")),
        "{}",
        told[0]
    );

    // The clock's scheduler plays each when its time comes, in order, as a live reply.
    let clock = ManualClock::at(held[0].1 - chrono::Duration::minutes(1));
    let store = Arc::new(postplay::startup::store_on(
        rig.db.store.pool().clone(),
        Arc::new(clock.clone()),
    ));
    let inbox = Inbox::new(
        store.clone_handle(),
        EmailAddress::parse("games@pp.example").unwrap(),
        InboundSettings::default(),
    );
    let scheduler = Scheduler::new(store.clone()).with_replies(Arc::new(inbox));
    assert_eq!(scheduler.tick().await.unwrap().replies_played, 0);
    clock.set(held[0].1);
    assert_eq!(scheduler.tick().await.unwrap().replies_played, 1);
    assert_eq!(rig.db.store.load(game).await.unwrap().row.head_seq, 1);
    clock.set(held[1].1);
    assert_eq!(scheduler.tick().await.unwrap().replies_played, 1);
    let outcomes: Vec<String> =
        sqlx::query_scalar("SELECT status FROM inbound_mail WHERE id = ANY($1) ORDER BY id")
            .bind(held.iter().map(|h| h.0).collect::<Vec<_>>())
            .fetch_all(rig.db.store.pool())
            .await
            .unwrap();
    assert_eq!(outcomes, ["done", "refused"]);
    let answered: Vec<String> = rig
        .mails_to(first)
        .await
        .iter()
        .filter_map(|m| header(&m.data, "Subject"))
        .filter(|s| s.starts_with("Re:"))
        .collect();
    let last: Vec<&str> = answered[answered.len() - 2..]
        .iter()
        .map(|s| s.rsplit(": ").next().unwrap_or_default())
        .collect();
    assert_eq!(last, ["done", "not played"], "{answered:#?}");
    rig.stop().await;
}
