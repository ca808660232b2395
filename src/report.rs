//! The records `status`, an index run and a file list report, built here from the store
//! once and serialised one way ([`to_json`]) for the command line's `--json` and for MCP, as
//! hits are ([`crate::answer::HitRecord`]). The binary renders its text from the same
//! records, so a new field reaches every surface through here.

use std::path::PathBuf;

use serde::Serialize;

use crate::git::{display_key, BranchRef};
use crate::index::IndexReport;
use crate::lang::Language;
use crate::search::budget::FileHit;
use crate::store::catalog::RunStats;
use crate::store::pack::RemoteBranch;
use crate::workspace::Workspace;
use crate::Error;

/// A record as JSON, keys in alphabetical order at every depth (serde_json's map): the
/// order `--json` has always printed, whatever order the fields are declared in.
pub fn to_json<T: Serialize>(record: &T) -> serde_json::Value {
    // Serialising plain data to a `Value` cannot fail (no non-string map keys here).
    serde_json::to_value(record).unwrap_or(serde_json::Value::Null)
}

/// What is indexed for one branch and how fresh it is (`status`, MCP `index_status`).
#[derive(Debug, Serialize)]
pub struct StatusRecord {
    /// The work tree.
    pub repository: PathBuf,
    /// Where the index lives.
    pub index_dir: PathBuf,
    /// Its size on disk.
    pub index_bytes: u64,
    /// The branch, as the user names it.
    pub branch: String,
    /// Files indexed.
    pub files: i64,
    /// Files skipped (binary, too large, generated, …).
    pub skipped: i64,
    /// Distinct contents among the files.
    pub distinct_contents: i64,
    /// Chunks of the branch.
    pub chunks: i64,
    /// Definitions of the branch.
    pub symbols: i64,
    /// Chunks stored for all branches.
    pub stored_chunks: usize,
    /// The branch's last finished run, if any.
    pub last_run: Option<RunStats>,
    /// Vector coverage, when vector search is on.
    pub vectors: Option<VectorsRecord>,
    /// Every indexed branch, as the user names it.
    pub branches: Vec<String>,
    /// A run that stopped before it finished.
    pub interrupted_run: Option<InterruptedRecord>,
    /// Skipped files and why (verbose only, else empty).
    pub skipped_files: Vec<SkippedFile>,
    /// Files indexed with a note (verbose only, else empty).
    pub noted_files: Vec<NotedFile>,
    /// Branches pushed to or pulled from a remote.
    pub remote_branches: Vec<RemoteBranch>,
    /// Files per language, and how each language is analysed.
    pub languages: Vec<LanguageRecord>,
}

/// How much of the branch the configured model has embedded.
#[derive(Debug, Serialize)]
pub struct VectorsRecord {
    /// The model id vectors are stored under.
    pub model: String,
    /// Files whose chunks all have vectors.
    pub embedded_files: usize,
    /// Files that have chunks.
    pub files_with_chunks: usize,
    /// Chunks with a vector of this model, all branches.
    pub embedded_chunks: usize,
}

/// A run that stopped before it finished (`git codesearch index` resumes it).
#[derive(Debug, Serialize)]
pub struct InterruptedRecord {
    /// walk | chunk | commit
    pub phase: String,
    /// Files done in this phase.
    pub done: usize,
    /// Files to do in this phase.
    pub total: usize,
    /// Unix seconds.
    pub started_at: i64,
}

/// A file not indexed, and why.
#[derive(Debug, Serialize)]
pub struct SkippedFile {
    /// Path relative to the work tree.
    pub path: String,
    /// Why it is not indexed.
    pub reason: String,
}

/// A file indexed with a note (a degraded analysis).
#[derive(Debug, Serialize)]
pub struct NotedFile {
    /// Path relative to the work tree.
    pub path: String,
    /// The note.
    pub note: String,
}

/// Files of one language and how the language is analysed.
#[derive(Debug, Serialize)]
pub struct LanguageRecord {
    /// The language (shown as its name).
    pub language: Language,
    /// Files of the branch in it.
    pub files: i64,
    /// How its definitions are found (`lang::keyword_defs::Treatment`).
    pub treatment: &'static str,
}

/// The status of `branch` (the checked-out one when `None`); `verbose` lists the skipped
/// and noted files.
pub fn status(ws: &Workspace, branch: Option<&str>, verbose: bool) -> Result<StatusRecord, Error> {
    let branch = match branch {
        Some(b) => BranchRef::named(b),
        None => ws.branch()?,
    };
    let db = ws.db()?;
    let key = &branch.key;
    let [files, skipped, distinct_contents, chunks, symbols] = db.stats().branch_counts(key)?;
    let vectors = match crate::embed::model_id(&ws.config.embed) {
        Some(model) => {
            let (embedded_files, files_with_chunks) = db.embedded().coverage(key, &model)?;
            let embedded_chunks = db.embedded().chunk_count(&model)?;
            Some(VectorsRecord {
                model,
                embedded_files,
                files_with_chunks,
                embedded_chunks,
            })
        }
        None => None,
    };
    let (skipped_list, noted) = match verbose {
        true => (db.stats().skipped(key)?, db.stats().noted(key)?),
        false => (Vec::new(), Vec::new()),
    };
    let treatment = |l| crate::lang::keyword_defs::Treatment::of(l).name();
    Ok(StatusRecord {
        repository: ws.workdir.clone(),
        index_dir: ws.index_dir.clone(),
        index_bytes: crate::store::dir_size(&ws.index_dir),
        branch: branch.display(),
        files,
        skipped,
        distinct_contents,
        chunks,
        symbols,
        stored_chunks: ws.chunk_store()?.count()?,
        last_run: db.stats().last_run(Some(key))?,
        vectors,
        branches: db
            .catalog()
            .branches()?
            .iter()
            .map(|b| display_key(b))
            .collect(),
        interrupted_run: db.run_state().checkpoint()?.map(|c| InterruptedRecord {
            phase: c.phase,
            done: c.done,
            total: c.total,
            started_at: c.started_at,
        }),
        skipped_files: skipped_list
            .into_iter()
            .map(|(path, reason)| SkippedFile { path, reason })
            .collect(),
        noted_files: noted
            .into_iter()
            .map(|(path, note)| NotedFile { path, note })
            .collect(),
        remote_branches: db.remote().branches()?,
        languages: db
            .stats()
            .files_per_language(key)?
            .into_iter()
            .map(|(language, files)| LanguageRecord {
                treatment: treatment(language),
                language,
                files,
            })
            .collect(),
    })
}

/// What an index run did (`index --json`, MCP `reindex`).
#[derive(Debug, Serialize)]
pub struct IndexRecord<'a> {
    /// The branch, as the user names it.
    pub branch: String,
    /// Nothing was written.
    pub dry_run: bool,
    /// The lock was busy and its holder was asked to run again.
    pub deferred: bool,
    /// Nothing had changed.
    pub noop: bool,
    /// The run's counts.
    pub stats: &'a RunStats,
    /// Why embedding stopped, if it failed.
    pub embed_error: Option<String>,
    /// Files left to embed in a background process.
    pub embedding_in_background: usize,
}

impl<'a> IndexRecord<'a> {
    /// The record of `report`, with `background` files handed to a background process.
    pub fn new(report: &'a IndexReport, background: usize) -> IndexRecord<'a> {
        IndexRecord {
            branch: display_key(&report.stats.branch),
            dry_run: report.dry_run,
            deferred: report.deferred,
            noop: report.noop,
            stats: &report.stats,
            embed_error: report
                .embed
                .as_ref()
                .and_then(|e| e.outcome.error.as_ref())
                .map(|e| crate::util::chain(e)),
            embedding_in_background: background,
        }
    }
}

/// One file of a file list (`--files-only --json`): where its best hit is and how many
/// hits it had.
#[derive(Debug, Serialize)]
pub struct FileRecord<'a> {
    /// [`crate::answer::HIT_VERSION`].
    pub version: u32,
    /// Path relative to the work tree.
    pub path: &'a str,
    /// Its best hit's score.
    pub score: f64,
    /// Its best hit's first line.
    pub start_line: u32,
    /// Its best hit's last line (inclusive).
    pub end_line: u32,
    /// How many hits it had.
    pub hits: usize,
    /// The branch searched, as the user names it.
    pub branch: String,
    /// Why a retriever was left out, or null.
    pub degraded: Option<&'a str>,
}

impl<'a> FileRecord<'a> {
    /// The record of `file` found on `branch` (a catalog key).
    pub fn new(file: &'a FileHit, branch: &str, degraded: Option<&'a str>) -> FileRecord<'a> {
        FileRecord {
            version: crate::answer::HIT_VERSION,
            path: &file.path,
            score: file.score,
            start_line: file.best.0,
            end_line: file.best.1,
            hits: file.hits,
            branch: display_key(branch),
            degraded,
        }
    }
}
