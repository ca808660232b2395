//! `git codesearch [search] QUERY`: build the index on first use, search, print hits.

use std::io::Write;
use std::path::Path;

use super::{cmd_index, render, ModeArg, Outcome, SearchArgs};
use crate::git::BranchRef;
use crate::search::{self, Mode, SearchError, SearchOptions};
use crate::workspace::Workspace;
use crate::Error;

/// Run a search.
pub fn run(dir: &Path, args: &SearchArgs) -> Result<Outcome, Error> {
    let ws = Workspace::open(dir)?;
    let query = search::prepare(&args.query.join(" "))?;
    let current = ws.branch()?;
    let branch = match &args.branch {
        Some(name) => BranchRef::named(name),
        None => current.clone(),
    };
    let mut db = ws.db()?;
    let indexed = db.branches()?.contains(&branch.key);
    if !indexed {
        if branch != current || args.no_index {
            return Err(SearchError::BranchNotIndexed {
                branch: branch.display(),
            }
            .into());
        }
        if !args.quiet {
            eprintln!("indexing {} for the first time…", branch.display());
        }
        drop(db);
        cmd_index::index_now(&ws, args.quiet)?;
        db = ws.db()?;
    }
    let chunks = ws.chunk_store()?;
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
    let result = search::search(&db, &chunks, &ws.config, &branch.key, query, &opts)?;
    if let (Some(reason), false, false) = (&result.degraded, args.quiet, args.json) {
        eprintln!("note: {reason}");
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if args.json {
        render::write_json(
            &mut out,
            &result.hits,
            &result.query,
            &branch.key,
            result.degraded.as_deref(),
        )
    } else {
        render::write_text(
            &mut out,
            &result.hits,
            &result.query,
            render::color_stdout(),
        )
    };
    written.and_then(|_| out.flush()).map_err(Error::Output)?;
    Ok(if result.hits.is_empty() {
        Outcome::NotFound
    } else {
        Outcome::Found
    })
}
