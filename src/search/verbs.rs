//! Whether a question's first word is a verb, asked of the repository's own names. English
//! gives a verb and a noun the same form ("Convert Pandoc block …", "command group and …"),
//! and no tagger ships here; but code names its routines verb first (`convert_block`,
//! `escapeString`) and its things with nouns anywhere (`Command`, `new_command`,
//! `commandGroup`). So a word that opens many function and method names, and few other
//! names, is a verb here. Test functions are named for a convention (`test_parse`,
//! `TestParse`), not for what they do, and do not count.

use super::types::{Context, SearchError};
use crate::store::name_words::WordUse;

/// Names read at most, of those that open with the word and of those that hold it further
/// in, when the index's counts are older than its definitions: enough to tell a verb from a
/// noun, bounded for a word that half the names hold.
const MAX_NAMES: usize = 5_000;
/// Fewest function and method names the word must open.
const MIN_LEADS: u32 = 3;
/// How many times more names it must open than hold otherwise (after their first word, or
/// first in a type's or constant's name).
const LEAD_RATIO: u32 = 2;

/// Whether `word` (lower case) opens the repository's routines' names far more often than it
/// appears in names otherwise. From the counts an index run made (`store::name_words`); from
/// the names themselves when definitions changed since (a pull merged, or a run stopped).
pub fn opens_routine_names(cx: &Context<'_>, word: &str) -> Result<bool, SearchError> {
    let symbols = cx.db.symbols();
    let uses = match symbols.word_use(word)? {
        Some(uses) => uses,
        None => {
            // Each read is distinct, and the two are disjoint: a name opens with the word or
            // holds it first further in, never both.
            let mut names = symbols.names_opening(word, MAX_NAMES)?;
            names.extend(symbols.names_holding_inside(word, MAX_NAMES)?);
            WordUse::of(names.iter().map(|(n, k)| (n.as_str(), k)), word)
        }
    };
    Ok(is_verb(uses))
}

/// The decision behind [`opens_routine_names`].
fn is_verb(uses: WordUse) -> bool {
    uses.leads >= MIN_LEADS && uses.leads >= LEAD_RATIO * uses.other
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::SymbolKind;

    fn verb(names: &[(&str, SymbolKind)], word: &str) -> bool {
        is_verb(WordUse::of(names.iter().map(|(n, k)| (*n, k)), word))
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
