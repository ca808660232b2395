//! The vector retriever's preconditions: is an embedding model configured, does this branch
//! have vectors from it, can the query be embedded now. Any "no" degrades the search to
//! BM25 + symbols with a reason, never fails it (unless `--mode vector` asked for vectors).

use super::query::Query;
use super::{retrieve, Context, Fetch, SearchError};
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

/// Whether this branch can have vector hits: the configured model, its flat copy when that
/// is current, and (for LanceDB only) how many of the branch's files it has embedded; or why
/// vector search is off.
pub enum Readiness {
    /// A model is configured and may have vectors on the branch.
    Ready {
        model: String,
        /// The flat copy of the model's vectors, when current: its scan counts the branch's
        /// embedded files itself.
        flat: Option<Flat>,
        /// `done` of `total` files embedded (`done` > 0), counted before a LanceDB search.
        counted: Option<(usize, usize)>,
    },
    /// Vector search cannot run; the reason, for the degraded note.
    Off(String),
    /// No embedding provider is configured (the default): a choice, not a degraded search.
    Disabled,
}

/// Why `--mode vector` cannot run when no provider is configured.
pub const DISABLED: &str =
    "vector search is off (the default; [embed] provider = none): turn it on with `git config codesearch.embedProvider local` and run `git codesearch index`";

/// Read, once per search, whether vectors can be searched on `branch`; when they can, start
/// loading the model in the background so that it overlaps the lexical retrievers. With a
/// current flat copy the coverage is not counted here: the scan reads the branch's contents
/// anyway, and the count by SQL costs more than the scan (3 ms on one-commit astropy).
pub fn readiness(cx: &Context<'_>) -> Result<Readiness, SearchError> {
    let (db, chunks, config, branch) = (cx.db, cx.chunks, cx.config, cx.branch);
    let Some(model) = crate::embed::model_id(&config.embed) else {
        return Ok(Readiness::Disabled);
    };
    if let Some(flat) = chunks.flat_vectors(&model) {
        crate::embed::warm_up(&config.embed);
        return Ok(Readiness::Ready {
            model,
            flat: Some(flat),
            counted: None,
        });
    }
    let (done, total) = db.embed_coverage(branch, &model)?;
    tracing::debug!("vector coverage read");
    if done == 0 {
        return Ok(Readiness::Off(not_yet(total)));
    }
    crate::embed::warm_up(&config.embed);
    Ok(Readiness::Ready {
        model,
        flat: None,
        counted: Some((done, total)),
    })
}

/// The note of a branch none of whose `total` files has vectors yet.
fn not_yet(total: usize) -> String {
    format!(
        "no vectors yet on this branch (0 of {total} files embedded; a background run embeds them, `git codesearch index --wait` now); using BM25 + symbols"
    )
}

/// Run vector retrieval if `ready` says it can run.
pub fn retrieve(
    ready: Readiness,
    cx: &Context<'_>,
    q: &Query,
    fetch: Fetch<'_>,
) -> Result<VectorPart, SearchError> {
    let (chunks, config) = (cx.chunks, cx.config);
    let (model, flat, counted) = match ready {
        Readiness::Ready {
            model,
            flat,
            counted,
        } => (model, flat, counted),
        Readiness::Off(note) => return Ok(without_vectors(note)),
        Readiness::Disabled => {
            return Ok(VectorPart {
                found: None,
                note: None,
            })
        }
    };
    let vector = match embed_query(config, q) {
        Ok(v) => v,
        Err(e) => return Ok(without_vectors(unavailable(&e))),
    };
    tracing::debug!("query embedded");
    let stored = match &flat {
        Some(f) => Some(f.dimension()),
        None => chunks.vector_dimension(&model)?,
    };
    if let Some(stored) = stored.filter(|&d| d != vector.len()) {
        return Ok(without_vectors(other_dimension(stored, vector.len())));
    }
    let (found, seen) = retrieve::vector(cx, &model, flat.as_ref(), &vector, fetch)?;
    let coverage = match (counted, seen) {
        (Some((done, total)), _) => Coverage::Counted { done, total },
        (None, Some(seen)) => Coverage::Scanned(seen),
        (None, None) => Coverage::Unknown,
    };
    covered(cx, &model, found, coverage)
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
    /// LanceDB, or no vector search: [`retrieve`] runs after the lexical retrievers, whose
    /// time the model's loading has had to warm up.
    Later(Readiness),
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
        Readiness::Ready {
            model,
            flat: Some(flat),
            ..
        } => (model, flat),
        other => return Ok(Started::Later(other)),
    };
    let on_branch = cx.db.branch_content_keys(cx.branch)?;
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

/// Finish what [`start`] began: the scan's chunks and coverage, or the whole retrieval.
pub fn finish(
    started: Started<'_>,
    cx: &Context<'_>,
    q: &Query,
    fetch: Fetch<'_>,
) -> Result<VectorPart, SearchError> {
    let (model, of, scan) = match started {
        Started::Later(ready) => return retrieve(ready, cx, q, fetch),
        Started::Scanning { model, of, scan } => (model, of, scan),
    };
    // A scan that panicked is a bug: its panic goes on in this thread.
    let near = match scan.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
        Scanned::Found(near) => near,
        Scanned::Unavailable(note) => return Ok(without_vectors(note)),
    };
    tracing::debug!("flat vectors searched");
    let seen = retrieve::Seen {
        held: near.contents,
        of,
    };
    let found = retrieve::flat_refs(cx, near.hits)?;
    covered(cx, &model, found, Coverage::Scanned(seen))
}

/// What a search knows of its branch's vector coverage when its hits are in.
enum Coverage {
    /// Counted by SQL before a LanceDB search.
    Counted { done: usize, total: usize },
    /// What the flat scan saw.
    Scanned(retrieve::Seen),
    /// Nothing yet.
    Unknown,
}

/// The vector part of `found`, with its note on coverage: counted before a LanceDB search,
/// or what a flat scan saw (when it saw all of the branch, no count is needed).
fn covered(
    cx: &Context<'_>,
    model: &str,
    found: Vec<ChunkRef>,
    coverage: Coverage,
) -> Result<VectorPart, SearchError> {
    let (done, total) = match coverage {
        Coverage::Counted { done, total } => (done, total),
        Coverage::Scanned(s) if s.held == s.of => (s.held, s.of),
        // Something on the branch has no vectors, or has no chunks to embed: count exactly.
        Coverage::Scanned(_) | Coverage::Unknown => cx.db.embed_coverage(cx.branch, model)?,
    };
    if done == 0 {
        return Ok(without_vectors(not_yet(total)));
    }
    let note = (done < total).then(|| {
        format!(
            "vectors cover {done} of {total} files on this branch (the rest are embedded in the background; `git codesearch index --wait` embeds them now)"
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
fn embed_query(config: &Config, q: &Query) -> Result<Vec<f32>, crate::embed::EmbedError> {
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
    lists: &[super::List],
    mode: super::Mode,
    ranking: &super::params::Ranking,
) -> (Vec<String>, f64) {
    if mode != super::Mode::Hybrid || ranking.vector_files <= 0.0 {
        return (Vec::new(), 0.0);
    }
    (files(lists), ranking.vector_files)
}

/// The distinct contents of the vector list, nearest first: the file list a question's
/// vectors make (`search.question_vector_file_weight`).
fn files(lists: &[super::List]) -> Vec<String> {
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
            language: "python".into(),
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
