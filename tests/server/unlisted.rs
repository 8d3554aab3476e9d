//! Unlisted games (issue 32): no list shows them, every route keyed by the game's (sequential)
//! id answers as for a game that does not exist, and the spectator link opens the same public
//! pages; the creator, the desk and the players are shown that link. Real HTTP, real
//! PostgreSQL.

use crate::common;

use awc::Client;
use common::visitor::Visitor;
use common::{TestDb, spawn_app};

/// The text after `marker` up to the next quote or `<`.
fn link_after<'a>(page: &'a str, marker: &str) -> Option<&'a str> {
    let at = page.find(marker)?;
    page[at..].split(['"', '<']).next()
}

/// Every GET route of the app whose path holds a game's `{id}`, read from the route table, so
/// a new one cannot be forgotten here.
fn id_keyed_get_routes() -> Vec<String> {
    let source = crate::common::route_table_source();
    let routes = source
        .split(".route(")
        .skip(1)
        .filter_map(|r| {
            let path = r.split('"').nth(1)?;
            let method = r.split(".to(").next().unwrap_or("");
            (path.contains("{id}") && method.contains("get()")).then(|| path.to_string())
        })
        .filter(|p| !p.starts_with("/lobby/"))
        .collect::<Vec<_>>();
    assert!(routes.len() >= 8, "{routes:?}");
    routes
}

/// The same route by the spectator link, where one exists.
fn by_link(route: &str, watch: &str) -> Option<String> {
    let path = if let Some(rest) = route.strip_prefix("/api/games/{id}") {
        format!("/api/watch/{watch}{rest}")
    } else if let Some(rest) = route.strip_prefix("/games/{id}") {
        format!("/watch/{watch}{rest}")
    } else {
        return None;
    };
    // A seat's choices need a seat: the spectator link is no seat. A review exists only once
    // the game is over (tests/server/review.rs): by the link too, a running game has none.
    (!path.ends_with("/choices") && !path.ends_with("/review")).then_some(path)
}

/// Status (and, for anything but the live stream, body) of a GET.
async fn fetch(base: &str, path: &str) -> (u16, String) {
    if path.ends_with("/events") {
        let res = Client::default()
            .get(format!("{base}{path}"))
            .send()
            .await
            .unwrap();
        return (res.status().as_u16(), String::new());
    }
    let answer = Visitor::new(base).get(path).await;
    (answer.status, answer.body)
}

#[actix_web::test]
async fn an_unlisted_game_is_reached_only_through_its_spectator_link() {
    let db = TestDb::new().await;
    let base = spawn_app(&db);
    let creator = Visitor::new(&base);
    let listed = creator
        .post_from(
            "/new/statehood",
            "/new/statehood",
            &[("name0", "Lu"), ("name1", "Li")],
        )
        .await;
    assert_eq!(listed.status, 303, "{}", listed.body);
    let made = creator
        .post_from(
            "/new/statehood",
            "/new/statehood",
            &[("name0", "Ann"), ("name1", "Bo"), ("unlisted", "true")],
        )
        .await;
    assert_eq!(made.status, 303, "{}", made.body);
    let location = made.location.unwrap();
    let id: i64 = location.rsplit('/').next().unwrap().parse().unwrap();
    let created = creator.get(&location).await;
    assert_eq!(created.status, 200);
    let link = link_after(&created.body, &format!("{base}/watch/"))
        .unwrap_or_else(|| {
            panic!(
                "the created page shows the spectator link: {}",
                created.body
            )
        })
        .to_string();
    let watch = link.rsplit('/').next().unwrap().to_string();
    assert_eq!(watch.len(), 40, "{link}");
    // Stored as its hash for lookups; no list shows the game.
    let hash: Vec<u8> = sqlx::query_scalar("SELECT spectator_hash FROM games WHERE id = $1")
        .bind(id)
        .fetch_one(db.store.pool())
        .await
        .unwrap();
    assert_eq!(hash, postplay::store::token_hash(&watch));
    let home = Visitor::new(&base).get("/").await;
    assert!(
        home.body.contains(&format!("/games/{}\"", id - 1)),
        "the listed game is"
    );
    assert!(
        !home.body.contains(&format!("/games/{id}\"")),
        "{}",
        home.body
    );
    assert!(!home.body.contains(&watch));

    // Every id-keyed GET route answers as for a game that does not exist; by the link, the
    // same pages open.
    let missing = id + 1000;
    for route in id_keyed_get_routes() {
        let path = |game: i64| {
            route
                .replace("{id}", &game.to_string())
                .replace("{kind}", "statehood")
        };
        let (status, body) = fetch(&base, &path(id)).await;
        let (none_status, none_body) = fetch(&base, &path(missing)).await;
        assert_eq!(
            (status, body.replace(&id.to_string(), "#")),
            (none_status, none_body.replace(&missing.to_string(), "#")),
            "{route}: an unlisted game answers as a missing one"
        );
        if route.contains("/created/") {
            // Shown from the creating browser's cookie only, for any id alike.
            assert_eq!(status, 410, "{route}");
            continue;
        }
        assert_eq!(status, 404, "{route}");
        let (listed_status, _) = fetch(&base, &path(id - 1)).await;
        if let Some(by) = by_link(&route, &watch) {
            let (status, body) = fetch(&base, &by).await;
            assert_eq!(status, 200, "{by}: {body}");
            assert_eq!(listed_status, 200, "{route} of a listed game");
        }
    }
    let page = Visitor::new(&base).get(&format!("/watch/{watch}")).await;
    assert!(
        page.body
            .contains(&format!("data-events=\"/watch/{watch}/events\""))
    );
    assert!(page.body.contains(&format!("/watch/{watch}/log")));
    assert!(
        !page.body.contains(&format!("/games/{id}")),
        "{}",
        page.body
    );
    // Posting by id finds nothing either.
    let visitor = Visitor::new(&base);
    for path in [
        format!("/games/{id}/lost-link"),
        format!("/games/{id}/messages"),
    ] {
        let answer = visitor
            .post_from("/new/statehood", &path, &[("seat", "0"), ("text", "hi")])
            .await;
        assert!(
            [404, 401].contains(&answer.status),
            "{path}: {}",
            answer.status
        );
    }
    let export = Visitor::new(&base)
        .get(&format!("/api/watch/{watch}/export"))
        .await;
    assert!(export.body.contains("\"commitment\""), "{}", export.body);
    // An unknown spectator link is nothing.
    let wrong = "ab".repeat(20);
    assert_eq!(fetch(&base, &format!("/watch/{wrong}")).await.0, 404);

    // The desk and the players show the link; a seat's own link keeps working.
    let desk = link_after(&created.body, "/manage/").unwrap().to_string();
    let desk_page = creator.get(&desk).await;
    assert_eq!(desk_page.status, 200);
    assert!(desk_page.body.contains(&link), "{}", desk_page.body);
    let handover = link_after(&created.body, "/take/").unwrap().to_string();
    let player = Visitor::new(&base);
    let taken = player.post_from(&handover, &handover, &[]).await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let seat_link = link_after(&taken.body, "/play/").unwrap().to_string();
    let seat_page = player.get(&seat_link).await;
    assert_eq!(seat_page.status, 200);
    assert!(seat_page.body.contains(&link), "the player may share it");
    assert!(seat_page.body.contains(&format!("/watch/{watch}/replay")));
    db.drop().await;
}
