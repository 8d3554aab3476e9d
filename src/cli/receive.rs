//! `postplay receive`: moves by replying to the mail. Without `--listen`, reads one message on
//! standard input (an MTA's pipe transport) and exits 0 once it is stored and handled, 75
//! (EX_TEMPFAIL, "try again later") when the database cannot be reached. With `--listen`,
//! serves LMTP (and SMTP) for a relay until SIGINT/SIGTERM.

use crate::config::Config;
use crate::replies::{Inbox, lmtp};
use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `postplay receive`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The envelope recipient, as the MTA knows it (Postfix: `${recipient}`).
    #[arg(long)]
    recipient: Vec<String>,
    /// Serve LMTP/SMTP on this address instead of reading standard input.
    #[arg(long)]
    listen: Option<String>,
}

/// EX_TEMPFAIL: the MTA keeps the message and tries again.
const TEMPFAIL: u8 = 75;

/// Runs `postplay receive`.
pub fn run(args: Args) -> ExitCode {
    super::serve::init_logging();
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("configuration: {e}");
            return ExitCode::from(TEMPFAIL);
        }
    };
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime starts");
    match runtime.block_on(receive(config, args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("postplay receive: {e}");
            ExitCode::from(TEMPFAIL)
        }
    }
}

async fn receive(config: Config, args: Args) -> Result<(), String> {
    let (store, cluster) = crate::startup::connect(&config).await?;
    store
        .migrate()
        .await
        .map_err(|e| format!("migrations: {e}"))?;
    if let (Some(_), Some(metrics)) = (&args.listen, &config.metrics_bind) {
        crate::telemetry::endpoint::serve_from(metrics, store.pool())?;
    }
    let inbox = Arc::new(Inbox::new(
        store,
        config.mail.from.address.clone(),
        config.mail.inbound.clone(),
    ));
    let result = match &args.listen {
        Some(addr) => listen(inbox, addr).await,
        None => one_message(&inbox, &args, config.mail.inbound.max_bytes).await,
    };
    if let Some(cluster) = cluster.filter(|c| c.started_here) {
        cluster.stop().map_err(|e| e.to_string())?;
    }
    result
}

async fn one_message(inbox: &Inbox, args: &Args, max: usize) -> Result<(), String> {
    let mut raw = Vec::new();
    let mut stdin = std::io::stdin().lock();
    (&mut stdin)
        .take(max as u64)
        .read_to_end(&mut raw)
        .map_err(|e| format!("standard input: {e}"))?;
    // Past the limit the rest is only counted.
    let rest = std::io::copy(&mut stdin, &mut std::io::sink())
        .map_err(|e| format!("standard input: {e}"))?;
    let size = raw.len() + rest as usize;
    inbox.resume().await.map_err(|e| e.to_string())?;
    let outcome = inbox
        .receive_cut(&raw, size, &args.recipient)
        .await
        .map_err(|e| e.to_string())?;
    println!("{outcome:?}");
    Ok(())
}

async fn listen(inbox: Arc<Inbox>, addr: &str) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("{addr}: {e}"))?;
    inbox.resume().await.map_err(|e| e.to_string())?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
        let _ = stop.send(true);
    });
    lmtp::serve(listener, inbox, stopped).await;
    Ok(())
}
