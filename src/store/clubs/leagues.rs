//! A club's leagues (issue 33, item 6): an admin opens one, members sign up and withdraw until
//! sign-up closes, and everyone who may see the club reads its entrants, its games and its
//! table. What happens after sign-up closes is [`crate::store::clubs::league_life`]; who plays whom and how
//! the table reads is the pure [`crate::leagues`]. docs/LEAGUES.md, "Running a league".

use crate::domain::{ClockSettings, ClubRole, LeagueName, OnTimeout};
use crate::games::find_game;
use crate::leagues::{
    self, Finish, Format, LeagueGame, MAX_ENTRANTS, Meetings, Mode, Plan, Standings,
};
use crate::store::clubs::club::{ClubError, lock_club, read_club, role_in};
use crate::store::{Account, Store};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};

/// How many leagues a club may have in sign-up or running at once.
pub const MAX_ACTIVE_LEAGUES: i64 = 4;

/// How far ahead an admin may set a league's sign-up closing.
pub const MAX_SIGNUP_DAYS: i64 = 90;

/// How many of a club's ended (finished or cancelled) leagues its page lists.
pub const ENDED_LEAGUES_SHOWN: i64 = 20;

/// What an admin asks for when opening a league.
#[derive(Debug, Clone)]
pub struct NewLeague {
    /// Its name.
    pub name: LeagueName,
    /// The game's id (`"nationhood"`).
    pub kind: String,
    /// The game's options, as a new game takes them.
    pub options: Value,
    /// Players at each table.
    pub seat_count: usize,
    /// The time control of every game.
    pub clock: ClockSettings,
    /// Each pair once, or twice with seats swapped (two-player games only).
    pub meetings: Meetings,
    /// Rounds one after another, or all at once.
    pub mode: Mode,
    /// Losses on time in the club's last finished league that refuse a member entry.
    pub timeout_limit: Option<i32>,
    /// When sign-up closes and the league starts.
    pub signup_closes_at: DateTime<Utc>,
}

/// A league as its pages show it.
#[derive(Debug, Clone)]
pub struct League {
    /// Id.
    pub id: i64,
    /// The club it belongs to.
    pub club_id: i64,
    /// Its name.
    pub name: String,
    /// The game's id.
    pub kind: String,
    /// The game's options.
    pub options: Value,
    /// The settings each game is created with (`{"clock": …}`).
    pub settings: Value,
    /// Players at each table.
    pub seat_count: usize,
    /// Once or twice.
    pub meetings: Meetings,
    /// Sequential or all at once.
    pub mode: Mode,
    /// The losses on time that refuse entry; none: nobody is refused.
    pub timeout_limit: Option<i32>,
    /// When sign-up closes.
    pub signup_closes_at: DateTime<Utc>,
    /// `signup`, `running`, `finished` or `cancelled`.
    pub status: String,
    /// When its games began.
    pub started_at: Option<DateTime<Utc>>,
    /// When it finished or was cancelled.
    pub ended_at: Option<DateTime<Utc>>,
}

impl League {
    /// How its game seats players.
    pub fn format(&self) -> Result<Format, leagues::LeagueError> {
        let game = find_game(&self.kind)
            .ok_or_else(|| leagues::LeagueError::Format(format!("no game {:?}", self.kind)))?;
        Format::of_game(game, self.seat_count, &self.options)
    }

    /// The plan its schedule is laid out from.
    pub fn plan(&self) -> Result<Plan, leagues::LeagueError> {
        Ok(Plan {
            format: self.format()?,
            meetings: self.meetings,
        })
    }

    /// The time control of its games.
    pub fn clock(&self) -> ClockSettings {
        ClockSettings::of_game(&self.settings)
    }
}

/// Someone who entered a league.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    /// Their account.
    pub account_id: i64,
    /// Their name.
    pub name: String,
    /// Sign-up order, from 0 (gaps where someone withdrew).
    pub position: i32,
    /// They left the club mid-league: their remaining games are forfeited.
    pub left: bool,
}

/// One game of a league's schedule.
#[derive(Debug, Clone)]
pub struct ScheduledGame {
    /// Its round, from 0.
    pub round: i32,
    /// Its number in the schedule, from 0.
    pub number: i32,
    /// The entrants' accounts by seat.
    pub seats: Vec<i64>,
    /// The game, once started.
    pub game_id: Option<i64>,
    /// Over (played, timed out, cancelled, or forfeited by a leaver before it started).
    pub ended: bool,
    /// Its result as the table reads it, if it has one.
    pub finish: Option<Finish>,
}

/// A league with everything its page shows.
#[derive(Debug, Clone)]
pub struct LeagueView {
    /// The league.
    pub league: League,
    /// Its entrants in sign-up order.
    pub entrants: Vec<Entrant>,
    /// Its schedule (empty until sign-up closes), in order.
    pub games: Vec<ScheduledGame>,
    /// The table, once the schedule is laid out.
    pub standings: Option<Standings<i64>>,
}

impl LeagueView {
    /// An entrant's name.
    pub fn name_of(&self, account: i64) -> &str {
        self.entrants
            .iter()
            .find(|e| e.account_id == account)
            .map_or("?", |e| e.name.as_str())
    }
}

/// A league in the club's list.
#[derive(Debug, Clone)]
pub struct LeagueLine {
    /// Id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// The game's id.
    pub kind: String,
    /// Its status.
    pub status: String,
    /// Entrants so far.
    pub entrants: i64,
    /// When sign-up closes.
    pub signup_closes_at: DateTime<Utc>,
    /// The reader is an entrant.
    pub entered: bool,
}

macro_rules! league_columns {
    () => {
        "id, club_id, name, kind, options, settings, seat_count, meetings, mode, timeout_limit, \
         signup_closes_at, status, started_at, ended_at"
    };
}
pub(in crate::store) use league_columns;

pub(in crate::store) fn league_row(row: &PgRow) -> Result<League, sqlx::Error> {
    let meetings: String = row.try_get("meetings")?;
    let mode: String = row.try_get("mode")?;
    let seats: i32 = row.try_get("seat_count")?;
    Ok(League {
        id: row.try_get("id")?,
        club_id: row.try_get("club_id")?,
        name: row.try_get("name")?,
        kind: row.try_get("kind")?,
        options: row.try_get("options")?,
        settings: row.try_get("settings")?,
        seat_count: seats as usize,
        meetings: if meetings == "twice" {
            Meetings::Twice
        } else {
            Meetings::Once
        },
        mode: if mode == "all_at_once" {
            Mode::AllAtOnce
        } else {
            Mode::Sequential
        },
        timeout_limit: row.try_get("timeout_limit")?,
        signup_closes_at: row.try_get("signup_closes_at")?,
        status: row.try_get("status")?,
        started_at: row.try_get("started_at")?,
        ended_at: row.try_get("ended_at")?,
    })
}

/// The words a form and the database use for meetings and modes.
pub fn meetings_word(m: Meetings) -> &'static str {
    match m {
        Meetings::Once => "once",
        Meetings::Twice => "twice",
    }
}

/// See [`meetings_word`].
pub fn mode_word(m: Mode) -> &'static str {
    match m {
        Mode::Sequential => "sequential",
        Mode::AllAtOnce => "all_at_once",
    }
}

/// The league of a club, locked for a change (its sign-ups are counted one at a time).
pub(in crate::store) async fn lock_league(
    tx: &mut PgConnection,
    club_id: i64,
    league_id: i64,
) -> Result<League, ClubError> {
    let row = sqlx::query(concat!(
        "SELECT ",
        league_columns!(),
        " FROM leagues WHERE id = $1 AND club_id = $2 FOR UPDATE"
    ))
    .bind(league_id)
    .bind(club_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(ClubError::NotFound)?;
    Ok(league_row(&row)?)
}

/// Reads a league with its entrants, schedule and table.
pub(in crate::store) async fn read_view(
    conn: &mut PgConnection,
    league: League,
) -> Result<LeagueView, sqlx::Error> {
    let entrants = sqlx::query(
        "SELECT e.account_id, a.name, e.position, e.left_at IS NOT NULL AS left \
         FROM league_entrants e JOIN accounts a ON a.id = e.account_id \
         WHERE e.league_id = $1 ORDER BY e.position",
    )
    .bind(league.id)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(|r| {
        Ok(Entrant {
            account_id: r.try_get("account_id")?,
            name: r.try_get("name")?,
            position: r.try_get("position")?,
            left: r.try_get("left")?,
        })
    })
    .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let games = sqlx::query(
        "SELECT round, number, seats, game_id, ended_at IS NOT NULL AS ended, places, timed_out \
         FROM league_games WHERE league_id = $1 ORDER BY number",
    )
    .bind(league.id)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(|r| {
        let places: Option<Vec<i32>> = r.try_get("places")?;
        let timed_out: Option<i32> = r.try_get("timed_out")?;
        let finish = match (places, timed_out) {
            (Some(p), _) => Some(Finish::Places(p.iter().map(|&x| x.max(0) as u32).collect())),
            (None, Some(s)) => Some(Finish::TimedOut(s as usize)),
            (None, None) => None,
        };
        Ok(ScheduledGame {
            round: r.try_get("round")?,
            number: r.try_get("number")?,
            seats: r.try_get("seats")?,
            game_id: r.try_get("game_id")?,
            ended: r.try_get("ended")?,
            finish,
        })
    })
    .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let standings = if games.is_empty() {
        None
    } else {
        table(&league, &entrants, &games)
            .map_err(|e| {
                tracing::error!(league = league.id, error = %e, "a league's table does not add up")
            })
            .ok()
    };
    Ok(LeagueView {
        league,
        entrants,
        games,
        standings,
    })
}

/// The table, by the pure [`leagues::standings`]: a game that ended without a result and has
/// no leaver at it (cancelled) counts for nobody, so it is left out rather than pending.
fn table(
    league: &League,
    entrants: &[Entrant],
    games: &[ScheduledGame],
) -> Result<Standings<i64>, leagues::LeagueError> {
    let ids: Vec<i64> = entrants.iter().map(|e| e.account_id).collect();
    let left: Vec<i64> = entrants
        .iter()
        .filter(|e| e.left)
        .map(|e| e.account_id)
        .collect();
    let counted: Vec<LeagueGame<i64>> = games
        .iter()
        .filter(|g| !(g.ended && g.finish.is_none() && !g.seats.iter().any(|s| left.contains(s))))
        .map(|g| LeagueGame {
            seats: g.seats.clone(),
            finish: g.finish.clone(),
        })
        .collect();
    leagues::standings(&ids, &left, league.format()?, &counted)
}

/// Refuses a league that is not taking sign-ups now.
fn signup_open(league: &League, now: DateTime<Utc>) -> Result<(), ClubError> {
    if league.status != "signup" || league.signup_closes_at <= now {
        return Err(ClubError::Invalid(
            "sign-up for this league has closed".into(),
        ));
    }
    Ok(())
}

impl Store {
    /// Opens a league (an admin of an open club): validated as a club table's game is (the
    /// game, its players and options, the clock), the sign-up closing in the future and at
    /// most [`MAX_SIGNUP_DAYS`] ahead, meeting twice only in a two-player game, a timeout limit
    /// only with a clock whose timeout forfeits; at most [`MAX_ACTIVE_LEAGUES`] leagues of the
    /// club in sign-up or running, counted with the club's row locked.
    pub async fn open_league(
        &self,
        club_id: i64,
        by: &Account,
        new: &NewLeague,
    ) -> Result<i64, ClubError> {
        let now = self.now();
        let invalid = |m: String| Err(ClubError::Invalid(m));
        let game = find_game(&new.kind).ok_or(ClubError::Invalid("no such game".into()))?;
        let format = match Format::of_game(game, new.seat_count, &new.options) {
            Ok(f) => f,
            Err(e) => return invalid(e.to_string()),
        };
        let options = game
            .new_match(&new.options, new.seat_count, crate::engine::Seed::random())
            .map_err(|e| ClubError::Invalid(e.to_string()))?
            .options();
        if new.meetings == Meetings::Twice && !matches!(format, Format::Duel { .. }) {
            return invalid("meeting twice with seats swapped is for two-player games only".into());
        }
        let clock = new
            .clock
            .clone()
            .checked()
            .map_err(|e| ClubError::Invalid(format!("clock: {e}")))?;
        if let Some(limit) = new.timeout_limit {
            if !(1..=100).contains(&limit) {
                return invalid("the timeout limit is 1 to 100 losses on time".into());
            }
            if !clock.times_out() || clock.on_timeout != OnTimeout::Forfeit {
                return invalid(
                    "a timeout limit needs a clock with a time limit whose timeout forfeits the \
                     game: with no limit, or with the clock moving for a late player, nobody \
                     loses on time"
                        .into(),
                );
            }
        }
        if new.signup_closes_at <= now {
            return invalid("sign-up must close in the future".into());
        }
        if new.signup_closes_at > now + Duration::days(MAX_SIGNUP_DAYS) {
            return invalid(format!(
                "sign-up closes at most {MAX_SIGNUP_DAYS} days from now"
            ));
        }
        let mut tx = self.pool.begin().await?;
        let (club, role) = lock_club(&mut tx, club_id, by.id).await?;
        if role != Some(ClubRole::Admin) {
            return Err(ClubError::NotAllowed(
                "only the club's admins may open a league".into(),
            ));
        }
        if club.closed_at.is_some() {
            return Err(ClubError::Closed);
        }
        let active: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM leagues WHERE club_id = $1 AND status IN ('signup', 'running')",
        )
        .bind(club_id)
        .fetch_one(&mut *tx)
        .await?;
        if active >= MAX_ACTIVE_LEAGUES {
            return invalid(format!(
                "the club has {active} leagues in sign-up or running, the most it may have at \
                 once: wait for one to finish"
            ));
        }
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO leagues (club_id, name, kind, options, settings, seat_count, meetings, \
             mode, timeout_limit, signup_closes_at, created_by, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
        )
        .bind(club_id)
        .bind(new.name.as_str())
        .bind(game.id())
        .bind(&options)
        .bind(json!({ "clock": clock }))
        .bind(new.seat_count as i32)
        .bind(meetings_word(new.meetings))
        .bind(mode_word(new.mode))
        .bind(new.timeout_limit)
        .bind(new.signup_closes_at)
        .bind(by.id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(
            league = id,
            club = club_id,
            kind = game.id(),
            "league opened"
        );
        Ok(id)
    }

    /// A member signs up for a league still taking sign-ups: refused to a non-member, in a
    /// closed club, twice, beyond [`MAX_ENTRANTS`], and to a member who lost on time the
    /// league's timeout limit or more times in the club's last finished league
    /// ([`Store::refused_for_timeouts`]). Sign-ups are counted with the league's row locked.
    pub async fn sign_up_for_league(
        &self,
        club_id: i64,
        league_id: i64,
        account: &Account,
    ) -> Result<(), ClubError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let (club, role) = lock_club(&mut tx, club_id, account.id).await?;
        if role.is_none() {
            return Err(ClubError::NotAllowed(
                "only the club's members enter its leagues".into(),
            ));
        }
        if club.closed_at.is_some() {
            return Err(ClubError::Closed);
        }
        let league = lock_league(&mut tx, club_id, league_id).await?;
        signup_open(&league, now)?;
        let row: Option<(i32, i64)> = sqlx::query_as(
            "SELECT coalesce(max(position) + 1, 0), count(*) FILTER (WHERE account_id = $2) \
             FROM league_entrants WHERE league_id = $1",
        )
        .bind(league_id)
        .bind(account.id)
        .fetch_optional(&mut *tx)
        .await?;
        let (next, mine) = row.unwrap_or((0, 0));
        if mine > 0 {
            return Err(ClubError::Invalid("you have signed up already".into()));
        }
        let count: i64 =
            sqlx::query_scalar("SELECT count(*) FROM league_entrants WHERE league_id = $1")
                .bind(league_id)
                .fetch_one(&mut *tx)
                .await?;
        if count >= MAX_ENTRANTS as i64 {
            return Err(ClubError::Invalid(format!(
                "this league is full: {MAX_ENTRANTS} entrants at most"
            )));
        }
        if let Some(limit) = league.timeout_limit
            && let Some((name, lost)) = refused_in(&mut tx, club_id, limit, account.id).await?
        {
            return Err(ClubError::Invalid(format!(
                "you lost {lost} game{} on time in the club's last finished league ({name}): this \
                 league refuses entry from {limit}",
                if lost == 1 { "" } else { "s" }
            )));
        }
        sqlx::query(
            "INSERT INTO league_entrants (league_id, account_id, position, signed_up_at) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(league_id)
        .bind(account.id)
        .bind(next)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A member withdraws before sign-up closes (afterwards, leaving the club is the only way
    /// out, and forfeits the remaining games).
    pub async fn withdraw_from_league(
        &self,
        club_id: i64,
        league_id: i64,
        account: &Account,
    ) -> Result<(), ClubError> {
        let now = self.now();
        let mut tx = self.pool.begin().await?;
        let (_, role) = lock_club(&mut tx, club_id, account.id).await?;
        if role.is_none() {
            return Err(ClubError::NotAllowed(
                "only the club's members enter its leagues".into(),
            ));
        }
        let league = lock_league(&mut tx, club_id, league_id).await?;
        signup_open(&league, now)?;
        let gone =
            sqlx::query("DELETE FROM league_entrants WHERE league_id = $1 AND account_id = $2")
                .bind(league_id)
                .bind(account.id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
        if gone == 0 {
            return Err(ClubError::Invalid("you have not signed up".into()));
        }
        tx.commit().await?;
        Ok(())
    }

    /// The league as `reader` may see it: `None` for no such league of the club, and for a
    /// private club's league to anyone but its members (as for the club itself).
    pub async fn league_for(
        &self,
        club_id: i64,
        league_id: i64,
        reader: Option<i64>,
    ) -> Result<Option<(LeagueView, Option<ClubRole>)>, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        let Some(club) = read_club(&mut conn, club_id).await? else {
            return Ok(None);
        };
        let role = match reader {
            Some(account) => role_in(&mut conn, club_id, account).await?,
            None => None,
        };
        if club.private && role.is_none() {
            return Ok(None);
        }
        let row = sqlx::query(concat!(
            "SELECT ",
            league_columns!(),
            " FROM leagues WHERE id = $1 AND club_id = $2"
        ))
        .bind(league_id)
        .bind(club_id)
        .fetch_optional(&mut *conn)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let view = read_view(&mut conn, league_row(&row)?).await?;
        Ok(Some((view, role)))
    }

    /// The club's leagues in sign-up or running, then its last [`ENDED_LEAGUES_SHOWN`] ended
    /// ones, newest first; `entered` says whether `reader` is an entrant. The caller has
    /// checked that the reader may see the club.
    pub async fn club_leagues(
        &self,
        club_id: i64,
        reader: Option<i64>,
    ) -> Result<Vec<LeagueLine>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT l.id, l.name, l.kind, l.status, l.signup_closes_at, \
             (SELECT count(*) FROM league_entrants e WHERE e.league_id = l.id) AS entrants, \
             EXISTS (SELECT 1 FROM league_entrants e WHERE e.league_id = l.id \
                     AND e.account_id = $2) AS entered \
             FROM leagues l WHERE l.club_id = $1 AND l.id IN ( \
               (SELECT id FROM leagues WHERE club_id = $1 AND status IN ('signup', 'running')) \
               UNION ALL (SELECT id FROM leagues WHERE club_id = $1 \
                 AND status IN ('finished', 'cancelled') ORDER BY id DESC LIMIT $3)) \
             ORDER BY l.status IN ('finished', 'cancelled'), l.id DESC",
        )
        .bind(club_id)
        .bind(reader.unwrap_or(0))
        .bind(ENDED_LEAGUES_SHOWN)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(LeagueLine {
                    id: r.try_get("id")?,
                    name: r.try_get("name")?,
                    kind: r.try_get("kind")?,
                    status: r.try_get("status")?,
                    entrants: r.try_get("entrants")?,
                    signup_closes_at: r.try_get("signup_closes_at")?,
                    entered: r.try_get("entered")?,
                })
            })
            .collect()
    }

    /// Whether the club refuses `account` entry to a league with timeout limit `limit`: the
    /// name of the club's last finished league and the account's losses on time in it, if
    /// they reach the limit.
    pub async fn refused_for_timeouts(
        &self,
        club_id: i64,
        limit: i32,
        account_id: i64,
    ) -> Result<Option<(String, u32)>, sqlx::Error> {
        let mut conn = self.pool.acquire().await?;
        refused_in(&mut conn, club_id, limit, account_id).await
    }
}

/// The club's last finished league (the one whose games ended last; a cancelled league had no
/// games and does not count) and, if `account` lost on time `limit` or more times in it by its
/// table ([`Standings::lost_on_time_at_least`]), that league's name and the count.
async fn refused_in(
    conn: &mut PgConnection,
    club_id: i64,
    limit: i32,
    account_id: i64,
) -> Result<Option<(String, u32)>, sqlx::Error> {
    let row = sqlx::query(concat!(
        "SELECT ",
        league_columns!(),
        " FROM leagues WHERE club_id = $1 AND status = 'finished' \
         ORDER BY ended_at DESC, id DESC LIMIT 1"
    ))
    .bind(club_id)
    .fetch_optional(&mut *conn)
    .await?;
    let Some(row) = row else { return Ok(None) };
    let view = read_view(conn, league_row(&row)?).await?;
    let Some(standings) = &view.standings else {
        return Ok(None);
    };
    if !standings
        .lost_on_time_at_least(limit.max(1) as u32)
        .contains(&&account_id)
    {
        return Ok(None);
    }
    let lost = standings
        .rows
        .iter()
        .find(|r| r.entrant == account_id)
        .map_or(0, |r| r.lost_on_time);
    Ok(Some((view.league.name, lost)))
}
