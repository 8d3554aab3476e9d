//! The board and the 128 cards, read once from `data/votes-for-women/` (compiled in): each
//! card's effect becomes a list of primitive [`Op`]s that the `ops` module interprets.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::sync::LazyLock;

/// The Suffragist's seat.
pub const SUFF: usize = 0;
/// The Opposition's seat.
pub const OPP: usize = 1;
/// States on the map.
pub const STATES: usize = 48;

/// One of the six regions of eight states.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Region {
    West,
    Plains,
    South,
    Midwest,
    Atlantic,
    Northeast,
}

impl Region {
    /// All six, in map order.
    pub const ALL: [Region; 6] = [
        Region::West,
        Region::Plains,
        Region::South,
        Region::Midwest,
        Region::Atlantic,
        Region::Northeast,
    ];

    /// The region's printed name.
    pub fn name(self) -> &'static str {
        match self {
            Region::West => "West",
            Region::Plains => "Plains",
            Region::South => "South",
            Region::Midwest => "Midwest",
            Region::Atlantic => "Atlantic & Appalachia",
            Region::Northeast => "Northeast",
        }
    }

    fn from_name(name: &str) -> Region {
        *Region::ALL
            .iter()
            .find(|r| r.name() == name)
            .unwrap_or_else(|| panic!("unknown region {name}"))
    }

    /// The region's eight states.
    pub fn states(self) -> impl Iterator<Item = St> {
        let base = self as u8 * 8;
        (base..base + 8).map(St)
    }
}

/// A state of the map, by its index 0..48 (grouped by region); serialized as its postal code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct St(pub u8);

impl St {
    /// All 48.
    pub fn all() -> impl Iterator<Item = St> {
        (0..STATES as u8).map(St)
    }

    /// Its postal code ("CA").
    pub fn code(self) -> &'static str {
        &MAP[self.0 as usize].code
    }

    /// Its name ("California").
    pub fn name(self) -> &'static str {
        &MAP[self.0 as usize].name
    }

    /// Its region.
    pub fn region(self) -> Region {
        Region::ALL[self.0 as usize / 8]
    }

    /// The state with this postal code.
    pub fn from_code(code: &str) -> Option<St> {
        MAP.iter().position(|s| s.code == code).map(|i| St(i as u8))
    }
}

impl Serialize for St {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for St {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<St, D::Error> {
        let code = String::deserialize(deserializer)?;
        St::from_code(&code).ok_or_else(|| serde::de::Error::custom(format!("no state {code}")))
    }
}

/// One state's fixed facts.
#[derive(Debug)]
pub struct MapState {
    /// Postal code.
    pub code: String,
    /// Name.
    pub name: String,
    /// Its State card, if it has one.
    pub card: Option<u8>,
}

/// The 48 states in index order.
pub static MAP: LazyLock<Vec<MapState>> = LazyLock::new(|| {
    let data: Value = serde_json::from_str(include_str!(
        "../../../../../data/votes-for-women/states.json"
    ))
    .expect("states.json parses");
    let mut states: Vec<(u64, MapState)> = data["states"]
        .as_array()
        .expect("states")
        .iter()
        .map(|s| {
            (
                s["index"].as_u64().expect("index"),
                MapState {
                    code: s["code"].as_str().expect("code").to_string(),
                    name: s["name"].as_str().expect("name").to_string(),
                    card: s["state_card_id"].as_u64().map(|c| c as u8),
                },
            )
        })
        .collect();
    states.sort_by_key(|s| s.0);
    states.into_iter().map(|s| s.1).collect()
});

/// Which deck a card belongs to.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Deck {
    Suffragist,
    Opposition,
    Strategy,
    State,
}

/// The era of an event card: where it lies in the draw deck.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Era {
    Start,
    Early,
    Middle,
    Late,
}

/// The boxes of persistent events on the board.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BoxKind {
    RestOfTurn,
    RestOfGame,
    FinalVoting,
}

/// Which cubes an effect touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cubes {
    Purple,
    Yellow,
    /// Purple and yellow: every Suffragist cube.
    Suffragist,
    Red,
}

impl Cubes {
    fn parse(text: &str) -> Cubes {
        match text {
            "purple" => Cubes::Purple,
            "yellow" => Cubes::Yellow,
            "purple_or_yellow" => Cubes::Suffragist,
            "red" => Cubes::Red,
            _ => panic!("unknown cube colour {text}"),
        }
    }
}

/// A campaigner's colour.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Purple,
    Yellow,
    Red,
}

/// A number of dice of one size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dice {
    /// How many.
    pub count: u8,
    /// Faces.
    pub sides: u8,
}

impl Dice {
    fn parse(text: &str) -> Dice {
        let (n, s) = text.split_once('d').expect("dice like 2d6");
        Dice {
            count: n.parse().expect("dice count"),
            sides: s.parse().expect("dice sides"),
        }
    }
}

/// How many: a fixed number or one the effect computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    Fixed(u8),
    /// The total of the card's roll.
    RollTotal,
    /// The card's dice showing 6 or more.
    Sixes,
    /// Half the opponent's buttons, rounded up.
    HalfOpponentButtons,
}

impl Amount {
    fn parse(value: &Value) -> Amount {
        match value {
            Value::Number(n) => Amount::Fixed(n.as_u64().expect("count") as u8),
            Value::String(s) if s == "roll_total" => Amount::RollTotal,
            Value::String(s) if s == "count_of_dice_6_or_more" => Amount::Sixes,
            Value::String(s) if s.starts_with("ceil(opponent_buttons") => {
                Amount::HalfOpponentButtons
            }
            _ => panic!("unknown amount {value}"),
        }
    }
}

/// A condition of an `if`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    /// The card's roll for success succeeded (3 or more).
    RollSucceeded,
    /// The card is played by the Suffragist.
    Suffragist,
}

/// What a card's effect may need before it can be played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prereq {
    /// This card is in that box.
    InBox(BoxKind, u8),
    /// This card is not in that box.
    NotInBox(BoxKind, u8),
    /// The Nineteenth Amendment has been sent to the states.
    AmendmentSent,
    /// It is at least this turn.
    TurnAtLeast(u8),
}

/// One primitive step of a card's effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Put a campaigner of this colour in this region.
    AddCampaigner(Colour, Region),
    /// Add (positive) or remove Congressional markers.
    Congress { add: bool, count: Amount },
    /// The player gains buttons (up to the cap).
    Buttons(u8),
    /// The player pays buttons (checked before play).
    SpendButtons(u8),
    /// The opponent loses buttons.
    OpponentLoses(Amount),
    /// Own cubes into these states, this many each, in order.
    PlaceFixed(Vec<(St, u8)>),
    /// Own cubes, this many, into one state of each region.
    PlaceOnePerRegion(u8),
    /// Own cubes, this many in all, at most `max` per state, among `states`.
    PlaceLimit {
        count: Amount,
        max: u8,
        states: Vec<St>,
    },
    /// Own cubes, this many into every state of one region of the player's choice.
    PlaceRegion(u8),
    /// Own cubes, this many, into the state selected earlier.
    PlaceSelected(u8),
    /// Remove all cubes of a colour from these states.
    RemoveAllFixed(Cubes, Vec<St>),
    /// Remove all opposing cubes from the state selected earlier.
    RemoveAllSelected(Cubes),
    /// Remove all cubes of a colour from as many states as possible, at most this many.
    RemoveAllUpTo(Cubes, u8),
    /// Remove this many cubes of a colour, at most `max` per state.
    RemoveLimit {
        cubes: Cubes,
        count: Amount,
        max: u8,
    },
    /// Governor Clement's Veto: a check becomes an X.
    CheckToX,
    /// Reconsideration: remove an opposing mark and put two own cubes there.
    Reconsider,
    /// Roll dice for an amount.
    Roll(Dice),
    /// Roll one die; 3 or more succeeds.
    RollForSuccess(Dice),
    /// Roll dice; each 6 or more counts.
    RollSixes(Dice),
    /// Run the following ops only if the condition holds.
    If(Cond),
    /// The other branch.
    Else,
    /// The end of the branch.
    Endif,
    /// The card goes to this box when its effect is done.
    Persistent(BoxKind),
    /// Discard this card from that box.
    DiscardPersistent(BoxKind, u8),
    /// Draw up to this many from the own draw deck, set aside for the card's next steps.
    Draw(u8),
    /// Resolve one playable card of those drawn as an event.
    PlayDrawn,
    /// Discard the cards drawn and not played.
    DiscardDrawn,
    /// Put any of the cards drawn back on top in a chosen order, the rest at the bottom.
    Arrange,
    /// Search the own draw deck for a playable card and resolve it.
    SearchDeck,
    /// Shuffle the own draw deck.
    ShuffleDeck,
    /// Discard a card of one's choice from the rest-of-turn box.
    CounterStrat,
    /// See the opponent's hand and discard one card without a campaigner; they draw one.
    ChangeInPlans,
    /// The opponent discards two random cards and draws as many.
    Riots,
    /// Claim one of the face-up Strategy cards.
    SelectStrategy,
    /// Select any state for the ops that follow.
    SelectState,
    /// Move each own campaigner to any region for free.
    FreeMoves,
    /// A full Campaigning action.
    Campaign,
    /// Lobbying: roll per campaigner, each success moves Congress.
    Lobby,
    /// Organizing: a button per campaigner.
    Organize,
}

/// One card, as the rules use it.
#[derive(Debug)]
pub struct CardDef {
    /// 1..=128.
    pub id: u8,
    /// Its deck.
    pub deck: Deck,
    /// The published title.
    pub name: String,
    /// Era (events only; Strategy and State cards count as Start).
    pub era: Era,
    /// Buttons paid to play it (39, 100).
    pub button_cost: u8,
    /// What must hold to play it as an event.
    pub prereqs: Vec<Prereq>,
    /// Our one-line paraphrase of the effect.
    pub effect: String,
    /// The effect as primitive steps.
    pub ops: Vec<Op>,
    /// It puts a campaigner on the map (Change In Plans may not pick it).
    pub campaigner: bool,
    /// The box it may go to.
    pub persistent: Option<BoxKind>,
}

/// Every card, indexed by id (index 0 is unused).
pub static CARDS: LazyLock<Vec<CardDef>> = LazyLock::new(|| {
    let data: Value = serde_json::from_str(include_str!(
        "../../../../../data/votes-for-women/cards.json"
    ))
    .expect("cards.json parses");
    let list = data.as_array().expect("a list of cards");
    let id_of = |name: &str| -> u8 {
        list.iter()
            .find(|c| c["name"] == name)
            .and_then(|c| c["id"].as_u64())
            .unwrap_or_else(|| panic!("no card named {name}")) as u8
    };
    let mut cards = vec![CardDef {
        id: 0,
        deck: Deck::Strategy,
        name: String::new(),
        era: Era::Start,
        button_cost: 0,
        prereqs: Vec::new(),
        effect: String::new(),
        ops: Vec::new(),
        campaigner: false,
        persistent: None,
    }];
    for c in list {
        let id = c["id"].as_u64().expect("id") as u8;
        assert_eq!(usize::from(id), cards.len(), "cards in id order");
        let deck = match c["deck"].as_str().expect("deck") {
            "suffragist" => Deck::Suffragist,
            "opposition" => Deck::Opposition,
            "strategy" => Deck::Strategy,
            _ => Deck::State,
        };
        let era = match c["era"].as_str().unwrap_or("Start") {
            "Early" => Era::Early,
            "Middle" => Era::Middle,
            "Late" => Era::Late,
            _ => Era::Start,
        };
        let mut prereqs = Vec::new();
        for p in c["prerequisites"].as_array().into_iter().flatten() {
            let p = p.as_str().unwrap_or_default();
            if p.starts_with("Nineteenth Amendment") {
                prereqs.push(Prereq::AmendmentSent);
            } else if p.contains("Turn 5") {
                prereqs.push(Prereq::TurnAtLeast(5));
            }
        }
        let mut ops = Vec::new();
        for op in c["ops"].as_array().expect("ops") {
            ops.extend(compile(op, &id_of, &mut prereqs));
        }
        let persistent = match c["persistent"].as_str() {
            Some("rest_of_turn") => Some(BoxKind::RestOfTurn),
            Some("rest_of_game") => Some(BoxKind::RestOfGame),
            Some("final_voting") => Some(BoxKind::FinalVoting),
            _ => None,
        };
        cards.push(CardDef {
            id,
            deck,
            name: c["name"].as_str().expect("name").to_string(),
            era,
            button_cost: c["button_cost"].as_u64().unwrap_or(0) as u8,
            prereqs,
            effect: c["effect"].as_str().unwrap_or_default().to_string(),
            ops,
            campaigner: c["places_campaigner"]
                .as_array()
                .is_some_and(|p| !p.is_empty())
                || matches!(id, 84),
            persistent,
        });
    }
    cards
});

/// The card with this id (1..=128).
pub fn card(id: u8) -> &'static CardDef {
    &CARDS[usize::from(id)]
}

/// True for a card id of the game.
pub fn is_card(id: u8) -> bool {
    (1..=128).contains(&id)
}

fn states_of(value: &Value) -> Vec<St> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| St::from_code(s.as_str().unwrap_or_default()).expect("a state code"))
        .collect()
}

fn regions_of(op: &Value) -> Vec<Region> {
    let mut regions: Vec<Region> = op["regions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Region::from_name(r.as_str().unwrap_or_default()))
        .collect();
    if let Some(r) = op["region"].as_str() {
        regions.push(Region::from_name(r));
    }
    regions
}

fn box_of(op: &Value) -> BoxKind {
    match op["box"].as_str() {
        Some("rest_of_turn") => BoxKind::RestOfTurn,
        Some("rest_of_game") => BoxKind::RestOfGame,
        _ => BoxKind::FinalVoting,
    }
}

fn count_u8(op: &Value, key: &str) -> u8 {
    op[key].as_u64().unwrap_or_else(|| panic!("{key} in {op}")) as u8
}

/// One op of cards.json as [`Op`]s; prerequisites become [`Prereq`]s instead.
fn compile(op: &Value, id_of: &dyn Fn(&str) -> u8, prereqs: &mut Vec<Prereq>) -> Vec<Op> {
    let kind = op["op"].as_str().expect("op");
    let cubes = || Cubes::parse(op["color"].as_str().unwrap_or("red"));
    vec![match kind {
        "add_campaigner" => {
            let colour = match op["color"].as_str() {
                Some("purple") => Colour::Purple,
                Some("yellow") => Colour::Yellow,
                _ => Colour::Red,
            };
            Op::AddCampaigner(
                colour,
                Region::from_name(op["region"].as_str().expect("region")),
            )
        }
        "add_congress" | "remove_congress" => Op::Congress {
            add: kind == "add_congress",
            count: Amount::parse(&op["count"]),
        },
        "receive_buttons" => Op::Buttons(count_u8(op, "count")),
        "spend_buttons" => Op::SpendButtons(count_u8(op, "count")),
        "opponent_loses_buttons" => Op::OpponentLoses(Amount::parse(&op["count"])),
        "add_cubes_total" if op["selected_state"] == true => {
            Op::PlaceSelected(count_u8(op, "count"))
        }
        "add_cubes_total" => {
            let n = count_u8(op, "count");
            Op::PlaceFixed(
                states_of(&op["states"])
                    .into_iter()
                    .map(|s| (s, n))
                    .collect(),
            )
        }
        "add_cubes_in_each_of" => {
            let n = count_u8(op, "count_per_state");
            let except = states_of(&op["except"]);
            let mut states = states_of(&op["states"]);
            for region in regions_of(op) {
                states.extend(region.states().filter(|s| !except.contains(s)));
            }
            Op::PlaceFixed(states.into_iter().map(|s| (s, n)).collect())
        }
        "add_cubes_in_one_state_of_each_region" => Op::PlaceOnePerRegion(count_u8(op, "count")),
        "add_cubes_limit" => {
            let states = if op["anywhere"] == true {
                St::all().collect()
            } else {
                regions_of(op)
                    .into_iter()
                    .flat_map(Region::states)
                    .collect()
            };
            Op::PlaceLimit {
                count: Amount::parse(&op["count"]),
                max: count_u8(op, "max_per_state"),
                states,
            }
        }
        "add_cubes_per_state_in_any_one_region" => Op::PlaceRegion(count_u8(op, "count_per_state")),
        "remove_all_cubes" if op["selected_state"] == true => Op::RemoveAllSelected(cubes()),
        "remove_all_cubes" => Op::RemoveAllFixed(cubes(), states_of(&op["states"])),
        "remove_all_cubes_up_to" => Op::RemoveAllUpTo(cubes(), count_u8(op, "max_states")),
        "remove_cubes_limit" => Op::RemoveLimit {
            cubes: cubes(),
            count: Amount::parse(&op["count"]),
            max: count_u8(op, "max_per_state"),
        },
        "replace" if op["with"] == "red_x" => Op::CheckToX,
        "replace" => Op::Reconsider,
        "roll" => Op::Roll(Dice::parse(op["dice"].as_str().expect("dice"))),
        "roll_for_success" => Op::RollForSuccess(Dice::parse(op["dice"].as_str().expect("dice"))),
        "roll_sixes" => Op::RollSixes(Dice::parse(op["dice"].as_str().expect("dice"))),
        "if" => Op::If(match op["cond"].as_str() {
            Some("roll >= 3") => Cond::RollSucceeded,
            Some("player == Suffragist") => Cond::Suffragist,
            other => panic!("unknown condition {other:?}"),
        }),
        "else" => Op::Else,
        "endif" => Op::Endif,
        "persistent" => Op::Persistent(box_of(op)),
        "discard_persistent" => {
            Op::DiscardPersistent(box_of(op), id_of(op["card"].as_str().expect("card")))
        }
        "requires_persistent" | "requires_not_persistent" => {
            let card = id_of(op["card"].as_str().expect("card"));
            prereqs.push(if kind == "requires_persistent" {
                Prereq::InBox(box_of(op), card)
            } else {
                Prereq::NotInBox(box_of(op), card)
            });
            return Vec::new();
        }
        "draw_2_play_1_event" => return vec![Op::Draw(2), Op::PlayDrawn, Op::DiscardDrawn],
        "draw_6_place_any_on_top_of_draw" => return vec![Op::Draw(6), Op::Arrange],
        "draw_6_play_1" => return vec![Op::Draw(6), Op::PlayDrawn],
        "place_any_on_top_of_draw" => Op::Arrange,
        "select_1_card_from_draw_deck_play_event_shuffle" => {
            return vec![Op::SearchDeck, Op::ShuffleDeck];
        }
        "counter_strat" => Op::CounterStrat,
        "show_opponents_hand_discard_1_draw_1" => Op::ChangeInPlans,
        "opponent_discard_2_random_draw_2" => Op::Riots,
        "select_strategy_card" => Op::SelectStrategy,
        "select_us_state" => Op::SelectState,
        "move_each_player_campaigner_free" => Op::FreeMoves,
        "campaigning_action" => Op::Campaign,
        other => panic!("unknown op {other}"),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_and_state_loads() {
        assert_eq!(CARDS.len(), 129);
        assert_eq!(MAP.len(), 48);
        assert_eq!(St::from_code("CA").unwrap().region(), Region::West);
        assert_eq!(St::from_code("VT").unwrap().region(), Region::Northeast);
        assert_eq!(card(1).deck, Deck::Suffragist);
        assert_eq!(card(53).deck, Deck::Opposition);
        assert_eq!(card(105).deck, Deck::Strategy);
        assert_eq!(card(117).deck, Deck::State);
        assert!(
            card(5)
                .prereqs
                .contains(&Prereq::InBox(BoxKind::RestOfTurn, 54))
        );
        assert!(card(102).prereqs.contains(&Prereq::AmendmentSent));
        assert!(card(113).prereqs.contains(&Prereq::TurnAtLeast(5)));
        assert_eq!(MAP.iter().filter(|s| s.card.is_some()).count(), 12);
        assert!(card(1).campaigner && card(71).campaigner && !card(2).campaigner);
    }
}
