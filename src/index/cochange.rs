//! Files that change together, mined from the indexed branch's history when its head moves:
//! for each path, the few files most often changed in the same commits. Search uses them
//! to add a top result's usual partner (a fix to a parser often needs its header too).
//! History is optional: a repository whose objects cannot be read is indexed all the same,
//! with no partners.

use std::collections::HashMap;

use crate::git::history::HistoryLimits;
use crate::git::Repo;
use crate::store::cochange::Partner;
use crate::store::{Db, StoreError};

/// How much history is read: the newest 1,000 non-merge commits, leaving out those that
/// change more than 20 files (measured with `bench/cochange_sim.py`: 300 commits find
/// less, 3,000 no more).
pub const LIMITS: HistoryLimits = HistoryLimits {
    commits: 1000,
    max_files: 20,
};
/// Partners kept per path.
const KEEP: usize = 3;
/// Fewest shared commits for a pair to be kept.
pub const MIN_TOGETHER: i64 = 3;

/// Mine and store `branch`'s partners unless they were mined at `head` already.
pub fn refresh(repo: &Repo, db: &Db, branch: &str, head: &str) -> Result<(), StoreError> {
    if db.cochange_head(branch)?.as_deref() == Some(head) {
        return Ok(());
    }
    let partners = match repo.recent_changes(head, LIMITS) {
        Ok(commits) => count(&commits),
        Err(e) => {
            crate::util::trace(&format!("history not read, no co-change: {e}"));
            Vec::new()
        }
    };
    db.replace_cochange(branch, head, &partners)?;
    crate::util::trace("co-change mined");
    Ok(())
}

/// For each path, its `KEEP` most frequent partners with at least `MIN_TOGETHER` shared
/// commits.
pub fn count(commits: &[Vec<String>]) -> Vec<Partner> {
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
    let mut by_path: HashMap<&str, Vec<(&str, i64)>> = HashMap::new();
    for ((a, b), n) in pairs {
        if n >= MIN_TOGETHER {
            by_path.entry(a).or_default().push((b, n));
        }
    }
    let mut out = Vec::new();
    for (path, mut list) in by_path {
        list.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
        out.extend(
            list.into_iter()
                .take(KEEP)
                .map(|(partner, together)| Partner {
                    path: path.to_string(),
                    partner: partner.to_string(),
                    together,
                    changes: changes[path],
                }),
        );
    }
    out.sort_by(|a, b| a.path.cmp(&b.path).then(b.together.cmp(&a.together)));
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
