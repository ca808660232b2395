//! An index run's options and report lines, shared by the commands that run one: `index`,
//! a first search and the MCP server.

use std::time::Duration;

use super::background;
use git_codesearch::index::lock::Contention;
use git_codesearch::index::{EmbedPolicy, IndexOptions, IndexReport, ResumeChoice};
use git_codesearch::workspace::Workspace;

/// How long an index run waits for another run's lock before naming the holder.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// Options for a run nobody watches (the MCP server): no progress, resume without asking;
/// embedding left to a background run (see [`embed_after`]) unless that is turned off.
pub fn quiet_options(contention: Contention) -> IndexOptions {
    IndexOptions {
        dry_run: false,
        resume: ResumeChoice::Resume,
        contention,
        commit: None,
        embed: if background::enabled() {
            EmbedPolicy::Skip
        } else {
            EmbedPolicy::Budget(MCP_EMBED_BUDGET)
        },
        stop: super::stop::stop(),
    }
}

/// After a run made with [`quiet_options`] or [`first_search_options`]: start the background
/// embedding of what it left pending; returns how many files it will embed.
pub fn embed_after(ws: &Workspace, report: &IndexReport, rev: Option<&str>) -> usize {
    match background::enabled() && !report.deferred {
        true => background::embed_later(ws, &report.stats.branch, rev),
        false => 0,
    }
}

/// After a pull or an import (vectors never travel): start the background embedding of what
/// the checked-out branch now lacks, and say so on `out` when there is any. With background
/// runs turned off, the next index run or search embeds them.
pub fn embed_checked_out(ws: &Workspace, out: &mut impl std::io::Write) -> std::io::Result<()> {
    if !background::enabled() {
        return Ok(());
    }
    let later = match ws.branch() {
        Ok(b) if !b.unborn => background::embed_later(ws, &b.key, None),
        _ => 0,
    };
    if later > 0 {
        writeln!(out, "embedding {later} files in the background")?;
    }
    Ok(())
}

/// How long an MCP `reindex` call embeds before answering (the rest stays pending).
const MCP_EMBED_BUDGET: Duration = Duration::from_secs(60);

/// Options for the index run a first search makes: progress and the resume prompt on a
/// terminal; embedding left to a background run unless that is turned off.
pub fn first_search_options(ws: &Workspace) -> IndexOptions {
    IndexOptions {
        dry_run: false,
        resume: ResumeChoice::Ask,
        contention: Contention::Wait(LOCK_WAIT),
        commit: None,
        embed: if background::enabled() {
            EmbedPolicy::Skip
        } else {
            EmbedPolicy::Budget(Duration::from_secs(ws.config.embed.search_budget_secs))
        },
        stop: super::stop::stop(),
    }
}

/// `; embedding N files in the background` when a background run was started.
pub fn background_note(files: usize) -> String {
    match files {
        0 => String::new(),
        n => format!("; embedding {n} files in the background"),
    }
}

/// One line describing a finished run.
pub fn summary(r: &IndexReport) -> String {
    let s = &r.stats;
    if r.deferred {
        return "another index run is in progress; it will pick up these changes".into();
    }
    let what = if r.noop { "up to date" } else { "indexed" };
    let mut line = format!(
        "{what} {}, {} chunks written in {:.2}s",
        counts(s),
        s.chunks_added,
        s.seconds
    );
    if let Some(e) = &r.embed {
        line.push_str(&embed_summary(&e.outcome));
    }
    line
}

/// `; embedded N files, M pending (why)` when the embedding phase did something.
fn embed_summary(o: &git_codesearch::index::vectors::EmbedOutcome) -> String {
    let mut s = String::new();
    if o.embedded > 0 {
        s.push_str(&format!("; embedded {} files", o.embedded));
    }
    if o.pending > 0 {
        let why = match (&o.error, o.out_of_time) {
            (Some(e), _) => format!("the embedder failed: {}", git_codesearch::util::chain(e)),
            (None, true) => "time budget used up; `git codesearch index` finishes".into(),
            (None, false) if o.yielded => "another run took over".into(),
            (None, false) => "interrupted".into(),
        };
        s.push_str(&format!("; {} files still need vectors ({why})", o.pending));
    }
    s
}

/// `BRANCH: N files (compute …, add-tag …, …)`.
pub fn counts(s: &git_codesearch::store::catalog::RunStats) -> String {
    format!(
        "{}: {} files (compute {}, add-tag {}, remove-tag {}, delete {}, unchanged {}, skipped {})",
        git_codesearch::git::display_key(&s.branch),
        s.files,
        s.compute,
        s.add_tag,
        s.remove_tag,
        s.deleted,
        s.unchanged,
        s.skipped
    )
}
