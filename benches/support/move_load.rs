//! Moves at full speed and paced, over HTTP and as the same SQL run by pgbench: shared by the
//! HTTP load bench (one PostgreSQL) and the synchronous pair's (`ha_load`).

use awc::Client;
use postplay::engine::bot::{bot_rng, random_command};
use postplay::engine::{DynMatch, Log, Seed};
use postplay::games::find_game;
use postplay::store::{NewSeat, Store};
use serde_json::json;
use std::time::{Duration, Instant};

/// A number from the environment, or `default`.
pub fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub struct Game {
    pub id: i64,
    pub tokens: Vec<String>,
    pub live: Box<dyn DynMatch>,
}

pub async fn new_games(store: &Store, count: usize, first_seed: u64) -> Vec<Game> {
    let kind = find_game("whitehouse").unwrap();
    let mut games = Vec::new();
    for n in 0..count {
        let seed = Seed::from_number(first_seed + n as u64);
        let seats: Vec<NewSeat> = (0..4)
            .map(|i| NewSeat {
                name: postplay::store::PlayerName::parse(&format!("P{i}")).unwrap(),
                email: None,
                bot: None,
            })
            .collect();
        let created = store
            .create_game("whitehouse", &json!({}), &seats, seed)
            .await
            .unwrap();
        games.push(Game {
            id: created.id,
            tokens: created.seat_tokens,
            live: kind.new_match(&json!({}), 4, seed).unwrap(),
        });
    }
    games
}

/// Plays what the server plays by itself after a move (store::append's `Settled`, for seats
/// that chose nothing ahead): the first awaited seat's only move, when that it is forced is
/// public.
fn play_public_forced_moves(live: &mut dyn DynMatch) {
    while live.outcome().is_none() {
        let settled = live.active().into_iter().find_map(|seat| {
            live.forced(seat)
                .filter(|_| live.forced_in_public(seat))
                .map(|command| (seat, command))
        });
        let Some((seat, command)) = settled else {
            return;
        };
        live.apply_json(seat, &command, &mut Log::silent()).unwrap();
    }
}

/// Each client plays its own games move after move for `seconds`. With `pace`, each client's
/// moves are scheduled as pgbench's `-R` schedules its transactions (a Poisson process, its
/// mean gap `pace`) and a move's latency counts from its scheduled start, so a move that waits
/// for the one before it counts the wait. Returns the latencies of acknowledged moves and the
/// elapsed time.
pub async fn drive(
    base: &str,
    games: Vec<Game>,
    clients: usize,
    seconds: u64,
    pace: Option<Duration>,
) -> (Vec<Duration>, Duration) {
    let mut shares: Vec<Vec<Game>> = (0..clients).map(|_| Vec::new()).collect();
    for (i, game) in games.into_iter().enumerate() {
        shares[i % clients].push(game);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let tasks: Vec<_> = shares
        .into_iter()
        .enumerate()
        .map(|(c, mut mine)| {
            let base = base.to_string();
            actix_web::rt::spawn(async move {
                let client = Client::builder().timeout(Duration::from_secs(30)).finish();
                let mut rng = bot_rng(&Seed::from_number(c as u64));
                let mut latencies = Vec::new();
                let mut turn = 0usize;
                let mut scheduled = Instant::now();
                while Instant::now() < deadline {
                    if let Some(pace) = pace {
                        // An exponential gap: -ln(U) times the mean, U uniform in (0, 1].
                        let uniform = (f64::from(rng.next_u32()) + 1.0) / 4_294_967_296.0;
                        scheduled += pace.mul_f64(-uniform.ln());
                        actix_web::rt::time::sleep_until(scheduled.into()).await;
                    }
                    let count = mine.len();
                    let game = &mut mine[turn % count];
                    turn += 1;
                    if game.live.outcome().is_some() {
                        if mine.iter().all(|g| g.live.outcome().is_some()) {
                            break;
                        }
                        continue;
                    }
                    let seat = game.live.active()[0];
                    let command = random_command(game.live.as_ref(), seat, &mut rng).unwrap();
                    let body = json!({"command": command, "expected_seq": game.live.applied()})
                        .to_string();
                    let sent = if pace.is_some() {
                        scheduled
                    } else {
                        Instant::now()
                    };
                    let mut res = client
                        .post(format!("{base}/api/games/{}/commands", game.id))
                        .bearer_auth(&game.tokens[seat])
                        .insert_header(("Content-Type", "application/json"))
                        .send_body(body)
                        .await
                        .expect("the server answers");
                    let _ = res.body().await;
                    assert_eq!(res.status().as_u16(), 201);
                    latencies.push(sent.elapsed());
                    game.live
                        .apply_json(seat, &command, &mut Log::silent())
                        .unwrap();
                    play_public_forced_moves(game.live.as_mut());
                }
                latencies
            })
        })
        .collect();
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let elapsed = start.elapsed();
    all.sort();
    (all, elapsed)
}

/// CPU seconds used so far by PostgreSQL's processes (those that ended are counted in the
/// postmaster's children's time), by this process (the server and its HTTP clients) and by
/// this process's ended children (pgbench). Read from /proc; zero elsewhere.
#[derive(Clone, Copy, Default)]
pub struct Cpu {
    pub postgres: f64,
    pub this: f64,
    pub children: f64,
}

impl Cpu {
    pub fn now() -> Cpu {
        // utime, stime, cutime and cstime: the 14th to 17th fields, after the command's name.
        let times = |stat: &str| -> Option<(String, [f64; 4])> {
            let (head, rest) = stat.rsplit_once(") ")?;
            let name = head.split_once(" (")?.1.to_string();
            let fields: Vec<f64> = rest
                .split_whitespace()
                .skip(11)
                .take(4)
                .filter_map(|f| f.parse().ok())
                .collect();
            Some((name, fields.try_into().ok()?))
        };
        let tick = 100.0;
        let mut cpu = Cpu::default();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if let Some((name, [u, s, cu, cs])) = times(&stat)
                && name == "postgres"
            {
                cpu.postgres += (u + s + cu + cs) / tick;
            }
        }
        if let Some((_, [u, s, cu, cs])) = std::fs::read_to_string("/proc/self/stat")
            .ok()
            .as_deref()
            .and_then(times)
        {
            cpu.this = (u + s) / tick;
            cpu.children = (cu + cs) / tick;
        }
        cpu
    }

    /// Milliseconds of CPU per unit of work since `before`: PostgreSQL's, and the client side's
    /// (this process for HTTP, pgbench for pgbench).
    pub fn per(&self, before: Cpu, units: f64, http: bool) -> (f64, f64) {
        let client = if http {
            self.this - before.this
        } else {
            self.children - before.children
        };
        (
            1e3 * (self.postgres - before.postgres) / units,
            1e3 * client / units,
        )
    }
}

/// What pgbench measured: transactions a second, and the p99 latency when paced.
pub struct Pgbench {
    pub tps: f64,
    pub p99: Option<Duration>,
}

/// Runs the SQL of one move with pgbench in the 200 games from id `first`, at full speed or
/// paced to `rate` a second.
pub fn pgbench(url: &str, first: i64, clients: u64, seconds: u64, rate: Option<f64>) -> Pgbench {
    let beside = postplay::pg::find_binaries().unwrap().join("pgbench");
    let bin = if beside.exists() {
        beside
    } else {
        let mut found: Vec<_> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join("bin/pgbench"))
            .filter(|p| p.exists())
            .collect();
        found.sort();
        found.pop().unwrap_or_else(|| "pgbench".into())
    };
    let script = std::env::temp_dir().join("postplay-move.sql");
    // Each client moves in its own games, as each HTTP client does (client c takes the games
    // whose ids are `first` + c modulo the clients): two clients on one game row would wait
    // for each other's locks, which the HTTP clients never do.
    // Exactly the SQL of one move (docs/MOVE.md), on the same tables as the server's moves,
    // in 200 games of pgbench's own: the move's read (the game row, the log's tail past the
    // cached head, the seats' settled moves, the clock's and mail's reads, and the seat the
    // bearer's token opens, by the store's own SQL) and its one write statement (the head
    // update guarded by the mover's deadline and the pause, the command, the clock's rows for
    // the seat that moved and the seat now awaited, mail's links, reply addresses, seats and
    // outbox rows (empty: none of the bench's seats has an address), the NOTIFY).
    let token = "(SELECT token_hash FROM seats WHERE game_id = :g AND seat = 0)";
    let seat_by_token = postplay::store::SEAT_BY_TOKEN
        .replace("$1", token)
        .replace("$2", "true")
        .replace("$3", "now()")
        .replace("$4", &postplay::store::MAIL_LINK_DAYS.to_string())
        .replace("$5", &postplay::store::MAIL_LINK_GRACE_DAYS.to_string());
    std::fs::write(
        &script,
        format!(
            "\\set g {first} + :client_id + {clients} * random(0, (200 - {clients}) / {clients})\n\
             SELECT id, kind, rules_version, options, seat_count, seed, commitment, status, head_seq, head_hash, created_at, updated_at, club_id, \
             (SELECT coalesce(jsonb_agg(jsonb_build_array(c.seq, c.seat, c.command, c.created_at, c.hash, c.made_by) ORDER BY c.seq), '[]') FROM commands c WHERE c.game_id = :g AND c.seq > games.head_seq) AS tail, \
             (SELECT coalesce(jsonb_agg(jsonb_build_array(coalesce(s.play_forced, a.play_forced, false), coalesce((SELECT array_agg(o.order_id ORDER BY o.made_at, o.order_id) FROM standing_orders o WHERE o.game_id = s.game_id AND o.seat = s.seat), '{{}}')) ORDER BY s.seat), '[]') FROM seats s LEFT JOIN accounts a ON a.id = s.account_id WHERE s.game_id = :g) AS settled, \
             ({clock}), ({mail}), (SELECT h.seat FROM ({seat_by_token}) AS h WHERE h.game_id = :g) AS holder FROM games WHERE id = :g;\n\
             WITH head AS (UPDATE games SET head_seq = head_seq + 1, head_hash = md5(random()::text), status = 'running', updated_at = now(), result = coalesce(NULL, result) \
             WHERE id = :g AND head_seq = head_seq AND ((paused_at IS NOT NULL) = false) \
             AND (NOT EXISTS (SELECT 1 FROM seat_clocks WHERE game_id = :g AND seat = 0 AND awaited_seq IS NOT NULL AND due_at <= now() - interval '1 year')) RETURNING id, head_seq), \
             cmd AS (INSERT INTO commands (game_id, seq, seat, command, created_at, hash, made_by) SELECT :g, head.head_seq, u.seat, u.command::jsonb, now(), u.hash, u.made_by \
             FROM head, unnest('{{0}}'::int[], ARRAY['{{\"type\":\"play\",\"card\":\"CA\"}}'], ARRAY[md5(random()::text)], ARRAY[NULL]::text[]) AS u(seat, command, hash, made_by)), \
             w0 AS (INSERT INTO seat_clocks (game_id, seat, bank_secs, awaited_seq, waiting_since, allowance_secs, spent_secs, stretch_start, due_at, remind_at, reminders, lease_until) \
             SELECT :g, u.seat, u.bank, u.awaited, u.since, u.allowance, 0, u.stretch, u.due, u.remind, 0, NULL FROM head, \
             unnest('{{0,1}}'::int[], '{{86400,86400}}'::bigint[], ARRAY[NULL, 1]::bigint[], ARRAY[NULL, now()]::timestamptz[], ARRAY[NULL, 86400]::bigint[], ARRAY[NULL, now()]::timestamptz[], \
             ARRAY[NULL, now() + interval '1 day']::timestamptz[], ARRAY[NULL, now() + interval '19 hours']::timestamptz[]) AS u(seat, bank, awaited, since, allowance, stretch, due, remind) \
             ON CONFLICT (game_id, seat) DO UPDATE SET bank_secs = excluded.bank_secs, awaited_seq = excluded.awaited_seq, waiting_since = excluded.waiting_since, \
             allowance_secs = excluded.allowance_secs, spent_secs = 0, stretch_start = excluded.stretch_start, due_at = excluded.due_at, remind_at = excluded.remind_at, reminders = 0, lease_until = NULL), \
             w1 AS (INSERT INTO seat_links (token_hash, game_id, seat) SELECT u.hash, :g, u.seat FROM head, unnest('{{}}'::bytea[], '{{}}'::int[]) AS u(hash, seat)), \
             w2 AS (INSERT INTO reply_addresses (token_hash, game_id, seat, seq, choices) SELECT u.hash, :g, u.seat, u.seq, u.choices::jsonb FROM head, \
             unnest('{{}}'::bytea[], '{{}}'::int[], '{{}}'::bigint[], '{{}}'::text[]) AS u(hash, seat, seq, choices)), \
             w3 AS (UPDATE seats SET messages_mailed_upto = greatest(seats.messages_mailed_upto, 0) FROM head WHERE seats.game_id = :g AND seats.seat = ANY('{{}}'::int[])), \
             w4 AS (INSERT INTO outbox (game_id, seat, event, kind, recipient, recipient_name, payload, digest, webhook_id) SELECT :g, u.seat, u.event, u.kind, u.recipient, u.name, u.payload::jsonb, u.digest, u.hook \
             FROM head, unnest('{{}}'::int[], '{{}}'::text[], '{{}}'::text[], '{{}}'::text[], '{{}}'::text[], '{{}}'::text[], '{{}}'::boolean[], '{{}}'::bigint[]) \
             WITH ORDINALITY AS u(seat, event, kind, recipient, name, payload, digest, hook, n) ORDER BY u.n ON CONFLICT (game_id, event, recipient) DO NOTHING) \
             SELECT (SELECT count(*) FROM head) AS moved, (SELECT count(*) FROM (SELECT pg_notify('postplay_bench', :g::text) FROM head) AS n) AS told;\n",
            clients = clients,
            clock = postplay::clock::plan::READS.replace("$1", ":g"),
            mail = postplay::notices::plan::READS.replace("$1", ":g"),
        ),
    )
    .unwrap();
    let log_dir = std::env::temp_dir().join(format!("postplay-pgbench-{}", std::process::id()));
    std::fs::create_dir_all(&log_dir).unwrap();
    let mut args: Vec<String> = [
        "-n",
        // Prepared, as sqlx runs them: the move's statements are planned once per connection.
        "-M",
        "prepared",
        "-c",
        &clients.to_string(),
        "-j",
        "2",
        "-T",
        &seconds.to_string(),
        "-f",
        script.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if let Some(rate) = rate {
        args.extend([
            "-R".to_string(),
            format!("{rate:.0}"),
            "-l".to_string(),
            format!("--log-prefix={}/tx", log_dir.display()),
        ]);
    }
    let out = std::process::Command::new(bin)
        .args(&args)
        .arg(url)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pgbench: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tps = text
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|v| v.parse().ok())
        .expect("pgbench reports tps");
    // Per-transaction logs: the third field is the latency in microseconds (with -R, the
    // time from the scheduled start, so waiting for a slot counts as for the HTTP clients).
    let mut latencies: Vec<Duration> = std::fs::read_dir(&log_dir)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok())
                .map(Duration::from_micros)
                .collect::<Vec<_>>()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&log_dir);
    latencies.sort();
    Pgbench {
        tps,
        p99: rate.map(|_| percentile(&latencies, 0.99)),
    }
}
