//! A league game's result is the game's outcome from its log, and no request sets another:
//! the one way a result enters the table is the effect of the game's last entry
//! (`clock::league`). Before and after a league game's end, its players try every request
//! that reaches the game or the league — a move or a command the rules do not know through the
//! JSON API, a mark smuggled into the API's body, an undo, a reply by mail, the league's page
//! and API, the club admin's desk — and the result stays what a replay of the exported log
//! gives, on the league's API as in its table.

use super::leagues::{Http, Member, club, league_games, member, new_league, plan, scheduler_at};
use crate::common;

use chrono::{Duration, Utc};
use common::mime::header;
use common::replyrig::{Rig, reply, reply_address, text};
use common::wait::{PATIENCE, until};
use postplay::engine::Viewer;
use postplay::games::find_game;
use postplay::leagues::{Finish, Format};
use postplay::notices::mail::sink::Received;
use serde_json::{Value, json};

/// The result the league holds for `game`: its places, or the seat whose time ran out.
async fn stored_result(rig: &Rig, game: i64) -> (bool, Option<Vec<i32>>, Option<i32>) {
    sqlx::query_as(
        "SELECT ended_at IS NOT NULL, places, timed_out FROM league_games WHERE game_id = $1",
    )
    .bind(game)
    .fetch_one(rig.db.store.pool())
    .await
    .unwrap()
}

/// The mails to `address` so far.
async fn mails_to(rig: &Rig, address: &str) -> Vec<Received> {
    rig.settle()
        .await
        .into_iter()
        .filter(|m| m.to.iter().any(|t| t.eq_ignore_ascii_case(address)))
        .collect()
}

/// `member` replies `line` to the latest mail of `game` they may answer, through the real
/// inbound listener (as message `n`); returns the answer's subject and text once it comes.
async fn reply_by_mail(rig: &Rig, member: &Member, game: i64, line: &str, n: usize) -> String {
    let address = member.account.email.clone();
    let mails = mails_to(rig, &address).await;
    let tag = format!("#{game}");
    let asked = mails
        .iter()
        .rev()
        .find(|m| {
            header(&m.data, "Reply-To").is_some()
                && header(&m.data, "Subject").is_some_and(|s| s.contains(&tag))
        })
        .expect("a mail of the game to answer");
    let to = reply_address(asked);
    let id = format!("<league-result{n}.{game}@example.org>");
    let answer = rig
        .deliver(true, &address, &to, &reply(&id, &address, &to, line))
        .await;
    assert!(answer.starts_with("250"), "{answer}");
    let before = mails.len();
    let answered = until("the answer to the reply", PATIENCE, async || {
        mails_to(rig, &address)
            .await
            .get(before)
            .cloned()
            .ok_or("no answer yet")
    })
    .await;
    format!(
        "{}: {}",
        header(&answered.data, "Subject").unwrap(),
        text(&answered)
    )
}

/// The seat's link, as its player opens it from `/me`.
async fn seat_link(http: &Http, member: &Member, game: i64, seat: usize) -> String {
    let r = http
        .post(
            &format!("/me/games/{game}/{seat}"),
            Some(&member.session),
            &[],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    r.location.strip_prefix("/play/").unwrap().to_string()
}

#[actix_web::test]
async fn no_request_sets_a_league_result_other_than_the_games_outcome() {
    let rig = Rig::new().await;
    let base = common::spawn_app(&rig.db);
    let http = Http::new(&base);
    let store = rig.db.store.clone_handle();
    let ann = member(&store, "Ann").await;
    let bo = member(&store, "Bo").await;
    let club = club(&store, &[&ann, &bo], false).await;
    let closes = Utc::now() + Duration::hours(1);
    let league = store
        .open_league(
            club,
            &ann.account,
            &new_league("electoral-combat", 2, closes),
        )
        .await
        .unwrap();
    for m in [&ann, &bo] {
        store
            .sign_up_for_league(club, league, &m.account)
            .await
            .unwrap();
    }
    scheduler_at(&rig.db, closes + Duration::minutes(1))
        .tick()
        .await
        .unwrap();
    let scheduled = league_games(&rig.db, league).await.remove(0);
    let game = scheduled.game_id.expect("the league's game started");
    let by_seat: Vec<&Member> = scheduled
        .seats
        .iter()
        .map(|a| if *a == ann.account.id { &ann } else { &bo })
        .collect();
    let links = [
        seat_link(&http, by_seat[0], game, 0).await,
        seat_link(&http, by_seat[1], game, 1).await,
    ];
    let api = |seat: usize| format!("/api/play/{}/commands", links[seat]);
    let league_page = format!("/clubs/{club}/leagues/{league}");
    let league_api = format!("/api/clubs/{club}/leagues/{league}");
    let loaded = store.load(game).await.unwrap();
    let start = loaded.row.head_seq;
    // Seat 0 wins the game as played; seat 1 tries to end it another way first.
    let moves = plan(loaded.game.as_ref(), 0);
    let unchanged = async |what: &str| {
        let now = store.load(game).await.unwrap();
        assert_eq!(now.row.head_seq, start, "{what} wrote an entry");
        assert_eq!(
            stored_result(&rig, game).await,
            (false, None, None),
            "{what} set a result"
        );
    };

    // Commands the rules do not know, a mark in the API's body, an undo of nothing.
    for body in [
        json!({"command": {"type": "forfeit"}, "expected_seq": start}),
        json!({"command": {"type": "cancel", "reason": "I concede"}, "expected_seq": start}),
        json!({"command": {"type": "resign"}, "expected_seq": start}),
        json!({"command": moves[0].1, "expected_seq": start, "by": "clock"}),
        json!({"command": moves[0].1, "expected_seq": start, "by": "organiser"}),
        json!({"undo": true, "expected_seq": start}),
    ] {
        for seat in [0, 1] {
            let r = http.post_json(&api(seat), None, &body).await;
            assert!(
                (400..500).contains(&r.status),
                "seat {seat}, {body}: {} {}",
                r.status,
                r.body
            );
        }
        unchanged(&body.to_string()).await;
    }
    // The league's page and API: sign-up is over, so nobody withdraws or signs up again.
    for path in ["signup", "withdraw"] {
        let r = http
            .post(
                &format!("{league_page}/{path}"),
                Some(&by_seat[1].session),
                &[],
            )
            .await;
        assert_ne!(r.status, 303, "{path} by the page: {}", r.body);
        let r = http
            .post_json(
                &format!("{league_api}/{path}"),
                Some(&by_seat[1].api),
                &json!({"result": {"places": [2, 1]}}),
            )
            .await;
        assert!(r.status >= 400, "{path} by the API: {}", r.body);
        unchanged(path).await;
    }
    // A reply by mail that names no move.
    for (n, line) in ["forfeit", "I resign", "undo"].into_iter().enumerate() {
        let answer = reply_by_mail(&rig, by_seat[moves[0].0], game, line, n).await;
        assert!(answer.contains("not played"), "{line}: {answer}");
        unchanged(line).await;
    }

    // The game is played to its end through the API.
    for (i, (seat, command)) in moves.iter().enumerate() {
        let head = store.load(game).await.unwrap().row.head_seq;
        if head > start + i as i64 {
            continue; // played for the seat as its only move
        }
        let r = http
            .post_json(
                &api(*seat),
                None,
                &json!({"command": command, "expected_seq": head}),
            )
            .await;
        assert!(r.status < 300, "move {i}: {}", r.body);
        if store.load(game).await.unwrap().game.outcome().is_some() {
            break;
        }
    }
    let row = store.game(game).await.unwrap().unwrap();
    let record = store.export(game, Viewer::Auditor).await.unwrap();
    let outcome = record
        .replay(postplay::games::ALL)
        .unwrap()
        .outcome()
        .expect("the log ends the game");
    let kind = find_game("electoral-combat").unwrap();
    let format = Format::of_game(kind, 2, &json!({})).unwrap();
    let Finish::Places(places) = Finish::from_outcome(&outcome, format) else {
        panic!("a played game has places");
    };
    assert_eq!(places, vec![1, 2], "seat 0 won as planned");
    let logged: Vec<i32> = places.iter().map(|&p| p as i32).collect();
    let result = (true, Some(logged.clone()), None);
    assert_eq!(stored_result(&rig, game).await, result);

    // After the end: no move, no undo, no reply, no cancellation, no league request changes it.
    let head = row.head_seq;
    let last_mover = record.commands.last().unwrap().seat;
    for (seat, body) in [
        (last_mover, json!({"undo": true, "expected_seq": head})),
        (1, json!({"command": moves[0].1, "expected_seq": head})),
        (
            1,
            json!({"command": {"type": "forfeit"}, "expected_seq": head}),
        ),
    ] {
        let r = http.post_json(&api(seat), None, &body).await;
        assert!((400..500).contains(&r.status), "{body}: {}", r.body);
    }
    for (n, line) in ["undo", "forfeit"].into_iter().enumerate() {
        let answer = reply_by_mail(&rig, by_seat[1], game, line, 10 + n).await;
        assert!(answer.contains("not played"), "{line}: {answer}");
    }
    http.post(
        &format!("/clubs/{club}/games/{game}/desk/cancel"),
        Some(&ann.session),
        &[("reason", "a replay"), ("confirm", "yes")],
    )
    .await;
    for path in ["signup", "withdraw"] {
        let r = http
            .post(
                &format!("{league_page}/{path}"),
                Some(&by_seat[1].session),
                &[],
            )
            .await;
        assert_ne!(r.status, 303, "{path}: {}", r.body);
    }
    assert_eq!(store.game(game).await.unwrap().unwrap().head_seq, head);
    assert_eq!(stored_result(&rig, game).await, result);

    // The league finishes at its next pass; its API and table read the log's result.
    scheduler_at(&rig.db, closes + Duration::minutes(2))
        .tick()
        .await
        .unwrap();
    let r = http.get(&league_api, Some(&ann.session), None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let shown: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(shown["league"]["status"], "finished", "{shown}");
    assert_eq!(shown["games"][0]["result"], json!({"places": logged}));
    let winner = by_seat[0].account.name.to_string();
    assert_eq!(shown["table"][0]["name"], json!(winner), "{shown}");
    assert_eq!(shown["table"][0]["points_quarters"], 4);
    assert_eq!(shown["table"][1]["points_quarters"], 0);
    rig.stop().await;
}
