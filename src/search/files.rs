//! The whole-file retriever: BM25 over each file's identifier terms (SQLite FTS5, see
//! `store::fileterms`), fused at file level. An issue's words are spread over the file it is
//! about, often over many chunks none of which holds enough of them to rank; summed over
//! the file they do. Each ranked file lifts its best span by a weighted reciprocal rank, and
//! a file no chunk retriever found enters with the chunk that holds most query words.

use std::collections::{HashMap, HashSet};

use super::fusion::{Source, Span};
use super::query::{is_stop_word, Query};
use super::types::SearchError;
use crate::lang::Language;
use crate::store::{ChunkRef, ChunkStore, Db};
use crate::text::words::split_identifier;
use crate::text::words::{push_terms, words};

/// Most query terms sent to the full-text engine (issue-length queries have hundreds).
const MAX_TERMS: usize = 256;

/// The branch's files best matching the query's terms, best first (content hashes).
pub fn retrieve(
    db: &Db,
    branch: &str,
    q: &Query,
    n: usize,
    lang: Option<Language>,
) -> Result<Vec<String>, SearchError> {
    let Some(expression) = match_expression(q) else {
        return Ok(Vec::new());
    };
    Ok(db
        .file_terms()
        .search(branch, &expression, lang, n)?
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
    lang: Option<Language>,
) -> std::thread::JoinHandle<Result<Vec<String>, SearchError>> {
    let (branch, q) = (branch.to_string(), q.clone());
    super::background::spawn(path, move |db| retrieve(db, &branch, &q, n, lang))
}

/// The query's distinct terms OR-ed for FTS5, each quoted; `None` when no term is left.
/// Repeats are dropped: keeping them (so a repeated word weighs more) measured the same on
/// the dev set and costs time, since FTS5 scores each phrase of the expression apart.
pub(super) fn match_expression(q: &Query) -> Option<String> {
    expression(q, false)
}

/// The query's terms OR-ed for FTS5, each quoted, repeats kept (at most [`MAX_PHRASES`]):
/// over chunks, a word an issue repeats weighs more, as it did in the full-text engine the
/// chunk ranking was tuned with.
pub(super) fn chunk_expression(q: &Query) -> Option<String> {
    expression(q, true)
}

/// Most phrases of a chunk expression (FTS5 scores each apart).
const MAX_PHRASES: usize = 512;

fn expression(q: &Query, repeats: bool) -> Option<String> {
    let mut terms = String::new();
    for tok in &q.tokens {
        for word in words(tok) {
            push_terms(&mut terms, word);
        }
    }
    let mut seen = HashSet::new();
    let quoted: Vec<String> = terms
        .split(' ')
        .filter(|t| t.chars().count() > 1 || q.terms.iter().any(|n| n == t))
        // A stop word stays when the query names it (`git codesearch get`).
        .filter(|t| !is_stop_word(t) || q.identifiers.iter().any(|i| i == t))
        .filter(|t| repeats || seen.insert(*t))
        .take(if repeats { MAX_PHRASES } else { MAX_TERMS })
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
    /// The lists that ranked it, each with what it gave (their sum is its score).
    pub lists: Vec<Listing>,
}

/// Where one whole-file list ranked a file, and the score that gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Listing {
    /// The list (`File`, `Title`, `Vector` for the vector list's files, `Commits`).
    pub by: Source,
    /// Its 1-based rank there.
    pub rank: usize,
    /// Weighted reciprocal rank, times the path prior.
    pub score: f64,
}

impl FileScore {
    /// Weighted reciprocal rank, times the path prior: the sum of what its lists gave.
    pub fn score(&self) -> f64 {
        self.lists.iter().map(|l| l.score).sum()
    }

    /// The lists that ranked the file, in the order they did.
    pub fn sources(&self) -> Vec<Source> {
        self.lists.iter().map(|l| l.by).collect()
    }
}

/// One score per path: the sum of the lists' scores for it.
pub fn sum_by_path(scores: Vec<FileScore>) -> Vec<FileScore> {
    let mut by_path: HashMap<String, FileScore> = HashMap::new();
    for f in scores {
        match by_path.get_mut(&f.path) {
            Some(seen) => seen.lists.extend(f.lists),
            None => {
                by_path.insert(f.path.clone(), f);
            }
        }
    }
    by_path.into_values().collect()
}

/// Add each file's score to its best spans (spans arrive best first), the k-th (0-based)
/// getting `decay^k` of it, up to `max_spans` spans (see `search::params`), and re-sort;
/// returns the files that have no span.
pub fn lift_best_spans(
    spans: &mut [Span],
    files: Vec<FileScore>,
    decay: f64,
    max_spans: usize,
) -> Vec<FileScore> {
    let mut by_path: HashMap<String, (FileScore, usize)> = files
        .into_iter()
        .map(|f| (f.path.clone(), (f, 0)))
        .collect();
    for s in spans.iter_mut() {
        if let Some((f, lifted)) = by_path.get_mut(&s.path) {
            if *lifted < max_spans {
                let share = decay.powi(*lifted as i32);
                // Each list's part is its own feature, so `--explain` names the list.
                for l in &f.lists {
                    let add = l.score * share;
                    s.score += add;
                    let ranked = super::explain::Feature::FileRanked {
                        by: l.by,
                        rank: l.rank,
                    };
                    s.why.add(ranked, add);
                }
                s.sources.extend(f.lists.iter().map(|l| l.by));
                s.sources.sort();
                s.sources.dedup();
                *lifted += 1;
            }
        }
    }
    super::fusion::sort_best_first(spans);
    let mut rest: Vec<FileScore> = by_path
        .into_values()
        .filter(|(_, lifted)| *lifted == 0)
        .map(|(f, _)| f)
        .collect();
    rest.sort_by(|a, b| b.score().total_cmp(&a.score()).then(a.path.cmp(&b.path)));
    rest
}

/// For each content, its chunk that best matches the query: BM25 over that content's own
/// chunks (a term rare among them counts more; repeats count less and less), the first such
/// chunk on a tie. Counting distinct terms instead tied on most short questions and then
/// showed the file's first chunk, its imports.
pub fn best_chunks(
    chunks: &ChunkStore,
    hashes: &[String],
    q: &Query,
) -> Result<HashMap<String, ChunkRef>, SearchError> {
    let refs = chunks.refs_of(hashes)?;
    let rows: Vec<u64> = refs.iter().map(|c| c.row).collect();
    let text = chunks.take_rows(&rows)?;
    let terms: HashSet<&str> = q.terms.iter().map(String::as_str).collect();
    let mut by_content: HashMap<&str, Vec<(&ChunkRef, TermCounts)>> = HashMap::new();
    for c in &refs {
        let counts = text
            .get(&c.row)
            .map(|row| term_counts(&row.content, &terms))
            .unwrap_or_default();
        by_content
            .entry(&c.content_hash)
            .or_default()
            .push((c, counts));
    }
    let mut out = HashMap::new();
    for (hash, parts) in by_content {
        let scores = bm25_scores(&parts.iter().map(|(_, c)| c).collect::<Vec<_>>());
        let best = parts
            .iter()
            .zip(scores)
            .max_by(|((a, _), sa), ((b, _), sb)| {
                sa.total_cmp(sb).then(b.start_line.cmp(&a.start_line))
            })
            .map(|((c, _), _)| (*c).clone());
        if let Some(c) = best {
            out.insert(hash.to_string(), c);
        }
    }
    Ok(out)
}

/// How often each query term occurs in one chunk.
type TermCounts = HashMap<String, usize>;

/// BM25 of each document (term counts) against the others: idf from how many of them hold
/// a term, term frequency saturating (k1 = 1.2, no length normalisation: chunks are of a size).
fn bm25_scores(docs: &[&HashMap<String, usize>]) -> Vec<f64> {
    let n = docs.len() as f64;
    let mut df: HashMap<&str, f64> = HashMap::new();
    for d in docs {
        for t in d.keys() {
            *df.entry(t.as_str()).or_default() += 1.0;
        }
    }
    docs.iter()
        .map(|d| {
            d.iter()
                .map(|(t, &tf)| {
                    let df = df[t.as_str()];
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let tf = tf as f64;
                    idf * tf / (tf + 1.2)
                })
                .sum()
        })
        .collect()
}

/// How often each of `terms` occurs in a text, as a whole word or a part of an identifier.
fn term_counts(text: &str, terms: &HashSet<&str>) -> HashMap<String, usize> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for w in words(text).filter(|w| w.len() > 1) {
        let lower = w.to_lowercase();
        let compound = w.contains('_') || w.chars().skip(1).any(char::is_uppercase);
        let mut seen_here: HashSet<String> = HashSet::new();
        if compound {
            for part in split_identifier(w) {
                if terms.contains(part.as_str()) {
                    seen_here.insert(part);
                }
            }
        }
        if terms.contains(lower.as_str()) {
            seen_here.insert(lower);
        }
        for t in seen_here {
            *counts.entry(t).or_default() += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_expressions_keep_repeats_and_file_expressions_do_not() {
        let q = crate::search::prepare("parser fails: the parseConfig parser \"x\" OR y").unwrap();
        assert_eq!(
            chunk_expression(&q).unwrap(),
            "\"parser\" OR \"fails\" OR \"parseconfig\" OR \"parse\" OR \"config\" OR \"parser\""
        );
        assert_eq!(
            match_expression(&q).unwrap(),
            "\"parser\" OR \"fails\" OR \"parseconfig\" OR \"parse\" OR \"config\""
        );
    }

    #[test]
    fn a_one_letter_name_is_searched_only_when_it_is_the_query() {
        let alone = crate::search::prepare("g").unwrap();
        assert_eq!(chunk_expression(&alone).as_deref(), Some("\"g\""));
        let beside = crate::search::prepare("g value").unwrap();
        assert_eq!(match_expression(&beside).as_deref(), Some("\"value\""));
    }

    #[test]
    fn the_best_chunk_holds_the_rare_term_not_the_common_one() {
        let terms: HashSet<&str> = ["parse", "truncate"].into_iter().collect();
        let imports = term_counts("use parse::Parser;\nuse parse::Token;", &terms);
        let body = term_counts("fn truncate_words(s: &str) { parse(s) }", &terms);
        let other = term_counts("fn parse_all() { parse() }", &terms);
        let scores = bm25_scores(&[&imports, &body, &other]);
        assert!(scores[1] > scores[0] && scores[1] > scores[2], "{scores:?}");
        assert_eq!(term_counts("truncateWords truncate", &terms)["truncate"], 2);
    }

    #[test]
    fn query_terms_are_quoted_split_and_free_of_stop_words() {
        let q = super::super::types::prepare("the parseConfig fails in std::fs, parse it again")
            .unwrap();
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
            why: Default::default(),
        }
    }

    const FILE_SPAN_DECAY: f64 = 0.75;
    const FILE_SPANS: usize = 5;

    #[test]
    fn a_file_lifts_its_best_spans_less_and_less_and_unmatched_files_come_back() {
        let mut spans = vec![span("a.rs", 0.5), span("b.rs", 0.4), span("b.rs", 0.3)];
        let listed = |by, score| Listing { by, rank: 1, score };
        let file = |p: &str, score| FileScore {
            path: p.into(),
            content_hash: format!("h-{p}"),
            lists: vec![listed(Source::File, score)],
        };
        let rest = lift_best_spans(
            &mut spans,
            vec![file("b.rs", 0.2), file("c.rs", 0.1)],
            FILE_SPAN_DECAY,
            FILE_SPANS,
        );
        assert_eq!(spans[0].path, "b.rs");
        assert!((spans[0].score - 0.6).abs() < 1e-12);
        assert_eq!(spans[0].sources, [Source::Bm25, Source::File]);
        // The file's second span gets FILE_SPAN_DECAY of its score: the answer is often there.
        assert_eq!(spans[2].path, "b.rs");
        assert!((spans[2].score - (0.3 + 0.2 * FILE_SPAN_DECAY)).abs() < 1e-12);
        assert!((spans[1].score - 0.5).abs() < 1e-12);
        // Past FILE_SPANS spans, nothing more is lifted.
        let mut many: Vec<Span> = (0..FILE_SPANS + 2)
            .map(|i| span("m.rs", 1.0 - i as f64 * 0.01))
            .collect();
        lift_best_spans(
            &mut many,
            vec![file("m.rs", 1.0)],
            FILE_SPAN_DECAY,
            FILE_SPANS,
        );
        let lifted = many
            .iter()
            .filter(|s| s.sources.contains(&Source::File))
            .count();
        assert_eq!(lifted, FILE_SPANS);
        // A file both lists ranked counts once, with both scores and both sources.
        let both = sum_by_path(vec![
            file("d.rs", 0.2),
            FileScore {
                lists: vec![listed(Source::Title, 0.05)],
                ..file("d.rs", 0.05)
            },
        ]);
        assert_eq!(both.len(), 1);
        assert!((both[0].score() - 0.25).abs() < 1e-12);
        assert_eq!(both[0].sources(), [Source::File, Source::Title]);
        assert_eq!(rest, [file("c.rs", 0.1)]);
    }
}
