//! `git codesearch index`.

use std::io::Write;
use std::path::Path;

use super::args::IndexArgs;
use super::background;
use super::common::Outcome;
use super::observer::Terminal;
use super::runs::{background_note, counts, summary, LOCK_WAIT};
use git_codesearch::index::lock::Contention;
use git_codesearch::index::{self, EmbedPolicy, IndexOptions, ResumeChoice};
use git_codesearch::report::{to_json, IndexRecord};
use git_codesearch::Error;

/// Run `index`.
pub fn run(dir: &Path, args: &IndexArgs) -> Result<Outcome, Error> {
    let ws = super::common::open(dir)?;
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
        stop: super::stop::stop(),
    };
    let report = index::run(&ws, &opts, &Terminal::new(quiet))?;
    let background = match later && !report.deferred {
        true => background::embed_later(&ws, &report.stats.branch, args.rev.as_deref()),
        false => 0,
    };
    if args.json {
        let line = to_json(&IndexRecord::new(&report, background));
        writeln!(std::io::stdout(), "{line}").map_err(Error::Output)?;
    } else if args.dry_run {
        let line = format!("plan for {}", counts(&report.stats));
        writeln!(std::io::stdout(), "{line}").map_err(Error::Output)?;
    } else if !quiet {
        eprintln!("{}{}", summary(&report), background_note(background));
    }
    Ok(Outcome::Found)
}
