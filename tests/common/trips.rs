//! Counting round trips to PostgreSQL: a proxy on a Unix socket of its own between a pool and
//! the test server, counting the messages after which a client waits for the server (`Sync`
//! of the extended protocol, `Query` of the simple one). What the client sends is parsed, not
//! guessed: a statement that sqlx pipelines with others still counts once per wait. A `Sync`
//! with nothing before it is sqlx's ping (the pool tests a connection when it is taken, if
//! asked, and when it is given back): counted apart, as pings.

use sqlx::postgres::PgConnectOptions;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

/// A running proxy: connect through [`TripProxy::options`], read [`TripProxy::count`].
pub struct TripProxy {
    dir: PathBuf,
    count: Arc<AtomicU64>,
    pings: Arc<AtomicU64>,
    upstream: PgConnectOptions,
}

impl TripProxy {
    /// A proxy to the server `upstream` points at (it must use a Unix socket).
    pub async fn start(upstream: &PgConnectOptions) -> TripProxy {
        let socket_dir = upstream
            .get_socket()
            .expect("the test server is reached by a Unix socket")
            .clone();
        let port = upstream.get_port();
        let mut random = [0u8; 6];
        getrandom::fill(&mut random).unwrap();
        let dir = std::env::temp_dir().join(format!("trips-{}", hex::encode(random)));
        std::fs::create_dir_all(&dir).unwrap();
        let listener = UnixListener::bind(dir.join(format!(".s.PGSQL.{port}"))).unwrap();
        let count = Arc::new(AtomicU64::new(0));
        let pings = Arc::new(AtomicU64::new(0));
        let target = socket_dir.join(format!(".s.PGSQL.{port}"));
        let counters = (count.clone(), pings.clone());
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let server = UnixStream::connect(&target).await.unwrap();
                tokio::spawn(relay(client, server, counters.clone()));
            }
        });
        TripProxy {
            dir,
            count,
            pings,
            upstream: upstream.clone(),
        }
    }

    /// The options of `upstream` with the proxy's socket instead.
    pub fn options(&self) -> PgConnectOptions {
        self.upstream.clone().socket(&self.dir)
    }

    /// Round trips that carried statements, so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Pings so far.
    pub fn pings(&self) -> u64 {
        self.pings.load(Ordering::SeqCst)
    }
}

impl Drop for TripProxy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn relay(
    client: UnixStream,
    server: UnixStream,
    (count, pings): (Arc<AtomicU64>, Arc<AtomicU64>),
) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let back = tokio::spawn(async move {
        let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
    });
    let mut parser = Parser::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match client_read.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let (trips, pinged) = parser.feed(&buf[..n]);
        count.fetch_add(trips, Ordering::SeqCst);
        pings.fetch_add(pinged, Ordering::SeqCst);
        if server_write.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    back.abort();
}

/// The frontend side of the protocol, message by message.
#[derive(Default)]
struct Parser {
    pending: Vec<u8>,
    started: bool,
    /// Messages since the last `Sync`.
    batch: usize,
}

impl Parser {
    /// Takes bytes from the client; returns the waits they complete: (round trips with
    /// statements, pings).
    fn feed(&mut self, bytes: &[u8]) -> (u64, u64) {
        self.pending.extend_from_slice(bytes);
        let (mut waits, mut pings) = (0, 0);
        loop {
            if !self.started {
                // Untyped: SSL/GSS requests, then the startup message (protocol 3.0).
                if self.pending.len() < 8 {
                    return (waits, pings);
                }
                let len = u32::from_be_bytes(self.pending[..4].try_into().unwrap()) as usize;
                if self.pending.len() < len {
                    return (waits, pings);
                }
                let code = u32::from_be_bytes(self.pending[4..8].try_into().unwrap());
                self.pending.drain(..len);
                if code == 196_608 {
                    self.started = true;
                }
                continue;
            }
            if self.pending.len() < 5 {
                return (waits, pings);
            }
            let kind = self.pending[0];
            let len = u32::from_be_bytes(self.pending[1..5].try_into().unwrap()) as usize;
            if self.pending.len() < 1 + len {
                return (waits, pings);
            }
            self.pending.drain(..1 + len);
            match kind {
                b'S' if self.batch == 0 => pings += 1,
                b'S' | b'Q' => {
                    waits += 1;
                    self.batch = 0;
                }
                _ => self.batch += 1,
            }
        }
    }
}
