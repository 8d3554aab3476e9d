//! Clubs (issue 33) over real HTTP against the real server and a real PostgreSQL: a club made,
//! members invited by a mailed link that signs them in, admins and the last admin, closing, the
//! club's tables, the bounds, and who may see and do what: every club route and every route
//! keyed by a game's id, for every kind of reader, for a public and a private club.

use crate::common;

use awc::Client;
use common::{TestDb, spawn_app};
use postplay::notices::mail::render::{MailContext, render};
use postplay::notices::notice::Notice;
use postplay::store::{
    Account, ClubError, EmailAddress, INVITES_PER_DAY, MAX_CLUBS_JOINED, MAX_CLUBS_MADE,
    MAX_MEMBERS, MAX_PENDING_INVITES, NewClub, PlayerName, new_token,
};
use serde_json::Value;

/// A signed-in player: the account and its session token.
struct Player {
    account: Account,
    session: String,
}

async fn player(db: &TestDb, name: &str) -> Player {
    let account = account(db, name).await;
    let session = db.store.start_session(account.id).await.unwrap();
    Player { account, session }
}

async fn account(db: &TestDb, name: &str) -> Account {
    let email = EmailAddress::parse(&format!("{}@example.org", name.to_lowercase())).unwrap();
    db.store
        .account_for_email(&email, &PlayerName::parse(name).unwrap())
        .await
        .unwrap()
}

/// A reply: status, body, Location, the session cookie set (if any).
#[derive(Debug)]
struct Reply {
    status: u16,
    body: String,
    location: String,
    session: Option<String>,
    /// Every cookie set, as `name=value`.
    set_cookies: Vec<String>,
}

struct Http {
    client: Client,
    base: String,
    csrf: String,
}

impl Http {
    fn new(base: &str) -> Http {
        Http {
            client: Client::builder()
                .disable_redirects()
                .timeout(std::time::Duration::from_secs(30))
                .finish(),
            base: base.to_string(),
            csrf: new_token(),
        }
    }

    fn cookies(&self, session: Option<&str>) -> String {
        match session {
            Some(s) => format!("pp_csrf={}; pp_session={s}", self.csrf),
            None => format!("pp_csrf={}", self.csrf),
        }
    }

    async fn reply(
        mut res: awc::ClientResponse<
            impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin,
        >,
        body: bool,
    ) -> Reply {
        let location = res
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_string())
            .unwrap_or_default();
        let session = res
            .headers()
            .get_all("set-cookie")
            .filter_map(|h| h.to_str().ok())
            .find_map(|c| c.strip_prefix("pp_session="))
            .map(|c| c.split(';').next().unwrap_or("").to_string());
        let set_cookies = res
            .headers()
            .get_all("set-cookie")
            .filter_map(|h| h.to_str().ok())
            .map(|c| c.split(';').next().unwrap_or("").to_string())
            .collect();
        let body = if body {
            String::from_utf8_lossy(&res.body().limit(4 << 20).await.unwrap()).into_owned()
        } else {
            String::new()
        };
        Reply {
            status: res.status().as_u16(),
            body,
            location,
            session,
            set_cookies,
        }
    }

    /// A GET as `session`, sending back the cookies a POST set (a desk's note after a
    /// redirect).
    async fn get_carrying(&self, path: &str, session: &str, carried: &[String]) -> Reply {
        let mut cookies = self.cookies(Some(session));
        for c in carried {
            cookies.push_str("; ");
            cookies.push_str(c);
        }
        let res = self
            .client
            .get(format!("{}{path}", self.base))
            .insert_header(("Cookie", cookies))
            .send()
            .await
            .unwrap();
        Http::reply(res, true).await
    }

    /// A GET as `session` (if any), with the seat's `bearer` token (if any). A live stream's
    /// body is not read (it never ends): its status is the answer.
    async fn get_as(&self, path: &str, session: Option<&str>, bearer: Option<&str>) -> Reply {
        let mut req = self
            .client
            .get(format!("{}{path}", self.base))
            .insert_header(("Cookie", self.cookies(session)));
        if let Some(token) = bearer {
            req = req.insert_header(("Authorization", format!("Bearer {token}")));
        }
        let res = req.send().await.unwrap();
        Http::reply(res, !path.ends_with("/events")).await
    }

    async fn get(&self, path: &str, session: Option<&str>) -> Reply {
        self.get_as(path, session, None).await
    }

    async fn post(&self, path: &str, session: Option<&str>, fields: &[(&str, &str)]) -> Reply {
        let mut all = vec![("csrf", self.csrf.as_str())];
        all.extend_from_slice(fields);
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(all)
            .finish();
        let res = self
            .client
            .post(format!("{}{path}", self.base))
            .insert_header(("Cookie", self.cookies(session)))
            .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
            .send_body(body)
            .await
            .unwrap();
        Http::reply(res, true).await
    }

    /// Makes a club as `who` through the form; its id.
    async fn club(&self, who: &Player, name: &str, privacy: &str) -> i64 {
        let r = self
            .post(
                "/clubs/new",
                Some(&who.session),
                &[
                    ("name", name),
                    ("description", "Tuesday nights"),
                    ("privacy", privacy),
                ],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        r.location.trim_start_matches("/clubs/").parse().unwrap()
    }

    /// Opens a two-player Statehood table of the club as `who`; its id.
    async fn club_table(&self, who: &Player, club: i64) -> i64 {
        let club = club.to_string();
        let r = self
            .post(
                "/lobby/new/statehood",
                Some(&who.session),
                &[
                    ("players", "2"),
                    ("sit", "true"),
                    ("seating", "random"),
                    ("opt_target", "1"),
                    ("clock", "none"),
                    ("club", &club),
                ],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        r.location.trim_start_matches("/lobby/").parse().unwrap()
    }

    /// Invites `address` to the club as `admin`; the invitee signs in by a link mailed to the
    /// address and accepts through the mailed invitation. The new member's session.
    async fn invite_and_join(&self, db: &TestDb, admin: &Player, club: i64, name: &str) -> String {
        let address = format!("{}@example.org", name.to_lowercase());
        let r = self
            .post(
                &format!("/clubs/{club}/invite"),
                Some(&admin.session),
                &[("addresses", &address)],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        let link = mailed_link(db, &address).await;
        let path = link.trim_start_matches(&self.base).to_string();
        let session = self.sign_in_by_mail(db, &address, name, &path).await;
        let joined = self.post(&path, Some(&session), &[]).await;
        assert_eq!(joined.status, 303, "{}", joined.body);
        assert_eq!(joined.location, format!("/clubs/{club}"));
        assert!(joined.session.is_none(), "joining keeps the session");
        session
    }

    /// Signs in as `address` by the link mailed to it, named `name` if the account is new,
    /// coming back to `next`; the session.
    async fn sign_in_by_mail(&self, db: &TestDb, address: &str, name: &str, next: &str) -> String {
        let asked = self
            .post("/signin", None, &[("email", address), ("next", next)])
            .await;
        assert_eq!(asked.status, 200, "{}", asked.body);
        let token: String = sqlx::query_scalar(
            "SELECT payload->>'token' FROM outbox WHERE kind = 'signin' \
             AND lower(recipient) = lower($1) ORDER BY id DESC LIMIT 1",
        )
        .bind(address)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
        let used = self
            .post(&format!("/signin/{token}"), None, &[("name", name)])
            .await;
        assert_eq!(used.status, 303, "{}", used.body);
        assert_eq!(used.location, next);
        used.session.expect("a session")
    }
}

/// The link in the newest club invitation mailed to `to`, read from the mail as the outbox
/// renders it.
async fn mailed_link(db: &TestDb, to: &str) -> String {
    let payload: Value = sqlx::query_scalar(
        "SELECT payload FROM outbox WHERE kind = 'club' AND recipient = $1 ORDER BY id DESC LIMIT 1",
    )
    .bind(to)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    let notice: Notice = serde_json::from_value(payload).unwrap();
    let ctx = MailContext {
        base_url: "http://postplay.test".into(),
        reply_domain: None,
    };
    let mail = render(&notice, &ctx).unwrap();
    let at = mail
        .text
        .find("http://postplay.test/clubs/invite/")
        .unwrap_or_else(|| panic!("the mail carries the club's invitation link: {}", mail.text));
    let link = mail.text[at..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(mail.html.contains(&link), "{}", mail.html);
    link.replace("http://postplay.test", "")
}

async fn count(db: &TestDb, sql: &'static str, id: i64) -> i64 {
    sqlx::query_scalar(sql)
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

#[actix_web::test]
async fn members_join_by_the_mailed_link_and_see_names_never_addresses() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let club = http.club(&ann, "Rook & Pawn", "private").await;
    let page = http
        .get(&format!("/clubs/{club}"), Some(&ann.session))
        .await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("Rook &#38; Pawn") && page.body.contains("you are an admin"),
        "{}",
        page.body
    );

    // Dee has no account. Opening the mailed invitation, or pressing its button, signs nobody
    // in: a forwarded invitation is only a way to ask for a sign-in link mailed to Dee.
    let r = http
        .post(
            &format!("/clubs/{club}/invite"),
            Some(&ann.session),
            &[("addresses", "Dee@Example.org\nbo@example.org")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let link = mailed_link(&db, "Dee@Example.org").await;
    let shown = http.get(&link, None).await;
    assert_eq!(shown.status, 200);
    assert!(shown.body.contains("Rook &#38; Pawn") && shown.body.contains("sign-in-to-join"));
    assert!(
        !shown.body.contains("join-club\""),
        "no joining without signing in: {}",
        shown.body
    );
    assert!(shown.session.is_none());
    let members = "SELECT count(*) FROM club_members WHERE club_id = $1";
    let before = count(&db, members, club).await;
    let forwarded = http.post(&link, None, &[("name", "Mallory")]).await;
    assert_eq!(forwarded.status, 403, "{}", forwarded.body);
    assert!(
        forwarded.body.contains("sign in as the invited address"),
        "{}",
        forwarded.body
    );
    assert!(
        forwarded.session.is_none(),
        "a forwarded invitation signs nobody in"
    );
    // Signed in as another address: refused too, and the link still waits for Dee.
    let mallory = player(&db, "Mallory").await;
    let shown = http.get(&link, Some(&mallory.session)).await;
    assert!(
        shown
            .body
            .contains("You are signed in as mallory@example.org"),
        "{}",
        shown.body
    );
    let other = http.post(&link, Some(&mallory.session), &[]).await;
    assert_eq!(other.status, 403, "{}", other.body);
    assert!(
        other
            .body
            .contains("this invitation is for Dee@Example.org"),
        "{}",
        other.body
    );
    assert_eq!(count(&db, members, club).await, before);
    // The page's button asks for a sign-in link mailed to Dee, which brings her back here.
    let dee_session = http
        .sign_in_by_mail(&db, "Dee@Example.org", "Dee", &link)
        .await;
    let shown = http.get(&link, Some(&dee_session)).await;
    assert!(shown.body.contains("join-club"), "{}", shown.body);
    let joined = http.post(&link, Some(&dee_session), &[]).await;
    assert_eq!(joined.status, 303, "{}", joined.body);
    assert_eq!(joined.location, format!("/clubs/{club}"));
    let dee = db
        .store
        .session_account(&dee_session)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (dee.name.as_str(), dee.email.as_str()),
        ("Dee", "Dee@Example.org")
    );
    assert_eq!(count(&db, members, club).await, before + 1);
    let again = http.post(&link, Some(&dee_session), &[]).await;
    assert_eq!(again.status, 410, "a link works once: {}", again.body);
    assert_eq!(http.get(&link, None).await.status, 410);

    // Bo has an account already: signed in by mail, he joins and keeps his name.
    let bo = account(&db, "Bo").await;
    let link = mailed_link(&db, "bo@example.org").await;
    let session = http
        .sign_in_by_mail(&db, "bo@example.org", "Someone", &link)
        .await;
    let joined = http.post(&link, Some(&session), &[]).await;
    assert_eq!(joined.status, 303);
    assert_eq!(
        db.store
            .session_account(&session)
            .await
            .unwrap()
            .unwrap()
            .id,
        bo.id
    );
    let page = http.get(&format!("/clubs/{club}"), Some(&session)).await;
    assert_eq!(page.status, 200);
    for name in ["Ann", "Bo", "Dee"] {
        assert!(page.body.contains(name), "{name}: {}", page.body);
    }
    for address in ["@example.org", "@Example.org"] {
        assert!(!page.body.contains(address), "no address: {}", page.body);
    }
    let mine = http.get("/clubs", Some(&session)).await;
    assert!(mine.body.contains(&format!("/clubs/{club}\"")));

    // Inviting a member or an address already invited is refused, nothing written.
    let before = count(
        &db,
        "SELECT count(*) FROM club_invites WHERE club_id = $1",
        club,
    )
    .await;
    for address in [
        "dee@example.org",
        "bo@example.org, zed@example.org, zed@example.org",
    ] {
        let r = http
            .post(
                &format!("/clubs/{club}/invite"),
                Some(&ann.session),
                &[("addresses", address)],
            )
            .await;
        assert_eq!(r.status, 422, "{address}: {}", r.body);
    }
    // One bad address among good ones: the box comes back with all of them, marked, to mend
    // the one (issue 47).
    let typed = "gil@example.org\nhal at example\nivy@example.org";
    let r = http
        .post(
            &format!("/clubs/{club}/invite"),
            Some(&ann.session),
            &[("addresses", typed)],
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(
        r.body.contains(
            "required aria-invalid=\"true\">gil@example.org\nhal at example\nivy@example.org</textarea>"
        ),
        "{}",
        r.body
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM club_invites WHERE club_id = $1",
            club
        )
        .await,
        before
    );
    // A withdrawn invitation's link no longer works.
    let r = http
        .post(
            &format!("/clubs/{club}/invite"),
            Some(&ann.session),
            &[("addresses", "eve@example.org")],
        )
        .await;
    assert_eq!(r.status, 303);
    let link = mailed_link(&db, "eve@example.org").await;
    let invite: i64 =
        sqlx::query_scalar("SELECT id FROM club_invites WHERE email = 'eve@example.org'")
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    let r = http
        .post(
            &format!("/clubs/{club}/invites/{invite}/withdraw"),
            Some(&ann.session),
            &[],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let eve = player(&db, "Eve").await;
    assert_eq!(http.post(&link, Some(&eve.session), &[]).await.status, 410);
    db.drop().await;
}

#[actix_web::test]
async fn the_last_admin_names_another_before_leaving_or_stepping_down() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let club = http.club(&ann, "Knights", "public").await;
    let bo_session = http.invite_and_join(&db, &ann, club, "Bo").await;
    let bo = db
        .store
        .session_account(&bo_session)
        .await
        .unwrap()
        .unwrap();
    let ann_id = ann.account.id.to_string();

    let r = http
        .post(&format!("/clubs/{club}/leave"), Some(&ann.session), &[])
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("last admin"), "{}", r.body);
    let r = http
        .post(
            &format!("/clubs/{club}/members/{ann_id}/role"),
            Some(&ann.session),
            &[("role", "member")],
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    // A member makes nobody admin.
    let r = http
        .post(
            &format!("/clubs/{club}/members/{}/role", bo.id),
            Some(&bo_session),
            &[("role", "admin")],
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let admins = "SELECT count(*) FROM club_members WHERE club_id = $1 AND role = 'admin'";
    assert_eq!(count(&db, admins, club).await, 1);

    let r = http
        .post(
            &format!("/clubs/{club}/members/{}/role", bo.id),
            Some(&ann.session),
            &[("role", "admin")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    // Two admins leaving at once: one goes, the other stays the last admin.
    let (a, b) = futures_util::join!(
        db.store.leave_club(club, &ann.account),
        db.store.leave_club(club, &bo)
    );
    assert!(a.is_ok() != b.is_ok(), "exactly one leaves: {a:?} {b:?}");
    let stayed = if a.is_ok() { &bo } else { &ann.account };
    assert!(matches!(
        db.store.leave_club(club, stayed).await,
        Err(ClubError::Invalid(_))
    ));
    assert_eq!(count(&db, admins, club).await, 1);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM club_members WHERE club_id = $1",
            club
        )
        .await,
        1
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_club_table_is_its_members_and_its_game_is_the_clubs() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let eve = player(&db, "Eve").await;
    let club = http.club(&ann, "Secret Society", "private").await;
    let bo_session = http.invite_and_join(&db, &ann, club, "Bo").await;
    let table = http.club_table(&ann, club).await;

    let lobby = http.get("/lobby", Some(&eve.session)).await;
    assert!(
        !lobby.body.contains(&format!("/lobby/{table}\"")),
        "{}",
        lobby.body
    );
    let lobby = http.get("/lobby", Some(&bo_session)).await;
    assert!(
        !lobby.body.contains(&format!("/lobby/{table}\"")),
        "club tables are on the club's page"
    );
    let page = http.get(&format!("/clubs/{club}"), Some(&bo_session)).await;
    assert!(
        page.body.contains(&format!("/lobby/{table}\"")),
        "{}",
        page.body
    );
    // To a non-member a private club's table is a table that does not exist.
    let missing = table + 1000;
    for session in [Some(eve.session.as_str()), None] {
        let shown = http.get(&format!("/lobby/{table}"), session).await;
        let none = http.get(&format!("/lobby/{missing}"), session).await;
        assert_eq!((shown.status, shown.body), (404, none.body));
    }
    let r = http
        .post(&format!("/lobby/{table}/join"), Some(&eve.session), &[])
        .await;
    assert_eq!(r.status, 404, "{}", r.body);
    // A club table takes no invitations, and a non-member opens none.
    let r = http
        .post(
            "/lobby/new/statehood",
            Some(&ann.session),
            &[
                ("players", "3"),
                ("sit", "true"),
                ("clock", "none"),
                ("club", &club.to_string()),
                ("invites", "x@example.org"),
            ],
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    let r = http
        .post(
            "/lobby/new/statehood",
            Some(&eve.session),
            &[
                ("players", "2"),
                ("sit", "true"),
                ("clock", "none"),
                ("club", &club.to_string()),
            ],
        )
        .await;
    assert_eq!(r.status, 404, "{}", r.body);

    let r = http
        .post(&format!("/lobby/{table}/join"), Some(&bo_session), &[])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let game = count(&db, "SELECT game_id FROM open_tables WHERE id = $1", table).await;
    let (club_of, spectator, desk): (Option<i64>, Option<Vec<u8>>, bool) =
        sqlx::query_as("SELECT club_id, spectator_hash, has_desk FROM games WHERE id = $1")
            .bind(game)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(club_of, Some(club));
    assert_eq!(
        spectator, None,
        "a private club's game has no spectator link"
    );
    assert!(!desk);
    let page = http.get(&format!("/clubs/{club}"), Some(&bo_session)).await;
    assert!(
        page.body.contains(&format!("/games/{game}\"")),
        "running: {}",
        page.body
    );
    db.drop().await;
}

#[actix_web::test]
async fn a_closed_club_takes_nobody_new_and_its_games_go_on() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let club = http.club(&ann, "Old Guard", "private").await;
    let bo_session = http.invite_and_join(&db, &ann, club, "Bo").await;
    let started = http.club_table(&ann, club).await;
    let r = http
        .post(&format!("/lobby/{started}/join"), Some(&bo_session), &[])
        .await;
    assert_eq!(r.status, 303);
    let game = count(
        &db,
        "SELECT game_id FROM open_tables WHERE id = $1",
        started,
    )
    .await;
    let waiting = http.club_table(&ann, club).await;
    let r = http
        .post(
            &format!("/clubs/{club}/invite"),
            Some(&ann.session),
            &[("addresses", "cy@example.org")],
        )
        .await;
    assert_eq!(r.status, 303);
    let link = mailed_link(&db, "cy@example.org").await;

    let r = http
        .post(
            &format!("/clubs/{club}/close"),
            Some(&bo_session),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(r.status, 403, "a member closes nothing: {}", r.body);
    let r = http
        .post(
            &format!("/clubs/{club}/close"),
            Some(&ann.session),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);

    let status: String = sqlx::query_scalar("SELECT status FROM open_tables WHERE id = $1")
        .bind(waiting)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(status, "cancelled");
    let cy = player(&db, "Cy").await;
    assert_eq!(http.post(&link, Some(&cy.session), &[]).await.status, 410);
    let r = http
        .post(
            &format!("/clubs/{club}/invite"),
            Some(&ann.session),
            &[("addresses", "dee@example.org")],
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.body);
    let r = http
        .post(
            "/lobby/new/statehood",
            Some(&ann.session),
            &[
                ("players", "2"),
                ("sit", "true"),
                ("clock", "none"),
                ("club", &club.to_string()),
            ],
        )
        .await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("closed"), "{}", r.body);
    // Members keep the club and their seats; its game stays verifiable.
    let page = http.get(&format!("/clubs/{club}"), Some(&bo_session)).await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("closed on"));
    let export = http
        .get(&format!("/api/games/{game}/export"), Some(&bo_session))
        .await;
    assert_eq!(export.status, 200);
    assert!(export.body.contains("\"commitment\""), "{}", export.body);
    db.drop().await;
}

#[actix_web::test]
async fn what_a_client_can_make_the_server_hold_is_bounded() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let new = |name: &str| NewClub {
        name: postplay::domain::ClubName::parse(name).unwrap(),
        description: Default::default(),
        private: true,
    };
    // Clubs made.
    let mut clubs = Vec::new();
    for i in 0..MAX_CLUBS_MADE {
        clubs.push(
            db.store
                .create_club(&ann.account, &new(&format!("C{i}")))
                .await
                .unwrap(),
        );
    }
    let r = http
        .post(
            "/clubs/new",
            Some(&ann.session),
            &[("name", "One too many"), ("privacy", "public")],
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("close one first"), "{}", r.body);
    db.store.close_club(clubs[0], &ann.account).await.unwrap();
    let again = db.store.create_club(&ann.account, &new("Room again")).await;
    assert!(again.is_ok(), "a closed club no longer counts: {again:?}");

    // Pending invitations, and invitations made a day (withdrawn ones count).
    let club = clubs[1];
    let addresses = |from: usize, n: usize| -> Vec<EmailAddress> {
        (from..from + n)
            .map(|i| EmailAddress::parse(&format!("p{i}@example.org")).unwrap())
            .collect()
    };
    let n = MAX_PENDING_INVITES as usize;
    db.store
        .invite_to_club(club, &ann.account, &addresses(0, n))
        .await
        .unwrap();
    let over = db
        .store
        .invite_to_club(club, &ann.account, &addresses(n, 1))
        .await;
    assert!(
        matches!(over, Err(ClubError::Invalid(ref m)) if m.contains("wait")),
        "{over:?}"
    );
    let pending = db.store.pending_invites(club).await.unwrap();
    assert_eq!(pending.len(), n);
    for invite in &pending {
        db.store
            .withdraw_club_invite(club, &ann.account, invite.id)
            .await
            .unwrap();
    }
    let rest = (INVITES_PER_DAY as usize) - n;
    db.store
        .invite_to_club(club, &ann.account, &addresses(n, rest))
        .await
        .unwrap();
    let first = db.store.pending_invites(club).await.unwrap()[0].id;
    db.store
        .withdraw_club_invite(club, &ann.account, first)
        .await
        .unwrap();
    let over = db
        .store
        .invite_to_club(club, &ann.account, &addresses(n + rest, 1))
        .await;
    assert!(
        matches!(over, Err(ClubError::Invalid(ref m)) if m.contains("24 hours")),
        "{over:?}"
    );
    let made = count(
        &db,
        "SELECT count(*) FROM club_invites WHERE club_id = $1",
        club,
    )
    .await;
    assert_eq!(made, INVITES_PER_DAY);

    // Members, pending invitations included.
    let full = clubs[2];
    sqlx::query(
        "WITH made AS (INSERT INTO accounts (email, name) \
           SELECT 'm' || i || '@example.org', 'M' || i FROM generate_series(1, $2) i RETURNING id) \
         INSERT INTO club_members (club_id, account_id, role, joined_at) \
         SELECT $1, id, 'member', now() FROM made",
    )
    .bind(full)
    .bind((MAX_MEMBERS - 2) as i32)
    .execute(db.store.pool())
    .await
    .unwrap();
    let over = db
        .store
        .invite_to_club(full, &ann.account, &addresses(500, 2))
        .await;
    assert!(
        matches!(over, Err(ClubError::Invalid(ref m)) if m.contains("members")),
        "{over:?}"
    );
    db.store
        .invite_to_club(full, &ann.account, &addresses(500, 1))
        .await
        .unwrap();
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM club_members WHERE club_id = $1",
            full
        )
        .await,
        MAX_MEMBERS - 1
    );

    // Clubs joined: an account in as many clubs as one may be cannot accept another.
    let zed = account(&db, "Zed").await;
    let other = player(&db, "Olga").await;
    for i in 0..MAX_CLUBS_JOINED {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO clubs (name, private, created_by, created_at) VALUES ($1, true, $2, now()) \
             RETURNING id",
        )
        .bind(format!("Z{i}"))
        .bind(other.account.id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO club_members (club_id, account_id, role, joined_at) VALUES ($1, $2, 'member', now())",
        )
        .bind(id)
        .bind(zed.id)
        .execute(db.store.pool())
        .await
        .unwrap();
    }
    let club = clubs[3];
    db.store
        .invite_to_club(
            club,
            &ann.account,
            &[EmailAddress::parse("zed@example.org").unwrap()],
        )
        .await
        .unwrap();
    let link = mailed_link(&db, "zed@example.org").await;
    let zed_session = db.store.start_session(zed.id).await.unwrap();
    let r = http.post(&link, Some(&zed_session), &[]).await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("clubs already"), "{}", r.body);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM club_members WHERE account_id = $1",
            zed.id
        )
        .await,
        MAX_CLUBS_JOINED
    );
    db.drop().await;
}

/// The real app, letting one client make `games` games (and as many new links) an hour; its
/// base URL.
fn spawn_with_games(db: &TestDb, games: u32) -> String {
    let settings = postplay::config::WebSettings {
        games_per_hour: games,
        relinks_per_hour: games,
        ..postplay::config::WebSettings::default()
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let store = std::sync::Arc::new(db.store.clone_handle());
    let server = postplay::web::start_with(store, base.clone(), listener, None, settings).unwrap();
    actix_web::rt::spawn(server);
    base
}

/// Every game's status, log length, pause and seats' keys, for "nothing changed".
async fn games_state(db: &TestDb) -> Vec<(i64, String, i64, bool, Option<String>)> {
    sqlx::query_as(
        "SELECT g.id, g.status, g.head_seq, g.paused_at IS NOT NULL, \
         (SELECT string_agg(s.token_hash || ':' || coalesce(s.email, '') || ':' || \
          coalesce(s.account_id::text, ''), ',' ORDER BY s.seat) FROM seats s WHERE s.game_id = g.id) \
         FROM games g ORDER BY g.id",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap()
}

/// Every path of a club's routes (`/clubs/{club}/…`) in the route table.
fn club_routes() -> Vec<String> {
    let source = crate::common::route_table_source();
    source
        .split("\"/clubs/{club}/")
        .skip(1)
        .filter_map(|r| Some(format!("/clubs/{{club}}/{}", r.split('"').next()?)))
        .collect()
}

/// Every route of a club is in the authorization table below, so a new one cannot be
/// forgotten; a league's routes are all read by the leagues' own authorization test
/// (`league_routes`).
#[test]
fn every_club_route_is_in_the_authorization_table() {
    let covered = [
        "/clubs/{club}/invite",
        "/clubs/{club}/invites/{invite}/withdraw",
        "/clubs/{club}/members/{account}/role",
        "/clubs/{club}/members/{account}/remove",
        "/clubs/{club}/leave",
        "/clubs/{club}/close",
        "/clubs/{club}/new/{kind}",
        "/clubs/{club}/games/{game}/desk",
        "/clubs/{club}/games/{game}/desk/relink/{seat}",
        "/clubs/{club}/games/{game}/desk/release/{seat}",
        "/clubs/{club}/games/{game}/desk/invite/{seat}",
        "/clubs/{club}/games/{game}/desk/address/{seat}",
        "/clubs/{club}/games/{game}/desk/cancel",
        "/clubs/{club}/games/{game}/desk/clock",
        "/clubs/{club}/games/{game}/desk/messages/{message}/hide",
        "/clubs/{club}/ratings/{kind}/{account}",
        "/clubs/{club}/archive",
        "/clubs/{club}/standings/{kind}",
    ];
    let routes = club_routes();
    assert!(routes.len() >= 15, "{routes:?}");
    for route in routes {
        assert!(
            covered.contains(&route.as_str()) || route.starts_with("/clubs/{club}/leagues/"),
            "{route} is in no authorization row"
        );
    }
}

/// Every GET route of the app whose path holds a game's `{id}`, read from the route table, so
/// a new one cannot be forgotten here.
fn id_keyed_get_routes() -> Vec<String> {
    let source = crate::common::route_table_source();
    let routes = source
        .split(".route(")
        .skip(1)
        .filter_map(|r| {
            let path = r.split('"').nth(1)?;
            let method = r.split(".to(").next().unwrap_or("");
            (path.contains("{id}") && method.contains("get()")).then(|| path.to_string())
        })
        .filter(|p| !p.starts_with("/lobby/"))
        .collect::<Vec<_>>();
    assert!(routes.len() >= 8, "{routes:?}");
    routes
}

/// Who may read a GET route keyed by a club's id.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Audience {
    /// Whoever may see the club's games: anyone for a public club, members for a private one.
    ClubGames,
    /// The club's members only, public club or not (standings name members).
    Members,
}

/// Every GET route of the app whose path holds a club's `{club}`, read from the route table,
/// with who may read it: a new route fails here until it is given its row. Left to their own
/// tables: a league's routes (`league_routes`), and the forms and desk that answer a public
/// club's non-member 403 rather than the page (the authorization table's rows).
fn club_keyed_get_routes() -> Vec<(String, Audience)> {
    let source = crate::common::route_table_source();
    let routes: Vec<(String, Audience)> = source
        .split(".route(")
        .skip(1)
        .filter_map(|r| {
            let path = r.split('"').nth(1)?;
            let method = r.split(".to(").next().unwrap_or("");
            (path.contains("{club}") && method.contains("get()")).then(|| path.to_string())
        })
        .filter(|path| {
            !path.contains("/leagues")
                && path != "/clubs/{club}/new/{kind}"
                && path != "/clubs/{club}/games/{game}/desk"
        })
        .map(|path| {
            let audience = match path.as_str() {
                "/clubs/{club}" | "/clubs/{club}/archive" => Audience::ClubGames,
                "/clubs/{club}/standings/{kind}" | "/clubs/{club}/ratings/{kind}/{account}" => {
                    Audience::Members
                }
                other => panic!("{other}: say who may read it in club_keyed_get_routes"),
            };
            (path, audience)
        })
        .collect();
    assert!(routes.len() >= 4, "{routes:?}");
    routes
}

/// Who reads: a session, a seat's own key (bearer), both or neither.
struct Reader<'a> {
    who: &'static str,
    session: Option<&'a str>,
    bearer: Option<&'a str>,
    /// A member of the club (or its admin).
    member: bool,
}

/// The seat token mailed to `to` for game `game`, from the outbox.
async fn seat_token(db: &TestDb, game: i64, to: &str) -> String {
    let payload: Value = sqlx::query_scalar(
        "SELECT payload FROM outbox WHERE game_id = $1 AND kind = 'invite' AND lower(recipient) = $2",
    )
    .bind(game)
    .bind(to)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    payload["token"].as_str().unwrap().to_string()
}

/// A club's game between its admin and `player`, who joins its table; (table, game).
async fn club_game(
    http: &Http,
    db: &TestDb,
    admin: &Player,
    club: i64,
    player: &str,
) -> (i64, i64) {
    let table = http.club_table(admin, club).await;
    let r = http
        .post(&format!("/lobby/{table}/join"), Some(player), &[])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    (
        table,
        count(db, "SELECT game_id FROM open_tables WHERE id = $1", table).await,
    )
}

#[actix_web::test]
async fn a_private_club_is_nothing_to_anyone_but_its_members_on_every_route() {
    let db = TestDb::new().await;
    // Every reader posts the new-game form of both clubs: room for them all from one client.
    let base = spawn_with_games(&db, 1000);
    let http = Http::new(&base);
    let pia = player(&db, "Pia").await;
    let quentin = player(&db, "Quentin").await;
    let rita_admin = player(&db, "Rolf").await;
    let nadia = player(&db, "Nadia").await;
    let public = http.club(&pia, "Plainview", "public").await;
    let private = http.club(&quentin, "Quietude", "private").await;
    let other = http.club(&rita_admin, "Roundtable", "private").await;
    let pete = http.invite_and_join(&db, &pia, public, "Pete").await;
    let paula = http.invite_and_join(&db, &pia, public, "Paula").await;
    let queenie = http
        .invite_and_join(&db, &quentin, private, "Queenie")
        .await;
    let quark = http.invite_and_join(&db, &quentin, private, "Quark").await;
    let rita = http.invite_and_join(&db, &rita_admin, other, "Rita").await;
    let (_, public_game) = club_game(&http, &db, &pia, public, &pete).await;
    let (_, private_game) = club_game(&http, &db, &quentin, private, &quark).await;
    let private_table = http.club_table(&quentin, private).await;
    let pete_seat = seat_token(&db, public_game, "pete@example.org").await;
    let quark_seat = seat_token(&db, private_game, "quark@example.org").await;
    // Quark leaves the club: a seat link holder who is no member; the seat stays his.
    let r = http
        .post(&format!("/clubs/{private}/leave"), Some(&quark), &[])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(
        http.get(&format!("/play/{quark_seat}"), None).await.status,
        200
    );
    let r = http
        .post(
            &format!("/clubs/{private}/invite"),
            Some(&quentin.session),
            &[("addresses", "someone@example.org")],
        )
        .await;
    assert_eq!(r.status, 303);
    let pending = db.store.pending_invites(private).await.unwrap()[0].id;
    let before: Vec<(i64, String, Option<chrono::DateTime<chrono::Utc>>)> = sqlx::query_as(
        "SELECT m.account_id, m.role, c.closed_at FROM club_members m JOIN clubs c ON c.id = m.club_id \
         ORDER BY 1, 2",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();

    let games_before = games_state(&db).await;
    // A member of each club with a rating, so the rating page has a member to show.
    let mut rated = std::collections::HashMap::new();
    for (club, session) in [(public, &paula), (private, &queenie)] {
        let id = db.store.session_account(session).await.unwrap().unwrap().id;
        sqlx::query(
            "INSERT INTO club_ratings (club_id, kind, account_id, mu, sigma, rating, games, \
             losses, moves_on_time, moves, updated_at) \
             VALUES ($1, 'statehood', $2, 25, 8, 1000, 1, 1, 3, 3, now())",
        )
        .bind(club)
        .bind(id)
        .execute(db.store.pool())
        .await
        .unwrap();
        rated.insert(club, id);
    }
    let readers = |club: i64| -> Vec<Reader<'_>> {
        let (member, admin, seat) = if club == private {
            (
                queenie.as_str(),
                quentin.session.as_str(),
                quark_seat.as_str(),
            )
        } else {
            (paula.as_str(), pia.session.as_str(), pete_seat.as_str())
        };
        vec![
            Reader {
                who: "anonymous",
                session: None,
                bearer: None,
                member: false,
            },
            Reader {
                who: "seat link holder",
                session: None,
                bearer: Some(seat),
                member: false,
            },
            Reader {
                who: "signed-in non-member",
                session: Some(&nadia.session),
                bearer: None,
                member: false,
            },
            Reader {
                who: "member",
                session: Some(member),
                bearer: None,
                member: true,
            },
            Reader {
                who: "admin",
                session: Some(admin),
                bearer: None,
                member: true,
            },
            Reader {
                who: "member of another club",
                session: Some(&rita),
                bearer: None,
                member: false,
            },
        ]
    };
    let missing_game = private_game + 1000;
    let missing_club = other + 1000;
    let same = |body: &str, id: i64| body.replace(&id.to_string(), "#");

    for club in [public, private] {
        let (game, seat) = if club == private {
            (private_game, quark_seat.as_str())
        } else {
            (public_game, pete_seat.as_str())
        };
        for reader in readers(club) {
            let hidden = club == private && !reader.member && reader.bearer.is_none();
            for route in id_keyed_get_routes() {
                let path = |id: i64| {
                    route
                        .replace("{id}", &id.to_string())
                        .replace("{kind}", "statehood")
                };
                let shown = http
                    .get_as(&path(game), reader.session, reader.bearer)
                    .await;
                // What the public club's game answers an anonymous reader (with this seat
                // key, for the seat): the answer of a game one may see.
                let open = http
                    .get_as(
                        &path(public_game),
                        None,
                        reader.bearer.map(|_| pete_seat.as_str()),
                    )
                    .await;
                let context = format!("{} on {route} of club {club}", reader.who);
                if hidden {
                    let none = http
                        .get_as(&path(missing_game), reader.session, reader.bearer)
                        .await;
                    assert_eq!(
                        (shown.status, same(&shown.body, game)),
                        (none.status, same(&none.body, missing_game)),
                        "{context}: a private club's game answers as a missing one"
                    );
                    assert!(
                        !shown.body.contains("Quark") && !shown.body.contains("Quentin"),
                        "{context}"
                    );
                } else {
                    assert_eq!(shown.status, open.status, "{context}: {}", shown.body);
                }
            }
            // Posting by id finds nothing either.
            for post in ["lost-link", "messages"] {
                let r = http
                    .post(
                        &format!("/games/{game}/{post}"),
                        reader.session,
                        &[("seat", "0"), ("text", "hi")],
                    )
                    .await;
                if club == private && !reader.member {
                    let none = http
                        .post(
                            &format!("/games/{missing_game}/{post}"),
                            reader.session,
                            &[("seat", "0"), ("text", "hi")],
                        )
                        .await;
                    assert_eq!(
                        (r.status, same(&r.body, game)),
                        (none.status, same(&none.body, missing_game)),
                        "{} posts {post}",
                        reader.who
                    );
                    assert!(
                        [401, 404].contains(&r.status),
                        "{} posts {post}",
                        reader.who
                    );
                } else {
                    assert_ne!(r.status, 404, "{} posts {post}: {}", reader.who, r.body);
                }
            }
            let _ = seat;

            // Every GET route keyed by the club's id (the archive filtered too), by audience.
            for (route, audience) in club_keyed_get_routes() {
                let member_id = rated[&club];
                let by_pia = format!("?player={}", pia.account.id);
                for query in ["", "?kind=statehood", &by_pia, "?kind=chess&page=x"] {
                    if query.len() > 1 && !route.ends_with("/archive") {
                        continue;
                    }
                    let path = |id: i64| {
                        let path = route
                            .replace("{club}", &id.to_string())
                            .replace("{kind}", "statehood")
                            .replace("{account}", &member_id.to_string());
                        format!("{path}{query}")
                    };
                    let shown = http.get(&path(club), reader.session).await;
                    let context = format!("{} on {}", reader.who, path(club));
                    let sees = reader.member || (audience == Audience::ClubGames && club == public);
                    if !sees {
                        assert_eq!(shown.status, 404, "{context}: {}", shown.body);
                        if club == private {
                            let none = http.get(&path(missing_club), reader.session).await;
                            assert_eq!(
                                (shown.status, same(&shown.body, club)),
                                (none.status, same(&none.body, missing_club)),
                                "{context}: answers as a missing club"
                            );
                        }
                        for name in ["Queenie", "Quentin", "Quark", "Quietude"] {
                            assert!(!shown.body.contains(name), "{context}: {}", shown.body);
                        }
                    } else if query.contains("chess") {
                        assert_eq!(shown.status, 400, "{context}: {}", shown.body);
                    } else if query == by_pia {
                        // Pia played in the public club's game only.
                        let expected = if club == public { 200 } else { 400 };
                        assert_eq!(shown.status, expected, "{context}: {}", shown.body);
                    } else {
                        assert_eq!(shown.status, 200, "{context}: {}", shown.body);
                    }
                }
            }

            // The club's page and table.
            let page = http.get(&format!("/clubs/{club}"), reader.session).await;
            let table = http
                .get(&format!("/lobby/{private_table}"), reader.session)
                .await;
            // Members' addresses never show (an admin sees the addresses they invited).
            for name in [
                "pia", "pete", "paula", "quentin", "queenie", "quark", "nadia", "rita",
            ] {
                let address = format!("{name}@example.org");
                assert!(
                    !page.body.contains(&address),
                    "{}: no address: {}",
                    reader.who,
                    page.body
                );
            }
            if club == private && !reader.member {
                let none = http
                    .get(&format!("/clubs/{missing_club}"), reader.session)
                    .await;
                assert_eq!(
                    (page.status, same(&page.body, club)),
                    (none.status, same(&none.body, missing_club)),
                    "{}: a private club answers as a missing one",
                    reader.who
                );
                let none = http
                    .get(&format!("/lobby/{}", private_table + 1000), reader.session)
                    .await;
                assert_eq!(
                    (table.status, table.body.clone()),
                    (404, none.body),
                    "{}",
                    reader.who
                );
            } else {
                assert_eq!(page.status, 200, "{}: {}", reader.who, page.body);
                let member = if club == private { "Queenie" } else { "Paula" };
                assert_eq!(
                    page.body.contains(member),
                    reader.member,
                    "{}: members' names to members only",
                    reader.who
                );
                if club == private {
                    assert_eq!(table.status, 200, "{}", reader.who);
                }
            }

            // Lists.
            for list in ["/", "/lobby", "/clubs", "/clubs?page=0"] {
                let shown = http.get(list, reader.session).await;
                let mentions = shown.body.contains("Quietude")
                    || shown.body.contains(&format!("/clubs/{private}\""))
                    || shown.body.contains(&format!("/games/{private_game}\""))
                    || shown.body.contains(&format!("/lobby/{private_table}\""));
                let member_of_private = club == private && reader.member;
                if !member_of_private {
                    assert!(!mentions, "{} reads {list}: {}", reader.who, shown.body);
                }
            }

            // The club's forms: a signed-out reader signs in first, whatever the club; a
            // non-member of a private club finds no club; no one but an admin acts as one.
            let member_id = if club == private {
                db.store
                    .session_account(&queenie)
                    .await
                    .unwrap()
                    .unwrap()
                    .id
            } else {
                db.store.session_account(&paula).await.unwrap().unwrap().id
            };
            let admin_forms = [
                (
                    format!("/clubs/{club}/invite"),
                    vec![("addresses", "zz@example.org")],
                ),
                (format!("/clubs/{club}/invites/{pending}/withdraw"), vec![]),
                (
                    format!("/clubs/{club}/members/{member_id}/role"),
                    vec![("role", "admin")],
                ),
                (format!("/clubs/{club}/members/{member_id}/remove"), vec![]),
                (format!("/clubs/{club}/close"), vec![("confirm", "yes")]),
            ];
            // A game with chosen members: the form to members, a game to no one here (the
            // form sent chooses nobody).
            let new_game = format!("/clubs/{club}/new/statehood");
            let form = http.get(&new_game, reader.session).await;
            let started = http
                .post(&new_game, reader.session, &[("opt_target", "1")])
                .await;
            let context = format!("{} on {new_game}", reader.who);
            if reader.session.is_none() {
                assert_eq!((form.status, started.status), (303, 303), "{context}");
                assert!(form.location.starts_with("/signin?next="), "{context}");
                assert!(started.location.starts_with("/signin?next="), "{context}");
            } else if club == private && !reader.member {
                let elsewhere = format!("/clubs/{missing_club}/new/statehood");
                let none = http.get(&elsewhere, reader.session).await;
                assert_eq!(
                    (form.status, form.body.clone()),
                    (404, none.body),
                    "{context}"
                );
                let none = http
                    .post(&elsewhere, reader.session, &[("opt_target", "1")])
                    .await;
                assert_eq!(
                    (started.status, started.body),
                    (404, none.body),
                    "{context}"
                );
            } else if reader.member {
                assert_eq!(form.status, 200, "{context}: {}", form.body);
                assert_eq!(started.status, 422, "{context}: {}", started.body);
            } else {
                assert_eq!((form.status, started.status), (403, 403), "{context}");
            }

            // A member's ratings: to members only, public club or not.
            let admin_id = if club == private {
                quentin.account.id
            } else {
                pia.account.id
            };
            let ratings = format!("/clubs/{club}/ratings/statehood/{admin_id}");
            if !reader.member {
                let shown = http.get(&ratings, reader.session).await;
                let none = http
                    .get(
                        &format!("/clubs/{missing_club}/ratings/statehood/{admin_id}"),
                        reader.session,
                    )
                    .await;
                assert_eq!(
                    (shown.status, shown.body),
                    (404, none.body),
                    "{} on {ratings}",
                    reader.who
                );
            }

            // The club game's desk: its admins' alone.
            let desk = format!("/clubs/{club}/games/{game}/desk");
            let desk_forms = [
                (format!("{desk}/relink/1"), vec![]),
                (format!("{desk}/release/1"), vec![]),
                (format!("{desk}/invite/1"), vec![]),
                (
                    format!("{desk}/address/1"),
                    vec![("email", "zz@example.org")],
                ),
                (
                    format!("{desk}/cancel"),
                    vec![("reason", "no"), ("confirm", "yes")],
                ),
                (format!("{desk}/clock"), vec![("action", "pause")]),
                (format!("{desk}/messages/1/hide"), vec![]),
            ];
            let shown = http.get(&desk, reader.session).await;
            let context = format!("{} on {desk}", reader.who);
            if reader.session.is_none() {
                assert_eq!(shown.status, 303, "{context}");
                assert!(shown.location.starts_with("/signin?next="), "{context}");
            } else if club == private && !reader.member {
                let none = http
                    .get(
                        &desk.replace(
                            &format!("/clubs/{club}/"),
                            &format!("/clubs/{missing_club}/"),
                        ),
                        reader.session,
                    )
                    .await;
                assert_eq!(
                    (shown.status, shown.body.clone()),
                    (404, none.body),
                    "{context}"
                );
            } else if reader.who == "admin" {
                assert_eq!(shown.status, 200, "{context}: {}", shown.body);
                assert!(
                    !shown.body.contains("@example.org"),
                    "{context}: {}",
                    shown.body
                );
                for (path, _) in desk_forms.iter().filter(|(p, _)| !p.contains("/messages/")) {
                    assert!(
                        shown.body.contains(&format!("action=\"{path}\"")),
                        "{context}: {path}"
                    );
                }
            } else {
                assert_eq!(shown.status, 403, "{context}: {}", shown.body);
            }

            if reader.who == "admin" {
                for (path, _) in &admin_forms {
                    assert!(
                        page.body.contains(&format!("action=\"{path}\""))
                            || path.contains("/invites/"),
                        "{path}"
                    );
                }
                continue;
            }
            let mut forms = admin_forms.to_vec();
            forms.extend(desk_forms);
            if !reader.member {
                forms.push((format!("/clubs/{club}/leave"), vec![]));
            }
            for (path, fields) in forms {
                let r = http.post(&path, reader.session, &fields).await;
                let context = format!("{} posts {path}", reader.who);
                if reader.session.is_none() {
                    assert_eq!(r.status, 303, "{context}");
                    assert!(
                        r.location.starts_with("/signin?next="),
                        "{context}: {}",
                        r.location
                    );
                } else if club == private && !reader.member {
                    let none = http
                        .post(
                            &path.replace(
                                &format!("/clubs/{club}/"),
                                &format!("/clubs/{missing_club}/"),
                            ),
                            reader.session,
                            &fields,
                        )
                        .await;
                    assert_eq!((r.status, r.body.clone()), (404, none.body), "{context}");
                } else if path.ends_with("/leave") {
                    assert_eq!(r.status, 422, "{context}: {}", r.body);
                } else {
                    assert_eq!(r.status, 403, "{context}: {}", r.body);
                }
            }
        }
    }
    let after: Vec<(i64, String, Option<chrono::DateTime<chrono::Utc>>)> = sqlx::query_as(
        "SELECT m.account_id, m.role, c.closed_at FROM club_members m JOIN clubs c ON c.id = m.club_id \
         ORDER BY 1, 2",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    assert_eq!(before, after, "no refused form changed anything");
    assert_eq!(
        games_state(&db).await,
        games_before,
        "no refused desk action changed a game"
    );
    assert_eq!(db.store.pending_invites(private).await.unwrap().len(), 1);
    db.drop().await;
}

/// Every route of a club's leagues, read from the route table (so a new one cannot be
/// forgotten here): whether it is a POST, and its path.
fn league_routes() -> Vec<(bool, String)> {
    let source = crate::common::route_table_source();
    let routes: Vec<(bool, String)> = source
        .split(".route(")
        .skip(1)
        .filter_map(|r| {
            let path = r.split('"').nth(1)?;
            let method = r.split(".to(").next().unwrap_or("");
            path.contains("/leagues")
                .then(|| (method.contains("post()"), path.to_string()))
        })
        .collect();
    assert!(routes.len() >= 8, "{routes:?}");
    routes
}

#[actix_web::test]
async fn a_private_clubs_leagues_are_nothing_to_anyone_but_its_members_on_every_league_route() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let pia = player(&db, "Pia").await;
    let quentin = player(&db, "Quentin").await;
    let rolf = player(&db, "Rolf").await;
    let nadia = player(&db, "Nadia").await;
    let public = http.club(&pia, "Plainview", "public").await;
    let private = http.club(&quentin, "Quietude", "private").await;
    let other = http.club(&rolf, "Roundtable", "private").await;
    let paula = http.invite_and_join(&db, &pia, public, "Paula").await;
    let queenie = http
        .invite_and_join(&db, &quentin, private, "Queenie")
        .await;
    let rita = http.invite_and_join(&db, &rolf, other, "Rita").await;
    let quark = http.invite_and_join(&db, &quentin, private, "Quark").await;
    let (_, private_game) = club_game(&http, &db, &quentin, private, &quark).await;
    let quark_seat = seat_token(&db, private_game, "quark@example.org").await;
    let mut leagues = Vec::new();
    for (club, admin) in [(public, &pia), (private, &quentin)] {
        let closes = (chrono::Utc::now() + chrono::Duration::days(2))
            .format("%Y-%m-%dT%H:%M")
            .to_string();
        let r = http
            .post(
                &format!("/clubs/{club}/leagues/new/nationhood"),
                Some(&admin.session),
                &[
                    ("name", "Quiet league"),
                    ("closes", &closes),
                    ("meetings", "twice"),
                    ("mode", "all_at_once"),
                    ("clock", "move:3"),
                ],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        leagues.push(
            r.location
                .rsplit('/')
                .next()
                .unwrap()
                .parse::<i64>()
                .unwrap(),
        );
    }
    let entrants = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM league_entrants")
            .fetch_one(db.store.pool())
            .await
            .unwrap()
    };
    let missing_club = other + 1000;
    let same = |body: &str, id: i64| body.replace(&id.to_string(), "#");
    for (club, league) in [(public, leagues[0]), (private, leagues[1])] {
        let members = if club == private {
            vec![
                ("member", queenie.as_str()),
                ("admin", quentin.session.as_str()),
            ]
        } else {
            vec![("member", paula.as_str()), ("admin", pia.session.as_str())]
        };
        let mut readers: Vec<(&str, Option<&str>, Option<&str>, bool)> = vec![
            ("anonymous", None, None, false),
            ("seat link holder", None, Some(quark_seat.as_str()), false),
            (
                "signed-in non-member",
                Some(nadia.session.as_str()),
                None,
                false,
            ),
            ("member of another club", Some(rita.as_str()), None, false),
        ];
        readers.extend(members.iter().map(|(w, s)| (*w, Some(*s), None, true)));
        for (who, session, bearer, member) in readers {
            let hidden = club == private && !member;
            for (post, route) in league_routes() {
                let path = |club: i64| {
                    route
                        .replace("{club}", &club.to_string())
                        .replace("{league}", &league.to_string())
                        .replace("{kind}", "nationhood")
                };
                let context = format!(
                    "{who} {} {route} of club {club}",
                    if post { "posts" } else { "reads" }
                );
                let ask = async |path: String| {
                    if post {
                        let body: String = form_urlencoded::Serializer::new(String::new())
                            .extend_pairs([("csrf", http.csrf.as_str())])
                            .finish();
                        let mut req = http
                            .client
                            .post(format!("{}{path}", http.base))
                            .insert_header(("Cookie", http.cookies(session)))
                            .insert_header(("Content-Type", "application/x-www-form-urlencoded"));
                        if let Some(token) = bearer {
                            req = req.insert_header(("Authorization", format!("Bearer {token}")));
                        }
                        Http::reply(req.send_body(body).await.unwrap(), true).await
                    } else {
                        http.get_as(&path, session, bearer).await
                    }
                };
                if post && member {
                    // Members act on it elsewhere; nothing is changed here.
                    continue;
                }
                let shown = ask(path(club)).await;
                if hidden {
                    let none = ask(path(missing_club)).await;
                    assert_eq!(
                        (shown.status, same(&shown.body, club)),
                        (none.status, same(&none.body, missing_club)),
                        "{context}: a private club's league answers as a missing one"
                    );
                    assert!(
                        !shown.body.contains("Quiet league") && !shown.body.contains("Quentin"),
                        "{context}"
                    );
                    if post && session.is_none() && !route.starts_with("/api/") {
                        assert_eq!(shown.status, 303, "{context}");
                        assert!(shown.location.starts_with("/signin?next="), "{context}");
                    }
                } else if post {
                    let expected = match (session, bearer, route.starts_with("/api/")) {
                        (_, Some(_), true) => 401,
                        (None, _, true) => 401,
                        (None, _, false) => 303,
                        (Some(_), _, _) => 403,
                    };
                    assert_eq!(shown.status, expected, "{context}: {}", shown.body);
                } else if route.contains("/new/") {
                    let expected = if session.is_none() {
                        303
                    } else if who == "admin" {
                        200
                    } else {
                        403
                    };
                    assert_eq!(shown.status, expected, "{context}: {}", shown.body);
                } else if route.starts_with("/api/") && bearer.is_some() {
                    assert_eq!(shown.status, 401, "{context}: a seat's key is no account's");
                } else {
                    assert_eq!(shown.status, 200, "{context}: {}", shown.body);
                    assert!(shown.body.contains("Quiet league"), "{context}");
                    assert!(
                        !shown.body.contains("@example.org"),
                        "{context}: no address"
                    );
                }
            }
            // The club's page lists the league to members only.
            let page = http.get(&format!("/clubs/{club}"), session).await;
            assert_eq!(
                page.body
                    .contains(&format!("/clubs/{club}/leagues/{league}\"")),
                member,
                "{who} on club {club}"
            );
        }
    }
    assert_eq!(entrants().await, 0, "no refused sign-up wrote anything");
    db.drop().await;
}

/// The account id behind a session.
async fn id_of(db: &TestDb, session: &str) -> i64 {
    db.store.session_account(session).await.unwrap().unwrap().id
}

/// What a refused start could have written: games, seats, mail.
async fn written(db: &TestDb) -> (i64, i64, i64) {
    sqlx::query_as(
        "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM seats), \
         (SELECT count(*) FROM outbox)",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

/// Starts a two-player Statehood game of the club as `who` with the members `seats` (account
/// ids, by seat), a 3-day clock; the reply.
async fn start_with(http: &Http, who: &str, club: i64, seats: &[String]) -> Reply {
    let mut fields = vec![("opt_target", "1"), ("clock", "move:3")];
    let names: Vec<String> = (0..seats.len()).map(|i| format!("seat{i}")).collect();
    for (name, member) in names.iter().zip(seats) {
        fields.push((name.as_str(), member.as_str()));
    }
    http.post(&format!("/clubs/{club}/new/statehood"), Some(who), &fields)
        .await
}

#[actix_web::test]
async fn a_member_starts_a_game_with_chosen_members_and_bad_input_writes_nothing() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let dan = player(&db, "Dan").await;
    let club = http.club(&ann, "Chosen Few", "private").await;
    let bo = http.invite_and_join(&db, &ann, club, "Bo").await;
    let cy = http.invite_and_join(&db, &ann, club, "Cy").await;
    let (ann_id, bo_id, cy_id) = (ann.account.id, id_of(&db, &bo).await, id_of(&db, &cy).await);

    // The form lists the members by name, never by address.
    let form = http
        .get(&format!("/clubs/{club}/new/statehood"), Some(&bo))
        .await;
    assert_eq!(form.status, 200, "{}", form.body);
    assert!(
        form.body
            .contains(&format!("<option value=\"{cy_id}\">Cy</option>"))
    );
    assert!(!form.body.contains("@example.org"), "{}", form.body);

    // Bo starts a game between Ann and Cy, without playing himself.
    let r = start_with(&http, &bo, club, &[ann_id.to_string(), cy_id.to_string()]).await;
    assert_eq!(r.status, 303, "{}", r.body);
    let game: i64 = r.location.trim_start_matches("/games/").parse().unwrap();
    let (club_of, has_desk, spectator): (Option<i64>, bool, Option<String>) =
        sqlx::query_as("SELECT club_id, has_desk, spectator_token FROM games WHERE id = $1")
            .bind(game)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(
        (club_of, has_desk, spectator),
        (Some(club), false, None),
        "the club's, without organiser desk or spectator link"
    );
    let seats: Vec<(i32, Option<i64>, String)> =
        sqlx::query_as("SELECT seat, account_id, name FROM seats WHERE game_id = $1 ORDER BY seat")
            .bind(game)
            .fetch_all(db.store.pool())
            .await
            .unwrap();
    assert_eq!(
        seats,
        vec![
            (0, Some(ann_id), "Ann".to_string()),
            (1, Some(cy_id), "Cy".to_string())
        ]
    );
    // Each player is mailed their own seat's link, and it opens their seat; Bo gets none.
    for to in ["ann@example.org", "cy@example.org"] {
        let token = seat_token(&db, game, to).await;
        let seat = http.get(&format!("/play/{token}"), None).await;
        assert_eq!(seat.status, 200, "{to}: {}", seat.body);
    }
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM outbox WHERE game_id = $1 AND recipient = 'bo@example.org'",
            game
        )
        .await,
        0
    );
    // The club's page lists it for its members.
    let page = http.get(&format!("/clubs/{club}"), Some(&bo)).await;
    assert!(
        page.body.contains(&format!("/games/{game}\"")),
        "{}",
        page.body
    );

    // Refused, each with the form and its reason, nothing written.
    let before = written(&db).await;
    let (ann_s, bo_s, cy_s, dan_s) = (
        ann_id.to_string(),
        bo_id.to_string(),
        cy_id.to_string(),
        dan.account.id.to_string(),
    );
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![bo_s.clone(), dan_s.clone()],
            "seat 2: not a member of the club",
        ),
        (
            vec![bo_s.clone(), bo_s.clone()],
            "every seat needs a different member",
        ),
        (vec![bo_s.clone()], "Statehood is for 2 to 4 players"),
        (
            vec![
                ann_s.clone(),
                bo_s.clone(),
                cy_s.clone(),
                bo_s.clone(),
                cy_s.clone(),
            ],
            "Statehood is for 2 to 4 players",
        ),
        (
            vec![bo_s.clone(), "x".into()],
            "seat 2: not a member of the club",
        ),
        (
            vec![bo_s.clone(), String::new(), cy_s.clone()],
            "from the first on",
        ),
    ];
    for (seats, reason) in cases {
        let r = start_with(&http, &bo, club, &seats).await;
        assert_eq!(r.status, 422, "{seats:?}: {}", r.body);
        assert!(r.body.contains(reason), "{seats:?}: {reason}: {}", r.body);
        assert!(r.body.contains("Nothing was started"), "{}", r.body);
        assert_eq!(written(&db).await, before, "{seats:?} wrote nothing");
    }
    // A non-member finds no club; a signed-out reader signs in first.
    let none = start_with(&http, &dan.session, club, &[bo_s.clone(), cy_s.clone()]).await;
    let missing = start_with(
        &http,
        &dan.session,
        club + 1000,
        &[bo_s.clone(), cy_s.clone()],
    )
    .await;
    assert_eq!(
        (none.status, none.body),
        (404, missing.body),
        "a private club's form answers a non-member as a missing club"
    );
    let r = http
        .post(
            &format!("/clubs/{club}/new/statehood"),
            None,
            &[("seat0", &bo_s)],
        )
        .await;
    assert_eq!(r.status, 303);
    assert!(r.location.starts_with("/signin?next="), "{}", r.location);
    // A closed club starts nothing (409, the form and the reason).
    let r = http
        .post(
            &format!("/clubs/{club}/close"),
            Some(&ann.session),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let before = written(&db).await;
    let r = start_with(&http, &bo, club, &[bo_s.clone(), cy_s.clone()]).await;
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("this club is closed"), "{}", r.body);
    assert_eq!(written(&db).await, before);
    db.drop().await;
}

/// The first hour (issue 47): a member who starts a game they play in is taken to their own
/// seat, not to the spectators' page.
#[actix_web::test]
async fn a_member_who_starts_a_game_they_play_in_lands_on_their_own_seat() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let club = http.club(&ann, "Own Seat", "private").await;
    let cy = http.invite_and_join(&db, &ann, club, "Cy").await;
    let cy_id = id_of(&db, &cy).await;
    let (ann_s, cy_s) = (ann.account.id.to_string(), cy_id.to_string());
    let r = http
        .post(
            &format!("/clubs/{club}/new/statehood"),
            Some(&cy),
            &[
                ("opt_target", "1"),
                ("clock", "move:3"),
                ("seat0", &ann_s),
                ("seat1", &cy_s),
                ("contribution", "Cy's words"),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    // The starting member's words for the shuffle went into the deal (docs/FAIRNESS.md).
    let mixed: Value = sqlx::query_scalar(
        "SELECT deal_contributions FROM games WHERE id = (SELECT max(id) FROM games)",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(
        mixed,
        serde_json::json!([{"from": "Cy", "value": "Cy's words"}])
    );
    let token = r
        .location
        .strip_prefix("/play/")
        .unwrap_or_else(|| panic!("to a seat, not {}", r.location));
    let view = http.get(&format!("/api/play/{token}/choices"), None).await;
    assert_eq!(view.status, 200, "{}", view.body);
    let view: Value = serde_json::from_str(&view.body).unwrap();
    let seat = view["seat"].as_i64().unwrap() as i32;
    let name: String = sqlx::query_scalar(
        "SELECT name FROM seats WHERE game_id = (SELECT max(id) FROM games) AND seat = $1",
    )
    .bind(seat)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(name, "Cy", "{view}");
    db.drop().await;
}

#[actix_web::test]
async fn a_members_game_starts_are_bounded_by_the_game_limits() {
    let db = TestDb::new().await;
    let base = spawn_with_games(&db, 2);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let club = http.club(&ann, "Busy", "public").await;
    let bo = http.invite_and_join(&db, &ann, club, "Bo").await;
    let players = [
        ann.account.id.to_string(),
        id_of(&db, &bo).await.to_string(),
    ];
    // Making the club counted one game-making POST of this client already.
    let r = start_with(&http, &bo, club, &players).await;
    assert_eq!(r.status, 303, "{}", r.body);
    let before = written(&db).await;
    let r = start_with(&http, &bo, club, &players).await;
    assert_eq!(r.status, 429, "{}", r.body);
    assert_eq!(written(&db).await, before, "a refused start writes nothing");
    db.drop().await;
}

/// The reply's cookies that a desk reads after its redirect (its note, a relink's flash).
fn desk_cookies(r: &Reply) -> Vec<String> {
    r.set_cookies
        .iter()
        .filter(|c| c.starts_with("pp_relinked=") || c.starts_with("pp_desk_note="))
        .cloned()
        .collect()
}

#[actix_web::test]
async fn club_admins_act_on_club_games_from_the_club_and_learn_no_link() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let dan = player(&db, "Dan").await;
    let club = http.club(&ann, "Deskside", "private").await;
    let bo = http.invite_and_join(&db, &ann, club, "Bo").await;
    let cy = http.invite_and_join(&db, &ann, club, "Cy").await;
    let cy_id = id_of(&db, &cy).await;
    // Bo starts a game between Ann (the admin, who plays) and Cy.
    let r = start_with(
        &http,
        &bo,
        club,
        &[ann.account.id.to_string(), cy_id.to_string()],
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let game: i64 = r.location.trim_start_matches("/games/").parse().unwrap();
    let desk = format!("/clubs/{club}/games/{game}/desk");
    let cy_link = seat_token(&db, game, "cy@example.org").await;
    let ann_link = seat_token(&db, game, "ann@example.org").await;

    // The club's page links the desk for admins only.
    let page = http
        .get(&format!("/clubs/{club}"), Some(&ann.session))
        .await;
    assert!(
        page.body.contains(&format!("href=\"{desk}\"")),
        "{}",
        page.body
    );
    let page = http.get(&format!("/clubs/{club}"), Some(&bo)).await;
    assert!(!page.body.contains("/desk\""), "{}", page.body);

    // The desk: the seats by name, no address, no link.
    let shown = http.get(&desk, Some(&ann.session)).await;
    assert_eq!(shown.status, 200, "{}", shown.body);
    assert!(shown.body.contains("Cy") && shown.body.contains("Deskside"));
    assert!(!shown.body.contains("@example.org"), "{}", shown.body);
    assert!(!shown.body.contains(&cy_link) && !shown.body.contains(&ann_link));

    // Pause and resume.
    let r = http
        .post(
            &format!("{desk}/clock"),
            Some(&ann.session),
            &[("action", "pause")],
        )
        .await;
    assert_eq!(
        (r.status, r.location.as_str()),
        (303, desk.as_str()),
        "{}",
        r.body
    );
    let paused: bool = sqlx::query_scalar("SELECT paused_at IS NOT NULL FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert!(paused, "the admin paused the game");
    let shown = http.get(&desk, Some(&ann.session)).await;
    assert!(shown.body.contains("Resume the game"), "{}", shown.body);

    // Ann, who plays, gives Cy's seat a new link: mailed to Cy, never shown to Ann.
    let r = http
        .post(&format!("{desk}/relink/1"), Some(&ann.session), &[])
        .await;
    assert_eq!(
        (r.status, r.location.as_str()),
        (303, desk.as_str()),
        "{}",
        r.body
    );
    let new_link: Value = sqlx::query_scalar(
        "SELECT payload FROM outbox WHERE game_id = $1 AND event LIKE 'relink:%' \
         AND recipient = 'cy@example.org'",
    )
    .bind(game)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    let new_link = new_link["token"].as_str().unwrap().to_string();
    let after = http
        .get_carrying(&desk, &ann.session, &desk_cookies(&r))
        .await;
    assert!(
        after.body.contains("mailed to their address"),
        "the desk says where the link went: {}",
        after.body
    );
    for (what, body) in [
        ("the relink's answer", &r.body),
        ("the desk after it", &after.body),
    ] {
        assert!(
            !body.contains(&new_link) && !body.contains("/take/"),
            "{what}: {body}"
        );
        assert!(!body.contains("@example.org"), "{what}: {body}");
    }
    assert_eq!(
        http.get(&format!("/play/{new_link}"), None).await.status,
        200
    );
    assert_ne!(
        http.get(&format!("/play/{cy_link}"), None).await.status,
        200,
        "the old link ended"
    );
    assert_eq!(
        http.get(&format!("/play/{ann_link}"), None).await.status,
        200
    );

    // Release Cy's seat from her account, then cancel the game.
    let r = http
        .post(&format!("{desk}/release/1"), Some(&ann.session), &[])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let owner: Option<i64> =
        sqlx::query_scalar("SELECT account_id FROM seats WHERE game_id = $1 AND seat = 1")
            .bind(game)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(owner, None);

    // A member who is no admin, a non-member, a signed-out reader: refused, nothing changed.
    let before: (String, i64) = sqlx::query_as("SELECT status, head_seq FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    let cancel = [("reason", "stop"), ("confirm", "yes")];
    let r = http.get(&desk, Some(&bo)).await;
    assert_eq!(r.status, 403, "{}", r.body);
    let r = http
        .post(&format!("{desk}/cancel"), Some(&bo), &cancel)
        .await;
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(
        r.body
            .contains("only the club&#39;s admins act on its games"),
        "{}",
        r.body
    );
    let missing = format!("/clubs/{}/games/{game}/desk", club + 1000);
    let r = http.get(&desk, Some(&dan.session)).await;
    let none = http.get(&missing, Some(&dan.session)).await;
    assert_eq!(
        (r.status, r.body.clone()),
        (404, none.body),
        "a non-member finds nothing"
    );
    let r = http
        .post(&format!("{desk}/cancel"), Some(&dan.session), &cancel)
        .await;
    assert_eq!(r.status, 404);
    let r = http.post(&format!("{desk}/cancel"), None, &cancel).await;
    assert_eq!(r.status, 303);
    assert_eq!(r.location, format!("/signin?next=%2Fclubs%2F{club}"));
    let r = http.get(&desk, None).await;
    assert_eq!(r.status, 303);
    assert!(r.location.starts_with("/signin?next="));
    // Another club's game is not this club's to manage.
    let other = http.club(&ann, "Elsewhere", "public").await;
    let r = http
        .get(
            &format!("/clubs/{other}/games/{game}/desk"),
            Some(&ann.session),
        )
        .await;
    assert_eq!(r.status, 404);
    let still: (String, i64) = sqlx::query_as("SELECT status, head_seq FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(before, still, "no refused action changed the game");

    // A closed club's admins still act on its games: Ann closes the club and cancels.
    let r = http
        .post(
            &format!("/clubs/{club}/close"),
            Some(&ann.session),
            &[("confirm", "yes")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let r = http
        .post(&format!("{desk}/cancel"), Some(&ann.session), &cancel)
        .await;
    assert_eq!(
        (r.status, r.location.as_str()),
        (303, desk.as_str()),
        "{}",
        r.body
    );
    let status: String = sqlx::query_scalar("SELECT status FROM games WHERE id = $1")
        .bind(game)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(status, "over");
    let told = count(
        &db,
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND payload::text LIKE '%stop%'",
        game,
    )
    .await;
    assert!(told >= 2, "every player is told why: {told}");
    db.drop().await;
}
