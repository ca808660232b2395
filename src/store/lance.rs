//! The LanceDB directory (`lance/`), which holds the chunk vectors of each embedding model.
//! LanceDB is async; this handle owns a small tokio runtime and offers a blocking API, so
//! the rest of the library stays synchronous. It is opened only when vectors are read or
//! written: a lexical search never pays for it.

use std::path::{Path, PathBuf};

use arrow_array::{Float32Array, RecordBatch, StringArray};
use futures::TryStreamExt;
use lancedb::query::ExecutableQuery;

use super::error::StoreError;

/// Rows of one model from which its vectors move from the flat file to a LanceDB table with
/// an approximate (IVF-PQ) index. A flat scan costs about 80 ns a row on one core, beside
/// BM25 on a thread of its own: a million rows is a scan of about 80 ms where a lexical
/// search of a tree that size takes longer. At 100,000 the vendored corpus (29,440 files,
/// about half a million chunks) went to LanceDB: searches with vectors took 2.9x lexical
/// (297 against 102 ms, most of it opening LanceDB) and the index 1.59x (f32 vectors).
pub const ANN_MIN_ROWS: usize = 1_000_000;

/// The prefix of each embedding model's vector table.
pub(super) const PREFIX: &str = "vectors_";

/// A chunk found by vector search.
#[derive(Debug, Clone)]
pub struct VectorHit {
    /// Chunk id.
    pub id: String,
    /// Content hash.
    pub content_hash: String,
    /// Cosine distance (lower is closer).
    pub distance: f32,
}

/// The table name for a model id (a stable hash keeps names short and safe).
pub fn table_name(model: &str) -> String {
    format!(
        "{PREFIX}{}",
        &crate::util::sha256_hex(model.as_bytes())[..16]
    )
}

/// The table of chunks before schema version 8 (chunks live in SQLite now).
pub(super) const LEGACY_CHUNK_TABLE: &str = "code_chunks";

/// An open LanceDB directory.
pub(super) struct Lance {
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) db: lancedb::Connection,
    pub(super) path: PathBuf,
}

impl Lance {
    /// Connect to the directory `dir` (created on first write).
    pub(super) fn open(dir: &Path) -> Result<Lance, StoreError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| StoreError::Runtime {
                path: dir.to_path_buf(),
                source: e,
            })?;
        let path = dir.to_path_buf();
        let uri = dir.to_string_lossy().to_string();
        let db = rt
            .block_on(lancedb::connect(&uri).execute())
            .map_err(|e| lance_err(&path, "connect", e))?;
        Ok(Lance { rt, db, path })
    }

    /// Run a query to completion (`what` names it in errors).
    pub(super) fn collect(
        &self,
        q: &impl ExecutableQuery,
        what: &'static str,
    ) -> Result<Vec<RecordBatch>, StoreError> {
        self.rt
            .block_on(async { q.execute().await?.try_collect::<Vec<_>>().await })
            .map_err(|e| lance_err(&self.path, what, e))
    }

    /// Delete the rows of `hashes` from table `t`, in filters of 500 hashes.
    pub(super) fn delete_in(
        &self,
        t: &lancedb::Table,
        hashes: &[String],
        what: &'static str,
    ) -> Result<(), StoreError> {
        for part in hashes.chunks(500) {
            let filter = super::filter::in_list("content_hash", part);
            self.rt
                .block_on(t.delete(filter.as_str()))
                .map_err(|e| lance_err(&self.path, what, e))?;
        }
        Ok(())
    }
}

/// Where LanceDB keeps table `name` inside the directory.
pub(super) fn table_dir(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.lance"))
}

/// Whether table `name` has at least one committed version (a manifest file). A table
/// directory without one is what a kill during the very first write leaves behind.
pub(super) fn table_committed(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(table_dir(dir, name).join("_versions"))
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".manifest"))
        })
        .unwrap_or(false)
}

/// Remove table `name` from the directory, whatever state it is in (nothing if absent).
pub(super) fn remove_table(dir: &Path, name: &str) -> Result<(), StoreError> {
    let table = table_dir(dir, name);
    if table.exists() {
        std::fs::remove_dir_all(&table).map_err(|e| StoreError::Dir {
            path: table.clone(),
            source: e,
        })?;
    }
    Ok(())
}

pub(super) fn lance_err(path: &Path, op: &'static str, e: lancedb::Error) -> StoreError {
    StoreError::Lance {
        path: path.to_path_buf(),
        op,
        source: Box::new(e),
    }
}

pub(super) fn f32_col<'a>(b: &'a RecordBatch, name: &str) -> Result<&'a Float32Array, String> {
    b.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<Float32Array>())
        .ok_or_else(|| format!("column {name} missing or not f32"))
}

pub(super) fn string_col<'a>(b: &'a RecordBatch, name: &str) -> Result<&'a StringArray, String> {
    b.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<StringArray>())
        .ok_or_else(|| format!("column {name} missing or not text"))
}
