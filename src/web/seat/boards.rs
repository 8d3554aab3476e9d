//! Game boards: each hosted game draws its own view type ([`Rules::View`]) with a template of
//! templates/boards/, one file here a game; a game without a board, or a view that is not its
//! game's, gets the generic rendering of the view.

mod electoral_combat;
mod nationhood;
mod statehood;
mod votes_for_women;
mod whitehouse;

use crate::cards::Card;
use crate::engine::{Choice, Rules, Seat};
use crate::games;
use crate::web::seat::render::{card_html, value_html};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::marker::PhantomData;

/// Every game's board, one line a game.
static BOARDS: &[&dyn DynBoard] = &[
    &Drawn::<games::whitehouse::Whitehouse>::NEW,
    &Drawn::<games::statehood::Statehood>::NEW,
    &Drawn::<games::electoral_combat::ElectoralCombat>::NEW,
    &Drawn::<games::nationhood::Nationhood>::NEW,
    &Drawn::<games::votes_for_women::VotesForWomen>::NEW,
];

/// The people at a table, for a board: each seat's name, and how long each awaited seat has
/// waited ("· waiting 2 days").
#[derive(Clone, Copy)]
pub struct Seating<'a> {
    /// Display names by seat.
    pub names: &'a [String],
    /// For each awaited seat, since when it has waited, in words.
    pub waiting: &'a [(Seat, String)],
    /// The game has ended, perhaps before its rules ended it (a forfeit, a cancellation):
    /// nobody is to move, whatever the view's turn says.
    pub over: bool,
    /// The viewing seat's moves, for a board that draws some of them on itself (a map to
    /// tap, a hand whose cards carry their uses); `None` where nobody here may move.
    pub moves: Option<Moves<'a>>,
}

/// The seat's moves as a board draws them: its choices and what every form it posts carries.
/// The forms post what the page's generic forms post (`choice`, `p0`, `p0_3`...), so a move
/// made on a board is read by the same code and is the same command.
#[derive(Clone, Copy)]
pub struct Moves<'a> {
    /// The seat's choices, in the engine's order (the form sends an index into them).
    pub choices: &'a [Choice],
    /// Where the forms post.
    pub post_url: &'a str,
    /// The page's CSRF token.
    pub csrf: &'a str,
    /// The log head the page shows (a move made on an older page is refused).
    pub head: i64,
}

impl<'a> Seating<'a> {
    /// Names only, where waiting times mean nothing (a replay).
    pub fn named(names: &'a [String]) -> Seating<'a> {
        Seating {
            names,
            waiting: &[],
            over: false,
            moves: None,
        }
    }

    /// Whether to mark `seat` as the one to move, given that its view awaits it.
    fn marks_to_move(&self, awaited: bool) -> bool {
        awaited && !self.over
    }

    /// What the board says the game waits for: `words`, or "the game is over" once it has
    /// ended (a cancelled or forfeited game waits for nobody, whatever the view's turn says).
    fn waits_for(&self, words: String) -> String {
        if self.over {
            "the game is over".to_string()
        } else {
            words
        }
    }

    /// Since when `seat` has waited, if it is awaited and that is known.
    fn waiting_since(&self, seat: Seat) -> String {
        self.waiting
            .iter()
            .find(|(s, _)| *s == seat)
            .map(|(_, since)| since.clone())
            .unwrap_or_default()
    }
}

/// How a game draws its own view as a board.
trait Board: Rules<View: DeserializeOwned> {
    /// The board for `view`, with the people at the table.
    fn board(view: &Self::View, seating: &Seating) -> askama::Result<String>;

    /// The viewer's own hand as card codes in the board's order, where the page draws the hand
    /// (and makes its playable cards buttons); `None` where the board draws the hand itself.
    fn own_hand(view: &Self::View) -> Option<Vec<String>> {
        let _ = view;
        None
    }

    /// The card with this code as the board draws it; `None` when the code is no card of the
    /// game. By default a card of the pack with its state and electoral votes.
    fn card(view: &Self::View, code: &str) -> Option<String> {
        let _ = view;
        Card::from_code(code).map(card_html)
    }

    /// The indices of `choices` this board draws on itself when given the seat's
    /// [`Moves`]: the page leaves them out of its generic forms. None by default.
    fn drawn_choices(view: &Self::View, choices: &[Choice]) -> Vec<usize> {
        let _ = (view, choices);
        Vec::new()
    }
}

/// A [`Board`] behind JSON views, for code that knows the game only by its id.
trait DynBoard: Sync {
    /// The game id.
    fn id(&self) -> &'static str;
    /// The board, or `None` if `view` is not a view of this game or its template fails.
    fn board(&self, view: &Value, seating: &Seating) -> Option<String>;
    /// The viewer's own hand for the page to draw (see [`Board::own_hand`]).
    fn own_hand(&self, view: &Value) -> Option<Vec<String>>;
    /// The card as the board draws it, or `None` (no card of the game, or no view of it).
    fn card(&self, view: &Value, code: &str) -> Option<String>;
    /// The choices the board draws itself (see [`Board::drawn_choices`]).
    fn drawn_choices(&self, view: &Value, choices: &[Choice]) -> Vec<usize>;
}

/// Wraps a [`Board`] as a [`DynBoard`].
struct Drawn<G>(PhantomData<fn() -> G>);

impl<G> Drawn<G> {
    /// The wrapper value (zero-sized).
    const NEW: Drawn<G> = Drawn(PhantomData);
}

impl<G: Board> DynBoard for Drawn<G> {
    fn id(&self) -> &'static str {
        G::ID
    }
    fn board(&self, view: &Value, seating: &Seating) -> Option<String> {
        G::board(&G::View::deserialize(view).ok()?, seating).ok()
    }
    fn own_hand(&self, view: &Value) -> Option<Vec<String>> {
        G::own_hand(&G::View::deserialize(view).ok()?)
    }
    fn card(&self, view: &Value, code: &str) -> Option<String> {
        G::card(&G::View::deserialize(view).ok()?, code)
    }
    fn drawn_choices(&self, view: &Value, choices: &[Choice]) -> Vec<usize> {
        G::View::deserialize(view)
            .map(|v| G::drawn_choices(&v, choices))
            .unwrap_or_default()
    }
}

fn find_board(kind: &str) -> Option<&'static dyn DynBoard> {
    BOARDS.iter().copied().find(|b| b.id() == kind)
}

/// How game `kind` draws the card with this code, as its board does (the view says what the
/// drawing depends on, such as the apportionment counted); `None` for no card of the game.
pub fn card_in_game_html(kind: &str, view: &Value, code: &str) -> Option<String> {
    match find_board(kind) {
        Some(board) => board.card(view, code),
        None => Card::from_code(code).map(card_html),
    }
}

/// The board of any game for a view, as HTML.
pub fn board_html(kind: &str, view: &Value, seating: &Seating) -> String {
    find_board(kind)
        .and_then(|b| b.board(view, seating))
        .unwrap_or_else(|| value_html(view))
}

/// The game's own board for a view, or `None` where [`board_html`] falls back to the generic
/// rendering.
#[cfg(test)]
fn game_board(kind: &str, view: &Value, names: &[String]) -> Option<String> {
    find_board(kind)?.board(view, &Seating::named(names))
}

/// The indices of the seat's `choices` that game `kind`'s board draws on itself when it is
/// given the seat's [`Moves`]; the page's generic forms leave them out.
pub fn drawn_choices(kind: &str, view: &Value, choices: &[Choice]) -> Vec<usize> {
    find_board(kind).map_or_else(Vec::new, |b| b.drawn_choices(view, choices))
}

/// The viewer's own hand in `view` as card codes, where game `kind` leaves drawing it to the
/// page; `None` where its board draws the hand.
pub fn own_hand(kind: &str, view: &Value) -> Option<Vec<String>> {
    find_board(kind)?.own_hand(view)
}

/// A seat's display name, or "Player N" when the game has no name for it.
fn seat_name(names: &[String], seat: Seat) -> String {
    names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| crate::engine::numbered_seat(seat))
}

/// Cards of the pack drawn with their states, side by side.
fn cards_html(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| card_html(*c))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every hand shown, with its holder's name, for a viewer who is no player (an auditor of a
/// finished game); nothing for a player.
fn open_hands(
    you: Option<Seat>,
    hands: &[Option<Vec<Card>>],
    name: &dyn Fn(Seat) -> String,
    draw: fn(&[Card]) -> String,
) -> Vec<(String, String)> {
    if you.is_some() {
        return Vec::new();
    }
    hands
        .iter()
        .enumerate()
        .filter_map(|(s, h)| h.as_ref().map(|h| (name(s), draw(h))))
        .collect()
}

/// The seats in the order a table lists them for `you`: the players after the viewer in turn
/// order first, the viewer last (at the bottom); a spectator sees them in seat order.
fn from_seat(you: Option<Seat>, seats: usize) -> impl Iterator<Item = Seat> {
    let start = you.map_or(0, |y| y + 1);
    (0..seats).map(move |i| (start + i) % seats)
}

/// The viewer's own hand in a view that holds every seat's hand or `None`, as card codes (see
/// [`Board::own_hand`]).
fn own_cards(you: Option<Seat>, hands: &[Option<Vec<Card>>]) -> Option<Vec<String>> {
    let hand = hands.get(you?)?.as_ref()?;
    Some(hand.iter().map(|c| c.code().to_string()).collect())
}

/// The viewer's own hand sorted as a player holds it (by suit, high to low within a suit:
/// [`crate::games::pack::by_suit`], as the mail lists it), as card codes.
fn own_cards_by_suit(you: Option<Seat>, hands: &[Option<Vec<Card>>]) -> Option<Vec<String>> {
    let hand = hands.get(you?)?.as_ref()?;
    Some(
        crate::games::pack::by_suit(hand)
            .iter()
            .map(|c| c.code().to_string())
            .collect(),
    )
}

/// A field-less variant as the view names it, in words: `HandOver` → "hand over".
fn words(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name.replace('_', " "),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests;
