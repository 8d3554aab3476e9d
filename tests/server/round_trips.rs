//! A move's round trips to PostgreSQL, counted by a proxy that parses what the client sends
//! (tests/common/trips.rs): an ordinary move is one read and one write.

use crate::common;

use common::TestDb;
use common::trips::TripProxy;
use postplay::engine::Seed;
use postplay::engine::bot::{bot_rng, fill_at_random};
use sqlx::postgres::PgPoolOptions;

#[actix_web::test]
async fn an_ordinary_move_is_two_round_trips() {
    ordinary_moves_take_two_round_trips(false).await;
}

/// The JSON API's move names its seat by the bearer's token: the token is read in the move's
/// own read, not in a round trip before it.
#[actix_web::test]
async fn a_move_by_a_seat_token_is_two_round_trips_too() {
    ordinary_moves_take_two_round_trips(true).await;
}

async fn ordinary_moves_take_two_round_trips(by_token: bool) {
    let db = TestDb::new().await;
    let (id, tokens) = common::create_game_for(&db, "nationhood", &["Ann", "Bo"], true, 11).await;
    let proxy = TripProxy::start(&db.options).await;
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .connect_with(proxy.options())
        .await
        .unwrap();
    let store = postplay::startup::store_on(pool, std::sync::Arc::new(postplay::time::SystemClock));
    let mut rng = bot_rng(&Seed::from_number(5));
    let mut counted = Vec::new();
    for turn in 0..12 {
        let loaded = store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            break;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], &mut rng);
        let (before, pinged) = (proxy.count(), proxy.pings());
        let expected = Some(loaded.row.head_seq);
        let head = if by_token {
            let mover = postplay::store::Mover::Holder(&tokens[seat]);
            store.submit_as(id, mover, &command, expected).await
        } else {
            store.submit(id, seat, &command, expected).await
        }
        .unwrap();
        let (trips, pings) = (proxy.count() - before, proxy.pings() - pinged);
        let ended = store.load(id).await.unwrap().game.outcome().is_some();
        // The first moves prepare the statements on the pool's one connection.
        if turn >= 3 && !ended {
            counted.push((head, trips, pings));
        }
    }
    // The pool's pings (one when the move takes its connection, as sqlx tests a connection
    // before handing it out; one, off the move's path, when it gives it back) are counted
    // apart: they carry no statement.
    eprintln!("per move (head, round trips with statements, pings): {counted:?}");
    assert!(
        counted.len() >= 5,
        "too few ordinary moves counted: {counted:?}"
    );
    assert!(
        counted.iter().all(|&(_, trips, _)| trips == 2),
        "{counted:?}"
    );
    db.drop().await;
}
