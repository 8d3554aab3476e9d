//! Notices rendered into a subject, a plain-text part that reads well on its own, and an
//! HTML part (askama templates in `templates/mail/`; the HTML escapes every name).

use crate::engine::present::Position;
use crate::notices::notice::{Answered, Ask, Digest, Notice, Player, Seated, ThreadMessage};
use crate::notices::reply::ReplyLine;
use crate::notices::reply::address::address;
use askama::Template;

/// What links and reply addresses in mail are made of.
#[derive(Debug, Clone)]
pub struct MailContext {
    /// The public base URL, without a trailing slash.
    pub base_url: String,
    /// The domain of reply addresses (`play+<secret>@domain`); `None`: moves by reply are off
    /// and mail carries no Reply-To.
    pub reply_domain: Option<String>,
}

impl MailContext {
    /// A seat's play page for a link token.
    pub fn play_link(&self, token: &str) -> String {
        format!("{}/play/{token}", self.base_url)
    }

    /// The organiser's page for an organiser token.
    pub fn manage_link(&self, token: &str) -> String {
        format!("{}/manage/{token}", self.base_url)
    }

    /// The page that explains a game's rules (`kind` is the game's id).
    pub fn rules_link(&self, kind: &str) -> String {
        format!("{}/rules/{kind}", self.base_url)
    }

    /// The page a sign-in link opens (it asks to confirm: opening it signs nobody in).
    pub fn sign_in_link(&self, token: &str) -> String {
        format!("{}/signin/{token}", self.base_url)
    }

    /// The one-click unsubscribe endpoint for a link token (POST; GET shows the choices).
    pub fn unsubscribe_link(&self, token: &str) -> String {
        format!("{}/mail/unsubscribe/{token}", self.base_url)
    }

    /// The Reply-To address of a mail asking a seat to move, when replies are on.
    pub fn reply_to(&self, ask: &Ask) -> Option<String> {
        match (&ask.reply, &self.reply_domain) {
            (Some(secret), Some(domain)) => Some(address(secret, domain)),
            _ => None,
        }
    }
}

/// A message's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// Subject line (one line: control characters are removed when the message is built).
    pub subject: String,
    /// The text/plain part.
    pub text: String,
    /// The text/html part.
    pub html: String,
    /// The one-click unsubscribe URL, for mail to a seat.
    pub unsubscribe: Option<String>,
    /// The Reply-To address, for mail a seat may answer with a move.
    pub reply_to: Option<String>,
}

/// Declares a text template and an HTML template over the same fields.
macro_rules! mail_templates {
    ($text:ident, $html:ident, $text_path:literal, $html_path:literal, { $($field:ident : $ty:ty),* $(,)? }) => {
        #[derive(Template)]
        #[template(path = $text_path)]
        struct $text {
            $($field: $ty,)*
        }

        #[derive(Template)]
        #[template(path = $html_path)]
        struct $html {
            $($field: $ty,)*
        }

        impl $text {
            fn both(self) -> Result<(String, String), askama::Error> {
                let html = $html { $($field: self.$field.clone(),)* }.render()?;
                Ok((self.render()?, html))
            }
        }
    };
}

mail_templates!(InviteText, InviteHtml, "mail/invite.txt", "mail/invite.html", {
    title: String, you: Player, others: Vec<Player>, table: Vec<Seated>,
    options: Vec<(String, String)>, rules: Option<String>, at_move: i64,
    time_control: Option<String>,
    choices: Vec<String>, link: String, commitment: String, unsubscribe: Option<String>,
    board: Position, replies: Vec<ReplyLine>, standing: Vec<String>, undo: bool, replyable: bool,
});

/// A message of the thread, as mail shows it.
#[derive(Debug, Clone)]
struct MailMessage {
    author: String,
    at: String,
    text: String,
}

fn mail_messages(messages: &[ThreadMessage]) -> Vec<MailMessage> {
    messages
        .iter()
        .map(|m| MailMessage {
            author: m.author.clone(),
            at: m.at.format("%a %-d %b, %H:%M UTC").to_string(),
            text: m.text.clone(),
        })
        .collect()
}

mail_templates!(MessageText, MessageHtml, "mail/message.txt", "mail/message.html", {
    title: String, name: String, messages: Vec<MailMessage>, link: String,
    unsubscribe: Option<String>,
});

mail_templates!(TurnText, TurnHtml, "mail/turn.txt", "mail/turn.html", {
    answered: Vec<Answered>, title: String, you: Player, lines: Vec<String>, messages: Vec<MailMessage>, choices: Vec<String>,
    deadline: Option<String>, link: String, unsubscribe: Option<String>,
    board: Position, replies: Vec<ReplyLine>, standing: Vec<String>, undo: bool, replyable: bool,
});

mail_templates!(AnswerText, AnswerHtml, "mail/answer.txt", "mail/answer.html", {
    answered: Vec<Answered>, title: String, you: Player, played: bool, held: bool, text: String, line: String,
    lines: Vec<String>, link: String, unsubscribe: Option<String>,
    board: Position, replies: Vec<ReplyLine>, standing: Vec<String>, undo: bool, replyable: bool,
});

mail_templates!(OverText, OverHtml, "mail/over.txt", "mail/over.html", {
    answered: Vec<Answered>, title: String, you: Player, result: String, winners: Vec<String>, verdict: String,
    tally: Vec<(String, String)>, lines: Vec<String>, seed: String, commitment: String,
    replay: String, unsubscribe: Option<String>, cancelled: bool,
    review: Option<crate::notices::notice::MailReview>,
});

mail_templates!(UndeliverableText, UndeliverableHtml, "mail/undeliverable.txt", "mail/undeliverable.html", {
    title: String, seat: Player, address: String, error: String, unsubscribe: Option<String>,
});

mail_templates!(IdleText, IdleHtml, "mail/idle.txt", "mail/idle.html", {
    title: String, seat: Player, since: String, unsubscribe: Option<String>,
});

mail_templates!(SignInText, SignInHtml, "mail/signin.txt", "mail/signin.html", {
    title: String, address: String, minutes: i64, link: String, unsubscribe: Option<String>,
});

mail_templates!(ClockText, ClockHtml, "mail/clock.txt", "mail/clock.html", {
    title: String, headline: String, lines: Vec<String>, deadline: Option<String>,
    link: Option<String>, unsubscribe: Option<String>,
});

mail_templates!(TableText, TableHtml, "mail/table.txt", "mail/table.html", {
    title: String, lines: Vec<String>, link: String, invitation: bool,
    unsubscribe: Option<String>,
});

mail_templates!(SeatChangeText, SeatChangeHtml, "mail/seat_change.txt", "mail/seat_change.html", {
    title: String, lines: Vec<String>, link: String, unsubscribe: Option<String>,
});

mail_templates!(LeagueText, LeagueHtml, "mail/league.txt", "mail/league.html", {
    title: String, lines: Vec<String>, link: String, unsubscribe: Option<String>,
});

mail_templates!(ClubText, ClubHtml, "mail/club.txt", "mail/club.html", {
    title: String, club: String, by: String, days: i32, link: String,
    unsubscribe: Option<String>,
});

/// One game in a digest.
#[derive(Debug, Clone)]
struct DigestTurn {
    title: String,
    seat: String,
    lines: Vec<String>,
    messages: Vec<MailMessage>,
    choices: Vec<String>,
    deadline: Option<String>,
    link: String,
}

mail_templates!(DigestText, DigestHtml, "mail/digest.txt", "mail/digest.html", {
    name: String, turns: Vec<DigestTurn>, unsubscribe: Option<String>,
});

fn when(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.format("%A %-d %B %Y, %H:%M UTC").to_string()
}

/// Renders a notice.
pub fn render(notice: &Notice, ctx: &MailContext) -> Result<Rendered, askama::Error> {
    let title = match (notice.game(), notice) {
        (Some(game), _) => game.title(),
        (None, Notice::Table(n)) => n.title(),
        (None, Notice::Club(n)) => n.club_name.clone(),
        (None, Notice::League(n)) => n.title.clone(),
        (None, _) => "postplay".to_string(),
    };
    let reply_to = match notice {
        Notice::Invite(n) => ctx.reply_to(&n.ask),
        Notice::Turn(n) => ctx.reply_to(&n.ask),
        Notice::Answer(n) => ctx.reply_to(&n.ask),
        _ => None,
    };
    let replyable = reply_to.is_some();
    let (subject, unsubscribe, (text, html)) = match notice {
        Notice::Invite(n) => {
            let unsubscribe = Some(ctx.unsubscribe_link(&n.token));
            let parts = InviteText {
                title: title.clone(),
                you: n.you.clone(),
                others: n.others.clone(),
                table: n.table.clone(),
                options: n.options.clone(),
                rules: (!n.game_kind.is_empty()).then(|| ctx.rules_link(&n.game_kind)),
                at_move: n.at_move,
                time_control: n.time_control.clone(),
                choices: n.choices.clone(),
                link: ctx.play_link(&n.token),
                commitment: n.commitment.clone(),
                unsubscribe: unsubscribe.clone(),
                board: n.ask.board.clone(),
                standing: n.ask.standing.clone(),
                undo: n.ask.undo,
                replies: n.ask.replies.clone(),
                replyable,
            }
            .both()?;
            (format!("{title}: you are invited"), unsubscribe, parts)
        }
        Notice::Turn(n) => {
            let unsubscribe = Some(ctx.unsubscribe_link(&n.token));
            let parts = TurnText {
                answered: n.answered.clone(),
                title: title.clone(),
                you: n.you.clone(),
                lines: n.lines.clone(),
                messages: mail_messages(&n.messages),
                choices: n.choices.clone(),
                deadline: n.deadline.as_ref().map(when),
                link: ctx.play_link(&n.token),
                unsubscribe: unsubscribe.clone(),
                board: n.ask.board.clone(),
                standing: n.ask.standing.clone(),
                undo: n.ask.undo,
                replies: n.ask.replies.clone(),
                replyable,
            }
            .both()?;
            (format!("{title}: your turn"), unsubscribe, parts)
        }
        Notice::Answer(n) => {
            let unsubscribe = Some(ctx.unsubscribe_link(&n.token));
            let parts = AnswerText {
                answered: n.answered.clone(),
                title: title.clone(),
                you: n.you.clone(),
                played: n.played,
                held: n.held,
                text: n.text.clone(),
                line: n.line.clone(),
                lines: n.lines.clone(),
                link: ctx.play_link(&n.token),
                unsubscribe: unsubscribe.clone(),
                board: n.ask.board.clone(),
                standing: n.ask.standing.clone(),
                undo: n.ask.undo,
                replies: n.ask.replies.clone(),
                replyable,
            }
            .both()?;
            let verdict = match (n.played, n.held) {
                (true, _) => "done",
                (false, true) => "to be played later",
                (false, false) => "not played",
            };
            (format!("Re: {title}: {verdict}"), unsubscribe, parts)
        }
        Notice::Over(n) => {
            let parts = OverText {
                answered: n.answered.clone(),
                title: title.clone(),
                you: n.you.clone(),
                result: n.result.clone(),
                winners: n.winners.clone(),
                verdict: n.verdict.clone(),
                tally: n.tally.clone(),
                lines: n.lines.clone(),
                seed: n.seed.clone(),
                commitment: n.commitment.clone(),
                replay: format!("{}/games/{}/replay", ctx.base_url, n.game.id),
                unsubscribe: None,
                cancelled: n.cancelled,
                review: n.review.clone(),
            }
            .both()?;
            let what = if n.cancelled {
                "cancelled"
            } else {
                "game over"
            };
            (format!("{title}: {what}"), None, parts)
        }
        Notice::Undeliverable(n) => {
            let parts = UndeliverableText {
                title: title.clone(),
                seat: n.seat.clone(),
                address: n.address.clone(),
                error: n.error.clone(),
                unsubscribe: None,
            }
            .both()?;
            (
                format!("{title}: mail to {} is undeliverable", n.seat.name),
                None,
                parts,
            )
        }
        Notice::Clock(n) => {
            let unsubscribe = n.token.as_ref().map(|t| ctx.unsubscribe_link(t));
            let parts = ClockText {
                title: title.clone(),
                headline: n.headline.clone(),
                lines: n.lines.clone(),
                deadline: n.deadline.as_ref().map(when),
                link: n.token.as_ref().map(|t| ctx.play_link(t)),
                unsubscribe: unsubscribe.clone(),
            }
            .both()?;
            (format!("{title}: {}", n.headline), unsubscribe, parts)
        }
        Notice::Link(n) => {
            let (link, unsubscribe) = if n.manage {
                (ctx.manage_link(&n.token), None)
            } else {
                (
                    ctx.play_link(&n.token),
                    Some(ctx.unsubscribe_link(&n.token)),
                )
            };
            let parts = ClockText {
                title: title.clone(),
                headline: n.headline.clone(),
                lines: n.lines.clone(),
                deadline: None,
                link: Some(link),
                unsubscribe: unsubscribe.clone(),
            }
            .both()?;
            (format!("{title}: {}", n.headline), unsubscribe, parts)
        }
        Notice::SignIn(n) => {
            let parts = SignInText {
                title: title.clone(),
                address: n.address.clone(),
                minutes: n.minutes,
                link: ctx.sign_in_link(&n.token),
                unsubscribe: None,
            }
            .both()?;
            ("Your sign-in link for postplay".to_string(), None, parts)
        }
        Notice::Message(n) => {
            let unsubscribe = Some(ctx.unsubscribe_link(&n.token));
            let parts = MessageText {
                title: title.clone(),
                name: n.name.clone(),
                messages: mail_messages(&n.messages),
                link: ctx.play_link(&n.token),
                unsubscribe: unsubscribe.clone(),
            }
            .both()?;
            let what = if n.messages.len() == 1 {
                "a new message"
            } else {
                "new messages"
            };
            (format!("{title}: {what}"), unsubscribe, parts)
        }
        Notice::Table(n) => {
            let link = match &n.token {
                Some(token) => format!("{}/lobby/invite/{token}", ctx.base_url),
                None => format!("{}/lobby/{}", ctx.base_url, n.table_id),
            };
            let parts = TableText {
                title: title.clone(),
                lines: n.lines.clone(),
                link,
                invitation: n.token.is_some(),
                unsubscribe: None,
            }
            .both()?;
            (format!("{title}: {}", n.headline), None, parts)
        }
        Notice::SeatChange(n) => {
            let parts = SeatChangeText {
                title: title.clone(),
                lines: n.lines.clone(),
                link: format!("{}/seat-change/{}", ctx.base_url, n.token),
                unsubscribe: None,
            }
            .both()?;
            (format!("{title}: {}", n.headline), None, parts)
        }
        Notice::League(n) => {
            let parts = LeagueText {
                title: title.clone(),
                lines: n.lines.clone(),
                link: format!(
                    "{}/clubs/{}/leagues/{}",
                    ctx.base_url, n.club_id, n.league_id
                ),
                unsubscribe: None,
            }
            .both()?;
            (format!("{title}: {}", n.headline), None, parts)
        }
        Notice::Club(n) => {
            let parts = ClubText {
                title: title.clone(),
                club: n.club_name.clone(),
                by: n.by.clone(),
                days: n.days,
                link: format!("{}/clubs/invite/{}", ctx.base_url, n.token),
                unsubscribe: None,
            }
            .both()?;
            (format!("{} invites you to {title}", n.by), None, parts)
        }
        Notice::Idle(n) => {
            let parts = IdleText {
                title: title.clone(),
                seat: n.seat.clone(),
                since: when(&n.since),
                unsubscribe: None,
            }
            .both()?;
            (
                format!("{title}: {} has not moved", n.seat.name),
                None,
                parts,
            )
        }
    };
    Ok(Rendered {
        subject,
        text,
        html,
        unsubscribe,
        reply_to,
    })
}

/// Renders a daily digest; `unsubscribe_token` is one of the recipient's link tokens.
pub fn render_digest(
    digest: &Digest,
    unsubscribe_token: &str,
    ctx: &MailContext,
) -> Result<Rendered, askama::Error> {
    let unsubscribe = Some(ctx.unsubscribe_link(unsubscribe_token));
    let turns = digest
        .turns
        .iter()
        .map(|t| DigestTurn {
            title: t.game.title(),
            seat: t.you.seat.clone(),
            lines: t.lines.clone(),
            messages: mail_messages(&t.messages),
            choices: t.choices.clone(),
            deadline: t.deadline.as_ref().map(when),
            link: ctx.play_link(&t.token),
        })
        .collect::<Vec<_>>();
    let count = turns.len();
    let (text, html) = DigestText {
        name: digest.name.clone(),
        turns,
        unsubscribe: unsubscribe.clone(),
    }
    .both()?;
    Ok(Rendered {
        subject: format!(
            "Your turn in {count} game{}",
            if count == 1 { "" } else { "s" }
        ),
        text,
        html,
        unsubscribe,
        reply_to: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notices::notice::{GameRef, Turn};

    fn ctx() -> MailContext {
        MailContext {
            base_url: "https://pp.example".into(),
            reply_domain: Some("pp.example".into()),
        }
    }

    fn turn() -> Turn {
        Turn {
            answered: Vec::new(),
            game: GameRef {
                home: None,
                id: 7,
                name: "Whitehouse".into(),
            },
            you: Player {
                name: "Ann <b>".into(),
                seat: "North".into(),
            },
            lines: vec!["Bo bids 270".into(), "Cy passes".into()],
            choices: vec!["Bid 280".into(), "Pass".into()],
            deadline: Some("2030-01-02T03:04:00Z".parse().unwrap()),
            token: "tok".into(),
            ask: Ask::default(),
            messages: Vec::new(),
        }
    }

    #[test]
    fn your_turn_text_reads_on_its_own() {
        let r = render(&Notice::Turn(turn()), &ctx()).unwrap();
        assert_eq!(r.subject, "Whitehouse #7: your turn");
        let expected = "Hello Ann <b>,\n\nit is your turn in Whitehouse #7 (North).\n\n\
            Since your last move:\n  Bo bids 270\n  Cy passes\n\nYou must decide:\n- Bid 280\n- Pass\n\n\
            Your deadline: Wednesday 2 January 2030, 03:04 UTC\n\nOpen your seat to move:\n\
            https://pp.example/play/tok\n\nStop or change these emails: https://pp.example/mail/unsubscribe/tok\n";
        assert_eq!(r.text, expected);
        assert!(r.html.contains("Ann &#60;b&#62;") || r.html.contains("Ann &lt;b&gt;"));
        assert!(!r.html.contains("Ann <b>"));
        assert_eq!(
            r.unsubscribe.as_deref(),
            Some("https://pp.example/mail/unsubscribe/tok")
        );
    }

    #[test]
    fn a_turn_with_replies_shows_the_position_and_the_lines_to_reply_with() {
        let mut n = turn();
        n.ask = Ask {
            board: crate::engine::present::labelled(&[(
                "Your hand".into(),
                "Q♥ Tennessee (11)".into(),
            )]),
            replies: vec![
                ReplyLine {
                    number: 1,
                    text: "Pass".into(),
                    options: Vec::new(),
                },
                ReplyLine {
                    number: 2,
                    text: "Play a card <card>".into(),
                    options: vec!["TN  Q♥ Tennessee (11)".into()],
                },
            ],
            reply: Some("0123456789abcdef0123456789abcdef01234567".into()),
            standing: Vec::new(),
            undo: false,
        };
        let r = render(&Notice::Turn(n), &ctx()).unwrap();
        assert_eq!(
            r.reply_to.as_deref(),
            Some("play+0123456789abcdef0123456789abcdef01234567@pp.example")
        );
        let expected = "Since your last move:\n  Bo bids 270\n  Cy passes\n\n\
            Your position:\nYour hand: Q♥ Tennessee (11)\n\n\
            To move, reply to this mail with one line: the number or the words of a choice.\n\
            \x20 1  Pass\n  2  Play a card <card>\n       TN  Q♥ Tennessee (11)\n\n\
            Your deadline";
        assert!(r.text.contains(expected), "{}", r.text);
        assert!(!r.text.contains("You must decide"), "{}", r.text);
        assert!(r.html.contains("Q♥ Tennessee (11)"));
        let off = MailContext {
            reply_domain: None,
            ..ctx()
        };
        let mut n = turn();
        n.ask.reply = Some("0123456789abcdef0123456789abcdef01234567".into());
        assert_eq!(render(&Notice::Turn(n), &off).unwrap().reply_to, None);
    }

    #[test]
    fn an_invitation_survives_the_outbox_and_lists_the_table_the_options_and_the_rules() {
        let seated = |name: &str, seat: &str, you: bool, partner: bool| Seated {
            name: name.into(),
            seat: seat.into(),
            you,
            partner,
        };
        let invite = Notice::Invite(crate::notices::notice::Invite {
            game: GameRef {
                home: None,
                id: 7,
                name: "Whitehouse".into(),
            },
            you: Player {
                name: "Ann".into(),
                seat: "North".into(),
            },
            others: Vec::new(),
            table: vec![
                seated("Ann", "North", true, false),
                seated("Bo", "East", false, false),
                seated("Cy", "South", false, true),
            ],
            options: vec![("Points to win".into(), "7 points".into())],
            game_kind: "whitehouse".into(),
            at_move: 0,
            time_control: None,
            choices: Vec::new(),
            token: "tok".into(),
            ask: Ask::default(),
            commitment: "c0".into(),
        });
        let stored = serde_json::to_value(&invite).unwrap();
        assert_eq!(stored["kind"], "invite");
        assert_eq!(serde_json::from_value::<Notice>(stored).unwrap(), invite);
        let r = render(&invite, &ctx()).unwrap();
        let expected = "At the table, in seating order:\n- North: you\n- East: Bo\n\
            - South: Cy, your partner\n\nOptions:\n- Points to win: 7 points\n\n\
            How to play: https://pp.example/rules/whitehouse\n";
        assert!(r.text.contains(expected), "{}", r.text);
    }

    #[test]
    fn digest_lists_every_game() {
        let mut second = turn();
        second.game.id = 9;
        second.deadline = None;
        second.token = "tok9".into();
        let digest = Digest {
            name: "Ann".into(),
            turns: vec![turn(), second],
        };
        let r = render_digest(&digest, "tok9", &ctx()).unwrap();
        assert_eq!(r.subject, "Your turn in 2 games");
        assert!(r.text.contains("== Whitehouse #7 (North) =="), "{}", r.text);
        assert!(r.text.contains("Open: https://pp.example/play/tok9"));
        assert!(r.text.contains("Open: https://pp.example/play/tok\n"));
    }
}

/// Every kind of mail rendered and its HTML read by an HTML5 parser: valid documents, a
/// title of text only, nothing but what a mail client shows without scripts.
#[cfg(test)]
mod html_validity {
    use super::*;
    use crate::engine::present::check::document_problems;
    use crate::engine::{Seed, Viewer};
    use crate::games::find_game;
    use crate::notices::notice::*;
    use serde_json::json;

    fn ctx() -> MailContext {
        MailContext {
            base_url: "https://pp.example".into(),
            reply_domain: Some("pp.example".into()),
        }
    }

    /// A real position and its replies, from the middle of a game of `kind`.
    fn ask(kind: &str, seats: usize) -> Ask {
        let game = find_game(kind).unwrap();
        let mut live = game
            .new_match(&game.default_options(), seats, Seed::from_number(5))
            .unwrap();
        let mut rng = crate::engine::bot::bot_rng(&Seed::from_number(5));
        let mut log = crate::engine::Log::silent();
        for _ in 0..25 {
            let seat = live.active()[0];
            let command =
                crate::engine::bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
            live.apply_json(seat, &command, &mut log).unwrap();
        }
        let seat = live.active()[0];
        let names: Vec<String> = ["Ann <b>", "Bo & Co", "Cy", "Di"][..seats]
            .iter()
            .map(|n| n.to_string())
            .collect();
        let choices = live.choices(seat);
        Ask {
            board: live.position(Viewer::Seat(seat), &names),
            replies: crate::notices::reply::reply_lines(&choices),
            standing: live
                .standing_orders()
                .iter()
                .map(|o| format!("{}: {}", o.id, o.label))
                .collect(),
            undo: live.can_undo(seat),
            reply: Some("0123456789abcdef0123456789abcdef01234567".into()),
        }
    }

    fn notices() -> Vec<(&'static str, Notice)> {
        let game = json!({"id": 7, "name": "Whitehouse"});
        let you = json!({"name": "Ann <b>", "seat": "North"});
        let at = "2030-01-02T03:04:00Z";
        let message = json!({"id": 1, "author": "Bo", "at": at, "text": "Good <luck> & fun"});
        let mut out: Vec<(&'static str, Notice)> = Vec::new();
        let mut push = |name: &'static str, value: serde_json::Value| {
            out.push((name, serde_json::from_value(value).unwrap()));
        };
        for (kind, seats) in [
            ("whitehouse", 4),
            ("statehood", 4),
            ("electoral-combat", 2),
            ("nationhood", 2),
            ("votes-for-women", 2),
        ] {
            let ask = serde_json::to_value(ask(kind, seats)).unwrap();
            push(
                "turn",
                json!({"kind": "turn", "game": game, "you": you, "lines": ["Bo bids 270"],
                "choices": ["Pass"], "deadline": at, "token": "tok", "ask": ask,
                "messages": [message]}),
            );
            push(
                "answer",
                json!({"kind": "answer", "game": game, "you": you, "line": "2 <QH>",
                "played": false, "text": "no such choice", "lines": ["Cy passes"], "ask": ask,
                "token": "tok"}),
            );
            push(
                "invite",
                json!({"kind": "invite", "game": game, "you": you, "others": [you],
                "time_control": "3 days a move", "choices": ["Pass"], "token": "tok", "ask": ask,
                "commitment": "ab12", "table": [{"name": "Bo", "seat": "East", "you": false,
                "partner": false}], "options": [["Target", "7"]], "game_kind": kind,
                "at_move": 3}),
            );
        }
        push(
            "over",
            json!({"kind": "over", "game": game, "you": you, "result": "North & South win",
            "verdict": "Ann <b> wins. North & South win.", "tally": [["Ann <b>", "7 points"]],
            "winners": ["Ann <b>"], "lines": ["The end"], "seed": "00",
            "commitment": "ab", "cancelled": false}),
        );
        push(
            "undeliverable",
            json!({"kind": "undeliverable", "game": game, "seat": you,
            "address": "b…@e…", "error": "550 <no>"}),
        );
        push(
            "idle",
            json!({"kind": "idle", "game": game, "seat": you, "since": at}),
        );
        push(
            "clock",
            json!({"kind": "clock", "game": game, "headline": "time ran out",
            "lines": ["The clock played"], "deadline": at, "token": "tok"}),
        );
        push(
            "link",
            json!({"kind": "link", "game": game, "headline": "a new link", "lines": ["x"],
            "manage": false, "token": "tok"}),
        );
        push(
            "sign_in",
            json!({"kind": "sign_in", "address": "a@b.c", "minutes": 15, "token": "t"}),
        );
        push(
            "message",
            json!({"kind": "message", "game": game, "name": "Ann", "messages": [message],
            "token": "tok"}),
        );
        push(
            "table",
            json!({"kind": "table", "table_id": 3, "game_name": "Statehood",
            "headline": "you are invited", "lines": ["Bo invites you"], "token": "t"}),
        );
        out
    }

    #[test]
    fn every_mail_is_a_valid_html_document_with_a_title_of_text_only() {
        let ctx = ctx();
        let all = notices();
        assert!(all.len() >= 20);
        for (name, notice) in &all {
            let rendered = render(notice, &ctx).unwrap_or_else(|e| panic!("{name}: {e}"));
            let problems = document_problems(&rendered.html);
            assert!(
                problems.is_empty(),
                "{name}: {problems:?}\n{}",
                rendered.html
            );
            let title = rendered
                .html
                .split("<title>")
                .nth(1)
                .and_then(|t| t.split("</title>").next())
                .unwrap_or_default();
            assert!(
                !title.is_empty() && !title.contains('<'),
                "{name}: title {title:?}"
            );
            assert!(!rendered.html.contains("<script"), "{name}");
        }
        let digest = Digest {
            name: "Ann".into(),
            turns: Vec::new(),
        };
        let rendered = render_digest(&digest, "tok", &ctx).unwrap();
        assert!(document_problems(&rendered.html).is_empty());
    }
}
