//! The vector retriever's preconditions: is an embedding model configured, does this branch
//! have vectors from it, can the query be embedded now. Any "no" degrades the search to
//! BM25 + symbols with a reason, never fails it (unless `--mode vector` asked for vectors).

use super::query::Query;
use super::{retrieve, Context, Fetch, SearchError};
use crate::config::Config;
use crate::store::flat::Flat;
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
    let (db, chunks, config, branch) = (cx.db, cx.chunks, cx.config, cx.branch);
    let off = |note: String| VectorPart {
        found: None,
        note: Some(note),
    };
    let (model, flat, counted) = match ready {
        Readiness::Ready {
            model,
            flat,
            counted,
        } => (model, flat, counted),
        Readiness::Off(note) => return Ok(off(note)),
        Readiness::Disabled => {
            return Ok(VectorPart {
                found: None,
                note: None,
            })
        }
    };
    let vector = match embed_query(config, q) {
        Ok(v) => v,
        Err(e) => {
            return Ok(off(format!(
                "vector search unavailable: {e}; using BM25 + symbols"
            )))
        }
    };
    tracing::debug!("query embedded");
    let stored = match &flat {
        Some(f) => Some(f.dimension()),
        None => chunks.vector_dimension(&model)?,
    };
    if let Some(stored) = stored.filter(|&d| d != vector.len()) {
        return Ok(off(format!(
            "stored vectors have {stored} dimensions but the model now returns {}: run `git codesearch index` to re-embed; using BM25 + symbols",
            vector.len()
        )));
    }
    let (found, seen) = retrieve::vector(cx, &model, flat.as_ref(), &vector, fetch)?;
    let (done, total) = match (counted, seen) {
        (Some(c), _) => c,
        (None, Some(s)) if s.held == s.of => (s.held, s.of),
        // Something on the branch has no vectors, or has no chunks to embed: count exactly.
        _ => db.embed_coverage(branch, &model)?,
    };
    if done == 0 {
        return Ok(off(not_yet(total)));
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
