//! Mail settings from the environment (see `crate::config` for how values are looked up).
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `POSTPLAY_MAIL` | `mailbox` (dev mailbox folder), `smtp`, or `off` | `mailbox` |
//! | `POSTPLAY_MAILBOX_DIR` | the dev mailbox folder | `./var/mailbox` |
//! | `POSTPLAY_MAIL_FROM` | `Name <address>` or an address | `postplay <postplay@localhost>` |
//! | `POSTPLAY_SMTP_HOST` | SMTP server | required for `smtp` |
//! | `POSTPLAY_SMTP_PORT` | port | 587 (starttls), 465 (tls), 25 (none) |
//! | `POSTPLAY_SMTP_SECURITY` | `starttls`, `tls` or `none` | `starttls` |
//! | `POSTPLAY_SMTP_USER`, `POSTPLAY_SMTP_PASSWORD` | credentials | none |
//! | `POSTPLAY_SMTP_TIMEOUT_SECS` | per connection/command | 30 |
//! | `POSTPLAY_MAIL_MAX_ATTEMPTS` | tries before giving up | 8 |
//! | `POSTPLAY_MAIL_RETRY_SECS` | first retry wait (doubles, at most 6 h) | 60 |
//! | `POSTPLAY_MAIL_POLL_SECS` | polling when no notification comes | 30 |
//! | `POSTPLAY_MAIL_LEASE_SECS` | how long a worker's claim on a message holds before another try may take it (after a crash) | 600 |
//! | `POSTPLAY_DIGEST_HOURS` | at most one digest per seat per this many hours | 24 |
//! | `POSTPLAY_REPLY_DOMAIN` | the domain of reply addresses (`play+<secret>@domain`) that mail to us; `off`: no moves by reply | the domain of `POSTPLAY_MAIL_FROM` |
//! | `POSTPLAY_INBOUND_MAX_KB` | the largest inbound message read, in KiB | 256 |
//! | `POSTPLAY_LIMIT_REPLIES_PER_HOUR` | replies one seat (and one sender) may send an hour; 0: no limit | 60 |
//! | `POSTPLAY_IDLE_HOURS` | tell the organiser when the seat to move has not moved for this long (0: never) | 72 |
//! | `POSTPLAY_WEBHOOK_LOOPBACK_HTTP` | development only: `true` lets webhooks reach loopback addresses, by `http` too (docs/WEBHOOKS.md) | false |

use crate::notices::EmailAddress;
use crate::notices::mail::compose::Sender;
use crate::notices::mail::mailbox::DevMailbox;
use crate::notices::mail::transport::{Security, SmtpConfig, Transport};
use crate::notices::outbox::worker::WorkerConfig;
use std::path::PathBuf;
use std::time::Duration;

/// Where mail goes.
#[derive(Debug, Clone)]
pub enum Delivery {
    /// The dev mailbox folder (the default local run).
    Mailbox(PathBuf),
    /// An SMTP server.
    Smtp(SmtpConfig),
    /// Nowhere: no worker runs (rows stay queued).
    Off,
}

/// Mail settings.
#[derive(Debug, Clone)]
pub struct MailSettings {
    /// Where mail goes.
    pub delivery: Delivery,
    /// The sender.
    pub from: Sender,
    /// Worker pacing.
    pub worker: WorkerConfig,
    /// Moves by reply: the reply domain and the bounds of inbound mail.
    pub inbound: crate::replies::InboundSettings,
    /// Development only: webhooks may reach loopback addresses (and `http` URLs to them).
    pub webhook_loopback_http: bool,
}

fn number<T: std::str::FromStr>(
    get: &dyn Fn(&str) -> Option<String>,
    key: &str,
    default: T,
) -> Result<T, String> {
    match get(key) {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| format!("{key}: {v:?} is not a number")),
    }
}

/// Parses `Name <address>` or a bare address.
pub fn parse_sender(text: &str) -> Result<Sender, String> {
    let text = text.trim();
    let (name, address) = match (text.rfind('<'), text.ends_with('>')) {
        (Some(open), true) => (
            text[..open].trim().trim_matches('"').to_string(),
            &text[open + 1..text.len() - 1],
        ),
        _ => ("postplay".to_string(), text),
    };
    let address = EmailAddress::parse(address).map_err(|e| format!("POSTPLAY_MAIL_FROM: {e}"))?;
    Ok(Sender {
        name: if name.is_empty() {
            "postplay".into()
        } else {
            name
        },
        address,
    })
}

impl MailSettings {
    /// Reads the settings through `get` (environment, then the config file).
    pub fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<MailSettings, String> {
        let from = parse_sender(
            &get("POSTPLAY_MAIL_FROM").unwrap_or_else(|| "postplay <postplay@localhost>".into()),
        )?;
        let delivery = match get("POSTPLAY_MAIL").as_deref().unwrap_or("mailbox") {
            "mailbox" => Delivery::Mailbox(
                get("POSTPLAY_MAILBOX_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| PathBuf::from("var/mailbox")),
            ),
            "off" => Delivery::Off,
            "smtp" => {
                let security: Security = get("POSTPLAY_SMTP_SECURITY")
                    .as_deref()
                    .unwrap_or("starttls")
                    .parse()?;
                let default_port = match security {
                    Security::StartTls => 587,
                    Security::Tls => 465,
                    Security::None => 25,
                };
                let user = get("POSTPLAY_SMTP_USER");
                let password = get("POSTPLAY_SMTP_PASSWORD");
                Delivery::Smtp(SmtpConfig {
                    host: get("POSTPLAY_SMTP_HOST")
                        .ok_or("POSTPLAY_MAIL=smtp needs POSTPLAY_SMTP_HOST")?,
                    port: number(get, "POSTPLAY_SMTP_PORT", default_port)?,
                    security,
                    credentials: user.map(|u| (u, password.unwrap_or_default())),
                    timeout: Duration::from_secs(number(get, "POSTPLAY_SMTP_TIMEOUT_SECS", 30)?),
                })
            }
            other => {
                return Err(format!(
                    "POSTPLAY_MAIL: {other:?}: use mailbox, smtp or off"
                ));
            }
        };
        let defaults = WorkerConfig::default();
        let worker = WorkerConfig {
            max_attempts: number(get, "POSTPLAY_MAIL_MAX_ATTEMPTS", defaults.max_attempts)?,
            retry_base: Duration::from_secs_f64(number(get, "POSTPLAY_MAIL_RETRY_SECS", 60.0)?),
            poll: Duration::from_secs_f64(number(get, "POSTPLAY_MAIL_POLL_SECS", 30.0)?),
            lease: Duration::from_secs_f64(
                number(
                    get,
                    "POSTPLAY_MAIL_LEASE_SECS",
                    defaults.lease.as_secs_f64(),
                )?
                .max(1.0),
            ),
            digest_every: Duration::from_secs_f64(
                number(get, "POSTPLAY_DIGEST_HOURS", 24.0)? * 3600.0,
            ),
            idle_after: match number(get, "POSTPLAY_IDLE_HOURS", 72.0)? {
                h if h > 0.0 => Some(Duration::from_secs_f64(h * 3600.0)),
                _ => None,
            },
            ..defaults
        };
        let inbound = crate::replies::InboundSettings::from_lookup(get, &from)?;
        let webhook_loopback_http = match get("POSTPLAY_WEBHOOK_LOOPBACK_HTTP").as_deref() {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(format!(
                    "POSTPLAY_WEBHOOK_LOOPBACK_HTTP: {other:?}: use true or false"
                ));
            }
        };
        Ok(MailSettings {
            webhook_loopback_http,
            delivery,
            from,
            worker,
            inbound,
        })
    }

    /// The transport, unless mail is off.
    pub fn transport(&self) -> Result<Option<Transport>, String> {
        match &self.delivery {
            Delivery::Mailbox(dir) => Ok(Some(Transport::Mailbox(DevMailbox::new(dir)))),
            Delivery::Smtp(config) => Transport::smtp(config).map(Some),
            Delivery::Off => Ok(None),
        }
    }

    /// The dev mailbox, in that mode (its page is shown only then).
    pub fn mailbox(&self) -> Option<DevMailbox> {
        match &self.delivery {
            Delivery::Mailbox(dir) => Some(DevMailbox::new(dir)),
            _ => None,
        }
    }
}

/// The worker these settings describe, or `None` when mail is off.
pub fn worker(
    settings: &MailSettings,
    pool: sqlx::PgPool,
    base_url: &str,
) -> Result<Option<crate::notices::outbox::worker::Worker>, String> {
    let Some(transport) = settings.transport()? else {
        return Ok(None);
    };
    Ok(Some(
        crate::notices::outbox::worker::Worker::new(
            pool,
            transport,
            settings.from.clone(),
            crate::notices::mail::render::MailContext {
                base_url: base_url.trim_end_matches('/').to_string(),
                reply_domain: settings.inbound.reply_domain.clone(),
            },
            settings.worker.clone(),
        )
        .with_webhooks(crate::notices::webhook::HookClient::new(
            settings.webhook_loopback_http,
        )),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn defaults_to_the_dev_mailbox() {
        let s = MailSettings::from_lookup(&lookup(&[])).unwrap();
        assert!(
            matches!(s.delivery, Delivery::Mailbox(ref d) if d == &PathBuf::from("var/mailbox"))
        );
        assert_eq!(s.from.name, "postplay");
        assert_eq!(s.from.address.as_str(), "postplay@localhost");
        assert_eq!(s.worker.max_attempts, 8);
    }

    #[test]
    fn reads_smtp_settings_and_refuses_nonsense() {
        let s = MailSettings::from_lookup(&lookup(&[
            ("POSTPLAY_MAIL", "smtp"),
            ("POSTPLAY_SMTP_HOST", "mail.example.org"),
            ("POSTPLAY_SMTP_SECURITY", "tls"),
            ("POSTPLAY_SMTP_USER", "u"),
            ("POSTPLAY_SMTP_PASSWORD", "p"),
            ("POSTPLAY_MAIL_FROM", "\"Club games\" <games@example.org>"),
            ("POSTPLAY_MAIL_MAX_ATTEMPTS", "3"),
        ]))
        .unwrap();
        let Delivery::Smtp(smtp) = &s.delivery else {
            panic!("smtp expected")
        };
        assert_eq!((smtp.port, smtp.security), (465, Security::Tls));
        assert_eq!(smtp.credentials, Some(("u".into(), "p".into())));
        assert_eq!(s.from.name, "Club games");
        assert_eq!(s.worker.max_attempts, 3);
        assert!(MailSettings::from_lookup(&lookup(&[("POSTPLAY_MAIL", "smtp")])).is_err());
        assert!(MailSettings::from_lookup(&lookup(&[("POSTPLAY_MAIL", "pigeon")])).is_err());
        assert!(
            MailSettings::from_lookup(&lookup(&[("POSTPLAY_MAIL_FROM", "not an address")]))
                .is_err()
        );
    }
}
