//! Leagues (issue 33, item 6) end to end: real PostgreSQL, the real server over HTTP, the
//! outbox worker sending over SMTP to a sink, moves by mail through the real `postplay
//! receive`, and the scheduler's pass. A league of six is opened by its admin's form, signed
//! up to by form and by API, closed by the scheduler, played round after round to its end with
//! known results (one game lost on time, one entrant leaving the club mid-league), and its
//! table checked against the values worked out by hand below. Then the store's refusals and
//! its bound.

use crate::common;

use awc::Client;
use chrono::{DateTime, Duration, Utc};
use common::TestDb;
use common::mime::header;
use common::replyrig::{Rig, line_for, listed, receive_by_pipe, reply, reply_address, text};
use common::wait::{PATIENCE, until};
use postplay::clock::Scheduler;
use postplay::domain::{ClockSettings, LeagueName, OnTimeout, TimeControl};
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::engine::{DynMatch, Log, Seat, Seed};
use postplay::leagues::{Meetings, Mode};
use postplay::store::{
    Account, ClubError, EmailAddress, MAX_ACTIVE_LEAGUES, NewClub, NewLeague, PlayerName, Store,
    new_token,
};
use postplay::time::ManualClock;
use serde_json::{Value, json};
use std::sync::Arc;

/// The entrants, in sign-up order (the table's last tie-break).
const NAMES: [&str; 6] = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay"];

fn address(name: &str) -> String {
    format!("{}@example.org", name.to_lowercase())
}

pub(super) struct Reply {
    pub(super) status: u16,
    pub(super) body: String,
    pub(super) location: String,
}

/// A browser's and a script's requests: the CSRF cookie and field, a session, a bearer token.
pub(super) struct Http {
    client: Client,
    base: String,
    csrf: String,
}

impl Http {
    pub(super) fn new(base: &str) -> Http {
        Http {
            client: Client::builder()
                .disable_redirects()
                .timeout(std::time::Duration::from_secs(30))
                .finish(),
            base: base.to_string(),
            csrf: new_token(),
        }
    }

    async fn send(
        &self,
        req: awc::ClientRequest,
        session: Option<&str>,
        bearer: Option<&str>,
        body: Option<String>,
    ) -> Reply {
        let cookie = match session {
            Some(s) => format!("pp_csrf={}; pp_session={s}", self.csrf),
            None => format!("pp_csrf={}", self.csrf),
        };
        let mut req = req.insert_header(("Cookie", cookie));
        if let Some(token) = bearer {
            req = req.insert_header(("Authorization", format!("Bearer {token}")));
        }
        let mut res = match body {
            Some(body) => req
                .insert_header(("Content-Type", "application/x-www-form-urlencoded"))
                .send_body(body)
                .await
                .unwrap(),
            None => req.send().await.unwrap(),
        };
        let location = res
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = String::from_utf8_lossy(&res.body().limit(4 << 20).await.unwrap()).into_owned();
        Reply {
            status: res.status().as_u16(),
            body,
            location,
        }
    }

    pub(super) async fn get(
        &self,
        path: &str,
        session: Option<&str>,
        bearer: Option<&str>,
    ) -> Reply {
        let req = self.client.get(format!("{}{path}", self.base));
        self.send(req, session, bearer, None).await
    }

    /// A form posted as `session`, with the CSRF token.
    pub(super) async fn post(
        &self,
        path: &str,
        session: Option<&str>,
        fields: &[(&str, &str)],
    ) -> Reply {
        let mut all = vec![("csrf", self.csrf.as_str())];
        all.extend_from_slice(fields);
        let body: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(all)
            .finish();
        let req = self.client.post(format!("{}{path}", self.base));
        self.send(req, session, None, Some(body)).await
    }

    /// An API POST with a bearer token and a JSON body.
    pub(super) async fn post_json(&self, path: &str, bearer: Option<&str>, body: &Value) -> Reply {
        let mut req = self
            .client
            .post(format!("{}{path}", self.base))
            .insert_header(("Content-Type", "application/json"));
        if let Some(bearer) = bearer {
            req = req.insert_header(("Authorization", format!("Bearer {bearer}")));
        }
        let mut res = req.send_body(body.to_string()).await.unwrap();
        Reply {
            status: res.status().as_u16(),
            body: String::from_utf8_lossy(&res.body().limit(4 << 20).await.unwrap()).into_owned(),
            location: String::new(),
        }
    }
}

/// A member: account, session, personal API token.
pub(super) struct Member {
    pub(super) account: Account,
    pub(super) session: String,
    pub(super) api: String,
}

pub(super) async fn member(store: &Store, name: &str) -> Member {
    let account = store
        .account_for_email(
            &EmailAddress::parse(&address(name)).unwrap(),
            &PlayerName::parse(name).unwrap(),
        )
        .await
        .unwrap();
    let session = store.start_session(account.id).await.unwrap();
    let api = store
        .create_api_token(
            account.id,
            &postplay::domain::TokenLabel::parse("league script").unwrap(),
        )
        .await
        .unwrap()
        .unwrap();
    Member {
        account,
        session,
        api,
    }
}

/// A club made by `members[0]` (its admin), the others added as members.
pub(super) async fn club(store: &Store, members: &[&Member], private: bool) -> i64 {
    let id = store
        .create_club(
            &members[0].account,
            &NewClub {
                name: postplay::domain::ClubName::parse("Tuesday club").unwrap(),
                description: postplay::domain::ClubDescription::parse("").unwrap(),
                private,
            },
        )
        .await
        .unwrap();
    for m in &members[1..] {
        sqlx::query(
            "INSERT INTO club_members (club_id, account_id, role, joined_at) VALUES ($1, $2, 'member', now())",
        )
        .bind(id)
        .bind(m.account.id)
        .execute(store.pool())
        .await
        .unwrap();
    }
    id
}

/// A store and scheduler whose clock reads `at` (the scheduler's pass "later").
pub(super) fn scheduler_at(db: &TestDb, at: DateTime<Utc>) -> Scheduler {
    Scheduler::new(Arc::new(postplay::startup::store_on(
        db.store.pool().clone(),
        Arc::new(ManualClock::at(at)),
    )))
}

/// A row of the table as the API gives it: name, points, Sonneborn-Berger, wins, games
/// forfeited, losses on time, left, the tie-break.
type TableRow = (String, String, String, u64, u64, u64, bool, Value);

/// One league game as the test reads it from the database.
#[derive(Debug, Clone)]
pub(super) struct LGame {
    round: i32,
    pub(super) seats: Vec<i64>,
    pub(super) game_id: Option<i64>,
    pub(super) ended: bool,
}

pub(super) async fn league_games(db: &TestDb, league: i64) -> Vec<LGame> {
    let rows: Vec<(i32, Vec<i64>, Option<i64>, bool)> = sqlx::query_as(
        "SELECT round, seats, game_id, ended_at IS NOT NULL FROM league_games \
         WHERE league_id = $1 ORDER BY number",
    )
    .bind(league)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    rows.into_iter()
        .map(|(round, seats, game_id, ended)| LGame {
            round,
            seats,
            game_id,
            ended,
        })
        .collect()
}

/// Random moves on a copy of the game (whose seed it holds, so every draw is the real one)
/// until a playout ends with `winner` the only winner: the commands, in order. A seat's only
/// move is the one the store may play for it.
pub(super) fn plan(game: &dyn DynMatch, winner: Seat) -> Vec<(Seat, Value)> {
    for attempt in 0..400 {
        let mut g = game.clone_box();
        let mut rng = bot_rng(&Seed::from_number(attempt));
        let mut moves = Vec::new();
        loop {
            if let Some(outcome) = g.outcome() {
                if outcome.winners == vec![winner] {
                    return moves;
                }
                break;
            }
            let seat = g.active()[0];
            let command = g.forced(seat).unwrap_or_else(|| {
                let choices = g.choices(seat);
                fill_at_random(&choices[rng.index(choices.len())], &mut rng)
            });
            if g.apply_json(seat, &command, &mut Log::recording()).is_err() {
                break;
            }
            moves.push((seat, command));
        }
    }
    panic!("no playout found in which seat {winner} wins");
}

/// Everything the league's play needs.
struct Play<'a> {
    rig: &'a Rig,
    http: &'a Http,
    members: &'a [Member],
    /// Reply addresses already answered.
    answered: Vec<String>,
}

impl Play<'_> {
    fn by_account(&self, account: i64) -> &Member {
        self.members
            .iter()
            .find(|m| m.account.id == account)
            .unwrap()
    }

    /// The seat's link, as its player opens it from `/me` (a fresh link for this device).
    async fn seat_link(&self, game: i64, seat: Seat, account: i64) -> String {
        let m = self.by_account(account);
        let r = self
            .http
            .post(&format!("/me/games/{game}/{seat}"), Some(&m.session), &[])
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        r.location.strip_prefix("/play/").unwrap().to_string()
    }

    /// Plays `game` to its end by `moves` from the head on, each by the API, or by a mail
    /// reply through `postplay receive` when `by_mail` says so for its position.
    /// `moves` begin at the log's entry `start`.
    async fn play(
        &mut self,
        game: i64,
        seats: &[i64],
        start: i64,
        moves: &[(Seat, Value)],
        by_mail: &[i64],
    ) {
        let mut links: Vec<Option<String>> = vec![None; seats.len()];
        loop {
            let loaded = self.rig.db.store.load(game).await.unwrap();
            if loaded.game.outcome().is_some() {
                return;
            }
            let head = loaded.row.head_seq;
            let (seat, command) = moves[(head - start) as usize].clone();
            if by_mail.contains(&head) {
                self.by_mail(game, seat, seats[seat], &command, loaded.game.as_ref())
                    .await;
            } else {
                if links[seat].is_none() {
                    links[seat] = Some(self.seat_link(game, seat, seats[seat]).await);
                }
                let link = links[seat].clone().unwrap();
                let r = self
                    .http
                    .post_json(
                        &format!("/api/play/{link}/commands"),
                        None,
                        &json!({"command": command, "expected_seq": head}),
                    )
                    .await;
                assert!(r.status < 300, "move {head} of game {game}: {}", r.body);
            }
        }
    }

    /// The seat's player answers the game's latest mail to them with a line that reads as
    /// `command`, through the real `postplay receive`; waits until it is played.
    async fn by_mail(
        &mut self,
        game: i64,
        seat: Seat,
        account: i64,
        command: &Value,
        state: &dyn DynMatch,
    ) {
        let to_address = address(&self.by_account(account).account.name);
        let tag = format!("#{game}");
        let answered = self.answered.clone();
        let mail = until(
            &format!("a mail asking seat {seat} of game {game} to move"),
            PATIENCE,
            async || {
                let all = self.rig.settle().await;
                all.into_iter()
                    .rev()
                    .find(|m| {
                        m.to.iter().any(|t| t.eq_ignore_ascii_case(&to_address))
                            && header(&m.data, "Subject").is_some_and(|s| s.contains(&tag))
                            && header(&m.data, "Reply-To").is_some()
                            && !answered.contains(&reply_address(m))
                    })
                    .ok_or("none yet")
            },
        )
        .await;
        let to = reply_address(&mail);
        let body = text(&mail);
        let listed = listed(&body);
        assert!(!listed.is_empty(), "{body}");
        let want = state.canonical(command).unwrap();
        let choices = state.choices(seat);
        let mut rng = bot_rng(&Seed::from_number(game as u64));
        let line = (0..20_000)
            .find_map(|i| {
                let choice = &listed[rng.index(listed.len())];
                let line = line_for(choice, i % 2 == 0, &mut rng);
                let read = postplay::notices::reply::read(&line, &choices).ok()?;
                (state.canonical(&read.command).ok()? == want).then_some(line)
            })
            .unwrap_or_else(|| panic!("no reply line reads as {want}:\n{body}"));
        let head = self.rig.db.store.load(game).await.unwrap().row.head_seq;
        let raw = reply(
            &format!("<league{game}.{head}@example.org>"),
            &to_address,
            &to,
            &line,
        );
        receive_by_pipe(self.rig, &to, raw.as_bytes(), &[]);
        self.answered.push(to);
        let store = &self.rig.db.store;
        until("the move by mail played", PATIENCE, async || {
            let now = store.load(game).await.unwrap().row.head_seq;
            if now > head {
                Ok(())
            } else {
                Err(format!("head still {now}"))
            }
        })
        .await;
    }
}

/// A mail's subject, decoded.
fn subject(mail: &postplay::notices::mail::sink::Received) -> String {
    mail_parser::MessageParser::default()
        .parse(mail.data.as_bytes())
        .and_then(|m| m.subject().map(str::to_string))
        .unwrap_or_default()
}

/// Runs the scheduler (at real time) until `what` holds of the league's games.
async fn tick_until(db: &TestDb, league: i64, what: &str, check: impl Fn(&[LGame]) -> bool) {
    let scheduler = Scheduler::new(Arc::new(db.store.clone_handle()));
    until(what, PATIENCE, async || {
        scheduler.tick().await.unwrap();
        let games = league_games(db, league).await;
        if check(&games) {
            Ok(())
        } else {
            Err(format!("{games:?}"))
        }
    })
    .await;
}

/// Plays every game of `round` not yet ended and without an entrant of `skip` to the result
/// [`RESULTS`] gives it; the league's first game has its first two moves made by mail.
async fn play_round(
    db: &TestDb,
    league: i64,
    round: i32,
    play: &mut Play<'_>,
    skip: &[i64],
    ids: &[(&str, i64)],
    mailed: &mut usize,
) {
    let id = |name: &str| ids.iter().find(|(n, _)| *n == name).unwrap().1;
    for g in league_games(db, league).await {
        if g.round != round || g.ended || skip.iter().any(|s| g.seats.contains(s)) {
            continue;
        }
        let (winner, _) = RESULTS
            .iter()
            .find(|(w, l)| g.seats.contains(&id(w)) && g.seats.contains(&id(l)))
            .unwrap_or_else(|| panic!("no result planned for {g:?}"));
        let winner_seat = g.seats.iter().position(|&s| s == id(winner)).unwrap();
        let game = g.game_id.expect("the round's game started");
        let loaded = db.store.load(game).await.unwrap();
        let start = loaded.row.head_seq;
        let moves = plan(loaded.game.as_ref(), winner_seat);
        let by_mail: Vec<i64> = if *mailed == 0 {
            vec![start, start + 1]
        } else {
            Vec::new()
        };
        *mailed += by_mail.len();
        play.play(game, &g.seats, start, &moves, &by_mail).await;
    }
}

/// The results forced, by round: (winner, loser) by name; a game with a leaver or lost on
/// time is not in this list.
const RESULTS: [(&str, &str); 11] = [
    ("Ann", "Fay"),
    ("Bo", "Eve"),
    ("Di", "Cy"),
    ("Fay", "Bo"),
    ("Ann", "Cy"),
    ("Eve", "Di"),
    ("Bo", "Di"),
    ("Eve", "Ann"),
    ("Cy", "Eve"),
    ("Ann", "Bo"),
    ("Di", "Ann"),
];

#[actix_web::test]
async fn a_league_of_six_played_to_its_end_through_the_store_the_api_and_mail() {
    let rig = Rig::new().await;
    let db = &rig.db;
    let base = common::spawn_app(db);
    let http = Http::new(&base);
    let mut members = Vec::new();
    for name in NAMES {
        members.push(member(&db.store, name).await);
    }
    let refs: Vec<&Member> = members.iter().collect();
    let club = club(&db.store, &refs, true).await;
    let id = |name: &str| {
        members[NAMES.iter().position(|n| *n == name).unwrap()]
            .account
            .id
    };

    // Ann, the admin, opens the league by the form: Electoral College Combat, sequential
    // rounds, one day a move and a forfeit when it runs out; sign-up closes in an hour.
    let closes = Utc::now() + Duration::hours(1);
    let r = http
        .get(
            &format!("/clubs/{club}/leagues/new/electoral-combat"),
            Some(&members[0].session),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let closes_text = closes.format("%Y-%m-%dT%H:%M").to_string();
    let form = [
        ("name", "Autumn league"),
        ("closes", closes_text.as_str()),
        ("players", "2"),
        ("meetings", "once"),
        ("mode", "sequential"),
        ("clock", "move:1"),
        ("on_timeout", "forfeit"),
        ("vacation", "true"),
    ];
    // A bad field refuses the form and writes nothing.
    let mut bad = form.to_vec();
    bad[1] = ("closes", "2001-01-01T00:00");
    let r = http
        .post(
            &format!("/clubs/{club}/leagues/new/electoral-combat"),
            Some(&members[0].session),
            &bad,
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("in the future"), "{}", r.body);
    // The form comes back as typed, the field at fault marked, the game named with its
    // article (issue 47).
    for kept in [
        "value=\"Autumn league\"",
        "name=\"closes\" value=\"2001-01-01T00:00\"",
        "value=\"move:1\" selected",
        "value=\"forfeit\" selected",
        "Open an Electoral College Combat league",
    ] {
        assert!(r.body.contains(kept), "{kept}: {}", r.body);
    }
    // Only an admin opens one.
    let r = http
        .post(
            &format!("/clubs/{club}/leagues/new/electoral-combat"),
            Some(&members[1].session),
            &form,
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let r = http
        .post(
            &format!("/clubs/{club}/leagues/new/electoral-combat"),
            Some(&members[0].session),
            &form,
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let league: i64 = r.location.rsplit('/').next().unwrap().parse().unwrap();
    let page = format!("/clubs/{club}/leagues/{league}");
    let api = format!("/api/clubs/{club}/leagues/{league}");

    // Ann, Bo and Cy sign up on the page; Di, Eve and Fay by the API (Fay withdraws and signs
    // up again: still last).
    let club_page = http
        .get(&format!("/clubs/{club}"), Some(&members[1].session), None)
        .await;
    assert!(
        club_page
            .body
            .contains(&format!("action=\"{page}/signup\"")),
        "{}",
        club_page.body
    );
    for m in &members[..3] {
        let r = http
            .post(&format!("{page}/signup"), Some(&m.session), &[])
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
    }
    let r = http
        .post(&format!("{page}/signup"), Some(&members[0].session), &[])
        .await;
    assert_eq!(r.status, 422, "twice: {}", r.body);
    for m in &members[3..] {
        let r = http
            .post_json(&format!("{api}/signup"), Some(&m.api), &json!({}))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = http
        .post_json(
            &format!("{api}/withdraw"),
            Some(&members[5].api),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let shown: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(shown["entrants"].as_array().unwrap().len(), 5);
    assert_eq!(shown["entered"], false);
    let r = http
        .post_json(&format!("{api}/signup"), Some(&members[5].api), &json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // A session alone on the API needs the page's token in a header.
    let r = http
        .send(
            http.client.post(format!("{}{api}/withdraw", http.base)),
            Some(&members[5].session),
            None,
            None,
        )
        .await;
    assert_eq!(r.status, 403, "{}", r.body);
    let shown: Value =
        serde_json::from_str(&http.get(&api, None, Some(&members[0].api)).await.body).unwrap();
    let entrants: Vec<&str> = shown["entrants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(entrants, NAMES);

    // Sign-up closes: the scheduler an hour and a half later lays out 5 rounds of 3 games
    // and starts round 1 only; each player is mailed their game.
    let later = scheduler_at(db, Utc::now() + Duration::minutes(90));
    let tick = later.tick().await.unwrap();
    assert_eq!(tick.leagues.started, 1, "{tick:?}");
    assert_eq!(tick.leagues.games_started, 3, "{tick:?}");
    let games = league_games(db, league).await;
    assert_eq!(games.len(), 15);
    for g in &games {
        assert_eq!(g.game_id.is_some(), g.round == 0, "sequential: {g:?}");
    }
    // The circle method: round r pairs Fay (the last) with entrant r.
    for r in 0..5 {
        assert!(
            games.iter().any(|g| g.round == r
                && g.seats.contains(&id("Fay"))
                && g.seats.contains(&members[r as usize].account.id)),
            "round {r}: {games:?}"
        );
    }
    for name in NAMES {
        let to = address(name);
        until(&format!("{name}'s game mailed"), PATIENCE, async || {
            let mails = rig.settle().await;
            let n = mails
                .iter()
                .filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(&to)))
                .count();
            if n >= 1 { Ok(()) } else { Err("no mail") }
        })
        .await;
    }
    // A league game's mail names its club and league, and so does its seat's page (issue 48,
    // item 5).
    let mailed = rig.settle().await;
    let invitation = mailed
        .iter()
        .find(|m| subject(m).ends_with(": you are invited"))
        .unwrap();
    let named = subject(invitation);
    assert!(
        named.starts_with("[Tuesday club · Autumn league] Electoral College Combat #"),
        "{named}"
    );
    let token = common::mailrig::play_token(&text(invitation)).unwrap();
    let seat_page = http.get(&format!("/play/{token}"), None, None).await;
    assert_eq!(seat_page.status, 200, "{}", seat_page.body);
    assert!(
        seat_page
            .body
            .contains("<title>[Tuesday club · Autumn league] Electoral College Combat #"),
        "{}",
        seat_page.body
    );
    let mut play = Play {
        rig: &rig,
        http: &http,
        members: &members,
        answered: Vec::new(),
    };

    let ids: Vec<(&str, i64)> = NAMES.iter().map(|n| (*n, id(n))).collect();
    let mut mailed_moves = 0;
    // Round 1 played to its end; round 2 starts at the next pass, not before.
    play_round(db, league, 0, &mut play, &[], &ids, &mut mailed_moves).await;
    assert!(
        league_games(db, league)
            .await
            .iter()
            .all(|g| g.game_id.is_some() == (g.round == 0)),
        "round 2 waits for the scheduler's pass"
    );
    tick_until(db, league, "round 2 started", |g| {
        g.iter().all(|g| g.game_id.is_some() == (g.round <= 1))
    })
    .await;
    play_round(db, league, 1, &mut play, &[], &ids, &mut mailed_moves).await;
    tick_until(db, league, "round 3 started", |g| {
        g.iter().all(|g| g.game_id.is_some() == (g.round <= 2))
    })
    .await;

    // Round 3: Fay has made a move against Cy when she leaves the club; the others finish.
    let fay_cy = league_games(db, league)
        .await
        .into_iter()
        .find(|g| g.round == 2 && g.seats.contains(&id("Fay")))
        .unwrap();
    play_round(
        db,
        league,
        2,
        &mut play,
        &[id("Fay")],
        &ids,
        &mut mailed_moves,
    )
    .await;
    {
        let game = fay_cy.game_id.unwrap();
        let loaded = db.store.load(game).await.unwrap();
        let moves = plan(loaded.game.as_ref(), 0);
        let upto = moves.len().min(3);
        let head = loaded.row.head_seq as usize;
        for (seq, (seat, command)) in moves.iter().enumerate().take(upto).skip(head) {
            let link = play.seat_link(game, *seat, fay_cy.seats[*seat]).await;
            let r = http
                .post_json(
                    &format!("/api/play/{link}/commands"),
                    None,
                    &json!({"command": command, "expected_seq": seq}),
                )
                .await;
            assert!(r.status < 300, "{}", r.body);
        }
    }
    let r = http
        .post(
            &format!("/clubs/{club}/leave"),
            Some(&members[5].session),
            &[],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    tick_until(
        db,
        league,
        "Fay's games forfeited and round 4 started",
        |g| {
            g.iter()
                .filter(|g| g.seats.contains(&id("Fay")) && g.round >= 2)
                .all(|g| g.ended)
                && g.iter()
                    .filter(|g| g.round == 3)
                    .all(|g| g.game_id.is_some() != g.seats.contains(&id("Fay")))
        },
    )
    .await;
    let cancelled = db.store.load(fay_cy.game_id.unwrap()).await.unwrap();
    assert!(
        cancelled.game.outcome().is_some(),
        "Fay's running game was cancelled"
    );
    play_round(
        db,
        league,
        3,
        &mut play,
        &[id("Fay")],
        &ids,
        &mut mailed_moves,
    )
    .await;
    tick_until(db, league, "round 5 started", |g| {
        g.iter()
            .filter(|g| g.round == 4)
            .all(|g| g.game_id.is_some() != g.seats.contains(&id("Fay")))
    })
    .await;

    // Round 5: Ann–Di is played; in Bo–Cy, Cy's time runs out.
    play_round(
        db,
        league,
        4,
        &mut play,
        &[id("Fay"), id("Cy")],
        &ids,
        &mut mailed_moves,
    )
    .await;
    let bo_cy = league_games(db, league)
        .await
        .into_iter()
        .find(|g| g.round == 4 && g.seats.contains(&id("Cy")))
        .unwrap();
    let game = bo_cy.game_id.unwrap();
    let cy_seat = bo_cy.seats.iter().position(|&s| s == id("Cy")).unwrap();
    let mut rng = bot_rng(&Seed::from_number(7));
    loop {
        let loaded = db.store.load(game).await.unwrap();
        let active = loaded.game.active();
        if active == vec![cy_seat] && loaded.row.head_seq >= 2 {
            break;
        }
        let seat = active[0];
        let choices = loaded.game.choices(seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        let mut trial = loaded.game.clone_box();
        trial
            .apply_json(seat, &command, &mut Log::recording())
            .unwrap();
        assert!(
            trial.outcome().is_none(),
            "Bo–Cy ended before Cy's time ran out"
        );
        let link = play.seat_link(game, seat, bo_cy.seats[seat]).await;
        let r = http
            .post_json(
                &format!("/api/play/{link}/commands"),
                None,
                &json!({"command": command, "expected_seq": loaded.row.head_seq}),
            )
            .await;
        assert!(r.status < 300, "{}", r.body);
    }
    // Three days later: the only game running is Bo–Cy, and Cy forfeits it on time; its end
    // finishes the league in the same tick.
    let tick = scheduler_at(db, Utc::now() + Duration::days(3))
        .tick()
        .await
        .unwrap();
    assert_eq!(tick.timeouts, 1, "{tick:?}");
    assert_eq!(tick.leagues.finished, 1, "{tick:?}");
    assert!(mailed_moves >= 2);

    // The table, by hand. Results (winner first; "f" a forfeit by Fay, who left in round 3
    // with her game against Cy running; "t" Cy lost on time):
    //   round 1: Ann–Fay, Bo–Eve, Di–Cy          round 2: Fay–Bo, Ann–Cy, Eve–Di
    //   round 3: Cy–Fay f, Bo–Di, Eve–Ann        round 4: Di–Fay f, Cy–Eve, Ann–Bo
    //   round 5: Eve–Fay f, Di–Ann, Bo–Cy t
    // Points (1 a win): Ann 3 (Fay, Cy, Bo), Bo 3 (Eve, Di, Cy), Cy 2 (Fay, Eve),
    //   Di 3 (Cy, Fay, Ann), Eve 3 (Di, Ann, Fay), Fay 1 (Bo).
    // Sonneborn-Berger (points of the opponents beaten):
    //   Ann 1+2+3 = 6, Bo 3+3+2 = 8, Cy 1+3 = 4, Di 2+1+3 = 6, Eve 3+3+1 = 7, Fay 3.
    // Order: the four on 3 by SB: Bo 8, Eve 7, then Ann and Di on 6 with 3 wins each: the
    //   earlier sign-up, Ann. Then Cy 2, Fay 1 (left, 3 games forfeited).
    let shown: Value =
        serde_json::from_str(&http.get(&api, Some(&members[1].session), None).await.body).unwrap();
    assert_eq!(shown["league"]["status"], "finished", "{shown}");
    let table: Vec<TableRow> = shown["table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["points"].as_str().unwrap().to_string(),
                r["sonneborn_berger"].as_str().unwrap().to_string(),
                r["wins"].as_u64().unwrap(),
                r["forfeited"].as_u64().unwrap(),
                r["lost_on_time"].as_u64().unwrap(),
                r["left"].as_bool().unwrap(),
                r["tie_break"].clone(),
            )
        })
        .collect();
    let row = |n: &str, p: &str, sb: &str, w: u64, f: u64, t: u64, left: bool, tb: Value| {
        (
            n.to_string(),
            p.to_string(),
            sb.to_string(),
            w,
            f,
            t,
            left,
            tb,
        )
    };
    assert_eq!(
        table,
        vec![
            row("Bo", "3", "8", 3, 0, 0, false, Value::Null),
            row("Eve", "3", "7", 3, 0, 0, false, json!("Sonneborn-Berger")),
            row("Ann", "3", "6", 3, 0, 0, false, json!("Sonneborn-Berger")),
            row("Di", "3", "6", 3, 0, 0, false, json!("earlier sign-up")),
            row("Cy", "2", "4", 2, 0, 1, false, Value::Null),
            row("Fay", "1", "3", 1, 3, 0, true, Value::Null),
        ],
        "{shown}"
    );
    // Every game of the league has an id or never started (Fay's), and each played game is
    // a club game of the league.
    let in_league: i64 =
        sqlx::query_scalar("SELECT count(*) FROM games WHERE league_id = $1 AND club_id = $2")
            .bind(league)
            .bind(club)
            .fetch_one(db.store.pool())
            .await
            .unwrap();
    assert_eq!(in_league, 13, "15 games less Fay's two never started");
    let page_shown = http.get(&page, Some(&members[2].session), None).await;
    for words in [
        "Sonneborn-Berger",
        "earlier sign-up",
        "left: 3 forfeited",
        "Cy lost on time",
        "forfeited: Fay left",
        // The first hour (issue 47): the winner named, the games by the numbers they have
        // everywhere else, and why the club's rating order may differ.
        "Bo wins the league.",
        "This table counts this league's games alone",
    ] {
        assert!(
            page_shown.body.contains(words),
            "{words}: {}",
            page_shown.body
        );
    }
    let game_ids: Vec<i64> = sqlx::query_scalar(
        "SELECT game_id FROM league_games WHERE league_id = $1 AND game_id IS NOT NULL",
    )
    .bind(league)
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    for game in &game_ids {
        let named = format!(">Electoral College Combat #{game}</a>");
        assert!(
            page_shown.body.contains(&named),
            "{named}: {}",
            page_shown.body
        );
    }
    assert!(!page_shown.body.contains(">Game 1<"), "{}", page_shown.body);
    // Every entrant still in the club is mailed the end, with the winner and the final table;
    // Fay, who left, is not.
    let told: Vec<(String, String)> = sqlx::query_as(
        "SELECT recipient, payload::text FROM outbox WHERE kind = 'league' \
         AND event = $1 ORDER BY recipient",
    )
    .bind(format!("league:{league}:finished"))
    .fetch_all(db.store.pool())
    .await
    .unwrap();
    let recipients: Vec<&str> = told.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        recipients,
        [
            "ann@example.org",
            "bo@example.org",
            "cy@example.org",
            "di@example.org",
            "eve@example.org"
        ]
    );
    for (_, payload) in &told {
        for words in [
            "the league is over: Bo wins",
            "1. Bo: 3 points, won–lost–drawn 3–2–0",
            "6. Fay: 1 point, won–lost–drawn 1–4–0",
        ] {
            assert!(payload.contains(words), "{words}: {payload}");
        }
    }

    // The next league refuses Cy (1 loss on time, the limit 1) and takes Ann.
    let r = http
        .post(
            &format!("/clubs/{club}/leagues/new/electoral-combat"),
            Some(&members[0].session),
            &[form.to_vec(), vec![("timeout_limit", "1")]].concat(),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let next: i64 = r.location.rsplit('/').next().unwrap().parse().unwrap();
    let r = http
        .post_json(
            &format!("/api/clubs/{club}/leagues/{next}/signup"),
            Some(&members[2].api),
            &json!({}),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("lost 1 game on time"), "{}", r.body);
    let r = http
        .post(
            &format!("/clubs/{club}/leagues/{next}/signup"),
            Some(&members[0].session),
            &[],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    rig.stop().await;
}

pub(super) fn new_league(kind: &str, seats: usize, closes: DateTime<Utc>) -> NewLeague {
    NewLeague {
        name: LeagueName::parse("Winter").unwrap(),
        kind: kind.into(),
        options: json!({}),
        seat_count: seats,
        clock: ClockSettings {
            control: TimeControl::PerMove { days: 2 },
            weekend_pause: false,
            time_zone: "UTC".into(),
            on_timeout: OnTimeout::Forfeit,
            vacation: true,
        },
        meetings: Meetings::Once,
        mode: Mode::AllAtOnce,
        timeout_limit: Some(2),
        signup_closes_at: closes,
    }
}

async fn count(db: &TestDb, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(db.store.pool())
        .await
        .unwrap()
}

#[actix_web::test]
async fn refused_leagues_and_sign_ups_change_nothing_and_a_club_runs_a_bounded_number() {
    let db = TestDb::new().await;
    let store = &db.store;
    let ann = member(store, "Ann").await;
    let bo = member(store, "Bo").await;
    let zed = member(store, "Zed").await;
    let club = club(store, &[&ann, &bo], false).await;
    let soon = store.now() + Duration::days(3);
    let invalid = |r: Result<i64, ClubError>| match r {
        Err(ClubError::Invalid(m)) => m,
        other => panic!("{other:?}"),
    };
    let mut twice = new_league("statehood", 3, soon);
    twice.meetings = Meetings::Twice;
    let mut no_limit_clock = new_league("nationhood", 2, soon);
    no_limit_clock.clock.control = TimeControl::None { safety_days: 21 };
    let mut moving_clock = new_league("nationhood", 2, soon);
    moving_clock.clock.on_timeout = OnTimeout::Move;
    for (new, words) in [
        (new_league("nationhood", 2, store.now()), "in the future"),
        (
            new_league("nationhood", 2, soon + Duration::days(90)),
            "90 days",
        ),
        (twice, "two-player games"),
        (new_league("statehood", 5, soon), "not played by 5"),
        (new_league("no-such-game", 2, soon), "no such game"),
        (no_limit_clock, "timeout limit"),
        (moving_clock, "timeout limit"),
    ] {
        let m = invalid(store.open_league(club, &ann.account, &new).await);
        assert!(m.contains(words), "{words}: {m}");
    }
    assert!(matches!(
        store
            .open_league(club, &bo.account, &new_league("nationhood", 2, soon))
            .await,
        Err(ClubError::NotAllowed(_))
    ));
    assert!(matches!(
        store
            .open_league(club, &zed.account, &new_league("nationhood", 2, soon))
            .await,
        Err(ClubError::NotAllowed(_))
    ));
    assert_eq!(count(&db, "SELECT count(*) FROM leagues").await, 0);

    // The bound: MAX_ACTIVE_LEAGUES in sign-up or running, then refused.
    let mut leagues = Vec::new();
    for _ in 0..MAX_ACTIVE_LEAGUES {
        leagues.push(
            store
                .open_league(club, &ann.account, &new_league("nationhood", 2, soon))
                .await
                .unwrap(),
        );
    }
    let m = invalid(
        store
            .open_league(club, &ann.account, &new_league("nationhood", 2, soon))
            .await,
    );
    assert!(m.contains("the most it may have"), "{m}");
    assert_eq!(
        count(&db, "SELECT count(*) FROM leagues").await,
        MAX_ACTIVE_LEAGUES
    );

    // Sign-ups: a non-member is refused, twice is refused, after closing is refused.
    let first = leagues[0];
    store
        .sign_up_for_league(club, first, &ann.account)
        .await
        .unwrap();
    assert!(matches!(
        store.sign_up_for_league(club, first, &zed.account).await,
        Err(ClubError::NotAllowed(_))
    ));
    assert!(matches!(
        store.sign_up_for_league(club, first, &ann.account).await,
        Err(ClubError::Invalid(_))
    ));
    assert!(matches!(
        store.withdraw_from_league(club, first, &bo.account).await,
        Err(ClubError::Invalid(_))
    ));
    assert!(matches!(
        store
            .sign_up_for_league(club + 1, first, &ann.account)
            .await,
        Err(ClubError::NotFound)
    ));
    assert_eq!(count(&db, "SELECT count(*) FROM league_entrants").await, 1);

    // Sign-up closes with one entrant: the league is cancelled, she is told by mail, and the
    // club may open another.
    let tick = scheduler_at(&db, soon + Duration::minutes(1))
        .tick()
        .await
        .unwrap();
    assert_eq!(
        tick.leagues.cancelled, MAX_ACTIVE_LEAGUES as usize,
        "{tick:?}"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM leagues WHERE status = 'cancelled'"
        )
        .await,
        MAX_ACTIVE_LEAGUES
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM outbox WHERE kind = 'league' AND recipient = 'ann@example.org'"
        )
        .await,
        1
    );
    assert_eq!(count(&db, "SELECT count(*) FROM games").await, 0);
    assert!(
        store
            .open_league(
                club,
                &ann.account,
                &new_league("nationhood", 2, store.now() + Duration::days(1))
            )
            .await
            .is_ok()
    );
    db.drop().await;
}
