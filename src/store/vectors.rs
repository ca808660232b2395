//! Chunk vectors in LanceDB: one table per embedding model (`vectors_<id hash>`), keyed by
//! chunk id, so vectors of different models or dimensions never mix and switching models
//! never rewrites the chunk table or its full-text index. Search is exact (flat) while a
//! table is small and uses an IVF-PQ index once it is large enough to pay for one.

use std::sync::Arc;

use arrow_array::{Array, FixedSizeListArray, Float32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lancedb::index::vector::IvfPqIndexBuilder;
use lancedb::index::Index;
use lancedb::query::{QueryBase, Select};
use lancedb::DistanceType;

use super::chunks::ChunkStore;
use super::error::StoreError;
use super::lance::{f32_col, lance_err, string_col, table_committed, PREFIX};
pub use super::lance::{table_name, VectorHit};

/// Rows from which an approximate (IVF-PQ) index is built; below it, exact search is fast.
pub const ANN_MIN_ROWS: usize = 100_000;

/// One chunk's vector.
#[derive(Debug, Clone)]
pub struct VectorRow {
    /// Chunk id (`<content hash>:<n>`).
    pub id: String,
    /// Content hash of the chunk.
    pub content_hash: String,
    /// Language of the chunk (for `--lang` prefilters).
    pub language: String,
    /// The embedding.
    pub vector: Vec<f32>,
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
            strings(|r| &r.language),
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

    /// The flat copy of `model`'s vectors (`store::flat`) when it matches the table's current
    /// version; `None` sends the caller to LanceDB.
    pub fn flat_vectors(&self, model: &str) -> Option<super::flat::Flat> {
        let key = super::flat::version_key(&self.lance_dir, model)?;
        super::flat::read(&super::flat::path_of(&self.lance_dir, model), &key)
    }

    /// Make the flat copy of `model`'s vectors again if the table has changed since it was
    /// made (an index run calls this after embedding; a current copy costs one header read).
    pub fn refresh_flat(&self, model: &str) -> Result<(), StoreError> {
        let Some(key) = super::flat::version_key(&self.lance_dir, model) else {
            return Ok(());
        };
        let path = super::flat::path_of(&self.lance_dir, model);
        if super::flat::is_current(&path, &key) {
            return Ok(());
        }
        let Some(t) = self.vector_table(model)? else {
            return Ok(());
        };
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
                rows.push((i, id, hash, lang, &values.values()[i * dim..(i + 1) * dim]));
            }
        }
        let flat: Vec<super::flat::FlatRow<'_>> = rows
            .iter()
            .map(|(i, id, hash, lang, v)| super::flat::FlatRow {
                id: id.value(*i),
                content_hash: hash.value(*i),
                language: lang.value(*i),
                vector: v,
            })
            .collect();
        super::flat::write(&path, &key, &flat)
    }

    /// The dimension of `model`'s stored vectors, if it has any.
    pub fn vector_dimension(&self, model: &str) -> Result<Option<usize>, StoreError> {
        if let Some(flat) = self.flat_vectors(model) {
            return Ok(Some(flat.dimension()));
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
    /// interrupted run). All rows must have the same dimension.
    pub fn add_vectors(&self, model: &str, rows: &[VectorRow]) -> Result<(), StoreError> {
        let l = self.lance()?;
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
                self.drop_vectors(model)?;
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
        if rows < ANN_MIN_ROWS {
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
        if hashes.is_empty() || !self.has_lance() {
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

    /// Drop the whole vector table of `model` (model or dimension changed, or repair).
    pub fn drop_vectors(&self, model: &str) -> Result<(), StoreError> {
        let flat = super::flat::path_of(&self.lance_dir, model);
        if flat.exists() {
            std::fs::remove_file(&flat).map_err(StoreError::file(&flat, "remove"))?;
        }
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

    fn vshape(&self, what: String) -> StoreError {
        StoreError::Shape {
            path: self.lance_dir.clone(),
            what,
        }
    }
}
