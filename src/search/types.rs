//! The vocabulary every stage of a search reads: its options and results (`SearchOptions`,
//! `Hit`, `SearchResult`), what it runs against (`Context`, `Fetch`), the lists and spans
//! passed between stages (`List`, `Ranked`), the query's preparation and `SearchError`. It
//! imports no stage but the ones that define the words it is built of (`fusion`, `query`), so
//! every stage can import it and the pipeline (`pipeline`) imports the stages.

use super::fusion::{Source, Span};
use super::query::{self, Query, QueryProblem};
use crate::config::Config;
use crate::lang::Language;
use crate::store::{ChunkRef, ChunkStore, Db, StoreError};

/// A ranked span of a file with the chunks it covers (their text is read last).
pub type Ranked = (Span, Vec<ChunkRef>);

/// A ranked span of `path` (lines 1-2, no members) whose score is the sum of `parts`, each
/// recorded as it is in `--explain`: for the tests of the stages that reorder `Ranked`.
#[cfg(test)]
pub fn ranked_of(path: &str, parts: &[(super::explain::Feature, f64)]) -> Ranked {
    let mut why = super::explain::Why::default();
    for (f, v) in parts {
        why.add(*f, *v);
    }
    let score = why.0.iter().map(|c| c.value).sum();
    let s = Span {
        path: path.into(),
        start: 1,
        end: 2,
        score,
        sources: Vec::new(),
        members: Vec::new(),
        why,
    };
    (s, Vec::new())
}

/// Where the first hit of each of the first `n` distinct files of `ranked` is, in order: the
/// top result files, which later stages build on (co-change partners, an issue's best lines).
pub fn first_hits(ranked: &[Ranked], n: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for (i, (s, _)) in ranked.iter().enumerate() {
        if out.len() == n {
            break;
        }
        if !out.iter().any(|&j| ranked[j].0.path == s.path) {
            out.push(i);
        }
    }
    out
}

/// How many of the hits whose `paths` are given (best first) come before the first hit of
/// the `n + 1`-th distinct file: the hits that list the first `n` files (`--files-only`).
pub fn first_files_len<'a>(paths: impl IntoIterator<Item = &'a str>, n: usize) -> usize {
    let mut files = std::collections::HashSet::new();
    let mut len = 0;
    for path in paths {
        if !files.contains(path) {
            if files.len() == n {
                break;
            }
            files.insert(path);
        }
        len += 1;
    }
    len
}

/// Whether a hit of `ranked` already shows any of the lines `start..=end` of `path`.
pub fn held(ranked: &[Ranked], path: &str, start: u32, end: u32) -> bool {
    ranked
        .iter()
        .any(|(s, _)| s.path == path && s.start <= end && start <= s.end)
}

/// No line shown twice among the first `limit` hits: a hit an earlier hit holds whole goes
/// (the next moves up), one it overlaps keeps only its own lines, on the side of its leading
/// chunk when the earlier hit lies inside it (else the longer side), and is checked again
/// against the others. The answer-lines stages (`infile`, `described`, `widen`) add or grow
/// hits judged against the hits a reader sees; the hits past those can repeat their lines.
/// Each hit is judged by the hits before it only, so a longer list keeps the shorter one's
/// hits as its first ones.
pub fn unrepeat(hits: &mut Vec<Ranked>, limit: usize) {
    let mut j = 1;
    while j < limit.min(hits.len()) {
        let (span, parts) = &hits[j];
        let Some((s, e)) = hits[..j]
            .iter()
            .map(|(earlier, _)| earlier)
            .find(|o| o.path == span.path && o.start <= span.end && span.start <= o.end)
            .map(|o| (o.start, o.end))
        else {
            j += 1;
            continue;
        };
        let (start, end) = (span.start, span.end);
        if s <= start && end <= e {
            hits.remove(j);
            continue;
        }
        // Lines before the earlier hit (start..s) or after it (e..=end); one clip never
        // empties the hit, since it reaches past the earlier one on that side.
        let before = (start < s).then(|| (start, s - 1));
        let after = (e < end).then(|| (e + 1, end));
        let lead = parts.first().map(|c| c.start_line);
        let kept = match (before, after) {
            (Some(_), Some(a)) if lead.is_some_and(|l| l > e) => a,
            (Some(b), Some(_)) if lead.is_some_and(|l| l < s) => b,
            (Some(b), Some(a)) => std::cmp::max_by_key(b, a, |(x, y)| y - x),
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => {
                hits.remove(j); // held whole after all: not reached, handled above
                continue;
            }
        };
        let span = &mut hits[j].0;
        (span.start, span.end) = kept;
    }
}

/// A retriever's chunk list, best first, with its source and fusion weight.
pub type List = (Source, f64, Vec<ChunkRef>);

/// Errors of a search.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query is empty.
    #[error("the query is empty")]
    EmptyQuery,
    /// The query has only stop words.
    #[error("the query \"{query}\" has only stop words (like \"the\", \"where\", \"的\")")]
    OnlyStopWords { query: String },
    /// The branch asked for has no index.
    #[error("branch {branch} is not indexed")]
    BranchNotIndexed { branch: String },
    /// The path glob (`SearchOptions::path_glob`) does not parse.
    #[error("invalid path glob {glob:?}")]
    BadGlob {
        glob: String,
        #[source]
        source: globset::Error,
    },
    /// The path glob is longer or nests `{…}` deeper than any path filter needs
    /// (`search::pathglob`).
    #[error(
        "path glob of {bytes} bytes with braces nested {depth} deep is too complex (at most {max_bytes} bytes, {max_depth} deep)"
    )]
    GlobTooComplex {
        bytes: usize,
        depth: usize,
        max_bytes: usize,
        max_depth: usize,
    },
    /// The language (`SearchOptions::lang`) is unknown.
    #[error("unknown language {lang:?} (known: {known})")]
    UnknownLanguage { lang: String, known: String },
    /// The requested mode cannot run.
    #[error("{mode} search is not available: {reason}")]
    ModeUnavailable { mode: &'static str, reason: String },
    /// The index could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SearchError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            SearchError::EmptyQuery | SearchError::OnlyStopWords { .. } => Some(
                "name what the code does or an identifier, e.g. git codesearch \"parse config file\"".into(),
            ),
            SearchError::BranchNotIndexed { branch } => Some(format!(
                "check out {branch} and run `git codesearch index` there (or install the hooks: `git codesearch hooks install`)"
            )),
            SearchError::BadGlob { .. } | SearchError::GlobTooComplex { .. } => {
                Some("use a glob such as 'src/**/*.rs'".into())
            }
            SearchError::UnknownLanguage { .. } => None,
            SearchError::ModeUnavailable { .. } => Some(
                "run `git codesearch index` to embed, or search in mode hybrid, bm25 or symbol".into(),
            ),
            SearchError::Store(e) => e.hint(),
        }
    }
}

/// Which retrievers to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// BM25 + vector + symbols (vector when available).
    #[default]
    Hybrid,
    /// BM25 full text only.
    Bm25,
    /// Vector only.
    Vector,
    /// Symbol names only.
    Symbol,
}

impl Mode {
    /// Every mode by its name, as `--mode` and MCP's `mode` take it, with what it runs.
    pub const NAMES: [(&'static str, Mode, &'static str); 4] = [
        (
            "hybrid",
            Mode::Hybrid,
            "BM25 + vectors (when available) + symbols",
        ),
        ("bm25", Mode::Bm25, "Full-text BM25 only"),
        ("vector", Mode::Vector, "Embeddings only"),
        ("symbol", Mode::Symbol, "Definition names only"),
    ];

    /// The mode called `name`, if there is one.
    pub fn named(name: &str) -> Option<Mode> {
        Self::NAMES
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, m, _)| *m)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, m, _)| *m == self)
            .map_or("hybrid", |(n, ..)| n)
    }
}

/// Options of one search.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Results wanted (default: config's n_final).
    pub limit: Option<usize>,
    /// Keep only paths matching this glob.
    pub path_glob: Option<String>,
    /// Keep only this language (parsed where the option comes in: [`language`]).
    pub lang: Option<Language>,
    /// Retrievers.
    pub mode: Mode,
    /// Only the hits' files will be shown (`-l`): `limit` counts files, and the hits are
    /// those of the first `limit` files (within `search.n_seen` hits); stages that add lines
    /// of a file already among the hits (`search::infile`) are skipped.
    pub files_only: bool,
}

/// One result: a line range of a file on the branch.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Path relative to the work tree.
    pub path: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (inclusive).
    pub end_line: u32,
    /// Fused score (higher is better).
    pub score: f64,
    /// Retrievers that found it.
    pub sources: Vec<Source>,
    /// Its file's language.
    pub language: Language,
    /// The lines of the hit, numbered.
    pub lines: Vec<(u32, String)>,
    /// What made its score (`--explain`): contributions that sum to `score`.
    pub why: super::explain::Why,
}

/// Everything a search returns.
#[derive(Debug)]
pub struct SearchResult {
    /// Ranked hits.
    pub hits: Vec<Hit>,
    /// The preprocessed query.
    pub query: Query,
    /// What the search read the query as (a name, a topic, a description, an issue).
    pub kind: super::reading::Kind,
    /// Why a retriever was left out, if one was.
    pub degraded: Option<String>,
}

/// The language a `--lang` option (or an MCP call's `lang`) names, parsed once where it
/// comes in; the error lists every name there is.
pub fn language(name: &str) -> Result<Language, SearchError> {
    Language::parse(name).ok_or_else(|| SearchError::UnknownLanguage {
        lang: name.to_string(),
        known: Language::ALL.map(Language::name).join(", "),
    })
}

/// Validate and preprocess a query string.
pub fn prepare(raw: &str) -> Result<Query, SearchError> {
    query::parse(raw).map_err(|p| match p {
        QueryProblem::Empty => SearchError::EmptyQuery,
        QueryProblem::OnlyStopWords => SearchError::OnlyStopWords {
            query: raw.trim().to_string(),
        },
    })
}

/// What a search runs against: the catalog, the chunk store, the settings and the branch (a
/// catalog key). The stages of a search take it whole, so that a new one needs no new
/// parameter threaded through the others.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The catalog.
    pub db: &'a Db,
    /// Chunk text, full text and vectors.
    pub chunks: &'a ChunkStore,
    /// The settings.
    pub config: &'a Config,
    /// The branch searched (a catalog key).
    pub branch: &'a str,
}

/// What each retriever fetches (how many candidates, of which language), and which run and
/// at what weight (the mode, and the query's weights: a list weighted 0 may not run).
#[derive(Debug, Clone, Copy)]
pub struct Fetch<'a> {
    /// Candidates per retriever.
    pub n: usize,
    /// Only chunks of this language (a `--lang` filter).
    pub lang: Option<Language>,
    /// Which retrievers the search mode runs.
    pub mode: Mode,
    /// Each list's weight: the query's (`params::Ranking::weights`), never the configured
    /// ones directly, so that what the query's shape sets holds for every list.
    pub weights: &'a crate::config::Weights,
}

/// Add a reason to the degraded note.
pub fn note(degraded: &mut Option<String>, more: Option<String>) {
    if let Some(m) = more {
        *degraded = Some(match degraded.take() {
            Some(d) => format!("{d}; {m}"),
            None => m,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::infile::tests::hit;

    #[test]
    fn the_first_files_hits_end_before_the_next_files_first_hit() {
        let paths = ["a", "a", "b", "a", "c", "b", "d"];
        let len = |n| first_files_len(paths, n);
        assert_eq!(
            (len(0), len(1), len(2), len(3), len(4), len(9)),
            (0, 2, 4, 6, 7, 7)
        );
    }

    fn places(hits: &[Ranked]) -> Vec<(&str, u32, u32)> {
        hits.iter()
            .map(|(s, _)| (s.path.as_str(), s.start, s.end))
            .collect()
    }

    #[test]
    fn a_hit_an_earlier_one_holds_goes_and_one_it_overlaps_keeps_its_own_lines() {
        let mut hits = vec![
            hit("a.py", 10, 50),
            hit("a.py", 20, 30),
            hit("b.py", 20, 30),
            hit("a.py", 45, 70),
            hit("a.py", 1, 12),
            hit("a.py", 40, 45),
            hit("a.py", 15, 16),
            hit("b.py", 1, 2),
            hit("a.py", 20, 21),
        ];
        unrepeat(&mut hits, 5);
        // Held whole: 20-30 goes, and so do 40-45 and 15-16 as they move up into the first
        // five; overlapped: 45-70 and 1-12 keep their own lines. Past the first five nothing
        // is looked at (20-21 is not listed).
        assert_eq!(
            places(&hits),
            [
                ("a.py", 10, 50),
                ("b.py", 20, 30),
                ("a.py", 51, 70),
                ("a.py", 1, 9),
                ("b.py", 1, 2),
                ("a.py", 20, 21),
            ]
        );
    }

    #[test]
    fn a_hit_overlapping_two_earlier_ones_keeps_only_lines_neither_shows() {
        let mut hits = vec![
            hit("a.py", 10, 20),
            hit("a.py", 30, 40),
            hit("a.py", 15, 35),
        ];
        unrepeat(&mut hits, 3);
        assert_eq!(
            places(&hits),
            [("a.py", 10, 20), ("a.py", 30, 40), ("a.py", 21, 29)]
        );
        // Around an earlier hit: the side of its leading chunk, else the longer side.
        let mut hits = vec![hit("a.py", 20, 30), hit("a.py", 10, 50)];
        unrepeat(&mut hits, 2);
        assert_eq!(places(&hits), [("a.py", 20, 30), ("a.py", 31, 50)]);
        let mut led = hit("a.py", 10, 50);
        led.1.push(crate::search::trim::tests::chunk(12, 19));
        let mut hits = vec![hit("a.py", 20, 30), led];
        unrepeat(&mut hits, 2);
        assert_eq!(places(&hits), [("a.py", 20, 30), ("a.py", 10, 19)]);
    }
}
