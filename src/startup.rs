//! Start-up shared by the verbs that run the service (`serve`, `worker`, `migrate`, `export`,
//! `import`) and by tests: the configured database, and the store assembled with what happens
//! in its transactions (the clock's deadlines, then mail, which reads them).

use crate::clock::{ClockEffects, LeagueEffects};
use crate::config::Config;
use crate::mail::outbox::MailEffects;
use crate::pg::PrivateCluster;
use crate::ratings::RatingEffects;
use crate::store::Store;
use crate::time::{Clock, SystemClock};
use sqlx::postgres::PgPool;
use std::sync::Arc;

/// The service's store on `pool`: `clock` for "now", the clock's, mail's, ratings' and leagues'
/// effects
/// in every transaction.
pub fn store_on(pool: PgPool, clock: Arc<dyn Clock>) -> Store {
    Store::from_pool(pool)
        .with_clock(clock)
        .with_effect(Arc::new(ClockEffects))
        .with_effect(Arc::new(MailEffects))
        .with_effect(Arc::new(RatingEffects))
        .with_effect(Arc::new(LeagueEffects))
}

/// The store of the configured database: DATABASE_URL, or the private cluster (started here
/// if it is not running).
pub async fn connect(config: &Config) -> Result<(Store, Option<PrivateCluster>), String> {
    match &config.database_url {
        Some(url) => {
            let options: sqlx::postgres::PgConnectOptions =
                url.parse().map_err(|e| format!("DATABASE_URL: {e}"))?;
            let store = Store::connect(options)
                .await
                .map_err(|e| format!("database: {e}"))?;
            Ok((store_on(store.pool().clone(), Arc::new(SystemClock)), None))
        }
        None => {
            let cluster = PrivateCluster::ensure(&config.data_dir).map_err(|e| e.to_string())?;
            let admin = Store::connect(cluster.connect_options("postgres"))
                .await
                .map_err(|e| format!("private PostgreSQL: {e}"))?;
            let exists: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'postplay')",
            )
            .fetch_one(admin.pool())
            .await
            .map_err(|e| e.to_string())?;
            if !exists {
                sqlx::query("CREATE DATABASE postplay")
                    .execute(admin.pool())
                    .await
                    .map_err(|e| e.to_string())?;
            }
            admin.pool().close().await;
            let store = Store::connect(cluster.connect_options("postplay"))
                .await
                .map_err(|e| format!("private PostgreSQL: {e}"))?;
            Ok((
                store_on(store.pool().clone(), Arc::new(SystemClock)),
                Some(cluster),
            ))
        }
    }
}
