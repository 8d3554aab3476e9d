//! Start-up shared by the verbs that run the service (`serve`, `worker`, `migrate`, `export`,
//! `import`) and by tests: the configured database, and the store assembled with what happens
//! in its transactions (the clock's deadlines, then mail, which reads them).

use crate::clock::{ClockEffects, LeagueEffects};
use crate::config::Config;
use crate::notices::effects::NoticeEffects;
use crate::pg::PrivateCluster;
use crate::pg::primary::Primary;
use crate::ratings::RatingEffects;
use crate::review::effects::ReviewEffects;
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
/// if it is not running); its pool is bounded by `config.pools` (`POSTPLAY_DB_CONNECTIONS`,
/// `POSTPLAY_DB_WAIT_MS`).
pub async fn connect(config: &Config) -> Result<(Store, Option<PrivateCluster>), String> {
    let (store, cluster) = connect_plain(config).await?;
    Ok((with_reviews(store, config), cluster))
}

/// `store` queueing a review when a game ends ([`ReviewEffects`]), its game-over mail waiting
/// up to `POSTPLAY_REVIEW_MAIL_WAIT_SECS` for it: the service's stores (tests' stores from
/// [`store_on`] queue none unless they add the effect).
pub fn with_reviews(store: Store, config: &Config) -> Store {
    store.with_effect(Arc::new(ReviewEffects {
        mail_wait: config.review_mail_wait,
    }))
}

/// [`connect`] without the reviews' effect.
async fn connect_plain(config: &Config) -> Result<(Store, Option<PrivateCluster>), String> {
    let (size, wait) = (config.pools.connections, config.pools.wait);
    match &config.database_url {
        Some(url) if crate::pg::primary::split_hosts(url)?.len() > 1 => Ok((
            connect_hosts(url, config.database_failover, size, wait).await?,
            None,
        )),
        Some(url) => {
            let options: sqlx::postgres::PgConnectOptions =
                url.parse().map_err(|e| format!("DATABASE_URL: {e}"))?;
            let store = Store::connect_bounded(options, size, wait)
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
            let store = Store::connect_bounded(cluster.connect_options("postplay"), size, wait)
                .await
                .map_err(|e| format!("private PostgreSQL: {e}"))?;
            Ok((
                store_on(store.pool().clone(), Arc::new(SystemClock)),
                Some(cluster),
            ))
        }
    }
}

/// The clock's and the outbox worker's own store in `serve`, beside `web` (the store
/// [`connect`] gave): a pool of `POSTPLAY_BACKGROUND_CONNECTIONS` on the same database, which
/// web requests never take, so a flood of them cannot hold up deadlines or mail.
pub async fn connect_background(config: &Config, web: &Store) -> Result<Store, String> {
    let size = config.pools.background;
    let wait = crate::store::ACQUIRE_TIMEOUT;
    let store = match &config.database_url {
        Some(url) if crate::pg::primary::split_hosts(url)?.len() > 1 => {
            connect_hosts(url, config.database_failover, size, wait).await?
        }
        _ => {
            let pool = sqlx::postgres::PgPoolOptions::new()
                .max_connections(size)
                .acquire_timeout(wait)
                .connect_lazy_with(web.pool().connect_options().as_ref().clone());
            store_on(pool, Arc::new(SystemClock))
        }
    };
    Ok(with_reviews(store, config))
}

/// The store on whichever of several hosts (a `DATABASE_URL` listing them) is the primary,
/// found within `search_for`, with a pool of at most `connections` each waited for at most
/// `wait`; the pool follows the primary when it moves, for as long as the pool is open
/// ([`crate::pg::primary::Primary::watch`], spawned here).
pub async fn connect_hosts(
    url: &str,
    search_for: std::time::Duration,
    connections: u32,
    wait: std::time::Duration,
) -> Result<Store, String> {
    let primary = Primary::new(url, search_for)?;
    let options = primary
        .pool_options()
        .max_connections(connections)
        .acquire_timeout(wait);
    let (pool, watching) = primary.connect(options).await?;
    tokio::spawn(primary.clone().watch(pool.clone(), Some(watching)));
    Ok(store_on(pool, Arc::new(SystemClock)).with_epoch(primary.epoch()))
}
