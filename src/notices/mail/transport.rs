//! Where messages go: an SMTP server (production) or the dev mailbox folder (default local
//! run). Failures say whether trying again can help.

use crate::notices::mail::mailbox::DevMailbox;
use crate::notices::mail::render::Rendered;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

/// How the SMTP connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// Plain connection, upgraded with STARTTLS (required).
    StartTls,
    /// TLS from the first byte (port 465).
    Tls,
    /// No encryption: only for a relay on the same machine or a test server.
    None,
}

impl std::str::FromStr for Security {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "starttls" => Ok(Security::StartTls),
            "tls" | "implicit" => Ok(Security::Tls),
            "none" | "plain" => Ok(Security::None),
            other => Err(format!("{other:?}: SMTP security is starttls, tls or none")),
        }
    }
}

/// An SMTP server to send through.
#[derive(Debug, Clone)]
pub struct SmtpConfig {
    /// Host name (also checked against the TLS certificate).
    pub host: String,
    /// Port (587 for STARTTLS, 465 for TLS, 25 plain).
    pub port: u16,
    /// Encryption.
    pub security: Security,
    /// User name and password, if the server wants them.
    pub credentials: Option<(String, String)>,
    /// How long one connection or command may take.
    pub timeout: Duration,
}

/// Why a message was not sent.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct SendError {
    /// True if the server refused for good (a 5xx answer): trying again cannot help.
    pub permanent: bool,
    /// What went wrong, in the server's words.
    pub message: String,
}

/// A configured transport.
#[derive(Clone)]
pub enum Transport {
    /// An SMTP server.
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    /// The dev mailbox folder.
    Mailbox(DevMailbox),
}

impl Transport {
    /// An SMTP transport (connections are made when sending).
    pub fn smtp(config: &SmtpConfig) -> Result<Transport, String> {
        let tls = match config.security {
            Security::None => Tls::None,
            Security::StartTls => {
                Tls::Required(TlsParameters::new(config.host.clone()).map_err(|e| e.to_string())?)
            }
            Security::Tls => {
                Tls::Wrapper(TlsParameters::new(config.host.clone()).map_err(|e| e.to_string())?)
            }
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&config.host)
            .port(config.port)
            .tls(tls)
            .timeout(Some(config.timeout));
        if let Some((user, password)) = &config.credentials {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        Ok(Transport::Smtp(builder.build()))
    }

    /// Sends one message (the rendered words go to the dev mailbox's index).
    pub async fn send(&self, message: &Message, rendered: &Rendered) -> Result<(), SendError> {
        match self {
            Transport::Smtp(smtp) => {
                smtp.send(message.clone())
                    .await
                    .map(|_| ())
                    .map_err(|e| SendError {
                        permanent: e.is_permanent(),
                        message: smtp_error_text(&e),
                    })
            }
            Transport::Mailbox(mailbox) => {
                mailbox
                    .deliver(message, rendered)
                    .await
                    .map_err(|e| SendError {
                        permanent: false,
                        message: format!("dev mailbox: {e}"),
                    })
            }
        }
    }
}

fn smtp_error_text(e: &lettre::transport::smtp::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}
