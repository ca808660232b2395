//! How the repository names things, for the search to read a question with
//! (`search::verbs`): the stored definitions whose names open with a word or hold it further
//! in. A statistic, never shown, so it reads every content the index holds, whatever the
//! branch. No constants: their names say what values they hold, not how the code names what
//! it does (`SymbolKind::is_lookup_only`).

use rusqlite::params;

use super::error::StoreError;
use super::lookup::Symbols;
use crate::lang::SymbolKind;

impl Symbols<'_> {
    /// Distinct (name, kind) of stored definitions whose lower-cased name opens with `word`
    /// (`convert_block` and `converter` for "convert"), at most `limit`, from every content
    /// the index holds: a statistic of how the repository names things, never shown. A range
    /// of the name index, as `Symbols::find` reads it.
    pub fn names_opening(
        &self,
        word: &str,
        limit: usize,
    ) -> Result<Vec<(String, SymbolKind)>, StoreError> {
        self.names(
            "SELECT DISTINCT name, kind FROM snippets
             WHERE name_lower >= ?1 AND name_lower < ?1 || char(1114111) AND kind != ?3
             LIMIT ?2",
            word,
            limit,
        )
    }

    /// Distinct (name, kind) of stored definitions whose lower-cased name holds `word` after
    /// its first character (`new_command`, `subcommands`), at most `limit`, as
    /// [`Symbols::names_opening`]. `instr`, not `LIKE`: the word is a value, not a pattern.
    /// The scan reads the narrow index of lower-cased names and a row only for a match
    /// (under 2 ms over astropy's 25,000 definitions, against about 4 ms for the table).
    pub fn names_holding_inside(
        &self,
        word: &str,
        limit: usize,
    ) -> Result<Vec<(String, SymbolKind)>, StoreError> {
        self.names(
            "SELECT DISTINCT name, kind FROM snippets INDEXED BY snippets_by_name
             WHERE instr(name_lower, ?1) > 1 AND kind != ?3 LIMIT ?2",
            word,
            limit,
        )
    }

    /// (name, kind) rows of `sql`, which binds `word` and `limit`.
    fn names(
        &self,
        sql: &str,
        word: &str,
        limit: usize,
    ) -> Result<Vec<(String, SymbolKind)>, StoreError> {
        let mut stmt = self
            .db
            .conn
            .prepare_cached(sql)
            .map_err(|e| self.db.err("search symbols", e))?;
        let constant = SymbolKind::Constant.as_str();
        stmt.query_map(params![word, limit as i64, constant], |r| {
            Ok((r.get(0)?, SymbolKind::parse(&r.get::<_, String>(1)?)))
        })
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|e| self.db.err("search symbols", e))
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::SymbolKind;
    use crate::store::sqlite::Db;

    fn db_with(names: &[(&str, &str)]) -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("meta.sqlite")).unwrap();
        for (i, (name, kind)) in names.iter().enumerate() {
            db.conn
                .execute(
                    "INSERT INTO snippets (content_hash, name, name_lower, kind, start_line,
                                           end_line, signature) VALUES (?1, ?2, ?3, ?4, 1, 2, '')",
                    rusqlite::params![format!("h{i}"), name, name.to_lowercase(), kind],
                )
                .unwrap();
        }
        (dir, db)
    }

    fn sorted(mut v: Vec<(String, SymbolKind)>) -> Vec<String> {
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn names_that_open_with_a_word_or_hold_it_further_in_are_read_literally_and_bounded() {
        let (_dir, db) = db_with(&[
            ("convert_block", "function"),
            ("convert_block", "function"),
            ("Converter", "class"),
            ("reconvert", "function"),
            ("x_y", "function"),
            ("xay", "function"),
            // A constant's name says what value it holds, not how the code names things.
            ("CONVERT_LIMIT", "constant"),
            ("MAX_CONVERT", "constant"),
        ]);
        let s = db.symbols();
        let opening = s.names_opening("convert", 10).unwrap();
        assert_eq!(sorted(opening.clone()), ["Converter", "convert_block"]);
        assert!(opening.contains(&("Converter".into(), SymbolKind::Class)));
        assert_eq!(
            sorted(s.names_holding_inside("convert", 10).unwrap()),
            ["reconvert"]
        );
        // A word is a value, not a pattern: `_` matches only itself.
        assert_eq!(
            sorted(s.names_holding_inside("_", 10).unwrap()),
            ["convert_block", "x_y"]
        );
        assert_eq!(s.names_opening("convert", 1).unwrap().len(), 1);
        assert!(s.names_opening("parse", 10).unwrap().is_empty());
        let (_empty_dir, empty) = db_with(&[]);
        assert!(empty
            .symbols()
            .names_holding_inside("convert", 10)
            .unwrap()
            .is_empty());
    }

    /// The symbol retriever's prefix lookup finds a constant by its whole name only: C's
    /// enumerators named `zstd_…` would otherwise fill the rows of the term `zstd`.
    #[test]
    fn a_prefix_finds_no_constant_and_a_whole_name_does() {
        let (_dir, db) = db_with(&[("ZSTD_e_end", "constant"), ("zstd_compress", "function")]);
        for h in ["h0", "h1"] {
            db.conn
                .execute(
                    "INSERT INTO catalog (workspace, branch, path, content_hash, size, mtime_ns,
                                          indexed_at) VALUES ('', 'main', ?1, ?1, 1, 1, 1)",
                    [h],
                )
                .unwrap();
        }
        let names = |term: &str| -> Vec<String> {
            let found = db.symbols().find("main", &[term.to_string()], 10).unwrap();
            found[0].iter().map(|h| h.name.clone()).collect()
        };
        assert_eq!(names("zstd"), ["zstd_compress"]);
        assert_eq!(names("zstd_e_end"), ["ZSTD_e_end"]);
    }
}
