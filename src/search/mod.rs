//! Searching the index of a branch: preprocess the query, run the retrievers (BM25 over
//! chunks, BM25 over whole files, symbols, vectors), rank what they found (`rank`: fusion,
//! paths of the branch, filters, recency and path prior, merged chunks), add files that
//! change together with the top results, a header's implementation beside it (`companion`),
//! and the lines inside the first files that answer the question (`infile`, `described`),
//! cut to the limit and read the text.

pub(crate) mod background;
pub mod budget;
pub(crate) mod cochange;
pub(crate) mod commits;
mod companion;
pub(crate) mod defs;
mod described;
pub(crate) mod evidence;
pub mod explain;
pub(crate) mod files;
mod filesize;
pub(crate) mod focus;
pub(crate) mod fusion;
mod gather;
mod infile;
pub mod learned;
mod learned_table;
pub(crate) mod llm;
pub(crate) mod params;
pub(crate) mod pathglob;
mod pipeline;
pub(crate) mod prior;
pub mod query;
mod rank;
pub(crate) mod reading;
mod rerank;
pub(crate) mod retrieve;
pub mod retrievers;
pub(crate) mod semantic;
pub(crate) mod source;
mod spread;
pub(crate) mod thirdparty;
pub(crate) mod trim;
mod types;
mod verbs;
mod widen;
mod wording;
mod wordlists;

pub use pipeline::search;
pub use types::*;
