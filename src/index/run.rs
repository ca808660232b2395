//! One index run, end to end: lock, resume or restart an interrupted run, walk and scan,
//! plan, compute new content in checkpointed batches, commit the branch in one transaction,
//! then clean up deleted content and refresh the full-text index.

use std::cell::RefCell;
use std::io::IsTerminal;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::chunk::Chunker;
use super::embed_phase::{self, EmbedPolicy, EmbedReport};
use super::lock::{self, Contention};
use super::plan::{self, Plan, Scanned};
use super::symbols::Tagger;
use super::walk::WalkedFile;
use super::{quality, rev, scan, walk, IndexError};
use crate::config::IndexConfig;
use crate::git::BranchRef;
use crate::store::catalog::{ComputedContent, RunStats};
use crate::store::state::{Checkpoint, LockHolder};
use crate::store::{ChunkRow, ChunkStore, Db};
use crate::text::lang;
use crate::workspace::Workspace;

/// What to do with an interrupted run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResumeChoice {
    /// Ask on a terminal; resume otherwise.
    Ask,
    /// Keep what the interrupted run computed.
    Resume,
    /// Drop what the interrupted run computed and start over.
    Restart,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Plan only; write nothing.
    pub dry_run: bool,
    /// Interrupted-run handling.
    pub resume: ResumeChoice,
    /// Show progress bars (stderr must be a terminal too).
    pub progress: bool,
    /// Print notes on stderr (waiting for the lock, resuming).
    pub verbose: bool,
    /// What to do if another run holds the lock.
    pub contention: Contention,
    /// Index this commit's tree from the object database instead of the work tree.
    pub commit: Option<String>,
    /// Whether to embed pending chunks after the branch is committed.
    pub embed: EmbedPolicy,
}

/// The outcome of `index`.
#[derive(Debug, Default)]
pub struct IndexReport {
    /// Counts of the (last) pass.
    pub stats: RunStats,
    /// The lock was busy and the holder was asked to run again (hooks).
    pub deferred: bool,
    /// Nothing had changed.
    pub noop: bool,
    /// This was a dry run: nothing was written.
    pub dry_run: bool,
    /// The embedding phase, when vector search is on and it ran.
    pub embed: Option<EmbedReport>,
}

/// Bring the index of the checked-out branch up to date.
pub fn run(ws: &Workspace, opts: &IndexOptions) -> Result<IndexReport, IndexError> {
    let mut db = ws.db()?;
    let me = lock::me();
    let verbose = opts.verbose;
    let got = lock::acquire(&mut db, &me, opts.contention, |h| {
        if verbose {
            eprintln!(
                "waiting for the index lock held by pid {} on {} since {}",
                h.pid,
                h.host,
                crate::util::when(h.acquired_at)
            );
        }
    })?;
    if got.is_none() {
        return Ok(IndexReport {
            deferred: true,
            ..Default::default()
        });
    }
    let result = run_locked(ws, &mut db, &me, opts);
    match result {
        Ok(report) => {
            if db.unlock(&me)? && !opts.dry_run {
                // A hook asked for another pass after our last check: do it now.
                return run(ws, opts);
            }
            Ok(report)
        }
        Err(e) => {
            let _ = db.unlock(&me);
            Err(e)
        }
    }
}

fn run_locked(
    ws: &Workspace,
    db: &mut Db,
    me: &LockHolder,
    opts: &IndexOptions,
) -> Result<IndexReport, IndexError> {
    crate::util::trace("index lock taken");
    let mut chunks = ws.chunk_store()?;
    chunks.ensure_present(db.count_with_chunks()?)?;
    crate::util::trace("chunk store open");
    handle_interrupted(db, &chunks, opts)?;
    if !opts.dry_run {
        // Contents from before whole-file terms existed (or imported) get theirs.
        super::terms::backfill(db, &chunks)?;
    }
    if !opts.dry_run && !chunks.fts_matches(ws.config.search.stemming)? {
        // The stemming setting changed: rebuild the full-text index to match.
        chunks.refresh_fts(ws.config.search.stemming)?;
    }
    crate::util::trace("checks done");
    loop {
        let mut report = pass(ws, db, &mut chunks, me, opts)?;
        crate::util::trace("pass done");
        if !opts.dry_run {
            report.embed = embed_phase::run(ws, db, &chunks, me, opts, &mut report.stats)?;
            crate::util::trace("embed phase done");
        }
        if opts.dry_run || !db.take_rerun(me)? {
            return Ok(report);
        }
    }
}

/// Offer to resume an interrupted run (or follow --resume / --restart).
fn handle_interrupted(db: &Db, chunks: &ChunkStore, opts: &IndexOptions) -> Result<(), IndexError> {
    let Some(cp) = db.checkpoint()? else {
        return Ok(());
    };
    if opts.dry_run {
        return Ok(());
    }
    eprintln!(
        "found an interrupted index run: workspace {}, branch {}, phase {}, progress {}/{} files, started {}",
        cp.workspace,
        crate::git::display_key(&cp.branch),
        cp.phase,
        cp.done,
        cp.total,
        crate::util::when(cp.started_at)
    );
    let resume = match opts.resume {
        ResumeChoice::Resume => true,
        ResumeChoice::Restart => false,
        ResumeChoice::Ask if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => {
            dialoguer::Confirm::new()
                .with_prompt("Resume?")
                .default(true)
                .interact()
                .unwrap_or(true)
        }
        ResumeChoice::Ask => true,
    };
    if resume {
        eprintln!("resuming: content already computed is kept");
    } else {
        let orphans = db.unreferenced_content_of_run(&cp.run_id)?;
        chunks.delete_hashes(&orphans)?;
        db.drop_content(&orphans)?;
        db.clear_checkpoint()?;
        eprintln!("restarting: dropped {} partly indexed files", orphans.len());
    }
    Ok(())
}

fn pass(
    ws: &Workspace,
    db: &mut Db,
    chunks: &mut ChunkStore,
    me: &LockHolder,
    opts: &IndexOptions,
) -> Result<IndexReport, IndexError> {
    let started = Instant::now();
    let branch = match &opts.commit {
        Some(c) => BranchRef {
            key: rev::rev_key(c),
            unborn: false,
        },
        None => ws.repo.branch()?,
    };
    let mut stats = RunStats {
        run_id: crate::util::new_run_id(),
        branch: branch.key.clone(),
        head_commit: opts.commit.clone().or_else(|| ws.repo.head_commit()),
        started_at: crate::util::unix_now(),
        ..Default::default()
    };
    let workspace = ws.workdir.display().to_string();
    let mut cp = Checkpoint {
        run_id: stats.run_id.clone(),
        workspace: workspace.clone(),
        branch: branch.key.clone(),
        phase: "walk".into(),
        done: 0,
        total: 0,
        started_at: stats.started_at,
        updated_at: stats.started_at,
    };
    if !opts.dry_run {
        db.save_checkpoint(&cp)?;
    }
    let (walked, scanned) = match &opts.commit {
        Some(c) => {
            let g = rev::gather(&ws.repo, c, &db.computed_hashes()?, &ws.config.index)?;
            (g.walk, g.scanned)
        }
        None => {
            let walked = walk::walk(&ws.workdir);
            crate::util::trace("work tree walked");
            if walked.files.is_empty() && walked.skipped.is_empty() && branch.unborn {
                db.clear_checkpoint()?;
                return Err(IndexError::Empty {
                    path: ws.workdir.clone(),
                });
            }
            let cache = db.stat_cache()?;
            crate::util::trace("stat cache read");
            let bar = progress_bar(opts, walked.files.len(), "scanning");
            let scanned = scan::scan(&walked, &cache, &ws.config.index, &|| bar.inc(1));
            bar.finish_and_clear();
            crate::util::trace("files scanned");
            (walked, scanned)
        }
    };
    let entries = scanned.len();
    let old = db.branch_catalog(&branch.key)?;
    let mut plan = plan::plan(
        &scanned,
        &old,
        &db.computed_hashes()?,
        &db.hashes_used_outside(&branch.key)?,
        crate::util::unix_now(),
    );
    fill_counts(&mut stats, &plan, entries);
    crate::util::trace("planned");
    if !opts.dry_run && opts.commit.is_none() {
        let now = crate::util::unix_now();
        let verified = scan::verified_racy(&scanned, &old, now);
        if !verified.is_empty() {
            db.refresh_indexed_at(&branch.key, &verified, now)?;
            stats.refreshed = verified.len();
        }
    }
    if opts.dry_run || plan.is_noop() {
        if !opts.dry_run {
            db.clear_checkpoint()?;
            mine_history(ws, db, &stats)?;
            crate::util::trace("history checked");
        }
        stats.seconds = started.elapsed().as_secs_f64();
        return Ok(IndexReport {
            noop: plan.is_noop(),
            dry_run: opts.dry_run,
            stats,
            deferred: false,
            embed: None,
        });
    }
    let files: Vec<&WalkedFile> = plan
        .compute
        .iter()
        .filter_map(|&i| {
            walked
                .files
                .binary_search_by(|f| f.rel.cmp(&scanned[i].rel))
                .ok()
        })
        .map(|j| &walked.files[j])
        .collect();
    cp.phase = "chunk".into();
    cp.total = files.len();
    stats.chunks_added = compute_all(
        db,
        chunks,
        me,
        &ws.config.index,
        &files,
        &mut plan,
        &mut cp,
        opts,
    )?;
    cp.phase = "commit".into();
    cp.updated_at = crate::util::unix_now();
    db.save_checkpoint(&cp)?;
    stats.seconds = started.elapsed().as_secs_f64();
    db.commit_branch(&workspace, &plan.update, &stats)?;
    // The catalog no longer references deleted content: removing its chunks now is safe,
    // and if we die first they are orphans that no search can see.
    chunks.delete_hashes(&plan.delete)?;
    if stats.chunks_added > 0 || !plan.delete.is_empty() {
        chunks.refresh_fts(ws.config.search.stemming)?;
    }
    mine_history(ws, db, &stats)?;
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(IndexReport {
        stats,
        ..Default::default()
    })
}

/// Bring the branch's files-that-change-together up to its head commit (after the catalog
/// is committed: history is extra, never a reason to lose the run).
fn mine_history(ws: &Workspace, db: &Db, stats: &RunStats) -> Result<(), IndexError> {
    if let Some(head) = &stats.head_commit {
        super::cochange::refresh(&ws.repo, db, &stats.branch, head)?;
    }
    Ok(())
}

fn fill_counts(stats: &mut RunStats, plan: &Plan, files: usize) {
    stats.files = files;
    stats.compute = plan.compute.len();
    stats.add_tag = plan.add_tag;
    stats.remove_tag = plan.remove_tag;
    stats.deleted = plan.delete.len();
    stats.unchanged = plan.unchanged;
    stats.skipped = plan.skipped;
}

pub(super) fn progress_bar(opts: &IndexOptions, len: usize, what: &str) -> ProgressBar {
    if !opts.progress || !std::io::stderr().is_terminal() || len < 50 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    let style =
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} files ({per_sec}, {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar
}

/// Compute chunks and symbols for `files` in batches; each batch is written to the chunk
/// store, then recorded in SQLite with a checkpoint. Returns the number of chunks written.
#[allow(clippy::too_many_arguments)]
fn compute_all(
    db: &Db,
    chunks: &mut ChunkStore,
    me: &LockHolder,
    cfg: &IndexConfig,
    files: &[&WalkedFile],
    plan: &mut Plan,
    cp: &mut Checkpoint,
    opts: &IndexOptions,
) -> Result<usize, IndexError> {
    let bar = progress_bar(opts, files.len(), "indexing");
    let mut written = 0;
    for batch in files.chunks(cfg.batch_files) {
        if super::interrupted() {
            bar.abandon();
            return Err(IndexError::Interrupted {
                done: cp.done,
                total: cp.total,
            });
        }
        let results: Vec<Computed> = batch.par_iter().map(|f| compute_one(f, cfg)).collect();
        let rows: Vec<ChunkRow> = results
            .iter()
            .flat_map(|r| r.chunks.iter().cloned())
            .collect();
        // Before writing: a run that lost the lock stops here.
        lock::renew(db, me)?;
        chunks.add(&rows)?;
        let contents: Vec<ComputedContent> =
            results.iter().filter_map(|r| r.content.clone()).collect();
        db.store_computed(&cp.run_id, &contents)?;
        for r in &results {
            r.fix_catalog(plan);
        }
        written += rows.len();
        cp.done += batch.len();
        cp.updated_at = crate::util::unix_now();
        db.save_checkpoint(cp)?;
        bar.inc(batch.len() as u64);
    }
    bar.finish_and_clear();
    Ok(written)
}

/// The result of computing one file.
struct Computed {
    scanned: Scanned,
    content: Option<ComputedContent>,
    chunks: Vec<ChunkRow>,
}

impl Computed {
    /// If the file changed since it was scanned, make its catalog row match what we stored.
    fn fix_catalog(&self, plan: &mut Plan) {
        if let Some(row) = plan
            .update
            .upsert
            .iter_mut()
            .find(|r| r.path == self.scanned.rel)
        {
            if row.content_hash != self.scanned.content_hash
                || row.skip_reason != self.scanned.skip_reason
            {
                row.content_hash = self.scanned.content_hash.clone();
                row.skip_reason = self.scanned.skip_reason.clone();
                row.size = self.scanned.size;
            }
        }
    }
}

thread_local! {
    static TOOLS: RefCell<Option<(usize, Chunker, Tagger)>> = const { RefCell::new(None) };
}

/// Read, hash, filter, chunk and tag one file. The hash is taken from the bytes actually
/// chunked, so chunks always match the content hash they are stored under even if the file
/// changed since it was scanned.
fn compute_one(f: &WalkedFile, cfg: &IndexConfig) -> Computed {
    let mut scanned = Scanned {
        rel: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        content_hash: String::new(),
        skip_reason: None,
    };
    let skip = |mut scanned: Scanned, reason: quality::SkipReason| {
        scanned.skip_reason = Some(reason.to_string());
        Computed {
            scanned,
            content: None,
            chunks: Vec::new(),
        }
    };
    let bytes = match f.read() {
        Ok(b) => b,
        Err(e) => return skip(scanned, quality::SkipReason::Unreadable(e.to_string())),
    };
    scanned.size = bytes.len() as u64;
    scanned.content_hash = crate::util::sha256_hex(&bytes);
    let text = match quality::check(&bytes, cfg) {
        Ok(t) => t,
        Err(reason) => return skip(scanned, reason),
    };
    let language = lang::language_of(&f.rel);
    let mut note = super::guard::plain_text_reason(language, text);
    // Over a bound: cut as plain text, no symbols (see `guard`).
    let cut_as = if note.is_some() { "text" } else { language };
    let (pieces, symbols) = TOOLS.with(|t| {
        let mut t = t.borrow_mut();
        if t.as_ref().map(|(n, _, _)| *n) != Some(cfg.chunk_tokens) {
            *t = Some((
                cfg.chunk_tokens,
                Chunker::new(cfg.chunk_tokens),
                Tagger::default(),
            ));
        }
        let (_, chunker, tagger) = t.as_mut().expect("just set");
        let (pieces, slow) = chunker.chunk_within(cut_as, text, super::chunk::SPLIT_TIME);
        if slow && note.is_none() {
            note = Some(format!(
                "splitting took over {} s: the rest is cut in {}-line windows",
                super::chunk::SPLIT_TIME.as_secs(),
                super::chunk::WINDOW_LINES
            ));
        }
        (pieces, tagger.symbols(cut_as, text))
    });
    let hash = scanned.content_hash.clone();
    let chunks: Vec<ChunkRow> = pieces
        .into_iter()
        .enumerate()
        .map(|(i, c)| ChunkRow {
            id: format!("{hash}:{i}"),
            content_hash: hash.clone(),
            filepath: f.rel.clone(),
            language: language.to_string(),
            content: c.text,
            start_line: c.start_line,
            end_line: c.end_line,
        })
        .collect();
    let content = ComputedContent {
        content_hash: hash,
        language: language.to_string(),
        n_chunks: chunks.len(),
        size: scanned.size,
        symbols,
        terms: crate::text::words::document_terms(text),
        note,
    };
    Computed {
        scanned,
        content: Some(content),
        chunks,
    }
}
