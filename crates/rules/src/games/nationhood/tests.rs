//! Scenario tests from the printed rules ("Nationhood", Matthew Shields, 2005) and the readings in
//! RULES.md.

use super::melds::{face, faces};
use super::*;
use crate::cards::Card;
use crate::engine::{Match, Seed};

/// A card by its face ("7♥") or a joker by its code ("BJ", "RJ").
fn c(name: &str) -> Card {
    match name {
        "BJ" => Card::BLUE_JOKER,
        "RJ" => Card::RED_JOKER,
        _ => pack()
            .into_iter()
            .find(|&card| face(card) == name)
            .unwrap_or_else(|| panic!("no card {name}")),
    }
}

fn cards(names: &str) -> Vec<Card> {
    names.split_whitespace().map(c).collect()
}

fn act(state: &mut State, seat: Seat, command: Command) -> Result<(), RuleError> {
    let mut rng = GameRng::new(&Seed::from_number(7), 3);
    Nationhood::apply(state, seat, &command, &mut rng, &mut Log::recording())
}

fn act_ok(state: &mut State, seat: Seat, command: Command) {
    let shown = format!("{command:?}");
    act(state, seat, command).unwrap_or_else(|e| panic!("{shown} refused: {e}"));
}

fn refused(state: &mut State, seat: Seat, command: Command) -> String {
    let before = state.clone();
    let error = act(state, seat, command).expect_err("must be refused");
    assert_eq!(*state, before, "a refused command changed the state");
    error.to_string()
}

/// A hand in progress: these hands, this stock (top last), empty piles, no cities; seat 0 to
/// begin a turn, seat 1 dealt.
fn table(hand0: &str, hand1: &str, stock: &str) -> State {
    let mut state = Match::<Nationhood>::new(Options::default(), 2, Seed::from_number(1))
        .unwrap()
        .state;
    state.hands = vec![cards(hand0), cards(hand1)];
    state.stock = cards(stock);
    state.piles = vec![Vec::new(), Vec::new()];
    state.cities.clear();
    state.dealer = 1;
    state.turn = 0;
    state.phase = Phase::Turn;
    state.hand_number = 1;
    state
}

/// [`table`] in a game begun under rules version 1.
fn table_v1(hand0: &str, hand1: &str, stock: &str) -> State {
    let mut state = table(hand0, hand1, stock);
    state.rules_version = 1;
    state
}

fn city(state: &mut State, owner: Seat, names: &str) -> u32 {
    let id = state.next_city;
    state.next_city += 1;
    let cards = cards(names);
    let rank = cards.iter().find_map(|c| c.rank()).unwrap();
    state.cities.push(City {
        id,
        owner,
        rank,
        cards,
    });
    id
}

fn meld(names: &str) -> Command {
    Command::Meld {
        cards: cards(names),
        jokers: Vec::new(),
    }
}

fn discard(name: &str) -> Command {
    Command::Discard { card: c(name) }
}

fn lay_off(name: &str, city: u32) -> Command {
    Command::LayOff {
        card: c(name),
        city,
    }
}

fn exchange(name: &str, city: u32) -> Command {
    Command::Exchange {
        card: c(name),
        city,
    }
}

fn offer(give: &[u32], take: &[u32]) -> Command {
    Command::Offer {
        give: give.to_vec(),
        take: take.to_vec(),
    }
}

const STOCK: &str = "2♦ 3♦ 4♣ 5♣ 6♥ 7♣ 8♠ 9♦ 10♣ J♦ Q♣ K♥ A♦";

#[test]
fn the_deal_gives_seven_each_and_turns_up_the_non_dealers_first_discard() {
    for n in 0..20 {
        let state = Match::<Nationhood>::new(Options::default(), 2, Seed::from_number(n))
            .unwrap()
            .state;
        let first = State::other(state.dealer);
        assert_eq!(state.hands[0].len(), 7);
        assert_eq!(state.hands[1].len(), 7);
        assert_eq!(
            state.piles[first].len(),
            1,
            "the upcard starts the non-dealer's pile"
        );
        assert!(state.piles[state.dealer].is_empty());
        assert_eq!(state.stock.len(), 54 - 15);
        assert_eq!((state.turn, state.phase), (first, Phase::Turn));
        let mut all: Vec<Card> = state.hands.concat();
        all.extend(&state.stock);
        all.extend(state.piles.concat());
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 54, "52 cards and two jokers, each once");
    }
}

#[test]
fn a_turn_draws_to_eight_melds_a_city_replenishes_and_discards_to_the_opponent() {
    // "spade6, diamond6 and club6": a city, laid down; the hand is made up to eight from the
    // stock; the discard goes face up in front of the opponent.
    let mut state = table("6♠ 6♦ 6♣ 2♥ 9♣ K♦ 4♠", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    act_ok(&mut state, 0, Command::DrawStock);
    assert_eq!(state.hands[0].len(), 8);
    assert_eq!(state.phase, Phase::Melding);
    act_ok(&mut state, 0, meld("6♠ 6♦ 6♣"));
    assert_eq!(state.cities.len(), 1);
    assert_eq!((state.cities[0].owner, state.cities[0].rank), (0, 6));
    assert_eq!(state.hands[0].len(), 8, "replenished from the stock");
    assert_eq!(state.stock.len(), 13 - 4);
    act_ok(&mut state, 0, discard("K♦"));
    assert_eq!(state.hands[0].len(), 7);
    assert_eq!(state.piles[1], cards("K♦"), "the opponent's discard pile");
    assert_eq!((state.turn, state.phase), (1, Phase::Turn));
    // Seat 1 may draw from the top of their own pile.
    act_ok(&mut state, 1, Command::DrawPile);
    assert!(state.hands[1].contains(&c("K♦")));
    assert!(state.piles[1].is_empty());
}

#[test]
fn version_1_cities_need_one_rank_and_two_natural_cards() {
    let mut state = table_v1("6♠ 6♦ 7♣ BJ RJ 9♣ K♦", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    act_ok(&mut state, 0, Command::DrawStock);
    assert_eq!(
        refused(&mut state, 0, meld("6♠ 6♦ 7♣")),
        "the cards of a city are all of one rank"
    );
    assert_eq!(
        refused(&mut state, 0, meld("6♠ 6♦")),
        "a city needs three or more cards"
    );
    assert_eq!(
        refused(&mut state, 0, meld("6♠ BJ RJ")),
        "a city needs at least two natural cards; jokers only stand in"
    );
    assert_eq!(
        refused(&mut state, 0, meld("6♠ 6♦ 6♥")),
        "6♥ is not in your hand"
    );
    act_ok(
        &mut state,
        0,
        Command::Meld {
            cards: cards("6♠ 6♦"),
            jokers: cards("BJ"),
        },
    );
    assert_eq!(faces(&state.cities[0].cards), "6♠ 6♦ Joker");
}

#[test]
fn a_card_is_laid_off_on_the_opponents_city_and_the_hand_replenished() {
    let mut state = table("6♥ 2♥ 9♣ K♦ 4♠ 3♣ 10♦", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    let theirs = city(&mut state, 1, "6♠ 6♦ 6♣");
    act_ok(&mut state, 0, Command::DrawStock);
    let err = refused(&mut state, 0, lay_off("2♥", theirs));
    assert_eq!(err, "2♥ does not belong in a city of 6s");
    act_ok(&mut state, 0, lay_off("6♥", theirs));
    let city = state.city(theirs).unwrap();
    assert_eq!(
        (city.owner, city.cards.len()),
        (1, 4),
        "still the opponent's city"
    );
    assert_eq!(state.hands[0].len(), 8, "replenished");
    assert!(!state.hands[0].contains(&c("6♥")));
}

#[test]
fn version_1_a_joker_in_ones_own_city_is_exchanged_for_the_natural_card() {
    let mut state = table_v1("9♣ 2♥ 4♠ K♦ 3♣ 10♦ 5♠", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    let mine = city(&mut state, 0, "9♠ 9♦ BJ");
    let theirs = city(&mut state, 1, "5♦ 5♣ RJ");
    act_ok(&mut state, 0, Command::DrawStock);
    let err = refused(&mut state, 0, exchange("5♠", theirs));
    assert_eq!(err, "you may exchange a joker only in a city of your own");
    let err = refused(&mut state, 0, exchange("K♦", mine));
    assert_eq!(
        err,
        "only a natural card of the city's rank (9s) may take a joker's place"
    );
    act_ok(&mut state, 0, exchange("9♣", mine));
    assert_eq!(faces(&state.city(mine).unwrap().cards), "9♠ 9♦ 9♣");
    assert!(state.hands[0].contains(&Card::BLUE_JOKER));
    assert_eq!(state.hands[0].len(), 8);
    let err = refused(&mut state, 0, exchange("9♣", mine));
    assert_eq!(err, "9♣ is not in your hand");
}

#[test]
fn an_accepted_trade_swaps_cities_and_ends_the_turn() {
    let mut state = table("2♥ 4♠ K♦ 3♣ 10♦ 5♠ 8♣", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    let sixes = city(&mut state, 0, "6♠ 6♦ 6♣");
    let kings = city(&mut state, 1, "K♠ K♥ K♣");
    let queens = city(&mut state, 1, "Q♠ Q♥ Q♣");
    // Two for one: the 6s for the kings and the queens.
    act_ok(&mut state, 0, offer(&[sixes], &[kings, queens]));
    assert_eq!(Nationhood::active(&state), vec![1]);
    assert_eq!(
        refused(&mut state, 0, Command::Accept),
        "it is not your turn"
    );
    act_ok(&mut state, 1, Command::Accept);
    assert_eq!(state.city(sixes).unwrap().owner, 1);
    assert_eq!(state.city(kings).unwrap().owner, 0);
    assert_eq!(state.city(queens).unwrap().owner, 0);
    assert_eq!((state.turn, state.phase), (1, Phase::Turn));
    assert_eq!(state.hands[0].len(), 7, "diplomacy forgoes the draw");
    assert!(state.war_threats.is_empty());
    // One for none: seat 1 demands the kings back and seat 0 gives them.
    act_ok(&mut state, 1, offer(&[], &[kings]));
    act_ok(&mut state, 0, Command::Accept);
    assert_eq!(state.city(kings).unwrap().owner, 1);
}

#[test]
fn offers_name_real_cities_of_the_right_owner() {
    let mut state = table("2♥ 4♠ K♦ 3♣ 10♦ 5♠ 8♣", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    let sixes = city(&mut state, 0, "6♠ 6♦ 6♣");
    let kings = city(&mut state, 1, "K♠ K♥ K♣");
    let empty = offer(&[], &[]);
    assert_eq!(
        refused(&mut state, 0, empty),
        "a trade names at least one city"
    );
    let wrong = offer(&[kings], &[]);
    assert_eq!(
        refused(&mut state, 0, wrong),
        format!("city {kings} is not yours")
    );
    let twice = offer(&[sixes, sixes], &[]);
    assert_eq!(
        refused(&mut state, 0, twice),
        format!("city {sixes} is named twice")
    );
    let missing = offer(&[], &[99]);
    assert_eq!(refused(&mut state, 0, missing), "there is no city 99");
}

/// Seat 0 offers the 6s for the kings; seat 1 refuses and plays a turn; seat 0 may now declare
/// war. Seat 1 holds a run (8♥ 9♥ 10♥), three loose cards and the red joker, and controls the
/// kings.
fn refused_trade() -> (State, u32) {
    let mut state = table("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "8♥ 9♥ 10♥ 2♣ 5♦ J♠ RJ", STOCK);
    let sixes = city(&mut state, 0, "6♠ 6♦ 6♣");
    let kings = city(&mut state, 1, "K♠ K♦ K♣");
    act_ok(&mut state, 0, offer(&[sixes], &[kings]));
    act_ok(&mut state, 1, Command::Refuse);
    assert_eq!(state.war_threats, vec![0]);
    assert_eq!((state.turn, state.phase), (1, Phase::Turn));
    assert_eq!(
        refused(&mut state, 1, Command::DeclareWar),
        "war may be declared only on the turn after your diplomacy is refused"
    );
    act_ok(&mut state, 1, Command::DrawStock);
    act_ok(&mut state, 1, discard("2♣"));
    assert_eq!(state.turn, 0);
    (state, kings)
}

#[test]
fn a_refused_trade_lets_the_offerer_declare_war_with_a_joker_and_the_defender_keeps_runs() {
    let (mut state, _) = refused_trade();
    let choices = Nationhood::choices(&state, 0);
    assert!(choices.iter().any(|c| c.command["type"] == "declare_war"));
    act_ok(&mut state, 0, Command::DeclareWar);
    // The defender keeps the run and, having a meld in place, the joker; the kings city and
    // the loose cards (5♦ J♠ and the drawn card) go to the declarer.
    let mut kept = state.hands[1].clone();
    kept.sort();
    let mut expected = cards("8♥ 9♥ 10♥ RJ");
    expected.sort();
    assert_eq!(kept, expected);
    assert!(
        state.cities_of(1).next().is_none(),
        "the cities are handed over"
    );
    for card in cards("K♠ K♦ K♣ 5♦ J♠") {
        assert!(state.hands[0].contains(&card), "{} merged", face(card));
    }
    assert_eq!(state.hands[0].len(), 6 + 6);
    assert_eq!(state.piles[0].last(), Some(&Card::BLUE_JOKER));
    assert_eq!((state.turn, state.phase), (0, Phase::Whittle));
    // Whittle to seven: a city of kings, then two discards onto the defender's pile.
    act_ok(&mut state, 0, meld("K♠ K♦ K♣"));
    assert_eq!(state.hands[0].len(), 9, "no replenishing while whittling");
    assert_eq!(state.phase, Phase::Whittle);
    act_ok(&mut state, 0, discard("2♥"));
    act_ok(&mut state, 0, discard("4♠"));
    assert_eq!(state.hands[0].len(), 7);
    // The joker is placed on top of the defender's pile; the defender responds.
    assert_eq!(
        state.piles[1][state.piles[1].len() - 3..],
        [c("2♥"), c("4♠"), Card::BLUE_JOKER]
    );
    assert!(!state.piles[0].contains(&Card::BLUE_JOKER));
    assert_eq!((state.turn, state.phase), (1, Phase::Response));
}

#[test]
fn war_needs_refused_diplomacy_and_a_joker_and_the_chance_lapses_after_one_turn() {
    let (mut state, _) = refused_trade();
    state.hands[0].retain(|c| !c.is_joker());
    state.hands[0].push(c("Q♥"));
    assert_eq!(
        refused(&mut state, 0, Command::DeclareWar),
        "declaring war takes a joker, and you hold none"
    );
    let (mut state, _) = refused_trade();
    act_ok(&mut state, 0, Command::DrawStock);
    act_ok(&mut state, 0, discard("2♥"));
    act_ok(&mut state, 1, Command::DrawStock);
    act_ok(&mut state, 1, discard("5♦"));
    assert!(state.war_threats.is_empty());
    assert_eq!(
        refused(&mut state, 0, Command::DeclareWar),
        "war may be declared only on the turn after your diplomacy is refused"
    );
}

#[test]
fn a_defender_with_no_meld_in_place_hands_over_the_joker_too() {
    let mut state = table("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "8♥ 10♥ 2♣ 5♦ J♠ RJ Q♦", STOCK);
    state.war_threats = vec![0];
    act_ok(&mut state, 0, Command::DeclareWar);
    assert!(
        state.hands[1].is_empty(),
        "no run, no city: everything goes"
    );
    assert!(state.hands[0].contains(&Card::RED_JOKER));
    assert_eq!(state.hands[0].len(), 13);
}

#[test]
fn a_declarer_left_with_seven_or_fewer_does_not_whittle() {
    // The defender holds two runs and no city: nothing to hand over.
    let mut state = table("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "8♥ 9♥ 10♥ 2♣ 3♣ 4♣ 5♣", STOCK);
    state.hands[1] = cards("8♥ 9♥ 10♥ 2♠ 3♠ 4♠ 5♠");
    state.war_threats = vec![0];
    act_ok(&mut state, 0, Command::DeclareWar);
    assert_eq!(state.hands[0].len(), 6);
    assert_eq!(state.hands[1].len(), 7);
    assert_eq!(state.piles[1].last(), Some(&Card::BLUE_JOKER));
    assert_eq!((state.turn, state.phase), (1, Phase::Response));
}

#[test]
fn the_defender_retaliates_with_the_joker_and_wars_go_back_and_forth() {
    let (mut state, _) = refused_trade();
    act_ok(&mut state, 0, Command::DeclareWar);
    act_ok(&mut state, 0, meld("K♠ K♦ K♣"));
    act_ok(&mut state, 0, discard("2♥"));
    act_ok(&mut state, 0, discard("4♠"));
    let declarer_hand = state.hands[0].clone();
    // Seat 1 retaliates: the joker stays on their own pile while they whittle; seat 0 hands
    // over the 6s and kings cities and the loose cards.
    act_ok(&mut state, 1, Command::Retaliate);
    assert!(state.cities.is_empty());
    assert_eq!(state.phase, Phase::Whittle);
    assert_eq!(state.piles[1].last(), Some(&Card::BLUE_JOKER));
    assert!(
        super::melds::run_cards(&declarer_hand).is_empty(),
        "seat 0 had no run"
    );
    assert!(state.hands[0].is_empty(), "so seat 0 keeps nothing");
    while state.hands[1].len() > 7 {
        let card = *state.hands[1]
            .iter()
            .find(|c| !c.is_joker() && c.rank() != Some(6))
            .unwrap();
        act_ok(&mut state, 1, Command::Discard { card });
    }
    assert_eq!(state.piles[0].last(), Some(&Card::BLUE_JOKER));
    assert_eq!((state.turn, state.phase), (0, Phase::Response));
    // And seat 0 could retaliate again.
    assert!(
        Nationhood::choices(&state, 0)
            .iter()
            .any(|c| c.command["type"] == "retaliate")
    );
}

#[test]
fn the_defender_rebuilds_one_card_at_a_time_to_eight_then_discards() {
    let (mut state, _) = refused_trade();
    act_ok(&mut state, 0, Command::DeclareWar);
    act_ok(&mut state, 0, meld("K♠ K♦ K♣"));
    act_ok(&mut state, 0, discard("2♥"));
    act_ok(&mut state, 0, discard("4♠"));
    assert_eq!(state.hands[1].len(), 4);
    // The first card may be the joker from the top of the pile.
    act_ok(&mut state, 1, Command::DrawPile);
    assert!(state.hands[1].contains(&Card::BLUE_JOKER));
    assert_eq!(state.phase, Phase::Rebuild);
    assert_eq!(
        refused(&mut state, 1, Command::Retaliate),
        "draw (or make a city) until eight cards are in your hand"
    );
    act_ok(&mut state, 1, Command::DrawStock);
    act_ok(&mut state, 1, Command::DrawPile);
    assert_eq!(state.phase, Phase::Rebuild);
    act_ok(&mut state, 1, Command::DrawStock);
    assert_eq!(state.hands[1].len(), 8);
    assert_eq!(state.phase, Phase::Melding);
    act_ok(&mut state, 1, discard("8♥"));
    assert_eq!((state.turn, state.phase), (0, Phase::Turn));
}

#[test]
fn seven_in_suit_sequence_after_discarding_claims_victory_and_scores_cities() {
    let mut state = table("3♥ 4♥ 5♥ 6♥ 7♥ 8♥ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", STOCK);
    city(&mut state, 0, "6♠ 6♦ 6♣");
    city(&mut state, 0, "J♠ J♦ J♥");
    city(&mut state, 1, "A♠ A♥ A♣");
    state.piles[0] = cards("9♥");
    act_ok(&mut state, 0, Command::DrawPile);
    act_ok(&mut state, 0, discard("K♣"));
    let end = state.last_hand.clone().expect("the hand is over");
    assert_eq!(
        (end.winner, end.kind, end.cities, end.points),
        (Some(0), HandEndKind::Nation, 2, 5)
    );
    assert_eq!(faces(end.nation.as_ref().unwrap()), "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥");
    assert_eq!(
        state.scores,
        vec![5, 0],
        "three for the win and one per city"
    );
    // The next hand is dealt by the other player.
    assert_eq!((state.hand_number, state.dealer), (2, 0));
    assert_eq!(state.hands[0].len(), 7);
    assert!(state.cities.is_empty());
}

#[test]
fn a_declarer_whittled_to_a_nation_claims_victory() {
    let mut state = table("BJ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣", "8♣ 9♦ K♥", STOCK);
    state.war_threats = vec![0];
    act_ok(&mut state, 0, Command::DeclareWar);
    act_ok(&mut state, 0, discard("9♦"));
    act_ok(&mut state, 0, discard("K♥"));
    let end = state.last_hand.clone().expect("victory");
    assert_eq!((end.winner, end.kind), (Some(0), HandEndKind::Nation));
    assert_eq!(state.scores, vec![3, 0]);
}

#[test]
fn a_rubber_is_played_to_seven_points() {
    let mut state = table("3♥ 4♥ 5♥ 6♥ 7♥ 8♥ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", STOCK);
    state.scores = vec![4, 6];
    state.piles[0] = cards("9♥");
    act_ok(&mut state, 0, Command::DrawPile);
    act_ok(&mut state, 0, discard("K♣"));
    assert_eq!(state.phase, Phase::Over);
    let outcome = Nationhood::outcome(&state).unwrap();
    assert_eq!(outcome.winners, vec![0]);
    assert_eq!(outcome.scores, vec![7, 6]);
    assert!(Nationhood::active(&state).is_empty());
}

#[test]
fn best_of_three_rubbers() {
    let options = Options {
        rubbers: 3,
        target: 7,
        ..Options::default()
    };
    let mut state = table("3♥ 4♥ 5♥ 6♥ 7♥ 8♥ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", STOCK);
    state.options = options.clone();
    state.scores = vec![5, 2];
    state.piles[0] = cards("9♥");
    act_ok(&mut state, 0, Command::DrawPile);
    act_ok(&mut state, 0, discard("K♣"));
    assert_eq!(state.rubbers_won, vec![1, 0]);
    assert_eq!((state.rubber, state.scores.clone()), (2, vec![0, 0]));
    assert_eq!(state.phase, Phase::Turn, "the second rubber is dealt");
    // Seat 1 takes the second rubber, then seat 0 the third.
    for (winner, rubbers_won) in [(1, vec![1, 1]), (0, vec![2, 1])] {
        let loser = State::other(winner);
        let mut hands = vec![cards("2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦"); 2];
        hands[winner] = cards("3♥ 4♥ 5♥ 6♥ 7♥ 8♥ K♣");
        state.hands = hands;
        state.stock = cards(STOCK);
        state.piles = vec![Vec::new(), Vec::new()];
        state.piles[winner] = cards("9♥");
        state.scores = vec![0, 0];
        state.scores[winner] = 6;
        state.turn = winner;
        act_ok(&mut state, winner, Command::DrawPile);
        act_ok(&mut state, winner, discard("K♣"));
        assert_eq!(state.rubbers_won, rubbers_won, "{loser} lost");
    }
    let outcome = state.outcome.clone().unwrap();
    assert_eq!((outcome.winners, outcome.scores), (vec![0], vec![2, 1]));
}

#[test]
fn version_1_when_the_stock_runs_out_the_hand_goes_to_more_cities_then_the_longer_sequence() {
    // Seat 0 draws the last card; seat 1 controls a city: seat 1 takes the hand.
    let mut state = table_v1("3♥ 4♥ 5♥ 9♠ 7♦ 8♣ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", "2♦");
    city(&mut state, 1, "6♠ 6♦ 6♣");
    act_ok(&mut state, 0, Command::DrawStock);
    act_ok(&mut state, 0, discard("K♣"));
    let end = state.last_hand.clone().unwrap();
    assert_eq!(
        (end.winner, end.kind, end.points),
        (Some(1), HandEndKind::StockOut, 4)
    );
    // No cities: the longer suit sequence in hand wins (seat 0's 3♥ 4♥ 5♥).
    let mut state = table_v1("3♥ 4♥ 5♥ 9♠ 7♦ 8♣ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", "2♦");
    act_ok(&mut state, 0, Command::DrawStock);
    act_ok(&mut state, 0, discard("K♣"));
    assert_eq!(state.last_hand.clone().unwrap().winner, Some(0));
    // All equal: the player who did not take the last card.
    let mut state = table_v1("3♥ 4♥ 9♠ 7♦ 8♣ K♣ J♥", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", "2♦");
    act_ok(&mut state, 0, Command::DrawStock);
    act_ok(&mut state, 0, discard("K♣"));
    assert_eq!(state.last_hand.clone().unwrap().winner, Some(1));
}

#[test]
fn the_answerer_cannot_tell_a_bluff_from_a_threat() {
    let make = |offerer_hand: &str| {
        let mut state = table(offerer_hand, "8♥ 9♥ 10♥ 2♣ 5♦ J♠ Q♦", STOCK);
        let sixes = city(&mut state, 0, "6♠ 6♦ 6♣");
        let kings = city(&mut state, 1, "K♠ K♦ K♣");
        act_ok(&mut state, 0, offer(&[sixes], &[kings]));
        state
    };
    let armed = make("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦");
    let bluff = make("A♣ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦");
    for viewer in [Viewer::Seat(1), Viewer::Spectator] {
        assert_eq!(
            serde_json::to_value(Nationhood::view(&armed, viewer)).unwrap(),
            serde_json::to_value(Nationhood::view(&bluff, viewer)).unwrap()
        );
    }
    assert_eq!(
        Nationhood::choices(&armed, 1),
        Nationhood::choices(&bluff, 1)
    );
}

#[test]
fn views_show_the_table_and_ones_own_hand_only() {
    let mut state = table("3♥ 4♥ 5♥ 9♠ 7♦ 8♣ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", STOCK);
    state.piles[1] = cards("A♦ 10♠");
    let view = serde_json::to_string(&Nationhood::view(&state, Viewer::Seat(0))).unwrap();
    assert!(view.contains(&format!("\"{}\"", c("9♠").code())));
    assert!(
        !view.contains(&format!("\"{}\"", c("Q♦").code())),
        "the other hand"
    );
    assert!(
        !view.contains(&format!("\"{}\"", c("K♥").code())),
        "the stock"
    );
    assert!(
        view.contains(&format!("\"{}\"", c("10♠").code())),
        "the piles are face up"
    );
    let view = Nationhood::view(&state, Viewer::Seat(0));
    assert_eq!(view.runs[0].as_deref(), Some(&cards("3♥ 4♥ 5♥")[..]));
    assert_eq!(view.runs[1], None);
    let auditor = Nationhood::view(&state, Viewer::Auditor);
    assert_eq!(auditor.stock.unwrap().len(), 13);
}

#[test]
fn two_refusals_in_a_row_leave_both_players_free_to_declare_war() {
    let mut state = table("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "RJ 9♥ 5♥ 2♣ 5♦ J♠ Q♦", STOCK);
    let sixes = city(&mut state, 0, "6♠ 6♦ 6♣");
    let kings = city(&mut state, 1, "K♠ K♦ K♣");
    act_ok(&mut state, 0, offer(&[], &[kings]));
    act_ok(&mut state, 1, Command::Refuse);
    // Seat 1 answers with diplomacy of its own, and seat 0 refuses in turn.
    act_ok(&mut state, 1, offer(&[], &[sixes]));
    act_ok(&mut state, 0, Command::Refuse);
    assert_eq!(state.war_threats, vec![0, 1]);
    // Seat 0's next turn has come: war. Seat 1 retaliates, so its own chance is spent with the
    // turn, and neither may declare war again without new diplomacy.
    act_ok(&mut state, 0, Command::DeclareWar);
    while state.phase == Phase::Whittle {
        let card = *state.hands[0].iter().find(|c| !c.is_joker()).unwrap();
        act_ok(&mut state, 0, Command::Discard { card });
    }
    assert_eq!(state.war_threats, vec![1]);
    act_ok(&mut state, 1, Command::Retaliate);
    while state.phase == Phase::Whittle {
        let card = *state.hands[1].iter().find(|c| !c.is_joker()).unwrap();
        act_ok(&mut state, 1, Command::Discard { card });
    }
    assert!(state.war_threats.is_empty());
    assert_eq!((state.turn, state.phase), (0, Phase::Response));
}

#[test]
fn jokers_are_not_wild_in_cities() {
    let mut state = table("6♠ 6♦ 6♥ BJ RJ 9♣ K♦", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    let theirs = city(&mut state, 1, "K♠ K♥ K♣");
    act_ok(&mut state, 0, Command::DrawStock);
    let no_jokers =
        "jokers are not wild in cities: a city is three or more natural cards of one rank";
    let with_joker = Command::Meld {
        cards: cards("6♠ 6♦"),
        jokers: cards("BJ"),
    };
    assert_eq!(refused(&mut state, 0, with_joker), no_jokers);
    assert_eq!(refused(&mut state, 0, meld("6♠ 6♦ RJ")), no_jokers);
    assert_eq!(
        refused(&mut state, 0, lay_off("BJ", theirs)),
        "a joker is not added to a city; it may be exchanged into one of your own cities"
    );
    let choices = Nationhood::choices(&state, 0);
    assert!(choices.iter().all(|c| !c.label.contains("with a joker")));
    assert!(
        choices
            .iter()
            .filter(|c| c.command["type"] == "lay_off")
            .all(|c| !format!("{:?}", c.params).contains("\"BJ\"")),
        "no joker is offered for a lay-off"
    );
    act_ok(&mut state, 0, meld("6♠ 6♦ 6♥"));
    assert_eq!(faces(&state.cities[1].cards), "6♠ 6♦ 6♥");
}

#[test]
fn a_joker_from_the_hand_is_exchanged_for_a_card_melded_in_ones_own_city() {
    // Seat 0 holds 4♠ to 6♠ and 8♠ to 10♠ and needs the 7♠ melded in their city of 7s.
    let mut state = table("4♠ 5♠ 6♠ 8♠ 9♠ 10♠ BJ", "2♠ 3♠ 4♥ 5♥ 8♥ J♣ Q♦", STOCK);
    let mine = city(&mut state, 0, "7♠ 7♦ 7♣");
    let theirs = city(&mut state, 1, "5♦ 5♣ 5♥");
    act_ok(&mut state, 0, Command::DrawStock);
    assert_eq!(
        refused(&mut state, 0, exchange("5♦", theirs)),
        "you may exchange a joker only in a city of your own"
    );
    assert_eq!(
        refused(&mut state, 0, exchange("7♥", mine)),
        "7♥ is not in that city"
    );
    let offered = Nationhood::choices(&state, 0)
        .into_iter()
        .find(|c| c.command["type"] == "exchange")
        .expect("the exchange is offered");
    assert_eq!(offered.command["city"], mine);
    act_ok(&mut state, 0, exchange("7♠", mine));
    assert_eq!(faces(&state.city(mine).unwrap().cards), "Joker 7♦ 7♣");
    assert!(state.hands[0].contains(&c("7♠")));
    assert!(!state.hands[0].contains(&Card::BLUE_JOKER));
    assert_eq!(state.hands[0].len(), 8, "one for one: nothing to replenish");
    assert_eq!(
        refused(&mut state, 0, exchange("7♦", mine)),
        "exchanging takes a joker from your hand, and you hold none"
    );
    // Discarding the drawn card leaves seven spades in sequence: the nation.
    let drawn = *state.hands[0]
        .iter()
        .find(|c| c.suit() != Some(crate::cards::Suit::Spades))
        .unwrap();
    act_ok(&mut state, 0, Command::Discard { card: drawn });
    let end = state.last_hand.clone().expect("the hand is won");
    assert_eq!((end.winner, end.kind), (Some(0), HandEndKind::Nation));
}

#[test]
fn a_defender_keeps_a_joker_only_with_a_run_in_hand_not_with_a_city() {
    // A city but no run: the joker goes with the city.
    let mut state = table("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "8♥ 10♥ 2♣ 5♦ J♠ RJ Q♦", STOCK);
    city(&mut state, 1, "K♠ K♦ K♣");
    state.war_threats = vec![0];
    act_ok(&mut state, 0, Command::DeclareWar);
    assert!(
        state.hands[1].is_empty(),
        "the city is no meld the joker stays with"
    );
    assert!(state.hands[0].contains(&Card::RED_JOKER));
    // A run: the joker stays with it.
    let mut state = table("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "8♥ 9♥ 10♥ 2♣ 5♦ RJ Q♦", STOCK);
    state.war_threats = vec![0];
    act_ok(&mut state, 0, Command::DeclareWar);
    let mut kept = state.hands[1].clone();
    kept.sort();
    let mut expected = cards("8♥ 9♥ 10♥ RJ");
    expected.sort();
    assert_eq!(kept, expected);
    // Version 1 let the city count.
    let mut state = table_v1("BJ 7♣ 7♦ 2♥ 4♠ 3♣ 10♦", "8♥ 10♥ 2♣ 5♦ J♠ RJ Q♦", STOCK);
    city(&mut state, 1, "K♠ K♦ K♣");
    state.war_threats = vec![0];
    act_ok(&mut state, 0, Command::DeclareWar);
    assert_eq!(state.hands[1], vec![Card::RED_JOKER]);
}

#[test]
fn the_stock_is_rebuilt_once_from_the_discard_piles_then_the_hand_ends_without_a_winner() {
    let mut state = table("3♥ 4♥ 9♠ 7♦ 8♣ K♣ J♥", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", "2♦");
    city(&mut state, 1, "6♠ 6♦ 6♣");
    state.piles = vec![cards("5♣ 9♦ 10♣"), cards("A♦ Q♣")];
    act_ok(&mut state, 0, Command::DrawStock);
    // The last card is gone: the piles but their tops make the new stock.
    assert!(state.restocked);
    let mut rebuilt = state.stock.clone();
    rebuilt.sort();
    let mut expected = cards("5♣ 9♦ A♦");
    expected.sort();
    assert_eq!(rebuilt, expected);
    assert_eq!(state.piles, vec![cards("10♣"), cards("Q♣")]);
    act_ok(&mut state, 0, discard("K♣"));
    assert!(state.last_hand.is_none(), "the hand goes on");
    // The rebuilt stock runs out in its turn: nobody wins, though seat 1 has a city.
    state.stock = cards("2♥");
    act_ok(&mut state, 1, Command::DrawStock);
    act_ok(&mut state, 1, discard("Q♦"));
    let end = state.last_hand.clone().expect("the hand is over");
    assert_eq!(
        (end.winner, end.kind, end.points),
        (None, HandEndKind::NoWinner, 0)
    );
    assert_eq!(state.scores, vec![0, 0]);
    assert_eq!((state.hand_number, state.hands_without_winner), (2, 1));
    assert!(!state.restocked, "a new hand has a new stock");
    assert_eq!(state.stock.len(), 54 - 15);
}

#[test]
fn three_hands_in_a_row_without_a_winner_end_the_match_drawn() {
    let mut state = table("3♥ 4♥ 9♠ 7♦ 8♣ K♣ J♥", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", "2♦");
    state.scores = vec![5, 2];
    state.hands_without_winner = 2;
    state.restocked = true;
    act_ok(&mut state, 0, Command::DrawStock);
    act_ok(&mut state, 0, discard("K♣"));
    assert_eq!(state.phase, Phase::Over);
    let outcome = state.outcome.clone().unwrap();
    assert!(outcome.winners.is_empty());
    assert_eq!(outcome.scores, vec![5, 2]);
    assert_eq!(
        outcome.reason,
        "the match is drawn: 3 hands in a row ended without a nation"
    );
    // A nation in between starts the count again.
    let mut state = table("3♥ 4♥ 5♥ 6♥ 7♥ 8♥ K♣", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", STOCK);
    state.hands_without_winner = 2;
    state.piles[0] = cards("9♥");
    act_ok(&mut state, 0, Command::DrawPile);
    act_ok(&mut state, 0, discard("K♣"));
    assert_eq!(state.hands_without_winner, 0);
}

#[test]
fn the_house_rule_on_drawn_matches_is_an_option() {
    let play_out = |draw_after: u32, without: u32| {
        let mut state = table("3♥ 4♥ 9♠ 7♦ 8♣ K♣ J♥", "2♠ 3♠ 4♦ 5♦ 8♠ J♣ Q♦", "2♦");
        state.options.draw_after = draw_after;
        state.hands_without_winner = without;
        state.restocked = true;
        act_ok(&mut state, 0, Command::DrawStock);
        act_ok(&mut state, 0, discard("K♣"));
        state
    };
    let state = play_out(1, 0);
    assert_eq!(state.phase, Phase::Over, "one hand without a nation draws");
    assert_eq!(
        state.outcome.unwrap().reason,
        "the match is drawn: 1 hand in a row ended without a nation"
    );
    let state = play_out(5, 2);
    assert_ne!(
        state.phase,
        Phase::Over,
        "five are needed: the match goes on"
    );
    assert_eq!(state.hands_without_winner, 3);
    // The default is three, left out of the serialized options so old records hash the same.
    assert_eq!(Options::default().draw_after, 3);
    assert_eq!(
        serde_json::to_value(Options::default()).unwrap(),
        serde_json::json!({"rubbers": 1, "target": 7})
    );
    let spec = Nationhood::option_specs();
    let rule = spec.iter().find(|s| s.key == "draw_after").unwrap();
    assert!(rule.label.starts_with("House rule"));
    assert!(
        Options {
            draw_after: 0,
            ..Options::default()
        }
        .validate()
        .is_err()
    );
}

/// Where random play never makes a nation, the bots' playout moves do: matches played to the
/// end by them alone have winners (docs/BOTS.md, "Where search alone plays badly").
#[test]
fn playouts_that_play_for_a_nation_make_nations_where_random_play_makes_none() {
    use crate::engine::bot::{bot_rng, random_command};
    use crate::engine::search::random_to_end;
    let matches = 60u64;
    let (mut by_policy, mut by_random) = (0u64, 0u64);
    for n in 0..matches {
        let seed = Seed::from_number(n);
        let mut rng = GameRng::new(&seed, 0);
        let state = Nationhood::setup(&Options::default(), 2, &mut rng).unwrap();
        let mut played = state.clone();
        let outcome = random_to_end::<Nationhood>(&mut played, &mut rng).expect("ends");
        by_policy += u64::from(!outcome.winners.is_empty());
        let mut live = crate::games::find_game("nationhood")
            .unwrap()
            .new_match(&serde_json::json!({}), 2, seed)
            .unwrap();
        let mut bot = bot_rng(&seed);
        while live.outcome().is_none() {
            let seat = live.active()[0];
            let command = random_command(live.as_ref(), seat, &mut bot).unwrap();
            live.apply_json(seat, &command, &mut Log::silent()).unwrap();
        }
        by_random += u64::from(!live.outcome().unwrap().winners.is_empty());
    }
    eprintln!("matches with a winner of {matches}: playout moves {by_policy}, random {by_random}");
    assert_eq!(
        by_random, 0,
        "random play made a nation: the premise changed"
    );
    assert!(by_policy * 2 >= matches, "{by_policy} of {matches}");
}

#[test]
fn decode_reads_every_command_as_the_derived_deserialize_does() {
    let direct = crate::games::decode_checks::check_against_derived(
        "nationhood",
        3,
        <Nationhood as crate::engine::Rules>::decode,
        super::state::direct,
    );
    assert!(direct > 100, "{direct} commands read directly");
}
