//! Accounts and sessions against a real PostgreSQL (issue 17).

use crate::common;

use common::TestDb;
use postplay::store::{EmailAddress, PlayerName};

#[tokio::test]
async fn an_address_is_one_account_that_owns_its_seats_and_sessions_end_everywhere() {
    let db = TestDb::new().await;
    let store = &db.store;
    let (game, _) =
        common::create_game_for(&db, "whitehouse", &["Ann", "Bo", "Cy", "Di"], true, 5).await;
    let seats = store.seats(game).await.unwrap();
    let ann_email = seats[0].email.clone().expect("seats have addresses");
    let shouted = EmailAddress::parse(&ann_email.to_uppercase()).unwrap();
    let ann = store
        .account_for_email(&shouted, &PlayerName::parse("Ann").unwrap())
        .await
        .unwrap();
    let again = store
        .account_for_email(
            &EmailAddress::parse(&ann_email).unwrap(),
            &PlayerName::parse("Someone else").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        ann, again,
        "one account an address, whatever its letter case"
    );
    let owned: Vec<i32> =
        sqlx::query_scalar("SELECT seat FROM seats WHERE game_id = $1 AND account_id = $2")
            .bind(game)
            .bind(ann.id)
            .fetch_all(store.pool())
            .await
            .unwrap();
    assert_eq!(
        owned,
        vec![0],
        "the seat given the address is the account's, no other"
    );

    let (later, _) = common::create_game_for(&db, "statehood", &["Bo", "Ann"], true, 6).await;
    let owner: Option<i64> =
        sqlx::query_scalar("SELECT account_id FROM seats WHERE game_id = $1 AND seat = 1")
            .bind(later)
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(
        owner,
        Some(ann.id),
        "a game made later gives the account its seat"
    );

    let phone = store.start_session(ann.id).await.unwrap();
    let laptop = store.start_session(ann.id).await.unwrap();
    assert_ne!(phone, laptop);
    assert_eq!(
        store.session_account(&phone).await.unwrap(),
        Some(ann.clone())
    );
    assert_eq!(store.session_account("not a token").await.unwrap(), None);
    store.end_session(&phone).await.unwrap();
    assert_eq!(store.session_account(&phone).await.unwrap(), None);
    assert_eq!(
        store.session_account(&laptop).await.unwrap(),
        Some(ann.clone())
    );
    let _ = store.start_session(ann.id).await.unwrap();
    assert_eq!(store.end_all_sessions(ann.id).await.unwrap(), 2);
    assert_eq!(store.session_account(&laptop).await.unwrap(), None);

    // An account holds at most MAX_SESSIONS live sessions: a new one ends the oldest.
    let mut tokens = Vec::new();
    for _ in 0..postplay::store::MAX_SESSIONS + 2 {
        tokens.push(store.start_session(ann.id).await.unwrap());
    }
    let live: i64 = sqlx::query_scalar("SELECT count(*) FROM sessions WHERE account_id = $1")
        .bind(ann.id)
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(live, postplay::store::MAX_SESSIONS);
    assert_eq!(store.session_account(&tokens[0]).await.unwrap(), None);
    assert_eq!(store.session_account(&tokens[1]).await.unwrap(), None);
    assert_eq!(
        store.session_account(tokens.last().unwrap()).await.unwrap(),
        Some(ann.clone())
    );
    db.drop().await;
}
