//! Clubs (issue 33) over real HTTP against the real server and a real PostgreSQL: a club made,
//! members invited by a mailed link that signs them in, admins and the last admin, closing, the
//! club's tables, the bounds, and who may see and do what: every club route and every route
//! keyed by a game's id, for every kind of reader, for a public and a private club.

mod common;

use awc::Client;
use common::{TestDb, spawn_app};
use postplay::mail::notice::Notice;
use postplay::mail::render::{MailContext, render};
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
        }
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

    /// Invites `address` to the club as `admin` and accepts through the mailed link; the new
    /// member's session.
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
        let joined = self.post(&path, None, &[("name", name)]).await;
        assert_eq!(joined.status, 303, "{}", joined.body);
        assert_eq!(joined.location, format!("/clubs/{club}"));
        joined.session.expect("the invitation signs its reader in")
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

    // Dee has no account; the mailed link proves her address and signs her in.
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
    assert!(shown.body.contains("Join the club") && shown.body.contains("Rook &#38; Pawn"));
    let joined = http.post(&link, None, &[("name", "Dee")]).await;
    assert_eq!(joined.status, 303, "{}", joined.body);
    let dee_session = joined.session.expect("signed in by the invitation");
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
    let again = http.post(&link, None, &[("name", "Dee")]).await;
    assert_eq!(again.status, 410, "a link works once: {}", again.body);
    assert_eq!(http.get(&link, None).await.status, 410);

    // Bo has an account already: it is signed in, and keeps its name.
    let bo = account(&db, "Bo").await;
    let link = mailed_link(&db, "bo@example.org").await;
    let joined = http.post(&link, None, &[("name", "Someone")]).await;
    assert_eq!(joined.status, 303);
    let session = joined.session.unwrap();
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
    assert_eq!(http.post(&link, None, &[("name", "Eve")]).await.status, 410);
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
    assert_eq!(http.post(&link, None, &[("name", "Cy")]).await.status, 410);
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
    let r = http.post(&link, None, &[("name", "Zed")]).await;
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

/// Every GET route of the app whose path holds a game's `{id}`, read from the route table, so
/// a new one cannot be forgotten here.
fn id_keyed_get_routes() -> Vec<String> {
    let source = include_str!("../src/web/mod.rs");
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
/// with who may read it: a new route fails here until it is given its row.
fn club_keyed_get_routes() -> Vec<(String, Audience)> {
    let source = include_str!("../src/web/mod.rs");
    let routes: Vec<(String, Audience)> = source
        .split(".route(")
        .skip(1)
        .filter_map(|r| {
            let path = r.split('"').nth(1)?;
            let method = r.split(".to(").next().unwrap_or("");
            (path.contains("{club}") && method.contains("get()")).then(|| path.to_string())
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
    let base = spawn_app(&db);
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
    assert_eq!(db.store.pending_invites(private).await.unwrap().len(), 1);
    db.drop().await;
}
