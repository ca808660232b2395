//! Searching the index of a branch: preprocess the query, run the retrievers (BM25 over
//! chunks, BM25 over whole files, symbols, vectors), rank what they found (`rank`: fusion,
//! paths of the branch, filters, recency and path prior, merged chunks), add files that
//! change together with the top results, cut to the limit and read the text.

pub mod background;
pub mod budget;
pub mod cochange;
pub mod commits;
pub mod defs;
pub mod evidence;
pub mod files;
pub mod fusion;
mod gather;
pub mod llm;
pub mod params;
pub mod prior;
pub mod query;
mod rank;
mod rerank;
pub mod retrieve;
pub mod retrievers;
pub mod semantic;
pub mod thirdparty;
mod wording;

use globset::{Glob, GlobMatcher};

use crate::config::Config;
use crate::store::{ChunkRef, ChunkRow, ChunkStore, Db, StoreError};
use fusion::{Source, Span};
use query::{Query, QueryProblem};
use retrievers::{of, Id};

/// A ranked span of a file with the chunks it covers (their text is read last).
pub type Ranked = (Span, Vec<ChunkRef>);

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
            SearchError::BadGlob { .. } => Some("use a glob such as 'src/**/*.rs'".into()),
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
    pub lang: Option<&'a str>,
    /// Which retrievers the search mode runs.
    pub mode: Mode,
    /// Each list's weight: the query's (`params::Ranking::weights`), never the configured
    /// ones directly, so that what the query's shape sets holds for every list.
    pub weights: &'a crate::config::Weights,
}

/// Search the context's branch for `q`.
pub fn search(
    cx: &Context<'_>,
    q: Query,
    opts: &SearchOptions,
) -> Result<SearchResult, SearchError> {
    let Context {
        db,
        chunks,
        config,
        branch,
    } = *cx;
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
    let chat = llm::chat_if_used(&config.llm, &mut degraded);
    let q = match (&chat, config.llm.rewrite) {
        (Some(c), true) => llm::rewritten(c, q, &mut degraded),
        _ => q,
    };
    let ranking = params::Ranking::for_query(s, &q);
    let fetch = Fetch {
        n,
        lang,
        mode: opts.mode,
        weights: &ranking.weights,
    };
    // Before the lexical retrievers: a model that will be used starts loading now.
    // The query's shape sets the vector weight (an issue's is 0 by default: not run at all).
    let ready = of(Id::Vector)
        .runs(opts.mode, &ranking.weights)
        .then(|| semantic::readiness(cx))
        .transpose()?;
    let (whole_files, title_files, past) = gather::start_file_lists(cx, &q, fetch);
    let (mut lists, part) = gather::lexical_and_vectors(cx, &q, fetch, ready)?;
    if let Some(part) = part {
        tracing::debug!("vectors retrieved");
        let (list, why) = vector_list(part, opts.mode, &ranking.weights)?;
        lists.extend(list);
        note(&mut degraded, why);
    }
    drop_vectors_for_a_missing_word(&mut lists, opts.mode, &q);
    let whole_files = background::join(whole_files)?;
    let title_files = background::join(title_files)?;
    let past = background::join(past)?;
    tracing::debug!("files retrieved");
    if of(Id::Definitions).runs(opts.mode, &ranking.weights) {
        let hashes =
            definition_candidates(&lists, &whole_files, &title_files, ranking.definition_files);
        let found = defs::name_matches(cx, &q, &hashes, fetch)?;
        tracing::debug!("definitions the query names");
        let weight = of(Id::Definitions).weight_in(opts.mode, &ranking.weights);
        lists.push((Source::Symbol, weight, found));
    }
    let keywords = evidence::keywords(&q);
    let names = evidence::names(&q);
    let question = opts.mode == Mode::Hybrid && ranking.shape == params::Shape::Question;
    let definitions = if question {
        retrieve::definitions_named(db, branch, &names.names)?
    } else {
        Vec::new()
    };
    let ev = rerank::Evidence {
        keywords: &keywords,
        names: &names,
        definitions: &definitions,
        describes_behaviour: ranking.describes_behaviour,
    };
    let (vector_files, vector_file_weight) = semantic::file_list(&lists, opts.mode, &ranking);
    let found = rank::Found {
        lists: &lists,
        files: &whole_files,
        title_files: &title_files,
        vector_files: (&vector_files, vector_file_weight),
        past: &past,
        evidence: question.then_some(&ev),
    };
    let plan = rank::Plan {
        q: &q,
        ranking: &ranking,
        glob: glob.as_ref(),
        limit,
    };
    let mut ranked = rank::rank(cx, &plan, found)?;
    if opts.mode == Mode::Hybrid && config.search.cochange && glob.is_none() && lang.is_none() {
        cochange::add_partners(cx, &mut ranked)?;
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

/// The vector list of a retrieval with its weight in `mode`, and the note on why vectors
/// are missing or partial; an error when `--mode vector` asked for vectors and has none.
fn vector_list(
    part: semantic::VectorPart,
    mode: Mode,
    weights: &crate::config::Weights,
) -> Result<(Option<List>, Option<String>), SearchError> {
    match (part.found, mode) {
        (Some(found), _) => {
            let weight = of(Id::Vector).weight_in(mode, weights);
            Ok((Some((Source::Vector, weight, found)), part.note))
        }
        (None, Mode::Vector) => Err(SearchError::ModeUnavailable {
            mode: "vector",
            reason: part.note.unwrap_or_else(|| semantic::DISABLED.into()),
        }),
        (None, _) => Ok((None, part.note)),
    }
}

/// The contents whose definitions the function-level stage ranks: those of the first
/// `n_files` distinct contents of the chunk lists and of each whole-file list, in that order.
fn definition_candidates(
    lists: &[List],
    files: &[String],
    title_files: &[String],
    n_files: usize,
) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut take = |hashes: &mut dyn Iterator<Item = &String>| {
        for h in hashes.take(n_files) {
            if seen.insert(h.clone()) {
                out.push(h.clone());
            }
        }
    };
    for (_, _, found) in lists {
        let mut distinct = std::collections::HashSet::new();
        take(
            &mut found
                .iter()
                .map(|c| &c.content_hash)
                .filter(|h| distinct.insert(*h)),
        );
    }
    take(&mut files.iter());
    take(&mut title_files.iter());
    out
}

/// Add a reason to the degraded note.
pub(super) fn note(degraded: &mut Option<String>, more: Option<String>) {
    if let Some(m) = more {
        *degraded = Some(match degraded.take() {
            Some(d) => format!("{d}; {m}"),
            None => m,
        });
    }
}

/// Nearest neighbours always exist. A one-word query (an identifier, an error code) that
/// neither BM25 nor symbols found is not in the code: answer "no hits" (exit 1) as grep
/// would, not with whatever happens to be nearest. Sentences keep their vector hits: that
/// is what vectors are for. `--mode vector` asked for neighbours and keeps them.
fn drop_vectors_for_a_missing_word(lists: &mut Vec<List>, mode: Mode, q: &Query) {
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
    let known = crate::text::lang::known_languages();
    if known.contains(&l) {
        Ok(Some(l))
    } else {
        Err(SearchError::UnknownLanguage {
            lang: l.to_string(),
            known: known.join(", "),
        })
    }
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
                    || crate::text::lang::language_of(&s.path).to_string(),
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

/// The numbered lines of the merged chunks, in order, each line once. Chunks are cut at
/// syntax boundaries, which can fall inside a line (`fn f() -> u32` | `{`): a line two
/// chunks share is shown as the longer of its two parts.
fn numbered_lines(parts: &[&ChunkRow]) -> Vec<(u32, String)> {
    let mut by_line: std::collections::BTreeMap<u32, String> = std::collections::BTreeMap::new();
    for c in parts {
        for (i, line) in c.content.lines().enumerate() {
            let shown = by_line.entry(c.start_line + i as u32).or_default();
            if line.len() > shown.len() {
                *shown = line.to_string();
            }
        }
    }
    by_line.into_iter().collect()
}
