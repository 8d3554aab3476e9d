//! Shared card types: the Statehood Playing Cards pack (52 state cards, 4 territory
//! wildcards, 2 jokers), loaded from `data/statehood-deck.csv` so a correction is one line.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::sync::LazyLock;

/// The four suits.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Suit {
    Spades,
    Hearts,
    Diamonds,
    Clubs,
}

impl Suit {
    /// All four, in the order spades, hearts, diamonds, clubs.
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// Blue for spades and clubs, red for hearts and diamonds.
    pub fn color(self) -> Color {
        match self {
            Suit::Spades | Suit::Clubs => Color::Blue,
            Suit::Hearts | Suit::Diamonds => Color::Red,
        }
    }

    /// ♠ ♥ ♦ ♣
    pub fn symbol(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Diamonds => '♦',
            Suit::Clubs => '♣',
        }
    }

    /// "spades", ...
    pub fn name(self) -> &'static str {
        match self {
            Suit::Spades => "spades",
            Suit::Hearts => "hearts",
            Suit::Diamonds => "diamonds",
            Suit::Clubs => "clubs",
        }
    }
}

/// The pack's two colours: blue (spades, clubs; the Democratic states) and red (hearts,
/// diamonds; the Republican states).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Blue,
    Red,
}

/// A card's rank: 2 to 10, then jack 11, queen 12, king 13, ace 14.
pub type Rank = u8;

/// Short label of a rank: "2".."10", "J", "Q", "K", "A".
pub fn rank_label(rank: Rank) -> &'static str {
    const LABELS: [&str; 13] = [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
    ];
    LABELS[usize::from(rank - 2)]
}

/// What kind of card of the pack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One of the 52 suited cards (a state, DC or Puerto Rico).
    State { rank: Rank, suit: Suit },
    /// A territory wildcard (Statehood only).
    Territory,
    /// A joker of a colour.
    Joker(Color),
}

/// The facts printed on one card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardInfo {
    /// Postal code, the card's id everywhere: `"CA"`, `"VI"`, `"BJ"`.
    pub code: String,
    /// "California".
    pub name: String,
    /// Its kind, rank and suit.
    pub kind: Kind,
    /// Electoral votes, 2024–2032 apportionment (0 for PR, territories, jokers).
    pub ev: u32,
    /// Electoral votes, 2012–2020 apportionment.
    pub ev_2012: u32,
    /// "Q♥ Tennessee (11)": rank, suit, name and EV, for logs and labels.
    pub label: String,
}

const CSV: &str = include_str!("../../../../data/statehood-deck.csv");

static PACK: LazyLock<Vec<CardInfo>> = LazyLock::new(load_pack);

/// Card index + 1 by two-letter code (`A`..`Z` squared), 0 for no card: decoding a card from
/// JSON is a table look-up.
static BY_CODE: LazyLock<[u8; 676]> = LazyLock::new(|| {
    let mut table = [0u8; 676];
    for (i, card) in PACK.iter().enumerate() {
        let slot = code_slot(&card.code).expect("pack codes are two capital letters");
        table[slot] = i as u8 + 1;
    }
    table
});

fn code_slot(code: &str) -> Option<usize> {
    match code.as_bytes() {
        &[a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
            Some(usize::from(a - b'A') * 26 + usize::from(b - b'A'))
        }
        _ => None,
    }
}

fn load_pack() -> Vec<CardInfo> {
    let mut pack = Vec::with_capacity(58);
    for line in CSV.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let rank = match f[0] {
            "A" => 14,
            "K" => 13,
            "Q" => 12,
            "J" => 11,
            n => n.parse().expect("rank in statehood-deck.csv"),
        };
        let suit = match f[1] {
            "spades" => Suit::Spades,
            "hearts" => Suit::Hearts,
            "diamonds" => Suit::Diamonds,
            "clubs" => Suit::Clubs,
            s => panic!("unknown suit {s} in statehood-deck.csv"),
        };
        pack.push(CardInfo {
            code: f[2].to_string(),
            name: f[3].to_string(),
            kind: Kind::State { rank, suit },
            ev: f[4].parse().expect("ev_2024"),
            ev_2012: f[5].parse().expect("ev_2012"),
            label: String::new(),
        });
    }
    assert_eq!(pack.len(), 52, "statehood-deck.csv must list 52 cards");
    for card in &mut pack {
        if let Kind::State { rank, suit } = card.kind {
            card.label = format!(
                "{}{} {} ({})",
                rank_label(rank),
                suit.symbol(),
                card.name,
                card.ev
            );
        }
    }
    for (code, name) in [
        ("AS", "American Samoa"),
        ("GU", "Guam"),
        ("MP", "Northern Mariana Islands"),
        ("VI", "U.S. Virgin Islands"),
    ] {
        pack.push(CardInfo {
            code: code.into(),
            name: name.into(),
            kind: Kind::Territory,
            ev: 0,
            ev_2012: 0,
            label: name.into(),
        });
    }
    for (code, name, color) in [
        ("BJ", "Blue Joker", Color::Blue),
        ("RJ", "Red Joker", Color::Red),
    ] {
        pack.push(CardInfo {
            code: code.into(),
            name: name.into(),
            kind: Kind::Joker(color),
            ev: 0,
            ev_2012: 0,
            label: name.into(),
        });
    }
    pack
}

/// One card of the Statehood pack. Serialized as its code (`"CA"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card(u8);

impl Card {
    /// The Blue (Democratic) joker.
    pub const BLUE_JOKER: Card = Card(56);
    /// The Red (Republican) joker.
    pub const RED_JOKER: Card = Card(57);

    /// Every card of the pack: 52 state cards, 4 territories, 2 jokers.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..58).map(Card)
    }

    /// The 52 suited cards.
    pub fn standard_52() -> Vec<Card> {
        (0..52).map(Card).collect()
    }

    /// The four territory wildcards.
    pub fn territories() -> Vec<Card> {
        (52..56).map(Card).collect()
    }

    /// The card's place in the pack, 0 to 57 (the order of [`Card::all`]): an index into a
    /// table made once per card.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The card with this code, if any.
    pub fn from_code(code: &str) -> Option<Card> {
        let index = BY_CODE[code_slot(code)?];
        (index > 0).then(|| Card(index - 1))
    }

    /// The card with this state's name or code (case-insensitive), for tests and tools.
    pub fn named(name: &str) -> Card {
        PACK.iter()
            .position(|c| c.code.eq_ignore_ascii_case(name) || c.name.eq_ignore_ascii_case(name))
            .map(|i| Card(i as u8))
            .unwrap_or_else(|| panic!("no card named {name}"))
    }

    /// The printed facts.
    pub fn info(self) -> &'static CardInfo {
        &PACK[usize::from(self.0)]
    }

    /// The code, e.g. `"CA"`.
    pub fn code(self) -> &'static str {
        &self.info().code
    }

    /// The code as a JSON string, made once for the whole pack: choices offer it without
    /// allocating.
    pub fn code_value(self) -> &'static serde_json::Value {
        static VALUES: LazyLock<Vec<serde_json::Value>> =
            LazyLock::new(|| Card::all().map(|c| c.code().into()).collect());
        &VALUES[self.index()]
    }

    /// The state's name.
    pub fn name(self) -> &'static str {
        &self.info().name
    }

    /// Electoral votes (2024–2032).
    pub fn ev(self) -> u32 {
        self.info().ev
    }

    /// Suit, for the 52 suited cards.
    pub fn suit(self) -> Option<Suit> {
        match self.info().kind {
            Kind::State { suit, .. } => Some(suit),
            _ => None,
        }
    }

    /// Rank, for the 52 suited cards.
    pub fn rank(self) -> Option<Rank> {
        match self.info().kind {
            Kind::State { rank, .. } => Some(rank),
            _ => None,
        }
    }

    /// The card's colour: its suit's, or the joker's. Territories have none.
    pub fn color(self) -> Option<Color> {
        match self.info().kind {
            Kind::State { suit, .. } => Some(suit.color()),
            Kind::Joker(color) => Some(color),
            Kind::Territory => None,
        }
    }

    /// True for the two jokers.
    pub fn is_joker(self) -> bool {
        matches!(self.info().kind, Kind::Joker(_))
    }

    /// True for the four territory wildcards.
    pub fn is_territory(self) -> bool {
        self.info().kind == Kind::Territory
    }

    /// "Q♥ Tennessee (11)", for logs and labels.
    pub fn label(self) -> &'static str {
        &self.info().label
    }
}

/// Compares two suited cards by rank, then by electoral votes (the pack's tie rule). Equal
/// means the earlier-played card wins, as the published clarification says.
pub fn compare_rank_ev(a: Card, b: Card) -> Ordering {
    a.rank().cmp(&b.rank()).then_with(|| a.ev().cmp(&b.ev()))
}

/// The index of the highest card in play order by rank, then EV, then first played.
pub fn highest_by_rank_ev(played: &[Card]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, &card) in played.iter().enumerate() {
        if best.is_none_or(|b| compare_rank_ev(card, played[b]) == Ordering::Greater) {
            best = Some(i);
        }
    }
    best
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let code = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Card::from_code(&code).ok_or_else(|| serde::de::Error::custom(format!("no card {code:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_matches_the_published_facts() {
        assert_eq!(Card::all().count(), 58);
        let total: u32 = Card::standard_52().iter().map(|c| c.ev()).sum();
        assert_eq!(total, 538, "2024 apportionment adds up to 538");
        let total_2012: u32 = Card::standard_52().iter().map(|c| c.info().ev_2012).sum();
        assert_eq!(total_2012, 538);
        let ca = Card::named("CA");
        assert_eq!(
            (ca.rank(), ca.suit(), ca.ev()),
            (Some(14), Some(Suit::Spades), 54)
        );
        assert_eq!(Card::named("Puerto Rico").ev(), 0);
        assert_eq!(Card::named("Puerto Rico").suit(), Some(Suit::Hearts));
        assert_eq!(Card::named("DC").color(), Some(Color::Blue));
        assert!(Card::named("VI").is_territory());
        assert_eq!(Card::RED_JOKER.color(), Some(Color::Red));
        for suit in Suit::ALL {
            let n = Card::standard_52()
                .iter()
                .filter(|c| c.suit() == Some(suit))
                .count();
            assert_eq!(n, 13, "{suit:?}");
        }
    }

    #[test]
    fn tie_rule_king_of_hearts_beats_king_of_diamonds() {
        let oh = Card::named("Ohio");
        let nc = Card::named("North Carolina");
        assert_eq!(compare_rank_ev(oh, nc), Ordering::Greater);
        // Q♥ Tennessee and Q♦ Indiana both have 11: the first played wins.
        let tn = Card::named("TN");
        let ind = Card::named("IN");
        assert_eq!(highest_by_rank_ev(&[tn, ind]), Some(0));
        assert_eq!(highest_by_rank_ev(&[ind, tn]), Some(0));
    }

    #[test]
    fn cards_serialize_as_codes() {
        let json = serde_json::to_string(&vec![Card::named("CA"), Card::BLUE_JOKER]).unwrap();
        assert_eq!(json, r#"["CA","BJ"]"#);
        let back: Vec<Card> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], Card::named("CA"));
        assert!(serde_json::from_str::<Card>(r#""XX""#).is_err());
    }
}
