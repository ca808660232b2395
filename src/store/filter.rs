//! LanceDB filters (DataFusion SQL predicates), built in one place. Every value goes through
//! [`literal`], so no string from a repository, a snapshot or a query can change a filter's
//! meaning (a content hash `x') OR true OR …` once turned a delete of one content into a
//! delete of every chunk); columns are this crate's constants.

/// A SQL string literal for `value`: single-quoted, quotes doubled. DataFusion reads
/// backslashes in a plain literal as themselves, so nothing else needs escaping.
pub fn literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// `column IN ('a', 'b', …)`; `FALSE` for no values (an empty IN list is not valid SQL).
pub fn in_list<S: AsRef<str>>(column: &'static str, values: impl IntoIterator<Item = S>) -> String {
    let list: Vec<String> = values.into_iter().map(|v| literal(v.as_ref())).collect();
    if list.is_empty() {
        return "FALSE".into();
    }
    format!("{column} IN ({})", list.join(", "))
}

/// `column = 'value'`.
pub fn eq(column: &'static str, value: &str) -> String {
    format!("{column} = {}", literal(value))
}

/// Both predicates.
pub fn and(a: &str, b: &str) -> String {
    format!("({a}) AND ({b})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_cannot_escape_a_literal() {
        assert_eq!(literal("x') OR true OR ('y"), "'x'') OR true OR (''y'");
        assert_eq!(
            in_list("content_hash", ["a", "b'c"]),
            "content_hash IN ('a', 'b''c')"
        );
        assert_eq!(in_list("id", Vec::<String>::new()), "FALSE");
        assert_eq!(eq("language", "c'"), "language = 'c'''");
    }
}
