//! Past commits: a bug report often says what an earlier commit message said about the same
//! code ("unicode method names", "timeout of the stream interceptor"), and the files that
//! commit changed are where to look. The query's terms are matched against the messages of
//! the branch's recent commits (SQLite FTS5 over `commit_terms`, mined at index time, see
//! `index::history`); each of the best commits gives the files it changed that are still on
//! the branch its score, shared out so that a commit changing one file says more about that
//! file than one changing twenty. Measured on the development set with `bench/eval.py`.

use std::collections::HashMap;

use super::query::Query;
use super::types::SearchError;
use crate::lang::Language;
use crate::store::Db;

use super::params::COMMITS;

/// A file a past commit changed, with the score it gets.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedFile {
    /// Path on the branch.
    pub path: String,
    /// Its content hash on the branch.
    pub content_hash: String,
    /// Sum over the matching commits that changed it of score / sqrt(files changed).
    pub score: f64,
}

/// The branch's files changed by the commits whose messages best match `q`, best first,
/// optionally only those of language `lang`.
pub fn retrieve(
    db: &Db,
    branch: &str,
    q: &Query,
    lang: Option<Language>,
) -> Result<Vec<ChangedFile>, SearchError> {
    let Some(expression) = super::files::match_expression(q) else {
        return Ok(Vec::new());
    };
    let mut by_path: HashMap<String, ChangedFile> = HashMap::new();
    for c in db.history().search_commits(branch, &expression, COMMITS)? {
        // A commit's score is shared by its files, not split evenly: a large commit's
        // files each still say something (square root, as measured).
        let share = c.score / (c.n_files.max(1) as f64).sqrt();
        for (path, hash) in c.files {
            if lang.is_some_and(|l| Language::of_path(&path) != l) {
                continue;
            }
            by_path
                .entry(path.clone())
                .or_insert(ChangedFile {
                    path,
                    content_hash: hash,
                    score: 0.0,
                })
                .score += share;
        }
    }
    let mut out: Vec<ChangedFile> = by_path.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
    Ok(out)
}

/// The files of past commits matching a query and, apart, its title.
#[derive(Debug, Default)]
pub struct Past {
    /// Files of the commits matching the whole query, best first.
    pub query: Vec<ChangedFile>,
    /// Files of the commits matching the title of a query of several lines, best first.
    pub title: Vec<ChangedFile>,
}

/// [`retrieve`] for the query and for its `title` (when given) on a thread of their own,
/// so they run while the chunk retrievers do.
pub fn spawn(
    path: &std::path::Path,
    branch: &str,
    q: &Query,
    title: Option<Query>,
    lang: Option<Language>,
) -> std::thread::JoinHandle<Result<Past, SearchError>> {
    let (branch, q) = (branch.to_string(), q.clone());
    super::background::spawn(path, move |db| {
        let query = retrieve(db, &branch, &q, lang)?;
        let title = match title {
            Some(t) => retrieve(db, &branch, &t, lang)?,
            None => Vec::new(),
        };
        Ok(Past { query, title })
    })
}
