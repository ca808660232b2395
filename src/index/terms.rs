//! Terms of whole files for the file-level BM25 retriever: every identifier of the text,
//! lower-cased, whole and (when it has several) split into its camelCase / snake_case
//! parts, the same way query words are split, so `parseConfigFile` in the code matches
//! "parse config file" in an issue and the identifier itself. Also the back-fill that gives
//! contents stored before schema version 4 (or merged in by `import`) their terms, from
//! their chunks.

use crate::search::query::split_identifier;
use crate::store::{ChunkStore, Db, StoreError};

/// Contents back-filled per transaction.
const BACKFILL_BATCH: usize = 200;

/// The terms of a text, space-separated, in order, repeats kept (BM25 counts them).
pub fn document_terms(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    for word in words(text) {
        push_terms(&mut out, word);
    }
    out
}

/// Append the terms of one identifier: the whole (lower-cased) and its parts of two or
/// more characters.
pub fn push_terms(out: &mut String, word: &str) {
    let parts = split_identifier(word);
    if parts.is_empty() {
        return;
    }
    let mut push = |t: &str| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    };
    push(&word.to_lowercase());
    if parts.len() > 1 {
        for p in parts.iter().filter(|p| p.chars().count() > 1) {
            push(p);
        }
    }
}

/// The identifiers and words of a text: runs of letters, digits and `_` that do not start
/// with a digit.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
}

/// Give every stored content without terms its terms, from its chunks' text. Returns how
/// many contents were filled.
pub fn backfill(db: &Db, chunks: &ChunkStore) -> Result<usize, StoreError> {
    let missing = db.contents_without_terms()?;
    for batch in missing.chunks(BACKFILL_BATCH) {
        let mut rows = chunks.chunks_of(batch)?;
        rows.sort_by(|a, b| {
            a.content_hash
                .cmp(&b.content_hash)
                .then(a.start_line.cmp(&b.start_line))
        });
        let mut items: Vec<(String, String)> =
            batch.iter().map(|h| (h.clone(), String::new())).collect();
        for row in &rows {
            if let Ok(i) = batch.binary_search(&row.content_hash) {
                let terms = &mut items[i].1;
                for word in words(&row.content) {
                    push_terms(terms, word);
                }
            }
        }
        db.store_terms(&items)?;
    }
    Ok(missing.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_whole_and_split() {
        assert_eq!(
            document_terms("fn parseConfigFile(max_len: usize) -> 42x { a.b }"),
            "fn parseconfigfile parse config file max_len max len usize a b"
        );
        assert_eq!(document_terms("  ...  "), "");
    }
}
