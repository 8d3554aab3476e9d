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

/// The words of a reply line, normalized, with a `","` token for each comma between two
/// words (it separates placements: "NY 2, NJ 1").
pub fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in text.split_whitespace() {
        let mut parts = piece.split(',').peekable();
        while let Some(part) = parts.next() {
            if let Some(word) = normalize(part) {
                out.push(word);
            }
            if parts.peek().is_some() && out.last().is_some_and(|w| w != ",") {
                out.push(",".into());
            }
        }
    }
    out
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

/// One name of an option: its words, and how strongly it names it (0: a code, the game's own
/// name for it; 1: words of its label).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// The words, normalized.
    pub words: Vec<String>,
    /// 0 for a code, 1 for words.
    pub tier: u8,
}

/// The label's words before any part in brackets ("Q♥ Tennessee (11)": "Q♥ Tennessee").
fn bare(label: &str) -> &str {
    label.split('(').next().unwrap_or_default()
}

/// So many units of one kind in a placement's label ("2 purple").
pub type Part = (u32, String);

/// The part of a placement's label before its colon ("New York: 1 purple": "New York"), and
/// the rest as (count, word) pairs, when the label has that form.
pub fn head_and_parts(label: &str) -> Option<(Vec<String>, Vec<Part>)> {
    let (head, tail) = bare(label).split_once(':')?;
    let tail = words(tail);
    if tail.is_empty() || !tail.len().is_multiple_of(2) {
        return None;
    }
    let parts = tail
        .chunks(2)
        .map(|pair| Some((pair[0].parse().ok()?, pair[1].clone())))
        .collect::<Option<Vec<_>>>()?;
    Some((words(head), parts))
}

/// What an option answers to: the code printed for it and its value (a code), then its label
/// with and without the parts in brackets, a card's face (with the suit as a letter too) and
/// name, and a placement's state or region.
pub fn aliases(option: &PickOption, code: Option<&str>) -> Vec<Alias> {
    let mut out: Vec<Alias> = Vec::new();
    let mut add = |words: Vec<String>, tier: u8| {
        if !words.is_empty() && !out.iter().any(|a| a.words == words) {
            out.push(Alias { words, tier });
        }
    };
    if let Some(code) = code {
        add(vec![code.to_lowercase()], 0);
    }
    if let serde_json::Value::String(s) = &*option.value {
        add(vec![s.to_lowercase()], 0);
    }
    add(words(&option.label), 1);
    let short = words(bare(&option.label));
    if short.len() >= 2
        && let Some(face) = ascii_suits(&short[0])
    {
        add(vec![short[0].clone()], 1);
        add(vec![face], 1);
        add(short[1..].to_vec(), 1);
    }
    add(short, 1);
    if let Some((head, _)) = head_and_parts(&option.label) {
        add(head, 1);
    }
    out
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

    fn names(option: &PickOption, code: Option<&str>) -> Vec<String> {
        aliases(option, code)
            .into_iter()
            .map(|a| a.words.join(" "))
            .collect()
    }

    #[test]
    fn a_card_answers_to_its_code_face_and_name() {
        let option = PickOption::new("TN", "Q♥ Tennessee (11)");
        let all = aliases(&option, Some("TN"));
        assert_eq!(all[0].words, vec!["tn"]);
        assert_eq!(all[0].tier, 0);
        let names = names(&option, Some("TN"));
        for alias in ["q♥ tennessee 11", "q♥ tennessee", "q♥", "qh", "tennessee"] {
            assert!(names.contains(&alias.to_string()), "{alias} in {names:?}");
        }
        let names = self::names(&PickOption::new("NC", "10♠ North Carolina (16)"), None);
        assert!(names.contains(&"10s".to_string()));
        assert!(names.contains(&"north carolina".to_string()));
        // Only a card's face is a name of its own: not the first word of any label.
        let names = self::names(&PickOption::new("AS", "American Samoa"), None);
        assert!(!names.contains(&"american".to_string()), "{names:?}");
    }

    #[test]
    fn a_placement_answers_to_its_state_and_splits_into_cubes() {
        let option = PickOption::new("NY", "New York: 1 purple + 1 yellow").coded("NY-1P1Y");
        let names = names(&option, Some("NY-1P1Y"));
        for alias in ["ny-1p1y", "ny", "new york 1 purple 1 yellow", "new york"] {
            assert!(names.contains(&alias.to_string()), "{alias} in {names:?}");
        }
        assert_eq!(
            head_and_parts(&option.label),
            Some((
                vec!["new".into(), "york".into()],
                vec![(1, "purple".into()), (1, "yellow".into())]
            ))
        );
        assert_eq!(head_and_parts("Lucy Stone (+1 button; on 3-6: x)"), None);
    }

    #[test]
    fn commas_are_kept_between_words() {
        assert_eq!(
            tokens("NY 2, NJ,1 ,x"),
            vec!["ny", "2", ",", "nj", ",", "1", ",", "x"]
        );
    }
}
