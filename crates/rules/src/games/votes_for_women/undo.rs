//! What a Votes for Women command may be taken back after: one that moved no hidden card.
//! Placing and removing cubes, picking states and regions, moving campaigners may be taken
//! back within the turn; playing a card from the hand, drawing, looking at cards set aside or
//! rolling a die (the engine sees every roll) may not.

use super::state::State;

/// Whether `after` holds every hidden card where `before` held it: both hands, both draw decks,
/// the Strategy deck, the State cards removed unseen and the cards an effect set aside; and
/// shows no hand that `before` did not (Change In Plans, "See opponent's hand": playing it may
/// not be taken back once the hand was seen).
pub fn keeps_secrets(before: &State, after: &State) -> bool {
    before.hands == after.hands
        && before.decks == after.decks
        && before.strategy_deck == after.strategy_deck
        && before.removed_state_cards == after.removed_state_cards
        && set_aside(before).eq(set_aside(after))
        && (shows_a_hand(before) || !shows_a_hand(after))
}

/// Whether a player is looking at the opponent's hand (Change In Plans, begun).
fn shows_a_hand(state: &State) -> bool {
    state.stack.iter().any(super::view::shows_opponents_hand)
}

/// The cards each effect has set aside, innermost last (effects without any left out).
fn set_aside(state: &State) -> impl Iterator<Item = &Vec<u8>> {
    state
        .stack
        .iter()
        .map(|frame| &frame.cards)
        .filter(|cards| !cards.is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::VotesForWomen;
    use crate::engine::bot::{bot_rng, random_command};
    use crate::engine::{Log, Match, Rules, Seed};
    use serde_json::Value;
    use std::collections::BTreeSet;

    /// The kinds of command that could be taken back in `games` random games, and those that
    /// could not.
    fn kinds(games: u64) -> (BTreeSet<String>, BTreeSet<String>) {
        let (mut undoable, mut final_) = (BTreeSet::new(), BTreeSet::new());
        for n in 0..games {
            let seed = Seed::from_number(n);
            let mut game = Match::<VotesForWomen>::new(Default::default(), 2, seed).expect("setup");
            let mut rng = bot_rng(&seed);
            while VotesForWomen::outcome(&game.state).is_none() {
                let seat = VotesForWomen::active(&game.state)[0];
                let command: Value = random_command(&game, seat, &mut rng).expect("a move");
                let kind = command["type"].as_str().unwrap_or_default().to_string();
                let typed = VotesForWomen::decode(&command).expect("offered commands decode");
                let still_to_move = {
                    let mut after = game.clone();
                    after.apply(seat, &typed, &mut Log::silent()).unwrap();
                    VotesForWomen::is_active(&after.state, seat)
                };
                game.apply(seat, &typed, &mut Log::silent()).unwrap();
                if game.can_undo(seat) {
                    undoable.insert(kind);
                } else if still_to_move {
                    final_.insert(kind);
                }
            }
        }
        (undoable, final_)
    }

    #[test]
    fn cube_and_campaigner_decisions_may_be_taken_back_cards_from_the_hand_never() {
        let (undoable, final_) = kinds(12);
        // A claimed card is face up: playing it may be taken back like a cube decision.
        for kind in ["play", "reroll", "card"] {
            assert!(
                !undoable.contains(kind),
                "{kind} reveals a card or a roll: {undoable:?}"
            );
        }
        assert!(
            undoable
                .iter()
                .any(|k| ["place", "remove", "state", "states", "assign"].contains(&k.as_str())),
            "some cube decision may be taken back: {undoable:?}"
        );
        assert!(
            final_.contains("play"),
            "playing a card from the hand is final, though the seat moves on: {final_:?}"
        );
    }
}
