//! How each word is used in the definitions' names, counted once per change of the
//! definitions (`name_words`, schema version 15) rather than by every search that asks
//! (`search::verbs`): a search of astropy spent 5 to 9 ms scanning the name index for it.
//! Every connection's temporary triggers move the definitions' version on
//! (`store::sqlite`); an index run counts again when the counts are of an older version,
//! and a search reads them only when they are of the current one, counting from the names
//! otherwise. A statistic, never shown: it reads every content the index holds, whatever
//! the branch, constants left out (`SymbolKind::is_lookup_only`: their names say what
//! values they hold, not how the code names what it does).

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::error::StoreError;
use super::lookup::Symbols;
use crate::lang::SymbolKind;
use crate::text::words::split_identifier;

/// How a word is used in definitions' names: how many function and method names it opens
/// (`convert_block` for "convert"), and how many times it appears otherwise (opening a
/// class's name, or after a name's first word: `new_command` for "command"). Test routines
/// are named for a convention (`test_parse`, `TestParse`), not for what they do, and do not
/// count.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WordUse {
    /// Function and method names the word opens.
    pub leads: u32,
    /// Times it appears in names otherwise.
    pub other: u32,
}

/// Call `add(word, opens_a_routine)` for each word of the definition `name` of `kind`: the
/// one count both the stored table and a search's own reading of the names make.
fn each_use(name: &str, kind: &SymbolKind, mut add: impl FnMut(String, bool)) {
    let mut words = split_identifier(name).into_iter();
    let Some(first) = words.next() else { return };
    if first == "test" {
        return;
    }
    add(
        first,
        matches!(kind, SymbolKind::Function | SymbolKind::Method),
    );
    words.for_each(|w| add(w, false));
}

impl WordUse {
    fn add(&mut self, lead: bool) {
        if lead {
            self.leads += 1;
        } else {
            self.other += 1;
        }
    }

    /// How `word` (lower case) is used in `names`, distinct (name, kind) pairs.
    pub fn of<'a>(names: impl Iterator<Item = (&'a str, &'a SymbolKind)>, word: &str) -> Self {
        let mut uses = WordUse::default();
        for (name, kind) in names {
            each_use(name, kind, |w, lead| {
                if w == word {
                    uses.add(lead);
                }
            });
        }
        uses
    }
}

impl Symbols<'_> {
    /// How `word` (lower case) is used in the definitions' names, from the counts, when they
    /// are of the definitions the index holds now (`None` when they are older: count from
    /// the names). A word that opens no routine's name is not stored and reads as unused.
    pub fn word_use(&self, word: &str) -> Result<Option<WordUse>, StoreError> {
        let err = |e| self.db.err("read name word counts", e);
        let mut stmt = self
            .db
            .conn
            .prepare_cached(
                "SELECT s.version = s.counted, w.leads, w.other FROM name_words_state s
                 LEFT JOIN name_words w ON w.word = ?1",
            )
            .map_err(err)?;
        let row: Option<(bool, Option<u32>, Option<u32>)> = stmt
            .query_row(params![word], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()
            .map_err(err)?;
        Ok(match row {
            Some((true, leads, other)) => Some(WordUse {
                leads: leads.unwrap_or(0),
                other: other.unwrap_or(0),
            }),
            _ => None,
        })
    }

    /// Count every word of the definitions' names again, unless the counts are of the
    /// definitions the index holds now; whether it counted. One write transaction, so that
    /// the counts and the version they are of are written together.
    pub fn count_name_words(&self) -> Result<bool, StoreError> {
        let err = |e| self.db.err("count name words", e);
        let tx = self.db.write_tx("count name words")?;
        let (version, counted): (i64, i64) = tx
            .query_row(
                "SELECT version, counted FROM name_words_state WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(err)?;
        if version == counted {
            return Ok(false);
        }
        let mut uses: HashMap<String, WordUse> = HashMap::new();
        {
            let mut stmt = tx
                .prepare("SELECT DISTINCT name, kind FROM snippets WHERE kind != ?1")
                .map_err(err)?;
            let mut rows = stmt
                .query(params![SymbolKind::Constant.as_str()])
                .map_err(err)?;
            while let Some(r) = rows.next().map_err(err)? {
                let name: String = r.get(0).map_err(err)?;
                let kind = SymbolKind::parse(&r.get::<_, String>(1).map_err(err)?);
                each_use(&name, &kind, |w, lead| uses.entry(w).or_default().add(lead));
            }
        }
        tx.execute("DELETE FROM name_words", []).map_err(err)?;
        {
            let mut add = tx
                .prepare("INSERT INTO name_words (word, leads, other) VALUES (?1, ?2, ?3)")
                .map_err(err)?;
            for (word, u) in uses.iter().filter(|(_, u)| u.leads > 0) {
                add.execute(params![word, u.leads, u.other]).map_err(err)?;
            }
        }
        tx.execute("UPDATE name_words_state SET counted = ?1", [version])
            .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::Db;

    fn add(db: &Db, hash: &str, names: &[(&str, &str)]) {
        for (name, kind) in names {
            db.conn
                .execute(
                    "INSERT INTO snippets (content_hash, name, name_lower, kind, start_line,
                                           end_line, signature) VALUES (?1, ?2, ?3, ?4, 1, 2, '')",
                    params![hash, name, name.to_lowercase(), kind],
                )
                .unwrap();
        }
    }

    #[test]
    fn counts_are_read_only_while_they_are_of_the_definitions_held() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("meta.sqlite")).unwrap();
        let s = db.symbols();
        let names = [
            ("convert_block", "function"),
            ("convertInline", "method"),
            ("_convert", "function"),
            ("Converter", "class"),
            ("ConvertTable", "class"),
            ("new_converter", "function"),
            ("CONVERT_ALL", "constant"),
            ("test_convert", "function"),
        ];
        add(&db, "h1", &names);
        // The same name in another content counts once.
        add(&db, "h2", &names[..1]);
        assert_eq!(s.word_use("convert").unwrap(), None, "never counted");
        assert!(s.count_name_words().unwrap());
        let counted = WordUse { leads: 3, other: 1 };
        assert_eq!(s.word_use("convert").unwrap(), Some(counted));
        // As a search counts from the names themselves.
        let kinds: Vec<(String, SymbolKind)> = names
            .iter()
            .filter(|(_, k)| *k != "constant")
            .map(|(n, k)| (n.to_string(), SymbolKind::parse(k)))
            .collect();
        let read = WordUse::of(kinds.iter().map(|(n, k)| (n.as_str(), k)), "convert");
        assert_eq!(read, counted);
        // A word that opens no routine's name; nothing to count again.
        assert_eq!(s.word_use("converter").unwrap(), Some(WordUse::default()));
        assert!(!s.count_name_words().unwrap());
        // Every change of the definitions, whichever statement makes it, makes them stale.
        for change in [
            "INSERT INTO snippets (content_hash, name, name_lower, kind, start_line, end_line,
                                   signature) VALUES ('h3', 'convert_it', 'convert_it',
                                   'function', 1, 2, '')",
            "UPDATE snippets SET name = 'parse_block' WHERE name = 'convert_block'",
            "DELETE FROM snippets WHERE content_hash = 'h2'",
        ] {
            db.conn.execute(change, []).unwrap();
            assert_eq!(s.word_use("convert").unwrap(), None, "after {change}");
            assert!(s.count_name_words().unwrap());
        }
        assert_eq!(
            s.word_use("convert").unwrap(),
            Some(WordUse { leads: 3, other: 1 })
        );
        assert_eq!(s.word_use("parse").unwrap().unwrap().leads, 1);
    }
}
