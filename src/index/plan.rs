//! Delta planning, pure logic: compare what the work tree holds now with the branch's
//! catalog and the content already computed, and sort the work into Compute, AddTag,
//! RemoveTag and Delete (plus Unchanged, which costs nothing).

use std::collections::{HashMap, HashSet};

use crate::store::catalog::{BranchUpdate, CatalogRow};

/// One file of the work tree after hashing (or reusing a cached hash).
#[derive(Debug, Clone, PartialEq)]
pub struct Scanned {
    /// Path relative to the work tree.
    pub rel: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time (ns).
    pub mtime_ns: i64,
    /// SHA-256 of the bytes (empty when the file could not be read).
    pub content_hash: String,
    /// Why it is not indexed, if it is not.
    pub skip_reason: Option<String>,
}

/// The work of one run.
#[derive(Debug, Default)]
pub struct Plan {
    /// Indices into the scanned list of one file per content hash never computed.
    pub compute: Vec<usize>,
    /// Paths that join the branch (or change) with content that is already computed.
    pub add_tag: usize,
    /// Paths that leave the branch (or change) whose old content is still used somewhere.
    pub remove_tag: usize,
    /// Content hashes nothing uses any more: their chunks and symbols are deleted.
    pub delete: Vec<String>,
    /// Paths whose content did not change.
    pub unchanged: usize,
    /// Files skipped (junk, binary, unreadable …).
    pub skipped: usize,
    /// The catalog changes to commit at the end.
    pub update: BranchUpdate,
}

impl Plan {
    /// True when the run has nothing to write.
    pub fn is_noop(&self) -> bool {
        self.compute.is_empty()
            && self.delete.is_empty()
            && self.update.upsert.is_empty()
            && self.update.remove_paths.is_empty()
    }
}

/// Plan a run. `old` is the branch's catalog, `computed` the content hashes whose chunks are
/// stored, `stale` those of them to compute again (an older build read their definitions
/// wrong: a path of one is computed even when its catalog row has not changed; one no path
/// uses any more is deleted like any other), `used_elsewhere` the hashes other branches use.
pub fn plan(
    scanned: &[Scanned],
    old: &[CatalogRow],
    computed: &HashSet<String>,
    stale: &HashSet<String>,
    used_elsewhere: &HashSet<String>,
    now: i64,
) -> Plan {
    let old_by_path: HashMap<&str, &CatalogRow> =
        old.iter().map(|r| (r.path.as_str(), r)).collect();
    let mut p = Plan::default();
    let mut new_hashes: HashSet<&str> = HashSet::new();
    let mut queued: HashSet<&str> = HashSet::new();
    for (i, s) in scanned.iter().enumerate() {
        let before = old_by_path.get(s.rel.as_str());
        let same_content = before
            .is_some_and(|r| r.content_hash == s.content_hash && r.skip_reason == s.skip_reason);
        let same_stat =
            same_content && before.is_some_and(|r| r.size == s.size && r.mtime_ns == s.mtime_ns);
        if !same_stat {
            p.update.upsert.push(CatalogRow {
                path: s.rel.clone(),
                content_hash: s.content_hash.clone(),
                size: s.size,
                mtime_ns: s.mtime_ns,
                skip_reason: s.skip_reason.clone(),
                indexed_at: now,
            });
        }
        if s.skip_reason.is_some() {
            p.skipped += 1;
            continue;
        }
        new_hashes.insert(&s.content_hash);
        let is_computed = computed.contains(&s.content_hash) && !stale.contains(&s.content_hash);
        if same_content && is_computed {
            p.unchanged += 1;
        } else if is_computed {
            p.add_tag += 1;
        } else if queued.insert(&s.content_hash) {
            p.compute.push(i);
        }
    }
    let scanned_paths: HashSet<&str> = scanned.iter().map(|s| s.rel.as_str()).collect();
    let mut deleted: HashSet<&str> = HashSet::new();
    for r in old {
        let gone = !scanned_paths.contains(r.path.as_str());
        if gone {
            p.update.remove_paths.push(r.path.clone());
        }
        let changed = gone
            || scanned
                .binary_search_by(|s| s.rel.as_str().cmp(&r.path))
                .map(|i| scanned[i].content_hash != r.content_hash)
                .unwrap_or(true);
        if !changed || r.skip_reason.is_some() {
            continue;
        }
        let h = r.content_hash.as_str();
        if new_hashes.contains(h) || used_elsewhere.contains(h) {
            p.remove_tag += 1;
        } else if computed.contains(h) && deleted.insert(h) {
            p.delete.push(r.content_hash.clone());
        }
    }
    p.update.delete_hashes = p.delete.clone();
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(rel: &str, hash: &str) -> Scanned {
        Scanned {
            rel: rel.into(),
            size: 1,
            mtime_ns: 1,
            content_hash: hash.into(),
            skip_reason: None,
        }
    }

    fn row(rel: &str, hash: &str) -> CatalogRow {
        CatalogRow {
            path: rel.into(),
            content_hash: hash.into(),
            size: 1,
            mtime_ns: 1,
            skip_reason: None,
            indexed_at: 0,
        }
    }

    fn set(v: &[&str]) -> HashSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn first_run_computes_each_content_once() {
        let s = vec![scanned("a", "h1"), scanned("b", "h2"), scanned("c", "h1")];
        let p = plan(&s, &[], &set(&[]), &set(&[]), &set(&[]), 0);
        assert_eq!(p.compute, vec![0, 1]);
        assert_eq!(p.update.upsert.len(), 3);
        assert_eq!((p.add_tag, p.remove_tag, p.delete.len()), (0, 0, 0));
    }

    #[test]
    fn switching_branches_only_tags_known_content() {
        // The feature branch shares h1 with main, changes b to h3 (new) and adds d = h2.
        let s = vec![scanned("a", "h1"), scanned("b", "h3"), scanned("d", "h2")];
        let p = plan(
            &s,
            &[],
            &set(&["h1", "h2"]),
            &set(&[]),
            &set(&["h1", "h2"]),
            0,
        );
        assert_eq!(p.compute, vec![1]);
        assert_eq!(p.add_tag, 2);
    }

    #[test]
    fn remove_tag_when_used_elsewhere_delete_when_not() {
        let old = vec![row("a", "h1"), row("b", "h2"), row("c", "h3")];
        let s = vec![scanned("a", "h1")];
        // h2 is still on another branch, h3 is on no branch.
        let p = plan(
            &s,
            &old,
            &set(&["h1", "h2", "h3"]),
            &set(&[]),
            &set(&["h2"]),
            0,
        );
        assert_eq!(p.unchanged, 1);
        assert_eq!(p.remove_tag, 1);
        assert_eq!(p.delete, vec!["h3".to_string()]);
        assert_eq!(
            p.update.remove_paths,
            vec!["b".to_string(), "c".to_string()]
        );
        assert!(p.update.upsert.is_empty());
    }

    #[test]
    fn rename_keeps_content_and_moves_the_path() {
        let old = vec![row("old.rs", "h1")];
        let s = vec![scanned("new.rs", "h1")];
        let p = plan(&s, &old, &set(&["h1"]), &set(&[]), &set(&[]), 0);
        assert!(p.compute.is_empty() && p.delete.is_empty());
        assert_eq!(p.add_tag, 1);
        assert_eq!(p.remove_tag, 1);
        assert_eq!(p.update.remove_paths, vec!["old.rs".to_string()]);
    }

    #[test]
    fn unchanged_tree_is_a_noop() {
        let old = vec![row("a", "h1")];
        let p = plan(
            &[scanned("a", "h1")],
            &old,
            &set(&["h1"]),
            &set(&[]),
            &set(&[]),
            0,
        );
        assert!(p.is_noop());
    }

    #[test]
    fn a_stale_content_is_computed_again_where_met_and_deleted_where_gone() {
        // h1's definitions were read by an older build (`stale_definitions`): the run that
        // meets a file of it computes it again, once, and moves no catalog row.
        let old = vec![row("a.c", "h1"), row("b.c", "h1"), row("c.c", "h2")];
        let s = vec![
            scanned("a.c", "h1"),
            scanned("b.c", "h1"),
            scanned("c.c", "h2"),
        ];
        let p = plan(&s, &old, &set(&["h1", "h2"]), &set(&["h1"]), &set(&[]), 0);
        assert_eq!(p.compute, vec![0]);
        assert_eq!(p.unchanged, 1);
        assert!(p.update.upsert.is_empty() && p.update.remove_paths.is_empty());
        assert!(p.delete.is_empty());
        assert!(!p.is_noop());
        // Edited before that run: the new content is computed, the stale one deleted.
        let s = vec![scanned("c.c", "h2")];
        let old = vec![row("a.c", "h1"), row("c.c", "h2")];
        let p = plan(&s, &old, &set(&["h1", "h2"]), &set(&["h1"]), &set(&[]), 0);
        assert_eq!(p.delete, vec!["h1".to_string()]);
        assert!(p.compute.is_empty());
        // A content missing altogether is computed too.
        let p = plan(&s, &old, &set(&[]), &set(&[]), &set(&[]), 0);
        assert_eq!(p.compute, vec![0]);
    }
}
