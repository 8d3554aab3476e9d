//! The private cluster recovers: the real `postplay serve`, on a private PostgreSQL of its own,
//! has that cluster's postmaster killed with SIGKILL while moves keep coming; `serve` starts it
//! again by itself, moves are accepted again within 30 s, and every acknowledged move is in
//! the game's log.

use crate::common;

use awc::Client;
use postplay::store::Store;
use sqlx::postgres::PgConnectOptions;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a move may take to be accepted again after the postmaster is killed.
const BACK_WITHIN: Duration = Duration::from_secs(30);

/// A scratch directory of this test's own (never the shared test cluster's), removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `postplay serve`, stopped with SIGTERM (which stops its cluster) when dropped,
/// also when the test fails.
struct Serve(Child);

impl Serve {
    fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            self.stop();
        }
    }
}

fn serve_private(data: &Path, port: u16, log: &Path) -> Serve {
    Serve(
        Command::new(env!("CARGO_BIN_EXE_postplay"))
            .arg("serve")
            .env("POSTPLAY_METRICS_BIND", "off")
            .env_remove("DATABASE_URL")
            .env("POSTPLAY_DATA_DIR", data)
            .env("POSTPLAY_BIND", format!("127.0.0.1:{port}"))
            .env("POSTPLAY_MAIL", "off")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .expect("postplay serve starts"),
    )
}

/// One move of the seat to play, sent over the API: `Ok((its seq, seat, command))` when it is
/// acknowledged (201), else what happened instead (with serve's `/healthz` answer when the
/// game could not be loaded).
async fn try_move(
    client: &Client,
    base: &str,
    store: &Store,
    id: i64,
    tokens: &[String],
) -> Result<(i64, usize, serde_json::Value), String> {
    let loaded = match store.load(id).await {
        Ok(loaded) => loaded,
        Err(e) => {
            // What serve answers meanwhile.
            let health = match client.get(format!("{base}/healthz")).send().await {
                Ok(res) => format!("status {}", res.status().as_u16()),
                Err(e) => format!("no answer: {e}"),
            };
            return Err(format!("loading the game: {e}; /healthz: {health}"));
        }
    };
    let seat = *loaded.game.active().first().ok_or("the game is over")?;
    let command = postplay::engine::bot::fill_at_random(
        &loaded.game.choices(seat)[0],
        &mut postplay::engine::GameRng::new(
            &postplay::engine::Seed::from_number(5),
            loaded.row.head_seq as u64,
        ),
    );
    let body =
        serde_json::json!({"command": command, "expected_seq": loaded.row.head_seq}).to_string();
    let mut res = client
        .post(format!("{base}/api/games/{id}/commands"))
        .bearer_auth(&tokens[seat])
        .insert_header(("Content-Type", "application/json"))
        .send_body(body)
        .await
        .map_err(|e| format!("sending the move: {e}"))?;
    let status = res.status().as_u16();
    let answer = res.body().await.map_err(|e| e.to_string())?;
    if status != 201 {
        return Err(format!(
            "status {status}: {}",
            String::from_utf8_lossy(&answer)
        ));
    }
    // The answer is the head after the move and any moves forced after it: the move itself is
    // the one after the head it was sent at.
    let head: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    let seq = loaded.row.head_seq + 1;
    assert!(head["seq"].as_i64().unwrap() >= seq, "{head}");
    Ok((seq, seat, command))
}

/// Kills the postmaster `pid` with SIGKILL, as a crash would, and waits until it is gone;
/// gives the moment of the kill.
fn kill_postmaster(pid: u32) -> Instant {
    let killed_at = Instant::now();
    let killed = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success(), "kill -KILL {pid}");
    let deadline = killed_at + Duration::from_secs(10);
    let gone = || {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'))
        })
    };
    while !gone() {
        assert!(
            Instant::now() < deadline,
            "the postmaster {pid} still runs 10 s after SIGKILL"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    killed_at
}

fn postmaster_pid(data: &Path) -> u32 {
    std::fs::read_to_string(data.join("postmaster.pid"))
        .expect("the private cluster runs")
        .lines()
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[actix_web::test]
async fn a_killed_postmaster_is_started_again_and_no_acknowledged_move_is_lost() {
    let scratch =
        Scratch(std::env::temp_dir().join(format!("postplay-revive-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&scratch.0);
    std::fs::create_dir_all(&scratch.0).unwrap();
    let data = scratch.0.join("pg");
    let log = scratch.0.join("serve.log");
    let port = crate::common::ports::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let client = Client::builder().timeout(Duration::from_secs(20)).finish();
    let mut server = serve_private(&data, port, &log);
    // A first start runs initdb: longer than the usual patience on a loaded machine.
    common::wait::until(
        "serve to answer /healthz on its new private cluster",
        Duration::from_secs(120),
        async || match client.get(format!("{base}/healthz")).send().await {
            Ok(res) if res.status().is_success() => Ok(()),
            Ok(res) => Err(format!("status {}", res.status())),
            Err(e) => Err(e.to_string()),
        },
    )
    .await;

    let options = PgConnectOptions::new()
        .socket(data.canonicalize().unwrap())
        .port(5432)
        .username("postgres")
        .database("postplay");
    let pool = Store::connect(options).await.unwrap().pool().clone();
    let store = postplay::startup::store_on(pool, std::sync::Arc::new(postplay::time::SystemClock));
    let seats: Vec<postplay::store::NewSeat> = ["Ann", "Bo", "Cy", "Di"]
        .iter()
        .map(|n| postplay::store::NewSeat {
            name: postplay::store::PlayerName::parse(n).unwrap(),
            email: None,
            bot: None,
        })
        .collect();
    let created = store
        .create_game(
            "whitehouse",
            &serde_json::json!({}),
            &seats,
            postplay::engine::Seed::from_number(45),
        )
        .await
        .unwrap();
    let (id, tokens) = (created.id, created.seat_tokens);

    let mut acknowledged = Vec::new();
    for _ in 0..5 {
        acknowledged.push(try_move(&client, &base, &store, id, &tokens).await.unwrap());
    }
    // The kill lands while moves are in flight: bounded, as the kill thread ends within 10 s.
    let pid = postmaster_pid(&data);
    let killer = std::thread::spawn(move || kill_postmaster(pid));
    let mut refused = Vec::new();
    while !killer.is_finished() && acknowledged.len() < 200 {
        match try_move(&client, &base, &store, id, &tokens).await {
            Ok(done) => acknowledged.push(done),
            Err(e) => refused.push(e),
        }
    }
    let killed_at = killer.join().unwrap();
    // Moves sent once the postmaster is gone: one is accepted within 30 s of the kill.
    let back = common::wait::until(
        "a move to be accepted again after the postmaster was killed",
        BACK_WITHIN.saturating_sub(killed_at.elapsed()),
        async || {
            let tried = try_move(&client, &base, &store, id, &tokens).await;
            if let Err(e) = &tried {
                refused.push(e.clone());
            }
            tried
        },
    )
    .await;
    acknowledged.push(back);
    let took = killed_at.elapsed();
    for _ in 0..3 {
        acknowledged.push(try_move(&client, &base, &store, id, &tokens).await.unwrap());
    }
    assert_ne!(postmaster_pid(&data), pid, "a new postmaster runs");
    let statuses: Vec<&str> = refused
        .iter()
        .flat_map(|e| e.split("status ").skip(1))
        .filter_map(|rest| rest.get(..3))
        .collect();
    // Never an error of its own: 503 while the database is down (how soon the answer comes is
    // `security::pages_needing_the_database_answer_503_within_two_seconds_while_it_is_down`),
    // and /healthz may already answer 200 while the test's own pool still waits to reconnect.
    assert!(
        statuses.iter().all(|s| ["503", "200"].contains(s)),
        "serve answers 503 while the database is down: {refused:#?}"
    );

    let stored = store.commands(id, 0).await.unwrap();
    for (seq, seat, command) in &acknowledged {
        let row = stored
            .iter()
            .find(|r| r.seq == *seq)
            .unwrap_or_else(|| panic!("acknowledged move {seq} is in the log"));
        assert_eq!((row.seat, &row.command), (*seat, command), "move {seq}");
    }
    let seqs: Vec<i64> = acknowledged.iter().map(|(seq, _, _)| *seq).collect();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "acknowledged in order: {seqs:?}"
    );

    store.pool().close().await;
    server.stop();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("server process is gone: starting it again"),
        "serve says why it restarted the cluster: {text}"
    );
    assert!(
        text.contains("the private PostgreSQL is back"),
        "serve says when it is back: {text}"
    );
    assert!(
        !data.join("postmaster.pid").exists(),
        "serve stopped the cluster it started again when it stopped: {text}"
    );
    eprintln!(
        "moves acknowledged: {}, refused while down: {} (serve answered: {:?}), back {took:?} after the kill",
        acknowledged.len(),
        refused.len(),
        statuses
    );
    for line in text.lines().filter(|l| l.contains("private PostgreSQL")) {
        eprintln!("{line}");
    }
}
