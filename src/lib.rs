//! git-codesearch: a branch-aware, offline code search index for git repositories.
//!
//! Layers depend downward only: the binary's `cli` -> `answer` (one path from a query to its
//! answer, for the CLI and MCP) -> `error` -> `search` / `index` -> `workspace` -> `store` /
//! `embed` / `git` -> `http` -> `config` -> `text` -> `util` -> `env` (CONTRIBUTING.md,
//! "Layout"); the library never prints or prompts.
//! The library sees typed options ([`config::Config`]), never clap types.

pub mod answer;
pub mod config;
pub mod embed;
pub mod env;
pub mod error;
pub mod git;
pub mod http;
pub mod index;
pub mod search;
pub mod store;
pub mod text;
pub mod util;
pub mod workspace;

pub use error::Error;
