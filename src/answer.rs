//! One path from a query to its answer, for the command line and for agents (MCP): choose
//! the branch (checked out, named, or a commit's tree), index it first when it has no index
//! yet and the caller allows it, open the catalog and chunk store, search, and describe
//! every hit one way ([`HitRecord`]: `--json` prints it, MCP returns it with its content). A
//! new retriever or hit field reaches both through here.

use serde::Serialize;

use crate::git::BranchRef;
use crate::index::{self, Event, IndexOptions, IndexReport, Observer};
use crate::search::fusion::Source;
use crate::search::query::Query;
use crate::search::{self, Hit, SearchError, SearchOptions, SearchResult};
use crate::workspace::Workspace;
use crate::Error;

/// Version of the hit schema ([`HitRecord`]): `--json` lines and MCP hits.
pub const HIT_VERSION: u32 = 1;

/// A question to answer.
#[derive(Debug, Default)]
pub struct Request<'a> {
    /// The query as typed.
    pub query: &'a str,
    /// Search this branch instead of the checked-out one (it must be indexed already).
    pub branch: Option<&'a str>,
    /// Search this commit's tree (a revision git understands), indexed first if needed.
    pub rev: Option<&'a str>,
    /// Limit, filters and mode.
    pub options: SearchOptions,
    /// How to index a branch that has no index yet (its `commit` is set from `rev`); `None`:
    /// such a branch is an error ("not indexed").
    pub first_index: Option<IndexOptions>,
}

/// What a request got.
#[derive(Debug)]
pub struct Answer {
    /// The branch searched, and whether it was indexed first.
    pub ready: Ready,
    /// Hits, the query as prepared, and why a retriever was left out.
    pub result: SearchResult,
}

/// Answer `req` in `ws`; an index run (first use) reports to `obs`.
pub fn answer(ws: &Workspace, req: Request<'_>, obs: &dyn Observer) -> Result<Answer, Error> {
    let query = search::prepare(req.query)?;
    // One connection to the catalog for the branch check and the search: each open costs
    // its own schema read (about half a millisecond of a search).
    let db = ws.db()?;
    let ready = ready_in(ws, &db, req.branch, req.rev, req.first_index, obs)?;
    tracing::debug!("catalog open");
    let chunks = ws.chunk_store()?;
    chunks.ensure_present(db.health().count_with_chunks()?)?;
    // One snapshot per connection for the whole search: consistent reads, and no lock taken
    // and dropped around each of its few hundred statements.
    let _db_read = db.read_snapshot()?;
    let _chunks_read = chunks.read_snapshot()?;
    tracing::debug!("chunk store open");
    let cx = search::Context {
        db: &db,
        chunks: &chunks,
        config: &ws.config,
        branch: &ready.branch.key,
    };
    let result = search::search(&cx, query, &req.options)?;
    tracing::debug!("searched");
    Ok(Answer { ready, result })
}

/// A branch with an index, ready to be searched or looked up.
#[derive(Debug)]
pub struct Ready {
    /// The branch (a catalog key and how to show it).
    pub branch: BranchRef,
    /// The resolved commit, when a revision was named.
    pub commit: Option<String>,
    /// The index run that built the branch's index first, if one was needed.
    pub first_index: Option<IndexReport>,
}

/// The branch to search: `branch` (indexed already), else `rev`'s tree, else the checked-out
/// branch; indexed first with `first_index` when it has no index yet (only the checked-out
/// branch or a commit's tree can be), else an error.
pub fn ready(
    ws: &Workspace,
    branch: Option<&str>,
    rev: Option<&str>,
    first_index: Option<IndexOptions>,
    obs: &dyn Observer,
) -> Result<Ready, Error> {
    ready_in(ws, &ws.db()?, branch, rev, first_index, obs)
}

/// [`ready`], asking `db` (a connection to `ws`'s catalog) whether the branch is indexed.
fn ready_in(
    ws: &Workspace,
    db: &crate::store::Db,
    branch: Option<&str>,
    rev: Option<&str>,
    first_index: Option<IndexOptions>,
    obs: &dyn Observer,
) -> Result<Ready, Error> {
    let current = ws.branch()?;
    let commit = match rev {
        Some(rev) => Some(ws.repo.resolve_commit(rev)?),
        None => None,
    };
    let branch = match (branch, &commit) {
        (Some(name), _) => BranchRef::named(name),
        (None, Some(c)) => BranchRef::of_commit(c),
        (None, None) => current.clone(),
    };
    let first_index = if db.catalog().has_branch(&branch.key)? {
        None
    } else {
        // Only the checked-out branch or a commit's tree can be indexed from here.
        match first_index {
            Some(opts) if branch == current || commit.is_some() => {
                obs.event(Event::FirstIndex(&branch.display()));
                let opts = IndexOptions {
                    commit: commit.clone(),
                    ..opts
                };
                Some(index::run(ws, &opts, obs)?)
            }
            _ => {
                return Err(SearchError::BranchNotIndexed {
                    branch: branch.display(),
                }
                .into())
            }
        }
    };
    Ok(Ready {
        branch,
        commit,
        first_index,
    })
}

/// One hit as `--json` prints it and MCP returns it: where, how good, who found it, a
/// snippet, and with a budget (always in MCP) its content.
#[derive(Debug, Serialize)]
pub struct HitRecord<'a> {
    /// [`HIT_VERSION`].
    pub version: u32,
    /// Path relative to the work tree.
    pub path: &'a str,
    /// First line (1-based).
    pub start_line: u32,
    /// Last line (inclusive).
    pub end_line: u32,
    /// Fused score (higher is better).
    pub score: f64,
    /// Retrievers that found it.
    pub sources: &'a [Source],
    /// Language (its name in JSON).
    pub language: crate::lang::Language,
    /// The branch searched, as the user names it.
    pub branch: String,
    /// The lines with the most query terms.
    pub snippet: String,
    /// Why a retriever was left out, or null.
    pub degraded: Option<&'a str>,
    /// The hit's lines (with a budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Whether a budget trimmed this hit's last lines (with a budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// What made its score, feature by feature (when asked: `--explain`); the values sum to
    /// `score`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<&'a crate::search::explain::Why>,
    /// How the query was read, which picks the learned scorer's weights in a hybrid search
    /// (with `explain`; other modes are not weighed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_as: Option<crate::search::learned::Kind>,
}

/// Lines of snippet per hit.
pub const SNIPPET_LINES: usize = 4;

impl<'a> HitRecord<'a> {
    /// The record of `hit` found for `q` on `branch` (a catalog key); with `content`, its
    /// lines and whether the budget trimmed them.
    pub fn new(
        hit: &'a Hit,
        q: &Query,
        branch: &str,
        degraded: Option<&'a str>,
        content: Option<bool>,
    ) -> HitRecord<'a> {
        let snippet: Vec<&str> = snippet(hit, q, SNIPPET_LINES)
            .iter()
            .map(|(_, l)| l.as_str())
            .collect();
        let lines = || {
            let all: Vec<&str> = hit.lines.iter().map(|(_, l)| l.as_str()).collect();
            all.join("\n")
        };
        HitRecord {
            version: HIT_VERSION,
            path: &hit.path,
            start_line: hit.start_line,
            end_line: hit.end_line,
            score: hit.score,
            sources: &hit.sources,
            language: hit.language,
            branch: crate::git::display_key(branch),
            snippet: snippet.join("\n"),
            degraded,
            content: content.map(|_| lines()),
            truncated: content,
            explain: None,
            read_as: None,
        }
    }

    /// The record with the hit's score explained, for a query read as `kind`.
    pub fn explained(mut self, hit: &'a Hit, kind: crate::search::learned::Kind) -> HitRecord<'a> {
        self.explain = Some(&hit.why);
        self.read_as = Some(kind);
        self
    }
}

/// The window of `n` lines with the most query terms (ties: the earliest).
pub fn snippet<'a>(hit: &'a Hit, q: &Query, n: usize) -> &'a [(u32, String)] {
    let lines = &hit.lines;
    if lines.len() <= n {
        return lines;
    }
    let (start, _) = search::focus::densest_window(lines, &q.terms, n);
    &lines[start..start + n]
}
