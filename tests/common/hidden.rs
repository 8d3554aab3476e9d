//! What a viewer may not see, computed from the auditor's state of any hosted game.

use serde_json::Value;

/// Every card code hidden from `seat` (from everyone for `None`, a spectator), from the
/// auditor's state: the other seats' hands, the stock, the kitty, face-down cards.
pub fn hidden_from(state: &Value, seat: Option<usize>) -> Vec<String> {
    let mut cards = Vec::new();
    // A card is a code ("CA") in most games, a number in Votes for Women.
    let code = |c: &Value| c.as_str().map_or_else(|| c.to_string(), str::to_string);
    for (s, hand) in state["hands"].as_array().into_iter().flatten().enumerate() {
        if Some(s) != seat {
            cards.extend(hand.as_array().unwrap().iter().map(code));
        }
    }
    // Votes for Women: both draw decks, the State cards removed unseen, the Strategy deck,
    // and the cards another seat's effect has drawn and set aside.
    for deck in state["decks"].as_array().into_iter().flatten() {
        cards.extend(deck.as_array().unwrap().iter().map(code));
    }
    for key in ["removed_state_cards", "strategy_deck"] {
        cards.extend(state[key].as_array().into_iter().flatten().map(code));
    }
    for frame in state["stack"].as_array().into_iter().flatten() {
        if frame["seat"].as_u64() != seat.map(|s| s as u64) {
            cards.extend(frame["cards"].as_array().into_iter().flatten().map(code));
        }
    }
    // Electoral College Combat: both stacks and the face-down cards on the table; won cards
    // put back for the last two hands were public before and stay so.
    let public: Vec<&Value> = state["added"].as_array().into_iter().flatten().collect();
    for stack in state["stacks"].as_array().into_iter().flatten() {
        cards.extend(
            stack
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| !public.contains(c))
                .map(|c| c.as_str().unwrap().to_string()),
        );
    }
    for slot in state["table"].as_array().into_iter().flatten() {
        if slot["up"] == false
            && slot["won_by"].is_null()
            && slot["removed"] == false
            && !public.contains(&&slot["card"])
        {
            cards.push(slot["card"].as_str().unwrap().to_string());
        }
    }
    // The stock is face down in every game that has one.
    cards.extend(
        state["stock"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c.as_str().unwrap().to_string()),
    );
    if let Some(kitty) = state["kitty"].as_array()
        && (seat.is_none() || state["bidder"].as_u64() != seat.map(|s| s as u64))
    {
        cards.extend(kitty.iter().map(|c| c.as_str().unwrap().to_string()));
    }
    // Whitehouse: the kitty's cards the bidder has taken up (in its hand too).
    if state["bidder"].as_u64() != seat.map(|s| s as u64) {
        cards.extend(
            state["taken_kitty"]
                .as_array()
                .into_iter()
                .flatten()
                .map(code),
        );
    }
    // A Puerto Rico declarer's hand is laid face up for all to see; after the hand, that hand
    // and every challenge stay shown as the last hand, whoever holds those cards now.
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let reveal = &state["last_hand"]["puerto_rico"];
    let mut public = list(&state["puerto_rico"]["shown"]);
    // A Nationhood nation that won the last hand was shown to both.
    public.extend(list(&state["last_hand"]["nation"]));
    public.extend(list(&reveal["shown"]));
    for answer in list(&reveal["answers"]) {
        public.extend(list(&answer["cards"]));
    }
    cards.retain(|c| !public.iter().any(|s| s.as_str() == Some(c)));
    cards
}
