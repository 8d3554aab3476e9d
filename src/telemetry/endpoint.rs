//! `GET /metrics` on its own address (`POSTPLAY_METRICS_BIND`), in a thread of its own: the
//! public app never routes it, so a reverse proxy in front of the public address cannot
//! expose it.

use actix_web::{App, HttpResponse, HttpServer, web};
use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;
use std::net::TcpListener;
use std::time::Duration;

/// The default address: loopback only.
pub const DEFAULT_BIND: &str = "127.0.0.1:9187";

/// How long a scrape waits for PostgreSQL's outbox figures.
const QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// Binds the metrics address `spec` (`off`: none). A clash is an error that names the
/// variable, the address and what to do.
pub fn bind(spec: &str) -> Result<Option<TcpListener>, String> {
    let spec = spec.trim();
    if spec.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    TcpListener::bind(spec).map(Some).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            format!(
                "POSTPLAY_METRICS_BIND {spec}: the address is already in use (another postplay \
                 process, or the public POSTPLAY_BIND?): give each process its own metrics \
                 address, or set POSTPLAY_METRICS_BIND=off"
            )
        } else {
            format!("POSTPLAY_METRICS_BIND {spec}: {e}")
        }
    })
}

/// What a scrape reads.
struct Scrape {
    handle: PrometheusHandle,
    pool: PgPool,
}

/// Serves `/metrics` on `listener` in a thread of its own (its own single-worker server,
/// which stops with the process).
pub fn spawn(listener: TcpListener, handle: PrometheusHandle, pool: PgPool) -> Result<(), String> {
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let scrape = web::Data::new(Scrape { handle, pool });
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            let system = actix_web::rt::System::new();
            let served = system.block_on(async move {
                HttpServer::new(move || {
                    App::new()
                        .app_data(scrape.clone())
                        .route("/metrics", web::get().to(render))
                })
                .workers(1)
                .disable_signals()
                .listen(listener)?
                .run()
                .await
            });
            if let Err(e) = served {
                tracing::error!(error = %e, "the metrics endpoint stopped");
            }
        })
        .map_err(|e| e.to_string())?;
    tracing::info!(%addr, "metrics at /metrics");
    Ok(())
}

/// The gauges read now, then everything in Prometheus text format.
async fn render(scrape: web::Data<Scrape>) -> HttpResponse {
    let pool = &scrape.pool;
    let idle = pool.num_idle() as f64;
    metrics::gauge!(super::POOL, "state" => "idle").set(idle);
    metrics::gauge!(super::POOL, "state" => "in_use").set(f64::from(pool.size()) - idle);
    metrics::gauge!(super::POOL_MAX).set(f64::from(pool.options().get_max_connections()));
    let outbox = sqlx::query_as::<_, (i64, f64)>(
        "SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 \
         FROM outbox WHERE status IN ('pending', 'sending')",
    )
    .fetch_one(pool);
    match tokio::time::timeout(QUERY_TIMEOUT, outbox).await {
        Ok(Ok((queued, oldest))) => {
            metrics::gauge!(super::OUTBOX_QUEUED).set(queued as f64);
            metrics::gauge!(super::OUTBOX_OLDEST).set(oldest.max(0.0));
        }
        Ok(Err(e)) => tracing::warn!(error = %e, "metrics: the outbox could not be read"),
        Err(_) => tracing::warn!("metrics: the outbox was not read in time"),
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(scrape.handle.render())
}

/// What `serve` and `worker` do: binds `spec` ([`bind`]) and, unless it is `off`, installs
/// the recorder ([`super::install`]) and serves `/metrics` there for `pool`.
pub fn serve_from(spec: &str, pool: &PgPool) -> Result<(), String> {
    match bind(spec)? {
        Some(listener) => spawn(listener, super::install()?, pool.clone()),
        None => {
            tracing::info!("metrics are off (POSTPLAY_METRICS_BIND=off)");
            Ok(())
        }
    }
}
