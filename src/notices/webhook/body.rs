//! What a webhook is sent: one line of text for a chat (Discord's `content`, Slack's `text`),
//! or our own JSON signed with HMAC-SHA256 (`X-Postplay-Signature: sha256=<hex>`). None of it
//! carries a seat link: the only link is to the account's games behind sign-in.

use crate::domain::WebhookKind;
use crate::notices::webhook::{HookEvent, HookNotice};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::json;
use sha2::Sha256;

/// Discord refuses a `content` longer than this.
const DISCORD_MAX: usize = 2000;

/// The header that carries a generic webhook's signature.
pub const SIGNATURE_HEADER: &str = "X-Postplay-Signature";

/// A request body and the headers that go with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRequest {
    /// The JSON body.
    pub body: Vec<u8>,
    /// Headers besides `Content-Type: application/json`.
    pub headers: Vec<(&'static str, String)>,
}

/// Where a notice points: the account's games, behind sign-in.
pub fn games_url(base_url: &str) -> String {
    format!("{}/me", base_url.trim_end_matches('/'))
}

/// The notice in one sentence or two, plain text (no link).
pub fn sentence(notice: &HookNotice) -> String {
    let title = notice.game.title();
    let who = if notice.you.seat.is_empty() {
        notice.you.name.clone()
    } else {
        format!("{} ({})", notice.you.name, notice.you.seat)
    };
    match notice.event {
        HookEvent::Turn => {
            let mut text = format!("{who}: your turn in {title}.");
            if let Some(due) = notice.deadline {
                text.push_str(&format!(
                    " Deadline: {}.",
                    due.format("%a %-d %b %Y, %H:%M UTC")
                ));
            }
            text
        }
        HookEvent::Over if notice.cancelled => {
            format!("{title} was cancelled by its organiser ({who} played in it).")
        }
        HookEvent::Over => {
            let mut text = format!("{title} is over");
            if let Some(result) = &notice.result {
                text.push_str(&format!(": {result}"));
            }
            text.push('.');
            if !notice.winners.is_empty() {
                text.push_str(&format!(" Won by {}.", notice.winners.join(" and ")));
            }
            text.push_str(&format!(" ({who} played in it.)"));
            text
        }
    }
}

/// Slack's mrkdwn reserves `&`, `<` and `>`.
fn slack_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// HMAC-SHA256 of `body` under `secret`, as `sha256=<hex>`.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes a key of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The request for one delivery (`delivery` is the outbox row's id, the same on every retry).
pub fn request(
    kind: WebhookKind,
    secret: Option<&str>,
    notice: &HookNotice,
    delivery: i64,
    base_url: &str,
) -> HookRequest {
    let url = games_url(base_url);
    let text = sentence(notice);
    let (value, signed) = match kind {
        WebhookKind::Discord => {
            let mut content = format!("{text} Open it from your games: {url}");
            if content.chars().count() > DISCORD_MAX {
                content = content.chars().take(DISCORD_MAX).collect();
            }
            // No @everyone, role or user pings, whatever a player's name says.
            let body = json!({
                "content": content,
                "username": "postplay",
                "allowed_mentions": { "parse": [] },
            });
            (body, false)
        }
        WebhookKind::Slack => (
            json!({ "text": format!("{} <{url}|Open it from your games>", slack_escape(&text)) }),
            false,
        ),
        WebhookKind::Generic => (
            json!({
                "event": notice.event.as_str(),
                "delivery": delivery,
                "at": notice.at,
                "game": {
                    "id": notice.game.id,
                    "name": notice.game.name,
                    "title": notice.game.title(),
                },
                "player": { "name": notice.you.name, "seat": notice.you.seat },
                "deadline": notice.deadline,
                "result": notice.result,
                "winners": notice.winners,
                "cancelled": notice.cancelled,
                "text": text,
                "url": url,
            }),
            true,
        ),
    };
    let body = serde_json::to_vec(&value).expect("JSON values serialize");
    let mut headers = vec![
        ("X-Postplay-Event", notice.event.as_str().to_string()),
        ("X-Postplay-Delivery", delivery.to_string()),
    ];
    if let (true, Some(secret)) = (signed, secret) {
        headers.push((SIGNATURE_HEADER, signature(secret, &body)));
    }
    HookRequest { body, headers }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notices::notice::{GameRef, Player};

    fn notice(event: HookEvent) -> HookNotice {
        HookNotice {
            event,
            game: GameRef {
                home: None,
                id: 12,
                name: "Whitehouse".into(),
            },
            you: Player {
                name: "Ann <@everyone>".into(),
                seat: "North".into(),
            },
            deadline: None,
            result: Some("North–South make 8 tricks".into()),
            winners: vec!["Ann".into(), "Cy".into()],
            cancelled: false,
            at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        }
    }

    #[test]
    fn the_signature_is_hmac_sha256_of_the_body() {
        // RFC 4231, test case 2.
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        let expected = hex::encode(mac.finalize().into_bytes());
        assert_eq!(
            expected,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            format!("sha256={expected}")
        );
    }

    #[test]
    fn each_kind_gets_its_shape_and_only_the_generic_one_is_signed() {
        let n = notice(HookEvent::Turn);
        let discord = request(WebhookKind::Discord, None, &n, 7, "https://pp.example/");
        let v: serde_json::Value = serde_json::from_slice(&discord.body).unwrap();
        assert_eq!(
            v["content"],
            "Ann <@everyone> (North): your turn in Whitehouse #12. Open it from your games: https://pp.example/me"
        );
        assert_eq!(v["allowed_mentions"]["parse"], json!([]));
        let slack = request(WebhookKind::Slack, None, &n, 7, "https://pp.example");
        let v: serde_json::Value = serde_json::from_slice(&slack.body).unwrap();
        assert_eq!(
            v["text"],
            "Ann &lt;@everyone&gt; (North): your turn in Whitehouse #12. <https://pp.example/me|Open it from your games>"
        );
        assert!(
            discord
                .headers
                .iter()
                .chain(&slack.headers)
                .all(|(h, _)| *h != SIGNATURE_HEADER)
        );
        let over = notice(HookEvent::Over);
        let generic = request(
            WebhookKind::Generic,
            Some("k"),
            &over,
            9,
            "https://pp.example",
        );
        let v: serde_json::Value = serde_json::from_slice(&generic.body).unwrap();
        assert_eq!(v["event"], "over");
        assert_eq!(v["delivery"], 9);
        assert_eq!(v["winners"], json!(["Ann", "Cy"]));
        let signed = generic
            .headers
            .iter()
            .find(|(h, _)| *h == SIGNATURE_HEADER)
            .unwrap();
        assert_eq!(signed.1, signature("k", &generic.body));
        assert_eq!(
            sentence(&over),
            "Whitehouse #12 is over: North–South make 8 tricks. Won by Ann and Cy. (Ann <@everyone> (North) played in it.)"
        );
    }
}
