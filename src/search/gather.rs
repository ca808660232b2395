//! Running the retrievers of one search: the whole-file and past-commit lists on threads of
//! their own (each with its own SQLite connection), BM25 and symbols on the caller's
//! connections, and vector retrieval beside them.

use super::fusion::Source;
use super::query::Query;
use super::retrievers::{of, Id};
use super::types::prepare;
use super::types::{Context, Fetch, List, Mode, SearchError};
use super::{background, commits, files, retrieve, semantic};

/// The file-level lists the mode and weights ask for, each started on a thread of its own
/// (with its own SQLite connection): whole files, whole files for a pasted issue's title,
/// and files of matching past commits.
pub(super) fn start_file_lists(cx: &Context<'_>, q: &Query, fetch: Fetch<'_>) -> FileLists {
    let Fetch {
        n,
        lang,
        mode,
        weights,
    } = fetch;
    let (db, branch) = (cx.db, cx.branch);
    // Whole-file BM25 runs beside the other retrievers, on its own SQLite connection, and
    // returns as many candidates as they do (50 and 100 measured worse than 200).
    let whole_files = of(Id::File)
        .runs(mode, weights)
        .then(|| files::spawn(db.path(), branch, q, n, lang));
    // A pasted issue's title says in a few words what its body says in many: its terms get
    // a whole-file ranking and a commit-message match of their own.
    let title = q
        .title
        .as_deref()
        .filter(|_| mode == Mode::Hybrid)
        .and_then(|t| prepare(t).ok());
    let title_files = title
        .as_ref()
        .filter(|_| of(Id::Title).runs(mode, weights))
        .map(|tq| files::spawn(db.path(), branch, tq, n, lang));
    // What past commits of the branch said: their files, on a thread of their own.
    // Either commit list runs without the other (`weights.commits = 0` keeps the title's).
    let past_title = title.filter(|_| of(Id::CommitsTitle).runs(mode, weights));
    let past = (of(Id::Commits).runs(mode, weights) || past_title.is_some())
        .then(|| commits::spawn(db.path(), branch, q, past_title, lang));
    (whole_files, title_files, past)
}

/// Whole files for the query and for its title, and past commits' files, as started.
pub(super) type FileLists = (
    background::Pending<Vec<String>>,
    background::Pending<Vec<String>>,
    background::Pending<commits::Past>,
);

/// The lexical lists, and the vectors' part when they run: a flat scan on a thread of its
/// own beside the lexical retrievers, LanceDB after them (see [`semantic::start`]).
pub(super) fn lexical_and_vectors(
    cx: &Context<'_>,
    q: &Query,
    fetch: Fetch<'_>,
    ready: Option<semantic::Readiness>,
) -> Result<(Vec<List>, Option<semantic::VectorPart>), SearchError> {
    std::thread::scope(|scope| {
        let started = ready
            .map(|r| semantic::start(scope, r, cx, q, fetch))
            .transpose()?;
        let lists = lexical(cx, q, fetch)?;
        let part = started
            .map(|s| semantic::finish(s, cx, q, fetch))
            .transpose()?;
        Ok((lists, part))
    })
}

/// The BM25 and symbol lists the mode asks for. Symbol search's SQLite half runs first;
/// its LanceDB half (finding the chunks that hold the definitions) runs on a second thread
/// beside BM25, which keeps the SQLite connection.
fn lexical(cx: &Context<'_>, q: &Query, fetch: Fetch<'_>) -> Result<Vec<List>, SearchError> {
    let Fetch {
        n,
        lang,
        mode,
        weights,
    } = fetch;
    let (db, chunks, branch) = (cx.db, cx.chunks, cx.branch);
    let symbols = of(Id::Symbol)
        .runs(mode, weights)
        .then(|| retrieve::symbol_hits(db, branch, q, n))
        .transpose()?;
    let (bm25, symbols) = std::thread::scope(|scope| {
        let symbols =
            symbols.map(|hits| scope.spawn(move || retrieve::symbol_chunks(chunks, &hits, lang)));
        let bm25 = of(Id::Bm25)
            .runs(mode, weights)
            .then(|| retrieve::bm25(db, chunks, branch, q, n, lang));
        tracing::debug!("bm25 retrieved");
        let symbols = symbols.map(|t| t.join().expect("symbol search thread panicked"));
        tracing::debug!("symbols retrieved");
        (bm25, symbols)
    });
    let mut lists = Vec::new();
    if let Some(found) = bm25.transpose()? {
        lists.push((Source::Bm25, of(Id::Bm25).weight_in(mode, weights), found));
    }
    if let Some(found) = symbols.transpose()? {
        lists.push((
            Source::Symbol,
            of(Id::Symbol).weight_in(mode, weights),
            found,
        ));
    }
    Ok(lists)
}
