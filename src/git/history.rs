//! Which files each recent commit changed, and what its message said, read from the object
//! database with `gix`: the raw material for "files that change together" and for matching
//! a query against past commit messages. Trees are compared entry by entry and
//! identical subtrees are skipped, so a commit costs a few tree reads, not a full listing;
//! blobs are never read (rename detection would need them, and it is not worth it here).
//!
//! History is untrusted and read on every run after HEAD moves (hooks included), so its
//! sizes are bounded before anything is allocated: a commit object over
//! [`HistoryLimits::commit_bytes`] (by its header) is not walked, each message is cut to
//! `message_bytes` and all of them together to `log_bytes`. A parent commit is read within
//! the same bound, and every tree within [`super::tree::MAX_TREE_BYTES`]: a commit whose
//! parent or tree is over its bound is left out.

use std::collections::BTreeMap;

use gix::bstr::ByteSlice;

use super::{BoxError, GitError, Repo};

/// Limits of a history read.
#[derive(Debug, Clone, Copy)]
pub struct HistoryLimits {
    /// Newest non-merge commits to read.
    pub commits: usize,
    /// Commits changing more files than this are left out (reformatting, vendoring,
    /// releases): they say nothing about which files belong together.
    pub max_files: usize,
    /// Commit objects larger than this (by their header) are not walked, nor their
    /// history behind them: a crafted commit of gigabytes is never decompressed.
    pub commit_bytes: u64,
    /// Each message is cut to its first this many bytes.
    pub message_bytes: usize,
    /// All messages together are cut to this many bytes (later commits get none).
    pub log_bytes: usize,
}

/// One commit of a history read.
#[derive(Debug, Clone, PartialEq)]
pub struct Commit {
    /// Hex object id.
    pub id: String,
    /// The whole message (subject and body), lossily decoded.
    pub message: String,
    /// The paths it changed.
    pub files: Vec<String>,
}

/// Most bytes of one message ever decoded: the object is bounded already
/// ([`HistoryLimits::commit_bytes`]); this bounds the text made from it.
const MAX_DECODED: usize = 1 << 20;

/// Cut `text` to at most `max` bytes, at a character boundary.
fn cut(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

impl Repo {
    /// The newest non-merge commits reachable from `head` that change between one and
    /// `limits.max_files` files, newest first (root commits count every file they add).
    pub fn recent_changes(
        &self,
        head: &str,
        limits: HistoryLimits,
    ) -> Result<Vec<Commit>, GitError> {
        let tip = gix::ObjectId::from_hex(head.as_bytes()).map_err(GitError::rev(head))?;
        let repo = &self.repo;
        // Asked of each commit before the walk reads it (from its header only).
        let small = move |id: &gix::oid| {
            repo.find_header(id)
                .is_ok_and(|h| h.size() <= limits.commit_bytes)
        };
        let walk = self
            .repo
            .rev_walk([tip])
            .selected(small)
            .map_err(GitError::rev(head))?;
        let mut out = Vec::new();
        let mut log_room = limits.log_bytes;
        for info in walk {
            if out.len() >= limits.commits {
                break;
            }
            let changes = info
                .map_err(BoxError::from)
                .and_then(|info| self.commit_changes(info, limits));
            match changes {
                Ok(Some(mut changed)) => {
                    cut(&mut changed.message, limits.message_bytes.min(log_room));
                    log_room -= changed.message.len();
                    out.push(changed);
                }
                Ok(None) => {}
                // A shallow clone's history ends at a commit whose parent is not here: what
                // was read before it still counts.
                Err(_) if !out.is_empty() => break,
                Err(e) => return Err(GitError::rev(head)(e)),
            }
        }
        Ok(out.into_iter().filter(|c| !c.files.is_empty()).collect())
    }

    /// One walked commit with the paths it changed (none when more than `cap`); None for a
    /// merge, and for a commit whose parent commit or a tree on the way is over its bound
    /// (the walk reads only commits within bounds; a parent's is read here, so it is bounded
    /// here too).
    fn commit_changes(
        &self,
        info: gix::revision::walk::Info<'_>,
        limits: HistoryLimits,
    ) -> Result<Option<Commit>, BoxError> {
        match self.changes_of(info, limits) {
            Err(e) if matches!(e.downcast_ref(), Some(GitError::TooLarge { .. })) => Ok(None),
            other => other,
        }
    }

    fn changes_of(
        &self,
        info: gix::revision::walk::Info<'_>,
        limits: HistoryLimits,
    ) -> Result<Option<Commit>, BoxError> {
        let parents: Vec<gix::ObjectId> = info.parent_ids().map(|p| p.detach()).collect();
        if parents.len() > 1 {
            return Ok(None);
        }
        let commit = self
            .bounded_object(info.id, gix::object::Kind::Commit, limits.commit_bytes)?
            .try_into_commit()?;
        // At most what could be kept is decoded (the object itself is bounded).
        let raw = commit.message_raw_sloppy();
        let message = raw[..raw.len().min(MAX_DECODED)]
            .to_str_lossy()
            .into_owned();
        let new = commit.tree_id()?.detach();
        let old = match parents.first() {
            Some(&p) => Some(self.parent_tree(p, limits.commit_bytes)?),
            None => None,
        };
        let mut changed = Vec::new();
        let within = self.diff_trees(old, Some(new), &mut changed, limits.max_files)?;
        Ok(Some(Commit {
            id: info.id.to_hex().to_string(),
            message,
            files: if within { changed } else { Vec::new() },
        }))
    }

    /// The tree of parent commit `id`, read within the same bound as walked commits.
    fn parent_tree(&self, id: gix::ObjectId, max: u64) -> Result<gix::ObjectId, BoxError> {
        let commit = self
            .bounded_object(id, gix::object::Kind::Commit, max)?
            .try_into_commit()?;
        Ok(commit.tree_id()?.detach())
    }

    /// Add to `out` the file paths that differ between trees `a` and `b`; false (and stop)
    /// once more than `cap` are found, or once more trees than [`trees_read_at_most`] have
    /// been read. Iterative, with the pending subtrees on a heap stack: a crafted tree
    /// nested 16,000 deep overflowed the recursive version's stack, in every index run.
    /// Paths come out in the order a recursive walk gives.
    fn diff_trees(
        &self,
        a: Option<gix::ObjectId>,
        b: Option<gix::ObjectId>,
        out: &mut Vec<String>,
        cap: usize,
    ) -> Result<bool, BoxError> {
        // A pending subtree pair, or a file path to emit once its subtree (if any) is done.
        enum Todo {
            Trees(Option<gix::ObjectId>, Option<gix::ObjectId>, String),
            File(String),
        }
        let mut stack = vec![Todo::Trees(a, b, String::new())];
        let mut trees_left = trees_read_at_most(cap);
        while let Some(todo) = stack.pop() {
            let (a, b, prefix) = match todo {
                Todo::File(path) => {
                    out.push(path);
                    if out.len() > cap {
                        return Ok(false);
                    }
                    continue;
                }
                Todo::Trees(a, b, prefix) => (a, b, prefix),
            };
            if trees_left == 0 {
                return Ok(false);
            }
            trees_left -= 1;
            let left = self.tree_entries(a)?;
            let right = self.tree_entries(b)?;
            let mut names: Vec<&String> = left.keys().chain(right.keys()).collect();
            names.sort();
            names.dedup();
            // Pushed in reverse so that the first name is handled first.
            for name in names.into_iter().rev() {
                let (l, r) = (left.get(name), right.get(name));
                if l.map(|e| e.1) == r.map(|e| e.1) {
                    continue;
                }
                let path = format!("{prefix}{name}");
                // A file on either side (not a tree on both) changed: emitted after the
                // subtree of the same name, as the recursive walk did.
                if l.is_some_and(|e| !e.0) || r.is_some_and(|e| !e.0) {
                    stack.push(Todo::File(path.clone()));
                }
                let subtree = |e: Option<&(bool, gix::ObjectId)>| e.filter(|e| e.0).map(|e| e.1);
                let (lt, rt) = (subtree(l), subtree(r));
                if lt.is_some() || rt.is_some() {
                    stack.push(Todo::Trees(lt, rt, format!("{path}/")));
                }
            }
        }
        Ok(true)
    }

    /// Entries of a tree by name: (is a tree, object id); empty for no tree.
    fn tree_entries(
        &self,
        id: Option<gix::ObjectId>,
    ) -> Result<BTreeMap<String, (bool, gix::ObjectId)>, BoxError> {
        let mut map = BTreeMap::new();
        let Some(id) = id else { return Ok(map) };
        let tree = self.bounded_tree(id)?;
        for e in tree.decode()?.entries {
            if e.mode.is_commit() {
                continue;
            }
            map.insert(
                e.filename.to_str_lossy().into_owned(),
                (e.mode.is_tree(), e.oid.to_owned()),
            );
        }
        Ok(map)
    }
}

/// Deepest directory nesting a commit within the file cap is walked through.
const MAX_DEPTH: usize = 64;

/// Most trees one commit's diff reads: a subtree is read only when something under it
/// changed, so a commit changing at most `cap` files reads at most `cap + 1` paths of
/// [`MAX_DEPTH`] trees. Files alone do not bound the walk: a crafted history tree whose
/// every level holds two names for the level below, empty at the bottom, changes no file
/// and would have 2^40 pairs of trees read for 40 levels, in every index run.
fn trees_read_at_most(cap: usize) -> usize {
    cap.saturating_add(1).saturating_mul(MAX_DEPTH)
}
