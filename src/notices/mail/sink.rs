//! A small, real SMTP server (RFC 5321 subset: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT)
//! that keeps what it receives in memory. The tests and the outbox benchmark send to it with
//! lettre's real SMTP transport over TCP; it can refuse chosen recipients for good (550) and
//! be stopped and started again on the same port to play a mail server that is down. Each
//! message keeps the time it arrived (a benchmark's measure of outbox lag).

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};

/// One message as the server received it.
#[derive(Debug, Clone)]
pub struct Received {
    /// The envelope sender (MAIL FROM).
    pub from: String,
    /// The envelope recipients (RCPT TO).
    pub to: Vec<String>,
    /// The message (headers and body), dot-unstuffed, CRLF line ends.
    pub data: String,
    /// When the server took the message (its final dot read), by the wall clock.
    pub at: std::time::SystemTime,
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    refused: Mutex<HashSet<String>>,
    arrived: Notify,
}

/// A running SMTP server on a loopback port.
pub struct SmtpSink {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<watch::Sender<bool>>,
}

impl SmtpSink {
    /// Starts on a free loopback port.
    pub async fn start() -> std::io::Result<SmtpSink> {
        SmtpSink::start_on("127.0.0.1:0".parse().expect("an address")).await
    }

    /// Starts on this address.
    pub async fn start_on(addr: SocketAddr) -> std::io::Result<SmtpSink> {
        let mut sink = SmtpSink {
            addr,
            shared: Arc::new(Shared::default()),
            stop: None,
        };
        sink.listen().await?;
        Ok(sink)
    }

    async fn listen(&mut self) -> std::io::Result<()> {
        let listener = TcpListener::bind(self.addr).await?;
        self.addr = listener.local_addr()?;
        let (stop, stopped) = watch::channel(false);
        self.stop = Some(stop);
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let mut stopped_accept = stopped.clone();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        let shared = shared.clone();
                        let mut stopped = stopped.clone();
                        tokio::spawn(async move {
                            tokio::select! {
                                _ = session(stream, &shared) => {}
                                _ = stopped.changed() => {}
                            }
                        });
                    }
                    _ = stopped_accept.changed() => break,
                }
            }
        });
        Ok(())
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Stops listening and drops every open connection (the server is "down").
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
    }

    /// Listens again on the same port, keeping what was received.
    pub async fn restart(&mut self) -> std::io::Result<()> {
        self.stop();
        // The port was ours a moment ago; retry briefly while the old socket closes.
        let mut tries = 0;
        loop {
            match self.listen().await {
                Ok(()) => return Ok(()),
                Err(e) if tries < 50 => {
                    tries += 1;
                    tracing::debug!(error = %e, "SMTP sink port busy, retrying");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// From now on, RCPT TO this address gets `550 5.1.1` (a permanent failure).
    pub fn refuse(&self, address: &str) {
        self.shared
            .refused
            .lock()
            .expect("lock")
            .insert(address.to_ascii_lowercase());
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().expect("lock").clone()
    }

    /// Everything received since the last take, removed from the server: a long run that
    /// takes what arrived now and then holds only what it keeps itself. What was taken no
    /// longer counts for [`SmtpSink::wait_for`] or [`SmtpSink::received`].
    pub fn take(&self) -> Vec<Received> {
        std::mem::take(&mut *self.shared.received.lock().expect("lock"))
    }

    /// Waits until at least `count` messages have arrived; false on timeout.
    pub async fn wait_for(&self, count: usize, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.shared.arrived.notified();
            if self.shared.received.lock().expect("lock").len() >= count {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.shared.received.lock().expect("lock").len() >= count;
            }
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.stop();
    }
}

fn address_of(arg: &str) -> String {
    let arg = arg.trim();
    let inner = match (arg.find('<'), arg.find('>')) {
        (Some(a), Some(b)) if a < b => &arg[a + 1..b],
        _ => arg.split_whitespace().next().unwrap_or(""),
    };
    inner.to_string()
}

async fn session(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    write
        .write_all(b"220 postplay-sink ESMTP ready\r\n")
        .await?;
    let mut from: Option<String> = None;
    let mut to: Vec<String> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end();
        let (verb, arg) = command.split_once(' ').unwrap_or((command, ""));
        let reply: &[u8] = match verb.to_ascii_uppercase().as_str() {
            "EHLO" => b"250-postplay-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n",
            "HELO" => b"250 postplay-sink\r\n",
            "MAIL" => {
                from = Some(address_of(arg.split_once(':').map_or("", |(_, a)| a)));
                to.clear();
                b"250 2.1.0 OK\r\n"
            }
            "RCPT" => {
                let address = address_of(arg.split_once(':').map_or("", |(_, a)| a));
                if from.is_none() {
                    b"503 5.5.1 MAIL first\r\n"
                } else if shared
                    .refused
                    .lock()
                    .expect("lock")
                    .contains(&address.to_ascii_lowercase())
                {
                    b"550 5.1.1 no such mailbox here\r\n"
                } else {
                    to.push(address);
                    b"250 2.1.5 OK\r\n"
                }
            }
            "DATA" => {
                if from.is_none() || to.is_empty() {
                    write
                        .write_all(b"503 5.5.1 no valid recipients\r\n")
                        .await?;
                    continue;
                }
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if lines.read_line(&mut line).await? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                    data.push_str(unstuffed);
                }
                shared.received.lock().expect("lock").push(Received {
                    from: from.take().unwrap_or_default(),
                    to: std::mem::take(&mut to),
                    data,
                    at: std::time::SystemTime::now(),
                });
                shared.arrived.notify_waiters();
                b"250 2.0.0 queued\r\n"
            }
            "RSET" => {
                from = None;
                to.clear();
                b"250 2.0.0 OK\r\n"
            }
            "NOOP" => b"250 2.0.0 OK\r\n",
            "QUIT" => {
                write.write_all(b"221 2.0.0 bye\r\n").await?;
                return Ok(());
            }
            _ => b"502 5.5.2 command not implemented\r\n",
        };
        write.write_all(reply).await?;
    }
}
