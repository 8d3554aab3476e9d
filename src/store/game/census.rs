//! What a database holds, counted: what `postplay backup` reports of its snapshot and
//! `postplay restore` of what it restored, and the game ids a whole-database verification walks.

use crate::store::Store;
use sqlx::PgConnection;

/// The counts of one database (or of one snapshot of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Census {
    /// Games still being played.
    pub running: i64,
    /// Games over.
    pub over: i64,
    /// Commands in every game's log.
    pub commands: i64,
    /// Mail and webhook deliveries not yet made (pending or being sent).
    pub outbox_waiting: i64,
    /// Accounts.
    pub accounts: i64,
}

impl Census {
    /// Games in all.
    pub fn games(&self) -> i64 {
        self.running + self.over
    }
}

impl std::fmt::Display for Census {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games ({} running, {} over), {} commands, {} accounts, {} deliveries waiting in the outbox",
            self.games(),
            self.running,
            self.over,
            self.commands,
            self.accounts,
            self.outbox_waiting
        )
    }
}

/// How many game ids one page of [`Store::game_ids_after`] holds.
pub const GAME_ID_PAGE: i64 = 500;

/// Counts on `conn`, in whatever transaction (a backup's snapshot) it is in.
pub async fn census(conn: &mut PgConnection) -> Result<Census, sqlx::Error> {
    let (running, over, commands, outbox_waiting, accounts): (i64, i64, i64, i64, i64) =
        sqlx::query_as(
            "SELECT (SELECT count(*) FROM games WHERE status = 'running'), \
                    (SELECT count(*) FROM games WHERE status = 'over'), \
                    (SELECT count(*) FROM commands), \
                    (SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')), \
                    (SELECT count(*) FROM accounts)",
        )
        .fetch_one(conn)
        .await?;
    Ok(Census {
        running,
        over,
        commands,
        outbox_waiting,
        accounts,
    })
}

/// The tables, views and sequences outside PostgreSQL's own schemas: what makes a database
/// not empty (a restore goes only into an empty one). At most ten names.
pub async fn relations(conn: &mut PgConnection) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT n.nspname || '.' || c.relname FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') \
           AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
           AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' \
         ORDER BY 1 LIMIT 10",
    )
    .fetch_all(conn)
    .await
}

impl Store {
    /// Counts of this database now.
    pub async fn census(&self) -> Result<Census, sqlx::Error> {
        census(&mut *self.pool.acquire().await?).await
    }

    /// Up to [`GAME_ID_PAGE`] game ids above `after`, in order: a walk over every game that
    /// holds one page at a time.
    pub async fn game_ids_after(&self, after: i64) -> Result<Vec<i64>, sqlx::Error> {
        sqlx::query_scalar("SELECT id FROM games WHERE id > $1 ORDER BY id LIMIT $2")
            .bind(after)
            .bind(GAME_ID_PAGE)
            .fetch_all(&self.pool)
            .await
    }
}
