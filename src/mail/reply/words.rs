//! Words of a reply and of labels, compared case-insensitively and without punctuation, and
//! the names an option answers to.

use crate::engine::PickOption;

/// A word lower-cased, with punctuation around it removed; `None` when nothing is left.
pub fn normalize(word: &str) -> Option<String> {
    let trimmed = word.trim_matches(|c: char| {
        c.is_ascii_punctuation() && !matches!(c, '=' | '+' | '-') || c.is_whitespace()
    });
    let trimmed = trimmed.trim_matches(|c: char| matches!(c, '-' | '+'));
    (!trimmed.is_empty()).then(|| trimmed.to_lowercase())
}

/// The words of a text (split at spaces and commas), normalized.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter_map(normalize)
        .collect()
}

/// A card face such as `q♥` written with a letter for the suit (`qh`), if it has a suit sign.
fn ascii_suits(word: &str) -> Option<String> {
    let letter = |c: char| match c {
        '♠' => Some('s'),
        '♥' => Some('h'),
        '♦' => Some('d'),
        '♣' => Some('c'),
        _ => None,
    };
    word.chars().any(|c| letter(c).is_some()).then(|| {
        word.chars()
            .map(|c| letter(c).unwrap_or(c))
            .collect::<String>()
    })
}

/// What an option answers to, best first: its value (the game's own code), then its label,
/// the label without the part in brackets, the label's first word (a card face, with the
/// suit as a letter too) and the rest of it (a state's name).
pub fn aliases(option: &PickOption) -> (Vec<String>, Vec<String>) {
    let exact = match &*option.value {
        serde_json::Value::String(s) => vec![s.to_lowercase()],
        serde_json::Value::Number(n) => vec![n.to_string()],
        _ => Vec::new(),
    };
    let mut other = Vec::new();
    let bare: String = option
        .label
        .split('(')
        .next()
        .unwrap_or_default()
        .to_string();
    let all = words(&option.label);
    let short = words(&bare);
    other.push(all.join(" "));
    other.push(short.join(" "));
    if short.len() >= 2 {
        other.push(short[0].clone());
        if let Some(face) = ascii_suits(&short[0]) {
            other.push(face);
        }
        other.push(short[1..].join(" "));
    }
    other.retain(|a| !a.is_empty());
    (exact, other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_drop_case_and_punctuation() {
        assert_eq!(words("Play QH, please!"), vec!["play", "qh", "please"]);
        assert_eq!(words("  (11)  "), vec!["11"]);
        assert_eq!(words("CA=2 -- x"), vec!["ca=2", "x"]);
    }

    #[test]
    fn a_card_answers_to_its_code_face_and_name() {
        let option = PickOption::new("TN", "Q♥ Tennessee (11)");
        let (exact, other) = aliases(&option);
        assert_eq!(exact, vec!["tn"]);
        for alias in ["q♥ tennessee 11", "q♥ tennessee", "q♥", "qh", "tennessee"] {
            assert!(other.contains(&alias.to_string()), "{alias} in {other:?}");
        }
        let (_, other) = aliases(&PickOption::new("NC", "10♠ North Carolina (16)"));
        assert!(other.contains(&"10s".to_string()));
        assert!(other.contains(&"north carolina".to_string()));
    }
}
