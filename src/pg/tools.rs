//! The PostgreSQL client tools `postplay backup` and `postplay restore` drive: `pg_dump` and
//! `pg_restore`, found like the server's binaries, and told where to connect by a URL with no
//! password in it (the password goes in their environment, where `ps` does not show it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A database the tools connect to.
#[derive(Clone)]
pub struct Target {
    /// The connection URI without its password: safe on a command line and in messages.
    uri: String,
    /// The password, given to the tools as `PGPASSWORD`.
    password: Option<String>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Target({})", self.uri)
    }
}

impl Target {
    /// The target a `DATABASE_URL` names. The error never repeats the URL (it may hold a
    /// password).
    pub fn from_url(url: &str) -> Result<Target, String> {
        let mut parsed =
            url::Url::parse(url).map_err(|e| format!("DATABASE_URL is not a URL: {e}"))?;
        let password = parsed.password().map(percent_decode);
        parsed
            .set_password(None)
            .map_err(|()| "DATABASE_URL has no host part".to_string())?;
        Ok(Target {
            uri: parsed.to_string(),
            password,
        })
    }

    /// The URI with no password, for messages.
    pub fn shown(&self) -> &str {
        &self.uri
    }

    /// `tool` set to connect here without ever prompting for a password.
    fn command(&self, tool: &Path) -> Command {
        let mut command = Command::new(tool);
        command
            .arg("--no-password")
            .arg(format!("--dbname={}", self.uri));
        if let Some(password) = &self.password {
            command.env("PGPASSWORD", password);
        }
        command
    }

    /// `text` with the password, should a tool ever repeat it, blotted out.
    fn scrub(&self, text: &str) -> String {
        match &self.password {
            Some(p) if !p.is_empty() => text.replace(p.as_str(), "***"),
            _ => text.to_string(),
        }
    }
}

/// `%XX` escapes decoded (a URL's user-info part).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| text.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The path of a client tool: on PATH first, then in the newest `/usr/lib/postgresql/<v>/bin`.
pub fn find(tool: &str) -> Result<PathBuf, String> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file());
    if let Some(found) = on_path {
        return Ok(found);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let path = e.path().join("bin").join(tool);
            path.is_file().then_some((version, path))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, p)| p).ok_or_else(|| {
        format!(
            "no {tool} found on PATH nor in /usr/lib/postgresql/*/bin: install the PostgreSQL \
             client tools (Debian/Ubuntu: apt-get install postgresql-client)"
        )
    })
}

/// What a tool said on failure, its password blotted out.
fn failure(target: Option<&Target>, tool: &str, out: &std::process::Output) -> String {
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr).trim(),
        String::from_utf8_lossy(&out.stdout).trim()
    );
    let said = match target {
        Some(t) => t.scrub(&said),
        None => said,
    };
    format!("{tool} failed ({}): {said}", out.status)
}

/// Dumps the database, as it stood in the exported `snapshot`, to `out` in pg_dump's custom
/// format (compressed; every table's rows and the schema).
pub async fn dump(target: &Target, snapshot: &str, out: std::fs::File) -> Result<(), String> {
    let mut command = target.command(&find("pg_dump")?);
    command
        .args(["--format=custom", &format!("--snapshot={snapshot}")])
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::piped());
    // `output()` would capture standard output too: spawn, so the dump goes to `out`.
    let output = tokio::process::Command::from(command)
        .spawn()
        .map_err(|e| format!("pg_dump: {e}"))?
        .wait_with_output()
        .await
        .map_err(|e| format!("pg_dump: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(failure(Some(target), "pg_dump", &output))
    }
}

/// Restores a custom-format dump into the target in one transaction: all of it, or (on any
/// error) nothing. Objects belong to the connecting user; no grants are restored.
pub fn restore(target: &Target, file: &Path) -> Result<(), String> {
    let output = target
        .command(&find("pg_restore")?)
        .args([
            "--single-transaction",
            "--exit-on-error",
            "--no-owner",
            "--no-privileges",
        ])
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("pg_restore: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(failure(Some(target), "pg_restore", &output))
    }
}

/// The table of contents of a dump: fails if the file is not a dump pg_restore can read.
pub fn contents(file: &Path) -> Result<String, String> {
    let output = Command::new(find("pg_restore")?)
        .arg("--list")
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("pg_restore: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(failure(None, "pg_restore --list", &output))
    }
}

/// One table's data in a dump.
pub struct TableRows {
    /// Its column names, in the rows' order.
    pub columns: Vec<String>,
    /// Its rows as the text lines of its `COPY` (tab-separated, `\N` for null).
    pub rows: Vec<String>,
}

/// The rows of one table in a dump; `None` if the dump holds no such table.
pub fn table_rows(file: &Path, table: &str) -> Result<Option<TableRows>, String> {
    let output = Command::new(find("pg_restore")?)
        .args(["--data-only", "--file=-", &format!("--table={table}")])
        .arg(file)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("pg_restore: {e}"))?;
    if !output.status.success() {
        return Err(failure(None, "pg_restore --data-only", &output));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    let Some(header) = lines.find(|l| l.starts_with("COPY ") && l.ends_with(" FROM stdin;")) else {
        return Ok(None);
    };
    let columns = header
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list.split(',').map(|c| c.trim().to_string()).collect())
        .unwrap_or_default();
    let rows = lines
        .take_while(|l| *l != "\\.")
        .map(str::to_string)
        .collect();
    Ok(Some(TableRows { columns, rows }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_leaves_the_uri_and_is_decoded() {
        let t = Target::from_url(
            "postgres://club:p%40ss%2Fw0rd@db.example.org:5433/postplay?sslmode=require",
        )
        .unwrap();
        assert_eq!(
            t.shown(),
            "postgres://club@db.example.org:5433/postplay?sslmode=require"
        );
        assert_eq!(t.password.as_deref(), Some("p@ss/w0rd"));
        assert_eq!(t.scrub("bad p@ss/w0rd here"), "bad *** here");
        assert!(!format!("{t:?}").contains("p%40ss"));
    }

    #[test]
    fn a_socket_url_keeps_its_host_parameter() {
        let t = Target::from_url("postgres://postgres@localhost/postplay?host=/var/pg").unwrap();
        assert_eq!(
            t.shown(),
            "postgres://postgres@localhost/postplay?host=/var/pg"
        );
        assert_eq!(t.password, None);
    }
}
