//! The LanceDB `code_chunks` table: content-addressed chunks (a row per chunk of a content
//! hash) with a full-text (BM25) index over their text using Lance's code analyzer, which
//! splits camelCase / snake_case identifiers and keeps the whole identifier too.
//!
//! LanceDB is async; this wrapper owns a small tokio runtime and offers a blocking API, so
//! the rest of the library stays synchronous.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{Array, Float32Array, Int64Array, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use futures::TryStreamExt;
use lancedb::index::scalar::FtsIndexBuilder;
use lancedb::index::{Index, IndexType};
use lancedb::query::{ExecutableQuery, QueryBase, Select};
use lancedb::table::{OptimizeAction, OptimizeOptions};

use super::StoreError;

/// Name of the chunk table.
pub const TABLE: &str = "code_chunks";

/// Name of the full-text index without stemming.
const FTS_PLAIN: &str = "content_fts";
/// Name of the full-text index with English stemming.
const FTS_STEM: &str = "content_fts_stem";

/// One chunk of one content hash.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRow {
    /// `<content hash>:<chunk number>`.
    pub id: String,
    /// SHA-256 of the file content the chunk comes from.
    pub content_hash: String,
    /// Path the content had when it was first computed (results use the branch's paths).
    pub filepath: String,
    /// Language name.
    pub language: String,
    /// The chunk's text.
    pub content: String,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (1-based, inclusive).
    pub end_line: u32,
}

/// The chunk table of one index directory.
pub struct ChunkStore {
    pub(super) rt: tokio::runtime::Runtime,
    pub(super) db: lancedb::Connection,
    table: Option<lancedb::Table>,
    pub(super) path: PathBuf,
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("content_hash", DataType::Utf8, false),
        Field::new("filepath", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new("content", DataType::Utf8, false),
        Field::new("start_line", DataType::UInt32, false),
        Field::new("end_line", DataType::UInt32, false),
        Field::new("updated_at", DataType::Int64, false),
    ]))
}

pub(super) const COLUMNS: [&str; 7] = [
    "id",
    "content_hash",
    "filepath",
    "language",
    "content",
    "start_line",
    "end_line",
];

/// `content_hash IN ('…', …)`.
pub(super) fn hash_filter(hashes: &[String]) -> String {
    super::filter::in_list("content_hash", hashes)
}

/// Where LanceDB keeps table `name` inside the store directory.
pub(super) fn table_dir(dir: &Path, name: &str) -> std::path::PathBuf {
    dir.join(format!("{name}.lance"))
}

/// Whether table `name` has at least one committed version (a manifest file).
pub(super) fn table_committed(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(table_dir(dir, name).join("_versions"))
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".manifest"))
        })
        .unwrap_or(false)
}

impl ChunkStore {
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

    /// Open the chunk store in `dir` (created on first write).
    pub fn open(dir: &Path) -> Result<ChunkStore, StoreError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| StoreError::Dir {
                path: dir.to_path_buf(),
                source: e,
            })?;
        let path = dir.to_path_buf();
        let uri = dir.to_string_lossy().to_string();
        let db = rt
            .block_on(lancedb::connect(&uri).execute())
            .map_err(|e| lance_err(&path, "connect", e))?;
        let names = rt
            .block_on(db.table_names().execute())
            .map_err(|e| lance_err(&path, "list tables", e))?;
        // A table directory without a committed manifest is what a kill during the very
        // first write leaves behind: no run ever committed anything into it, so it reads
        // as "no table yet" (and `add` clears it away before creating the real one).
        let table = if names.iter().any(|n| n == TABLE) && table_committed(dir, TABLE) {
            Some(
                rt.block_on(db.open_table(TABLE).execute())
                    .map_err(|e| lance_err(&path, "open table", e))?,
            )
        } else {
            None
        };
        Ok(ChunkStore {
            rt,
            db,
            table,
            path,
        })
    }

    /// Fail when the catalog expects chunks (`expected` contents have some) but the table
    /// is gone: searching would silently miss everything, and indexing would never
    /// recompute content it believes is stored.
    pub fn ensure_present(&self, expected: usize) -> Result<(), StoreError> {
        if self.table.is_none() && expected > 0 {
            return Err(StoreError::ChunksMissing {
                path: self.path.clone(),
                expected,
            });
        }
        Ok(())
    }

    /// Whether the chunk table exists (with a committed version).
    pub fn has_table(&self) -> bool {
        self.table.is_some()
    }

    /// Where the store lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write chunks, first removing any rows of the same content hashes (left over by an
    /// interrupted run), so a hash never has its chunks twice.
    pub fn add(&mut self, rows: &[ChunkRow]) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut hashes: Vec<String> = rows.iter().map(|r| r.content_hash.clone()).collect();
        hashes.sort();
        hashes.dedup();
        self.delete_hashes(&hashes)?;
        let batch = to_batch(rows).map_err(|e| StoreError::Shape {
            path: self.path.clone(),
            what: e.to_string(),
        })?;
        match &self.table {
            Some(t) => self
                .rt
                .block_on(t.add(batch).execute())
                .map(|_| ())
                .map_err(|e| lance_err(&self.path, "add chunks", e)),
            None => {
                // Only index runs write, and they hold the index lock, so a leftover
                // uncommitted directory here belongs to a dead run.
                let partial = table_dir(&self.path, TABLE);
                if partial.exists() {
                    std::fs::remove_dir_all(&partial).map_err(|e| StoreError::Dir {
                        path: partial.clone(),
                        source: e,
                    })?;
                }
                let t = self
                    .rt
                    .block_on(self.db.create_table(TABLE, batch).execute())
                    .map_err(|e| lance_err(&self.path, "create table", e))?;
                self.table = Some(t);
                Ok(())
            }
        }
    }

    /// Remove every chunk of the given content hashes, and their vectors of every model.
    pub fn delete_hashes(&self, hashes: &[String]) -> Result<(), StoreError> {
        let Some(t) = &self.table else { return Ok(()) };
        self.delete_in(t, hashes, "delete chunks")?;
        self.delete_vectors(hashes)
    }

    /// Delete the rows of `hashes` from table `t`, in filters of 500 hashes.
    pub(super) fn delete_in(
        &self,
        t: &lancedb::Table,
        hashes: &[String],
        what: &'static str,
    ) -> Result<(), StoreError> {
        for part in hashes.chunks(500) {
            self.rt
                .block_on(t.delete(hash_filter(part).as_str()))
                .map_err(|e| lance_err(&self.path, what, e))?;
        }
        Ok(())
    }

    /// Bring the indices up to date: build the full-text index if missing (or rebuild it
    /// when the stemming setting changed), else index rows added since.
    pub fn refresh_fts(&self, stemming: bool) -> Result<(), StoreError> {
        let Some(t) = &self.table else { return Ok(()) };
        let indices = self
            .rt
            .block_on(t.list_indices())
            .map_err(|e| lance_err(&self.path, "list indices", e))?;
        let wanted = if stemming { FTS_STEM } else { FTS_PLAIN };
        let mut has_fts = false;
        for i in indices.iter().filter(|i| i.index_type == IndexType::FTS) {
            if i.name == wanted {
                has_fts = true;
            } else {
                self.rt
                    .block_on(t.drop_index(&i.name))
                    .map_err(|e| lance_err(&self.path, "drop full-text index", e))?;
            }
        }
        let has_btree = indices.iter().any(|i| i.index_type == IndexType::BTree);
        if !has_fts {
            let params = FtsIndexBuilder::code()
                .split_identifiers(true)
                .preserve_original(true)
                .stem(stemming);
            let build = t
                .create_index(&["content"], Index::FTS(params))
                .name(wanted.to_string());
            self.rt
                .block_on(build.execute())
                .map_err(|e| lance_err(&self.path, "build full-text index", e))?;
        }
        if !has_btree {
            let build = t.create_index(&["content_hash"], Index::BTree(Default::default()));
            self.rt
                .block_on(build.execute())
                .map_err(|e| lance_err(&self.path, "build hash index", e))?;
        }
        if has_fts || has_btree {
            self.rt
                .block_on(t.optimize(OptimizeAction::Index(OptimizeOptions::default())))
                .map_err(|e| lance_err(&self.path, "update indices", e))?;
        }
        Ok(())
    }

    /// True when the full-text index matches the stemming setting.
    pub fn fts_matches(&self, stemming: bool) -> Result<bool, StoreError> {
        let Some(t) = &self.table else {
            return Ok(true);
        };
        let wanted = if stemming { FTS_STEM } else { FTS_PLAIN };
        let indices = self
            .rt
            .block_on(t.list_indices())
            .map_err(|e| lance_err(&self.path, "list indices", e))?;
        Ok(indices.iter().any(|i| i.name == wanted))
    }

    /// All chunks of the given content hashes.
    pub fn chunks_of(&self, hashes: &[String]) -> Result<Vec<ChunkRow>, StoreError> {
        self.read_in(("content_hash", hashes), (&COLUMNS, false), from_batch)
    }

    /// Rows whose `column` is one of `values`, with the `select`ed columns (and the row id
    /// when `row_id`), each batch read by `parse`.
    pub(super) fn read_in<T>(
        &self,
        (column, values): (&'static str, &[String]),
        (select, row_id): (&[&str], bool),
        parse: impl Fn(&RecordBatch) -> Result<Vec<T>, String>,
    ) -> Result<Vec<T>, StoreError> {
        let Some(t) = &self.table else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for part in values.chunks(500) {
            let mut q = t
                .query()
                .only_if(super::filter::in_list(column, part))
                .select(Select::Columns(
                    select.iter().map(|c| c.to_string()).collect(),
                ));
            if row_id {
                q = q.with_row_id();
            }
            for b in &self.collect(&q, "read chunks")? {
                out.extend(parse(b).map_err(|what| self.shape_err(what))?);
            }
        }
        Ok(out)
    }

    /// Number of chunk rows.
    pub fn count(&self) -> Result<usize, StoreError> {
        let Some(t) = &self.table else { return Ok(0) };
        self.rt
            .block_on(t.count_rows(None))
            .map_err(|e| lance_err(&self.path, "count chunks", e))
    }

    /// Distinct content hashes present in the table (for orphan checks).
    pub fn hashes(&self) -> Result<HashSet<String>, StoreError> {
        let Some(t) = &self.table else {
            return Ok(HashSet::new());
        };
        let q = t
            .query()
            .select(Select::Columns(vec!["content_hash".to_string()]));
        let batches = self.collect(&q, "read hashes")?;
        let mut set = HashSet::new();
        for b in &batches {
            let col = string_col(b, "content_hash").map_err(|what| self.shape_err(what))?;
            for i in 0..col.len() {
                set.insert(col.value(i).to_string());
            }
        }
        Ok(set)
    }

    /// Merge small files and drop old versions, keeping the store compact.
    pub fn compact(&self) -> Result<(), StoreError> {
        let Some(t) = &self.table else { return Ok(()) };
        self.rt
            .block_on(t.optimize(OptimizeAction::All))
            .map(|_| ())
            .map_err(|e| lance_err(&self.path, "compact", e))
    }

    /// The store's view of the table, if it has been created.
    pub(super) fn table(&self) -> Option<&lancedb::Table> {
        self.table.as_ref()
    }

    pub(super) fn shape_err(&self, what: String) -> StoreError {
        StoreError::Shape {
            path: self.path.clone(),
            what,
        }
    }
}

pub(super) fn lance_err(path: &Path, op: &'static str, e: lancedb::Error) -> StoreError {
    StoreError::Lance {
        path: path.to_path_buf(),
        op,
        source: Box::new(e),
    }
}

fn to_batch(rows: &[ChunkRow]) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let now = crate::util::unix_now();
    let strings = |f: fn(&ChunkRow) -> &str| -> Arc<dyn Array> {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    RecordBatch::try_new(
        schema(),
        vec![
            strings(|r| &r.id),
            strings(|r| &r.content_hash),
            strings(|r| &r.filepath),
            strings(|r| &r.language),
            strings(|r| &r.content),
            Arc::new(UInt32Array::from_iter_values(
                rows.iter().map(|r| r.start_line),
            )),
            Arc::new(UInt32Array::from_iter_values(
                rows.iter().map(|r| r.end_line),
            )),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|_| now))),
        ],
    )
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

fn u32_col<'a>(b: &'a RecordBatch, name: &str) -> Result<&'a UInt32Array, String> {
    b.column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<UInt32Array>())
        .ok_or_else(|| format!("column {name} missing or not u32"))
}

/// The columns every read of chunks uses: id, content hash, language and line span.
pub(super) struct KeyCols<'a> {
    id: &'a StringArray,
    hash: &'a StringArray,
    language: &'a StringArray,
    start: &'a UInt32Array,
    end: &'a UInt32Array,
}

/// Row `i` of [`KeyCols`]: (id, content hash, language, first line, last line).
pub(super) type Key = (String, String, String, u32, u32);

impl<'a> KeyCols<'a> {
    pub(super) fn of(b: &'a RecordBatch) -> Result<KeyCols<'a>, String> {
        Ok(KeyCols {
            id: string_col(b, "id")?,
            hash: string_col(b, "content_hash")?,
            language: string_col(b, "language")?,
            start: u32_col(b, "start_line")?,
            end: u32_col(b, "end_line")?,
        })
    }

    pub(super) fn at(&self, i: usize) -> Key {
        (
            self.id.value(i).to_string(),
            self.hash.value(i).to_string(),
            self.language.value(i).to_string(),
            self.start.value(i),
            self.end.value(i),
        )
    }
}

pub(super) fn from_batch(b: &RecordBatch) -> Result<Vec<ChunkRow>, String> {
    let keys = KeyCols::of(b)?;
    let filepath = string_col(b, "filepath")?;
    let content = string_col(b, "content")?;
    Ok((0..b.num_rows())
        .map(|i| {
            let (id, content_hash, language, start_line, end_line) = keys.at(i);
            ChunkRow {
                id,
                content_hash,
                filepath: filepath.value(i).to_string(),
                language,
                content: content.value(i).to_string(),
                start_line,
                end_line,
            }
        })
        .collect())
}
