//! The repository as git sees it, through `gix`: where the work tree and the common git dir
//! are, which branch is checked out (or which commit, when detached), and git config values.
//!
//! A repository owned by another user is refused, as git refuses it ("dubious ownership"),
//! unless the user's own (global or system) `safe.directory` lists it: its `.git/config` is
//! that user's, and `codesearch.*` settings there choose where code and API keys go.

pub mod blobs;
pub mod history;
pub mod hooks;
pub mod tree;

use std::path::{Path, PathBuf};

/// Errors while locating or reading the repository.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// No repository at or above the directory.
    #[error("not a git repository: {path}")]
    NotARepo {
        path: PathBuf,
        #[source]
        source: BoxError,
    },
    /// A bare repository has no work tree to index.
    #[error("{path} is a bare repository: there is no work tree to index")]
    Bare { path: PathBuf },
    /// The repository belongs to another user and `safe.directory` does not list it.
    #[error(
        "detected dubious ownership in repository at {path}: it is not owned by the current user"
    )]
    NotOwned { path: PathBuf },
    /// HEAD could not be read.
    #[error("cannot read HEAD of {path}")]
    Head {
        path: PathBuf,
        #[source]
        source: BoxError,
    },
    /// A revision does not name a commit, or its objects cannot be read.
    #[error("cannot read revision {rev:?}")]
    Rev {
        rev: String,
        #[source]
        source: BoxError,
    },
    /// An object's header says it is larger than any object of its kind that is read: a
    /// crafted repository's tree or commit of gigabytes is refused before it is decompressed.
    #[error("object {id} is too large: a {kind} of {size} bytes, over the {max}-byte bound")]
    TooLarge {
        id: String,
        kind: gix::object::Kind,
        size: u64,
        max: u64,
    },
    /// Branch names could not be listed.
    #[error("cannot list the branches of {path}")]
    Refs {
        path: PathBuf,
        #[source]
        source: BoxError,
    },
}

/// Any error, boxed, as the `source` of a [`GitError`].
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl GitError {
    /// A maker of [`GitError::Rev`] for `rev`, for `map_err`.
    pub(crate) fn rev<E: Into<BoxError>>(rev: &str) -> impl Fn(E) -> GitError + '_ {
        move |e| GitError::Rev {
            rev: rev.to_string(),
            source: e.into(),
        }
    }

    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            GitError::NotARepo { .. } => {
                Some("run git codesearch inside a git work tree (or `git init` one)".into())
            }
            GitError::Rev { .. } => Some(
                "name a commit, tag or branch that exists here (see `git log --oneline`, `git tag`)"
                    .into(),
            ),
            GitError::Bare { .. } => {
                Some("clone or `git worktree add` a work tree and run git codesearch there".into())
            }
            GitError::TooLarge { .. } => Some(
                "no real repository holds such an object: the history or tree was crafted, name another commit"
                    .into(),
            ),
            GitError::NotOwned { path } => Some(format!(
                "its configuration is another user's; if you trust it, run `git config --global --add safe.directory {}`",
                path.display()
            )),
            _ => None,
        }
    }
}

/// What is checked out: the key under which the work tree is indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchRef {
    /// Catalog key: `refs/heads/NAME`, or `detached/<commit id>`.
    pub key: String,
    /// True when the branch has no commit yet (a new repository).
    pub unborn: bool,
}

impl BranchRef {
    /// The catalog branch a commit's tree is indexed under (`--rev`): `rev/<commit id>`.
    pub fn of_commit(commit: &str) -> BranchRef {
        BranchRef {
            key: format!("rev/{commit}"),
            unborn: false,
        }
    }

    /// A branch by its short name (`main`) or full ref (`refs/heads/main`).
    pub fn named(name: &str) -> BranchRef {
        let key = if name.starts_with("refs/") || name.starts_with("detached/") {
            name.to_string()
        } else {
            format!("refs/heads/{name}")
        };
        BranchRef { key, unborn: false }
    }

    /// Short form for people: `main`, or `(detached at 1a2b3c4)`.
    pub fn display(&self) -> String {
        display_key(&self.key)
    }
}

/// Short form of a catalog branch key.
pub fn display_key(key: &str) -> String {
    if let Some(name) = key.strip_prefix("refs/heads/") {
        name.to_string()
    } else if let Some(id) = key.strip_prefix("detached/") {
        format!("(detached at {})", short(id))
    } else if let Some(id) = key.strip_prefix("rev/") {
        format!("(commit {})", short(id))
    } else {
        key.to_string()
    }
}

/// The first ten characters of a commit id. A key given by the user (`--branch`) may hold
/// anything, so it is cut by characters, never by bytes.
fn short(id: &str) -> String {
    id.chars().take(10).collect()
}

/// An opened, non-bare repository.
pub struct Repo {
    repo: gix::Repository,
    workdir: PathBuf,
}

impl Repo {
    /// Find the repository containing `dir`, refusing bare repositories.
    pub fn discover(dir: &Path) -> Result<Repo, GitError> {
        let repo = gix::discover(dir).map_err(|e| GitError::NotARepo {
            path: dir.to_path_buf(),
            source: Box::new(e),
        })?;
        // gix lowers the trust of a git dir or work tree another user owns, and raises it
        // back only for a `safe.directory` of the user's global or system config; git itself
        // refuses such a repository, and so do we (its local config is not the user's).
        if repo.git_dir_trust() != gix::sec::Trust::Full {
            let path = repo.workdir().unwrap_or(repo.git_dir());
            return Err(GitError::NotOwned {
                path: path.canonicalize().unwrap_or_else(|_| path.to_path_buf()),
            });
        }
        let workdir = match repo.workdir() {
            Some(w) => w.to_path_buf(),
            None => {
                return Err(GitError::Bare {
                    path: repo.git_dir().to_path_buf(),
                })
            }
        };
        let workdir = workdir.canonicalize().unwrap_or(workdir);
        Ok(Repo { repo, workdir })
    }

    /// Top of the work tree.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The git dir shared by all linked worktrees: the index lives below it.
    pub fn common_dir(&self) -> PathBuf {
        let dir = self.repo.common_dir();
        let dir = if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            self.workdir.join(dir)
        };
        dir.canonicalize().unwrap_or(dir)
    }

    /// This worktree's own git dir (differs from the common dir in linked worktrees).
    pub fn git_dir(&self) -> PathBuf {
        let dir = self.repo.git_dir();
        dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
    }

    /// The branch (or detached commit) checked out in this worktree.
    pub fn branch(&self) -> Result<BranchRef, GitError> {
        let head = self.repo.head().map_err(|e| self.head_error(e))?;
        match head.kind {
            gix::head::Kind::Symbolic(r) => Ok(BranchRef {
                key: r.name.as_bstr().to_string(),
                unborn: false,
            }),
            gix::head::Kind::Unborn(name) => Ok(BranchRef {
                key: name.as_bstr().to_string(),
                unborn: true,
            }),
            gix::head::Kind::Detached { target, .. } => Ok(BranchRef {
                key: format!("detached/{target}"),
                unborn: false,
            }),
        }
    }

    /// The commit HEAD points to, if there is one.
    pub fn head_commit(&self) -> Option<String> {
        self.repo.head_id().ok().map(|id| id.to_string())
    }

    /// The commit local branch `key` (`refs/heads/…`) points to, by an exact reference
    /// lookup: a key from elsewhere (a pulled manifest) is never parsed as a revision
    /// expression. None for another key, a branch this clone lacks, or one not at a commit.
    pub fn branch_commit(&self, key: &str) -> Option<String> {
        if !key.starts_with("refs/heads/") {
            return None;
        }
        let mut r = self.repo.try_find_reference(key).ok()??;
        if r.name().as_bstr() != key {
            return None;
        }
        let id = r.peel_to_id().ok()?.detach();
        self.commit_tree(id).ok()?;
        Some(id.to_string())
    }

    /// Full names of local branches (`refs/heads/…`).
    pub fn local_branches(&self) -> Result<Vec<String>, GitError> {
        let refs_err = |e: BoxError| GitError::Refs {
            path: self.workdir.clone(),
            source: e,
        };
        let platform = self.repo.references().map_err(|e| refs_err(Box::new(e)))?;
        let iter = platform
            .local_branches()
            .map_err(|e| refs_err(Box::new(e)))?;
        let mut names = Vec::new();
        for r in iter {
            let r = r.map_err(|e| refs_err(e.to_string().into()))?;
            names.push(r.name().as_bstr().to_string());
        }
        Ok(names)
    }

    /// A git config value (`section.key`), as a string, from fully trusted files only: a
    /// value from a file gix trusts only partly (another user's) is never taken, whatever
    /// the ownership check above decided.
    pub fn config_value(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .plumbing()
            .string_filter(key, gix::config::section::is_trusted)
            .map(|v| v.to_string())
    }

    fn head_error(&self, e: impl std::error::Error + Send + Sync + 'static) -> GitError {
        GitError::Head {
            path: self.workdir.clone(),
            source: Box::new(e),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn any_branch_key_displays_without_panicking() {
        assert_eq!(
            super::display_key("detached/0123456789abcdef"),
            "(detached at 0123456789)"
        );
        assert_eq!(
            super::display_key("detached/ééééééééééé"),
            "(detached at éééééééééé)"
        );
        assert_eq!(super::display_key("rev/日本語"), "(commit 日本語)");
    }
}
