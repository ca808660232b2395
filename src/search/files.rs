//! The whole-file retriever: BM25 over each file's identifier terms (SQLite FTS5, see
//! `store::fileterms`), fused at file level. An issue's words are spread over the file it is
//! about, often over many chunks none of which holds enough of them to rank; summed over
//! the file they do. Each ranked file lifts its best span by a weighted reciprocal rank, and
//! a file no chunk retriever found enters with the chunk that holds most query words.

use std::collections::{HashMap, HashSet};

use super::fusion::{Source, Span};
use super::query::{is_stop_word, Query};
use crate::text::words::split_identifier;
use super::SearchError;
use crate::text::words::{push_terms, words};
use crate::store::{ChunkRef, ChunkStore, Db};

/// Most query terms sent to the full-text engine (issue-length queries have hundreds).
const MAX_TERMS: usize = 256;

/// The branch's files best matching the query's terms, best first (content hashes).
pub fn retrieve(
    db: &Db,
    branch: &str,
    q: &Query,
    n: usize,
    lang: Option<&str>,
) -> Result<Vec<String>, SearchError> {
    let Some(expression) = match_expression(q) else {
        return Ok(Vec::new());
    };
    Ok(db
        .search_file_terms(branch, &expression, lang, n)?
        .into_iter()
        .map(|(h, _)| h)
        .collect())
}

/// [`retrieve`] on a thread of its own, so it runs while the chunk retrievers do.
pub fn spawn(
    path: &std::path::Path,
    branch: &str,
    q: &Query,
    n: usize,
    lang: Option<&str>,
) -> std::thread::JoinHandle<Result<Vec<String>, SearchError>> {
    let (branch, q, lang) = (branch.to_string(), q.clone(), lang.map(str::to_string));
    super::background::spawn(path, move |db| {
        retrieve(db, &branch, &q, n, lang.as_deref())
    })
}

/// The query's distinct terms OR-ed for FTS5, each quoted; `None` when no term is left.
/// Repeats are dropped: keeping them (so a repeated word weighs more) measured the same on
/// the dev set and costs time, since FTS5 scores each phrase of the expression apart.
pub(super) fn match_expression(q: &Query) -> Option<String> {
    let mut terms = String::new();
    for tok in &q.tokens {
        for word in words(tok) {
            push_terms(&mut terms, word);
        }
    }
    let mut seen = HashSet::new();
    let quoted: Vec<String> = terms
        .split(' ')
        .filter(|t| t.chars().count() > 1 && !is_stop_word(t) && seen.insert(*t))
        .take(MAX_TERMS)
        .map(|t| format!("\"{t}\""))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// A ranked file on the branch: its path, content, and the score it adds.
#[derive(Debug, Clone, PartialEq)]
pub struct FileScore {
    /// Path on the branch.
    pub path: String,
    /// Its content hash.
    pub content_hash: String,
    /// Weighted reciprocal rank, times the path prior.
    pub score: f64,
    /// The lists that ranked it (`File`, `Title`).
    pub sources: Vec<Source>,
}

/// One score per path: the sum of the lists' scores for it.
pub fn sum_by_path(scores: Vec<FileScore>) -> Vec<FileScore> {
    let mut by_path: HashMap<String, FileScore> = HashMap::new();
    for f in scores {
        match by_path.get_mut(&f.path) {
            Some(seen) => {
                seen.score += f.score;
                seen.sources.extend(f.sources);
            }
            None => {
                by_path.insert(f.path.clone(), f);
            }
        }
    }
    by_path.into_values().collect()
}

/// Add each file's score to its best span (spans arrive best first) and re-sort; returns
/// the files that have no span.
pub fn lift_best_spans(spans: &mut [Span], files: Vec<FileScore>) -> Vec<FileScore> {
    let mut by_path: HashMap<String, FileScore> =
        files.into_iter().map(|f| (f.path.clone(), f)).collect();
    for s in spans.iter_mut() {
        if let Some(f) = by_path.remove(&s.path) {
            s.score += f.score;
            s.sources.extend(f.sources);
            s.sources.sort();
            s.sources.dedup();
        }
    }
    super::fusion::sort_best_first(spans);
    let mut rest: Vec<FileScore> = by_path.into_values().collect();
    rest.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    rest
}

/// For each content, the chunk whose text holds the most distinct query terms (the first
/// such chunk on a tie).
pub fn best_chunks(
    chunks: &ChunkStore,
    hashes: &[String],
    q: &Query,
) -> Result<HashMap<String, ChunkRef>, SearchError> {
    let refs = chunks.refs_of(hashes)?;
    let rows: Vec<u64> = refs.iter().map(|c| c.row).collect();
    let text = chunks.take_rows(&rows)?;
    let terms: HashSet<&str> = q.terms.iter().map(String::as_str).collect();
    let mut best: HashMap<String, (usize, ChunkRef)> = HashMap::new();
    for c in refs {
        let found = text
            .get(&c.row)
            .map_or(0, |row| terms_in(&row.content, &terms));
        let better = best
            .get(&c.content_hash)
            .is_none_or(|(n, b)| found > *n || (found == *n && c.start_line < b.start_line));
        if better {
            best.insert(c.content_hash.clone(), (found, c));
        }
    }
    Ok(best.into_iter().map(|(h, (_, c))| (h, c)).collect())
}

/// How many distinct `terms` a text holds, as whole words or parts of identifiers.
fn terms_in(text: &str, terms: &HashSet<&str>) -> usize {
    let mut seen: HashSet<String> = HashSet::new();
    for w in words(text).filter(|w| w.len() > 1) {
        let lower = w.to_lowercase();
        let compound = w.contains('_') || w.chars().skip(1).any(char::is_uppercase);
        if compound {
            for part in split_identifier(w) {
                if terms.contains(part.as_str()) {
                    seen.insert(part);
                }
            }
        }
        if terms.contains(lower.as_str()) {
            seen.insert(lower);
        }
    }
    seen.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_are_quoted_split_and_free_of_stop_words() {
        let q = super::super::prepare("the parseConfig fails in std::fs, parse it again").unwrap();
        assert_eq!(
            match_expression(&q).unwrap(),
            "\"parseconfig\" OR \"parse\" OR \"config\" OR \"fails\" OR \"std\" OR \"fs\""
        );
    }

    fn span(path: &str, score: f64) -> Span {
        Span {
            path: path.into(),
            start: 1,
            end: 2,
            score,
            sources: vec![Source::Bm25],
            members: Vec::new(),
        }
    }

    #[test]
    fn a_file_lifts_only_its_best_span_and_unmatched_files_come_back() {
        let mut spans = vec![span("a.rs", 0.5), span("b.rs", 0.4), span("b.rs", 0.3)];
        let file = |p: &str, score| FileScore {
            path: p.into(),
            content_hash: format!("h-{p}"),
            score,
            sources: vec![Source::File],
        };
        let rest = lift_best_spans(&mut spans, vec![file("b.rs", 0.2), file("c.rs", 0.1)]);
        assert_eq!(spans[0].path, "b.rs");
        assert!((spans[0].score - 0.6).abs() < 1e-12);
        assert_eq!(spans[0].sources, [Source::Bm25, Source::File]);
        assert!((spans[2].score - 0.3).abs() < 1e-12);
        // A file both lists ranked counts once, with both scores and both sources.
        let both = sum_by_path(vec![
            file("d.rs", 0.2),
            FileScore {
                sources: vec![Source::Title],
                ..file("d.rs", 0.05)
            },
        ]);
        assert_eq!(both.len(), 1);
        assert!((both[0].score - 0.25).abs() < 1e-12);
        assert_eq!(both[0].sources, [Source::File, Source::Title]);
        assert_eq!(rest, [file("c.rs", 0.1)]);
    }
}
