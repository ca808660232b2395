//! Chunk vectors, stored once: one store per embedding model, keyed by chunk id, so vectors
//! of different models or dimensions never mix and switching models never rewrites the chunk
//! table or its full-text index. Under [`ANN_MIN_ROWS`] rows a model's vectors live in a flat
//! file searched exactly (`store::flat`); from there on in a LanceDB table
//! (`vectors_<id hash>`) with an IVF-PQ index, where an approximate search pays for opening
//! LanceDB. Never both: the flat file of the same rows beside a LanceDB table doubled the
//! index (61 MB lexical, 112 MB with vectors, one-commit astropy).

use std::sync::Arc;

use arrow_array::{Array, FixedSizeListArray, Float32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lancedb::index::vector::IvfPqIndexBuilder;
use lancedb::index::Index;
use lancedb::query::{QueryBase, Select};
use lancedb::DistanceType;

use std::collections::HashSet;

use super::chunks::ChunkStore;
use super::error::StoreError;
use super::flat::{self, Flat, FlatRow, Stored};
use super::lance::{f32_col, lance_err, string_col, table_committed, PREFIX};
pub use super::lance::{table_name, VectorHit};
use crate::lang::Language;

#[cfg(doc)]
use super::lance::ANN_MIN_ROWS;

/// One chunk's vector.
#[derive(Debug, Clone)]
pub struct VectorRow {
    /// Chunk id (`<content hash>:<n>`).
    pub id: String,
    /// Content hash of the chunk.
    pub content_hash: String,
    /// Language of the chunk (for `--lang` prefilters).
    pub language: Language,
    /// The embedding.
    pub vector: Vec<f32>,
}

impl VectorRow {
    fn as_flat(&self) -> FlatRow<'_> {
        FlatRow {
            id: &self.id,
            content_hash: &self.content_hash,
            language: self.language,
            vector: &self.vector,
        }
    }
}

fn schema(dim: usize) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("content_hash", DataType::Utf8, false),
        Field::new("language", DataType::Utf8, false),
        Field::new(
            "vector",
            DataType::FixedSizeList(
                Arc::new(Field::new("item", DataType::Float32, true)),
                dim as i32,
            ),
            false,
        ),
    ]))
}

fn to_batch(rows: &[VectorRow], dim: usize) -> Result<RecordBatch, arrow_schema::ArrowError> {
    let strings = |f: fn(&VectorRow) -> &str| -> Arc<dyn Array> {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let flat = Float32Array::from_iter_values(rows.iter().flat_map(|r| r.vector.iter().copied()));
    let list = FixedSizeListArray::try_new(
        Arc::new(Field::new("item", DataType::Float32, true)),
        dim as i32,
        Arc::new(flat),
        None,
    )?;
    RecordBatch::try_new(
        schema(dim),
        vec![
            strings(|r| &r.id),
            strings(|r| &r.content_hash),
            strings(|r| r.language.name()),
            Arc::new(list),
        ],
    )
}

impl ChunkStore {
    fn vector_table(&self, model: &str) -> Result<Option<lancedb::Table>, StoreError> {
        let name = table_name(model);
        if !table_committed(&self.lance_dir, &name) {
            return Ok(None);
        }
        let l = self.lance()?;
        l.rt.block_on(l.db.open_table(&name).execute())
            .map(Some)
            .map_err(|e| lance_err(&l.path, "open vector table", e))
    }

    /// The flat file of `model`'s vectors (`store::flat`) when it is their store (under
    /// [`ANN_MIN_ROWS`] rows); `None` sends the caller to LanceDB.
    pub fn flat_vectors(&self, model: &str) -> Option<Flat> {
        flat::read(&flat::path_of(&self.lance_dir, model), flat::RECORD)
    }

    /// Keep `model`'s vectors in one place, the one their size calls for: a LanceDB table
    /// under [`ANN_MIN_ROWS`] rows (an older build's, or one a collection shrank) becomes the
    /// flat file, and a table left beside a flat file (a run stopped between the two writes)
    /// goes. An index run calls this after embedding; in place, it costs a directory read.
    pub fn settle_vectors(&self, model: &str) -> Result<(), StoreError> {
        let Some(t) = self.vector_table(model)? else {
            return Ok(());
        };
        if self.flat_vectors(model).is_some() {
            return super::lance::remove_table(&self.lance_dir, &table_name(model));
        }
        let l = self.lance()?;
        let n =
            l.rt.block_on(t.count_rows(None))
                .map_err(|e| lance_err(&l.path, "count vectors", e))?;
        if n >= self.ann_min_rows {
            // An older build's copy of this table beside it: the table is the store now.
            return flat::remove(&flat::path_of(&self.lance_dir, model));
        }
        let rows = self.table_rows(&t)?;
        // The flat file first: a stop between the two leaves both, and the flat file wins.
        flat::write(
            &flat::path_of(&self.lance_dir, model),
            flat::RECORD,
            &rows.iter().map(VectorRow::as_flat).collect::<Vec<_>>(),
        )?;
        super::lance::remove_table(&self.lance_dir, &table_name(model))
    }

    /// Every row of a vector table.
    fn table_rows(&self, t: &lancedb::Table) -> Result<Vec<VectorRow>, StoreError> {
        let l = self.lance()?;
        let q = t.query().select(Select::Columns(vec![
            "id".into(),
            "content_hash".into(),
            "language".into(),
            "vector".into(),
        ]));
        let batches = l.collect(&q, "read vectors")?;
        let mut rows = Vec::new();
        for b in &batches {
            let id = string_col(b, "id").map_err(|w| self.vshape(w))?;
            let hash = string_col(b, "content_hash").map_err(|w| self.vshape(w))?;
            let lang = string_col(b, "language").map_err(|w| self.vshape(w))?;
            let vectors = b
                .column_by_name("vector")
                .and_then(|c| c.as_any().downcast_ref::<FixedSizeListArray>())
                .ok_or_else(|| self.vshape("no vector column".into()))?;
            let values = vectors
                .values()
                .as_any()
                .downcast_ref::<Float32Array>()
                .ok_or_else(|| self.vshape("vectors are not 32-bit floats".into()))?;
            let dim = vectors.value_length() as usize;
            for i in 0..b.num_rows() {
                rows.push(VectorRow {
                    id: id.value(i).to_string(),
                    content_hash: hash.value(i).to_string(),
                    language: self.stored_language(lang.value(i))?,
                    vector: values.values()[i * dim..(i + 1) * dim].to_vec(),
                });
            }
        }
        Ok(rows)
    }

    /// The dimension of `model`'s stored vectors, if it has any.
    pub fn vector_dimension(&self, model: &str) -> Result<Option<usize>, StoreError> {
        if let Some(flat) = self.flat_vectors(model) {
            return Ok((!flat.is_empty()).then(|| flat.dimension()));
        }
        let Some(t) = self.vector_table(model)? else {
            return Ok(None);
        };
        let l = self.lance()?;
        let schema =
            l.rt.block_on(t.schema())
                .map_err(|e| lance_err(&l.path, "read vector schema", e))?;
        Ok(
            match schema.field_with_name("vector").map(|f| f.data_type()) {
                Ok(DataType::FixedSizeList(_, n)) => Some(*n as usize),
                _ => None,
            },
        )
    }

    /// Write vectors of `model`, replacing rows of the same content hashes first (left by an
    /// interrupted run). All rows must have the same dimension. They go to the flat file
    /// while the model's vectors number under [`ANN_MIN_ROWS`], and to a LanceDB table with
    /// an approximate index from then on (`settle_vectors` says which holds them).
    pub fn add_vectors(&self, model: &str, rows: &[VectorRow]) -> Result<(), StoreError> {
        let Some(dim) = rows.first().map(|r| r.vector.len()) else {
            return Ok(());
        };
        if let Some(bad) = rows.iter().find(|r| r.vector.len() != dim) {
            return Err(self.vshape(format!(
                "vector of chunk {} has {} dimensions, expected {dim}",
                bad.id,
                bad.vector.len()
            )));
        }
        let flat = self.flat_vectors(model);
        if flat.is_none() && self.vector_table(model)?.is_some() {
            return self.add_to_table(model, rows, dim);
        }
        let fresh: HashSet<[u8; 32]> = rows
            .iter()
            .map(|r| flat::hash_bytes(&r.content_hash))
            .collect();
        let mut stored: Vec<Stored<'_>> = match &flat {
            Some(f) if f.is_empty() => Vec::new(),
            Some(f) if f.dimension() != dim => {
                return Err(self.vshape(format!(
                    "vectors of {dim} dimensions, the stored ones have {}",
                    f.dimension()
                )))
            }
            Some(f) => f
                .stored()
                .into_iter()
                .filter(|r| !fresh.contains(&r.hash))
                .collect(),
            None => Vec::new(),
        };
        let new: Vec<FlatRow<'_>> = rows.iter().map(VectorRow::as_flat).collect();
        stored.extend(new.iter().map(Stored::of));
        if stored.len() < self.ann_min_rows {
            return flat::write_stored(
                &flat::path_of(&self.lance_dir, model),
                flat::RECORD,
                &stored,
            );
        }
        // Past the size where an approximate index pays: the rows move to a LanceDB table.
        let all: Vec<VectorRow> = stored
            .iter()
            .map(|r| VectorRow {
                id: r.id(),
                content_hash: crate::util::hex(&r.hash),
                language: r.language,
                vector: r.floats(),
            })
            .collect();
        drop(stored);
        super::lance::remove_table(&self.lance_dir, &table_name(model))?;
        self.add_to_table(model, &all, dim)?;
        drop(flat);
        flat::remove(&flat::path_of(&self.lance_dir, model))
    }

    /// Write rows to `model`'s LanceDB table (created if missing), replacing rows of the same
    /// content hashes.
    fn add_to_table(&self, model: &str, rows: &[VectorRow], dim: usize) -> Result<(), StoreError> {
        let l = self.lance()?;
        let batch = to_batch(rows, dim).map_err(|e| self.vshape(e.to_string()))?;
        match self.vector_table(model)? {
            Some(t) => {
                let mut hashes: Vec<String> = rows.iter().map(|r| r.content_hash.clone()).collect();
                hashes.sort();
                hashes.dedup();
                l.delete_in(&t, &hashes, "delete vectors")?;
                l.rt.block_on(t.add(batch).execute())
                    .map(|_| ())
                    .map_err(|e| lance_err(&l.path, "add vectors", e))
            }
            None => {
                // A directory without a committed table is a crashed first write: clear it.
                super::lance::remove_table(&self.lance_dir, &table_name(model))?;
                l.rt.block_on(l.db.create_table(table_name(model), batch).execute())
                    .map(|_| ())
                    .map_err(|e| lance_err(&l.path, "create vector table", e))
            }
        }
    }

    /// Nearest chunks to `query` among `model`'s vectors; `filter` is an SQL prefilter.
    pub fn search_vectors(
        &self,
        model: &str,
        query: &[f32],
        limit: usize,
        filter: Option<&str>,
    ) -> Result<Vec<VectorHit>, StoreError> {
        let Some(t) = self.vector_table(model)? else {
            return Ok(Vec::new());
        };
        let l = self.lance()?;
        let mut q = t
            .query()
            .nearest_to(query)
            .map_err(|e| lance_err(&l.path, "vector query", e))?
            .distance_type(DistanceType::Cosine)
            .select(Select::Columns(vec!["id".into(), "content_hash".into()]))
            .limit(limit);
        if let Some(f) = filter {
            q = q.only_if(f);
        }
        let batches = l.collect(&q, "vector search")?;
        let mut out = Vec::new();
        for b in &batches {
            let id = string_col(b, "id").map_err(|w| self.vshape(w))?;
            let hash = string_col(b, "content_hash").map_err(|w| self.vshape(w))?;
            let dist = f32_col(b, "_distance").map_err(|w| self.vshape(w))?;
            for i in 0..b.num_rows() {
                out.push(VectorHit {
                    id: id.value(i).to_string(),
                    content_hash: hash.value(i).to_string(),
                    distance: dist.value(i),
                });
            }
        }
        out.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(out)
    }

    /// Build the approximate index once `model`'s table is large enough, or fold new rows
    /// into an existing one.
    pub fn refresh_vector_index(&self, model: &str) -> Result<(), StoreError> {
        let Some(t) = self.vector_table(model)? else {
            return Ok(());
        };
        let l = self.lance()?;
        let rows =
            l.rt.block_on(t.count_rows(None))
                .map_err(|e| lance_err(&l.path, "count vectors", e))?;
        let indices =
            l.rt.block_on(t.list_indices())
                .map_err(|e| lance_err(&l.path, "list vector indices", e))?;
        if !indices.is_empty() {
            let opts = lancedb::table::OptimizeOptions::default();
            return l
                .rt
                .block_on(t.optimize(lancedb::table::OptimizeAction::Index(opts)))
                .map(|_| ())
                .map_err(|e| lance_err(&l.path, "update vector index", e));
        }
        if rows < self.ann_min_rows {
            return Ok(());
        }
        let build = t.create_index(
            &["vector"],
            Index::IvfPq(IvfPqIndexBuilder::default().distance_type(DistanceType::Cosine)),
        );
        l.rt.block_on(build.execute())
            .map_err(|e| lance_err(&l.path, "build vector index", e))
    }

    /// Remove the vectors of `hashes` from every model's table.
    pub fn delete_vectors(&self, hashes: &[String]) -> Result<(), StoreError> {
        if hashes.is_empty() {
            return Ok(());
        }
        self.delete_flat(hashes)?;
        if !self.has_lance() {
            return Ok(());
        }
        let l = self.lance()?;
        for name in self.vector_tables()? {
            let t =
                l.rt.block_on(l.db.open_table(&name).execute())
                    .map_err(|e| lance_err(&l.path, "open vector table", e))?;
            l.delete_in(&t, hashes, "delete vectors")?;
        }
        Ok(())
    }

    /// Remove the rows of `hashes` from every flat file that has any.
    fn delete_flat(&self, hashes: &[String]) -> Result<(), StoreError> {
        let dir = flat::dir_of(&self.lance_dir);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(());
        };
        let gone: HashSet<[u8; 32]> = hashes.iter().map(|h| flat::hash_bytes(h)).collect();
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "bin") {
                continue;
            }
            let Some(f) = flat::read(&path, flat::RECORD) else {
                continue;
            };
            let all = f.stored();
            let before = all.len();
            let kept: Vec<Stored<'_>> = all
                .into_iter()
                .filter(|r| !gone.contains(&r.hash))
                .collect();
            if kept.is_empty() {
                // No rows left: no file (an empty one would claim a dimension of 0).
                flat::remove(&path)?;
            } else if kept.len() != before {
                flat::write_stored(&path, flat::RECORD, &kept)?;
            }
        }
        Ok(())
    }

    /// Drop the whole vector table of `model` (model or dimension changed, or repair).
    pub fn drop_vectors(&self, model: &str) -> Result<(), StoreError> {
        flat::remove(&flat::path_of(&self.lance_dir, model))?;
        super::lance::remove_table(&self.lance_dir, &table_name(model))
    }

    /// Names of the committed vector tables.
    fn vector_tables(&self) -> Result<Vec<String>, StoreError> {
        let l = self.lance()?;
        let names =
            l.rt.block_on(l.db.table_names().execute())
                .map_err(|e| lance_err(&l.path, "list tables", e))?;
        Ok(names
            .into_iter()
            .filter(|n| n.starts_with(PREFIX) && table_committed(&self.lance_dir, n))
            .collect())
    }

    /// The language a row of a vector table names. A name this build does not know is a
    /// table of the wrong shape, as a missing column is: the table is this clone's own,
    /// written with this build's names.
    fn stored_language(&self, name: &str) -> Result<Language, StoreError> {
        Language::parse(name).ok_or_else(|| {
            let shown: String = name.chars().take(40).collect();
            self.vshape(format!(
                "a row's language {shown:?} is none this build knows"
            ))
        })
    }

    fn vshape(&self, what: String) -> StoreError {
        StoreError::Shape {
            path: self.lance_dir.clone(),
            what,
        }
    }
}

#[cfg(test)]
#[path = "vectors_tests.rs"]
mod tests;
