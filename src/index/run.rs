//! One index run, end to end: lock, resume or restart an interrupted run, walk and scan,
//! plan, compute new content in checkpointed batches, commit the branch in one transaction,
//! then clean up deleted content and refresh the full-text index.

use std::collections::HashSet;
use std::time::Instant;

use rayon::prelude::*;

use super::compute::{compute_one, Computed};
use super::crashed::Ledger;
use super::error::IndexError;
use super::find::{self, Found};
use super::lock::{self, Contention};
use super::observe::{Event, Observer, Phase};
use super::plan::{self, Plan, Scanned};
use super::vectors::{self, EmbedPolicy, EmbedReport};
use super::walk::WalkedFile;
use super::writer::Writer;
use super::{scan, walk};
use crate::config::IndexConfig;
use crate::git::BranchRef;
use crate::store::catalog::RunStats;
use crate::store::state::{Checkpoint, LockHolder};
use crate::store::{ChunkStore, Db};
use crate::workspace::Workspace;

/// What to do with an interrupted run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResumeChoice {
    /// Ask the observer (the command line asks on a terminal and resumes otherwise).
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
    /// What to do if another run holds the lock.
    pub contention: Contention,
    /// Index this commit's tree from the object database instead of the work tree.
    pub commit: Option<String>,
    /// Whether to embed pending chunks after the branch is committed.
    pub embed: EmbedPolicy,
    /// Checked between batches: when requested, the run stops where its progress is saved.
    pub stop: super::interrupt::Stop,
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

/// Bring the index of the checked-out branch up to date, telling `obs` what happens.
pub fn run(
    ws: &Workspace,
    opts: &IndexOptions,
    obs: &dyn Observer,
) -> Result<IndexReport, IndexError> {
    let db = ws.db()?;
    let me = lock::me();
    let got = lock::acquire(&db, &me, opts.contention, |h| {
        obs.event(Event::WaitingForLock(h))
    })?;
    if got.is_none() {
        return Ok(IndexReport {
            deferred: true,
            ..Default::default()
        });
    }
    let result = run_locked(ws, &db, &me, opts, obs);
    match result {
        Ok(report) => {
            if db.index_lock().release(&me)? && !opts.dry_run {
                // A hook asked for another pass after our last check: do it now.
                return run(ws, opts, obs);
            }
            Ok(report)
        }
        Err(e) => {
            let _ = db.index_lock().release(&me);
            Err(e)
        }
    }
}

fn run_locked(
    ws: &Workspace,
    db: &Db,
    me: &LockHolder,
    opts: &IndexOptions,
    obs: &dyn Observer,
) -> Result<IndexReport, IndexError> {
    tracing::debug!("index lock taken");
    let mut chunks = ws.chunk_store()?;
    chunks.ensure_present(db.health().count_with_chunks()?)?;
    tracing::debug!("chunk store open");
    handle_interrupted(db, &chunks, opts, obs)?;
    // No whole-file terms back-fill here: a run writes a content's terms in the transaction
    // that stores it, `import` back-fills what it merges, and every index from before terms
    // existed is computed again since schema version 8; `doctor` finds any content without
    // them. (The check scanned the terms table on every run, a no-op's largest step after
    // the walk.)
    if !opts.dry_run && !chunks.fts_matches(ws.config.search.stemming)? {
        // A new index, or the stemming setting changed: make the full-text table match
        // (chunks added later get their terms as they are written).
        chunks.refresh_fts(ws.config.search.stemming)?;
    }
    if !opts.dry_run {
        // Chunks lived in LanceDB before schema version 8; that table is dead weight now.
        chunks.drop_legacy_table()?;
    }
    tracing::debug!("checks done");
    loop {
        let mut report = pass(ws, db, &mut chunks, me, opts, obs)?;
        tracing::debug!("pass done");
        // Once per change of the definitions, not once per search (`store::name_words`);
        // after a no-op too, which may follow a pull that merged definitions.
        if !opts.dry_run && db.symbols().count_name_words()? {
            tracing::debug!("name words counted");
        }
        if !opts.dry_run {
            let job = vectors::EmbedRun {
                ws,
                db,
                chunks: &chunks,
                me,
                policy: opts.embed,
                stop: &opts.stop,
                obs,
            };
            report.embed = vectors::run_phase(&job, &mut report.stats)?;
            tracing::debug!("embed phase done");
        }
        if opts.dry_run || !db.index_lock().take_rerun(me)? {
            return Ok(report);
        }
    }
}

/// Offer to resume an interrupted run (or follow --resume / --restart).
fn handle_interrupted(
    db: &Db,
    chunks: &ChunkStore,
    opts: &IndexOptions,
    obs: &dyn Observer,
) -> Result<(), IndexError> {
    let Some(cp) = db.run_state().checkpoint()? else {
        return Ok(());
    };
    if opts.dry_run {
        return Ok(());
    }
    obs.event(Event::Interrupted(&cp));
    let resume = match opts.resume {
        ResumeChoice::Resume => true,
        ResumeChoice::Restart => false,
        ResumeChoice::Ask => obs.resume(&cp),
    };
    if resume {
        obs.event(Event::Resuming);
    } else {
        let orphans = db.run_state().unreferenced_content_of_run(&cp.run_id)?;
        chunks.delete_hashes(&orphans)?;
        db.run_state().drop_content(&orphans)?;
        db.run_state().clear_checkpoint()?;
        obs.event(Event::Restarted {
            dropped: orphans.len(),
        });
    }
    Ok(())
}

fn pass(
    ws: &Workspace,
    db: &Db,
    chunks: &mut ChunkStore,
    me: &LockHolder,
    opts: &IndexOptions,
    obs: &dyn Observer,
) -> Result<IndexReport, IndexError> {
    let started = Instant::now();
    let branch = match &opts.commit {
        Some(c) => BranchRef::of_commit(c),
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
    let mut cp = first_checkpoint(&stats, &workspace);
    if !opts.dry_run {
        db.run_state().save_checkpoint(&cp)?;
    }
    let mut computed = db.catalog().computed_hashes()?;
    // Imported content not checked yet counts as unknown: a tree's bytes of it are kept to
    // check it against; so does content to compute again (`stale_definitions`).
    let unverified = db.unverified().hashes()?;
    let stale = db.stale().hashes()?;
    let known = without(&computed, [&unverified, &stale]);
    let Found {
        walked,
        scanned,
        old,
        outside,
        left_out,
    } = find::find_files(ws, db, &branch, opts.commit.as_deref(), &known, obs)?;
    if !unverified.is_empty() {
        if !opts.dry_run {
            settle_before_tagging(ws, db, chunks, me, &unverified, &scanned, &walked)?;
        }
        computed = db.catalog().computed_hashes()?;
        if opts.dry_run {
            computed.retain(|h| !unverified.contains(h));
        }
    }
    let entries = scanned.len();
    let now = crate::util::unix_now();
    let mut plan = plan::plan(&scanned, &old, &computed, &stale, &outside, now);
    fill_counts(&mut stats, &plan, entries);
    // Tree entries left out (unsafe or over-long paths) are skipped, but never stored.
    stats.files += left_out;
    stats.skipped += left_out;
    tracing::debug!("planned");
    if !opts.dry_run && opts.commit.is_none() {
        let verified = scan::verified_racy(&scanned, &old, now);
        if !verified.is_empty() {
            db.catalog()
                .refresh_indexed_at(&branch.key, &verified, now)?;
            stats.refreshed = verified.len();
        }
    }
    if opts.dry_run || plan.is_noop() {
        if !opts.dry_run {
            db.run_state().clear_checkpoint()?;
            mine_history(ws, db, &stats)?;
            tracing::debug!("history checked");
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
    let files = files_to_compute(&plan, &walked, &scanned);
    cp.phase = "chunk".into();
    cp.total = files.len();
    let writer = Writer {
        db,
        chunks,
        stale: &stale,
        me,
        plan: &mut plan,
        cp: &mut cp,
        written: 0,
    };
    // Under the lock, before any parse: contents whose parse killed an earlier run are
    // known from here on (see `crashed`).
    let ledger = Ledger::open(&ws.index_dir)?;
    stats.chunks_added = compute_all(writer, &ws.config.index, &files, (&ledger, &opts.stop), obs)?;
    cp.phase = "commit".into();
    cp.updated_at = crate::util::unix_now();
    db.run_state().save_checkpoint(&cp)?;
    stats.seconds = started.elapsed().as_secs_f64();
    db.catalog()
        .commit_branch(&workspace, &plan.update, &stats)?;
    db.stale().forget(&tried(&plan, &scanned, &stale))?;
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

/// The hashes of `all` in none of `out`.
fn without(all: &HashSet<String>, out: [&HashSet<String>; 2]) -> HashSet<String> {
    all.iter()
        .filter(|h| !out.iter().any(|o| o.contains(*h)))
        .cloned()
        .collect()
}

/// The contents to compute again that this run computed: stored again, each has left the
/// list already; one whose file gave no content this time is not tried again every run.
fn tried(plan: &Plan, scanned: &[Scanned], stale: &HashSet<String>) -> Vec<String> {
    plan.compute
        .iter()
        .map(|&i| &scanned[i].content_hash)
        .filter(|h| stale.contains(*h))
        .cloned()
        .collect()
}

/// A run tags only content it can vouch for: imported content it found a file of is checked
/// against that file first (verified, or dropped and computed from the file by this run).
/// A dry run does not call it: it writes.
fn settle_before_tagging(
    ws: &Workspace,
    db: &Db,
    chunks: &ChunkStore,
    me: &LockHolder,
    unverified: &std::collections::HashSet<String>,
    scanned: &[Scanned],
    walked: &walk::Walk,
) -> Result<(), IndexError> {
    lock::renew(db, me)?;
    let max = ws.config.index.max_file_size;
    let settled =
        super::verify::settle_walked(db, chunks, unverified, scanned, &walked.files, max)?;
    tracing::debug!(
        "imported content checked: {} verified, {} dropped",
        settled.verified,
        settled.dropped
    );
    Ok(())
}

/// The checkpoint a run saves before it walks.
fn first_checkpoint(stats: &RunStats, workspace: &str) -> Checkpoint {
    Checkpoint {
        run_id: stats.run_id.clone(),
        workspace: workspace.to_string(),
        branch: stats.branch.clone(),
        phase: "walk".into(),
        done: 0,
        total: 0,
        started_at: stats.started_at,
        updated_at: stats.started_at,
    }
}

/// The walked files the plan computes, in plan order.
fn files_to_compute<'w>(
    plan: &Plan,
    walked: &'w walk::Walk,
    scanned: &[Scanned],
) -> Vec<&'w WalkedFile> {
    plan.compute
        .iter()
        .filter_map(|&i| {
            walked
                .files
                .binary_search_by(|f| f.rel.cmp(&scanned[i].rel))
                .ok()
        })
        .map(|j| &walked.files[j])
        .collect()
}

/// Bring the branch's files-that-change-together up to its head commit (after the catalog
/// is committed: history is extra, never a reason to lose the run).
fn mine_history(ws: &Workspace, db: &Db, stats: &RunStats) -> Result<(), IndexError> {
    if let Some(head) = &stats.head_commit {
        super::history::refresh(&ws.repo, db, &stats.branch, head)?;
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

/// Compute chunks and symbols for `files` in batches; each batch is written to the chunk
/// store, then recorded in SQLite with a checkpoint. The next batch is computed (on the
/// worker threads) while this one is written, so the writes, which run on one thread, cost
/// little time of their own. Returns the number of chunks written.
fn compute_all(
    mut w: Writer<'_>,
    cfg: &IndexConfig,
    files: &[&WalkedFile],
    (ledger, stop): (&Ledger, &super::interrupt::Stop),
    obs: &dyn Observer,
) -> Result<usize, IndexError> {
    obs.start(Phase::Indexing, files.len());
    let batches: Vec<&[&WalkedFile]> = files.chunks(cfg.batch_files).collect();
    let compute = |batch: &[&WalkedFile]| -> Vec<Computed> {
        batch
            .par_iter()
            .map(|f| compute_one(f, cfg, ledger))
            .collect()
    };
    let result = std::thread::scope(|scope| {
        let mut ahead = batches.first().map(|&b| scope.spawn(move || compute(b)));
        for (i, batch) in batches.iter().enumerate() {
            let Some(computing) = ahead.take() else { break };
            // A worker that panicked is a bug: its panic goes on here.
            let results = computing
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            if stop.requested() {
                return Err(IndexError::Interrupted {
                    done: w.cp.done,
                    total: w.cp.total,
                });
            }
            ahead = batches.get(i + 1).map(|&b| scope.spawn(move || compute(b)));
            w.write(&results, batch.len())?;
            obs.progress(w.cp.done);
        }
        Ok(())
    });
    obs.finish();
    result.map(|()| w.written)
}
