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
    suit_bits(cards).into_iter().map(window).max().unwrap_or(0)
}

/// Whether taking `card` into `hand` raises its [`nation_progress`]: only the card's suit can
/// change, so the hand is read once and not copied.
pub fn nation_progress_rises_with(hand: &[Card], card: Card) -> bool {
    let bits = suit_bits(hand);
    let (suit, mask) = rank_masks()[card.index()];
    bits.get(usize::from(suit)).is_some_and(|&of_suit| {
        window(of_suit | mask) > bits.into_iter().map(window).max().unwrap_or(0)
    })
}

/// [`nation_progress`] of `hand` less each of its cards in turn, by position: one pass over
/// the hand rather than one a card, since taking a card out changes only its suit's ranks.
pub fn nation_progress_without_each(hand: &[Card]) -> Vec<u32> {
    let bits = suit_bits(hand);
    let windows = bits.map(window);
    let masks = rank_masks();
    hand.iter()
        .map(|card| {
            let (suit, mask) = masks[card.index()];
            let others = (0..4)
                .filter(|&s| s != usize::from(suit))
                .map(|s| windows[s])
                .max()
                .unwrap_or(0);
            match bits.get(usize::from(suit)) {
                Some(&of_suit) => others.max(window(of_suit & !mask)),
                None => others,
            }
        })
        .collect()
}

/// The most ranks set in `bits` within seven consecutive ranks.
fn window(bits: u16) -> u32 {
    (1..=8)
        .map(|low| ((bits >> low) & 0x7f).count_ones())
        .max()
        .unwrap_or(0)
}

/// Each suit's [`rank_bits`] in `cards`, in the order of [`Suit::ALL`], from one pass.
fn suit_bits(cards: &[Card]) -> [u16; 4] {
    let masks = rank_masks();
    let mut bits = [0u16; 5];
    for card in cards {
        let (suit, mask) = masks[card.index()];
        bits[usize::from(suit)] |= mask;
    }
    [bits[0], bits[1], bits[2], bits[3]]
}

/// Every card's suit (its place in [`Suit::ALL`], 4 for none) and rank bit (both of an ace's),
/// by card index.
fn rank_masks() -> &'static [(u8, u16)] {
    static MASKS: LazyLock<Vec<(u8, u16)>> = LazyLock::new(|| {
        Card::all()
            .map(|card| match (card.suit(), card.rank()) {
                (Some(suit), Some(rank)) => {
                    let place = Suit::ALL.iter().position(|&s| s == suit).expect("a suit");
                    let ace_low = if rank == 14 { 1 << 1 } else { 0 };
                    (place as u8, (1u16 << rank) | ace_low)
                }
                _ => (4, 0),
            })
            .collect()
    });
    &MASKS
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

    /// [`nation_progress`] as its doc comment defines it, suit by suit.
    fn progress_by_definition(cards: &[Card]) -> u32 {
        Suit::ALL
            .iter()
            .map(|&suit| window(rank_bits(cards, suit)))
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn progress_without_each_card_is_the_progress_of_the_rest() {
        use crate::engine::{GameRng, Seed};
        let mut rng = GameRng::new(&Seed::from_number(11), 0);
        let mut pack: Vec<Card> = Card::all().filter(|c| !c.is_territory()).collect();
        for round in 0..2000 {
            rng.shuffle(&mut pack);
            let hand = &pack[..round % 20];
            assert_eq!(
                nation_progress(hand),
                progress_by_definition(hand),
                "{hand:?}"
            );
            let without: Vec<u32> = (0..hand.len())
                .map(|i| {
                    let mut rest = hand.to_vec();
                    rest.remove(i);
                    progress_by_definition(&rest)
                })
                .collect();
            assert_eq!(nation_progress_without_each(hand), without, "{hand:?}");
        }
        for (round, &card) in pack.iter().enumerate().take(40) {
            let hand: Vec<Card> = pack[41..].iter().take(round % 12).copied().collect();
            let mut with = hand.clone();
            with.push(card);
            assert_eq!(
                nation_progress_rises_with(&hand, card),
                progress_by_definition(&with) > progress_by_definition(&hand),
                "{hand:?} and {card:?}"
            );
        }
        let ace_low = cards(&["A♠", "2♠", "3♠", "4♠", "5♠", "6♠", "7♠", "K♠"]);
        assert_eq!(nation_progress(&ace_low), 7);
        assert_eq!(
            nation_progress_without_each(&ace_low),
            [6, 6, 6, 6, 6, 6, 6, 7]
        );
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
