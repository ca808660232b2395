//! `git codesearch index`, and the index run before a first search.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

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
    let quiet = args.quiet || args.hook;
    let opts = IndexOptions {
        dry_run: args.dry_run,
        resume: if args.restart {
            ResumeChoice::Restart
        } else if args.resume || args.hook {
            ResumeChoice::Resume
        } else {
            ResumeChoice::Ask
        },
        contention: if args.hook {
            Contention::Defer
        } else {
            Contention::Wait(LOCK_WAIT)
        },
        commit: match &args.rev {
            Some(rev) => Some(ws.repo.resolve_commit(rev)?),
            None => None,
        },
        embed: if args.no_embed {
            EmbedPolicy::Skip
        } else {
            EmbedPolicy::All
        },
    };
    let report = index::run(&ws, &opts, &Terminal::new(quiet))?;
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
        });
        writeln!(std::io::stdout(), "{line}").map_err(Error::Output)?;
    } else if args.dry_run {
        let line = format!("plan for {}", counts(&report.stats));
        writeln!(std::io::stdout(), "{line}").map_err(Error::Output)?;
    } else if !quiet {
        eprintln!("{}", summary(&report));
    }
    Ok(Outcome::Found)
}

/// Options for a run nobody watches (the MCP server): no progress, resume without asking.
pub fn quiet_options(contention: Contention) -> IndexOptions {
    IndexOptions {
        dry_run: false,
        resume: ResumeChoice::Resume,
        contention,
        commit: None,
        embed: EmbedPolicy::Budget(MCP_EMBED_BUDGET),
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
    let opts = IndexOptions {
        dry_run: false,
        resume: ResumeChoice::Ask,
        contention: Contention::Wait(LOCK_WAIT),
        commit,
        embed: EmbedPolicy::Budget(Duration::from_secs(ws.config.embed.search_budget_secs)),
    };
    let report = index::run(ws, &opts, &Terminal::new(quiet))?;
    if !quiet {
        eprintln!("{}", summary(&report));
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
