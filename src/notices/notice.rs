//! What a message says, as data: the outbox stores a [`Notice`] as JSON and the worker renders
//! it ([`crate::notices::mail::render`]) when it sends. Everything here is public information or belongs to
//! the recipient's own seat: a notice never carries another seat's hidden cards.

use crate::engine::present::Position;
use crate::notices::reply::ReplyLine;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The game a message is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRef {
    /// The game's id.
    pub id: i64,
    /// The name of the game ("Whitehouse").
    pub name: String,
    /// Where a league game is played: "Tuesday Cards · Autumn Combat" (the club, then the
    /// league); filled in when the mail is composed ([`crate::notices::outbox::home`]), none
    /// for a game of no league.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
}

impl GameRef {
    /// A game of no league (its `home` is filled in when the mail is composed).
    pub fn new(id: i64, name: impl Into<String>) -> GameRef {
        GameRef {
            id,
            name: name.into(),
            home: None,
        }
    }

    /// "Whitehouse #12", or for a league game "[Tuesday Cards · Autumn Combat] Whitehouse #12".
    pub fn title(&self) -> String {
        homed(self.home.as_deref(), format!("{} #{}", self.name, self.id))
    }
}

/// A game's title named where it is played, as mail and pages show it: `title` after "\[home\] "
/// for a league game (its `home`, [`crate::notices::outbox::home`]), alone otherwise.
pub fn homed(home: Option<&str>, title: String) -> String {
    match home {
        Some(home) => format!("[{home}] {title}"),
        None => title,
    }
}

/// The answer to one of the seat's replies, carried at the top of its next mail instead of
/// mailed on its own ([`crate::notices::outbox::fold`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answered {
    /// The line that was read (one line, cut short).
    pub line: String,
    /// What was played ("Bid: 300").
    pub text: String,
}

/// One player of a game, as others see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Display name.
    pub name: String,
    /// The seat's role where the game names its seats ("North", "Suffragist"); empty where
    /// seats are only numbered, so mail calls the player by name alone.
    pub seat: String,
}

/// Something to tell someone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// A seat's invitation, with its private link.
    Invite(Invite),
    /// A seat must act.
    Turn(Turn),
    /// The game ended.
    Over(Over),
    /// Organiser: mail to a seat could not be delivered.
    Undeliverable(Undeliverable),
    /// Organiser: a seat has not moved for a long time.
    Idle(Idle),
    /// The answer to a move sent by mail: done, or not played and why.
    Answer(Answer),
    /// News of the clock: a reminder, a timeout, a pause, an extension.
    Clock(ClockNews),
    /// A private link: the organiser's, at creation, or a seat's new one after a relink.
    Link(LinkNotice),
    /// A sign-in link for an address: about no game.
    SignIn(SignInNotice),
    /// Messages of a game's thread, for a seat that asked for each one by mail.
    Message(MessageNews),
    /// News of a lobby table, which is no game yet: an invitation, its expiry, its cancellation.
    Table(TableNotice),
    /// An invitation to a club: about no game.
    Club(ClubNotice),
    /// News of a club's league for an entrant: about no game.
    League(LeagueNotice),
    /// To the address a seat was taken from: who changed the seat's hands, and a link to tell
    /// the other players (or take the seat back).
    SeatChange(SeatChangeNotice),
}

impl Notice {
    /// The game the notice is about; none for mail about an account or a lobby table.
    pub fn game(&self) -> Option<&GameRef> {
        match self {
            Notice::Invite(n) => Some(&n.game),
            Notice::Turn(n) => Some(&n.game),
            Notice::Over(n) => Some(&n.game),
            Notice::Undeliverable(n) => Some(&n.game),
            Notice::Idle(n) => Some(&n.game),
            Notice::Answer(n) => Some(&n.game),
            Notice::Clock(n) => Some(&n.game),
            Notice::Link(n) => Some(&n.game),
            Notice::SignIn(_) => None,
            Notice::Message(n) => Some(&n.game),
            Notice::SeatChange(n) => Some(&n.game),
            Notice::Table(_) | Notice::Club(_) | Notice::League(_) => None,
        }
    }

    /// The game the notice is about, to fill in where it is played.
    pub fn game_mut(&mut self) -> Option<&mut GameRef> {
        match self {
            Notice::Invite(n) => Some(&mut n.game),
            Notice::Turn(n) => Some(&mut n.game),
            Notice::Over(n) => Some(&mut n.game),
            Notice::Undeliverable(n) => Some(&mut n.game),
            Notice::Idle(n) => Some(&mut n.game),
            Notice::Answer(n) => Some(&mut n.game),
            Notice::Clock(n) => Some(&mut n.game),
            Notice::Link(n) => Some(&mut n.game),
            Notice::SignIn(_) => None,
            Notice::Message(n) => Some(&mut n.game),
            Notice::SeatChange(n) => Some(&mut n.game),
            Notice::Table(_) | Notice::Club(_) | Notice::League(_) => None,
        }
    }

    /// The short name of the kind (`"turn"`), as stored in the outbox.
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::Invite(_) => "invite",
            Notice::Turn(_) => "turn",
            Notice::Over(_) => "over",
            Notice::Undeliverable(_) => "undeliverable",
            Notice::Idle(_) => "idle",
            Notice::Answer(_) => "answer",
            Notice::Clock(_) => "clock",
            Notice::Link(_) => "link",
            Notice::SignIn(_) => "signin",
            Notice::Message(_) => "message",
            Notice::Table(_) => "table",
            Notice::SeatChange(_) => "seat_change",
            Notice::Club(_) => "club",
            Notice::League(_) => "league",
        }
    }

    /// The thread's messages the notice carries, to drop those hidden before it is sent.
    pub fn messages_mut(&mut self) -> Option<&mut Vec<ThreadMessage>> {
        match self {
            Notice::Turn(n) => Some(&mut n.messages),
            Notice::Message(n) => Some(&mut n.messages),
            _ => None,
        }
    }
}

/// A message of a game's thread as mail carries it (plain text: the HTML part escapes it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadMessage {
    /// The message's id, to leave it out if it is hidden before the mail goes.
    pub id: i64,
    /// The author's display name when it was written.
    pub author: String,
    /// When it was written.
    pub at: DateTime<Utc>,
    /// The text.
    pub text: String,
}

/// Messages of a game's thread mailed as they are written (the reader chose that).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageNews {
    /// The game.
    pub game: GameRef,
    /// The reader's display name.
    pub name: String,
    /// The messages not yet mailed to the reader, oldest first.
    pub messages: Vec<ThreadMessage>,
    /// A private link for the reader's seat.
    pub token: String,
}

/// An invitation to a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invite {
    /// The game.
    pub game: GameRef,
    /// The recipient's seat.
    pub you: Player,
    /// Everybody else at the table.
    pub others: Vec<Player>,
    /// The time control, in words, if the game has one.
    pub time_control: Option<String>,
    /// What the seat must decide now, if it moves first (choice labels).
    pub choices: Vec<String>,
    /// The seat's private link token.
    pub token: String,
    /// The position and the replies, if the seat moves first.
    #[serde(default)]
    pub ask: Ask,
    /// SHA-256 of the game's secret seed, hex, fixed before the first card was dealt; the
    /// game-over mail reveals the seed so anyone can check it against this.
    #[serde(default)]
    pub commitment: String,
    /// Every seat in seating order, the recipient and its partners marked.
    #[serde(default)]
    pub table: Vec<Seated>,
    /// The options chosen, in words: (label, value).
    #[serde(default)]
    pub options: Vec<(String, String)>,
    /// The game's id (`"whitehouse"`), for the link to its rules page (not `kind`: that names
    /// the notice's own kind in the outbox's JSON).
    #[serde(default)]
    pub game_kind: String,
    /// How many moves the game had when the invitation was written (0: it starts now).
    #[serde(default)]
    pub at_move: i64,
}

/// A seat at the table, as an invitation lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seated {
    /// Display name.
    pub name: String,
    /// The seat's name in the game ("North", "Player 2").
    pub seat: String,
    /// The recipient's own seat.
    pub you: bool,
    /// A partner of the recipient (wins and loses with them).
    pub partner: bool,
}

/// A seat became active.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// The game.
    pub game: GameRef,
    /// The recipient's seat.
    pub you: Player,
    /// The public log lines since the seat's last move, names filled in.
    pub lines: Vec<String>,
    /// What the seat must decide (choice labels).
    pub choices: Vec<String>,
    /// When the seat's time runs out, if the game has a clock.
    pub deadline: Option<DateTime<Utc>>,
    /// The seat's private link token.
    pub token: String,
    /// The seat's position and the replies it may send.
    #[serde(default)]
    pub ask: Ask,
    /// The thread's messages written since the seat's previous mail, not its own.
    #[serde(default)]
    pub messages: Vec<ThreadMessage>,
    /// The answers to the seat's replies folded into this mail, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<Answered>,
}

/// What a mail asking a seat to move shows besides the log: the seat's position (from its
/// own view) and its choices as reply lines, with the secret of the Reply-To address.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ask {
    /// The position as the seat's view shows it, in the game's own words.
    #[serde(default)]
    pub board: Position,
    /// The choices as lines to reply with (empty: nothing to decide).
    pub replies: Vec<ReplyLine>,
    /// The standing orders the seat may give or cancel by reply, one line each:
    /// "commit-none: Commit no buttons in every Strategy phase (standing now)".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub standing: Vec<String>,
    /// True when the seat may take back its last move (a reply "undo" does it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undo: bool,
    /// The secret of the reply address, bound to the seat and this position; removed from
    /// the outbox once the message is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
}

/// The answer to a reply: what was played, or why nothing was, and the position now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The game.
    pub game: GameRef,
    /// The recipient's seat.
    pub you: Player,
    /// The line that was read (one line, cut short).
    pub line: String,
    /// True when the move was made.
    pub played: bool,
    /// True when the reply was held by the hourly bound, to be played later (`text` says
    /// when); the answer to it comes when it is played.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
    /// What was played ("Bid: 300"), or the reason nothing was.
    pub text: String,
    /// Public log lines since the move, names filled in.
    pub lines: Vec<String>,
    /// The position now, and the replies if the seat is (still) to move.
    pub ask: Ask,
    /// The seat's private link token.
    pub token: String,
    /// The answers to the seat's earlier replies folded into this one, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<Answered>,
}

/// The game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Over {
    /// The game.
    pub game: GameRef,
    /// The recipient's seat.
    pub you: Player,
    /// The result in one sentence.
    pub result: String,
    /// Who won and why, in the game's own words (see `Rules::ending`).
    #[serde(default)]
    pub verdict: String,
    /// The final tally in the game's own words: ("Ratified", "36 states"), ("Ann", "7 points").
    #[serde(default)]
    pub tally: Vec<(String, String)>,
    /// Winners' names.
    pub winners: Vec<String>,
    /// The last public log lines.
    pub lines: Vec<String>,
    /// The revealed seed, hex.
    pub seed: String,
    /// The commitment published at creation (SHA-256 of the seed), hex.
    pub commitment: String,
    /// The organiser cancelled the game: `result` says why, and there is no tally.
    #[serde(default)]
    pub cancelled: bool,
    /// The answers to the seat's replies folded into this mail (its last move), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<Answered>,
    /// The game's review ([`crate::notices::review`]): `None` when the game gets none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<MailReview>,
}

/// A game's review as its game-over mail tells it to one seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailReview {
    /// Worked out before the mail went: `lines` are the seat's; otherwise the mail says the
    /// review will be on the replay page.
    pub ready: bool,
    /// The seat's turning points in short ([`crate::review::mail_lines`]).
    #[serde(default)]
    pub lines: Vec<String>,
}

/// Mail to a seat could not be delivered (to the organiser).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undeliverable {
    /// The game.
    pub game: GameRef,
    /// The seat the mail was for.
    pub seat: Player,
    /// Its address.
    pub address: String,
    /// What the mail server said.
    pub error: String,
}

/// A seat has not moved for a long time (to the organiser).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Idle {
    /// The game.
    pub game: GameRef,
    /// The seat awaited.
    pub seat: Player,
    /// Since when.
    pub since: DateTime<Utc>,
}

/// Several of one player's turns, sent together once a day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// The recipient's name.
    pub name: String,
    /// One entry per game, oldest first.
    pub turns: Vec<Turn>,
}

/// News of the correspondence clock for one reader: a reminder that time runs out, a move the
/// clock played, a forfeit, the organiser's pause or extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockNews {
    /// The game.
    pub game: GameRef,
    /// The subject line, after the game's title ("1 day left to move").
    pub headline: String,
    /// What happened, a sentence a line.
    pub lines: Vec<String>,
    /// The reader's own deadline, if one runs.
    pub deadline: Option<DateTime<Utc>>,
    /// A private link for the reader's seat (none for the organiser).
    pub token: Option<String>,
}

/// A private link sent on its own: the organiser's page at creation, or a seat's new link
/// after the organiser replaced the old one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkNotice {
    /// The game.
    pub game: GameRef,
    /// The subject after the game's title.
    pub headline: String,
    /// The sentences before the link.
    pub lines: Vec<String>,
    /// True for the organiser's page, false for a seat's.
    pub manage: bool,
    /// The raw token (removed from the outbox once sent).
    pub token: String,
}

/// The mail to the address a seat was taken from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatChangeNotice {
    /// The game.
    pub game: GameRef,
    /// The subject after the game's title.
    pub headline: String,
    /// The sentences before the link.
    pub lines: Vec<String>,
    /// The raw token of the change's link (removed from the outbox once sent).
    pub token: String,
}

/// A sign-in link, mailed to the address it signs in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInNotice {
    /// The address (the recipient).
    pub address: String,
    /// How many minutes the link is valid.
    pub minutes: i64,
    /// The raw token (removed from the outbox once sent).
    pub token: String,
}

/// News of a lobby table for one person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableNotice {
    /// The table's id.
    pub table_id: i64,
    /// The name of its game.
    pub game_name: String,
    /// The subject after "`<game>` table #`<id>`".
    pub headline: String,
    /// The sentences before the link.
    pub lines: Vec<String>,
    /// The raw token of an invitation link (removed from the outbox once sent); without
    /// one the link is the table's page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl TableNotice {
    /// "Whitehouse table #3".
    pub fn title(&self) -> String {
        format!("{} table #{}", self.game_name, self.table_id)
    }
}

/// News of a league, mailed to an entrant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeagueNotice {
    /// The club's id.
    pub club_id: i64,
    /// The league's id.
    pub league_id: i64,
    /// "Spring league (Nationhood) of the Tuesday club".
    pub title: String,
    /// The subject after the title.
    pub headline: String,
    /// The sentences before the link to the league's page.
    pub lines: Vec<String>,
}

/// An invitation to a club, mailed to the address invited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClubNotice {
    /// The club's id.
    pub club_id: i64,
    /// Its name.
    pub club_name: String,
    /// Who invites (an admin's name).
    pub by: String,
    /// How many days the link works.
    pub days: i32,
    /// The raw token of the invitation link (removed from the outbox once sent).
    pub token: String,
}
