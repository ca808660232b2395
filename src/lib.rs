//! git-codesearch: a branch-aware, offline code search index for git repositories.
//!
//! Layers depend downward only: the binary's `cli` -> `report` (the records of status, index
//! runs and file lists) -> `answer` (one path from a query to its answer, for the CLI and MCP) -> `error` -> `search` / `share` / `maintenance` -> `index` -> `workspace` -> `store` /
//! `embed` / `git` -> `lang` -> `http` -> `config` -> `text` -> `util` -> `env` (CONTRIBUTING.md,
//! "Layout"); the library never prints or prompts.
//! The library sees typed options ([`config::Config`]), never clap types.

pub mod answer;
pub mod config;
pub mod embed;
pub mod env;
pub mod error;
pub mod git;
pub(crate) mod http;
pub mod index;
pub(crate) mod lang;
pub mod maintenance;
pub mod report;
pub mod search;
pub mod share;
pub mod store;
pub(crate) mod text;
pub mod util;
pub mod workspace;

pub use error::Error;

#[cfg(test)]
mod build_tests {
    /// `.cargo/config.toml` keeps chrono-tz (LanceDB's, unused here) to UTC and the zones it
    /// keeps beside it (44 of about 600): the whole database is a megabyte of tables relocated
    /// at every process start.
    #[test]
    fn chrono_tz_keeps_only_utc() {
        let zones = chrono_tz::TZ_VARIANTS.len();
        assert!(
            zones < 100,
            "{zones} time zones compiled in: is CHRONO_TZ_TIMEZONE_FILTER set?"
        );
    }
}
