//! The context every command works in: the repository, its work tree, the index directory,
//! the checked-out branch and the resolved configuration.

use std::path::{Path, PathBuf};

use crate::config::{keys, Config, TRUST_KEY};
use crate::git::{BranchRef, Repo};
use crate::store::{ChunkStore, Db, StoreError};
use crate::Error;

/// Name of the SQLite file inside the index directory.
pub const DB_FILE: &str = "meta.sqlite";
/// Name of the LanceDB directory inside the index directory.
pub const LANCE_DIR: &str = "lance";

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
    pub fn open(dir: &Path) -> Result<Workspace, Error> {
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
    pub fn branch(&self) -> Result<BranchRef, Error> {
        Ok(self.repo.branch()?)
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

    /// Open the LanceDB chunk store.
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
