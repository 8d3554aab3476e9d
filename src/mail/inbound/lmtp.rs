//! An LMTP listener (RFC 2033) for a relay that hands us replies, which also speaks plain SMTP
//! (EHLO/HELO) for a relay that only knows that. Each message goes through [`Inbox::receive`],
//! the same path as `postplay receive`. Bounded: sessions at once, time per command, bytes
//! per line and per message (the rest of a too-large message is read and dropped).

use super::Inbox;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

/// Sessions served at once; more wait in the kernel's queue.
const MAX_SESSIONS: usize = 64;

/// The longest command line read.
const MAX_LINE: usize = 4096;

/// Time allowed for each command (and each line of a message).
const IDLE: Duration = Duration::from_secs(60);

/// Recipients per message.
const MAX_RECIPIENTS: usize = 16;

/// Serves LMTP/SMTP on `listener` until `shutdown` turns true.
pub async fn serve(listener: TcpListener, inbox: Arc<Inbox>, mut shutdown: watch::Receiver<bool>) {
    let sessions = Arc::new(Semaphore::new(MAX_SESSIONS));
    tracing::info!(addr = ?listener.local_addr().ok(), "LMTP listener running");
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, peer)) = accepted else { continue };
                let Ok(permit) = sessions.clone().acquire_owned().await else { break };
                let inbox = inbox.clone();
                tokio::spawn(async move {
                    if let Err(e) = session(stream, peer, &inbox).await {
                        tracing::debug!(error = %e, "LMTP session ended");
                    }
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

/// Reads one line of at most `cap` bytes (the rest of a longer line is dropped); returns the
/// bytes read from the stream, 0 at its end.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    line.clear();
    let mut total = 0;
    loop {
        let chunk = tokio::time::timeout(IDLE, reader.fill_buf())
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

async fn session(stream: TcpStream, peer: SocketAddr, inbox: &Inbox) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let max = inbox.settings.max_bytes;
    write.write_all(b"220 postplay LMTP ready\r\n").await?;
    let mut lmtp = false;
    let mut from: Option<String> = None;
    let mut to: Vec<String> = Vec::new();
    let mut line = Vec::new();
    loop {
        if read_line(&mut reader, &mut line, MAX_LINE).await? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let command = text.trim_end();
        let (verb, arg) = command.split_once(' ').unwrap_or((command, ""));
        let verb = verb.to_ascii_uppercase();
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
                    let read = read_line(&mut reader, &mut line, max + 2).await?;
                    if read == 0 {
                        return Ok(());
                    }
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
        assert_eq!(read_line(&mut reader, &mut line, 10).await.unwrap(), 102);
        assert_eq!(line, b"aaaaaaaaaa");
        read_line(&mut reader, &mut line, 10).await.unwrap();
        assert_eq!(line, b"next\r\n");
        assert_eq!(read_line(&mut reader, &mut line, 10).await.unwrap(), 0);
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
