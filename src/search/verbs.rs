//! Whether a question's first word is a verb, asked of the repository's own names. English
//! gives a verb and a noun the same form ("Convert Pandoc block …", "command group and …"),
//! and no tagger ships here; but code names its routines verb first (`convert_block`,
//! `escapeString`) and its things with nouns anywhere (`Command`, `new_command`,
//! `commandGroup`). So a word that opens many function and method names, and few other
//! names, is a verb here. Test functions are named for a convention (`test_parse`,
//! `TestParse`), not for what they do, and do not count.

use super::types::{Context, SearchError};
use crate::lang::SymbolKind;
use crate::text::words::split_identifier;

/// Names read at most, of those that open with the word and of those that hold it further
/// in: enough to tell a verb from a noun, bounded for a word that half the names hold.
const MAX_NAMES: usize = 5_000;
/// Fewest function and method names the word must open.
const MIN_LEADS: usize = 3;
/// How many times more names it must open than hold otherwise (after their first word, or
/// first in a type's or constant's name).
const LEAD_RATIO: usize = 2;

/// Whether `word` (lower case) opens the repository's routines' names far more often than it
/// appears in names otherwise.
pub fn opens_routine_names(cx: &Context<'_>, word: &str) -> Result<bool, SearchError> {
    let symbols = cx.db.symbols();
    // Each read is distinct, and the two are disjoint: a name opens with the word or holds it
    // first further in, never both.
    let mut names = symbols.names_opening(word, MAX_NAMES)?;
    names.extend(symbols.names_holding_inside(word, MAX_NAMES)?);
    Ok(is_verb(
        names.iter().map(|(name, kind)| (name.as_str(), kind)),
        word,
    ))
}

/// The count behind [`opens_routine_names`], over (name, kind) pairs.
fn is_verb<'a>(names: impl Iterator<Item = (&'a str, &'a SymbolKind)>, word: &str) -> bool {
    let (mut leads, mut other) = (0, 0);
    for (name, kind) in names {
        let words = split_identifier(name);
        let routine = matches!(kind, SymbolKind::Function | SymbolKind::Method);
        if let Some((first, rest)) = words.split_first() {
            if first == "test" {
                continue;
            }
            if first == word {
                if routine {
                    leads += 1;
                } else {
                    other += 1;
                }
            }
            other += rest.iter().filter(|w| *w == word).count();
        }
    }
    leads >= MIN_LEADS && leads >= LEAD_RATIO * other
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verb(names: &[(&str, SymbolKind)], word: &str) -> bool {
        is_verb(names.iter().map(|(n, k)| (*n, k)), word)
    }

    #[test]
    fn a_word_that_opens_routines_names_is_a_verb() {
        use SymbolKind::{Class, Function, Method};
        let names = [
            ("convert_block", Function),
            ("convertInline", Method),
            ("convert", Function),
            ("Converter", Class),
            ("Command", Class),
            ("new_command", Function),
            ("commandGroup", Function),
            ("command_path", Function),
            ("run_command", Function),
        ];
        assert!(verb(&names, "convert"));
        // Opens no routine's name (`run_command` opens with "run"); a class's and three others.
        assert!(!verb(&names, "command"));
        // Too few names to say.
        assert!(!verb(&names[..2], "convert"));
        assert!(!verb(&names, "escape"));
        // Opens three routines' names but is held by two more: a noun as often as a verb.
        let cache = [
            ("cache_get", Function),
            ("cache_put", Function),
            ("cache_clear", Function),
            ("Cache", Class),
            ("clear_cache", Function),
        ];
        assert!(!verb(&cache, "cache"));
        assert!(verb(&cache[..4], "cache"));
        // Test functions are named for the convention.
        let tests = [
            ("test_parse", Function),
            ("test_load", Function),
            ("TestDecode", Function),
        ];
        assert!(!verb(&tests, "test"));
    }
}
