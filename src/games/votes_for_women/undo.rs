//! What a Votes for Women command may be taken back after: one that moved no hidden card.
//! Placing and removing cubes, picking states and regions, moving campaigners may be taken
//! back within the turn; playing a card from the hand, drawing, looking at cards set aside or
//! rolling a die (the engine sees every roll) may not.

use super::state::State;

/// Whether `after` holds every hidden card where `before` held it: both hands, both draw decks,
/// the Strategy deck, the State cards removed unseen and the cards an effect set aside.
pub fn keeps_secrets(before: &State, after: &State) -> bool {
    before.hands == after.hands
        && before.decks == after.decks
        && before.strategy_deck == after.strategy_deck
        && before.removed_state_cards == after.removed_state_cards
        && set_aside(before).eq(set_aside(after))
}

/// The cards each effect has set aside, innermost last (effects without any left out).
fn set_aside(state: &State) -> impl Iterator<Item = &Vec<u8>> {
    state
        .stack
        .iter()
        .map(|frame| &frame.cards)
        .filter(|cards| !cards.is_empty())
}
