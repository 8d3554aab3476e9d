//! The dev mailbox: every message as an `.eml` file plus a small JSON index entry in one
//! folder, so a newcomer can read the mail of a local game (and follow its links) without a
//! mail server. A message delivered twice (same Message-ID) is stored once.

use crate::notices::mail::render::Rendered;
use chrono::{DateTime, Utc};
use lettre::Message;
use lettre::message::header::{MessageId, To};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One stored message, as its JSON index entry says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailboxEntry {
    /// The file name stem (`.eml` and `.json`).
    pub key: String,
    /// The Message-ID.
    pub message_id: String,
    /// The To header.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// When it was stored.
    pub stored_at: DateTime<Utc>,
    /// Every http(s) link in the text part, in order.
    pub links: Vec<String>,
    /// The text part.
    pub text: String,
}

/// A folder of messages.
#[derive(Debug, Clone)]
pub struct DevMailbox {
    dir: PathBuf,
}

/// Every `http://` or `https://` word of a text, without trailing punctuation.
pub fn links_in(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == '<' || c == '>' || c == '"')
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .map(|w| w.trim_end_matches(['.', ',', ')', ';']).to_string())
        .collect()
}

fn key_for(message_id: &str) -> String {
    message_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'))
        .collect()
}

impl DevMailbox {
    /// A mailbox in this folder (created on first delivery).
    pub fn new(dir: impl Into<PathBuf>) -> DevMailbox {
        DevMailbox { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stores a message.
    pub async fn deliver(&self, message: &Message, rendered: &Rendered) -> std::io::Result<()> {
        let headers = message.headers();
        let message_id = headers
            .get::<MessageId>()
            .map(|m| m.as_ref().to_string())
            .unwrap_or_default();
        let key = key_for(&message_id);
        if key.is_empty() {
            return Err(std::io::Error::other("a message without Message-ID"));
        }
        let to = headers
            .get_raw(<To as lettre::message::header::Header>::name().as_ref())
            .unwrap_or_default()
            .to_string();
        let entry = MailboxEntry {
            key: key.clone(),
            message_id,
            to,
            subject: rendered.subject.clone(),
            stored_at: Utc::now(),
            links: links_in(&rendered.text),
            text: rendered.text.clone(),
        };
        tokio::fs::create_dir_all(&self.dir).await?;
        let json = self.dir.join(format!("{key}.json"));
        if tokio::fs::try_exists(&json).await? {
            return Ok(());
        }
        tokio::fs::write(self.dir.join(format!("{key}.eml")), message.formatted()).await?;
        // The index entry is written last, under a temporary name, so a reader never sees
        // an entry without its message.
        let tmp = self.dir.join(format!("{key}.json.tmp"));
        tokio::fs::write(&tmp, serde_json::to_vec_pretty(&entry)?).await?;
        tokio::fs::rename(&tmp, &json).await
    }

    /// Every stored message, newest first.
    pub fn list(&self) -> std::io::Result<Vec<MailboxEntry>> {
        let mut entries = Vec::new();
        let dir = match std::fs::read_dir(&self.dir) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(entries),
            Err(e) => return Err(e),
        };
        for file in dir {
            let path = file?.path();
            if path.extension().is_some_and(|e| e == "json") {
                let entry: MailboxEntry = serde_json::from_slice(&std::fs::read(&path)?)
                    .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
                entries.push(entry);
            }
        }
        entries.sort_by(|a, b| b.stored_at.cmp(&a.stored_at).then(b.key.cmp(&a.key)));
        Ok(entries)
    }

    /// The raw message stored under a key, if any.
    pub fn raw(&self, key: &str) -> std::io::Result<Option<Vec<u8>>> {
        if key.is_empty() || key != key_for(key) {
            return Ok(None);
        }
        match std::fs::read(self.dir.join(format!("{key}.eml"))) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}
