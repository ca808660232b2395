//! How each word is used in the definitions' names, kept up to date by index runs
//! (`name_words`, schema version 15) rather than counted by every search that asks
//! (`search::verbs`): a search of astropy spent 5 to 9 ms scanning the name index for it.
//! Every connection's temporary triggers log the names of the definitions written, renamed
//! or deleted (`store::sqlite`); an index run counts those names again (all of them the
//! first time, or after a change of many), and a search reads the counts only while the log
//! is empty, counting from the names otherwise. A statistic, never shown: it reads every
//! content the index holds, whatever the branch, constants left out
//! (`SymbolKind::is_lookup_only`: their names say what values they hold, not how the code
//! names what it does).

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

/// Changed names past which an index run counts every name again: one read of them all
/// (about 40 ms over astropy's 19,000) costs less than this many lookups of one.
const RECOUNT_PAST: usize = 5_000;

/// A name's change to the counts: +1 when it is newly held, -1 when no longer.
type Delta = HashMap<String, (i64, i64)>;

impl Symbols<'_> {
    /// How `word` (lower case) is used in the definitions' names, from the counts, when they
    /// are of the definitions the index holds now (`None` when definitions changed since:
    /// count from the names).
    pub fn word_use(&self, word: &str) -> Result<Option<WordUse>, StoreError> {
        if !self.counts_current()? {
            return Ok(None);
        }
        let err = |e| self.db.err("read name word counts", e);
        let mut stmt = self
            .db
            .conn
            .prepare_cached("SELECT leads, other FROM name_words WHERE word = ?1")
            .map_err(err)?;
        let uses = stmt
            .query_row(params![word], |r| {
                Ok(WordUse {
                    leads: r.get(0)?,
                    other: r.get(1)?,
                })
            })
            .optional()
            .map_err(err)?;
        Ok(Some(uses.unwrap_or_default()))
    }

    /// Whether the counts are of the definitions the index holds now: made once, and no
    /// definition logged as changed since.
    fn counts_current(&self) -> Result<bool, StoreError> {
        self.db
            .conn
            .prepare_cached(
                "SELECT counted AND NOT EXISTS (SELECT 1 FROM name_words_changed)
                 FROM name_words_state",
            )
            .and_then(|mut stmt| stmt.query_row([], |r| r.get(0)))
            .map_err(|e| self.db.err("read name word counts", e))
    }

    /// Bring the counts up to date with the definitions: count the logged names again, or
    /// every name when they were never counted or many changed; whether anything changed.
    /// One write transaction, so that the counts and the log are written together.
    pub fn count_name_words(&self) -> Result<bool, StoreError> {
        // Most runs change no definition: they need not wait for the write lock to learn it.
        if self.counts_current()? {
            return Ok(false);
        }
        let err = |e| self.db.err("count name words", e);
        let tx = self.db.write_tx("count name words")?;
        let counted: bool = tx
            .query_row("SELECT counted FROM name_words_state", [], |r| r.get(0))
            .map_err(err)?;
        let changed: Vec<(String, String)> = {
            let mut stmt = tx
                .prepare("SELECT name, kind FROM name_words_changed LIMIT ?1")
                .map_err(err)?;
            let rows = stmt
                .query_map([RECOUNT_PAST as i64 + 1], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(err)?;
            rows.collect::<Result<_, _>>().map_err(err)?
        };
        if counted && changed.is_empty() {
            return Ok(false);
        }
        if counted && changed.len() <= RECOUNT_PAST {
            recount_changed(&tx, &changed).map_err(err)?;
        } else {
            recount_all(&tx).map_err(err)?;
        }
        tx.execute_batch(
            "DELETE FROM name_words_changed; UPDATE name_words_state SET counted = 1;",
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(true)
    }
}

/// Count every distinct (name, kind) of the definitions, constants left out, afresh.
fn recount_all(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch("DELETE FROM name_words; DELETE FROM name_words_names;")?;
    let mut delta = Delta::new();
    {
        let mut names = tx.prepare(
            "INSERT INTO name_words_names (name, kind)
             SELECT DISTINCT name, kind FROM snippets WHERE kind != ?1",
        )?;
        names.execute([SymbolKind::Constant.as_str()])?;
        let mut stmt = tx.prepare("SELECT name, kind FROM name_words_names")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let name: String = r.get(0)?;
            let kind = SymbolKind::parse(&r.get::<_, String>(1)?);
            add_uses(&mut delta, &name, &kind, 1);
        }
    }
    apply(tx, &delta)
}

/// Count again the names `changed` (name, kind as stored): each one now held and not
/// counted is added, each one counted and no longer held taken away.
fn recount_changed(
    tx: &rusqlite::Transaction<'_>,
    changed: &[(String, String)],
) -> rusqlite::Result<()> {
    let mut held = tx.prepare(
        "SELECT EXISTS (SELECT 1 FROM snippets WHERE name_lower = ?1 AND name = ?2 AND kind = ?3)",
    )?;
    let mut was = tx.prepare("DELETE FROM name_words_names WHERE name = ?1 AND kind = ?2")?;
    let mut now =
        tx.prepare("INSERT OR IGNORE INTO name_words_names (name, kind) VALUES (?1, ?2)")?;
    let mut delta = Delta::new();
    for (name, stored_kind) in changed {
        let kind = SymbolKind::parse(stored_kind);
        if kind == SymbolKind::Constant {
            continue;
        }
        let is_held: bool = held
            .query_row(params![name.to_lowercase(), name, stored_kind], |r| {
                r.get(0)
            })?;
        // Each statement says whether the name was counted: one row deleted, or one added.
        let sign = if is_held {
            now.execute(params![name, stored_kind])? as i64
        } else {
            -(was.execute(params![name, stored_kind])? as i64)
        };
        if sign != 0 {
            add_uses(&mut delta, name, &kind, sign);
        }
    }
    apply(tx, &delta)
}

/// Add `sign` times the uses of the words of `name` of `kind` to `delta`.
fn add_uses(delta: &mut Delta, name: &str, kind: &SymbolKind, sign: i64) {
    each_use(name, kind, |w, lead| {
        let d = delta.entry(w).or_default();
        if lead {
            d.0 += sign;
        } else {
            d.1 += sign;
        }
    });
}

/// Add `delta` to the stored counts, dropping a word no name uses any more.
fn apply(tx: &rusqlite::Transaction<'_>, delta: &Delta) -> rusqlite::Result<()> {
    let mut add = tx.prepare(
        "INSERT INTO name_words (word, leads, other) VALUES (?1, ?2, ?3)
         ON CONFLICT (word) DO UPDATE SET leads = leads + excluded.leads,
                                          other = other + excluded.other",
    )?;
    let mut unused =
        tx.prepare("DELETE FROM name_words WHERE word = ?1 AND leads = 0 AND other = 0")?;
    for (word, (leads, other)) in delta {
        if (*leads, *other) != (0, 0) {
            add.execute(params![word, leads, other])?;
            unused.execute([word])?;
        }
    }
    Ok(())
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

    /// Every stored count, word by word.
    fn all_counts(db: &Db) -> Vec<(String, i64, i64)> {
        let mut stmt = db
            .conn
            .prepare("SELECT word, leads, other FROM name_words ORDER BY word")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        rows.collect::<Result<_, _>>().unwrap()
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
        let noun = WordUse { leads: 0, other: 2 };
        assert_eq!(s.word_use("converter").unwrap(), Some(noun));
        assert_eq!(s.word_use("absent").unwrap(), Some(WordUse::default()));
        assert!(!s.count_name_words().unwrap(), "nothing to count again");
        // Every change of the definitions, whichever statement makes it, makes them stale;
        // counting the changed names again gives what counting them all does.
        for change in [
            "INSERT INTO snippets (content_hash, name, name_lower, kind, start_line, end_line,
                                   signature) VALUES ('h3', 'convert_it', 'convert_it',
                                   'function', 1, 2, '')",
            // Held by h2 still: no change to the counts.
            "DELETE FROM snippets WHERE content_hash = 'h1' AND name = 'convert_block'",
            "UPDATE snippets SET name = 'parse_block', name_lower = 'parse_block'
             WHERE name = 'convert_block'",
            "DELETE FROM snippets WHERE name = 'ConvertTable'",
        ] {
            db.conn.execute(change, []).unwrap();
            assert_eq!(s.word_use("convert").unwrap(), None, "after {change}");
            assert!(s.count_name_words().unwrap());
            let changed = all_counts(&db);
            db.conn
                .execute("UPDATE name_words_state SET counted = 0", [])
                .unwrap();
            assert!(s.count_name_words().unwrap());
            assert_eq!(changed, all_counts(&db), "after {change}");
        }
        assert_eq!(
            s.word_use("convert").unwrap(),
            Some(WordUse { leads: 3, other: 0 })
        );
        assert_eq!(s.word_use("parse").unwrap().unwrap().leads, 1);
        assert!(!all_counts(&db).iter().any(|(w, _, _)| w == "table"));
    }
}
