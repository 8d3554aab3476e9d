//! A club's archive and its paged standings (issue 33, item 7) over real HTTP against the real
//! server and a real PostgreSQL: the archive's filters alone and combined across pages, its
//! bad values, who may read it, real games played to their end (and one cancelled) reaching
//! it with their replay and verifiable record, and the standings a page at a time. Most games
//! here are written in SQL (130 finished games would take minutes to play), with the columns
//! a finished game has.

use crate::common;

use common::{TestDb, spawn_app};
use postplay::engine::Seed;
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::store::{CancelReason, EmailAddress, NewSeat, PlayerName};
use serde_json::{Value, json};
use std::collections::HashMap;

/// A GET of `path` as the session `session` (if any): status and body.
async fn get(base: &str, path: &str, session: Option<&str>) -> (u16, String) {
    let client = awc::Client::builder()
        .disable_redirects()
        .timeout(std::time::Duration::from_secs(30))
        .finish();
    let mut req = client.get(format!("{base}{path}"));
    if let Some(s) = session {
        req = req.insert_header(("Cookie", format!("pp_session={s}")));
    }
    let mut res = req.send().await.unwrap();
    let body = res.body().limit(8 << 20).await.unwrap();
    (
        res.status().as_u16(),
        String::from_utf8_lossy(&body).into_owned(),
    )
}

/// The games listed on an archive page, in order: each row's link to the game's page.
fn listed(body: &str) -> Vec<i64> {
    body.split("<a href=\"/games/")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            rest[digits.len()..]
                .starts_with('"')
                .then(|| digits.parse().unwrap())
        })
        .collect()
}

/// The address of the link named `words` on a page, unescaped.
fn link(body: &str, words: &str) -> Option<String> {
    let end = body.find(&format!("\">{words}</a>"))?;
    let start = body[..end].rfind("href=\"")? + 6;
    Some(body[start..end].replace("&#38;", "&").replace("&amp;", "&"))
}

async fn account(db: &TestDb, name: &str) -> i64 {
    let local = name.to_lowercase().replace(' ', ".");
    let email = EmailAddress::parse(&format!("{local}@example.org")).unwrap();
    db.store
        .account_for_email(&email, &PlayerName::parse(name).unwrap())
        .await
        .unwrap()
        .id
}

async fn exec(db: &TestDb, sql: &'static str, binds: &[i64]) {
    let mut q = sqlx::query(sql);
    for b in binds {
        q = q.bind(b);
    }
    q.execute(db.store.pool()).await.unwrap();
}

async fn club(db: &TestDb, name: &str, private: bool, members: &[i64]) -> i64 {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO clubs (name, private, created_by, created_at) VALUES ($1, $2, $3, now()) \
         RETURNING id",
    )
    .bind(name)
    .bind(private)
    .bind(members[0])
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    for (i, m) in members.iter().enumerate() {
        sqlx::query(
            "INSERT INTO club_members (club_id, account_id, role, joined_at) \
             VALUES ($1, $2, $3, now())",
        )
        .bind(id)
        .bind(m)
        .bind(if i == 0 { "admin" } else { "member" })
        .execute(db.store.pool())
        .await
        .unwrap();
    }
    id
}

async fn league(db: &TestDb, club: i64, name: &str, by: i64) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO leagues (club_id, name, kind, options, settings, meetings, mode, \
         signup_closes_at, created_by, created_at, status) VALUES ($1, $2, 'statehood', '{}', \
         '{}', 'once', 'all_at_once', now(), $3, now(), 'finished') RETURNING id",
    )
    .bind(club)
    .bind(name)
    .bind(by)
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

/// A two-seat game written in SQL: `status`, its last move `minutes` after a fixed hour.
async fn sql_game(
    db: &TestDb,
    club: i64,
    kind: &str,
    seats: [(i64, &str); 2],
    league: Option<i64>,
    status: &str,
    minutes: i64,
) -> i64 {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
         organiser_token_hash, head_hash, status, head_seq, result, club_id, league_id, \
         updated_at) VALUES ($1, 1, '{}', 2, decode(repeat('00', 32), 'hex'), repeat('0', 64), \
         sha256(gen_random_uuid()::text::bytea), repeat('0', 64), $2, 1, $3, $4, $5, \
         timestamptz '2026-01-01 00:00Z' + make_interval(mins => $6::int)) RETURNING id",
    )
    .bind(kind)
    .bind(status)
    .bind("{s0} wins by 3 points")
    .bind(club)
    .bind(league)
    .bind(minutes as i32)
    .fetch_one(db.store.pool())
    .await
    .unwrap();
    for (seat, (account, name)) in seats.iter().enumerate() {
        sqlx::query(
            "INSERT INTO seats (game_id, seat, name, token_hash, account_id) \
             VALUES ($1, $2, $3, sha256(gen_random_uuid()::text::bytea), $4)",
        )
        .bind(id)
        .bind(seat as i32)
        .bind(name)
        .bind(account)
        .execute(db.store.pool())
        .await
        .unwrap();
    }
    sqlx::query(
        "INSERT INTO commands (game_id, seq, seat, command, created_at, hash) \
         VALUES ($1, 1, 0, '{}', now(), repeat('0', 64))",
    )
    .bind(id)
    .execute(db.store.pool())
    .await
    .unwrap();
    id
}

const KINDS: [&str; 3] = ["statehood", "electoral-combat", "nationhood"];

/// One game of the seeded archive, as its filters see it.
#[derive(Clone)]
struct Seeded {
    id: i64,
    kind: &'static str,
    players: [i64; 2],
    league: Option<i64>,
    cancelled: bool,
}

/// The seeded club's finished games.
const GAMES: i64 = 900;

/// Writes `games` (game n ended n minutes after a fixed hour) in three statements and sets
/// their ids.
async fn bulk_games(db: &TestDb, club: i64, games: &mut [Seeded]) {
    let kinds: Vec<&str> = games.iter().map(|g| g.kind).collect();
    let first: Vec<i64> = games.iter().map(|g| g.players[0]).collect();
    let second: Vec<i64> = games.iter().map(|g| g.players[1]).collect();
    let leagues: Vec<Option<i64>> = games.iter().map(|g| g.league).collect();
    let cancelled: Vec<bool> = games.iter().map(|g| g.cancelled).collect();
    let ids: Vec<i64> = sqlx::query_scalar(
        "WITH t AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[], \
           $6::bool[]) WITH ORDINALITY AS t(kind, a0, a1, league, cancelled, n)), \
         g AS (INSERT INTO games (kind, rules_version, options, seat_count, seed, commitment, \
           organiser_token_hash, head_hash, status, head_seq, result, club_id, league_id, \
           updated_at) \
           SELECT kind, 1, '{}', 2, decode(repeat('00', 32), 'hex'), repeat('0', 64), \
           sha256(('archive ' || n)::bytea), repeat('0', 64), 'over', 1, \
           CASE WHEN cancelled THEN 'Cancelled by the organiser: the hall closed' \
             ELSE '{s0} wins by 3 points' END, $1, league, \
           timestamptz '2026-01-01 00:00Z' + make_interval(mins => n::int) FROM t \
           RETURNING id, organiser_token_hash), \
         s AS (INSERT INTO seats (game_id, seat, name, token_hash, account_id) \
           SELECT g.id, p.seat, a.name, sha256(('seat ' || g.id || ' ' || p.seat)::bytea), \
             p.account \
           FROM t JOIN g ON g.organiser_token_hash = sha256(('archive ' || t.n)::bytea), \
           LATERAL (VALUES (0, t.a0), (1, t.a1)) AS p(seat, account) \
           JOIN accounts a ON a.id = p.account), \
         c AS (INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) \
           SELECT g.id, 1, 0, '{}', now(), repeat('0', 64), \
             CASE WHEN t.cancelled THEN 'organiser' END \
           FROM t JOIN g ON g.organiser_token_hash = sha256(('archive ' || t.n)::bytea)) \
         SELECT g.id FROM t JOIN g ON g.organiser_token_hash = sha256(('archive ' || t.n)::bytea) \
         ORDER BY t.n",
    )
    .bind(club)
    .bind(&kinds)
    .bind(&first)
    .bind(&second)
    .bind(&leagues)
    .bind(&cancelled)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    for (game, id) in games.iter_mut().zip(ids) {
        game.id = id;
    }
}

/// The seeded club and who is who.
struct Archive {
    db: TestDb,
    base: String,
    club: i64,
    other_club: i64,
    /// Name → account.
    who: HashMap<&'static str, i64>,
    /// Name → session.
    session: HashMap<&'static str, String>,
    leagues: [i64; 2],
    other_league: i64,
    /// The club's finished games, the last ended first.
    games: Vec<Seeded>,
}

/// A private club "Archivists" (Ada its admin; Ben to Fay and Ivy members; Gus a former
/// member, removed, who still held seats) with two leagues and 900 finished games of two
/// seats (every fifth of league Spring, the next of league Autumn, every fortieth cancelled),
/// 4 running games; and another club (Hal, Jo) with its own league and finished games.
async fn seed() -> Archive {
    let db = TestDb::new().await;
    let names = [
        "Ada", "Ben", "Cai", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Nia",
    ];
    let mut who = HashMap::new();
    let mut session = HashMap::new();
    for name in names {
        let id = account(&db, name).await;
        who.insert(name, id);
        session.insert(name, db.store.start_session(id).await.unwrap());
    }
    let members: Vec<i64> = ["Ada", "Ben", "Cai", "Dee", "Eve", "Fay", "Ivy"]
        .iter()
        .map(|n| who[n])
        .collect();
    let club = club(&db, "Archivists", true, &members).await;
    let other_club = club_other(&db, &who).await;
    let leagues = [
        league(&db, club, "Spring", who["Ada"]).await,
        league(&db, club, "Autumn", who["Ada"]).await,
    ];
    let other_league = league(&db, other_club, "Elsewhere cup", who["Hal"]).await;
    let players = ["Ada", "Ben", "Cai", "Dee", "Eve", "Fay", "Gus"];
    let mut games = Vec::new();
    for n in 1..=GAMES {
        let kind = KINDS[(n % 3) as usize];
        let league = match n % 5 {
            0 => Some(leagues[0]),
            1 => Some(leagues[1]),
            _ => None,
        };
        games.push(Seeded {
            id: 0,
            kind,
            players: [
                who[players[(n % 7) as usize]],
                who[players[((n + 1) % 7) as usize]],
            ],
            league,
            cancelled: n % 40 == 0,
        });
    }
    bulk_games(&db, club, &mut games).await;
    games.reverse();
    for n in 0..4 {
        let seats = [(who["Ada"], "Ada"), (who["Ben"], "Ben")];
        sql_game(&db, club, "statehood", seats, None, "running", 2000 + n).await;
    }
    for n in 0..3 {
        let seats = [(who["Hal"], "Hal"), (who["Jo"], "Jo")];
        let l = (n == 0).then_some(other_league);
        sql_game(&db, other_club, "statehood", seats, l, "over", 3000 + n).await;
    }
    // Ratings of those who played rated games (Gus too: he played before he was removed).
    for name in ["Ada", "Ben", "Cai", "Dee", "Eve", "Fay", "Gus"] {
        exec(
            &db,
            "INSERT INTO club_ratings (club_id, kind, account_id, mu, sigma, rating, games, \
             wins, moves_on_time, moves, updated_at) \
             VALUES ($1, 'statehood', $2, 25, 5, 1000, 10, 10, 10, 10, now())",
            &[club, who[name]],
        )
        .await;
    }
    let base = spawn_app(&db);
    Archive {
        db,
        base,
        club,
        other_club,
        who,
        session,
        leagues,
        other_league,
        games,
    }
}

async fn club_other(db: &TestDb, who: &HashMap<&'static str, i64>) -> i64 {
    club(db, "Elsewhere", true, &[who["Hal"], who["Jo"]]).await
}

impl Archive {
    /// Every game listed from `path` on, following "earlier games" page after page; checks
    /// that each page holds 50 games but the last, and says which page it is.
    async fn walk(&self, path: &str, reader: &str) -> Vec<i64> {
        let mut all = Vec::new();
        let mut next = Some(path.to_string());
        let mut page = 0;
        while let Some(path) = next {
            let (status, body) = get(&self.base, &path, Some(&self.session[reader])).await;
            assert_eq!(status, 200, "{path}: {body}");
            let ids = listed(&body);
            page += 1;
            assert!(body.contains(&format!("page {page}")), "{path}: {body}");
            next = link(&body, "earlier games");
            assert!(
                ids.len() == 50 || next.is_none(),
                "{path}: {} games and a next page",
                ids.len()
            );
            assert!(page < 30, "{path}: the pages do not end");
            all.extend(ids);
        }
        all
    }

    fn expected(&self, keep: impl Fn(&Seeded) -> bool) -> Vec<i64> {
        self.games
            .iter()
            .filter(|g| keep(g))
            .map(|g| g.id)
            .collect()
    }
}

#[actix_web::test]
async fn the_archive_filters_by_game_player_and_league_alone_and_combined_across_pages() {
    let a = seed().await;
    let (club, ada, gus) = (a.club, a.who["Ada"], a.who["Gus"]);
    let [spring, autumn] = a.leagues;
    let cases: Vec<(String, Vec<i64>)> = vec![
        (String::new(), a.expected(|_| true)),
        (
            "kind=nationhood".into(),
            a.expected(|g| g.kind == "nationhood"),
        ),
        (
            format!("player={ada}"),
            a.expected(|g| g.players.contains(&ada)),
        ),
        (
            format!("player={gus}"),
            a.expected(|g| g.players.contains(&gus)),
        ),
        (
            format!("league={spring}"),
            a.expected(|g| g.league == Some(spring)),
        ),
        (
            format!("kind=statehood&player={ada}"),
            a.expected(|g| g.kind == "statehood" && g.players.contains(&ada)),
        ),
        (
            format!("kind=electoral-combat&league={autumn}"),
            a.expected(|g| g.kind == "electoral-combat" && g.league == Some(autumn)),
        ),
        (
            format!("player={gus}&league={autumn}"),
            a.expected(|g| g.players.contains(&gus) && g.league == Some(autumn)),
        ),
        (
            format!("kind=nationhood&player={ada}&league={spring}"),
            a.expected(|g| {
                g.kind == "nationhood" && g.players.contains(&ada) && g.league == Some(spring)
            }),
        ),
    ];
    for (query, expected) in &cases {
        assert!(!expected.is_empty(), "{query}: the seed has games for it");
        let path = format!("/clubs/{club}/archive?{query}");
        let found = a.walk(&path, "Ben").await;
        assert_eq!(&found, expected, "{query}: every match, newest first, once");
    }
    for (query, expected) in &cases[..8] {
        assert!(
            expected.len() > 50,
            "{query}: paged ({} games)",
            expected.len()
        );
    }

    // The first page: what a row shows.
    let (status, body) = get(
        &a.base,
        &format!("/clubs/{club}/archive"),
        Some(&a.session["Ben"]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let newest = &a.games[0];
    assert_eq!(listed(&body)[0], newest.id);
    for part in [
        format!("/games/{}/replay", newest.id),
        format!("/api/games/{}/export", newest.id),
        "verifiable record".to_string(),
    ] {
        assert!(body.contains(&part), "{part}: {body}");
    }
    // The result's seat placeholders are the players' names.
    assert!(!body.contains("{s0}"), "placeholders are filled: {body}");
    assert!(body.contains("wins by 3 points"), "{body}");
    assert!(
        body.contains("Spring") && body.contains("Autumn"),
        "league names: {body}"
    );
    let cancelled = a.games.iter().find(|g| g.cancelled).unwrap().id;
    let row = body
        .split(&format!("<a href=\"/games/{cancelled}\""))
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap();
    assert!(row.contains("cancelled"), "{row}");
    assert!(
        !body.contains("@example.org"),
        "names, never addresses: {body}"
    );
    // The player select: members and rated former members, never the other club's.
    for name in ["Ada", "Fay", "Gus", "Ivy"] {
        assert!(
            body.contains(&format!(">{name}</option>")),
            "{name}: {body}"
        );
    }
    assert!(!body.contains(">Hal</option>"), "{body}");
    assert!(!body.contains("Elsewhere cup"), "{body}");
    // A player's name links to the archive filtered by them, other filters kept.
    let (_, body) = get(
        &a.base,
        &format!("/clubs/{club}/archive?kind=nationhood"),
        Some(&a.session["Ben"]),
    )
    .await;
    assert!(
        body.contains(&format!(
            "/clubs/{club}/archive?kind=nationhood&#38;player={ada}\""
        )),
        "{body}"
    );
    assert!(
        body.contains("<option value=\"nationhood\" selected>"),
        "the filter shows as chosen: {body}"
    );

    // A member who played nothing: no game, no error; a page past the end: empty.
    let (status, body) = get(
        &a.base,
        &format!("/clubs/{club}/archive?player={}", a.who["Ivy"]),
        Some(&a.session["Ben"]),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("No finished game of the club matches"),
        "{body}"
    );
    let (status, body) = get(
        &a.base,
        &format!("/clubs/{club}/archive?page=18"),
        Some(&a.session["Ben"]),
    )
    .await;
    assert_eq!((status, listed(&body).len()), (200, 0), "{body}");
    assert!(body.contains("No more finished games"), "{body}");

    // Bad values: 400 with the reason; another club's player or league answers as one that
    // does not exist.
    let bad = |query: String| format!("/clubs/{club}/archive?{query}");
    for (query, reason) in [
        ("kind=chess".to_string(), "no game called"),
        ("player=abc".to_string(), "must be a number"),
        ("player=-3".to_string(), "must be a number"),
        ("league=1.5".to_string(), "must be a number"),
        ("page=x".to_string(), "must be a number"),
        (format!("player={}", a.who["Hal"]), "nobody who played"),
        (
            format!("league={}", a.other_league),
            "no league of this club",
        ),
    ] {
        let (status, body) = get(&a.base, &bad(query.clone()), Some(&a.session["Ben"])).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(reason), "{query}: {body}");
    }
    let same = |q1: String, q2: String| async {
        let one = get(&a.base, &bad(q1), Some(&a.session["Ben"])).await;
        let two = get(&a.base, &bad(q2), Some(&a.session["Ben"])).await;
        (one, two)
    };
    let (hal, nobody) = same(format!("player={}", a.who["Hal"]), "player=999999".into()).await;
    assert_eq!(hal, nobody, "another club's player is nobody here");
    let (theirs, none) = same(format!("league={}", a.other_league), "league=999999".into()).await;
    assert_eq!(theirs, none, "another club's league is none here");
    let _ = a.other_club;
    a.db.drop().await;
}

#[actix_web::test]
async fn a_private_clubs_archive_is_a_missing_club_to_everyone_but_its_members() {
    let a = seed().await;
    let club = a.club;
    let missing = club + 1000;
    let queries = [
        String::new(),
        format!("?player={}", a.who["Ada"]),
        format!("?player={}", a.who["Hal"]),
        format!("?player={}", a.who["Nia"]),
        format!("?league={}", a.leagues[0]),
        "?kind=chess&page=x".to_string(),
    ];
    // Nia: signed in, no club; Hal: another club's admin; Gus: removed, held seats here.
    for reader in [None, Some("Nia"), Some("Hal"), Some("Gus")] {
        let session = reader.map(|r| a.session[r].as_str());
        for query in &queries {
            let shown = get(&a.base, &format!("/clubs/{club}/archive{query}"), session).await;
            let none = get(
                &a.base,
                &format!("/clubs/{missing}/archive{query}"),
                session,
            )
            .await;
            let context = format!("{reader:?} reads the archive{query}");
            assert_eq!(shown.0, 404, "{context}: {}", shown.1);
            assert_eq!(shown, none, "{context}: as a club that does not exist");
            assert!(
                !shown.1.contains("Archivists") && !shown.1.contains("Ada"),
                "{context}"
            );
        }
    }
    for member in ["Ada", "Ben", "Ivy"] {
        let (status, body) = get(
            &a.base,
            &format!("/clubs/{club}/archive"),
            Some(&a.session[member]),
        )
        .await;
        assert_eq!((status, listed(&body).len()), (200, 50), "{member}: {body}");
    }
    // The club's page links the archive.
    let (_, page) = get(&a.base, &format!("/clubs/{club}"), Some(&a.session["Ben"])).await;
    assert!(
        page.contains(&format!("href=\"/clubs/{club}/archive\"")),
        "{page}"
    );

    // Made public: anyone reads it; the player select then offers those who played rated
    // games, and the members only to members (a public club's member list is its members').
    exec(
        &a.db,
        "UPDATE clubs SET private = false WHERE id = $1",
        &[club],
    )
    .await;
    let (status, body) = get(&a.base, &format!("/clubs/{club}/archive"), None).await;
    assert_eq!((status, listed(&body).len()), (200, 50), "{body}");
    assert!(
        body.contains(">Gus</option>") && body.contains(">Ada</option>"),
        "{body}"
    );
    assert!(
        !body.contains(">Ivy</option>"),
        "a member who never played: {body}"
    );
    let ivy = format!("/clubs/{club}/archive?player={}", a.who["Ivy"]);
    let nobody = format!("/clubs/{club}/archive?player=999999");
    for reader in [None, Some("Nia")] {
        let session = reader.map(|r| a.session[r].as_str());
        let by_ivy = get(&a.base, &ivy, session).await;
        let by_nobody = get(&a.base, &nobody, session).await;
        assert_eq!(by_ivy.0, 400, "{reader:?}: {}", by_ivy.1);
        assert_eq!(by_ivy, by_nobody, "{reader:?}: membership is not told");
    }
    let (status, body) = get(&a.base, &ivy, Some(&a.session["Ben"])).await;
    assert_eq!(
        status, 200,
        "to a member, a member is a player to pick: {body}"
    );
    assert!(body.contains(">Ivy</option>"), "{body}");
    a.db.drop().await;
}

#[actix_web::test]
async fn real_games_reach_the_archive_with_their_replay_and_verifiable_record() {
    let db = TestDb::new().await;
    let (ann, bo, cy) = (
        account(&db, "Ann").await,
        account(&db, "Bo").await,
        account(&db, "Cy").await,
    );
    let club = club(&db, "Players", true, &[ann, bo]).await;
    let new_game = |kind: &'static str, seed: u64| {
        let store = &db.store;
        async move {
            let seats: Vec<NewSeat> = ["Ann", "Bo"]
                .iter()
                .map(|n| NewSeat {
                    name: PlayerName::parse(n).unwrap(),
                    email: Some(
                        EmailAddress::parse(&format!("{}@example.org", n.to_lowercase())).unwrap(),
                    ),
                    bot: None,
                })
                .collect();
            let id = store
                .create_game_with(
                    kind,
                    &json!({}),
                    &seats,
                    Seed::from_number(seed),
                    None,
                    &Value::Null,
                )
                .await
                .unwrap()
                .id;
            sqlx::query("UPDATE games SET club_id = $2 WHERE id = $1")
                .bind(id)
                .bind(club)
                .execute(store.pool())
                .await
                .unwrap();
            id
        }
    };
    // One played to its end by random moves, one cancelled after both moved.
    let played = new_game("electoral-combat", 1).await;
    let mut rng = bot_rng(&Seed::from_number(1));
    let mut moves = 0;
    loop {
        let loaded = db.store.load(played).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        db.store
            .submit(played, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        moves += 1;
        assert!(moves < 20_000, "the game did not end");
    }
    let winner = db
        .store
        .load(played)
        .await
        .unwrap()
        .game
        .outcome()
        .unwrap()
        .winners[0];
    let cancelled = new_game("nationhood", 5).await;
    let mut rng = bot_rng(&Seed::from_number(5));
    for _ in 0..2 {
        let loaded = db.store.load(cancelled).await.unwrap();
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        db.store
            .submit(cancelled, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
    }
    db.store
        .cancel(cancelled, &CancelReason::parse("Bo moved away").unwrap())
        .await
        .unwrap();
    let running = new_game("statehood", 3).await;

    let base = spawn_app(&db);
    let member = db.store.start_session(bo).await.unwrap();
    let stranger = db.store.start_session(cy).await.unwrap();
    let (status, body) = get(&base, &format!("/clubs/{club}/archive"), Some(&member)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        listed(&body),
        vec![cancelled, played],
        "finished games, last ended first"
    );
    assert!(!listed(&body).contains(&running));
    let row = |id: i64| {
        body.split(&format!("<a href=\"/games/{id}\""))
            .nth(1)
            .unwrap()
            .split("</tr>")
            .next()
            .unwrap()
            .to_string()
    };
    let winner_name = ["Ann", "Bo"][winner];
    assert!(row(played).contains(winner_name), "{}", row(played));
    assert!(!row(played).contains("cancelled"), "{}", row(played));
    assert!(
        row(cancelled).contains("<b>cancelled</b>"),
        "{}",
        row(cancelled)
    );
    assert!(
        row(cancelled).contains("Bo moved away"),
        "{}",
        row(cancelled)
    );
    // Filtered by game, and by a player through the link on their name.
    let (_, by_kind) = get(
        &base,
        &format!("/clubs/{club}/archive?kind=nationhood"),
        Some(&member),
    )
    .await;
    assert_eq!(listed(&by_kind), vec![cancelled]);
    let (_, by_ann) = get(
        &base,
        &format!("/clubs/{club}/archive?player={ann}"),
        Some(&member),
    )
    .await;
    assert_eq!(listed(&by_ann), vec![cancelled, played]);
    // The links answer the member, and nobody else.
    for path in [
        format!("/games/{played}/replay"),
        format!("/api/games/{played}/export"),
        format!("/games/{played}"),
    ] {
        assert!(body.contains(&format!("href=\"{path}\"")), "{path}: {body}");
        let (status, page) = get(&base, &path, Some(&member)).await;
        assert_eq!(status, 200, "{path}: {page}");
        let (status, _) = get(&base, &path, Some(&stranger)).await;
        assert_eq!(status, 404, "{path} to a stranger");
    }
    let (_, export) = get(&base, &format!("/api/games/{played}/export"), Some(&member)).await;
    let export: Value = serde_json::from_str(&export).unwrap();
    assert!(export.is_object(), "{export}");
    let (status, _) = get(&base, &format!("/clubs/{club}/archive"), Some(&stranger)).await;
    assert_eq!(status, 404);
    // The played game was rated: the club's page links its whole standings.
    let (_, page) = get(&base, &format!("/clubs/{club}"), Some(&member)).await;
    let standings = format!("/clubs/{club}/standings/electoral-combat");
    assert!(page.contains(&format!("href=\"{standings}\"")), "{page}");
    let (status, table) = get(&base, &standings, Some(&member)).await;
    assert_eq!(status, 200, "{table}");
    assert!(
        table.contains(">Ann</a>") && table.contains(">Bo</a>"),
        "{table}"
    );
    db.drop().await;
}

#[actix_web::test]
async fn the_standings_go_page_by_page_to_members_only() {
    let db = TestDb::new().await;
    let mut members = Vec::new();
    for n in 0..120 {
        members.push(account(&db, &format!("Member {n:03}")).await);
    }
    let outsider = account(&db, "Outsider").await;
    let club = club(&db, "Ranked", false, &members).await;
    // Member n has rating 2000 - n (so position n + 1) and n games (provisional under 5).
    for (n, id) in members.iter().enumerate() {
        let n = n as i64;
        exec(
            &db,
            "INSERT INTO club_ratings (club_id, kind, account_id, mu, sigma, rating, games, wins, \
             losses, moves_on_time, moves, updated_at) \
             VALUES ($1, 'statehood', $2, 25, 5, 2000 - $3, $3, $3, 0, 9, 10, now())",
            &[club, *id, n],
        )
        .await;
    }
    let base = spawn_app(&db);
    let member = db.store.start_session(members[7]).await.unwrap();
    let stranger = db.store.start_session(outsider).await.unwrap();
    let path = format!("/clubs/{club}/standings/statehood");
    let mut next = Some(path.clone());
    let mut positions = Vec::new();
    let mut pages = 0;
    while let Some(at) = next {
        let (status, body) = get(&base, &at, Some(&member)).await;
        assert_eq!(status, 200, "{at}: {body}");
        let rows: Vec<i64> = body
            .split("<tr><td>")
            .skip(1)
            .map(|r| r.split('<').next().unwrap().parse().unwrap())
            .collect();
        assert!(rows.len() == 50 || !body.contains(">next</a>"), "{at}");
        positions.extend(rows);
        next = link(&body, "next");
        pages += 1;
        assert!(pages < 5, "the pages do not end");
    }
    assert_eq!(pages, 3);
    assert_eq!(
        positions,
        (1..=120).collect::<Vec<i64>>(),
        "every member once, by rating"
    );
    let (_, first) = get(&base, &path, Some(&member)).await;
    assert!(
        first.contains(">Member 000</a></td><td>2000?</td><td>0–0–0</td><td>90 %</td>"),
        "{first}"
    );
    assert!(
        first.contains(">Member 006</a></td><td>1994</td><td>6–0–0</td>"),
        "{first}"
    );
    let (_, last) = get(&base, &format!("{path}?page=2"), Some(&member)).await;
    assert!(last.contains(">Member 119</a></td><td>1881</td>"), "{last}");
    assert!(
        link(&last, "better rated").is_some_and(|l| l.ends_with("?page=1")),
        "{last}"
    );
    let (status, past) = get(&base, &format!("{path}?page=3"), Some(&member)).await;
    assert_eq!(status, 200);
    assert!(past.contains("No more members are ranked"), "{past}");
    let (status, bad) = get(&base, &format!("{path}?page=x"), Some(&member)).await;
    assert_eq!(status, 400, "{bad}");
    let (status, _) = get(
        &base,
        &format!("/clubs/{club}/standings/chess"),
        Some(&member),
    )
    .await;
    assert_eq!(status, 404, "no such game");
    // Members only, as the top 10 on the club's page, though the club is public.
    for reader in [None, Some(stranger.as_str())] {
        let (status, body) = get(&base, &path, reader).await;
        assert_eq!(status, 404, "{reader:?}");
        assert!(!body.contains("Member 0"), "{body}");
    }
    let (_, page) = get(&base, &format!("/clubs/{club}"), Some(&member)).await;
    assert!(
        page.contains(&format!("href=\"{path}\">all standings")),
        "{page}"
    );
    db.drop().await;
}
