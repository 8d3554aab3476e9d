//! The pack of Electoral College Combat: the 50 states and DC of the Statehood pack (538
//! electoral votes) and five wild cards, 56 cards in all. Cards serialize as short codes:
//! a state's postal code (`"CA"`), a wild card's name in capitals (`"FAKE_NEWS"`).

use crate::cards::Card;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::LazyLock;

/// The five wild cards.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Wild {
    FakeNews,
    CelebrityEndorsement,
    Recount,
    SwingState,
    RussianCollusion,
}

impl Wild {
    /// All five.
    pub const ALL: [Wild; 5] = [
        Wild::FakeNews,
        Wild::CelebrityEndorsement,
        Wild::Recount,
        Wild::SwingState,
        Wild::RussianCollusion,
    ];

    /// The card's code: `"FAKE_NEWS"`.
    pub fn code(self) -> &'static str {
        match self {
            Wild::FakeNews => "FAKE_NEWS",
            Wild::CelebrityEndorsement => "CELEBRITY_ENDORSEMENT",
            Wild::Recount => "RECOUNT",
            Wild::SwingState => "SWING_STATE",
            Wild::RussianCollusion => "RUSSIAN_COLLUSION",
        }
    }

    /// The card's name: "Fake News".
    pub fn name(self) -> &'static str {
        match self {
            Wild::FakeNews => "Fake News",
            Wild::CelebrityEndorsement => "Celebrity Endorsement",
            Wild::Recount => "Recount",
            Wild::SwingState => "Swing State",
            Wild::RussianCollusion => "Russian Collusion",
        }
    }
}

/// One card of the game: a state (or DC) or a wild card.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ECard {
    /// A state card of the Statehood pack (never Puerto Rico, a territory or a joker).
    State(Card),
    /// A wild card.
    Wild(Wild),
}

impl ECard {
    /// The 56 cards: the 51 state cards (the 52 suited cards minus Puerto Rico) and the five
    /// wild cards.
    pub fn deck() -> Vec<ECard> {
        ECard::all().to_vec()
    }

    /// The 56 cards in the order of [`ECard::deck`], made once.
    pub fn all() -> &'static [ECard] {
        static DECK: LazyLock<Vec<ECard>> =
            LazyLock::new(|| ECard::indexed().filter(|c| c.code() != "PR").collect());
        &DECK
    }

    /// Every card [`ECard::index`] numbers, in its order: the 52 suited cards (Puerto Rico,
    /// never dealt, among them) and the five wild cards.
    fn indexed() -> impl Iterator<Item = ECard> {
        Card::standard_52()
            .into_iter()
            .map(ECard::State)
            .chain(Wild::ALL.into_iter().map(ECard::Wild))
    }

    /// The card's place among `ECard::indexed`: an index into a table made once per card.
    pub fn index(self) -> usize {
        match self {
            ECard::State(c) => c.index(),
            ECard::Wild(w) => 52 + w as usize,
        }
    }

    /// A table of one value per card, in the order of [`ECard::index`].
    pub(super) fn table<T>(make: impl FnMut(ECard) -> T) -> Vec<T> {
        ECard::indexed().map(make).collect()
    }

    /// The card with this code, if it belongs to the game.
    pub fn from_code(code: &str) -> Option<ECard> {
        if let Some(wild) = Wild::ALL.into_iter().find(|w| w.code() == code) {
            return Some(ECard::Wild(wild));
        }
        Card::from_code(code)
            .filter(|c| c.rank().is_some() && c.code() != "PR")
            .map(ECard::State)
    }

    /// The state card with this code; panics otherwise (tests and tools).
    pub fn state(code: &str) -> ECard {
        match ECard::from_code(code) {
            Some(card @ ECard::State(_)) => card,
            _ => panic!("no state card {code}"),
        }
    }

    /// The code.
    pub fn code(self) -> &'static str {
        match self {
            ECard::State(c) => c.code(),
            ECard::Wild(w) => w.code(),
        }
    }

    /// The wild card, if this is one.
    pub fn wild(self) -> Option<Wild> {
        match self {
            ECard::Wild(w) => Some(w),
            ECard::State(_) => None,
        }
    }

    /// Electoral votes by the 2024–2032 apportionment, or by 2012–2020 when `ev_2012`; a wild
    /// card carries none.
    pub fn ev(self, ev_2012: bool) -> u32 {
        match self {
            ECard::State(c) if ev_2012 => c.info().ev_2012,
            ECard::State(c) => c.ev(),
            ECard::Wild(_) => 0,
        }
    }

    /// "Texas (40)", "Fake News (wild card)"; made once per card and apportionment.
    pub fn label(self, ev_2012: bool) -> &'static str {
        static LABELS: LazyLock<[Vec<String>; 2]> =
            LazyLock::new(|| [false, true].map(|ev_2012| ECard::table(|c| c.make_label(ev_2012))));
        &LABELS[usize::from(ev_2012)][self.index()]
    }

    fn make_label(self, ev_2012: bool) -> String {
        match self {
            ECard::State(c) => format!("{} ({})", c.name(), self.ev(ev_2012)),
            ECard::Wild(w) => format!("{} (wild card)", w.name()),
        }
    }

    /// The code as a JSON string, made once per card: choices offer it without allocating.
    pub fn code_value(self) -> &'static serde_json::Value {
        static VALUES: LazyLock<Vec<serde_json::Value>> =
            LazyLock::new(|| ECard::table(|c| c.code().into()));
        &VALUES[self.index()]
    }
}

impl fmt::Debug for ECard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for ECard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for ECard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ECard, D::Error> {
        let code = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        ECard::from_code(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("no card {code:?} in this game")))
    }
}
