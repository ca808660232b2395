//! Files that change together, mined from the indexed branch's history when its head moves:
//! for each path, the file most often changed in the same commits. Search uses it to add a
//! top result's usual partner (a fix to a parser often needs its header too). The same read
//! stores the commits' messages and files, which search matches a query against (see
//! `search::commits`).
//! History is optional: a repository whose objects cannot be read is indexed all the same,
//! with no partners.

use std::collections::HashMap;

use crate::git::history::HistoryLimits;
use crate::git::Repo;
use crate::store::cochange::Partner;
use crate::store::commits::LoggedCommit;
use crate::store::{Db, StoreError};

/// How much history is read: the newest 1,000 non-merge commits, leaving out those that
/// change more than 20 files (measured with `bench/cochange_sim.py`: 300 commits find
/// less, 3,000 no more). Sizes are bounded too (history is untrusted): commit objects of at
/// most 1 MiB, each message's first 64 KiB (a long message is a few kilobytes), 8 MiB of
/// messages in all.
pub const LIMITS: HistoryLimits = HistoryLimits {
    commits: 1000,
    max_files: 20,
    commit_bytes: 1 << 20,
    message_bytes: 64 << 10,
    log_bytes: 8 << 20,
};
/// Fewest shared commits for a pair to be kept.
pub const MIN_TOGETHER: i64 = 3;

/// Mine and store `branch`'s partners and commit messages unless they were mined at `head`
/// already.
pub fn refresh(repo: &Repo, db: &Db, branch: &str, head: &str) -> Result<(), StoreError> {
    if db.history().cochange_head(branch)?.as_deref() == Some(head) {
        return Ok(());
    }
    tracing::debug!("reading history");
    let commits = repo.recent_changes(head, LIMITS).unwrap_or_else(|e| {
        tracing::debug!("history not read, no co-change: {e}");
        Vec::new()
    });
    let partners = count(commits.iter().map(|c| &c.files));
    let logged: Vec<LoggedCommit> = commits
        .into_iter()
        .map(|c| LoggedCommit {
            terms: crate::text::words::document_terms(&c.message),
            id: c.id,
            files: c.files,
        })
        .collect();
    tracing::debug!("history read");
    // The messages first: the co-change head, written last, marks both as done.
    db.history().replace_commit_log(branch, &logged)?;
    db.history().replace_cochange(branch, head, &partners)?;
    tracing::debug!("co-change and commit messages mined");
    Ok(())
}

/// For each path, its most frequent partner (ties: the first by name), if they share at
/// least `MIN_TOGETHER` commits; `commits` are the files of each commit.
pub fn count<'a>(commits: impl IntoIterator<Item = &'a Vec<String>>) -> Vec<Partner> {
    let mut changes: HashMap<&str, i64> = HashMap::new();
    let mut pairs: HashMap<(&str, &str), i64> = HashMap::new();
    for files in commits {
        for a in files {
            *changes.entry(a).or_default() += 1;
            for b in files.iter().filter(|b| *b != a) {
                *pairs.entry((a, b)).or_default() += 1;
            }
        }
    }
    let mut best: HashMap<&str, (&str, i64)> = HashMap::new();
    for ((a, b), n) in pairs {
        if n < MIN_TOGETHER {
            continue;
        }
        let e = best.entry(a).or_insert((b, n));
        if n > e.1 || (n == e.1 && b < e.0) {
            *e = (b, n);
        }
    }
    let mut out: Vec<Partner> = best
        .into_iter()
        .map(|(path, (partner, together))| Partner {
            path: path.to_string(),
            partner: partner.to_string(),
            together,
            changes: changes[path],
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(files: &[&str]) -> Vec<String> {
        files.iter().map(|f| f.to_string()).collect()
    }

    #[test]
    fn partners_need_three_shared_commits_and_keep_the_most_frequent() {
        let mut commits = vec![commit(&["a.rs", "b.rs"]); 4];
        commits.extend(vec![commit(&["a.rs", "c.rs"]); 2]);
        commits.push(commit(&["a.rs"]));
        let p = count(&commits);
        let of_a: Vec<_> = p.iter().filter(|p| p.path == "a.rs").collect();
        assert_eq!(of_a.len(), 1, "{p:?}");
        assert_eq!(of_a[0].partner, "b.rs");
        assert_eq!((of_a[0].together, of_a[0].changes), (4, 7));
        let of_b: Vec<_> = p.iter().filter(|p| p.path == "b.rs").collect();
        assert_eq!((of_b[0].partner.as_str(), of_b[0].changes), ("a.rs", 4));
    }
}
