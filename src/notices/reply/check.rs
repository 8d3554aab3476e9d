//! The check that a mail speaks to a person: none of the program's own names in it. Used by
//! the tests of every game's reply lines and refusals here, and by the tests that play whole
//! games by mail.

/// The words of a mail's text that are the program's own names, not words for a person: a
/// placeholder in angle brackets ("<card>", "<2 face_down>"), a name joined by underscores
/// ("take_higher"), a field before a colon ("c1:", "amount:" at the start of a hint), a code
/// to copy with a count ("NY-P=2", "CODE=COUNT"). Links are left out (their tokens are
/// random).
pub fn internal_names(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        for word in line.split_whitespace() {
            if word.contains("://") {
                continue;
            }
            let field = word.strip_suffix(':').is_some_and(|w| {
                let letters = w.trim_end_matches(|c: char| c.is_ascii_digit());
                w.len() <= 3
                    && letters.len() < w.len()
                    && !letters.is_empty()
                    && letters.chars().all(|c| c.is_ascii_alphabetic())
            });
            let coded = word.contains('=') && !word.starts_with('=') && !word.ends_with('=');
            if word.contains('_') || field || coded {
                found.push(word.to_string());
            }
        }
        let mut rest = line;
        while let Some(at) = rest.find('<') {
            let after = &rest[at + 1..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | ' ' | ':' | '-'))
                .collect();
            if after[name.len()..].starts_with('>') || name.contains(':') {
                found.push(format!("<{name}"));
            }
            rest = after;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Choice, DynMatch, Log, Seed};
    use crate::games::find_game;
    use crate::notices::reply::{ask, read, reply_lines};

    #[test]
    fn the_names_found_are_the_programs_own() {
        let found = internal_names(
            "  2  Bid <amount: 280 to 530, steps of 10>\n  3  Take <2 face_down>\n\
             c1: x\n  1  Take a card <slot>\nlook at https://pp.example/play/a_b\n\
             1  Place <cubes: 8 in all, as CODE=COUNT> NY-P=2",
        );
        assert_eq!(
            found,
            vec![
                "<amount: 280 to 530",
                "face_down>",
                "<2 face_down",
                "c1:",
                "<slot",
                "CODE=COUNT>",
                "NY-P=2",
                "<cubes: 8 in all"
            ]
        );
        assert!(
            internal_names(
                "Hello Ann,\nYour position:\n  2  Bid — How many? A number from 1 to 5. — \
                 reply: 2 1\nNew York: 1 purple\nOn Monday, Bo <bo@example.org> wrote:"
            )
            .is_empty()
        );
    }

    /// What a person could be shown about `choices`: their lines, and the refusals of a line
    /// that leaves each choice's questions out or answers them with nonsense.
    fn shown(choices: &[Choice]) -> Vec<String> {
        let mut out = Vec::new();
        for line in reply_lines(choices) {
            out.push(line.text);
            out.extend(line.options);
        }
        for (i, choice) in choices.iter().enumerate() {
            if choice.params.is_empty() {
                continue;
            }
            let example = ask::example(choices, i);
            assert!(example.is_some(), "no example for {choice:?}");
            for line in [
                format!("{}", i + 1),
                format!("{} xyzzy", i + 1),
                format!("{} 9999", i + 1),
                format!("{} 1 2 3 4 5 6 7 8 9 10 11 12 13", i + 1),
            ] {
                if let Err(e) = read(&line, choices) {
                    out.push(e.to_string());
                }
            }
        }
        out
    }

    /// Every position of a few random games of each game: nothing shown about its choices
    /// holds a placeholder, an underscored name or a command's field before a colon, and each
    /// choice that needs more than its number (cubes to place too) has an example reply that
    /// reads back as it.
    #[test]
    fn every_games_lines_and_refusals_are_in_words() {
        for (kind, seats) in [
            ("whitehouse", 4),
            ("statehood", 4),
            ("electoral-combat", 2),
            ("nationhood", 2),
            ("votes-for-women", 2),
        ] {
            let game = find_game(kind).unwrap();
            let mut positions = 0;
            for seed in 1..=2 {
                let seed = Seed::from_number(seed);
                let mut live: Box<dyn DynMatch> = game
                    .new_match(&game.default_options(), seats, seed)
                    .unwrap();
                let mut rng = crate::engine::bot::bot_rng(&seed);
                for _ in 0..300 {
                    let Some(&seat) = live.active().first() else {
                        break;
                    };
                    let choices = live.choices(seat);
                    // A field that is also a word of a label or question ("card" of "Play
                    // a card") may stand before a colon as that word.
                    let spoken: Vec<String> = choices
                        .iter()
                        .flat_map(|c| {
                            let prompts = c.params.iter().map(|p| p.prompt.to_lowercase());
                            std::iter::once(c.label.to_lowercase()).chain(prompts)
                        })
                        .collect();
                    let fields: Vec<String> = choices
                        .iter()
                        .flat_map(|c| c.params.iter().map(|p| p.field.to_string()))
                        .filter(|f| !spoken.iter().any(|s| s.contains(f.as_str())))
                        .map(|f| format!("{f}:"))
                        .collect();
                    for text in shown(&choices) {
                        let names = internal_names(&text);
                        assert!(names.is_empty(), "{kind}: {names:?} in {text}");
                        for field in &fields {
                            let said = text
                                .split_whitespace()
                                .any(|w| w.eq_ignore_ascii_case(field));
                            assert!(!said, "{kind}: the field {field} in {text}");
                        }
                    }
                    positions += 1;
                    let command =
                        crate::engine::bot::random_command(live.as_ref(), seat, &mut rng).unwrap();
                    live.apply_json(seat, &command, &mut Log::silent()).unwrap();
                }
            }
            assert!(positions > 50, "{kind}: {positions} positions");
        }
    }
}
