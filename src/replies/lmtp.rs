//! An LMTP listener (RFC 2033) for a relay that hands us replies, which also speaks plain SMTP
//! (EHLO/HELO) for a relay that only knows that. Each message goes through [`Inbox::receive`],
//! the same path as `postplay receive`. Bounded ([`Limits`]): sessions at once, each session's
//! whole lifetime, time per command, commands between two messages, bytes per line and per
//! message (the rest of a too-large message is read and dropped). Every session comes from the
//! one relay, so a cap per address would do nothing: when every slot is taken, a new session
//! closes the one that has waited longest for its next command, so sessions held open idle
//! never keep mail out.

use crate::replies::Inbox;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::time::Instant;

/// The longest command line read.
const MAX_LINE: usize = 4096;

/// Recipients per message.
const MAX_RECIPIENTS: usize = 16;

/// The listener's bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Sessions served at once. With all taken, a new session closes (421) the session that
    /// has waited longest for its next command; when none is waiting (all are receiving a
    /// message), it waits in the kernel's queue.
    pub sessions: usize,
    /// How long a session may last in all; then it is closed (421).
    pub lifetime: Duration,
    /// Time allowed for each command and each line of a message.
    pub idle: Duration,
    /// Commands a session may send between two messages, besides a message's recipients and
    /// its DATA (NOOP, RSET, HELO, MAIL, refused commands, ...); one more closes it (421).
    pub idle_commands: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            sessions: 64,
            lifetime: Duration::from_secs(600),
            idle: Duration::from_secs(60),
            idle_commands: 20,
        }
    }
}

/// A session being served: since when it waits for its next command (`None` while it works
/// or once it was told to close), and how to tell it to close.
struct Slot {
    waiting_since: Option<Instant>,
    close: Arc<Notify>,
}

/// The sessions being served.
#[derive(Default)]
struct Slots {
    next: u64,
    open: HashMap<u64, Slot>,
}

type Shared = Arc<Mutex<Slots>>;

/// A session's place among the slots; it leaves them when dropped.
struct Place {
    slots: Shared,
    id: u64,
    close: Arc<Notify>,
}

impl Place {
    fn join(slots: &Shared) -> Place {
        let close = Arc::new(Notify::new());
        let mut open = slots.lock().expect("slots lock");
        let id = open.next;
        open.next += 1;
        open.open.insert(
            id,
            Slot {
                waiting_since: None,
                close: close.clone(),
            },
        );
        Place {
            slots: slots.clone(),
            id,
            close,
        }
    }

    /// Marks the session as waiting for a command, or working.
    fn waiting(&self, waiting: bool) {
        if let Some(slot) = self
            .slots
            .lock()
            .expect("slots lock")
            .open
            .get_mut(&self.id)
        {
            slot.waiting_since = waiting.then(Instant::now);
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Ok(mut slots) = self.slots.lock() {
            slots.open.remove(&self.id);
        }
    }
}

/// Tells the session that has waited longest for its next command to close; false if none
/// is waiting.
fn close_longest_waiting(slots: &Shared) -> bool {
    let mut slots = slots.lock().expect("slots lock");
    let longest = slots
        .open
        .values_mut()
        .filter(|s| s.waiting_since.is_some())
        .min_by_key(|s| s.waiting_since);
    let Some(slot) = longest else { return false };
    slot.waiting_since = None;
    slot.close.notify_one();
    true
}

/// Serves LMTP/SMTP on `listener` with the default [`Limits`] until `shutdown` turns true.
pub async fn serve(listener: TcpListener, inbox: Arc<Inbox>, shutdown: watch::Receiver<bool>) {
    serve_with(listener, inbox, Limits::default(), shutdown).await;
}

/// Serves LMTP/SMTP on `listener` within `limits` until `shutdown` turns true.
pub async fn serve_with(
    listener: TcpListener,
    inbox: Arc<Inbox>,
    limits: Limits,
    mut shutdown: watch::Receiver<bool>,
) {
    let sessions = Arc::new(Semaphore::new(limits.sessions.max(1)));
    let slots = Shared::default();
    tracing::info!(addr = ?listener.local_addr().ok(), "LMTP listener running");
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else { continue };
                let permit = match sessions.clone().try_acquire_owned() {
                    Ok(permit) => permit,
                    Err(_) => {
                        if close_longest_waiting(&slots) {
                            tracing::info!("LMTP: every session taken, the longest idle closed");
                        }
                        let Ok(permit) = sessions.clone().acquire_owned().await else { break };
                        permit
                    }
                };
                let place = Place::join(&slots);
                let inbox = inbox.clone();
                tokio::spawn(async move {
                    if let Err(e) = session(stream, peer, &inbox, limits, &place).await {
                        tracing::debug!(error = %e, "LMTP session ended");
                    }
                    drop(place);
                    drop(permit);
                });
            }
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    break;
                }
            }
        }
    }
    tracing::info!("LMTP listener stopped");
}

/// Reads one line of at most `cap` bytes (the rest of a longer line is dropped) before
/// `until`; returns the bytes read from the stream, 0 at its end.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
    until: Instant,
) -> std::io::Result<usize> {
    line.clear();
    let mut total = 0;
    loop {
        let chunk = tokio::time::timeout_at(until, reader.fill_buf())
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "idle"))??;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..take.min(room)]);
        reader.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
}

fn address_of(arg: &str) -> String {
    let arg = arg.split_once(':').map_or("", |(_, a)| a).trim();
    let arg = arg.split_whitespace().next().unwrap_or_default();
    arg.trim_start_matches('<')
        .trim_end_matches('>')
        .to_string()
}

/// Says `line` (a 421) and ends the session.
async fn bye(write: &mut OwnedWriteHalf, line: &str) -> std::io::Result<()> {
    tracing::debug!(line = line.trim_end(), "LMTP session closed");
    let _ = write.write_all(line.as_bytes()).await;
    Ok(())
}

/// Ends a session whose time ran out: its whole lifetime (`ends`) or one command's.
async fn timed_out(write: &mut OwnedWriteHalf, ends: Instant) -> std::io::Result<()> {
    let line = if Instant::now() >= ends {
        "421 4.4.2 session time limit reached, closing\r\n"
    } else {
        "421 4.4.2 idle too long, closing\r\n"
    };
    bye(write, line).await
}

/// Whether a command counts against [`Limits::idle_commands`]: all do but a message's
/// recipients and its DATA once accepted, and QUIT.
fn counts(verb: &str, from: &Option<String>, to: &[String]) -> bool {
    match verb {
        "RCPT" => from.is_none() || to.len() >= MAX_RECIPIENTS,
        "DATA" => from.is_none() || to.is_empty(),
        "QUIT" => false,
        _ => true,
    }
}

async fn session(
    stream: TcpStream,
    peer: SocketAddr,
    inbox: &Inbox,
    limits: Limits,
    place: &Place,
) -> std::io::Result<()> {
    let ends = Instant::now() + limits.lifetime;
    let until = || (Instant::now() + limits.idle).min(ends);
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let max = inbox.settings.max_bytes;
    write.write_all(b"220 postplay LMTP ready\r\n").await?;
    let mut lmtp = false;
    let mut from: Option<String> = None;
    let mut to: Vec<String> = Vec::new();
    let mut idle_commands = 0;
    let mut line = Vec::new();
    loop {
        place.waiting(true);
        let read = tokio::select! {
            read = read_line(&mut reader, &mut line, MAX_LINE, until()) => read,
            () = place.close.notified() => {
                return bye(&mut write, "421 4.3.2 all sessions taken, closing an idle one\r\n")
                    .await;
            }
        };
        place.waiting(false);
        match read {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                return timed_out(&mut write, ends).await;
            }
            Err(e) => return Err(e),
        }
        let text = String::from_utf8_lossy(&line);
        let command = text.trim_end();
        let (verb, arg) = command.split_once(' ').unwrap_or((command, ""));
        let verb = verb.to_ascii_uppercase();
        if counts(&verb, &from, &to) {
            idle_commands += 1;
            if idle_commands > limits.idle_commands {
                return bye(
                    &mut write,
                    "421 4.7.0 too many commands without a message, closing\r\n",
                )
                .await;
            }
        }
        let reply: String = match verb.as_str() {
            "LHLO" | "EHLO" => {
                lmtp = verb == "LHLO";
                format!("250-postplay\r\n250-8BITMIME\r\n250-PIPELINING\r\n250 SIZE {max}\r\n")
            }
            "HELO" => "250 postplay\r\n".into(),
            "MAIL" => {
                from = Some(address_of(arg));
                to.clear();
                "250 2.1.0 OK\r\n".into()
            }
            "RCPT" if from.is_none() => "503 5.5.1 MAIL first\r\n".into(),
            "RCPT" if to.len() >= MAX_RECIPIENTS => "452 4.5.3 too many recipients\r\n".into(),
            "RCPT" => {
                to.push(address_of(arg));
                "250 2.1.5 OK\r\n".into()
            }
            "DATA" if from.is_none() || to.is_empty() => "503 5.5.1 no valid recipients\r\n".into(),
            "DATA" => {
                write.write_all(b"354 end with <CRLF>.<CRLF>\r\n").await?;
                let mut data = Vec::new();
                let mut size = 0usize;
                loop {
                    let read = match read_line(&mut reader, &mut line, max + 2, until()).await {
                        Ok(0) => return Ok(()),
                        Ok(read) => read,
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                            return timed_out(&mut write, ends).await;
                        }
                        Err(e) => return Err(e),
                    };
                    if line == b".\r\n" || line == b".\n" {
                        break;
                    }
                    let stuffed = line.starts_with(b".");
                    size += read - usize::from(stuffed);
                    // Past the limit the bytes are only counted.
                    if data.len() <= max {
                        data.extend_from_slice(&line[usize::from(stuffed)..]);
                    }
                }
                data.truncate(max);
                let status = match inbox.receive_cut(&data, size, &to).await {
                    Ok(_) => "250 2.0.0 OK\r\n",
                    Err(e) => {
                        tracing::error!(error = %e, %peer, "inbound mail not handled");
                        "451 4.3.0 try again later\r\n"
                    }
                };
                let replies = if lmtp { to.len() } else { 1 };
                from = None;
                to.clear();
                idle_commands = 0;
                status.repeat(replies)
            }
            "RSET" => {
                from = None;
                to.clear();
                "250 2.0.0 OK\r\n".into()
            }
            "NOOP" => "250 2.0.0 OK\r\n".into(),
            "QUIT" => {
                write.write_all(b"221 2.0.0 bye\r\n").await?;
                return Ok(());
            }
            _ => "500 5.5.2 unknown command\r\n".into(),
        };
        write.write_all(reply.as_bytes()).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_long_line_is_cut_and_the_rest_dropped() {
        let input = format!("{}\r\nnext\r\n", "a".repeat(100));
        let mut reader = BufReader::new(input.as_bytes());
        let mut line = Vec::new();
        let until = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            read_line(&mut reader, &mut line, 10, until).await.unwrap(),
            102
        );
        assert_eq!(line, b"aaaaaaaaaa");
        read_line(&mut reader, &mut line, 10, until).await.unwrap();
        assert_eq!(line, b"next\r\n");
        assert_eq!(
            read_line(&mut reader, &mut line, 10, until).await.unwrap(),
            0
        );
    }

    #[test]
    fn addresses_come_out_of_the_commands() {
        assert_eq!(
            address_of("FROM:<ann@example.org> SIZE=10"),
            "ann@example.org"
        );
        assert_eq!(address_of("TO: <play+x@pp.example>"), "play+x@pp.example");
    }
}
