//! Club ratings in the database (migration 0018): what a finished club game's rating needs to
//! know, read and locked in one statement, and its changes written in one (inside the last
//! entry's transaction, for `crate::ratings`, which owns the rules); and what the club's pages
//! read: standings and a member's history.

use crate::engine::Seat;
use crate::store::Store;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};

/// Standings are read this many rows a page.
pub const STANDINGS_PAGE: i64 = 50;

/// Pages past this one are not read (a club of 50,000 rated members).
pub const MAX_STANDINGS_PAGE: i64 = 1000;

/// A member's history keeps its last this many rated games for the chart.
pub const MAX_HISTORY: i64 = 200;

/// A rating from fewer rated games than this is shown as provisional.
pub const PROVISIONAL_GAMES: i32 = 5;

/// What a side's place in a game counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    /// First, with some side behind.
    Win,
    /// Not first.
    Loss,
    /// Every side first.
    Draw,
}

impl GameResult {
    /// The word stored.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::Win => "win",
            GameResult::Loss => "loss",
            GameResult::Draw => "draw",
        }
    }

    /// The result a stored word names.
    pub fn parse(word: &str) -> Option<GameResult> {
        [GameResult::Win, GameResult::Loss, GameResult::Draw]
            .into_iter()
            .find(|r| r.as_str() == word)
    }
}

/// A seat of a finished club game, as its rating sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatPlay {
    /// The seat.
    pub seat: Seat,
    /// The account holding it, if any.
    pub account_id: Option<i64>,
    /// Its moves before their deadline: by its own hand (less those it took back) or by its
    /// standing orders.
    pub on_time: i64,
    /// Its moves the clock made because its time ran out (timeout moves and a forfeit).
    pub late: i64,
    /// Its account's rating in the club's game (mu, sigma), locked until the transaction
    /// ends; `None` when the game is not to be rated (see [`rating_facts`]).
    pub skill: Option<(f64, f64)>,
}

impl SeatPlay {
    /// Whether the seat ever made a move of its own.
    pub fn moved(&self) -> bool {
        self.on_time > 0
    }
}

/// What rating a finished game of `club_id` needs: each seat's holder, moves counted from the
/// log's marks, and rating.
///
/// Moves: a seat's own (`made_by` empty) less its undos, and its standing orders' moves, are
/// on time (a seat's own move after its deadline is refused by the clock); the clock's
/// entries for it are late; moves played for it because they were its only possible move
/// (`auto`) are neither: the seat decided nothing.
///
/// Ratings: when every seat is held by an account of its own and moved (the rule
/// `ratings::effects::check_seats` applies, repeated here so no row is made for a game that
/// is not rated), each account's rating row is locked until the transaction ends, in account
/// order: a game ending at the same time for the same player waits, then reads what this one
/// wrote. One statement reads the seats and locks the rows that exist (`FOR NO KEY UPDATE`,
/// the lock the update takes anyway: it marks the row but writes no new version of it), each
/// found by its whole key so a club of a thousand rated players costs what a club of two
/// does; only when a player has no row yet in the club's game (their first rated
/// game in it) does a second make the missing rows at `start` (mu, sigma, shown) and lock them.
pub async fn rating_facts(
    tx: &mut PgConnection,
    club_id: i64,
    game_id: i64,
    kind: &str,
    start: (f64, f64, i32),
    at: DateTime<Utc>,
) -> Result<Vec<SeatPlay>, sqlx::Error> {
    let rows = sqlx::query(
        "WITH c AS (SELECT seat, \
                 count(*) FILTER (WHERE made_by IS NULL) - count(*) FILTER (WHERE made_by = 'undo') \
                 + count(*) FILTER (WHERE made_by = 'standing') AS on_time, \
                 count(*) FILTER (WHERE made_by = 'clock') AS late \
               FROM commands WHERE game_id = $1 GROUP BY seat), \
         p AS (SELECT s.seat, s.account_id, coalesce(c.on_time, 0) AS on_time, \
                 coalesce(c.late, 0) AS late \
               FROM seats s LEFT JOIN c ON c.seat = s.seat WHERE s.game_id = $1), \
         r AS (SELECT r.account_id, r.mu, r.sigma FROM p JOIN club_ratings r \
                 ON r.club_id = $2 AND r.kind = $3 AND r.account_id = p.account_id \
               WHERE NOT EXISTS (SELECT 1 FROM p WHERE account_id IS NULL OR on_time <= 0) \
                 AND (SELECT count(DISTINCT account_id) FROM p) = (SELECT count(*) FROM p) \
               ORDER BY r.account_id FOR NO KEY UPDATE OF r) \
         SELECT p.seat, p.account_id, p.on_time, p.late, r.mu, r.sigma \
         FROM p LEFT JOIN r ON r.account_id = p.account_id ORDER BY p.seat",
    )
    .bind(game_id)
    .bind(club_id)
    .bind(kind)
    .fetch_all(&mut *tx)
    .await?;
    let mut seats = rows
        .iter()
        .map(|row| {
            let mu: Option<f64> = row.try_get("mu")?;
            let sigma: Option<f64> = row.try_get("sigma")?;
            Ok(SeatPlay {
                seat: row.try_get::<i32, _>("seat")? as Seat,
                account_id: row.try_get("account_id")?,
                on_time: row.try_get::<i64, _>("on_time")?.max(0),
                late: row.try_get("late")?,
                skill: mu.zip(sigma),
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let rated = seats.iter().all(SeatPlay::moved)
        && seats.iter().enumerate().all(|(i, p)| {
            p.account_id.is_some() && !seats[..i].iter().any(|q| q.account_id == p.account_id)
        });
    if !rated || seats.iter().all(|p| p.skill.is_some()) {
        return Ok(seats);
    }
    let missing: Vec<i64> = seats
        .iter()
        .filter(|p| p.skill.is_none())
        .filter_map(|p| p.account_id)
        .collect();
    let made = sqlx::query(
        "INSERT INTO club_ratings (club_id, kind, account_id, mu, sigma, rating, updated_at) \
         SELECT $1, $2, a, $4, $5, $6, $7 FROM unnest($3::bigint[]) a ORDER BY a \
         ON CONFLICT (club_id, kind, account_id) DO UPDATE SET updated_at = club_ratings.updated_at \
         RETURNING account_id, mu, sigma",
    )
    .bind(club_id)
    .bind(kind)
    .bind(&missing)
    .bind(start.0)
    .bind(start.1)
    .bind(start.2)
    .bind(at)
    .fetch_all(&mut *tx)
    .await?;
    for row in made {
        let account: i64 = row.try_get("account_id")?;
        let skill = (row.try_get("mu")?, row.try_get("sigma")?);
        for play in seats.iter_mut().filter(|p| p.account_id == Some(account)) {
            play.skill = Some(skill);
        }
    }
    Ok(seats)
}

/// One player's change of rating by one game.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingChange {
    /// The account.
    pub account_id: i64,
    /// Its seat.
    pub seat: Seat,
    /// Its side's place, from 1.
    pub place: usize,
    /// What the place counts as.
    pub result: GameResult,
    /// Mu, sigma and the shown rating before the game.
    pub before: (f64, f64, i32),
    /// The same after it.
    pub after: (f64, f64, i32),
    /// The seat's moves in this game before their deadline.
    pub moves_on_time: i64,
    /// All the seat's moves in this game (a timeout counts as a move, not on time).
    pub moves: i64,
}

/// Writes a rated game's changes in one statement: each player's club rating and counts, and
/// the game's row in each player's history. The rows must be locked ([`rating_facts`]).
pub async fn save_changes(
    tx: &mut PgConnection,
    club_id: i64,
    kind: &str,
    game_id: i64,
    changes: &[RatingChange],
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    let column = |f: &dyn Fn(&RatingChange) -> f64| changes.iter().map(f).collect::<Vec<f64>>();
    let accounts: Vec<i64> = changes.iter().map(|c| c.account_id).collect();
    let seats: Vec<i32> = changes.iter().map(|c| c.seat as i32).collect();
    let places: Vec<i32> = changes.iter().map(|c| c.place as i32).collect();
    let results: Vec<&str> = changes.iter().map(|c| c.result.as_str()).collect();
    let shown_before: Vec<i32> = changes.iter().map(|c| c.before.2).collect();
    let shown_after: Vec<i32> = changes.iter().map(|c| c.after.2).collect();
    let on_time: Vec<i64> = changes.iter().map(|c| c.moves_on_time).collect();
    let moves: Vec<i64> = changes.iter().map(|c| c.moves).collect();
    sqlx::query(
        "WITH c AS (SELECT * FROM unnest($4::bigint[], $5::int[], $6::int[], $7::text[], \
           $8::float8[], $9::float8[], $10::int[], $11::float8[], $12::float8[], $13::int[], \
           $14::bigint[], $15::bigint[]) \
           AS c(account_id, seat, place, result, mu_b, sigma_b, rating_b, mu_a, sigma_a, rating_a, \
                on_time, moves)), \
         u AS (UPDATE club_ratings r SET mu = c.mu_a, sigma = c.sigma_a, rating = c.rating_a, \
           games = r.games + 1, wins = r.wins + (c.result = 'win')::int, \
           losses = r.losses + (c.result = 'loss')::int, draws = r.draws + (c.result = 'draw')::int, \
           moves_on_time = r.moves_on_time + c.on_time, moves = r.moves + c.moves, updated_at = $16 \
           FROM c WHERE r.club_id = $2 AND r.kind = $3 AND r.account_id = ANY($4) \
           AND r.account_id = c.account_id) \
         INSERT INTO rating_changes (game_id, account_id, club_id, kind, seat, place, result, \
           mu_before, sigma_before, rating_before, mu_after, sigma_after, rating_after, \
           moves_on_time, moves, rated_at) \
         SELECT $1, c.account_id, $2, $3, c.seat, c.place, c.result, c.mu_b, c.sigma_b, c.rating_b, \
           c.mu_a, c.sigma_a, c.rating_a, c.on_time, c.moves, $16 FROM c",
    )
    .bind(game_id)
    .bind(club_id)
    .bind(kind)
    .bind(&accounts)
    .bind(&seats)
    .bind(&places)
    .bind(&results)
    .bind(column(&|c| c.before.0))
    .bind(column(&|c| c.before.1))
    .bind(&shown_before)
    .bind(column(&|c| c.after.0))
    .bind(column(&|c| c.after.1))
    .bind(&shown_after)
    .bind(&on_time)
    .bind(&moves)
    .bind(at)
    .execute(tx)
    .await?;
    Ok(())
}

/// A member's line in a club's standings for one game.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingRow {
    /// Its position in the standings, from 1.
    pub position: i64,
    /// The member's account.
    pub account_id: i64,
    /// The member's name.
    pub name: String,
    /// The rating shown.
    pub rating: i32,
    /// Mu.
    pub mu: f64,
    /// Sigma.
    pub sigma: f64,
    /// Rated games.
    pub games: i32,
    /// Of which won.
    pub wins: i32,
    /// Lost.
    pub losses: i32,
    /// Drawn.
    pub draws: i32,
    /// Moves of rated games made before their deadline.
    pub moves_on_time: i64,
    /// All moves of rated games.
    pub moves: i64,
}

impl RatingRow {
    /// Whether the rating rests on too few games to mean much yet.
    pub fn provisional(&self) -> bool {
        self.games < PROVISIONAL_GAMES
    }

    /// The share of moves made on time, in whole percent (rounded down, so 100 means none
    /// late); `None` before any move.
    pub fn on_time_percent(&self) -> Option<i64> {
        (self.moves > 0).then(|| self.moves_on_time * 100 / self.moves)
    }
}

/// A page of a club's standings.
#[derive(Debug, Clone, PartialEq)]
pub struct StandingsPage {
    /// The rows, best first.
    pub rows: Vec<RatingRow>,
    /// Whether a next page exists.
    pub more: bool,
}

/// One rated game in a member's history.
#[derive(Debug, Clone, PartialEq)]
pub struct RatingPoint {
    /// The game.
    pub game_id: i64,
    /// When it was rated (its end).
    pub at: DateTime<Utc>,
    /// The member's place in it, from 1.
    pub place: i32,
    /// What the place counted as.
    pub result: GameResult,
    /// The rating shown before it.
    pub rating_before: i32,
    /// The rating shown after it.
    pub rating_after: i32,
}

macro_rules! row_columns {
    () => {
        "r.account_id, a.name, r.rating, r.mu, r.sigma, r.games, r.wins, r.losses, r.draws, \
         r.moves_on_time, r.moves"
    };
}

fn rating_row(row: &sqlx::postgres::PgRow, position: i64) -> Result<RatingRow, sqlx::Error> {
    Ok(RatingRow {
        position,
        account_id: row.try_get("account_id")?,
        name: row.try_get("name")?,
        rating: row.try_get("rating")?,
        mu: row.try_get("mu")?,
        sigma: row.try_get("sigma")?,
        games: row.try_get("games")?,
        wins: row.try_get("wins")?,
        losses: row.try_get("losses")?,
        draws: row.try_get("draws")?,
        moves_on_time: row.try_get("moves_on_time")?,
        moves: row.try_get("moves")?,
    })
}

impl Store {
    /// Page `page` (from 0) of a club's standings in game `kind`: its current members with a
    /// rated game, by shown rating, then mean, then account. Past [`MAX_STANDINGS_PAGE`] the
    /// page is empty.
    pub async fn club_standings(
        &self,
        club_id: i64,
        kind: &str,
        page: i64,
    ) -> Result<StandingsPage, sqlx::Error> {
        if !(0..=MAX_STANDINGS_PAGE).contains(&page) {
            return Ok(StandingsPage {
                rows: Vec::new(),
                more: false,
            });
        }
        let offset = page * STANDINGS_PAGE;
        let rows = sqlx::query(concat!(
            "SELECT ",
            row_columns!(),
            " FROM club_ratings r \
             JOIN club_members m ON m.club_id = r.club_id AND m.account_id = r.account_id \
             JOIN accounts a ON a.id = r.account_id \
             WHERE r.club_id = $1 AND r.kind = $2 \
             ORDER BY r.rating DESC, r.mu DESC, r.account_id LIMIT $3 OFFSET $4"
        ))
        .bind(club_id)
        .bind(kind)
        .bind(STANDINGS_PAGE + 1)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?;
        let more = rows.len() as i64 > STANDINGS_PAGE;
        let rows = rows
            .iter()
            .take(STANDINGS_PAGE as usize)
            .enumerate()
            .map(|(i, row)| rating_row(row, offset + i as i64 + 1))
            .collect::<Result<_, _>>()?;
        Ok(StandingsPage { rows, more })
    }

    /// A member's rating in a club's game, if they have one (their position is 0: not read).
    pub async fn club_rating(
        &self,
        club_id: i64,
        kind: &str,
        account_id: i64,
    ) -> Result<Option<RatingRow>, sqlx::Error> {
        let row = sqlx::query(concat!(
            "SELECT ",
            row_columns!(),
            " FROM club_ratings r JOIN accounts a ON a.id = r.account_id \
             WHERE r.club_id = $1 AND r.kind = $2 AND r.account_id = $3"
        ))
        .bind(club_id)
        .bind(kind)
        .bind(account_id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| rating_row(&r, 0)).transpose()
    }

    /// The games a club has ratings in, by name of kind.
    pub async fn club_rated_kinds(&self, club_id: i64) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar(
            "SELECT DISTINCT kind FROM club_ratings WHERE club_id = $1 ORDER BY kind",
        )
        .bind(club_id)
        .fetch_all(&self.pool)
        .await
    }

    /// A member's last [`MAX_HISTORY`] rated games of `kind` in a club, oldest first.
    pub async fn rating_history(
        &self,
        club_id: i64,
        kind: &str,
        account_id: i64,
    ) -> Result<Vec<RatingPoint>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT * FROM (SELECT game_id, rated_at, place, result, rating_before, rating_after \
             FROM rating_changes WHERE club_id = $1 AND kind = $2 AND account_id = $3 \
             ORDER BY rated_at DESC, game_id DESC LIMIT $4) h ORDER BY rated_at, game_id",
        )
        .bind(club_id)
        .bind(kind)
        .bind(account_id)
        .bind(MAX_HISTORY)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let word: String = row.try_get("result")?;
                Ok(RatingPoint {
                    game_id: row.try_get("game_id")?,
                    at: row.try_get("rated_at")?,
                    place: row.try_get("place")?,
                    result: GameResult::parse(&word)
                        .ok_or_else(|| sqlx::Error::Decode(format!("no result {word:?}").into()))?,
                    rating_before: row.try_get("rating_before")?,
                    rating_after: row.try_get("rating_after")?,
                })
            })
            .collect()
    }
}
