//! The context every command works in: the repository, its work tree, the index directory,
//! the checked-out branch and the resolved configuration.

use std::path::{Path, PathBuf};

use crate::config::{keys, Config, ConfigError, TRUST_KEY};
use crate::git::{BranchRef, GitError, Repo};
use crate::store::{ChunkStore, Db, StoreError};

/// Name of the SQLite file inside the index directory.
pub const DB_FILE: &str = "meta.sqlite";
/// Name of the LanceDB directory inside the index directory.
pub const LANCE_DIR: &str = "lance";

/// Errors while opening a workspace. Each names the path it failed on: the directory
/// searched for a repository, or the configuration file.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No usable repository at or above the directory.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The configuration could not be read or is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl WorkspaceError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            WorkspaceError::Git(e) => e.hint(),
            WorkspaceError::Config(e) => e.hint(),
        }
    }
}

/// A repository opened for indexing or searching.
pub struct Workspace {
    /// The repository.
    pub repo: Repo,
    /// Top of the work tree.
    pub workdir: PathBuf,
    /// Where the index lives (`<common git dir>/codesearch` unless overridden).
    pub index_dir: PathBuf,
    /// The resolved configuration.
    pub config: Config,
}

impl Workspace {
    /// Open the repository containing `dir` and resolve the configuration.
    pub fn open(dir: &Path) -> Result<Workspace, WorkspaceError> {
        let repo = Repo::discover(dir)?;
        let workdir = repo.workdir().to_path_buf();
        let index_dir = crate::store::index_dir(&repo.common_dir());
        let config = Config::load(&workdir, |key| {
            debug_assert!(key == TRUST_KEY || keys::SETTINGS.iter().any(|s| s.git == key));
            repo.config_value(key)
        })?;
        Ok(Workspace {
            repo,
            workdir,
            index_dir,
            config,
        })
    }

    /// The branch checked out in this worktree.
    pub fn branch(&self) -> Result<BranchRef, GitError> {
        self.repo.branch()
    }

    /// True when an index database exists already.
    pub fn has_index(&self) -> bool {
        self.index_dir.join(DB_FILE).exists()
    }

    /// Open (creating if needed) the SQLite database.
    pub fn db(&self) -> Result<Db, StoreError> {
        self.ensure_dir()?;
        Db::open(&self.index_dir.join(DB_FILE))
    }

    /// Open the chunk store: chunks and their full-text index in the SQLite database, vectors
    /// in the LanceDB directory (opened on first use).
    pub fn chunk_store(&self) -> Result<ChunkStore, StoreError> {
        self.ensure_dir()?;
        ChunkStore::open(
            &self.index_dir.join(DB_FILE),
            &self.index_dir.join(LANCE_DIR),
        )
    }

    fn ensure_dir(&self) -> Result<(), StoreError> {
        std::fs::create_dir_all(&self.index_dir).map_err(|e| StoreError::Dir {
            path: self.index_dir.clone(),
            source: e,
        })?;
        // Probe: a directory we cannot read or write must fail here, clearly, not deep in
        // SQLite or LanceDB.
        std::fs::read_dir(&self.index_dir)
            .map(|_| ())
            .map_err(|e| StoreError::Dir {
                path: self.index_dir.clone(),
                source: e,
            })
    }
}
