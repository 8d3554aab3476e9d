//! Club ratings against a real PostgreSQL: games played to their end through the store (clubs
//! and members made in SQL, as no API makes them yet), the ratings checked against numbers
//! worked out by hand from the Weng-Lin formulas, the games that are not rated, forfeits on
//! time, the on-time ratio, and two games ending at once for the same player.
//!
//! The formulas (Weng & Lin 2011, Bradley-Terry with full pairing, as `skillratings` computes
//! them), for sides i with summed mu_i and sigma2_i (sum of the players' sigma^2):
//!   c_iq = sqrt(sigma2_i + sigma2_q + 2 beta^2),  p_iq = e^(mu_i/c_iq) / (e^(mu_i/c_iq) + e^(mu_q/c_iq))
//!   Omega_i = sum over q != i of sigma2_i / c_iq * (s_iq - p_iq)   (s = 1 ahead, 1/2 tied, 0 behind)
//!   Delta_i = sum over q != i of (sqrt(sigma2_i) / c_iq) * sigma2_i / c_iq^2 * p_iq (1 - p_iq)
//!   a player j of side i: mu_j += sigma_j^2 / sigma2_i * Omega_i,
//!                         sigma_j^2 *= 1 - sigma_j^2 / sigma2_i * Delta_i
//! with beta = 25/6 and every newcomer at mu = 25, sigma = 25/3 (sigma^2 = 625/9 = 69.4444).
//! The rating shown is round(1000 + 40 (mu - 3 sigma)).

use crate::common;

use chrono::{DateTime, Duration, Utc};
use common::TestDb;
use postplay::clock::Scheduler;
use postplay::domain::{ClockSettings, EmailAddress, OnTimeout, PlayerName, TimeControl};
use postplay::engine::bot::{bot_rng, fill_at_random};
use postplay::engine::{GameRng, Log, Seat, Seed};
use postplay::store::{CancelReason, NewSeat, RatingRow, Store};
use postplay::time::ManualClock;
use serde_json::{Value, json};
use std::sync::Arc;

/// Monday 23 November 2026, 09:00 UTC.
fn monday() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn close(found: f64, expected: f64) -> bool {
    (found - expected).abs() < 5e-4
}

struct Rig {
    db: TestDb,
    clock: ManualClock,
    store: Arc<Store>,
}

impl Rig {
    async fn new() -> Rig {
        let db = TestDb::new().await;
        let clock = ManualClock::at(monday());
        let store = Arc::new(postplay::startup::store_on(
            db.store.pool().clone(),
            Arc::new(clock.clone()),
        ));
        Rig { db, clock, store }
    }

    /// An account for `name` (address `name@example.org`).
    async fn account(&self, name: &str) -> i64 {
        let email = EmailAddress::parse(&format!("{}@example.org", name.to_lowercase())).unwrap();
        self.store
            .account_for_email(&email, &PlayerName::parse(name).unwrap())
            .await
            .unwrap()
            .id
    }

    /// A club made by the first of `members`, all of them members.
    async fn club(&self, members: &[i64]) -> i64 {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO clubs (name, private, created_by, created_at) \
             VALUES ('Tuesday club', true, $1, $2) RETURNING id",
        )
        .bind(members[0])
        .bind(monday())
        .fetch_one(self.db.store.pool())
        .await
        .unwrap();
        for (i, m) in members.iter().enumerate() {
            sqlx::query(
                "INSERT INTO club_members (club_id, account_id, role, joined_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(id)
            .bind(m)
            .bind(if i == 0 { "admin" } else { "member" })
            .bind(monday())
            .execute(self.db.store.pool())
            .await
            .unwrap();
        }
        id
    }

    /// A game of `kind` for `names` (whose accounts exist, so the seats are theirs), in `club`
    /// if given, with `clock` (none: no time limit).
    async fn game(
        &self,
        club: Option<i64>,
        kind: &str,
        options: Value,
        names: &[&str],
        clock: Option<ClockSettings>,
        seed: u64,
    ) -> i64 {
        let seats: Vec<NewSeat> = names
            .iter()
            .map(|n| NewSeat {
                name: PlayerName::parse(n).unwrap(),
                email: Some(
                    EmailAddress::parse(&format!("{}@example.org", n.to_lowercase())).unwrap(),
                ),
                bot: None,
            })
            .collect();
        let settings = clock.map_or(Value::Null, |c| json!({ "clock": c }));
        let id = self
            .store
            .create_game_with(
                kind,
                &options,
                &seats,
                Seed::from_number(seed),
                None,
                &settings,
            )
            .await
            .unwrap()
            .id;
        sqlx::query("UPDATE games SET club_id = $2 WHERE id = $1")
            .bind(id)
            .bind(club)
            .execute(self.db.store.pool())
            .await
            .unwrap();
        id
    }

    /// Plays one random move for the first awaited seat; returns the seat, or `None` when the
    /// game is over.
    async fn step(&self, id: i64, rng: &mut GameRng) -> Option<Seat> {
        let loaded = self.store.load(id).await.unwrap();
        if loaded.game.outcome().is_some() {
            return None;
        }
        let seat = loaded.game.active()[0];
        let choices = loaded.game.choices(seat);
        let command = fill_at_random(&choices[rng.index(choices.len())], rng);
        self.store
            .submit(id, seat, &command, Some(loaded.row.head_seq))
            .await
            .unwrap();
        Some(seat)
    }

    /// Plays random moves until the game ends; returns each seat's moves by its own hand.
    async fn play_out(&self, id: i64, seats: usize, rng: &mut GameRng) -> Vec<i64> {
        let mut own = vec![0; seats];
        let mut steps = 0;
        while let Some(seat) = self.step(id, rng).await {
            own[seat] += 1;
            steps += 1;
            assert!(steps < 20_000, "game {id} did not end in {steps} moves");
        }
        own
    }

    /// Plays random moves up to the one that ends the game, and returns that one unplayed:
    /// (seat, command, head it expects).
    async fn play_to_last_move(&self, id: i64, rng: &mut GameRng) -> (Seat, Value, i64) {
        loop {
            let loaded = self.store.load(id).await.unwrap();
            assert!(
                loaded.game.outcome().is_none(),
                "game {id} ended by a move played for a seat: pick another seed"
            );
            let seat = loaded.game.active()[0];
            let choices = loaded.game.choices(seat);
            let command = fill_at_random(&choices[rng.index(choices.len())], rng);
            let mut trial = loaded.game.clone_box();
            trial
                .apply_json(seat, &command, &mut Log::recording())
                .unwrap();
            if trial.outcome().is_some() {
                return (seat, command, loaded.row.head_seq);
            }
            self.store
                .submit(id, seat, &command, Some(loaded.row.head_seq))
                .await
                .unwrap();
        }
    }

    async fn rating(&self, club: i64, kind: &str, account: i64) -> Option<RatingRow> {
        self.store.club_rating(club, kind, account).await.unwrap()
    }

    async fn count(&self, table: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
            .fetch_one(self.db.store.pool())
            .await
            .unwrap()
    }

    async fn winners(&self, id: i64) -> Vec<Seat> {
        let loaded = self.store.load(id).await.unwrap();
        loaded.game.outcome().expect("the game is over").winners
    }
}

fn per_move(days: u32, on_timeout: OnTimeout) -> ClockSettings {
    ClockSettings {
        control: TimeControl::PerMove { days },
        on_timeout,
        ..ClockSettings::default()
    }
}

/// Asserts a player's rating row: mean, deviation, shown rating and record.
fn assert_rated(row: &RatingRow, mu: f64, sigma: f64, shown: i32, wld: (i32, i32, i32)) {
    assert!(
        close(row.mu, mu) && close(row.sigma, sigma),
        "{}: expected mu {mu}, sigma {sigma}; found {row:?}",
        row.name
    );
    assert_eq!(row.rating, shown, "{row:?}");
    assert_eq!((row.wins, row.losses, row.draws), wld, "{row:?}");
    assert_eq!(row.games, wld.0 + wld.1 + wld.2, "{row:?}");
}

// Two newcomers, one wins. sigma2 = 69.4444 a side, c^2 = 69.4444 * 2 + 2 (25/6)^2 = 173.611,
// c = 13.17616, p = 1/2 (equal means). Winner: mu = 25 + 69.4444 / 13.17616 * (1 - 1/2) =
// 25 + 5.27046 / 2 = 27.63523; loser 22.36477. Delta = (8.33333 / 13.17616) * 69.4444 /
// 173.611 * 1/4 = 0.632456 * 0.4 / 4 = 0.0632456; sigma = 8.33333 * sqrt(1 - 0.0632456) =
// 8.06551. Shown: 1000 + 40 (27.63523 - 24.19652) = 1137.5 -> 1138; 1000 + 40 (22.36477 -
// 24.19652) = 926.7 -> 927.
const TWO_WIN: (f64, f64, i32) = (27.63523, 8.06551, 1138);
const TWO_LOSS: (f64, f64, i32) = (22.36477, 8.06551, 927);

#[actix_web::test]
async fn a_two_player_club_game_rates_both_players_as_worked_out_by_hand() {
    let rig = Rig::new().await;
    let (ann, bo) = (rig.account("Ann").await, rig.account("Bo").await);
    let club = rig.club(&[ann, bo]).await;
    let id = rig
        .game(
            Some(club),
            "electoral-combat",
            json!({}),
            &["Ann", "Bo"],
            None,
            1,
        )
        .await;
    let own = rig
        .play_out(id, 2, &mut bot_rng(&Seed::from_number(1)))
        .await;
    let winners = rig.winners(id).await;
    assert_eq!(
        winners.len(),
        1,
        "this seed's game has a winner: {winners:?}"
    );
    let (winner, loser) = if winners[0] == 0 {
        (ann, bo)
    } else {
        (bo, ann)
    };
    let won = rig.rating(club, "electoral-combat", winner).await.unwrap();
    let lost = rig.rating(club, "electoral-combat", loser).await.unwrap();
    assert_rated(&won, TWO_WIN.0, TWO_WIN.1, TWO_WIN.2, (1, 0, 0));
    assert_rated(&lost, TWO_LOSS.0, TWO_LOSS.1, TWO_LOSS.2, (0, 1, 0));
    // Nobody's time ran out: every move of each was on time.
    let (win_seat, lose_seat) = (winners[0], 1 - winners[0]);
    assert_eq!(
        (won.moves_on_time, won.moves),
        (own[win_seat], own[win_seat])
    );
    assert_eq!(
        (lost.moves_on_time, lost.moves),
        (own[lose_seat], own[lose_seat])
    );
    assert_eq!(won.on_time_percent(), Some(100));
    // The standings, best first, and each one's history for the chart.
    let standings = rig
        .store
        .club_standings(club, "electoral-combat", 0)
        .await
        .unwrap();
    let names: Vec<(i64, i32)> = standings
        .rows
        .iter()
        .map(|r| (r.account_id, r.rating))
        .collect();
    assert_eq!(names, vec![(winner, 1138), (loser, 927)]);
    assert_eq!(standings.rows[0].position, 1);
    assert!(!standings.more);
    let history = rig
        .store
        .rating_history(club, "electoral-combat", loser)
        .await
        .unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(
        (
            history[0].game_id,
            history[0].rating_before,
            history[0].rating_after
        ),
        (id, 1000, 927)
    );
    assert_eq!(history[0].result, postplay::store::GameResult::Loss);
    assert_eq!(history[0].place, 2);
    let chart = postplay::web::clubs::rating_chart::svg("Ann", "Electoral Combat", &history);
    assert_eq!(chart.matches("<circle").count(), 1);
    rig.db.drop().await;
}

// Whitehouse in partnerships: North–South (Ann, Cy) against East–West (Bo, Di), all newcomers.
// A side's sigma2 = 2 * 69.4444 = 138.889; c^2 = 138.889 * 2 + 2 (25/6)^2 = 312.5, c = 17.67767,
// p = 1/2. Omega (winners) = 138.889 / 17.67767 * 1/2 = 3.92837; each winner's mu = 25 +
// 69.4444 / 138.889 * 3.92837 = 26.96419, each loser's 23.03581. Delta = (11.78511 / 17.67767)
// * 138.889 / 312.5 / 4 = 2/3 * 4/9 / 4 = 2/27; sigma^2 = 69.4444 * (1 - 1/2 * 2/27), sigma =
// 8.17756. Shown: 1000 + 40 (26.96419 - 24.53267) = 1097.3 -> 1097; 1000 + 40 (23.03581 -
// 24.53267) = 940.1 -> 940.
#[actix_web::test]
async fn a_whitehouse_partnership_rates_partners_as_one_side_as_worked_out_by_hand() {
    let rig = Rig::new().await;
    let names = ["Ann", "Bo", "Cy", "Di"];
    let mut accounts = Vec::new();
    for name in names {
        accounts.push(rig.account(name).await);
    }
    let club = rig.club(&accounts).await;
    let id = rig
        .game(
            Some(club),
            "whitehouse",
            json!({"target": 3}),
            &names,
            None,
            1,
        )
        .await;
    rig.play_out(id, 4, &mut bot_rng(&Seed::from_number(1)))
        .await;
    let winners = rig.winners(id).await;
    assert_eq!(winners.len(), 2, "a partnership wins: {winners:?}");
    for (seat, &account) in accounts.iter().enumerate() {
        let row = rig.rating(club, "whitehouse", account).await.unwrap();
        if winners.contains(&seat) {
            assert_rated(&row, 26.96419, 8.17756, 1097, (1, 0, 0));
        } else {
            assert_rated(&row, 23.03581, 8.17756, 940, (0, 1, 0));
        }
    }
    assert_eq!(rig.count("rating_changes").await, 4);
    rig.db.drop().await;
}

// Statehood for four newcomers, ranked by final points. Every pair has c = 13.17616 and p =
// 1/2 (as for two players), so each pairing moves a mean by 5.27046 * (s - 1/2): first (three
// ahead) +7.90569 -> 32.90569; second (+1 -1 -1)/2... = +2.63523 -> 27.63523; third 22.36477;
// last 17.09431. Delta = 3 * 0.0632456 = 0.189737; sigma = 8.33333 * sqrt(0.810263) = 7.50122.
// Shown: 1000 + 40 (mu - 22.50366): 1416, 1205, 994, 784.
#[actix_web::test]
async fn a_four_player_statehood_game_rates_by_final_points_as_worked_out_by_hand() {
    let rig = Rig::new().await;
    let names = ["Ann", "Bo", "Cy", "Di"];
    let mut accounts = Vec::new();
    for name in names {
        accounts.push(rig.account(name).await);
    }
    let club = rig.club(&accounts).await;
    let id = rig
        .game(
            Some(club),
            "statehood",
            json!({"target": 15}),
            &names,
            None,
            3,
        )
        .await;
    rig.play_out(id, 4, &mut bot_rng(&Seed::from_number(3)))
        .await;
    let scores = {
        let loaded = rig.store.load(id).await.unwrap();
        loaded.game.outcome().unwrap().scores
    };
    let mut sorted = scores.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        4,
        "this seed's scores are all different: {scores:?}"
    );
    let expected = [
        (32.90569, 1416),
        (27.63523, 1205),
        (22.36477, 994),
        (17.09431, 784),
    ];
    for (seat, &account) in accounts.iter().enumerate() {
        let place = scores.iter().filter(|&&s| s > scores[seat]).count();
        let row = rig.rating(club, "statehood", account).await.unwrap();
        let record = if place == 0 { (1, 0, 0) } else { (0, 1, 0) };
        let (mu, shown) = expected[place];
        assert_rated(&row, mu, 7.50122, shown, record);
        let history = rig
            .store
            .rating_history(club, "statehood", account)
            .await
            .unwrap();
        assert_eq!(history[0].place, place as i32 + 1);
    }
    let standings = rig
        .store
        .club_standings(club, "statehood", 0)
        .await
        .unwrap();
    let shown: Vec<i32> = standings.rows.iter().map(|r| r.rating).collect();
    assert_eq!(shown, vec![1416, 1205, 994, 784]);
    rig.db.drop().await;
}

#[actix_web::test]
async fn cancelled_games_and_games_of_no_club_are_not_rated() {
    let rig = Rig::new().await;
    let (ann, bo) = (rig.account("Ann").await, rig.account("Bo").await);
    let club = rig.club(&[ann, bo]).await;
    let mut rng = bot_rng(&Seed::from_number(5));
    // A club game both played in, then cancelled.
    let cancelled = rig
        .game(Some(club), "nationhood", json!({}), &["Ann", "Bo"], None, 5)
        .await;
    let mut moved = [false; 2];
    while moved != [true, true] {
        moved[rig.step(cancelled, &mut rng).await.unwrap()] = true;
    }
    rig.store
        .cancel(cancelled, &CancelReason::parse("Bo moved away").unwrap())
        .await
        .unwrap();
    assert_eq!(rig.store.load(cancelled).await.unwrap().row.status, "over");
    // The same players' game outside the club, played to its end.
    let outside = rig
        .game(None, "electoral-combat", json!({}), &["Ann", "Bo"], None, 2)
        .await;
    rig.play_out(outside, 2, &mut bot_rng(&Seed::from_number(2)))
        .await;
    assert_eq!(rig.store.load(outside).await.unwrap().row.status, "over");
    assert_eq!(rig.count("club_ratings").await, 0);
    assert_eq!(rig.count("rating_changes").await, 0);
    assert!(
        rig.store
            .club_standings(club, "nationhood", 0)
            .await
            .unwrap()
            .rows
            .is_empty()
    );
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_game_where_a_seat_never_moved_is_not_rated() {
    let rig = Rig::new().await;
    let (ann, bo) = (rig.account("Ann").await, rig.account("Bo").await);
    let club = rig.club(&[ann, bo]).await;
    let clock = per_move(2, OnTimeout::Forfeit);
    let id = rig
        .game(
            Some(club),
            "nationhood",
            json!({}),
            &["Ann", "Bo"],
            Some(clock),
            7,
        )
        .await;
    // The first player moves until it is the other's turn; the other never moves and
    // forfeits on time.
    let mut rng = bot_rng(&Seed::from_number(7));
    let first = rig.step(id, &mut rng).await.unwrap();
    while rig.store.load(id).await.unwrap().game.active() == vec![first] {
        rig.step(id, &mut rng).await.unwrap();
    }
    rig.clock.advance(Duration::days(3));
    let tick = Scheduler::new(rig.store.clone()).tick().await.unwrap();
    assert_eq!(tick.timeouts, 1);
    assert_eq!(
        rig.winners(id).await,
        vec![first],
        "the idle seat forfeited"
    );
    assert_eq!(rig.count("club_ratings").await, 0);
    assert_eq!(rig.count("rating_changes").await, 0);
    rig.db.drop().await;
}

#[actix_web::test]
async fn a_forfeit_on_time_is_rated_a_loss_and_counts_against_the_on_time_ratio() {
    let rig = Rig::new().await;
    let (ann, bo) = (rig.account("Ann").await, rig.account("Bo").await);
    let club = rig.club(&[ann, bo]).await;
    let clock = per_move(2, OnTimeout::Forfeit);
    let id = rig
        .game(
            Some(club),
            "nationhood",
            json!({}),
            &["Ann", "Bo"],
            Some(clock),
            9,
        )
        .await;
    let mut rng = bot_rng(&Seed::from_number(9));
    let mut own = [0i64; 2];
    while own.iter().any(|&n| n < 3) {
        own[rig.step(id, &mut rng).await.unwrap()] += 1;
    }
    let late = rig.store.load(id).await.unwrap().game.active()[0];
    rig.clock.advance(Duration::days(3));
    let tick = Scheduler::new(rig.store.clone()).tick().await.unwrap();
    assert_eq!(tick.timeouts, 1, "the forfeit");
    let accounts = [ann, bo];
    let lost = rig
        .rating(club, "nationhood", accounts[late])
        .await
        .unwrap();
    let won = rig
        .rating(club, "nationhood", accounts[1 - late])
        .await
        .unwrap();
    // A forfeit is a two-player loss like any other (numbers as in the first test).
    assert_rated(&lost, TWO_LOSS.0, TWO_LOSS.1, TWO_LOSS.2, (0, 1, 0));
    assert_rated(&won, TWO_WIN.0, TWO_WIN.1, TWO_WIN.2, (1, 0, 0));
    // The forfeit is one move not made before its deadline.
    assert_eq!((lost.moves_on_time, lost.moves), (own[late], own[late] + 1));
    assert_eq!(
        (won.moves_on_time, won.moves),
        (own[1 - late], own[1 - late])
    );
    assert_eq!(
        lost.on_time_percent(),
        Some(own[late] * 100 / (own[late] + 1))
    );
    rig.db.drop().await;
}

#[actix_web::test]
async fn the_on_time_ratio_counts_the_clocks_moves_against_the_seat() {
    let rig = Rig::new().await;
    let (ann, bo) = (rig.account("Ann").await, rig.account("Bo").await);
    let club = rig.club(&[ann, bo]).await;
    let clock = per_move(2, OnTimeout::Move);
    let id = rig
        .game(
            Some(club),
            "electoral-combat",
            json!({}),
            &["Ann", "Bo"],
            Some(clock),
            4,
        )
        .await;
    let mut rng = bot_rng(&Seed::from_number(4));
    let mut own = vec![0i64; 2];
    for _ in 0..4 {
        own[rig.step(id, &mut rng).await.unwrap()] += 1;
    }
    // One seat's time runs out: the clock plays its turn, a move a tick.
    let awaited = rig.store.load(id).await.unwrap().game.active();
    assert_eq!(
        awaited.len(),
        1,
        "one seat awaited when time runs out: {awaited:?}"
    );
    let slow = awaited[0];
    rig.clock.advance(Duration::days(3));
    let scheduler = Scheduler::new(rig.store.clone());
    let mut clock_moves = 0;
    loop {
        let played = scheduler.tick().await.unwrap().timeouts as i64;
        if played == 0 {
            break;
        }
        clock_moves += played;
        assert!(clock_moves < 100, "the clock keeps playing");
    }
    assert!(clock_moves >= 1);
    let rest = rig.play_out(id, 2, &mut rng).await;
    for seat in 0..2 {
        own[seat] += rest[seat];
    }
    let accounts = [ann, bo];
    let row = rig
        .rating(club, "electoral-combat", accounts[slow])
        .await
        .unwrap();
    assert_eq!(
        (row.moves_on_time, row.moves),
        (own[slow], own[slow] + clock_moves),
        "{own:?}, {clock_moves} by the clock"
    );
    let other = rig
        .rating(club, "electoral-combat", accounts[1 - slow])
        .await
        .unwrap();
    assert_eq!(
        (other.moves_on_time, other.moves),
        (own[1 - slow], own[1 - slow])
    );
    assert_eq!(other.on_time_percent(), Some(100));
    assert!(row.on_time_percent().unwrap() < 100);
    rig.db.drop().await;
}

/// How many of this database's sessions wait for a lock.
async fn waiting_on_locks(db: &TestDb) -> i64 {
    sqlx::query_scalar(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
    )
    .bind(&db.name)
    .fetch_one(db.store.pool())
    .await
    .unwrap()
}

#[actix_web::test]
async fn two_games_ending_at_once_for_one_player_both_count() {
    let rig = Rig::new().await;
    let (ann, bo, cy) = (
        rig.account("Ann").await,
        rig.account("Bo").await,
        rig.account("Cy").await,
    );
    let club = rig.club(&[ann, bo, cy]).await;
    let first = rig
        .game(
            Some(club),
            "electoral-combat",
            json!({}),
            &["Ann", "Bo"],
            None,
            1,
        )
        .await;
    let second = rig
        .game(
            Some(club),
            "electoral-combat",
            json!({}),
            &["Ann", "Cy"],
            None,
            2,
        )
        .await;
    let last_first = rig
        .play_to_last_move(first, &mut bot_rng(&Seed::from_number(1)))
        .await;
    let last_second = rig
        .play_to_last_move(second, &mut bot_rng(&Seed::from_number(2)))
        .await;
    // Ann's rating row exists and is held by another transaction while both last moves go in.
    sqlx::query(
        "INSERT INTO club_ratings (club_id, kind, account_id, mu, sigma, rating, updated_at) \
         VALUES ($1, 'electoral-combat', $2, 25, 25.0 / 3, 1000, $3)",
    )
    .bind(club)
    .bind(ann)
    .bind(monday())
    .execute(rig.db.store.pool())
    .await
    .unwrap();
    let mut blocker = rig.db.store.pool().begin().await.unwrap();
    sqlx::query("SELECT 1 FROM club_ratings WHERE club_id = $1 AND account_id = $2 FOR UPDATE")
        .bind(club)
        .bind(ann)
        .execute(&mut *blocker)
        .await
        .unwrap();
    let moves = [(first, last_first), (second, last_second)].map(|(id, (seat, command, head))| {
        let store = rig.store.clone();
        actix_web::rt::spawn(async move { store.submit(id, seat, &command, Some(head)).await })
    });
    common::wait::until(
        "both last moves to wait on Ann's rating",
        common::wait::PATIENCE,
        async || match waiting_on_locks(&rig.db).await {
            2 => Ok(()),
            n => Err(format!("{n} waiting")),
        },
    )
    .await;
    blocker.commit().await.unwrap();
    for handle in moves {
        handle.await.unwrap().expect("the last move is appended");
    }
    let row = rig.rating(club, "electoral-combat", ann).await.unwrap();
    assert_eq!(row.games, 2, "{row:?}");
    // The second game rated started from what the first wrote.
    let changes: Vec<(f64, f64, f64, f64)> = sqlx::query_as(
        "SELECT mu_before, sigma_before, mu_after, sigma_after FROM rating_changes \
         WHERE account_id = $1 ORDER BY rated_at, game_id",
    )
    .bind(ann)
    .fetch_all(rig.db.store.pool())
    .await
    .unwrap();
    let (a, b) = (changes[0], changes[1]);
    let in_order = (close(b.0, a.2) && close(b.1, a.3)) as usize;
    let other_order = (close(a.0, b.2) && close(a.1, b.3)) as usize;
    assert_eq!(
        in_order + other_order,
        1,
        "one game followed the other: {changes:?}"
    );
    let last = if in_order == 1 { b } else { a };
    assert!(
        close(row.mu, last.2) && close(row.sigma, last.3),
        "{row:?} {changes:?}"
    );
    let first_before = if in_order == 1 { a } else { b };
    assert!(close(first_before.0, 25.0) && close(first_before.1, 25.0 / 3.0));
    rig.db.drop().await;
}

/// A GET of `path` on the real server as the session `session` (if any): status and body.
async fn get_page(base: &str, path: &str, session: Option<&str>) -> (u16, String) {
    let client = awc::Client::builder()
        .disable_redirects()
        .timeout(std::time::Duration::from_secs(30))
        .finish();
    let mut req = client.get(format!("{base}{path}"));
    if let Some(s) = session {
        req = req.insert_header(("Cookie", format!("pp_session={s}")));
    }
    let mut res = req.send().await.unwrap();
    let body = res.body().limit(4 << 20).await.unwrap();
    (
        res.status().as_u16(),
        String::from_utf8_lossy(&body).into_owned(),
    )
}

#[actix_web::test]
async fn members_see_the_standings_and_a_members_chart_and_nobody_else_does() {
    let rig = Rig::new().await;
    let (ann, bo, cy) = (
        rig.account("Ann").await,
        rig.account("Bo").await,
        rig.account("Cy").await,
    );
    let club = rig.club(&[ann, bo]).await;
    let id = rig
        .game(
            Some(club),
            "electoral-combat",
            json!({}),
            &["Ann", "Bo"],
            None,
            1,
        )
        .await;
    rig.play_out(id, 2, &mut bot_rng(&Seed::from_number(1)))
        .await;
    let winner = if rig.winners(id).await[0] == 0 {
        ann
    } else {
        bo
    };
    let base = common::spawn_app(&rig.db);
    let member = rig.db.store.start_session(bo).await.unwrap();
    let stranger = rig.db.store.start_session(cy).await.unwrap();

    let (status, page) = get_page(&base, &format!("/clubs/{club}"), Some(&member)).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<h2>Standings</h2>"), "{page}");
    let game = postplay::games::find_game("electoral-combat")
        .unwrap()
        .name();
    assert!(page.contains(&format!("<h3>{game}</h3>")), "{page}");
    assert!(
        page.contains(">1138?<"),
        "the winner's provisional rating: {page}"
    );
    assert!(page.contains(">927?<"), "the loser's: {page}");
    let chart = format!("/clubs/{club}/ratings/electoral-combat/{winner}");
    assert!(
        page.contains(&chart),
        "the winner's line links the chart: {page}"
    );

    let (status, page) = get_page(&base, &chart, Some(&member)).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<svg"), "{page}");
    assert!(page.contains(&format!("/games/{id}/replay")), "{page}");
    assert!(page.contains("1000 → 1138"), "{page}");

    // The club is private: to a signed-in stranger and to nobody signed in, the standings and
    // the chart are pages that do not exist.
    for session in [Some(stranger.as_str()), None] {
        let (status, page) = get_page(&base, &format!("/clubs/{club}"), session).await;
        assert_eq!(status, 404, "{page}");
        assert!(!page.contains("1138"));
        let (status, page) = get_page(&base, &chart, session).await;
        assert_eq!(status, 404, "{page}");
        assert!(!page.contains("<svg"));
    }
    // No rating of that game kind, or no such member: 404 too.
    let (status, _) = get_page(
        &base,
        &format!("/clubs/{club}/ratings/whitehouse/{winner}"),
        Some(&member),
    )
    .await;
    assert_eq!(status, 404);
    rig.db.drop().await;
}
