//! On-disk storage of the index, under `<common git dir>/codesearch/`:
//! SQLite (`meta.sqlite`) for the catalog, symbols, lock, checkpoint, run statistics, the
//! content-addressed chunks with their full-text index (`chunk_terms`, FTS5) and a
//! whole-file term index (`file_terms`, FTS5); LanceDB (`lance/`) for the chunk vectors of
//! each embedding model, opened only when vectors are used.
//!
//! Write order keeps crashes harmless: chunks are written first, keyed by content hash, and
//! become visible only when the catalog transaction that references them commits.
//!
//! [`Db`] only opens the database and runs its transactions; its queries are reached
//! through narrow handles, one per concern, each a copy of a borrow of it (so a caller sees
//! only what it uses): `catalog()` (catalog.rs), `symbols()` (lookup.rs, names.rs,
//! name_words.rs) and `stats()` (lookup.rs),
//! `history()` (commits.rs, cochange.rs), `embedded()` (embedded.rs), `file_terms()`
//! (fileterms.rs), `index_lock()` and `run_state()` (state.rs), `unverified()`
//! (unverified.rs), `stale()` (stale.rs), `health()` (health.rs), `exchange()` and `remote()` (pack.rs, merge.rs).
//! The chunks and vectors are the [`ChunkStore`]'s.

pub mod catalog;
pub(crate) mod chunks;
mod chunkterms;
pub(crate) mod cochange;
mod columns;
pub(crate) mod commits;
mod dir;
pub(crate) mod embedded;
mod error;
pub(crate) mod fileterms;
pub(crate) mod filter;
pub(crate) mod flat;
pub(crate) mod health;
pub(crate) mod hits;
mod lance;
pub(crate) mod lookup;
pub(crate) mod merge;
pub(crate) mod name_words;
mod names;
pub mod pack;
pub(crate) mod snapshot;
pub(crate) mod sqlite;
pub(crate) mod stale;
pub mod state;
pub(crate) mod unverified;
pub(crate) mod vectors;

pub use chunks::{ChunkRow, ChunkStore};
pub use dir::{dir_size, index_dir, DIR_ENV};
pub use error::StoreError;
pub use hits::{ChunkRef, FtsHit};
pub use sqlite::Db;
pub use vectors::VectorHit;
