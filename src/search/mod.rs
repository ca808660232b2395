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
mod pipeline;
pub mod prior;
pub mod query;
mod rank;
mod rerank;
pub mod retrieve;
pub mod retrievers;
pub mod semantic;
pub mod thirdparty;
mod types;
mod wording;
mod wordlists;

pub use pipeline::search;
pub use types::*;
