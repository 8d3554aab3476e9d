//! Small pieces of English shared by pages and mail: a count with its noun, a name with its
//! article.

/// `count` with its noun, singular or plural: "1 move", "3 moves".
pub fn count(count: impl Into<i64>, singular: &str, plural: &str) -> String {
    let count = count.into();
    format!("{count} {}", if count == 1 { singular } else { plural })
}

/// A name with "a" or "an" before it, by how it sounds: "an Electoral College Combat",
/// "a Whitehouse".
pub fn with_article(name: &str) -> String {
    let vowel = name
        .chars()
        .next()
        .is_some_and(|c| "AEIOUaeiou".contains(c));
    format!("{} {name}", if vowel { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_articles_read_as_english() {
        assert_eq!(count(1, "move", "moves"), "1 move");
        assert_eq!(count(0, "move", "moves"), "0 moves");
        assert_eq!(count(12, "move", "moves"), "12 moves");
        assert_eq!(
            with_article("Electoral College Combat"),
            "an Electoral College Combat"
        );
        assert_eq!(with_article("Votes for Women"), "a Votes for Women");
    }
}
