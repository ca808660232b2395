//! The vector retriever's preconditions: is an embedding model configured, does this branch
//! have vectors from it, can the query be embedded now. Any "no" degrades the search to
//! BM25 + symbols with a reason, never fails it (unless `--mode vector` asked for vectors).

use super::query::Query;
use super::retrieve;
use super::types::{Context, Fetch, SearchError};
use crate::config::Config;
use crate::store::flat::{Flat, Nearest};
use crate::store::ChunkRef;

/// What the vector retriever contributed.
pub struct VectorPart {
    /// Nearest chunks on the branch, when vector search ran.
    pub found: Option<Vec<ChunkRef>>,
    /// Why vector search did not run or is incomplete.
    pub note: Option<String>,
}

/// Whether this branch can have vector hits, and from where; or why vector search is off.
pub enum Readiness {
    /// A current flat copy of the model's vectors: its scan counts the branch's embedded
    /// files itself.
    Flat { model: String, flat: Flat },
    /// LanceDB, with `done` of `total` files embedded (`done` > 0), counted first.
    Lance {
        model: String,
        done: usize,
        total: usize,
    },
    /// Vector search cannot run; the reason, for the degraded note.
    Off(String),
    /// Vector search is turned off (`provider = "none"`): a choice, not a degraded search.
    Disabled,
}

/// Why `--mode vector` cannot run when no provider is configured.
pub const DISABLED: &str =
    "vector search is off ([embed] provider = none): turn it on with `git config codesearch.embedProvider static` and run `git codesearch index`";

/// Read, once per search, whether vectors can be searched on `branch`. With a
/// current flat copy the coverage is not counted here: the scan reads the branch's contents
/// anyway, and the count by SQL costs more than the scan (3 ms on one-commit astropy).
pub fn readiness(cx: &Context<'_>) -> Result<Readiness, SearchError> {
    let (db, chunks, config, branch) = (cx.db, cx.chunks, cx.config, cx.branch);
    let Some(model) = crate::embed::model_id(&config.embed) else {
        return Ok(Readiness::Disabled);
    };
    if let Some(flat) = chunks.flat_vectors(&model) {
        return Ok(Readiness::Flat { model, flat });
    }
    let (done, total) = db.embedded().coverage(branch, &model)?;
    tracing::debug!("vector coverage read");
    if done == 0 {
        return Ok(Readiness::Off(not_yet(total)));
    }
    Ok(Readiness::Lance { model, done, total })
}

/// The note of a branch none of whose `total` files has vectors yet.
fn not_yet(total: usize) -> String {
    format!(
        "no vectors yet on this branch (0 of {total} files embedded; a background run embeds them, or an index run that waits for embedding); using BM25 + symbols"
    )
}

/// Vector retrieval as started: on a thread of its own beside the lexical retrievers when
/// a current flat copy answers (the query's embedding and the scan need no SQLite
/// connection once the branch's contents are read), else left for after them.
pub enum Started<'s> {
    /// The query's embedding and the scan of the flat copy, running.
    Scanning {
        model: String,
        /// Distinct contents on the branch.
        of: usize,
        scan: std::thread::ScopedJoinHandle<'s, Scanned>,
    },
    /// LanceDB: searched after the lexical retrievers, whose time the model's loading has
    /// had to warm up.
    Lance {
        model: String,
        done: usize,
        total: usize,
    },
    /// No vector search, and why (nothing when it is off by choice).
    Without(Option<String>),
}

/// What the scanning thread found, or why vectors are unavailable.
pub enum Scanned {
    /// The nearest rows of the branch.
    Found(Nearest),
    /// The note of a search without vectors.
    Unavailable(String),
}

/// Start vector retrieval on `scope` if `ready` has a current flat copy.
pub fn start<'s, 'e: 's>(
    scope: &'s std::thread::Scope<'s, 'e>,
    ready: Readiness,
    cx: &Context<'e>,
    q: &'e Query,
    fetch: Fetch<'e>,
) -> Result<Started<'s>, SearchError> {
    let (model, flat) = match ready {
        Readiness::Flat { model, flat } => (model, flat),
        Readiness::Lance { model, done, total } => {
            return Ok(Started::Lance { model, done, total })
        }
        Readiness::Off(note) => return Ok(Started::Without(Some(note))),
        Readiness::Disabled => return Ok(Started::Without(None)),
    };
    let on_branch = cx.db.catalog().branch_content_keys(cx.branch)?;
    tracing::debug!("branch contents read");
    let (of, config, n, lang) = (on_branch.len(), cx.config, fetch.n, fetch.lang);
    let scan = scope.spawn(move || {
        let vector = match embed_query(config, q) {
            Ok(v) => v,
            Err(e) => return Scanned::Unavailable(unavailable(&e)),
        };
        if flat.dimension() != vector.len() {
            return Scanned::Unavailable(other_dimension(flat.dimension(), vector.len()));
        }
        Scanned::Found(flat.nearest(&vector, n, Some(&on_branch), lang))
    });
    Ok(Started::Scanning { model, of, scan })
}

/// Finish what [`start`] began: the scan's chunks and coverage, or a LanceDB search.
pub fn finish(
    started: Started<'_>,
    cx: &Context<'_>,
    q: &Query,
    fetch: Fetch<'_>,
) -> Result<VectorPart, SearchError> {
    let (model, of, scan) = match started {
        Started::Scanning { model, of, scan } => (model, of, scan),
        Started::Lance { model, done, total } => return lance(cx, q, fetch, &model, (done, total)),
        Started::Without(note) => return Ok(VectorPart { found: None, note }),
    };
    // A scan that panicked is a bug: its panic goes on in this thread.
    let near = match scan.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
        Scanned::Found(near) => near,
        Scanned::Unavailable(note) => return Ok(without_vectors(note)),
    };
    tracing::debug!("flat vectors searched");
    let found = retrieve::flat_refs(cx, near.hits)?;
    // Every content of the branch has vectors: no count needed. Otherwise something has no
    // vectors, or has no chunks to embed: count exactly.
    let (done, total) = if near.contents == of {
        (of, of)
    } else {
        cx.db.embedded().coverage(cx.branch, &model)?
    };
    covered(found, done, total)
}

/// A LanceDB search, `done` of `total` files of the branch embedded.
fn lance(
    cx: &Context<'_>,
    q: &Query,
    fetch: Fetch<'_>,
    model: &str,
    (done, total): (usize, usize),
) -> Result<VectorPart, SearchError> {
    let vector = match embed_query(cx.config, q) {
        Ok(v) => v,
        Err(e) => return Ok(without_vectors(unavailable(&e))),
    };
    tracing::debug!("query embedded");
    if let Some(stored) = cx.chunks.vector_dimension(model)? {
        if stored != vector.len() {
            return Ok(without_vectors(other_dimension(stored, vector.len())));
        }
    }
    let found = retrieve::vector(cx, model, &vector, fetch)?;
    covered(found, done, total)
}

/// The vector part of `found`, `done` of the branch's `total` files embedded, with the note
/// that says so when some are missing.
fn covered(found: Vec<ChunkRef>, done: usize, total: usize) -> Result<VectorPart, SearchError> {
    if done == 0 {
        return Ok(without_vectors(not_yet(total)));
    }
    let note = (done < total).then(|| {
        format!(
            "vectors cover {done} of {total} files on this branch (the rest are embedded in the background, or by an index run that waits for embedding)"
        )
    });
    Ok(VectorPart {
        found: Some(found),
        note,
    })
}

/// No vector hits, and why.
fn without_vectors(note: String) -> VectorPart {
    VectorPart {
        found: None,
        note: Some(note),
    }
}

fn unavailable(e: &crate::embed::EmbedError) -> String {
    format!("vector search unavailable: {e}; using BM25 + symbols")
}

fn other_dimension(stored: usize, now: usize) -> String {
    format!(
        "stored vectors have {stored} dimensions but the model now returns {now}: run `git codesearch index` to re-embed; using BM25 + symbols"
    )
}

/// The query's vector. The raw text is embedded (stop words carry meaning for a sentence
/// model), after identifiers are spelled out as words.
pub(super) fn embed_query(
    config: &Config,
    q: &Query,
) -> Result<Vec<f32>, crate::embed::EmbedError> {
    let mut embedder = crate::embed::from_config(&config.embed)?.ok_or_else(|| {
        crate::embed::EmbedError::Local {
            what: "no embedding provider".into(),
        }
    })?;
    let text = q.raw.trim().to_string();
    let mut v = embedder.embed(&[text])?;
    Ok(v.pop().unwrap_or_default())
}

/// The file list a search's vectors make, with its weight: hybrid mode only (`--mode vector`
/// ranks chunks by their vectors alone), at the weight the query's shape gives it.
pub fn file_list(
    lists: &[super::types::List],
    mode: super::types::Mode,
    ranking: &super::params::Ranking,
) -> (Vec<String>, f64) {
    if mode != super::types::Mode::Hybrid || ranking.vector_files <= 0.0 {
        return (Vec::new(), 0.0);
    }
    (files(lists), ranking.vector_files)
}

/// The distinct contents of the vector list, nearest first: the file list a question's
/// vectors make (`search.question_vector_file_weight`).
fn files(lists: &[super::types::List]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    lists
        .iter()
        .filter(|(s, ..)| *s == super::fusion::Source::Vector)
        .flat_map(|(_, _, found)| found.iter())
        .filter(|c| seen.insert(c.content_hash.as_str()))
        .map(|c| c.content_hash.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::fusion::Source;
    use crate::search::List;
    use crate::store::ChunkRef;

    fn chunk(hash: &str, n: u32) -> ChunkRef {
        ChunkRef {
            row: 0,
            id: format!("{hash}:{n}"),
            content_hash: hash.into(),
            language: crate::lang::Language::Python,
            start_line: n * 10 + 1,
            end_line: n * 10 + 10,
        }
    }

    #[test]
    fn the_vector_lists_files_come_nearest_first_once_each_and_no_other_lists() {
        let lists: Vec<List> = vec![
            (Source::Bm25, 0.6, vec![chunk("lexical", 0)]),
            (
                Source::Vector,
                0.15,
                vec![chunk("b", 2), chunk("a", 0), chunk("b", 0), chunk("c", 1)],
            ),
        ];
        assert_eq!(files(&lists), ["b", "a", "c"]);
        assert!(files(&lists[..1]).is_empty());
    }
}
