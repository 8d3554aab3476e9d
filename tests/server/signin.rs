//! Sign-in by mailed link over real HTTP (issue 17): the link works once, for 15 minutes, for
//! its own address; both rate limits; a new session at sign-in; signing out everywhere.

use crate::common;

use common::visitor::Visitor;
use common::{TestDb, mailrig, spawn_app};
use postplay::mail::sink::SmtpSink;

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

#[actix_web::test]
async fn a_stranger_asking_again_and_again_only_slows_the_links_and_never_locks_the_owner_out() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let stranger = Visitor::new(&base);
    let owner = Visitor::new(&base);
    let ask = async |v: &Visitor| {
        let answer = v
            .post_from("/signin", "/signin", &[("email", "ann@example.org")])
            .await;
        assert_eq!(
            answer.status, 200,
            "always the same answer: {}",
            answer.body
        );
        answer.body
    };
    // The first links of a quarter hour go out at once.
    let first = ask(&stranger).await;
    for _ in 1..postplay::store::LINKS_PER_QUARTER_HOUR {
        ask(&stranger).await;
    }
    assert_eq!(
        signin_mails(&db).await,
        postplay::store::LINKS_PER_QUARTER_HOUR
    );
    // One more in the quarter hour: no mail, and the owner is answered as ever.
    let paced = ask(&owner).await;
    assert_eq!(paced, first, "nobody learns whether a mail went out");
    assert_eq!(
        signin_mails(&db).await,
        postplay::store::LINKS_PER_QUARTER_HOUR
    );
    // The stranger keeps asking until the day's number went out, at the quarter hour's pace.
    let mut rounds = 0;
    while signin_mails(&db).await < postplay::store::LINKS_PER_DAY {
        age_links(&db, 16).await;
        ask(&stranger).await;
        rounds += 1;
        assert!(rounds < 20, "links go out a quarter hour apart");
    }
    // Past the day's number: the stranger has not locked the owner out for the day, only
    // slowed the links to one an hour.
    age_links(&db, 20).await;
    assert_eq!(ask(&owner).await, first);
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
    assert_eq!(ask(&stranger).await, first);
    assert_eq!(
        signin_mails(&db).await,
        postplay::store::LINKS_PER_DAY + 1,
        "then the next waits an hour again"
    );

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
