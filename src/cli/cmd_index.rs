//! `git codesearch index`, and the index run before a first search.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::background;
use super::observer::Terminal;
use super::{IndexArgs, Outcome};
use git_codesearch::index::lock::Contention;
use git_codesearch::index::{self, EmbedPolicy, IndexOptions, IndexReport, ResumeChoice};
use git_codesearch::workspace::Workspace;
use git_codesearch::Error;

/// How long an index run waits for another run's lock before naming the holder.
pub const LOCK_WAIT: Duration = Duration::from_secs(30);

/// Run `index`.
pub fn run(dir: &Path, args: &IndexArgs) -> Result<Outcome, Error> {
    let ws = super::open(dir)?;
    let unattended = args.hook || args.background;
    if unattended {
        background::lower_priority();
    }
    let quiet = args.quiet || unattended;
    // An unattended run is already in the background: it embeds in-process.
    let later =
        !args.no_embed && !args.wait && !unattended && !args.dry_run && background::enabled();
    let opts = IndexOptions {
        dry_run: args.dry_run,
        resume: if args.restart {
            ResumeChoice::Restart
        } else if args.resume || unattended {
            ResumeChoice::Resume
        } else {
            ResumeChoice::Ask
        },
        contention: if unattended {
            Contention::Defer
        } else {
            Contention::Wait(LOCK_WAIT)
        },
        commit: match &args.rev {
            Some(rev) => Some(ws.repo.resolve_commit(rev)?),
            None => None,
        },
        embed: if args.no_embed || later {
            EmbedPolicy::Skip
        } else if unattended {
            EmbedPolicy::Yielding
        } else {
            EmbedPolicy::All
        },
    };
    let report = index::run(&ws, &opts, &Terminal::new(quiet))?;
    let background = match later && !report.deferred {
        true => background::embed_later(&ws, &report.stats.branch, args.rev.as_deref()),
        false => 0,
    };
    if args.json {
        let line = serde_json::json!({
            "branch": git_codesearch::git::display_key(&report.stats.branch),
            "dry_run": report.dry_run,
            "deferred": report.deferred,
            "noop": report.noop,
            "stats": report.stats,
            "embed_error": report
                .embed
                .as_ref()
                .and_then(|e| e.outcome.error.as_ref())
                .map(|e| git_codesearch::util::chain(e)),
            "embedding_in_background": background,
        });
        writeln!(std::io::stdout(), "{line}").map_err(Error::Output)?;
    } else if args.dry_run {
        let line = format!("plan for {}", counts(&report.stats));
        writeln!(std::io::stdout(), "{line}").map_err(Error::Output)?;
    } else if !quiet {
        eprintln!("{}{}", summary(&report), background_note(background));
    }
    Ok(Outcome::Found)
}

/// `; embedding N files in the background` when a background run was started.
fn background_note(files: usize) -> String {
    match files {
        0 => String::new(),
        n => format!("; embedding {n} files in the background"),
    }
}

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
    }
}

/// After a run made with [`quiet_options`] or by [`index_now`]: start the background
/// embedding of what it left pending; returns how many files it will embed.
pub fn embed_after(ws: &Workspace, report: &IndexReport, rev: Option<&str>) -> usize {
    match background::enabled() && !report.deferred {
        true => background::embed_later(ws, &report.stats.branch, rev),
        false => 0,
    }
}

/// How long an MCP `reindex` call embeds before answering (the rest stays pending).
const MCP_EMBED_BUDGET: Duration = Duration::from_secs(60);

/// Index before a first search (progress on, resume without asking only if not a terminal).
/// With `commit`, index that commit's tree instead of the work tree.
pub fn index_now(
    ws: &Workspace,
    quiet: bool,
    commit: Option<String>,
) -> Result<IndexReport, Error> {
    let commit_arg = commit.clone();
    let opts = IndexOptions {
        dry_run: false,
        resume: ResumeChoice::Ask,
        contention: Contention::Wait(LOCK_WAIT),
        commit,
        embed: if background::enabled() {
            EmbedPolicy::Skip
        } else {
            EmbedPolicy::Budget(Duration::from_secs(ws.config.embed.search_budget_secs))
        },
    };
    let report = index::run(ws, &opts, &Terminal::new(quiet))?;
    let background = embed_after(ws, &report, commit_arg.as_deref());
    if !quiet {
        eprintln!("{}{}", summary(&report), background_note(background));
    }
    Ok(report)
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
fn counts(s: &git_codesearch::store::catalog::RunStats) -> String {
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
