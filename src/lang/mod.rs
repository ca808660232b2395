//! Per-file language analysis: pure functions of a file's path and bytes. Which [`Language`]
//! a path is (`language`) and its grammar and tags query (`table`, with the shell grammar's
//! patched scanner in `bash` and the query trimming in `tagsquery`), the junk filter
//! (`quality`), the bounds on syntax-aware work (`guard`), chunking (`chunk`) and definitions
//! (`symbols` over a grammar's tags, `keyword_defs` for languages without one), and which
//! file implements a C or C++ header (`companion`). It owns [`Language`], [`SymbolKind`]
//! and [`Symbol`]. It sits below `store` (which stores what it finds) and above `config`
//! and `text`, and reads no repository, database or network.

pub mod bash;
pub mod chunk;
pub mod companion;
mod doc;
pub mod export_macro;
pub mod guard;
pub mod keyword_defs;
mod kind;
mod language;
pub mod quality;
mod symbol;
pub mod symbols;
#[cfg(test)]
mod symbols_langs;
mod table;
mod tagrun;
pub mod tagsquery;

pub use kind::SymbolKind;
pub use language::Language;
pub use symbol::Symbol;
