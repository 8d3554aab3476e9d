//! A league after sign-up: the scheduler's pass closes sign-up (too few entrants: cancelled,
//! and they are told; else the schedule is laid out and the first games started), starts each
//! round's games when the mode allows, forfeits the games of entrants who left, and finishes
//! the league when every game has ended. Each league is worked on in a transaction holding its
//! row (`FOR UPDATE SKIP LOCKED`), so any number of processes run the pass and no game is
//! started twice. A league game's end is written in its last entry's transaction
//! ([`record_league_game_end`], called by the effect in `clock::league`).

use crate::domain::{CancelReason, EmailAddress};
use crate::games::find_game;
use crate::leagues::{self, Finish, Format, Meetings, Mode};
use crate::store::clubs::leagues::{League, league_columns, league_row, read_view};
use crate::store::game::effects::{LeagueEvent, LeagueNews};
use crate::store::lobby::start::account_seat;
use crate::store::{Store, StoreError};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};

/// How many games one transaction of the pass starts at most (the rest in the next ones).
pub const START_BATCH: usize = 50;

/// How many leagues one pass works on at most.
const LEAGUES_A_PASS: usize = 200;

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LeaguePass {
    /// Leagues whose sign-up closed with enough entrants: laid out and running.
    pub started: usize,
    /// Leagues cancelled for too few entrants.
    pub cancelled: usize,
    /// League games started.
    pub games_started: usize,
    /// Running games of entrants who left, cancelled.
    pub games_cancelled: usize,
    /// Leagues finished.
    pub finished: usize,
}

/// The league of a game, if it has one, and the format its table reads results in.
pub async fn league_of_game(
    tx: &mut PgConnection,
    game_id: i64,
) -> Result<Option<(i64, Format)>, sqlx::Error> {
    let row = sqlx::query(concat!(
        "SELECT ",
        league_columns!(),
        " FROM leagues WHERE id = (SELECT league_id FROM games WHERE id = $1)"
    ))
    .bind(game_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let league = league_row(&row)?;
    match league.format() {
        Ok(format) => Ok(Some((league.id, format))),
        Err(e) => {
            tracing::error!(league = league.id, error = %e, "a league's game has no format");
            Ok(None)
        }
    }
}

/// Writes how a league game ended (`None`: without a result, a cancellation) and asks the
/// scheduler's pass to look at its league: the next round may open, or the league finish.
pub async fn record_league_game_end(
    tx: &mut PgConnection,
    league_id: i64,
    game_id: i64,
    finish: Option<&Finish>,
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    let (places, timed_out): (Option<Vec<i32>>, Option<i32>) = match finish {
        Some(Finish::Places(p)) => (Some(p.iter().map(|&x| x as i32).collect()), None),
        Some(Finish::TimedOut(s)) => (None, Some(*s as i32)),
        None => (None, None),
    };
    sqlx::query(
        "UPDATE league_games SET ended_at = $2, places = $3, timed_out = $4 \
         WHERE game_id = $1 AND ended_at IS NULL",
    )
    .bind(game_id)
    .bind(at)
    .bind(places)
    .bind(timed_out)
    .execute(&mut *tx)
    .await?;
    sqlx::query("UPDATE leagues SET pass_due = true WHERE id = $1 AND status = 'running'")
        .bind(league_id)
        .execute(&mut *tx)
        .await?;
    Ok(())
}

/// A member leaves the club (or is removed), in that change's transaction: they withdraw from
/// the club's leagues still in sign-up; in its running leagues they are marked as left, and
/// the pass forfeits their remaining games (cancels those running, never starts the others).
pub(in crate::store) async fn member_left(
    tx: &mut PgConnection,
    club_id: i64,
    account_id: i64,
    at: DateTime<Utc>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM league_entrants e USING leagues l WHERE l.id = e.league_id \
         AND l.club_id = $1 AND l.status = 'signup' AND e.account_id = $2",
    )
    .bind(club_id)
    .bind(account_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "WITH gone AS (UPDATE league_entrants e SET left_at = $3 FROM leagues l \
           WHERE l.id = e.league_id AND l.club_id = $1 AND l.status = 'running' \
           AND e.account_id = $2 AND e.left_at IS NULL RETURNING e.league_id) \
         UPDATE leagues SET pass_due = true WHERE id IN (SELECT league_id FROM gone)",
    )
    .bind(club_id)
    .bind(account_id)
    .bind(at)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

impl Store {
    /// One pass over the leagues: sign-ups due to close, then running leagues with something
    /// to do. Run by the scheduler's tick.
    pub async fn run_leagues(&self) -> Result<LeaguePass, StoreError> {
        let mut pass = LeaguePass::default();
        for _ in 0..LEAGUES_A_PASS {
            if !self.close_one_signup(&mut pass).await? {
                break;
            }
        }
        for _ in 0..LEAGUES_A_PASS {
            if !self.advance_one(&mut pass).await? {
                break;
            }
        }
        Ok(pass)
    }

    /// Closes the sign-up of one league whose time came; false if none is due.
    async fn close_one_signup(&self, pass: &mut LeaguePass) -> Result<bool, StoreError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(concat!(
            "SELECT ",
            league_columns!(),
            " FROM leagues WHERE status = 'signup' AND signup_closes_at <= $1 \
             ORDER BY signup_closes_at, id LIMIT 1 FOR UPDATE SKIP LOCKED"
        ))
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else { return Ok(false) };
        let league = league_row(&row)?;
        let entrants: Vec<i64> = sqlx::query_scalar(
            "SELECT account_id FROM league_entrants WHERE league_id = $1 ORDER BY position",
        )
        .bind(league.id)
        .fetch_all(&mut *tx)
        .await?;
        let schedule = league
            .plan()
            .and_then(|plan| leagues::schedule(&entrants, &plan));
        let schedule = match schedule {
            Ok(s) => s,
            Err(why) => {
                sqlx::query("UPDATE leagues SET status = 'cancelled', ended_at = $2 WHERE id = $1")
                    .bind(league.id)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                self.tell_entrants(&mut tx, &league, &entrants, &why.to_string())
                    .await?;
                tx.commit().await?;
                tracing::info!(league = league.id, %why, "league cancelled at sign-up's close");
                pass.cancelled += 1;
                return Ok(true);
            }
        };
        for (number, (round, game)) in schedule.games().enumerate() {
            sqlx::query(
                "INSERT INTO league_games (league_id, round, number, seats) VALUES ($1, $2, $3, $4)",
            )
            .bind(league.id)
            .bind(round as i32)
            .bind(number as i32)
            .bind(&game.seats)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "UPDATE leagues SET status = 'running', started_at = $2, pass_due = true WHERE id = $1",
        )
        .bind(league.id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(
            league = league.id,
            entrants = entrants.len(),
            "league sign-up closed: running"
        );
        pass.started += 1;
        Ok(true)
    }

    /// Mails the entrants of a league cancelled at sign-up's close.
    async fn tell_entrants(
        &self,
        tx: &mut PgConnection,
        league: &League,
        entrants: &[i64],
        why: &str,
    ) -> Result<(), StoreError> {
        let event = LeagueEvent::Cancelled {
            entrants: entrants.len(),
            why: why.to_string(),
        };
        self.tell_league(tx, league, entrants, &event).await
    }

    /// Hands `event` of `league` to the effects (its mail), once for each of `accounts`.
    async fn tell_league(
        &self,
        tx: &mut PgConnection,
        league: &League,
        accounts: &[i64],
        event: &LeagueEvent,
    ) -> Result<(), StoreError> {
        let club: String = sqlx::query_scalar("SELECT name FROM clubs WHERE id = $1")
            .bind(league.club_id)
            .fetch_one(&mut *tx)
            .await?;
        let game = find_game(&league.kind).map_or(league.kind.clone(), |g| g.name().into());
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT email, name FROM accounts WHERE id = ANY($1) ORDER BY id")
                .bind(accounts)
                .fetch_all(&mut *tx)
                .await?;
        for (email, name) in rows {
            let Ok(to) = EmailAddress::parse(&email) else {
                continue;
            };
            let news = LeagueNews {
                club_id: league.club_id,
                club_name: &club,
                league_id: league.id,
                league_name: &league.name,
                game_name: &game,
                event: event.clone(),
                to: &to,
                to_name: &name,
                at: self.now(),
            };
            for effect in &self.effects {
                effect.league_news(tx, &news).await?;
            }
        }
        Ok(())
    }

    /// Mails every entrant still in the club's league that it is over: its winner and its
    /// final table, as the league's page shows them.
    async fn tell_finished(
        &self,
        tx: &mut PgConnection,
        league: &League,
    ) -> Result<(), StoreError> {
        let view = read_view(&mut *tx, league.clone()).await?;
        let Some(standings) = &view.standings else {
            return Ok(());
        };
        let Some(first) = standings.rows.first() else {
            return Ok(());
        };
        let winner = view.name_of(first.entrant).to_string();
        let table: Vec<String> = standings
            .rows
            .iter()
            .map(|r| {
                format!(
                    "{}. {}: {} point{}, won–lost–drawn {}–{}–{}",
                    r.place,
                    view.name_of(r.entrant),
                    r.points,
                    if r.points.to_string() == "1" { "" } else { "s" },
                    r.wins,
                    r.losses,
                    r.draws
                )
            })
            .collect();
        let staying: Vec<i64> = view
            .entrants
            .iter()
            .filter(|e| !e.left)
            .map(|e| e.account_id)
            .collect();
        let event = LeagueEvent::Finished { winner, table };
        self.tell_league(tx, league, &staying, &event).await
    }

    /// Works on one running league the pass is due for; false if none is.
    async fn advance_one(&self, pass: &mut LeaguePass) -> Result<bool, StoreError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(concat!(
            "SELECT ",
            league_columns!(),
            " FROM leagues WHERE status = 'running' AND pass_due \
             ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
        ))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else { return Ok(false) };
        let league = league_row(&row)?;
        let left: Vec<i64> = sqlx::query_scalar(
            "SELECT account_id FROM league_entrants WHERE league_id = $1 AND left_at IS NOT NULL",
        )
        .bind(league.id)
        .fetch_all(&mut *tx)
        .await?;
        // A leaver's games not started are forfeited without ever starting; those running
        // are cancelled once this transaction is done (each cancellation ends its game through
        // the store, which writes it here as ended without a result).
        sqlx::query(
            "UPDATE league_games SET ended_at = $3 WHERE league_id = $1 AND ended_at IS NULL \
             AND game_id IS NULL AND seats && $2",
        )
        .bind(league.id)
        .bind(&left)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let to_cancel: Vec<i64> = sqlx::query_scalar(
            "SELECT game_id FROM league_games WHERE league_id = $1 AND ended_at IS NULL \
             AND game_id IS NOT NULL AND seats && $2 ORDER BY number",
        )
        .bind(league.id)
        .bind(&left)
        .fetch_all(&mut *tx)
        .await?;
        let ended: Vec<bool> = sqlx::query_scalar(
            "SELECT bool_and(ended_at IS NOT NULL) FROM league_games WHERE league_id = $1 \
             GROUP BY round ORDER BY round",
        )
        .bind(league.id)
        .fetch_all(&mut *tx)
        .await?;
        let open = league.mode.open_rounds(&ended);
        let due = sqlx::query(
            "SELECT number, seats FROM league_games WHERE league_id = $1 AND round < $2 \
             AND game_id IS NULL AND ended_at IS NULL ORDER BY number LIMIT $3",
        )
        .bind(league.id)
        .bind(open as i32)
        .bind(START_BATCH as i64)
        .fetch_all(&mut *tx)
        .await?;
        for row in &due {
            let number: i32 = row.try_get("number")?;
            let seats: Vec<i64> = row.try_get("seats")?;
            let game_id = self.start_league_game(&mut tx, &league, &seats).await?;
            sqlx::query(
                "UPDATE league_games SET game_id = $3 WHERE league_id = $1 AND number = $2",
            )
            .bind(league.id)
            .bind(number)
            .bind(game_id)
            .execute(&mut *tx)
            .await?;
            pass.games_started += 1;
        }
        let finished = ended.iter().all(|&e| e);
        let more = due.len() == START_BATCH;
        sqlx::query(
            "UPDATE leagues SET pass_due = $2, \
             status = CASE WHEN $3 THEN 'finished' ELSE status END, \
             ended_at = CASE WHEN $3 THEN $4 ELSE ended_at END WHERE id = $1",
        )
        .bind(league.id)
        .bind(more)
        .bind(finished)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        if finished {
            self.tell_finished(&mut tx, &league).await?;
        }
        tx.commit().await?;
        if finished {
            tracing::info!(league = league.id, "league finished");
            pass.finished += 1;
        }
        let reason = CancelReason::parse("a player left the club: the league forfeits their games")
            .map_err(|e| StoreError::Invalid(e.to_string()))?;
        for game in to_cancel {
            match self.cancel(game, &reason).await {
                Ok(_) => pass.games_cancelled += 1,
                // It ended a moment ago by a move: its result stands.
                Err(crate::store::SubmitError::Refused(_)) => {}
                Err(e) => {
                    tracing::error!(game, error = %e, "a leaver's league game was not cancelled")
                }
            }
        }
        Ok(true)
    }

    /// Starts one league game: the entrants' accounts in their seats, the league's game,
    /// options and clock, through the club game start every club table uses.
    async fn start_league_game(
        &self,
        tx: &mut PgConnection,
        league: &League,
        seats: &[i64],
    ) -> Result<i64, StoreError> {
        let mut players = Vec::with_capacity(seats.len());
        for account in seats {
            let (name, email): (String, String) =
                sqlx::query_as("SELECT name, email FROM accounts WHERE id = $1")
                    .bind(account)
                    .fetch_one(&mut *tx)
                    .await?;
            players.push(account_seat(&name, &email)?);
        }
        let created = self
            .start_members_game(
                tx,
                &league.kind,
                &league.options,
                &league.settings,
                Some(league.club_id),
                &players,
                Vec::new(),
            )
            .await?;
        sqlx::query("UPDATE games SET league_id = $2 WHERE id = $1")
            .bind(created.id)
            .bind(league.id)
            .execute(&mut *tx)
            .await?;
        Ok(created.id)
    }
}

/// Whether a league of `meetings` and `mode` reads "each pair twice, seats swapped" etc.: the
/// words the pages use.
pub fn plan_words(meetings: Meetings, mode: Mode) -> String {
    let meet = match meetings {
        Meetings::Once => "each pair meets once",
        Meetings::Twice => "each pair meets twice, seats swapped",
    };
    let rounds = match mode {
        Mode::Sequential => "round after round (a round starts when the one before has ended)",
        Mode::AllAtOnce => "every game at once",
    };
    format!("{meet}; {rounds}")
}
