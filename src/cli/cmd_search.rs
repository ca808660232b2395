//! `git codesearch [search] QUERY`: build the index on first use, search, print hits.

use std::io::Write;
use std::path::Path;

use super::{cmd_index, render, ModeArg, Outcome, SearchArgs};
use git_codesearch::git::BranchRef;
use git_codesearch::search::{self, budget, Mode, SearchError, SearchOptions};
use git_codesearch::Error;

/// Run a search.
pub fn run(dir: &Path, args: &SearchArgs) -> Result<Outcome, Error> {
    tracing::debug!("start");
    let ws = super::open(dir)?;
    tracing::debug!("workspace open");
    let query = search::prepare(&args.query.join(" "))?;
    let current = ws.branch()?;
    let commit = match &args.rev {
        Some(rev) => Some(ws.repo.resolve_commit(rev)?),
        None => None,
    };
    let branch = match (&args.branch, &commit) {
        (Some(name), _) => BranchRef::named(name),
        (None, Some(c)) => BranchRef {
            key: git_codesearch::index::rev::rev_key(c),
            unborn: false,
        },
        (None, None) => current.clone(),
    };
    let mut db = ws.db()?;
    let indexed = db.has_branch(&branch.key)?;
    if !indexed {
        if (branch != current && commit.is_none()) || args.no_index {
            return Err(SearchError::BranchNotIndexed {
                branch: branch.display(),
            }
            .into());
        }
        if !args.quiet {
            eprintln!("indexing {} for the first time…", branch.display());
        }
        drop(db);
        cmd_index::index_now(&ws, args.quiet, commit.clone())?;
        db = ws.db()?;
    }
    tracing::debug!("catalog open");
    let chunks = ws.chunk_store()?;
    chunks.ensure_present(db.count_with_chunks()?)?;
    tracing::debug!("chunk store open");
    let opts = SearchOptions {
        limit: args.limit,
        path_glob: args.path.clone(),
        lang: args.lang.clone(),
        mode: match args.mode {
            ModeArg::Hybrid => Mode::Hybrid,
            ModeArg::Bm25 => Mode::Bm25,
            ModeArg::Vector => Mode::Vector,
            ModeArg::Symbol => Mode::Symbol,
        },
    };
    let cx = search::Context {
        db: &db,
        chunks: &chunks,
        config: &ws.config,
        branch: &branch.key,
    };
    let result = search::search(&cx, query, &opts)?;
    tracing::debug!("searched");
    if let (Some(reason), false, false) = (&result.degraded, args.quiet, args.json) {
        eprintln!("note: {reason}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let found = !result.hits.is_empty();
    let degraded = result.degraded.as_deref();
    let written = if args.files_only {
        let files = budget::files(&result.hits);
        render::write_files(&mut out, &files, &branch.key, degraded, args.json)
    } else if let Some(max) = args.max_tokens {
        let (hits, cut) = budget::fit(result.hits, max as usize);
        let style = render::Style::Full { cut, max };
        render::write_hits(
            &mut out,
            &hits,
            &result.query,
            &branch.key,
            degraded,
            args.json,
            &style,
        )
    } else {
        let style = render::Style::Snippet;
        render::write_hits(
            &mut out,
            &result.hits,
            &result.query,
            &branch.key,
            degraded,
            args.json,
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
