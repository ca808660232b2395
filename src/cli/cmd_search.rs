//! `git codesearch [search] QUERY`: ask the library's one path from a query to its answer
//! (`answer`: index on first use, search), then print the hits.

use std::io::Write;
use std::path::Path;

use super::args::SearchArgs;
use super::common::Outcome;
use super::observer::Terminal;
use super::{render, runs};
use git_codesearch::answer::{self, Request};
use git_codesearch::search::{self, budget, SearchOptions, SearchResult};
use git_codesearch::Error;

/// Run a search.
pub fn run(dir: &Path, args: &SearchArgs) -> Result<Outcome, Error> {
    tracing::debug!("start");
    let ws = super::common::open(dir)?;
    tracing::debug!("workspace open");
    let query = args.query.join(" ");
    let req = Request {
        query: &query,
        branch: args.branch.as_deref(),
        rev: args.rev.as_deref(),
        options: SearchOptions {
            limit: args.limit,
            path_glob: args.path.clone(),
            lang: args.lang.as_deref().map(search::language).transpose()?,
            mode: args.mode,
            files_only: args.files_only,
        },
        first_index: (!args.no_index).then(|| runs::first_search_options(&ws)),
    };
    let got = answer::answer(&ws, req, &Terminal::new(args.quiet))?;
    if let Some(report) = &got.ready.first_index {
        let background = runs::embed_after(&ws, report, args.rev.as_deref());
        if !args.quiet {
            eprintln!(
                "{}{}",
                runs::summary(report),
                runs::background_note(background)
            );
        }
    }
    let SearchResult {
        hits,
        query,
        kind,
        degraded,
    } = got.result;
    let branch = got.ready.branch;
    if let (Some(reason), false, false) = (&degraded, args.quiet, args.json) {
        eprintln!("note: {reason}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let found = !hits.is_empty();
    let degraded = degraded.as_deref();
    let written = if args.files_only {
        let files = budget::files(&hits);
        render::write_files(&mut out, &files, &branch.key, degraded, args.json)
    } else {
        let (hits, style) = match args.max_tokens {
            Some(max) => {
                let (hits, cut) = budget::fit(hits, max as usize);
                (hits, render::Style::Full { cut, max })
            }
            None => (hits, render::Style::Snippet),
        };
        render::write_hits(
            &mut out,
            &hits,
            &query,
            &branch.key,
            degraded,
            render::Shown {
                json: args.json,
                explain: args.explain.then_some(kind),
            },
            &style,
        )
    };
    written.and_then(|_| out.flush()).map_err(Error::Output)?;
    tracing::debug!("printed");
    Ok(if !found {
        Outcome::NotFound
    } else {
        Outcome::Found
    })
}
