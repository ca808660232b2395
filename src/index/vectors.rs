//! The embedding phase of an index run, after the branch is committed: choose the provider,
//! honour the policy (skip, all, a time budget), and embed the chunks of every content on the
//! branch that the configured model has not embedded yet, keeping a checkpoint and the lock
//! lease fresh. BM25 and symbols already answer by then, so this phase may stop early (time
//! budget, Ctrl-C, an API that keeps failing) without harm: what is not marked embedded stays
//! pending and the next run picks it up. Vectors are cached by (content hash, model), so a
//! chunk is never embedded twice, across branches, renames or re-runs.

use std::time::Instant;

use super::error::IndexError;
use super::lock;
use super::observe::{Event, Observer, Phase};
use crate::embed::{EmbedError, Embedder, Reads};
use crate::store::catalog::RunStats;
use crate::store::state::{Checkpoint, LockHolder};
use crate::store::vectors::VectorRow;
use crate::store::{ChunkRow, ChunkStore, Db};
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
    /// Everything pending, unless another run waits for the lock: then stop (the rest stays
    /// pending) and let it go. Background and hook runs embed so, so that a user's own `index`
    /// never waits for a model.
    Yielding,
}

/// The embedding part of a report.
#[derive(Debug)]
pub struct EmbedReport {
    /// Model id.
    pub model: String,
    /// What happened.
    pub outcome: EmbedOutcome,
}

/// What the embedding phase of a run works with.
pub(super) struct EmbedRun<'a> {
    pub ws: &'a Workspace,
    pub db: &'a Db,
    pub chunks: &'a ChunkStore,
    /// This run's lock holder (the lease is renewed before each write).
    pub me: &'a LockHolder,
    pub policy: EmbedPolicy,
    /// Stop where progress is saved when requested.
    pub stop: &'a super::interrupt::Stop,
    pub obs: &'a dyn Observer,
}

/// Embed what the branch still lacks, as far as the policy allows. A provider that cannot
/// start (no API key, say) leaves everything pending and is reported, never fatal: BM25 and
/// symbols already work.
pub(super) fn run_phase(
    run: &EmbedRun<'_>,
    stats: &mut RunStats,
) -> Result<Option<EmbedReport>, IndexError> {
    let EmbedRun {
        ws,
        db,
        chunks,
        me,
        obs,
        stop,
        ..
    } = *run;
    let deadline = match run.policy {
        EmbedPolicy::Skip => return Ok(None),
        EmbedPolicy::All | EmbedPolicy::Yielding => None,
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
            let pending = db.embedded().pending(&stats.branch, &model)?.len();
            let outcome = EmbedOutcome {
                pending,
                error: Some(e),
                ..Default::default()
            };
            record(stats, &model, &outcome);
            db.embedded()
                .record_run(&stats.run_id, 0, pending, &model)?;
            return Ok(Some(EmbedReport { model, outcome }));
        }
    };
    let (done, total) = db.embedded().coverage(&stats.branch, &model)?;
    obs.start(Phase::Embedding, total - done);
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
        obs.progress(d);
        let now = crate::util::unix_now();
        let cp = Checkpoint {
            done: d,
            total: t,
            updated_at: now,
            ..cp.clone()
        };
        // Progress notes are best effort: the embedded marks are the real record.
        let _ = db.run_state().save_checkpoint(&cp);
    };
    let hold = || lock::renew(db, me);
    if total > done {
        db.run_state().save_checkpoint(&cp)?;
    }
    let outcome = embed_pending(EmbedJob {
        db,
        chunks,
        embedder: embedder.as_mut(),
        branch: &stats.branch,
        batch_size: ws.config.embed.batch_size,
        deadline,
        yields: run.policy == EmbedPolicy::Yielding,
        progress: &progress,
        hold: &hold,
        stop,
        obs,
    });
    obs.finish();
    let outcome = outcome?;
    db.run_state().clear_checkpoint()?;
    record(stats, &model, &outcome);
    db.embedded()
        .record_run(&stats.run_id, outcome.embedded, outcome.pending, &model)?;
    Ok(Some(EmbedReport { model, outcome }))
}

/// Contents read from the chunk store per step (then embedded in provider batches).
const CONTENTS_PER_STEP: usize = 32;

/// Longest text given to the embedder per chunk, in bytes (models truncate anyway).
const MAX_TEXT_BYTES: usize = 4000;

/// How the embedding phase ended.
#[derive(Debug, Default)]
pub struct EmbedOutcome {
    /// Contents embedded now.
    pub embedded: usize,
    /// Contents still without vectors.
    pub pending: usize,
    /// The provider failed; what is pending stays pending.
    pub error: Option<EmbedError>,
    /// Stopped at the time budget.
    pub out_of_time: bool,
    /// Stopped because another run waits for the lock.
    pub yielded: bool,
}

/// What the phase works with.
pub struct EmbedJob<'a> {
    /// The catalog.
    pub db: &'a Db,
    /// Chunks and vectors.
    pub chunks: &'a ChunkStore,
    /// The provider.
    pub embedder: &'a mut dyn Embedder,
    /// Branch key whose content gets vectors.
    pub branch: &'a str,
    /// Texts per provider call.
    pub batch_size: usize,
    /// Stop (leaving the rest pending) at this instant.
    pub deadline: Option<Instant>,
    /// Stop (leaving the rest pending) when another run waits for the lock.
    pub yields: bool,
    /// Called after each step with (done, total).
    pub progress: &'a dyn Fn(usize, usize),
    /// Called before each write: fails when this run no longer holds the index lock, so a
    /// writer that lost it (a provider slower than the lease) stops instead of writing.
    pub hold: &'a dyn Fn() -> Result<(), IndexError>,
    /// Stop (saving what is done) when requested.
    pub stop: &'a super::interrupt::Stop,
    /// Told when stored vectors are dropped for a new dimension.
    pub obs: &'a dyn Observer,
}

/// Embed what is pending on the branch.
pub fn embed_pending(job: EmbedJob<'_>) -> Result<EmbedOutcome, IndexError> {
    let model = job.embedder.model_id();
    let mut pending = job.db.embedded().pending(job.branch, &model)?;
    let total = pending.len();
    let mut out = EmbedOutcome::default();
    let mut checked_dimension = false;
    let mut i = 0;
    let mut held = Held::default();
    while i < pending.len() {
        if job.stop.requested() {
            held.store(&job, &model, &mut out)?;
            out.pending = pending.len() - i;
            return Err(IndexError::Interrupted {
                done: out.embedded,
                total,
            });
        }
        if job.deadline.is_some_and(|d| Instant::now() >= d) {
            out.out_of_time = true;
            break;
        }
        if job.yields && job.db.index_lock().wanted()? {
            out.yielded = true;
            break;
        }
        let step: Vec<String> = pending[i..(i + CONTENTS_PER_STEP).min(pending.len())].to_vec();
        let rows = job.chunks.chunks_of(&step)?;
        let vectors = match embed_rows(job.embedder, &rows, job.batch_size) {
            Ok(v) => v,
            Err(e) => {
                out.error = Some(e);
                break;
            }
        };
        if !checked_dimension {
            checked_dimension = true;
            if reset_on_new_dimension(&job, &model, &vectors)? {
                // Everything of this model is pending again: start over with the full list.
                pending = job.db.embedded().pending(job.branch, &model)?;
            }
        }
        i += step.len();
        held.rows.extend(vectors);
        held.contents.extend(step);
        if held.due() {
            held.store(&job, &model, &mut out)?;
        }
        (job.progress)(out.embedded + held.contents.len(), total);
    }
    held.store(&job, &model, &mut out)?;
    out.pending = pending.len() - i;
    if out.embedded > 0 {
        job.chunks.refresh_vector_index(&model)?;
    }
    // Whether or not this run embedded: an older build's index may hold a table to settle.
    job.chunks.settle_vectors(&model)?;
    Ok(out)
}

/// Vectors embedded but not yet stored. A flat file is rewritten whole at each store, so
/// they are stored when they are as many as the rows stored so far this run (a run's
/// rewrites then cost a few times its rows, not their square), or every few seconds (so a
/// search during a long run sees vectors grow, and a kill loses little).
#[derive(Default)]
struct Held {
    rows: Vec<VectorRow>,
    contents: Vec<String>,
    stored_rows: usize,
    since: Option<Instant>,
}

/// Rows held before a store however few the stored ones are.
const HOLD_ROWS: usize = 4096;
/// Longest a row is held.
const HOLD_FOR: std::time::Duration = std::time::Duration::from_secs(5);

impl Held {
    fn due(&mut self) -> bool {
        let since = *self.since.get_or_insert_with(Instant::now);
        self.rows.len() >= HOLD_ROWS.max(self.stored_rows) || since.elapsed() >= HOLD_FOR
    }

    /// Store what is held, then mark its contents embedded (only then: every chunk of a
    /// marked content has its vector stored).
    fn store(
        &mut self,
        job: &EmbedJob<'_>,
        model: &str,
        out: &mut EmbedOutcome,
    ) -> Result<(), IndexError> {
        if self.contents.is_empty() {
            return Ok(());
        }
        (job.hold)()?;
        job.chunks.add_vectors(model, &self.rows)?;
        job.db.embedded().mark(&self.contents, model)?;
        out.embedded += self.contents.len();
        self.stored_rows += self.rows.len();
        self.rows.clear();
        self.contents.clear();
        self.since = None;
        Ok(())
    }
}

/// If stored vectors of this model have another dimension (the API now answers with a
/// different size), drop them all: vectors of different dimensions are never mixed.
fn reset_on_new_dimension(
    job: &EmbedJob<'_>,
    model: &str,
    vectors: &[VectorRow],
) -> Result<bool, IndexError> {
    let Some(new) = vectors.first().map(|v| v.vector.len()) else {
        return Ok(false);
    };
    match job.chunks.vector_dimension(model)? {
        Some(old) if old != new => {
            job.obs.event(Event::NewDimension { old, new });
            job.chunks.drop_vectors(model)?;
            job.db.embedded().forget_model(model)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Embed chunk rows in provider batches. The text names the file, which helps questions
/// that mention a module or file name.
fn embed_rows(
    embedder: &mut dyn Embedder,
    rows: &[ChunkRow],
    batch: usize,
) -> Result<Vec<VectorRow>, EmbedError> {
    let mut out = Vec::with_capacity(rows.len());
    for part in rows.chunks(batch.max(1)) {
        let reads = embedder.reads();
        let texts: Vec<String> = part.iter().map(|r| text_of(r, reads)).collect();
        let vectors = embedder.embed(&texts)?;
        for (r, v) in part.iter().zip(vectors) {
            out.push(VectorRow {
                id: r.id.clone(),
                content_hash: r.content_hash.clone(),
                language: r.language,
                vector: v,
            });
        }
    }
    Ok(out)
}

/// The text embedded for a chunk: its path, then what the embedder reads of its content
/// (everything, or its definition and comment lines when it has any), cut at a char boundary.
pub fn text_of(r: &ChunkRow, reads: Reads) -> String {
    let lines = match reads {
        Reads::Definitions => definition_lines(&r.content),
        Reads::Chunk => String::new(),
    };
    let body = if lines.is_empty() { &r.content } else { &lines };
    let mut t = format!("{}\n{}", r.filepath, body);
    if t.len() > MAX_TEXT_BYTES {
        let mut end = MAX_TEXT_BYTES;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        t.truncate(end);
    }
    t
}

/// Copy the outcome into the run's statistics.
pub fn record(stats: &mut RunStats, model: &str, o: &EmbedOutcome) {
    stats.embedded = o.embedded;
    stats.embed_pending = o.pending;
    stats.embed_model = Some(model.to_string());
}

/// Comment markers that start a line, in the languages we index.
const COMMENT_STARTS: [&str; 8] = ["//", "#", "/*", "*", "\"\"\"", "--", ";;", "%"];

/// The lines of `content` that define something (a keyword definition line, the same
/// pattern as `keyword_defs`) or comment on it, trimmed, one per line.
fn definition_lines(content: &str) -> String {
    let mut out = String::new();
    for line in content.lines() {
        let t = line.trim_start();
        let comment = COMMENT_STARTS.iter().any(|m| t.starts_with(m));
        if comment || !crate::lang::keyword_defs::definitions(t).is_empty() {
            out.push_str(t);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(content: &str) -> ChunkRow {
        ChunkRow {
            id: "h:0".into(),
            content_hash: "h".into(),
            filepath: "src/upload.py".into(),
            language: crate::lang::Language::Python,
            content: content.into(),
            start_line: 1,
            end_line: 4,
        }
    }

    #[test]
    fn a_static_model_reads_the_definitions_and_comments_a_transformer_the_whole_chunk() {
        let r = row("def push_blob(client, blob):\n    # send it again on a network error\n    for n in range(5):\n        client.put(blob)\n");
        assert_eq!(
            text_of(&r, Reads::Definitions),
            "src/upload.py\ndef push_blob(client, blob):\n# send it again on a network error\n"
        );
        assert_eq!(
            text_of(&r, Reads::Chunk),
            format!("src/upload.py\n{}", r.content)
        );
        // Nothing that defines or comments: the whole chunk, rather than the path alone.
        let body = row("    x = 1\n    y = 2\n");
        assert_eq!(
            text_of(&body, Reads::Definitions),
            text_of(&body, Reads::Chunk)
        );
    }
}
