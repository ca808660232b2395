//! The embedding step of an index run, between the committed branch and the end of the run:
//! choose the provider, honour the policy (skip, all, a time budget), keep a checkpoint and
//! the lock lease fresh, and record what was embedded and what is still pending.

use std::time::Instant;

use super::lock;
use super::run::IndexOptions;
use super::vectors;
use super::IndexError;
use crate::store::catalog::RunStats;
use crate::store::state::{Checkpoint, LockHolder};
use crate::store::{ChunkStore, Db};
use crate::workspace::Workspace;

/// How much embedding an index run does (vector search on only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EmbedPolicy {
    /// None: leave everything pending.
    Skip,
    /// Everything pending.
    All,
    /// As much as fits in this time; the rest stays pending.
    Budget(std::time::Duration),
}

/// The embedding part of a report.
#[derive(Debug)]
pub struct EmbedReport {
    /// Model id.
    pub model: String,
    /// What happened.
    pub outcome: vectors::EmbedOutcome,
}

/// Embed what the branch still lacks, as far as the policy allows. A provider that cannot
/// start (no API key, say) leaves everything pending and is reported, never fatal: BM25 and
/// symbols already work.
pub(super) fn run(
    ws: &Workspace,
    db: &Db,
    chunks: &ChunkStore,
    me: &LockHolder,
    opts: &IndexOptions,
    stats: &mut RunStats,
) -> Result<Option<EmbedReport>, IndexError> {
    let deadline = match opts.embed {
        EmbedPolicy::Skip => return Ok(None),
        EmbedPolicy::All => None,
        EmbedPolicy::Budget(d) => Some(Instant::now() + d),
    };
    let model = match crate::embed::model_id(&ws.config.embed) {
        Some(m) => m,
        None => return Ok(None),
    };
    let mut embedder = match crate::embed::from_config(&ws.config.embed) {
        Ok(Some(e)) => e,
        Ok(None) => return Ok(None),
        Err(e) => {
            let pending = db.pending_embeddings(&stats.branch, &model)?.len();
            let outcome = vectors::EmbedOutcome {
                pending,
                error: Some(e),
                ..Default::default()
            };
            vectors::record(stats, &model, &outcome);
            db.record_embedding(&stats.run_id, 0, pending, &model)?;
            return Ok(Some(EmbedReport { model, outcome }));
        }
    };
    let (done, total) = db.embed_coverage(&stats.branch, &model)?;
    let bar = super::run::progress_bar(opts, total - done, "embedding");
    let cp = Checkpoint {
        run_id: stats.run_id.clone(),
        workspace: ws.workdir.display().to_string(),
        branch: stats.branch.clone(),
        phase: "embed".into(),
        done: 0,
        total: total - done,
        started_at: stats.started_at,
        updated_at: crate::util::unix_now(),
    };
    let progress = |d: usize, t: usize| {
        bar.set_position(d as u64);
        let now = crate::util::unix_now();
        let cp = Checkpoint {
            done: d,
            total: t,
            updated_at: now,
            ..cp.clone()
        };
        // Progress notes are best effort: the embedded marks are the real record.
        let _ = db.save_checkpoint(&cp);
    };
    let hold = || lock::renew(db, me);
    if total > done {
        db.save_checkpoint(&cp)?;
    }
    let outcome = vectors::embed_pending(vectors::EmbedJob {
        db,
        chunks,
        embedder: embedder.as_mut(),
        branch: &stats.branch,
        batch_size: ws.config.embed.batch_size,
        deadline,
        progress: &progress,
        hold: &hold,
    })?;
    bar.finish_and_clear();
    db.clear_checkpoint()?;
    vectors::record(stats, &model, &outcome);
    db.record_embedding(&stats.run_id, outcome.embedded, outcome.pending, &model)?;
    Ok(Some(EmbedReport { model, outcome }))
}
