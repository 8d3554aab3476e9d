//! Messages through lettre's real SMTP transport to a real SMTP server over TCP: recipients,
//! subject, threading and unsubscribe headers, the text part, header-injection safety,
//! permanent and temporary failures; and the dev mailbox.

use crate::common;

use common::mime::{header, headers, part};
use postplay::notices::mail::sink::SmtpSink;
use postplay::notices::mail::transport::Security;
use postplay::notices::notice::{GameRef, Invite, Notice, Player, Turn};
use postplay::notices::{
    DevMailbox, EmailAddress, Envelope, MailContext, Sender, SmtpConfig, Transport, compose, render,
};
use std::time::Duration;

fn sender() -> Sender {
    Sender {
        name: "postplay".into(),
        address: EmailAddress::parse("games@pp.example").unwrap(),
    }
}

fn ctx() -> MailContext {
    MailContext {
        base_url: "http://127.0.0.1:8080".into(),
        reply_domain: None,
    }
}

fn smtp(sink: &SmtpSink) -> Transport {
    Transport::smtp(&SmtpConfig {
        host: "127.0.0.1".into(),
        port: sink.port(),
        security: Security::None,
        credentials: None,
        timeout: Duration::from_secs(5),
    })
    .unwrap()
}

fn turn(name: &str, game_name: &str) -> Turn {
    Turn {
        answered: Vec::new(),
        game: GameRef {
            home: None,
            id: 42,
            name: game_name.into(),
        },
        you: Player {
            name: name.into(),
            seat: "East".into(),
        },
        lines: vec!["Bo leads the 7 of hearts".into(), "Cy plays the ace".into()],
        choices: vec!["Play the 9 of hearts".into()],
        deadline: None,
        token: "t0k3n".into(),
        ask: Default::default(),
        messages: Vec::new(),
    }
}

fn envelope(to: &str, name: &str, key: &str, thread: bool) -> Envelope {
    let s = sender();
    Envelope {
        to: EmailAddress::parse(to).unwrap(),
        to_name: name.into(),
        message_id: s.message_id(key),
        thread: thread.then(|| s.message_id("g42.invite.s1")),
    }
}

#[tokio::test]
async fn a_turn_notice_arrives_whole_over_smtp() {
    let sink = SmtpSink::start().await.unwrap();
    let notice = Notice::Turn(turn("Dee", "Whitehouse"));
    let rendered = render(&notice, &ctx()).unwrap();
    let message = compose(
        &sender(),
        &envelope("dee@example.org", "Dee", "g42.turn.s1.q17", true),
        &rendered,
    )
    .unwrap();
    smtp(&sink).send(&message, &rendered).await.unwrap();
    assert!(sink.wait_for(1, Duration::from_secs(5)).await);
    let got = &sink.received()[0];
    assert_eq!(got.from, "games@pp.example");
    assert_eq!(got.to, vec!["dee@example.org".to_string()]);
    let data = &got.data;
    assert_eq!(
        header(data, "Subject").unwrap(),
        "Whitehouse #42: your turn"
    );
    assert_eq!(header(data, "To").unwrap(), "Dee <dee@example.org>");
    assert_eq!(
        header(data, "Message-ID").unwrap(),
        "<g42.turn.s1.q17@pp.example>"
    );
    assert_eq!(
        header(data, "In-Reply-To").unwrap(),
        "<g42.invite.s1@pp.example>"
    );
    assert_eq!(
        header(data, "References").unwrap(),
        "<g42.invite.s1@pp.example>"
    );
    assert_eq!(
        header(data, "List-Unsubscribe").unwrap(),
        "<http://127.0.0.1:8080/mail/unsubscribe/t0k3n>"
    );
    assert_eq!(
        header(data, "List-Unsubscribe-Post").unwrap(),
        "List-Unsubscribe=One-Click"
    );
    assert!(
        header(data, "Content-Type")
            .unwrap()
            .starts_with("multipart/alternative")
    );
    let text = part(data, "text/plain").expect("a text part");
    assert!(
        text.contains("  Bo leads the 7 of hearts\n  Cy plays the ace\n"),
        "{text}"
    );
    assert!(text.contains("- Play the 9 of hearts"));
    assert!(text.contains("http://127.0.0.1:8080/play/t0k3n"));
    let html = part(data, "text/html").expect("an html part");
    assert!(html.contains("<li>Cy plays the ace</li>"), "{html}");
}

#[tokio::test]
async fn names_and_subjects_cannot_inject_headers() {
    let sink = SmtpSink::start().await.unwrap();
    let evil_name = "Eve\r\nBcc: victim@evil.example\r\nX-Injected: yes";
    let evil_game = "Whitehouse\r\nX-Injected: subject\nBcc: other@evil.example";
    let notice = Notice::Turn(turn(evil_name, evil_game));
    let rendered = render(&notice, &ctx()).unwrap();
    let message = compose(
        &sender(),
        &envelope(
            "eve@example.org",
            evil_name,
            "g42.turn.s1.q3\r\nX-Injected: id",
            true,
        ),
        &rendered,
    )
    .unwrap();
    smtp(&sink).send(&message, &rendered).await.unwrap();
    assert!(sink.wait_for(1, Duration::from_secs(5)).await);
    let got = &sink.received()[0];
    assert_eq!(
        got.to,
        vec!["eve@example.org".to_string()],
        "no extra recipient"
    );
    let names: Vec<String> = headers(&got.data)
        .into_iter()
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    assert!(!names.contains(&"bcc".to_string()), "{names:?}");
    assert!(!names.contains(&"x-injected".to_string()), "{names:?}");
    for once in ["to", "subject", "message-id", "from"] {
        assert_eq!(names.iter().filter(|n| *n == once).count(), 1, "{once}");
    }
    // The words survive on one line (lettre may encode them as RFC 2047 words).
    let subject = header(&got.data, "Subject").unwrap();
    assert!(!subject.contains('\r') && !subject.contains('\n'));
    // The message id keeps only safe characters.
    assert_eq!(
        header(&got.data, "Message-ID").unwrap(),
        "<g42.turn.s1.q3X-Injectedid@pp.example>"
    );
}

#[tokio::test]
async fn a_refused_recipient_is_a_permanent_failure_and_a_dead_server_a_temporary_one() {
    let mut sink = SmtpSink::start().await.unwrap();
    sink.refuse("gone@example.org");
    let notice = Notice::Turn(turn("Gone", "Whitehouse"));
    let rendered = render(&notice, &ctx()).unwrap();
    let message = compose(
        &sender(),
        &envelope("gone@example.org", "Gone", "g42.turn.s2.q1", true),
        &rendered,
    )
    .unwrap();
    let transport = smtp(&sink);
    let err = transport.send(&message, &rendered).await.unwrap_err();
    assert!(err.permanent, "{err}");
    assert!(err.message.contains("550"), "{err}");
    assert!(err.message.contains("no such mailbox"), "{err}");

    sink.stop();
    let fresh = smtp(&sink);
    let message = compose(
        &sender(),
        &envelope("dee@example.org", "Dee", "g42.turn.s1.q1", true),
        &rendered,
    )
    .unwrap();
    let err = fresh.send(&message, &rendered).await.unwrap_err();
    assert!(!err.permanent, "{err}");
    sink.restart().await.unwrap();
    fresh.send(&message, &rendered).await.unwrap();
    assert!(sink.wait_for(1, Duration::from_secs(5)).await);
    assert_eq!(sink.received().len(), 1);
}

#[tokio::test]
async fn the_dev_mailbox_keeps_each_message_once_with_its_links() {
    let dir = common::scratch::Scratch::new("mailbox");
    let mailbox = DevMailbox::new(dir.to_path_buf());
    let transport = Transport::Mailbox(mailbox.clone());
    let invite = Notice::Invite(Invite {
        game: GameRef {
            home: None,
            id: 5,
            name: "Statehood".into(),
        },
        you: Player {
            name: "Ann".into(),
            seat: "Player 1".into(),
        },
        others: vec![Player {
            name: "Bo".into(),
            seat: "Player 2".into(),
        }],
        time_control: Some("3 days per move".into()),
        choices: vec!["Draw".into()],
        token: "abc".into(),
        ask: Default::default(),
        commitment: "c0ffee".repeat(10),
        table: Vec::new(),
        options: Vec::new(),
        game_kind: "statehood".into(),
        at_move: 0,
    });
    let rendered = render(&invite, &ctx()).unwrap();
    let message = compose(
        &sender(),
        &envelope("ann@example.org", "Ann", "g5.invite.s0", false),
        &rendered,
    )
    .unwrap();
    transport.send(&message, &rendered).await.unwrap();
    transport.send(&message, &rendered).await.unwrap();
    let entries = mailbox.list().unwrap();
    assert_eq!(
        entries.len(),
        1,
        "a retry of the same message is stored once"
    );
    let entry = &entries[0];
    assert_eq!(entry.subject, "Statehood #5: you are invited");
    assert_eq!(entry.message_id, "<g5.invite.s0@pp.example>");
    assert!(entry.to.contains("ann@example.org"));
    assert_eq!(
        entry.links,
        vec![
            "http://127.0.0.1:8080/rules/statehood".to_string(),
            "http://127.0.0.1:8080/play/abc".to_string(),
            "http://127.0.0.1:8080/mail/unsubscribe/abc".to_string()
        ]
    );
    assert!(entry.text.contains("- Bo (Player 2)"));
    assert!(entry.text.contains("Time control: 3 days per move"));
    assert!(entry.text.contains(&"c0ffee".repeat(10)), "{}", entry.text);
    let raw = String::from_utf8(mailbox.raw(&entry.key).unwrap().unwrap()).unwrap();
    assert_eq!(
        header(&raw, "Subject").unwrap(),
        "Statehood #5: you are invited"
    );
    assert!(mailbox.raw("../etc/passwd").unwrap().is_none());
}
