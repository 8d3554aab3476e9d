//! "How to play": each hosted game's rules in our words, one page a game, linked from the home
//! page, the create form, the play page and the invitation.

use crate::games::find_game;
use crate::web::WebError;
use crate::web::http::page::html;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;

/// Every game's rules page, as an HTML fragment written for players (templates/public/rules/).
const PAGES: &[(&str, &str)] = &[
    (
        "whitehouse",
        include_str!("../../../templates/public/rules/whitehouse.html"),
    ),
    (
        "statehood",
        include_str!("../../../templates/public/rules/statehood.html"),
    ),
    (
        "electoral-combat",
        include_str!("../../../templates/public/rules/electoral-combat.html"),
    ),
    (
        "nationhood",
        include_str!("../../../templates/public/rules/nationhood.html"),
    ),
    (
        "votes-for-women",
        include_str!("../../../templates/public/rules/votes-for-women.html"),
    ),
];

/// The rules of game `kind` in our words, as HTML; `None` for no hosted game.
pub fn rules_html(kind: &str) -> Option<&'static str> {
    PAGES
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, page)| *page)
}

#[derive(Template)]
#[template(path = "public/rules.html")]
struct RulesPage {
    kind: &'static str,
    name: &'static str,
    seats: String,
    body: &'static str,
}

/// `GET /rules/{kind}`: how to play the game.
pub async fn rules(kind: web::Path<String>) -> Result<HttpResponse, WebError> {
    let game = find_game(&kind).ok_or(WebError::NotFound)?;
    let body = rules_html(game.id()).ok_or(WebError::NotFound)?;
    let (min, max) = game.seat_counts();
    html(
        StatusCode::OK,
        RulesPage {
            kind: game.id(),
            name: game.name(),
            seats: if min == max {
                format!("{min} players")
            } else {
                format!("{min} to {max} players")
            },
            body,
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::games::registry;
    use crate::web::public::rules::rules_html;

    /// Every hosted game has its page, with the sections a player looks for, every option the
    /// create form offers explained, and nothing the page's template or policy would break.
    #[test]
    fn every_game_explains_itself_and_every_option() {
        for game in registry() {
            let page =
                rules_html(game.id()).unwrap_or_else(|| panic!("{} has no rules page", game.id()));
            for section in [
                "objective",
                "setup",
                "turn",
                "scoring",
                "options",
                "postplay",
            ] {
                assert!(
                    page.contains(&format!("<h2 id=\"{section}\">")),
                    "{}: no {section} section",
                    game.id()
                );
            }
            for option in game.option_specs() {
                assert!(
                    page.contains(&format!("<dt id=\"option-{}\">", option.key)),
                    "{}: option {} is not explained",
                    game.id(),
                    option.key
                );
            }
            for banned in [
                "<script", "style=", "{{", "{%", "<img", "http://", "https://",
            ] {
                assert!(!page.contains(banned), "{}: {banned}", game.id());
            }
        }
    }
}
