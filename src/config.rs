//! Server configuration from the environment, with an optional TOML-free `KEY=value` file.
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `POSTPLAY_BIND` | address to listen on | `127.0.0.1:8080` |
//! | `POSTPLAY_BASE_URL` | the public URL links in pages and mail start with | `http://` + bind |
//! | `DATABASE_URL` | PostgreSQL to use; unset: the private cluster | unset |
//! | `POSTPLAY_DATA_DIR` | where the private cluster keeps its data | `./var/postgres` |
//! | `POSTPLAY_CONFIG` | a file of `KEY=value` lines read first (the environment wins) | unset |
//!
//! Mail settings: [`crate::mail::settings`].

use std::path::PathBuf;

/// What `serve` needs to know.
#[derive(Debug, Clone)]
pub struct Config {
    /// Listen address.
    pub bind: String,
    /// Public base URL, without a trailing slash.
    pub base_url: String,
    /// An external PostgreSQL, or `None` for the private cluster.
    pub database_url: Option<String>,
    /// The private cluster's data directory.
    pub data_dir: PathBuf,
    /// Mail: transport, sender, worker pacing.
    pub mail: crate::mail::settings::MailSettings,
}

impl Config {
    /// Reads the configuration: the file named by `POSTPLAY_CONFIG` if any, then the
    /// environment.
    pub fn from_env() -> Result<Config, String> {
        let mut file_values = Vec::new();
        if let Ok(path) = std::env::var("POSTPLAY_CONFIG") {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (key, value) = line
                    .split_once('=')
                    .ok_or_else(|| format!("{path}:{}: expected KEY=value", n + 1))?;
                file_values.push((
                    key.trim().to_string(),
                    value.trim().trim_matches('"').to_string(),
                ));
            }
        }
        let get = |key: &str| {
            std::env::var(key)
                .ok()
                .or_else(|| {
                    file_values
                        .iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.clone())
                })
                .filter(|v| !v.is_empty())
        };
        let bind = get("POSTPLAY_BIND").unwrap_or_else(|| "127.0.0.1:8080".into());
        let base_url = get("POSTPLAY_BASE_URL")
            .unwrap_or_else(|| format!("http://{bind}"))
            .trim_end_matches('/')
            .to_string();
        let mail = crate::mail::settings::MailSettings::from_lookup(&get)?;
        Ok(Config {
            mail,
            base_url,
            bind,
            database_url: get("DATABASE_URL"),
            data_dir: get("POSTPLAY_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("var/postgres")),
        })
    }
}
