//! How typed values of `lang` are kept in SQLite columns: a [`Language`] as its name, the
//! text every index has always held. Reading one is where a stored name is parsed, once.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::lang::Language;

impl ToSql for Language {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Text(
            self.name().as_bytes(),
        )))
    }
}

/// A name this build does not know fails the read, as a value of the wrong type does: the
/// database is this clone's own, written by this build's names, and a snapshot is let in
/// only once `snapshot::check` has found every language in it to be one of them. (Cut to a
/// few characters in the message: the bytes are whatever is in the file.)
impl FromSql for Language {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let name = value.as_str()?;
        Language::parse(name).ok_or_else(|| {
            let shown: String = name.chars().take(40).collect();
            FromSqlError::Other(format!("{shown:?} is no language this build knows").into())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of `t.l`, read as a `T`.
    fn column<T: FromSql>(conn: &rusqlite::Connection) -> Vec<T> {
        conn.prepare("SELECT l FROM t")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_language_is_stored_as_its_name_and_an_unknown_name_fails_the_read() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (l TEXT)").unwrap();
        for l in Language::ALL {
            conn.execute("INSERT INTO t VALUES (?1)", [l]).unwrap();
        }
        let names: Vec<String> = column(&conn);
        assert_eq!(names, Language::ALL.map(|l| l.name().to_string()));
        let back: Vec<Language> = column(&conn);
        assert_eq!(back, Language::ALL);
        for bad in ["ocaml", "Rust", "rust\u{1b}[2J"] {
            let got = conn.query_row("SELECT ?1", [bad], |r| r.get::<_, Language>(0));
            assert!(got.is_err(), "{bad}");
        }
        let number = conn.query_row("SELECT 1", [], |r| r.get::<_, Language>(0));
        assert!(number.is_err());
    }
}
