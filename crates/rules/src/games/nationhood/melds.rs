//! What cards make: cities (same rank, jokers standing in), runs (three or more of a suit in
//! sequence, kept in the hand) and nations (seven of a suit in sequence). Aces are high or low,
//! never both in one sequence (RULES.md).

use crate::cards::{Card, Suit, rank_label};
use std::borrow::Cow;
use std::sync::LazyLock;

/// "7♥", or "Joker": the card as Nationhood names it (the states play no part).
pub fn face(card: Card) -> &'static str {
    static FACES: LazyLock<Vec<String>> = LazyLock::new(|| {
        Card::all()
            .map(|card| match (card.rank(), card.suit()) {
                (Some(rank), Some(suit)) => format!("{}{}", rank_label(rank), suit.symbol()),
                _ => "Joker".to_string(),
            })
            .collect()
    });
    &FACES[card.index()]
}

/// Cards as faces, separated by spaces.
pub fn faces(cards: &[Card]) -> String {
    let mut out = String::with_capacity(4 * cards.len());
    write_faces(cards, &mut out);
    out
}

/// Appends [`faces`] to `out`.
pub fn write_faces(cards: &[Card], out: &mut String) {
    for (i, &card) in cards.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(face(card));
    }
}

/// "7s", "Queens": a rank in the plural, for city names.
pub fn rank_plural(rank: u8) -> Cow<'static, str> {
    const PLURALS: [&str; 15] = [
        "0s", "1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "Jacks", "Queens",
        "Kings", "Aces",
    ];
    match PLURALS.get(usize::from(rank)) {
        Some(plural) => Cow::Borrowed(plural),
        None => Cow::Owned(format!("{rank}s")),
    }
}

/// Bits 1..=14 of the ranks of `suit` in `cards`, the ace set at both 1 and 14.
fn rank_bits(cards: &[Card], suit: Suit) -> u16 {
    let mut bits = 0u16;
    for card in cards {
        if card.suit() == Some(suit) {
            let rank = card.rank().expect("suited cards have ranks");
            bits |= 1 << rank;
            if rank == 14 {
                bits |= 1 << 1;
            }
        }
    }
    bits
}

/// The lengths of the maximal sequences in `bits`, as (lowest rank, length).
fn sequences(bits: u16) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut rank = 1u8;
    while rank <= 14 {
        if bits & (1 << rank) != 0 {
            let start = rank;
            while rank <= 14 && bits & (1 << rank) != 0 {
                rank += 1;
            }
            out.push((start, rank - start));
        } else {
            rank += 1;
        }
    }
    out
}

/// The longest run of natural cards of one suit in sequence in `cards`.
pub fn longest_sequence(cards: &[Card]) -> usize {
    Suit::ALL
        .iter()
        .flat_map(|&suit| sequences(rank_bits(cards, suit)))
        .map(|(_, len)| usize::from(len))
        .max()
        .unwrap_or(0)
}

/// How near `cards` are to a nation: the most natural cards of one suit within seven
/// consecutive ranks (an ace counts low or high). The practice bots' playouts keep what
/// raises it (`sample.rs`, docs/BOTS.md).
pub fn nation_progress(cards: &[Card]) -> u32 {
    Suit::ALL
        .iter()
        .map(|&suit| {
            let bits = rank_bits(cards, suit);
            (1..=8)
                .map(|low| ((bits >> low) & 0x7f).count_ones())
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

/// True when `hand` is a nation: exactly seven natural cards of one suit in sequence.
pub fn is_nation(hand: &[Card]) -> bool {
    hand.len() == 7
        && hand.iter().all(|c| !c.is_joker())
        && hand.windows(2).all(|w| w[0].suit() == w[1].suit())
        && longest_sequence(hand) == 7
}

/// The cards of `hand` that lie in runs (three or more of a suit in sequence): melded cards a
/// defender keeps in a war.
pub fn run_cards(hand: &[Card]) -> Vec<Card> {
    let mut out = Vec::new();
    for suit in Suit::ALL {
        for (start, len) in sequences(rank_bits(hand, suit)) {
            if len < 3 {
                continue;
            }
            let end = start + len;
            for &card in hand {
                let Some(rank) = card.rank().filter(|_| card.suit() == Some(suit)) else {
                    continue;
                };
                let in_run = (start..end).contains(&rank) || (rank == 14 && start == 1);
                if in_run && !out.contains(&card) {
                    out.push(card);
                }
            }
        }
    }
    out
}

/// Why a set of cards is no city, or the city's rank.
pub fn city_rank(cards: &[Card]) -> Result<u8, String> {
    if cards.len() < 3 {
        return Err("a city needs three or more cards".into());
    }
    for (i, card) in cards.iter().enumerate() {
        if cards[..i].contains(card) {
            return Err(format!("{} is named twice", face(*card)));
        }
        if card.is_territory() {
            return Err(format!("{} is not in the Nationhood pack", card.name()));
        }
    }
    let naturals: Vec<u8> = cards.iter().filter_map(|c| c.rank()).collect();
    if naturals.len() < 2 {
        return Err("a city needs at least two natural cards; jokers only stand in".into());
    }
    let rank = naturals[0];
    if naturals.iter().any(|&r| r != rank) {
        return Err("the cards of a city are all of one rank".into());
    }
    Ok(rank)
}

/// True when `card` may join a city of `rank`: a card of that rank, or a joker.
pub fn fits_city(card: Card, rank: u8) -> bool {
    card.is_joker() || card.rank() == Some(rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(faces: &[&str]) -> Vec<Card> {
        faces
            .iter()
            .map(|f| {
                Card::all()
                    .find(|&c| face(c) == *f && !c.is_territory())
                    .unwrap_or_else(|| panic!("no card {f}"))
            })
            .collect()
    }

    #[test]
    fn nations_are_seven_of_a_suit_in_sequence_aces_high_or_low() {
        assert!(is_nation(&cards(&[
            "3♥", "4♥", "5♥", "6♥", "7♥", "8♥", "9♥"
        ])));
        assert!(is_nation(&cards(&[
            "9♥", "3♥", "5♥", "4♥", "7♥", "8♥", "6♥"
        ])));
        assert!(is_nation(&cards(&[
            "A♠", "2♠", "3♠", "4♠", "5♠", "6♠", "7♠"
        ])));
        assert!(is_nation(&cards(&[
            "8♣", "9♣", "10♣", "J♣", "Q♣", "K♣", "A♣"
        ])));
        assert!(!is_nation(&cards(&[
            "Q♦", "K♦", "A♦", "2♦", "3♦", "4♦", "5♦"
        ])));
        assert!(!is_nation(&cards(&[
            "3♥", "4♥", "5♥", "6♥", "7♥", "8♥", "9♦"
        ])));
        assert!(!is_nation(&cards(&[
            "3♥", "4♥", "5♥", "6♥", "7♥", "8♥", "10♥"
        ])));
        let mut with_joker = cards(&["3♥", "4♥", "5♥", "6♥", "7♥", "8♥"]);
        with_joker.push(Card::BLUE_JOKER);
        assert!(!is_nation(&with_joker));
    }

    #[test]
    fn runs_in_hand_are_three_or_more_in_sequence() {
        let hand = cards(&["A♠", "2♠", "3♠", "9♥", "10♥", "J♥", "Q♥", "5♦", "6♦", "K♣"]);
        let runs = run_cards(&hand);
        assert_eq!(faces(&runs), "A♠ 2♠ 3♠ 9♥ 10♥ J♥ Q♥");
        assert!(run_cards(&cards(&["Q♠", "K♠", "A♠"])).len() == 3);
        assert!(run_cards(&cards(&["5♦", "6♦", "8♦", "K♣"])).is_empty());
        assert_eq!(longest_sequence(&cards(&["5♦", "6♦", "8♦", "K♣"])), 2);
    }

    #[test]
    fn cities_are_one_rank_with_two_naturals_at_least() {
        assert_eq!(city_rank(&cards(&["7♠", "7♦", "7♣"])), Ok(7));
        let mut with_joker = cards(&["7♠", "7♦"]);
        with_joker.push(Card::RED_JOKER);
        assert_eq!(city_rank(&with_joker), Ok(7));
        let one_natural = vec![cards(&["7♠"])[0], Card::RED_JOKER, Card::BLUE_JOKER];
        assert!(city_rank(&one_natural).is_err());
        assert!(city_rank(&cards(&["7♠", "7♦"])).is_err());
        assert!(city_rank(&cards(&["7♠", "7♦", "8♣"])).is_err());
    }
}
