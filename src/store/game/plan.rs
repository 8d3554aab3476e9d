//! A move written in one statement: what effects hand the store instead of writing in a
//! transaction of their own. Each effect reads what it needs in the move's one read statement
//! (a SQL expression of one `jsonb`, [`crate::store::game::effects::Effects::move_reads`]) and answers with
//! rows as arrays ([`MovePlan`]); the store joins them into one statement of data-modifying
//! CTEs, each gated on the optimistic update of the game's head (DESIGN.md "A move's
//! transaction, one direction").

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// One bound value of an effect's SQL.
#[derive(Debug, Clone)]
pub enum Arg {
    /// `bigint`.
    I64(i64),
    /// `boolean`.
    Bool(bool),
    /// `timestamptz`.
    Time(DateTime<Utc>),
    /// `integer[]`.
    I32s(Vec<i32>),
    /// `bigint[]`, NULLs allowed.
    I64s(Vec<Option<i64>>),
    /// `text[]`, NULLs allowed (JSON is passed as text and cast in the SQL).
    Texts(Vec<Option<String>>),
    /// `timestamptz[]`, NULLs allowed.
    Times(Vec<Option<DateTime<Utc>>>),
    /// `boolean[]`.
    Bools(Vec<bool>),
    /// `bytea[]`.
    Bytes(Vec<Vec<u8>>),
}

/// A piece of SQL and its arguments: `$1` is the first of `args`, and so on.
#[derive(Debug, Clone)]
pub struct Sql {
    /// The text, of fixed shape: what varies is in the arguments, so one effect's text is
    /// the same every move and stays prepared.
    pub text: &'static str,
    /// Its arguments.
    pub args: Vec<Arg>,
}

/// What the effects of one move write, built up effect by effect.
#[derive(Debug, Default)]
pub struct MovePlan {
    /// Data-modifying statements, each written as a CTE of the move's statement; each must
    /// write nothing unless the head moved: join the CTE `head` (`FROM head`, or `WHERE
    /// EXISTS (SELECT 1 FROM head)`).
    pub writes: Vec<Sql>,
    /// Predicates on the game's row (`games`' columns by name, other tables by subquery)
    /// that must hold for the move to be written at all, checked inside the writing
    /// statement: a race lost between the read and the write leaves nothing written.
    pub guards: Vec<Sql>,
    /// Notifications sent when the move commits: (channel, payload).
    pub notify: Vec<(String, String)>,
    /// What an effect decided that a later one needs (the clock's new deadlines, by seat,
    /// for the mail that tells them), by name: effects agree on names, the store reads none.
    pub notes: Map<String, Value>,
}

impl MovePlan {
    /// Adds a notification, once.
    pub fn notify_once(&mut self, channel: &str, payload: &str) {
        let note = (channel.to_string(), payload.to_string());
        if !self.notify.contains(&note) {
            self.notify.push(note);
        }
    }
}

/// `text` with its placeholders `$1`, `$2`... moved up by `offset`.
pub(in crate::store) fn renumber(text: &str, offset: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        out.push(c);
        if c != '$' {
            continue;
        }
        let mut digits = String::new();
        while let Some(&(_, d)) = chars.peek() {
            if !d.is_ascii_digit() {
                break;
            }
            digits.push(d);
            chars.next();
        }
        if let Ok(n) = digits.parse::<usize>() {
            out.push_str(&(n + offset).to_string());
        } else {
            out.push_str(&digits);
        }
    }
    out
}

/// Binds `arg` to `query`.
pub(in crate::store) fn bind<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    arg: Arg,
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    match arg {
        Arg::I64(v) => query.bind(v),
        Arg::Bool(v) => query.bind(v),
        Arg::Time(v) => query.bind(v),
        Arg::I32s(v) => query.bind(v),
        Arg::I64s(v) => query.bind(v),
        Arg::Texts(v) => query.bind(v),
        Arg::Times(v) => query.bind(v),
        Arg::Bools(v) => query.bind(v),
        Arg::Bytes(v) => query.bind(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_move_up() {
        assert_eq!(
            renumber("a = $1 AND b = ANY($2::int[]) AND c = $10", 7),
            "a = $8 AND b = ANY($9::int[]) AND c = $17"
        );
        assert_eq!(renumber("no placeholder", 3), "no placeholder");
    }
}
