//! The lobby (issue 17) over real HTTP against the real server and a real PostgreSQL: open
//! tables, joins that start the game, the race for the last seat, expiry, invitations by
//! address, the commitment fixed at the start, the bounds, and who may do what.

use crate::common;

use awc::Client;
use common::{TestDb, spawn_app};
use postplay::notices::mail::sink::SmtpSink;
use postplay::store::{Account, EmailAddress, MAX_OPEN_TABLES, PlayerName, new_token};
use serde_json::Value;
use std::sync::Arc;

/// A signed-in player: the account and its session token.
struct Player {
    account: Account,
    session: String,
}

async fn player(db: &TestDb, name: &str) -> Player {
    let email = EmailAddress::parse(&format!("{}@example.org", name.to_lowercase())).unwrap();
    let account = db
        .store
        .account_for_email(&email, &PlayerName::parse(name).unwrap())
        .await
        .unwrap();
    let session = db.store.start_session(account.id).await.unwrap();
    Player { account, session }
}

/// A reply: status, body, Location, the session cookie set (if any).
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
        let body = String::from_utf8_lossy(&res.body().limit(4 << 20).await.unwrap()).into_owned();
        Reply {
            status: res.status().as_u16(),
            body,
            location,
            session,
        }
    }

    async fn get(&self, path: &str, session: Option<&str>) -> Reply {
        let res = self
            .client
            .get(format!("{}{path}", self.base))
            .insert_header(("Cookie", self.cookies(session)))
            .send()
            .await
            .unwrap();
        Http::reply(res).await
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
        Http::reply(res).await
    }

    /// Opens a statehood table for `players` as `who`; returns its id.
    async fn open(&self, who: &Player, players: &str, extra: &[(&str, &str)]) -> i64 {
        let mut fields = vec![
            ("players", players),
            ("sit", "true"),
            ("seating", "random"),
            ("opt_target", "1"),
            ("clock", "none"),
        ];
        fields.retain(|(k, _)| extra.iter().all(|(e, _)| e != k));
        fields.extend_from_slice(extra);
        let r = self
            .post("/lobby/new/statehood", Some(&who.session), &fields)
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        r.location.trim_start_matches("/lobby/").parse().unwrap()
    }
}

async fn scalar(db: &TestDb, sql: &'static str, id: i64) -> i64 {
    sqlx::query_scalar(sql)
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

async fn games(db: &TestDb) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM games")
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

/// The invitation tokens queued for `to`, from the outbox.
async fn invitation_token(db: &TestDb, to: &str) -> String {
    let payload: Value = sqlx::query_scalar(
        "SELECT payload FROM outbox WHERE kind = 'table' AND recipient = $1 AND payload ? 'token'",
    )
    .bind(to)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    payload["token"].as_str().unwrap().to_string()
}

#[actix_web::test]
async fn a_table_fills_from_the_lobby_and_an_invitation_and_starts_its_game_once() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let bo = player(&db, "Bo").await;
    let id = http
        .open(
            &ann,
            "3",
            &[
                ("invites", "Dee@Example.org"),
                ("contribution", "Ann's words"),
            ],
        )
        .await;
    assert_eq!(
        games(&db).await,
        0,
        "a table is no game: no seed, no commitment"
    );
    let lobby = http.get("/lobby", None).await;
    assert_eq!(lobby.status, 200);
    assert!(lobby.body.contains(&format!("/lobby/{id}")), "listed");
    assert!(lobby.body.contains("Ann"), "players so far are named");
    assert!(lobby.body.contains("Points to win: 1"), "options in words");

    let joined = http
        .post(&format!("/lobby/{id}/join"), Some(&bo.session), &[])
        .await;
    assert_eq!(joined.status, 303, "{}", joined.body);
    assert_eq!(
        games(&db).await,
        0,
        "one place is still held for the invitation"
    );
    let page = http.get(&format!("/lobby/{id}"), Some(&bo.session)).await;
    assert!(page.body.contains("You have a seat"));
    assert!(page.body.contains("kept for an invited player"));
    let me = http.get("/me", Some(&bo.session)).await;
    assert!(
        me.body.contains("Waiting for players") && me.body.contains(&format!("/lobby/{id}")),
        "a table filling is among my games: {}",
        me.body
    );

    // Dee has no account. The link alone signs nobody in (it may have been forwarded): its
    // page offers a sign-in link mailed to the invited address, and taking the seat without
    // that session is refused and changes nothing.
    let token = invitation_token(&db, "Dee@Example.org").await;
    let shown = http.get(&format!("/lobby/invite/{token}"), None).await;
    assert_eq!(shown.status, 200);
    assert!(
        shown
            .body
            .contains("Mail a sign-in link to Dee@Example.org")
            && !shown.body.contains("Take the seat"),
        "{}",
        shown.body
    );
    let forwarded = http
        .post(&format!("/lobby/invite/{token}"), None, &[])
        .await;
    assert_eq!(forwarded.status, 403, "{}", forwarded.body);
    assert!(
        forwarded.session.is_none(),
        "nobody is signed in by the link"
    );
    let eve = player(&db, "Eve").await;
    let another = http
        .post(&format!("/lobby/invite/{token}"), Some(&eve.session), &[])
        .await;
    assert_eq!(another.status, 403, "{}", another.body);
    assert_eq!(games(&db).await, 0, "nothing changed");
    // Dee signs in by the mailed link (her account is made then), and takes the seat.
    let dee = player(&db, "Dee").await;
    let shown = http
        .get(&format!("/lobby/invite/{token}"), Some(&dee.session))
        .await;
    assert!(shown.body.contains("Take the seat"), "{}", shown.body);
    assert!(
        shown.body.contains("Words for the shuffle"),
        "{}",
        shown.body
    );
    let accepted = http
        .post(
            &format!("/lobby/invite/{token}"),
            Some(&dee.session),
            &[("contribution", " Dee's words ")],
        )
        .await;
    assert_eq!(accepted.status, 303, "{}", accepted.body);
    let dee = dee.account;
    assert_eq!(dee.email.to_lowercase(), "dee@example.org");

    assert_eq!(games(&db).await, 1, "the last place started the game, once");
    let game_id = scalar(&db, "SELECT game_id FROM open_tables WHERE id = $1", id).await;
    let owners: Vec<(i32, Option<i64>, String)> =
        sqlx::query_as("SELECT seat, account_id, name FROM seats WHERE game_id = $1 ORDER BY seat")
            .bind(game_id)
            .fetch_all(db.store.pool())
            .await
            .unwrap();
    let mut owned: Vec<i64> = owners.iter().map(|(_, a, _)| a.unwrap()).collect();
    owned.sort();
    let mut expected = vec![ann.account.id, bo.account.id, dee.id];
    expected.sort();
    assert_eq!(owned, expected, "each seat is its account's");
    // The creator's and the invited player's words went into the deal (docs/FAIRNESS.md);
    // Bo, joining without any, added nothing.
    let mixed: serde_json::Value =
        sqlx::query_scalar("SELECT deal_contributions FROM games WHERE id = $1")
            .bind(game_id)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    let mut mixed: Vec<(String, String)> = mixed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["from"].to_string(), c["value"].to_string()))
        .collect();
    mixed.sort();
    assert_eq!(
        mixed,
        [
            ("\"Ann\"", "\"Ann's words\""),
            ("\"Dee\"", "\"Dee's words\"")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let desk: (bool, Option<String>) =
        sqlx::query_as("SELECT has_desk, organiser_email FROM games WHERE id = $1")
            .bind(game_id)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(
        desk,
        (false, None),
        "a lobby game has no organiser: its creator is a player like the others"
    );
    let invites = scalar(
        &db,
        "SELECT count(*) FROM outbox WHERE game_id = $1 AND kind = 'invite'",
        game_id,
    )
    .await;
    assert_eq!(invites, 3, "everyone is mailed their link");
    let drawn = scalar(
        &db,
        "SELECT count(DISTINCT game_seat) FROM table_seats WHERE table_id = $1",
        id,
    )
    .await;
    assert_eq!(drawn, 3, "the drawn seating is recorded");
    let page = http.get(&format!("/lobby/{id}"), None).await;
    assert!(
        page.body.contains(&format!("/games/{game_id}")),
        "{}",
        page.body
    );

    let me = http.get("/me", Some(&bo.session)).await;
    assert!(
        !me.body.contains(&format!("/lobby/{id}\""))
            && me.body.contains(&format!("/me/games/{game_id}/")),
        "once started, the table is a game of mine: {}",
        me.body
    );

    let again = http
        .post(
            &format!("/lobby/invite/{token}"),
            Some(&player(&db, "Dee").await.session),
            &[],
        )
        .await;
    assert_eq!(again.status, 410, "an invitation is used once");
    let late = http
        .post(
            &format!("/lobby/{id}/join"),
            Some(&player(&db, "Eve").await.session),
            &[],
        )
        .await;
    assert_eq!(late.status, 409);
    assert!(late.body.contains("just taken"), "{}", late.body);
    assert_eq!(games(&db).await, 1);
    db.drop().await;
}

#[actix_web::test]
async fn two_players_racing_for_the_last_seat_one_wins_and_one_game_starts() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    for round in 0..4 {
        let table = http.open(&ann, "2", &[]).await;
        let a = player(&db, &format!("Racer{round}a")).await;
        let b = player(&db, &format!("Racer{round}b")).await;
        let path = format!("/lobby/{table}/join");
        let (ra, rb) = tokio::join!(
            http.post(&path, Some(&a.session), &[]),
            http.post(&path, Some(&b.session), &[])
        );
        let mut statuses = [ra.status, rb.status];
        statuses.sort();
        assert_eq!(statuses, [303, 409], "round {round}: exactly one wins");
        let loser = if ra.status == 409 { &ra } else { &rb };
        assert!(loser.body.contains("just taken"), "{}", loser.body);
        let seated = scalar(
            &db,
            "SELECT count(*) FROM table_seats WHERE table_id = $1",
            table,
        )
        .await;
        assert_eq!(seated, 2);
        assert_eq!(games(&db).await, round + 1, "one game a table");
    }
    db.drop().await;
}

#[actix_web::test]
async fn an_unfilled_table_expires_everyone_is_told_and_nobody_can_join_after() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let bo = player(&db, "Bo").await;
    let id = http
        .open(
            &ann,
            "4",
            &[("expiry_days", "2"), ("invites", "cy@example.org")],
        )
        .await;
    assert_eq!(
        http.post(&format!("/lobby/{id}/join"), Some(&bo.session), &[])
            .await
            .status,
        303
    );
    let later = chrono::Utc::now() + chrono::Duration::days(2) + chrono::Duration::minutes(1);
    let clock = Arc::new(postplay::time::ManualClock::at(later));
    let store = Arc::new(db.store.clone_handle().with_clock(clock));
    let scheduler = postplay::clock::Scheduler::new(store.clone());
    assert_eq!(scheduler.tick().await.unwrap().tables_expired, 1);
    assert_eq!(scheduler.tick().await.unwrap().tables_expired, 0, "once");
    let status: String = sqlx::query_scalar("SELECT status FROM open_tables WHERE id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(status, "expired");

    let sink = SmtpSink::start().await.unwrap();
    let worker = common::mailrig::spawn_worker(&db, &base, sink.port(), common::mailrig::quick());
    // The invitation and three notices of the expiry: Ann, Bo and the invited address.
    let mail = common::mailrig::expect_mail(&sink, 4, 20).await;
    worker.stop().await;
    let expired: Vec<_> = mail
        .iter()
        .filter(|m| m.data.contains("the table expired"))
        .collect();
    let mut told: Vec<String> = expired.iter().map(|m| m.to[0].to_lowercase()).collect();
    told.sort();
    assert_eq!(
        told,
        ["ann@example.org", "bo@example.org", "cy@example.org"]
    );

    let eve = player(&db, "Eve").await;
    let refused = http
        .post(&format!("/lobby/{id}/join"), Some(&eve.session), &[])
        .await;
    assert_eq!(refused.status, 409);
    assert!(refused.body.contains("expired"));
    let lobby = http.get("/lobby", None).await;
    assert!(!lobby.body.contains(&format!("/lobby/{id}\"")));
    assert_eq!(games(&db).await, 0);
    db.drop().await;
}

#[actix_web::test]
async fn the_commitment_is_fixed_at_the_start_and_verifies_against_the_seed_revealed_at_the_end() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let id = http.open(&ann, "2", &[]).await;
    let columns: Vec<String> = sqlx::query_scalar(
        "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'open_tables'",
    )
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    assert!(
        !columns
            .iter()
            .any(|c| c.contains("seed") || c.contains("commit")),
        "a table holds no seed and no commitment: {columns:?}"
    );
    let before = db.store.now();
    let bo = player(&db, "Bo").await;
    assert_eq!(
        http.post(&format!("/lobby/{id}/join"), Some(&bo.session), &[])
            .await
            .status,
        303
    );
    let game_id = scalar(&db, "SELECT game_id FROM open_tables WHERE id = $1", id).await;
    let loaded = db.store.load(game_id).await.unwrap();
    assert!(
        loaded.row.created_at >= before,
        "the game (and its seed) is made at the start"
    );
    let commitment = loaded.row.commitment.clone();
    common::play_until(&db, game_id, 3, |_| false).await;
    let over: Value = sqlx::query_scalar(
        "SELECT payload FROM outbox WHERE game_id = $1 AND kind = 'over' LIMIT 1",
    )
    .bind(game_id)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert_eq!(over["commitment"], commitment.as_str());
    let seed: postplay::engine::Seed = over["seed"].as_str().unwrap().parse().unwrap();
    assert_eq!(seed.commitment(), commitment, "the revealed seed verifies");
    db.drop().await;
}

#[actix_web::test]
async fn placed_seating_gives_each_player_the_seat_they_chose() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let bo = player(&db, "Bo").await;
    let cy = player(&db, "Cy").await;
    let id = http
        .open(&ann, "3", &[("seating", "placed"), ("position", "2")])
        .await;
    let taken = http
        .post(
            &format!("/lobby/{id}/join"),
            Some(&bo.session),
            &[("position", "2")],
        )
        .await;
    assert_eq!(taken.status, 409, "Ann sits there");
    for (who, at) in [(&bo, "0"), (&cy, "1")] {
        let r = http
            .post(
                &format!("/lobby/{id}/join"),
                Some(&who.session),
                &[("position", at)],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
    }
    let game_id = scalar(&db, "SELECT game_id FROM open_tables WHERE id = $1", id).await;
    let names: Vec<String> =
        sqlx::query_scalar("SELECT name FROM seats WHERE game_id = $1 ORDER BY seat")
            .bind(game_id)
            .fetch_all(db.store.pool())
            .await
            .unwrap();
    assert_eq!(names, ["Bo", "Cy", "Ann"]);
    db.drop().await;
}

#[actix_web::test]
async fn the_lobby_is_bounded_and_bad_input_changes_nothing() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let tables = || async {
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM open_tables")
            .fetch_one(db.store.pool())
            .await
            .unwrap()
    };
    let bad: &[&[(&str, &str)]] = &[
        &[("players", "2"), ("expiry_days", "0")],
        &[("players", "2"), ("expiry_days", "31")],
        &[("players", "2"), ("expiry_days", "soon")],
        &[("players", "5")],
        &[("players", "2"), ("opt_target", "99999")],
        &[("players", "3"), ("invites", "not an address")],
        &[("players", "3"), ("invites", "ann@example.org")],
        &[
            ("players", "2"),
            ("invites", "x@example.org"),
            ("sit", "true"),
        ],
        &[("players", "3"), ("seating", "sideways")],
    ];
    for fields in bad {
        let mut all = vec![("sit", "true"), ("clock", "none")];
        all.extend_from_slice(fields);
        let r = http
            .post("/lobby/new/statehood", Some(&ann.session), &all)
            .await;
        assert_eq!(r.status, 422, "{fields:?}: {}", r.body);
        assert!(
            r.body.contains("class=\"panel error\""),
            "the form says why"
        );
    }
    assert_eq!(tables().await, 0, "nothing was opened");
    let many: Vec<String> = (0..16).map(|i| format!("p{i}@example.org")).collect();
    let r = http
        .post(
            "/lobby/new/statehood",
            Some(&ann.session),
            &[("players", "4"), ("invites", &many.join("\n"))],
        )
        .await;
    assert_eq!(r.status, 422);
    for _ in 0..MAX_OPEN_TABLES {
        http.open(&ann, "2", &[]).await;
    }
    let r = http
        .post(
            "/lobby/new/statehood",
            Some(&ann.session),
            &[("players", "2"), ("sit", "true")],
        )
        .await;
    assert_eq!(r.status, 422);
    assert!(r.body.contains("open tables already"), "{}", r.body);
    assert_eq!(tables().await, MAX_OPEN_TABLES);
    let no_csrf = http
        .client
        .post(format!("{}/lobby/new/statehood", http.base))
        .insert_header(("Cookie", format!("pp_session={}", ann.session)))
        .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
        .send_body("players=2")
        .await
        .unwrap();
    assert_eq!(no_csrf.status().as_u16(), 403);
    assert_eq!(tables().await, MAX_OPEN_TABLES);
    assert_eq!(
        db.store.open_tables_of(ann.account.id).await.unwrap().len(),
        MAX_OPEN_TABLES as usize
    );
    db.drop().await;
}

/// Who asks, for the authorization table.
#[derive(Debug, Clone, Copy)]
enum Who {
    Anonymous,
    SeatLinkHolder,
    Owner,
    Stranger,
}

#[actix_web::test]
async fn every_lobby_route_answers_each_kind_of_reader_as_it_should() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let owner = player(&db, "Ann").await;
    let stranger = player(&db, "Sam").await;
    // The seat link holder plays a game made by link; the link gives them nothing here.
    let (_, links) = common::create_game(&db, "statehood", &["Lou", "Max"], 1).await;
    let link = links[0].clone();
    let session = |who: Who| match who {
        Who::Owner => Some(owner.session.clone()),
        Who::Stranger => Some(stranger.session.clone()),
        Who::Anonymous | Who::SeatLinkHolder => None,
    };
    use Who::*;
    for who in [Anonymous, SeatLinkHolder, Owner, Stranger] {
        // A table of the owner's for each reader, with one invitation to withdraw.
        let table = http
            .open(
                &owner,
                "4",
                &[("invites", &format!("guest{}@example.org", who as u8))],
            )
            .await;
        let s = session(who);
        let s = s.as_deref();
        if matches!(who, SeatLinkHolder) {
            assert_eq!(http.get(&format!("/play/{link}"), None).await.status, 200);
        }
        let token = invitation_token(&db, &format!("guest{}@example.org", who as u8)).await;
        let signed = matches!(who, Owner | Stranger);
        let to_sign_in = |r: &Reply| r.status == 303 && r.location.starts_with("/signin?next=");
        let checks: Vec<(&str, Reply, u16)> = vec![
            ("GET /lobby", http.get("/lobby", s).await, 200),
            (
                "GET /lobby/{id}",
                http.get(&format!("/lobby/{table}"), s).await,
                200,
            ),
            (
                "GET /lobby/new/statehood",
                http.get("/lobby/new/statehood", s).await,
                if signed { 200 } else { 303 },
            ),
            (
                "GET /lobby/invite/{token}",
                http.get(&format!("/lobby/invite/{token}"), s).await,
                200,
            ),
            (
                "POST /lobby/{id}/leave",
                http.post(&format!("/lobby/{table}/leave"), s, &[]).await,
                if signed { 403 } else { 303 },
            ),
            (
                "POST /lobby/{id}/withdraw/1",
                http.post(&format!("/lobby/{table}/withdraw/1"), s, &[])
                    .await,
                match who {
                    Owner => 303,
                    Stranger => 403,
                    _ => 303,
                },
            ),
            (
                "POST /lobby/{id}/join",
                http.post(&format!("/lobby/{table}/join"), s, &[]).await,
                match who {
                    Owner => 409,
                    _ => 303,
                },
            ),
            (
                "POST /lobby/{id}/cancel",
                http.post(&format!("/lobby/{table}/cancel"), s, &[]).await,
                match who {
                    Stranger => 403,
                    _ => 303,
                },
            ),
            (
                "POST /lobby/new/statehood",
                http.post(
                    "/lobby/new/statehood",
                    s,
                    &[("players", "2"), ("sit", "true")],
                )
                .await,
                303,
            ),
        ];
        for (route, reply, expected) in &checks {
            assert_eq!(reply.status, *expected, "{who:?} {route}: {}", reply.body);
            if !signed && reply.status == 303 {
                assert!(to_sign_in(reply), "{who:?} {route} is sent to sign in");
            }
        }
        let status: String = sqlx::query_scalar("SELECT status FROM open_tables WHERE id = $1")
            .bind(table)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
        assert_eq!(
            status,
            if matches!(who, Owner) {
                "cancelled"
            } else {
                "open"
            },
            "{who:?}: only the creator cancels"
        );
        let held = scalar(
            &db,
            "SELECT count(*) FROM table_seats WHERE table_id = $1 AND account_id IS NULL",
            table,
        )
        .await;
        assert_eq!(
            held,
            if matches!(who, Owner) { 0 } else { 1 },
            "{who:?}: only the creator withdraws"
        );
        // Cleanup so the owner stays under the bound of open tables.
        sqlx::query("UPDATE open_tables SET status = 'cancelled' WHERE creator_id = $1")
            .bind(owner.account.id)
            .execute(db.store.pool())
            .await
            .unwrap();
    }
    // POST /lobby/invite/{token}: only a session of the invited address, once (the link is no
    // proof: it may have been forwarded).
    let table = http
        .open(&owner, "4", &[("invites", "last@example.org")])
        .await;
    let token = invitation_token(&db, "last@example.org").await;
    for session in [None, Some(stranger.session.as_str())] {
        let refused = http
            .post(&format!("/lobby/invite/{token}"), session, &[])
            .await;
        assert_eq!(refused.status, 403, "{}", refused.body);
        assert!(refused.session.is_none());
    }
    let last = player(&db, "Last").await;
    let first = http
        .post(&format!("/lobby/invite/{token}"), Some(&last.session), &[])
        .await;
    assert_eq!(first.status, 303);
    let second = http
        .post(&format!("/lobby/invite/{token}"), Some(&last.session), &[])
        .await;
    assert_eq!(second.status, 410);
    assert_eq!(
        scalar(
            &db,
            "SELECT count(*) FROM table_seats WHERE table_id = $1",
            table
        )
        .await,
        2
    );
    db.drop().await;
}

/// Issue 32: an unlisted table is not in the lobby's list, and the game it starts is unlisted
/// (on no list, its id opening nothing; its players see the spectator link).
#[actix_web::test]
async fn an_unlisted_table_is_in_no_list_and_starts_an_unlisted_game() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let listed = http.open(&ann, "2", &[]).await;
    let id = http
        .open(
            &ann,
            "2",
            &[("unlisted", "true"), ("invites", "bo@example.org")],
        )
        .await;
    let lobby = http.get("/lobby", None).await;
    assert!(
        lobby.body.contains(&format!("/lobby/{listed}\"")),
        "{}",
        lobby.body
    );
    assert!(
        !lobby.body.contains(&format!("/lobby/{id}\"")),
        "{}",
        lobby.body
    );
    // Its seats fill by invitation only (its number opens nothing to a stranger).
    let token = invitation_token(&db, "bo@example.org").await;
    let joined = http
        .post(
            &format!("/lobby/invite/{token}"),
            Some(&player(&db, "Bo").await.session),
            &[],
        )
        .await;
    assert_eq!(joined.status, 303, "{}", joined.body);
    let game_id = scalar(&db, "SELECT game_id FROM open_tables WHERE id = $1", id).await;
    let watch = db
        .store
        .spectator_token(game_id)
        .await
        .unwrap()
        .expect("unlisted");
    assert_eq!(
        http.get(&format!("/games/{game_id}"), None).await.status,
        404
    );
    assert_eq!(http.get(&format!("/watch/{watch}"), None).await.status, 200);
    let home = http.get("/", None).await;
    assert!(
        !home.body.contains(&format!("/games/{game_id}\"")),
        "{}",
        home.body
    );
    db.drop().await;
}

#[actix_web::test]
async fn the_lobby_the_table_and_its_invitation_say_the_time_to_move() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let id = http
        .open(
            &ann,
            "3",
            &[("clock", "fischer:3:1:7"), ("invites", "dee@example.org")],
        )
        .await;
    let words = "3 days + 1 day a move, at most 7 days";
    let lobby = http.get("/lobby", None).await;
    let row = lobby
        .body
        .split(&format!("/lobby/{id}\""))
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .unwrap_or_default();
    assert!(row.contains(words), "{row}");
    let page = http.get(&format!("/lobby/{id}"), None).await;
    assert!(
        page.body.contains(&format!("Time to move: {words}")),
        "{}",
        page.body
    );
    let payload: Value = sqlx::query_scalar(
        "SELECT payload FROM outbox WHERE kind = 'table' AND recipient = 'dee@example.org'",
    )
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    assert!(
        payload
            .to_string()
            .contains(&format!("Time to move: {words}")),
        "{payload}"
    );
    db.drop().await;
}

/// An unlisted table's id is as guessable as any: its page and its actions answer 404, exactly
/// as for a table that does not exist, to anyone but its creator, the accounts seated at it and
/// the addresses it invited; a listed table's page stays open to all.
#[actix_web::test]
async fn an_unlisted_table_answers_only_its_creator_its_players_and_its_invitees() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let http = Http::new(&base);
    let ann = player(&db, "Ann").await;
    let listed = http.open(&ann, "4", &[]).await;
    // Nobody but its invitees can take a seat: one left free would never fill.
    let free = http
        .post(
            "/lobby/new/statehood",
            Some(&ann.session),
            &[
                ("players", "4"),
                ("sit", "true"),
                ("seating", "random"),
                ("opt_target", "1"),
                ("clock", "none"),
                ("unlisted", "true"),
                ("invites", "dee@example.org\nbo@example.org"),
            ],
        )
        .await;
    assert_eq!(free.status, 422, "{}", free.body);
    assert!(
        free.body.contains("invite one address for each seat"),
        "{}",
        free.body
    );
    let id = http
        .open(
            &ann,
            "4",
            &[
                ("unlisted", "true"),
                ("invites", "dee@example.org\nbo@example.org\ncy@example.org"),
            ],
        )
        .await;
    let missing = id + 1000;
    let eve = player(&db, "Eve").await;
    let dee = player(&db, "Dee").await;

    let page = |path: String, who: Option<String>| {
        let http = &http;
        async move { http.get(&path, who.as_deref()).await }
    };
    let mine = page(format!("/lobby/{id}"), Some(ann.session.clone())).await;
    assert_eq!(mine.status, 200, "the creator reaches it: {}", mine.body);
    assert!(mine.body.contains("kept for an invited player"));
    let invited = page(format!("/lobby/{id}"), Some(dee.session.clone())).await;
    assert_eq!(
        invited.status, 200,
        "an account whose address is invited reaches it"
    );
    for who in [None, Some(eve.session.clone())] {
        let got = page(format!("/lobby/{id}"), who.clone()).await;
        let none = page(format!("/lobby/{missing}"), who.clone()).await;
        assert_eq!(got.status, 404, "{who:?}: {}", got.body);
        assert_eq!(
            got.body.replace(&id.to_string(), "#"),
            none.body.replace(&missing.to_string(), "#"),
            "an unlisted table answers as a missing one"
        );
        let open = page(format!("/lobby/{listed}"), who.clone()).await;
        assert_eq!(open.status, 200, "a listed table is open to all");
    }
    let lobby = page("/lobby".to_string(), None).await;
    assert!(!lobby.body.contains(&format!("/lobby/{id}\"")));

    // A stranger's actions by number find nothing and change nothing.
    let seated = || {
        scalar(
            &db,
            "SELECT count(*) FROM table_seats WHERE table_id = $1",
            id,
        )
    };
    let before = seated().await;
    for path in [
        format!("/lobby/{id}/join"),
        format!("/lobby/{id}/leave"),
        format!("/lobby/{id}/cancel"),
        format!("/lobby/{id}/withdraw/1"),
    ] {
        let answer = http.post(&path, Some(&eve.session), &[]).await;
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
    }
    assert_eq!(seated().await, before);
    let status: String = sqlx::query_scalar("SELECT status FROM open_tables WHERE id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(status, "open");

    // The invitation's link, with a session of the invited address, is the way in; a player
    // seated by it reaches the page, and no longer once they leave.
    let token = invitation_token(&db, "bo@example.org").await;
    assert_eq!(
        page(format!("/lobby/invite/{token}"), None).await.status,
        200
    );
    let bo = player(&db, "Bo").await.session;
    let accepted = http
        .post(&format!("/lobby/invite/{token}"), Some(&bo), &[])
        .await;
    assert_eq!(accepted.status, 303, "{}", accepted.body);
    assert_eq!(accepted.location, format!("/lobby/{id}"));
    assert_eq!(
        page(format!("/lobby/{id}"), Some(bo.clone())).await.status,
        200
    );
    let left = http
        .post(&format!("/lobby/{id}/leave"), Some(&bo), &[])
        .await;
    assert_eq!(left.status, 303, "{}", left.body);
    assert_eq!(left.location, "/me", "sent to my games, not to a 404");
    assert_eq!(
        page(format!("/lobby/{id}"), Some(bo)).await.status,
        404,
        "a player who left is a stranger again"
    );
    // The creator's "my games" leads to it.
    let me = page("/me".to_string(), Some(ann.session.clone())).await;
    assert!(me.body.contains(&format!("/lobby/{id}")), "{}", me.body);
    db.drop().await;
}

/// Issue 45: names a reader could not tell apart. A player whose name looks like one seated
/// at a table already is refused at it, and a new game's form refuses two such players and a
/// name with a zero-width space; nothing is written.
#[actix_web::test]
async fn names_that_look_alike_are_refused_at_a_table_and_in_a_new_game() {
    let db = TestDb::new().await;
    let http = Http::new(&spawn_app(&db));
    let ann = player(&db, "Ann").await;
    let id = http.open(&ann, "3", &[]).await;
    let twin = db
        .store
        .account_for_email(
            &EmailAddress::parse("twin@example.org").unwrap(),
            &PlayerName::parse("ＡＮＮ").unwrap(),
        )
        .await
        .unwrap();
    let twin_session = db.store.start_session(twin.id).await.unwrap();
    let seated = "SELECT count(*) FROM table_seats WHERE table_id = $1";
    let r = http
        .post(&format!("/lobby/{id}/join"), Some(&twin_session), &[])
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("looks just like it"), "{}", r.body);
    assert_eq!(scalar(&db, seated, id).await, 1);
    let bo = player(&db, "Bo").await;
    let r = http
        .post(&format!("/lobby/{id}/join"), Some(&bo.session), &[])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);

    for (second, says) in [
        ("ann", "look alike"),
        ("Ann\u{FE0F}", "look alike"),
        ("Ａnn", "look alike"),
        ("A\u{200B}nn", "invisible characters"),
    ] {
        let r = http
            .post(
                "/new/statehood",
                None,
                &[("name0", "Ann"), ("name1", second), ("opt_target", "1")],
            )
            .await;
        assert_eq!(r.status, 422, "{second:?}: {}", r.body);
        assert!(r.body.contains(says), "{second:?}: {}", r.body);
    }
    assert_eq!(games(&db).await, 0);
    let r = http
        .post(
            "/new/statehood",
            None,
            &[("name0", "Ann"), ("name1", "Anne"), ("opt_target", "1")],
        )
        .await;
    assert_eq!(r.status, 303, "names that differ make a game: {}", r.body);
    assert_eq!(games(&db).await, 1);
    db.drop().await;
}
