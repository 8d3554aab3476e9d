//! The viewer's own hand on the play page, drawn once: where one choice asks for cards of the
//! hand and nothing else, the hand itself is that choice's form — a tap on a playable card
//! plays it, or the cards to pick are ticked on the hand — so the form holds no second copy.

use crate::web::seat::render::FormChoice;

/// A card of the hand as the page draws it.
pub struct HandCard {
    /// The card, drawn as its game draws it.
    pub html: String,
    /// The option of the hand's choice this card is, if the choice offers it.
    pub option: Option<usize>,
    /// Ticked again after a refusal.
    pub checked: bool,
}

/// The choice the hand makes: its card buttons (one card) or ticks (several).
pub struct HandForm {
    /// The choice's index among the seat's choices.
    pub index: usize,
    /// The form field its cards fill.
    pub field: String,
    /// The choice's label ("Play a card").
    pub label: String,
    /// Its question ("Which card do you play?").
    pub prompt: String,
    /// Several cards are picked with ticks and one button; otherwise a tap plays a card.
    pub pick: bool,
    /// How many to pick, in words ("Pick 6.").
    pub rule: String,
    /// The seat sent it and it was refused: its ticks are shown again.
    pub refused: bool,
}

/// The hand, and the choice it makes if any.
pub struct Hand {
    /// The cards in the board's order.
    pub cards: Vec<HandCard>,
    /// The choice made on the hand.
    pub form: Option<HandForm>,
}

/// Draws the `held` cards (codes) with `draw`, and takes out of `forms` the one choice that is
/// made on them, if exactly one choice asks for cards of the hand in a single field and carries
/// no warning (a costly move keeps its form and its caution). A sealed choice, or one offering
/// anything not in the hand, stays a form of its own.
pub fn hand(
    held: &[String],
    forms: &mut Vec<FormChoice>,
    draw: &dyn Fn(&str) -> Option<String>,
) -> Hand {
    let on_hand = |f: &FormChoice| {
        f.warning.is_none()
            && !f.sealed
            && matches!(&f.params[..], [p] if (p.kind == "one" || p.kind == "pick")
                && !p.options.is_empty()
                && p.options.iter().all(|o| o.value.as_deref().is_some_and(|v| held.iter().any(|h| h == v))))
    };
    let candidates: Vec<usize> = (0..forms.len()).filter(|&i| on_hand(&forms[i])).collect();
    let made = match candidates[..] {
        [only] => Some(forms.remove(only)),
        _ => None,
    };
    let cards = held
        .iter()
        .map(|code| {
            let offered = made.as_ref().and_then(|f| {
                f.params[0]
                    .options
                    .iter()
                    .find(|o| o.value.as_deref() == Some(code.as_str()))
            });
            HandCard {
                html: draw(code).unwrap_or_else(|| crate::web::seat::render::esc(code)),
                option: offered.map(|o| o.index),
                checked: offered.is_some_and(|o| o.checked),
            }
        })
        .collect();
    let form = made.map(|f| {
        let p = &f.params[0];
        HandForm {
            index: f.index,
            field: p.name.clone(),
            label: f.label.clone(),
            prompt: crate::engine::present::sentence(&p.prompt),
            pick: p.kind == "pick",
            rule: if p.min == p.max {
                format!("Pick {}.", p.min)
            } else {
                format!("Pick {} to {}.", p.min, p.max)
            },
            refused: f.refused,
        }
    });
    Hand { cards, form }
}
