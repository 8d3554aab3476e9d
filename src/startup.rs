//! Start-up shared by the verbs that run the service (`serve`, `worker`, `migrate`, `export`,
//! `import`) and by tests: the configured database, and the store assembled with what happens
//! in its transactions (the clock's deadlines, then mail, which reads them).

use crate::clock::{ClockEffects, LeagueEffects};
use crate::config::Config;
use crate::notices::effects::NoticeEffects;
use crate::pg::PrivateCluster;
use crate::pg::primary::Primary;
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
        .with_effect(Arc::new(NoticeEffects))
        .with_effect(Arc::new(RatingEffects))
        .with_effect(Arc::new(LeagueEffects))
}

/// The store of the configured database: DATABASE_URL, or the private cluster (started here
/// if it is not running).
pub async fn connect(config: &Config) -> Result<(Store, Option<PrivateCluster>), String> {
    match &config.database_url {
        Some(url) if crate::pg::primary::split_hosts(url)?.len() > 1 => {
            Ok((connect_hosts(url, config.database_failover).await?, None))
        }
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

/// The store on whichever of several hosts (a `DATABASE_URL` listing them) is the primary,
/// found within `search_for`; the pool follows the primary when it moves, for as long as the
/// pool is open ([`crate::pg::primary::Primary::watch`], spawned here).
pub async fn connect_hosts(url: &str, search_for: std::time::Duration) -> Result<Store, String> {
    let primary = Primary::new(url, search_for)?;
    let options = primary
        .pool_options()
        .max_connections(32)
        .acquire_timeout(crate::store::ACQUIRE_TIMEOUT);
    let (pool, watching) = primary.connect(options).await?;
    tokio::spawn(primary.clone().watch(pool.clone(), Some(watching)));
    Ok(store_on(pool, Arc::new(SystemClock)).with_epoch(primary.epoch()))
}
