//! Sign-in by mailed link over real HTTP (issue 17): the link works once, for 15 minutes, for
//! its own address; both rate limits; a new session at sign-in; signing out everywhere.

use crate::common;

use common::visitor::Visitor;
use common::{TestDb, mailrig, spawn_app};
use postplay::notices::mail::sink::SmtpSink;

/// The newest sign-in token queued for an address (read from the outbox row, as the worker
/// would mail it).
async fn link_for(db: &TestDb, email: &str) -> String {
    sqlx::query_scalar(
        "SELECT payload->>'token' FROM outbox WHERE kind = 'signin' AND recipient = $1 \
         ORDER BY id DESC LIMIT 1",
    )
    .bind(email)
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

async fn signin_mails(db: &TestDb) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM outbox WHERE kind = 'signin'")
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

/// Asks for a link for `email` and uses it: the answer to the confirming POST.
async fn sign_in(v: &Visitor, db: &TestDb, email: &str) -> common::visitor::Answer {
    let asked = v.post_from("/signin", "/signin", &[("email", email)]).await;
    assert_eq!(asked.status, 200, "{}", asked.body);
    let token = link_for(db, email).await;
    v.post_from(
        &format!("/signin/{token}"),
        &format!("/signin/{token}"),
        &[],
    )
    .await
}

#[actix_web::test]
async fn a_mailed_link_signs_in_once_and_only_its_own_address() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    let worker = mailrig::spawn_worker(&db, &base, sink.port(), mailrig::quick());
    let ann = Visitor::new(&base);

    // The same answer for an address with an account and one without.
    let unknown = ann
        .post_from("/signin", "/signin", &[("email", "nobody@example.org")])
        .await;
    common::create_game_for(&db, "statehood", &["Ann", "Bo"], true, 3).await;
    db.store
        .account_for_email(
            &postplay::store::EmailAddress::parse("bo@example.org").unwrap(),
            &postplay::store::PlayerName::parse("Bo").unwrap(),
        )
        .await
        .unwrap();
    let known = ann
        .post_from("/signin", "/signin", &[("email", "bo@example.org")])
        .await;
    assert_eq!((unknown.status, known.status), (200, 200));
    assert_eq!(
        unknown.body.replace("nobody@example.org", "X"),
        known.body.replace("bo@example.org", "X"),
        "no account enumeration"
    );

    // The real mail carries the link; opening it signs nobody in.
    let asked = ann
        .post_from(
            "/signin?next=%2Fme%2Fsettings",
            "/signin",
            &[("email", "Ann@Example.org"), ("next", "/me/settings")],
        )
        .await;
    assert_eq!(asked.status, 200);
    // Two invitations to the game, then three sign-in links.
    let mails = mailrig::expect_mail(&sink, 5, 20).await;
    let mail = mails
        .iter()
        .find(|m| m.to == vec!["Ann@Example.org".to_string()])
        .expect("a mail to Ann");
    assert!(
        mail.data
            .contains("Subject: Your sign-in link for postplay")
    );
    let token = mail
        .data
        .split_whitespace()
        .find_map(|w| w.split("/signin/").nth(1))
        .map(|t| t.chars().take(40).collect::<String>())
        .expect("the mail holds the link");
    let shown = ann.get(&format!("/signin/{token}")).await;
    assert_eq!(shown.status, 200);
    assert!(shown.body.contains("Sign in as Ann@Example.org"));
    assert!(
        shown.body.contains("value=\"Ann\""),
        "a new account is offered the seat's name"
    );
    assert!(ann.cookie("pp_session").is_none(), "a GET signs nobody in");
    assert_eq!(ann.get("/me").await.status, 303);

    let used = ann
        .post_from(
            &format!("/signin/{token}"),
            &format!("/signin/{token}"),
            &[("name", "Ann Lee")],
        )
        .await;
    assert_eq!(used.status, 303, "{}", used.body);
    assert_eq!(used.location.as_deref(), Some("/me/settings"), "next kept");
    let me = ann.get("/me").await;
    assert_eq!(me.status, 200);
    assert!(me.body.contains("Ann Lee") && me.body.contains("Ann@Example.org"));
    assert!(
        !me.body.contains("bo@example.org"),
        "the link signed in its own address"
    );

    // Used: refused, and nothing changes for a second browser.
    let other = Visitor::new(&base);
    assert_eq!(other.get(&format!("/signin/{token}")).await.status, 410);
    let again = other
        .post_from("/signin", &format!("/signin/{token}"), &[])
        .await;
    assert_eq!(again.status, 410);
    assert!(other.cookie("pp_session").is_none());
    assert_eq!(
        other
            .post_from("/signin", &format!("/signin/{}", "0".repeat(40)), &[])
            .await
            .status,
        404
    );

    // Expired: refused, and still unused.
    let late = Visitor::new(&base);
    late.post_from("/signin", "/signin", &[("email", "cy@example.org")])
        .await;
    let token = link_for(&db, "cy@example.org").await;
    sqlx::query(
        "UPDATE sign_in_links SET expires_at = now() - interval '1 second' WHERE token_hash = $1",
    )
    .bind(postplay::store::token_hash(&token))
    .execute(db.store.pool())
    .await
    .unwrap();
    assert_eq!(late.get(&format!("/signin/{token}")).await.status, 410);
    let refused = late
        .post_from("/signin", &format!("/signin/{token}"), &[])
        .await;
    assert_eq!(refused.status, 410);
    assert!(refused.body.contains("expired"));
    let accounts: i64 =
        sqlx::query_scalar("SELECT count(*) FROM accounts WHERE lower(email) = 'cy@example.org'")
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(accounts, 0, "an expired link makes no account");

    // A link elsewhere than this site is never followed.
    let away = Visitor::new(&base);
    away.post_from(
        "/signin",
        "/signin",
        &[("email", "di@example.org"), ("next", "//evil.example/")],
    )
    .await;
    let token = link_for(&db, "di@example.org").await;
    let went = away
        .post_from(
            &format!("/signin/{token}"),
            &format!("/signin/{token}"),
            &[],
        )
        .await;
    assert_eq!(went.location.as_deref(), Some("/me"));
    worker.stop().await;
    db.drop().await;
}

/// Makes every sign-in link `minutes` older.
async fn age_links(db: &TestDb, minutes: i32) {
    sqlx::query("UPDATE sign_in_links SET created_at = created_at - make_interval(mins => $1)")
        .bind(minutes)
        .execute(db.store.pool())
        .await
        .unwrap();
}

/// The answer's words with every time and duration blanked, and `email` written as X.
fn shape(body: &str, email: &str) -> String {
    body.replace(email, "X")
        .chars()
        .map(|c| if c.is_ascii_digit() { '0' } else { c })
        .collect()
}

/// When the newest link of the address's anonymous allowance goes again: the time the page says
/// ("14:05 UTC"), from the rows as the store counts them.
async fn next_at_words(db: &TestDb, email: &str, pace_minutes: i64) -> String {
    let last: chrono::DateTime<chrono::Utc> = sqlx::query_scalar(
        "SELECT max(created_at) FROM sign_in_links WHERE lower(email) = lower($1) \
         AND device_hash IS NULL",
    )
    .bind(email)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    let next = last + chrono::Duration::minutes(pace_minutes) + chrono::Duration::seconds(59);
    next.format("%H:%M UTC").to_string()
}

#[actix_web::test]
async fn a_stranger_asking_again_and_again_only_slows_the_links_and_is_told_when() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let stranger = Visitor::new(&base);
    let owner = Visitor::new(&base);
    let ask = async |v: &Visitor| {
        v.post_from("/signin", "/signin", &[("email", "ann@example.org")])
            .await
    };
    // The first links of a quarter hour go out at once.
    for _ in 0..postplay::store::LINKS_PER_QUARTER_HOUR {
        let sent = ask(&stranger).await;
        assert_eq!(sent.status, 200, "{}", sent.body);
        assert!(
            sent.body
                .contains("A sign-in link is on its way to ann@example.org")
        );
    }
    assert_eq!(
        signin_mails(&db).await,
        postplay::store::LINKS_PER_QUARTER_HOUR
    );
    // One more in the quarter hour: no mail, and the one asking is told the truth: when the
    // last went and when to ask again.
    let paced = ask(&owner).await;
    assert_eq!(paced.status, 429, "{}", paced.body);
    let again_at = next_at_words(&db, "ann@example.org", postplay::store::SLOW_LINK_MINUTES).await;
    assert!(
        paced.body.contains("No new link went now")
            && paced.body.contains(&format!("Ask again at {again_at}")),
        "{again_at}: {}",
        paced.body
    );
    assert!(
        paced
            .body
            .contains("A browser that signed in as ann@example.org before has its own"),
        "{}",
        paced.body
    );
    assert_eq!(
        signin_mails(&db).await,
        postplay::store::LINKS_PER_QUARTER_HOUR
    );
    // The stranger keeps asking until the day's number went out, at the quarter hour's pace.
    let mut rounds = 0;
    while signin_mails(&db).await < postplay::store::LINKS_PER_DAY {
        age_links(&db, 16).await;
        assert_eq!(ask(&stranger).await.status, 200);
        rounds += 1;
        assert!(rounds < 20, "links go out a quarter hour apart");
    }
    // Past the day's number: one link an hour, and the answer says so.
    age_links(&db, 20).await;
    let hourly = ask(&owner).await;
    assert_eq!(hourly.status, 429);
    let again_at =
        next_at_words(&db, "ann@example.org", postplay::store::SLOWER_LINK_MINUTES).await;
    assert!(
        hourly.body.contains(&format!("Ask again at {again_at}")),
        "{}",
        hourly.body
    );
    assert_eq!(
        signin_mails(&db).await,
        postplay::store::LINKS_PER_DAY,
        "the last link is 20 minutes old: none yet"
    );
    age_links(&db, postplay::store::SLOWER_LINK_MINUTES as i32 - 20).await;
    let done = sign_in(&owner, &db, "ann@example.org").await;
    assert_eq!(
        done.status, 303,
        "the owner signs in the same day: {}",
        done.body
    );
    assert_eq!(signin_mails(&db).await, postplay::store::LINKS_PER_DAY + 1);
    assert_eq!(
        ask(&stranger).await.status,
        429,
        "then the next waits an hour again"
    );
    assert_eq!(signin_mails(&db).await, postplay::store::LINKS_PER_DAY + 1);

    // Per client: other addresses from the same client run out at the client's hourly bound
    // (that 429 is the asker's own, not the address owner's).
    let limit = postplay::config::WebSettings::default().signins_per_hour as usize;
    let mut statuses = Vec::new();
    for i in 0..limit {
        statuses.push(
            stranger
                .post_from(
                    "/signin",
                    "/signin",
                    &[("email", &format!("p{i}@example.org"))],
                )
                .await
                .status,
        );
    }
    assert!(statuses.contains(&429), "the client's bound: {statuses:?}");
    let before = signin_mails(&db).await;
    let blocked = stranger
        .post_from("/signin", "/signin", &[("email", "fresh@example.org")])
        .await;
    assert_eq!(blocked.status, 429);
    assert!(blocked.body.contains("ask for sign-in links too often"));
    assert_eq!(signin_mails(&db).await, before);
    db.drop().await;
}

/// Issue 45: the stranger's script. A stranger spends every link of the owner's address's
/// anonymous allowance over HTTP; the owner's browser, which signed in before, still gets its
/// link in the real mailbox and signs in. Past the bound the answer says when to ask again,
/// in the same words for an address with an account and one without.
#[actix_web::test]
async fn a_stranger_spending_the_bound_cannot_keep_out_a_browser_that_signed_in_before() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let sink = SmtpSink::start().await.unwrap();
    let worker = mailrig::spawn_worker(&db, &base, sink.port(), mailrig::quick());
    let owner = Visitor::new(&base);
    let mails_to = |to: &str| {
        sink.received()
            .into_iter()
            .filter(|m| m.to == vec![to.to_string()])
            .count()
    };
    let link_in_mail = |n: usize| {
        let mails: Vec<_> = sink
            .received()
            .into_iter()
            .filter(|m| m.to == vec!["ann@example.org".to_string()])
            .collect();
        mails[n]
            .data
            .replace("=\r\n", "")
            .split_whitespace()
            .find_map(|w| w.split("/signin/").nth(1))
            .map(|t| t.chars().take(40).collect::<String>())
            .expect("the mail holds the link")
    };

    // The owner signed in on this browser once, by the mailed link, and signed out since.
    let asked = owner
        .post_from("/signin", "/signin", &[("email", "ann@example.org")])
        .await;
    assert_eq!(asked.status, 200);
    mailrig::expect_mail(&sink, 1, 20).await;
    let token = link_in_mail(0);
    let used = owner
        .post_from(
            &format!("/signin/{token}"),
            &format!("/signin/{token}"),
            &[],
        )
        .await;
    assert_eq!(used.status, 303, "{}", used.body);
    assert!(
        owner.cookie("pp_device").is_some(),
        "the browser is remembered"
    );
    assert_eq!(owner.post_from("/me", "/signout", &[]).await.status, 303);
    assert!(owner.cookie("pp_session").is_none());
    assert!(owner.cookie("pp_device").is_some(), "signing out keeps it");

    // The stranger's script: ask for the owner's address until no link goes. Each stranger's
    // request comes from a fresh browser, as a script's does.
    let mut sent = 0;
    let refused = loop {
        let stranger = Visitor::new(&base);
        let answer = stranger
            .post_from("/signin", "/signin", &[("email", "ann@example.org")])
            .await;
        if answer.status != 200 {
            break answer;
        }
        sent += 1;
        assert!(sent < 10, "the anonymous allowance is bounded");
    };
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(
        sent + 1,
        postplay::store::LINKS_PER_QUARTER_HOUR,
        "the owner's first link counted against the same anonymous allowance"
    );
    let again_at = next_at_words(&db, "ann@example.org", postplay::store::SLOW_LINK_MINUTES).await;
    assert!(
        refused.body.contains(&format!("Ask again at {again_at}")),
        "the one over the bound is told when: {}",
        refused.body
    );
    mailrig::expect_mail(&sink, postplay::store::LINKS_PER_QUARTER_HOUR as usize, 20).await;

    // The owner's browser still gets its link, in the owner's mailbox, and signs in.
    let before = mails_to("ann@example.org");
    let asked = owner
        .post_from("/signin", "/signin", &[("email", "ann@example.org")])
        .await;
    assert_eq!(
        asked.status, 200,
        "the owner's own allowance: {}",
        asked.body
    );
    mailrig::expect_mail(&sink, before + 1, 20).await;
    let token = link_in_mail(before);
    let used = owner
        .post_from(
            &format!("/signin/{token}"),
            &format!("/signin/{token}"),
            &[],
        )
        .await;
    assert_eq!(used.status, 303, "{}", used.body);
    assert!(owner.get("/me").await.body.contains("ann@example.org"));

    // The device's allowance is its own and bounded too: past it the owner is told when.
    let mut own = 1;
    let paced = loop {
        let answer = owner
            .post_from("/signin", "/signin", &[("email", "ann@example.org")])
            .await;
        if answer.status != 200 {
            break answer;
        }
        own += 1;
        assert!(own < 10, "the device's allowance is bounded");
    };
    assert_eq!(own, postplay::store::LINKS_PER_QUARTER_HOUR);
    assert_eq!(paced.status, 429);
    assert!(paced.body.contains("Ask again at"), "{}", paced.body);
    assert!(
        !paced.body.contains("has its own allowance"),
        "{}",
        paced.body
    );

    // The device cookie of one address gives nothing for another: it spends that address's
    // anonymous allowance like anyone's. And the bound reads the same for an address with an
    // account and one without: whoever asks learns nothing of accounts.
    let mut known = String::new();
    let mut unknown = String::new();
    for (email, body) in [
        ("ann@example.org", &mut known),
        ("nobody@example.org", &mut unknown),
    ] {
        let client = Visitor::new(&base);
        loop {
            let answer = client
                .post_from("/signin", "/signin", &[("email", email)])
                .await;
            if answer.status == 429 {
                *body = shape(&answer.body, email);
                break;
            }
        }
    }
    assert_eq!(known, unknown, "no account enumeration");
    let other = owner
        .post_from("/signin", "/signin", &[("email", "nobody@example.org")])
        .await;
    assert_eq!(other.status, 429, "{}", other.body);
    worker.stop().await;
    db.drop().await;
}

#[actix_web::test]
async fn signing_in_changes_the_session_and_signing_out_everywhere_ends_them_all() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let phone = Visitor::new(&base);
    let laptop = Visitor::new(&base);

    // Fixation: a session cookie planted before sign-in is not the one after, and it is dead.
    let planted = {
        let bo = db
            .store
            .account_for_email(
                &postplay::store::EmailAddress::parse("bo@example.org").unwrap(),
                &postplay::store::PlayerName::parse("Bo").unwrap(),
            )
            .await
            .unwrap();
        db.store.start_session(bo.id).await.unwrap()
    };
    phone.set_cookie("pp_session", &planted);
    let done = sign_in(&phone, &db, "ann@example.org").await;
    assert_eq!(done.status, 303);
    let after = phone.cookie("pp_session").expect("a session");
    assert_ne!(after, planted);
    assert!(db.store.session_account(&planted).await.unwrap().is_none());
    assert!(phone.get("/me").await.body.contains("ann@example.org"));

    sign_in(&laptop, &db, "ann@example.org").await;
    assert_eq!(laptop.get("/me").await.status, 200);

    // Sign out on one device: the other stays.
    let out = phone.post_from("/me", "/signout", &[]).await;
    assert_eq!(out.status, 303);
    assert!(phone.cookie("pp_session").is_none());
    assert!(db.store.session_account(&after).await.unwrap().is_none());
    assert_eq!(laptop.get("/me").await.status, 200);

    // Everywhere: both.
    sign_in(&phone, &db, "ann@example.org").await;
    let kept = laptop.cookie("pp_session").unwrap();
    let everywhere = phone
        .post_from("/me/settings", "/signout/everywhere", &[])
        .await;
    assert_eq!(everywhere.status, 303);
    assert_eq!(phone.get("/me").await.status, 303);
    assert_eq!(laptop.get("/me").await.status, 303, "the other device too");
    assert!(db.store.session_account(&kept).await.unwrap().is_none());
    db.drop().await;
}
