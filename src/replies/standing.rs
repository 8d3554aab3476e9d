//! Standing orders by mail: a reply line `standing: ORDER` gives one, `cancel standing: ORDER`
//! cancels it; ORDER is the order's code as the your-turn mail lists it, or its words.

use crate::engine::{Seat, StandingOrder};
use crate::store::{Loaded, OrderError, Store};

/// A reply line about a standing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// True to give it, false to cancel it.
    give: bool,
    /// The words naming the order.
    words: String,
}

/// Why the line was not carried out, for the answer mail.
#[derive(Debug)]
pub struct Refusal(pub String);

impl Said {
    /// The line as a standing order's, if it starts with `standing:` or `cancel standing:`.
    pub fn read(line: &str) -> Option<Said> {
        let lower = line.trim().to_lowercase();
        let (give, rest) = if let Some(rest) = lower.strip_prefix("cancel standing") {
            (false, rest)
        } else if let Some(rest) = lower.strip_prefix("standing") {
            (true, rest)
        } else {
            return None;
        };
        let rest = rest.strip_prefix(':')?;
        Some(Said {
            give,
            words: rest.trim().trim_end_matches('.').to_string(),
        })
    }

    /// The game's order these words name, among the seat's.
    fn order(&self, offered: &[StandingOrder], seat: Seat) -> Result<StandingOrder, Refusal> {
        let mine: Vec<&StandingOrder> = offered
            .iter()
            .filter(|o| o.seat.is_none_or(|s| s == seat))
            .collect();
        if mine.is_empty() {
            return Err(Refusal(
                "this game has no standing orders for your seat".into(),
            ));
        }
        let found: Vec<&&StandingOrder> = mine
            .iter()
            .filter(|o| {
                o.id == self.words
                    || (!self.words.is_empty() && o.label.to_lowercase().starts_with(&self.words))
            })
            .collect();
        match found.as_slice() {
            [one] => Ok(***one),
            _ => Err(Refusal(format!(
                "\"{}\" names {} of your standing orders; write one of: {}",
                self.words.chars().take(60).collect::<String>(),
                if found.is_empty() { "none" } else { "several" },
                mine.iter()
                    .map(|o| format!("{} ({})", o.id, o.label))
                    .collect::<Vec<_>>()
                    .join("; ")
            ))),
        }
    }

    /// Gives or cancels the order for `seat`; what was done, in words.
    pub async fn carry_out(
        &self,
        store: &Store,
        loaded: &Loaded,
        seat: Seat,
    ) -> Result<String, Refusal> {
        let offered = loaded.game.standing_orders();
        let order = self.order(offered, seat)?;
        let failed = |e: String| Refusal(format!("the order could not be kept: {e}"));
        if self.give {
            store
                .give_order(loaded.row.id, seat, offered, order.id)
                .await
                .map_err(|e: OrderError| failed(e.to_string()))?;
            Ok(format!(
                "standing order given: {}. Reply \"cancel standing: {}\" to end it",
                order.label, order.id
            ))
        } else {
            let had = store
                .cancel_order(loaded.row.id, seat, order.id)
                .await
                .map_err(|e| failed(e.to_string()))?;
            Ok(if had {
                format!("standing order cancelled: {}", order.label)
            } else {
                format!("you had no standing order \"{}\"", order.label)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDERS: [StandingOrder; 2] = [
        StandingOrder {
            id: "commit-none",
            label: "Commit no buttons in every Strategy phase",
            note: "",
            seat: Some(0),
        },
        StandingOrder {
            id: "keep-rolls",
            label: "Keep every roll: never spend a button to reroll",
            note: "",
            seat: None,
        },
    ];

    #[test]
    fn lines_name_orders_by_code_or_words() {
        let said = Said::read("Standing: commit-none").unwrap();
        assert_eq!(said.order(&ORDERS, 0).unwrap().id, "commit-none");
        let said = Said::read("cancel standing: keep every roll.").unwrap();
        assert!(!said.give);
        assert_eq!(said.order(&ORDERS, 1).unwrap().id, "keep-rolls");
        assert!(Said::read("Standing orders are great").is_none());
        assert!(Said::read("3 Bid 300").is_none());
        let refused = Said::read("standing: commit-none")
            .unwrap()
            .order(&ORDERS, 1);
        assert!(refused.unwrap_err().0.contains("keep-rolls"));
        let vague = Said::read("standing:").unwrap().order(&ORDERS, 0);
        assert!(vague.unwrap_err().0.contains("names none"));
    }
}
