//! Searching the index of a branch: preprocess the query, run BM25 and symbol retrieval,
//! fuse them by weighted reciprocal rank, map chunks to the branch's paths (so renamed or
//! copied files are reported where they are on this branch), filter, favour recently edited
//! files, merge overlapping chunks and cut to the limit.

pub mod budget;
pub mod cochange;
pub mod fusion;
pub mod llm;
pub mod prior;
pub mod query;
pub mod retrieve;
pub mod semantic;

use std::collections::HashMap;

use globset::{Glob, GlobMatcher};

use crate::config::Config;
use crate::store::{ChunkRef, ChunkRow, ChunkStore, Db, StoreError};
use fusion::{Source, Span};
use query::{Query, QueryProblem};

/// A ranked span of a file with the chunks it covers (their text is read last).
pub type Ranked = (Span, Vec<ChunkRef>);

/// Touching chunks of one file are merged into one hit up to this many lines.
const MERGE_MAX_LINES: u32 = 60;

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
    /// A `--path` glob does not parse.
    #[error("invalid --path glob {glob:?}")]
    BadGlob {
        glob: String,
        #[source]
        source: globset::Error,
    },
    /// A `--lang` name is unknown.
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
            SearchError::BadGlob { .. } => Some("use a glob such as 'src/**/*.rs'".into()),
            SearchError::UnknownLanguage { .. } => None,
            SearchError::ModeUnavailable { .. } => Some(
                "run `git codesearch index` to embed, or use --mode hybrid, bm25 or symbol".into(),
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

/// Options of one search.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Results wanted (default: config's n_final).
    pub limit: Option<usize>,
    /// Keep only paths matching this glob.
    pub path_glob: Option<String>,
    /// Keep only this language.
    pub lang: Option<String>,
    /// Retrievers.
    pub mode: Mode,
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
    /// Language name.
    pub language: String,
    /// The lines of the hit, numbered.
    pub lines: Vec<(u32, String)>,
}

/// Everything a search returns.
#[derive(Debug)]
pub struct SearchResult {
    /// Ranked hits.
    pub hits: Vec<Hit>,
    /// The preprocessed query.
    pub query: Query,
    /// Why a retriever was left out, if one was.
    pub degraded: Option<String>,
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

/// Search `branch` (a catalog key) for `q`.
pub fn search(
    db: &Db,
    chunks: &ChunkStore,
    config: &Config,
    branch: &str,
    q: Query,
    opts: &SearchOptions,
) -> Result<SearchResult, SearchError> {
    let glob = compile_glob(opts.path_glob.as_deref())?;
    let lang = check_lang(opts.lang.as_deref())?;
    let s = &config.search;
    let limit = opts.limit.unwrap_or(s.n_final).max(1);
    // Filters drop candidates after retrieval: fetch more when they are on.
    let n = if glob.is_some() {
        s.n_retrieve.max(limit) * 4
    } else {
        s.n_retrieve.max(limit)
    };
    let mut degraded = None;
    let chat = chat_if_used(&config.llm, &mut degraded);
    let q = match (&chat, config.llm.rewrite) {
        (Some(c), true) => rewritten(c, q, &mut degraded),
        _ => q,
    };
    // Before the lexical retrievers: a model that will be used starts loading now.
    let ready = matches!(opts.mode, Mode::Hybrid | Mode::Vector)
        .then(|| semantic::readiness(db, config, branch))
        .transpose()?;
    let mut lists = lexical(db, chunks, branch, &q, (n, lang), opts.mode, &s.weights)?;
    // Last: the query's embedding (model load) has had the lexical retrievers' time to warm up.
    if let Some(ready) = ready {
        let part = semantic::retrieve(ready, (db, chunks), config, branch, &q, n, lang)?;
        crate::util::trace("vectors retrieved");
        match (part.found, opts.mode) {
            (Some(found), _) => {
                let weight = if opts.mode == Mode::Vector {
                    1.0
                } else {
                    s.weights.vector
                };
                lists.push((Source::Vector, weight, found));
            }
            (None, Mode::Vector) => {
                return Err(SearchError::ModeUnavailable {
                    mode: "vector",
                    reason: part.note.unwrap_or_default(),
                })
            }
            (None, _) => {}
        }
        note(&mut degraded, part.note);
    }
    drop_vectors_for_a_missing_word(&mut lists, opts.mode, &q);
    let mut ranked = rank(db, &q, branch, config, &lists, glob.as_ref())?;
    if opts.mode == Mode::Hybrid && config.search.cochange && glob.is_none() && lang.is_none() {
        cochange::add_partners((db, chunks), branch, &mut ranked)?;
    }
    ranked.truncate(limit);
    let mut hits = with_text(chunks, ranked)?;
    if let (Some(c), true) = (&chat, config.llm.rerank) {
        if let Err(why) = llm::rerank(c, &q.raw, &mut hits, config.llm.rerank_top) {
            note(&mut degraded, Some(format!("rerank skipped: {why}")));
        }
    }
    Ok(SearchResult {
        hits,
        query: q,
        degraded,
    })
}

/// The BM25 and symbol lists the mode asks for. Symbol search's SQLite half runs first;
/// its LanceDB half (finding the chunks that hold the definitions) runs on a second thread
/// beside BM25, which keeps the SQLite connection.
fn lexical(
    db: &Db,
    chunks: &ChunkStore,
    branch: &str,
    q: &Query,
    (n, lang): (usize, Option<&str>),
    mode: Mode,
    weights: &crate::config::Weights,
) -> Result<Vec<(Source, f64, Vec<ChunkRef>)>, SearchError> {
    let symbols = matches!(mode, Mode::Hybrid | Mode::Symbol)
        .then(|| retrieve::symbol_hits(db, branch, q, n))
        .transpose()?;
    let (bm25, symbols) = std::thread::scope(|scope| {
        let symbols =
            symbols.map(|hits| scope.spawn(move || retrieve::symbol_chunks(chunks, &hits, lang)));
        let bm25 = matches!(mode, Mode::Hybrid | Mode::Bm25)
            .then(|| retrieve::bm25(db, chunks, branch, q, n, lang));
        crate::util::trace("bm25 retrieved");
        let symbols = symbols.map(|t| t.join().expect("symbol search thread panicked"));
        crate::util::trace("symbols retrieved");
        (bm25, symbols)
    });
    let mut lists = Vec::new();
    if let Some(found) = bm25.transpose()? {
        lists.push((Source::Bm25, weights.bm25, found));
    }
    if let Some(found) = symbols.transpose()? {
        let weight = if mode == Mode::Symbol {
            1.0
        } else {
            weights.snippet
        };
        lists.push((Source::Symbol, weight, found));
    }
    Ok(lists)
}

/// Add a reason to the degraded note.
fn note(degraded: &mut Option<String>, more: Option<String>) {
    if let Some(m) = more {
        *degraded = Some(match degraded.take() {
            Some(d) => format!("{d}; {m}"),
            None => m,
        });
    }
}

/// The chat client, when rewrite or rerank is on and it can be set up.
fn chat_if_used(
    cfg: &crate::config::LlmConfig,
    degraded: &mut Option<String>,
) -> Option<llm::Chat> {
    if !(cfg.rewrite || cfg.rerank) {
        return None;
    }
    llm::Chat::new(cfg)
        .map_err(|why| note(degraded, Some(format!("chat model unavailable: {why}"))))
        .ok()
}

/// The query plus the chat model's English keywords and identifiers; the query as it was
/// when the model fails.
fn rewritten(chat: &llm::Chat, q: Query, degraded: &mut Option<String>) -> Query {
    match llm::rewrite(chat, &q.raw) {
        Ok(extra) => prepare(&format!("{} {extra}", q.raw)).unwrap_or(q),
        Err(why) => {
            note(degraded, Some(format!("query rewrite skipped: {why}")));
            q
        }
    }
}

/// Nearest neighbours always exist. A one-word query (an identifier, an error code) that
/// neither BM25 nor symbols found is not in the code: answer "no hits" (exit 1) as grep
/// would, not with whatever happens to be nearest. Sentences keep their vector hits: that
/// is what vectors are for. `--mode vector` asked for neighbours and keeps them.
fn drop_vectors_for_a_missing_word(
    lists: &mut Vec<(Source, f64, Vec<ChunkRef>)>,
    mode: Mode,
    q: &Query,
) {
    let lexical_empty = lists
        .iter()
        .all(|(s, _, found)| *s == Source::Vector || found.is_empty());
    if mode == Mode::Hybrid && lexical_empty && q.raw.split_whitespace().count() == 1 {
        lists.retain(|(s, _, _)| *s != Source::Vector);
    }
}

fn compile_glob(glob: Option<&str>) -> Result<Option<GlobMatcher>, SearchError> {
    glob.map(|g| {
        Glob::new(g)
            .map(|g| g.compile_matcher())
            .map_err(|e| SearchError::BadGlob {
                glob: g.to_string(),
                source: e,
            })
    })
    .transpose()
}

fn check_lang(lang: Option<&str>) -> Result<Option<&str>, SearchError> {
    let Some(l) = lang else { return Ok(None) };
    let known = crate::index::lang::known_languages();
    if known.contains(&l) {
        Ok(Some(l))
    } else {
        Err(SearchError::UnknownLanguage {
            lang: l.to_string(),
            known: known.join(", "),
        })
    }
}

/// Fuse, map to paths, filter, boost and merge, best first.
fn rank(
    db: &Db,
    q: &Query,
    branch: &str,
    config: &Config,
    lists: &[(Source, f64, Vec<ChunkRef>)],
    glob: Option<&GlobMatcher>,
) -> Result<Vec<Ranked>, SearchError> {
    let mut chunk_by_id: HashMap<&str, &ChunkRef> = HashMap::new();
    let keyed: Vec<(Source, f64, Vec<String>)> = lists
        .iter()
        .map(|(src, w, rows)| {
            for r in rows {
                chunk_by_id.insert(&r.id, r);
            }
            (*src, *w, rows.iter().map(|r| r.id.clone()).collect())
        })
        .collect();
    let fused = fusion::rrf(&keyed, config.search.rrf_k);
    let mut hashes: Vec<String> = chunk_by_id
        .values()
        .map(|c| c.content_hash.clone())
        .collect();
    hashes.sort();
    hashes.dedup();
    let members = retrieve::membership(db, branch, &hashes)?;
    let now_ns = crate::util::unix_now() as i128 * 1_000_000_000;
    let mut spans = Vec::new();
    let mut chunk_of_span: Vec<&ChunkRef> = Vec::new();
    for (id, f) in &fused {
        let chunk = chunk_by_id[id.as_str()];
        for (path, mtime) in members.get(&chunk.content_hash).into_iter().flatten() {
            if glob.is_some_and(|g| !g.is_match(path)) {
                continue;
            }
            let age_days = ((now_ns - *mtime as i128).max(0) / 86_400_000_000_000) as f64;
            let recency = config.search.recency_boost * (-age_days / 14.0).exp();
            let prior = if config.search.path_prior {
                prior::prior(path, &chunk.language, q)
            } else {
                1.0
            };
            spans.push(Span {
                path: path.clone(),
                start: chunk.start_line,
                end: chunk.end_line,
                score: f.score * (1.0 + recency) * prior,
                sources: f.sources.clone(),
                members: vec![chunk_of_span.len()],
            });
            chunk_of_span.push(chunk);
        }
    }
    let merged = fusion::merge_spans(spans, 1, MERGE_MAX_LINES);
    Ok(merged
        .into_iter()
        .map(|s| {
            let parts: Vec<ChunkRef> = s
                .members
                .iter()
                .map(|&i| chunk_of_span[i].clone())
                .collect();
            (s, parts)
        })
        .collect())
}

/// Read the text of the chunks that made the results (the only text a search reads) and
/// build the hits.
fn with_text(chunks: &ChunkStore, ranked: Vec<Ranked>) -> Result<Vec<Hit>, SearchError> {
    let mut rows: Vec<u64> = ranked
        .iter()
        .flat_map(|(_, parts)| parts.iter().map(|c| c.row))
        .collect();
    rows.sort_unstable();
    rows.dedup();
    let text = chunks.take_rows(&rows)?;
    Ok(ranked
        .into_iter()
        .map(|(s, parts)| {
            let read: Vec<&ChunkRow> = parts.iter().filter_map(|c| text.get(&c.row)).collect();
            Hit {
                language: parts.first().map_or_else(
                    || crate::index::lang::language_of(&s.path).to_string(),
                    |c| c.language.clone(),
                ),
                lines: numbered_lines(&read),
                path: s.path,
                start_line: s.start,
                end_line: s.end,
                score: s.score,
                sources: s.sources,
            }
        })
        .collect())
}

/// The numbered lines of the merged chunks, in order, each line once.
fn numbered_lines(parts: &[&ChunkRow]) -> Vec<(u32, String)> {
    let mut by_line: std::collections::BTreeMap<u32, String> = std::collections::BTreeMap::new();
    for c in parts {
        for (i, line) in c.content.lines().enumerate() {
            by_line
                .entry(c.start_line + i as u32)
                .or_insert_with(|| line.to_string());
        }
    }
    by_line.into_iter().collect()
}
